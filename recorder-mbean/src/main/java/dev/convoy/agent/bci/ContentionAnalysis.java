package dev.convoy.agent.bci;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.util.ArrayList;
import java.util.List;

import org.objectweb.asm.ClassReader;

/**
 * Contention analysis on and off: the {@link ContentionTransformer} installed as a
 * retransform-capable transformer, plus a retransformation of the classes already loaded.
 *
 * <p><b>On</b>: defines the Probes class in the boot class loader and binds it (first time only,
 * {@link ProbesInstaller}), adds the transformer (every class loaded from now on is
 * instrumented as it is defined), then retransforms the loaded, modifiable application
 * classes (not the JDK's, not Convoy's, not hidden ones) that can have a call site: a class
 * whose class file is readable as a resource and names none of the probed methods is
 * skipped without retransforming it.
 *
 * <p><b>Off</b>: the transformer goes inactive (returns null) and the instrumented classes
 * are retransformed, which gives them back their original bytes; then it is removed.
 *
 * <p><b>Cost.</b> Switching at runtime in a big application retransforms every loaded
 * class that names a probed method (start, interrupt, join, sleep, notify, notifyAll,
 * wait): each is re-parsed and rewritten by ASM and redefined by the JVM (a VM operation
 * per batch of {@value #BATCH} classes, which stops the application threads for as long as
 * the redefinition takes). Thousands of classes take from a fraction of a second to a few
 * seconds; {@code contanalysis=on} at JVM start avoids it, as classes are then instrumented
 * while they load. A retransform that fails is counted as a failure of that class, which
 * keeps its current bytes; the application is never stopped by it.
 *
 * <p>Thread-safety: {@link #enable} and {@link #disable} are synchronized.
 */
public final class ContentionAnalysis {

    static final int BATCH = 256;

    private final Instrumentation inst;
    private ContentionTransformer transformer;
    private boolean enabled;

    public ContentionAnalysis(Instrumentation inst) {
        this.inst = inst;
    }

    public synchronized boolean isEnabled() {
        return enabled;
    }

    /**
     * Switches contention analysis on; nothing happens if it is on.
     *
     * @throws IllegalStateException without an Instrumentation (Convoy used as a library), if
     *         the JVM cannot retransform, or if the Probes class cannot be installed
     */
    public synchronized void enable() {
        if (enabled) {
            return;
        }
        if (inst == null) {
            throw new IllegalStateException("contention analysis needs the agent's Instrumentation "
                    + "(start Convoy with -javaagent or attach it)");
        }
        if (!inst.isRetransformClassesSupported()) {
            throw new IllegalStateException("this JVM cannot retransform classes: contention analysis is unavailable");
        }
        if (transformer == null) {
            transformer = new ContentionTransformer(ProbesInstaller.install());
        }
        transformer.setActive(true);
        inst.addTransformer(transformer, true);
        enabled = true;
        List<Class<?>> candidates = new ArrayList<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (candidate(c)) {
                candidates.add(c);
            }
        }
        retransform(candidates);
    }

    /** Switches contention analysis off and restores the original bytes of the instrumented classes. */
    public synchronized void disable() {
        if (!enabled) {
            return;
        }
        transformer.setActive(false);
        List<Class<?>> back = new ArrayList<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            ClassLoader l = c.getClassLoader();
            if (l != null && transformer.isInstrumented(l, c.getName().replace('.', '/'))) {
                back.add(c);
            }
        }
        retransform(back);
        inst.removeTransformer(transformer);
        enabled = false;
    }

    /** Classes whose call sites are rewritten now. */
    public synchronized long instrumentedClasses() {
        return transformer == null ? 0 : transformer.instrumentedClasses();
    }

    /** Classes that could not be transformed or retransformed since the agent started. */
    public synchronized long transformFailures() {
        return transformer == null ? 0 : transformer.failures();
    }

    /** The last failure, {@code "class: exception"}, or null. */
    public synchronized String lastFailure() {
        return transformer == null ? null : transformer.lastFailure();
    }

    private boolean candidate(Class<?> c) {
        if (c.isArray() || c.isPrimitive() || c.isHidden() || !inst.isModifiableClass(c)) {
            return false;
        }
        String name = c.getName().replace('.', '/');
        ClassLoader loader = c.getClassLoader();
        if (!ContentionTransformer.eligible(loader, name)) {
            return false;
        }
        try (InputStream in = loader.getResourceAsStream(name + ".class")) {
            if (in == null) {
                return true; // no class file to look into: retransform to find out
            }
            byte[] b = in.readAllBytes();
            return ContentionTransformer.mentionsProbedName(new ClassReader(b), b);
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }

    private void retransform(List<Class<?>> classes) {
        long failuresBefore = transformer.failures();
        for (int i = 0; i < classes.size(); i += BATCH) {
            List<Class<?>> batch = classes.subList(i, Math.min(classes.size(), i + BATCH));
            try {
                inst.retransformClasses(batch.toArray(new Class<?>[0]));
            } catch (Throwable batchFailure) {
                for (Class<?> c : batch) { // one by one, to fail only the guilty ones
                    try {
                        inst.retransformClasses(c);
                    } catch (UnmodifiableClassException | RuntimeException | LinkageError e) {
                        transformer.countFailure(c.getName(), e);
                    }
                }
            }
        }
        long failed = transformer.failures() - failuresBefore;
        if (failed > 0) {
            // One line per switch, not per class: the MBean's TransformFailures has the total.
            System.err.println("[convoy] contention analysis: " + failed + " class(es) kept their code (last: "
                    + transformer.lastFailure() + ")");
        }
    }
}
