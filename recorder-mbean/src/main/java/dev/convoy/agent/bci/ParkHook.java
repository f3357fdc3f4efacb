package dev.convoy.agent.bci;

import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.AbstractOwnableSynchronizer;
import java.util.concurrent.locks.AbstractQueuedLongSynchronizer;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.LockSupport;

/**
 * Records parks: applies the {@link ParkTransformer} to {@code LockSupport} at agent start
 * (premain and attach), whatever contention analysis does; not with {@code bench.callbacks=empty}.
 *
 * <p>Steps, each before the next: the Probes class is defined in the boot loader and bound
 * ({@link ProbesInstaller}); {@code java.base} is made to read the boot loader's unnamed
 * module, Probes' module ({@code Instrumentation.redefineModule}), since LockSupport will call
 * it; every class the park path names is loaded and its Java part runs once
 * ({@code Probes.linkParkPath}), so that no park ever loads a class or resolves a constant
 * for the first time inside the hook (a class load could run a transformer that parks);
 * then the transformer is added (retransform-capable, kept) and LockSupport retransformed.
 *
 * <p>A failure leaves LockSupport as it was (no parks recorded), is counted in
 * {@link #failures()} and printed as one line on stderr; the agent keeps running.
 */
public final class ParkHook {

    private final ParkTransformer transformer = new ParkTransformer();
    private volatile boolean installed;

    /** Installs the hook; never throws (failures are counted and printed). */
    public void install(Instrumentation inst) {
        if (inst == null) {
            return; // Convoy as a library: no instrumentation, no parks
        }
        try {
            if (!inst.isRetransformClassesSupported()) {
                throw new IllegalStateException("this JVM cannot retransform classes");
            }
            Class<?> probes = ProbesInstaller.install();
            Module javaBase = Object.class.getModule();
            if (!javaBase.canRead(probes.getModule())) {
                inst.redefineModule(javaBase, Set.of(probes.getModule()), Map.of(), Map.of(), Set.of(), Map.of());
            }
            link(probes);
        } catch (Throwable t) {
            transformer.countFailure(t);
            return;
        }
        inst.addTransformer(transformer, true);
        try {
            inst.retransformClasses(LockSupport.class);
            installed = transformer.applied() > 0;
        } catch (Throwable t) {
            // The JVM refused the hooked bytes: LockSupport keeps its own, and no later
            // retransformation by another agent may run into the same refusal.
            inst.removeTransformer(transformer);
            transformer.countFailure(t);
        }
    }

    /** Loads and initializes what the park path names, and runs its Java part once. */
    private static void link(Class<?> probes) throws ReflectiveOperationException {
        for (Class<?> c : new Class<?>[] {AbstractOwnableSynchronizer.class, AbstractQueuedSynchronizer.class,
                AbstractQueuedLongSynchronizer.class, LockSupport.class, Thread.class, System.class}) {
            Class.forName(c.getName(), true, null);
        }
        Class.forName("java.util.concurrent.CountDownLatch$Sync", false, null);
        probes.getMethod("linkParkPath").invoke(null);
    }

    /** Whether LockSupport is hooked (parks are recorded while recording is on). */
    public boolean isInstalled() {
        return installed;
    }

    /** Failures to hook LockSupport since the agent started. */
    public long failures() {
        return transformer.failures();
    }

    /** The last failure, or null. */
    public String lastFailure() {
        return transformer.lastFailure();
    }
}
