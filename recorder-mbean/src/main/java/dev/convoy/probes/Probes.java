package dev.convoy.probes;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.concurrent.locks.AbstractQueuedLongSynchronizer;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;

/**
 * The probes of contention analysis: instrumented application call sites of
 * {@code Thread.start/interrupt/join/sleep} and {@code Object.notify/notifyAll/wait} call
 * these static wrappers instead, with the receiver as first argument (see
 * {@code dev.convoy.agent.bci.ContentionTransformer}). Each wrapper records an event and
 * performs the original call, with the same result and the same exceptions.
 *
 * <p><b>Loading.</b> This class must be loaded by the boot class loader, so that it is
 * visible from every application class loader that delegates to it: the agent defines it
 * there from its class file (JNI DefineClass without a loader), then binds
 * {@link #record0} with {@code NativeRecorder.bindProbes} and only then sets {@link #bound}
 * (by reflection). It depends on {@code java.base} only.
 *
 * <p><b>Early path.</b> Until {@code bound} is set (or in a JVM without the recorder) the
 * wrappers only perform the original call: record0 is never called while it is unbound.
 *
 * <p><b>Stacks.</b> record0 captures the caller's stack skipping exactly two frames
 * (itself and the wrapper), so every wrapper calls record0 directly, never through a helper:
 * the recorded stack starts at the application's call site.
 *
 * <p>Events (schema/snapshot-format.md): START_CALL (16) before {@code start()};
 * INTERRUPT_CALL (17) before {@code interrupt()}, arg 1 if the target was WAITING or
 * TIMED_WAITING; NOTIFY (18) and NOTIFY_ALL (19) after a successful call (a call that throws
 * {@code IllegalMonitorStateException} records nothing); SLEEP (20) / SLEPT (21) and JOIN (22)
 * / JOINED (23) around the call, the second in {@code finally}; THREAD_INTERRUPTED (24) when
 * sleep, join or wait throws {@code InterruptedException}, before it is rethrown.
 *
 * <p><b>Parks</b> (recorded with recording on, independent of contention analysis): the
 * LockSupport hook ({@code dev.convoy.agent.bci.ParkTransformer}) calls {@link #parkBegin},
 * {@link #parkNanosBegin} or {@link #parkUntilBegin} at the entry of each {@code park*}
 * method, with the blocker and the blocker's exclusive owner it read itself, and
 * {@link #parkEnd} or {@link #parkUntilEnd} at each of its exits, normal or exceptional;
 * {@link #unpark} at the entry of {@code unpark}. PARK (25), PARKED (26), UNPARK (27). This
 * path runs inside every park of the JVM: it allocates nothing, loads no class (every class
 * it names is loaded before the hook is applied, and {@link #linkParkPath} runs it once
 * before), takes no lock and never parks; per park a volatile read and one native call at
 * the start and one at the end.
 */
public final class Probes {

    // Values of SnapshotFormat.EVENT_*; this class may not depend on Convoy's other classes.
    private static final int START_CALL = 16;
    private static final int INTERRUPT_CALL = 17;
    private static final int NOTIFY = 18;
    private static final int NOTIFY_ALL = 19;
    private static final int SLEEP = 20;
    private static final int SLEPT = 21;
    private static final int JOIN = 22;
    private static final int JOINED = 23;
    private static final int THREAD_INTERRUPTED = 24;
    // SnapshotFormat.FLAG_TIMED_OUT, FLAG_LOCK
    private static final int FLAG_TIMED_OUT = 1;
    private static final int FLAG_LOCK = 4;

    /** The synchronizer of a CountDownLatch: an AQS whose parks wait, not lock. */
    private static final Class<?> LATCH_SYNC = latchSync();

    /** Set by the agent (reflection) once record0 is bound; never reset. */
    private static volatile boolean bound;

    /** {@code Thread.sleep(Duration)} and {@code Thread.join(Duration)} (JDK 19+), looked up on first use. */
    private static volatile MethodHandle sleepDuration;
    private static volatile MethodHandle joinDuration;

    private Probes() {
    }

    /**
     * Records one event in the calling thread's ring (bound by {@code NativeRecorder.bindProbes}).
     * obj: the Thread for 16, 17, 22, 23; the monitor for 18, 19; null otherwise.
     */
    private static native void record0(int type, Object obj, long arg);

    /**
     * Records a PARK (bound by {@code NativeRecorder.bindProbes}); returns its time, the token
     * for {@link #parked0}, or 0 if nothing was recorded. The stack skips park0 and its caller.
     */
    private static native long park0(Object blocker, Thread owner, long timeoutNs, int flags);

    /**
     * Records a PARKED unless {@code start} is 0: FLAG_TIMED_OUT if given in {@code flags}, or if
     * {@code timeoutNs > 0} and that much time passed since {@code start}; FLAG_INTERRUPTED if
     * {@code self}'s interrupt status is set.
     */
    private static native void parked0(long start, Object blocker, long timeoutNs, int flags, Thread self);

    /** Records an UNPARK of {@code target}. */
    private static native void unpark0(Thread target);

    /** Whether the natives are bound (false: the early path, nothing is recorded). */
    public static boolean isBound() {
        return bound;
    }

    /** {@code park(blocker)} and {@code park()} begin; returns the token for {@link #parkEnd}. */
    public static long parkBegin(Object blocker, Thread owner) {
        if (!bound) {
            return 0;
        }
        return park0(blocker, owner, 0, lockFlag(blocker));
    }

    /** {@code parkNanos} begins (a call with {@code nanos <= 0} does not park and is not recorded). */
    public static long parkNanosBegin(Object blocker, Thread owner, long nanos) {
        if (!bound || nanos <= 0) {
            return 0;
        }
        return park0(blocker, owner, nanos, lockFlag(blocker));
    }

    /** {@code parkUntil} begins: the timeout is the deadline (epoch ms) less now, in ns, at least 1. */
    public static long parkUntilBegin(Object blocker, Thread owner, long deadline) {
        if (!bound) {
            return 0;
        }
        return park0(blocker, owner, untilNanos(deadline, System.currentTimeMillis()), lockFlag(blocker));
    }

    /** {@code park} or {@code parkNanos} returns (normally or not); {@code nanos} 0 for park. */
    public static void parkEnd(long token, Object blocker, long nanos) {
        if (token != 0) {
            parked0(token, blocker, nanos, 0, Thread.currentThread());
        }
    }

    /** {@code parkUntil} returns: timed out if the deadline has passed. */
    public static void parkUntilEnd(long token, Object blocker, long deadline) {
        if (token != 0) {
            parked0(token, blocker, 0, System.currentTimeMillis() >= deadline ? FLAG_TIMED_OUT : 0,
                    Thread.currentThread());
        }
    }

    /** {@code unpark(thread)} called. */
    public static void unpark(Thread t) {
        if (bound && t != null) {
            unpark0(t);
        }
    }

    /** FLAG_LOCK for a blocker that is an AQS or AQLS other than a CountDownLatch's. */
    static int lockFlag(Object blocker) {
        return (blocker instanceof AbstractQueuedSynchronizer || blocker instanceof AbstractQueuedLongSynchronizer)
                && blocker.getClass() != LATCH_SYNC ? FLAG_LOCK : 0;
    }

    /** parkUntil's timeout: {@code deadline - now} ms in ns, saturated, at least 1. */
    static long untilNanos(long deadline, long now) {
        long ms = deadline - now;
        if (((deadline ^ now) & (deadline ^ ms)) < 0) { // overflow: the deadline's sign says which way
            return deadline >= 0 ? Long.MAX_VALUE : 1;
        }
        return ms <= 0 ? 1 : ms >= Long.MAX_VALUE / 1_000_000 ? Long.MAX_VALUE : ms * 1_000_000;
    }

    /**
     * Runs the Java part of the park path once (no native call), so that every constant it
     * refers to is resolved before the hook is applied; called by the agent by reflection.
     * Returns a value derived from it so that nothing is left out.
     */
    public static long linkParkPath() {
        long v = lockFlag(null) + lockFlag(new Object()) + untilNanos(0, 1) + untilNanos(Long.MAX_VALUE, -1);
        return v + System.currentTimeMillis() + (Thread.currentThread() != null ? 1 : 0);
    }

    private static Class<?> latchSync() {
        try {
            return Class.forName("java.util.concurrent.CountDownLatch$Sync", false, null);
        } catch (ClassNotFoundException | LinkageError e) {
            return null; // another JDK's latch: its parks may be marked FLAG_LOCK
        }
    }

    public static void start(Thread t) {
        if (bound && t != null) {
            record0(START_CALL, t, 0);
        }
        t.start();
    }

    public static void interrupt(Thread t) {
        if (bound && t != null) {
            Thread.State s = t.getState();
            record0(INTERRUPT_CALL, t, s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING ? 1 : 0);
        }
        t.interrupt();
    }

    public static void notify(Object monitor) {
        monitor.notify();
        if (bound) {
            record0(NOTIFY, monitor, 0);
        }
    }

    public static void notifyAll(Object monitor) {
        monitor.notifyAll();
        if (bound) {
            record0(NOTIFY_ALL, monitor, 0);
        }
    }

    public static void sleep(long millis) throws InterruptedException {
        if (!bound) {
            Thread.sleep(millis);
            return;
        }
        record0(SLEEP, null, millis);
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            record0(THREAD_INTERRUPTED, null, 0);
            throw e;
        } finally {
            record0(SLEPT, null, 0);
        }
    }

    public static void sleep(long millis, int nanos) throws InterruptedException {
        if (!bound) {
            Thread.sleep(millis, nanos);
            return;
        }
        record0(SLEEP, null, millis);
        try {
            Thread.sleep(millis, nanos);
        } catch (InterruptedException e) {
            record0(THREAD_INTERRUPTED, null, 0);
            throw e;
        } finally {
            record0(SLEPT, null, 0);
        }
    }

    /** {@code Thread.sleep(Duration)}, JDK 19+ (call sites exist only in classes compiled for it). */
    public static void sleep(Duration duration) throws InterruptedException {
        MethodHandle mh = sleepDuration;
        if (mh == null) {
            sleepDuration = mh = lookup("sleep", MethodType.methodType(void.class, Duration.class), true);
        }
        if (!bound) {
            invokeSleep(mh, duration);
            return;
        }
        record0(SLEEP, null, duration == null ? 0 : saturatedMillis(duration));
        try {
            invokeSleep(mh, duration);
        } catch (InterruptedException e) {
            record0(THREAD_INTERRUPTED, null, 0);
            throw e;
        } finally {
            record0(SLEPT, null, 0);
        }
    }

    public static void join(Thread t) throws InterruptedException {
        if (!bound || t == null) {
            t.join();
            return;
        }
        record0(JOIN, t, 0);
        try {
            t.join();
        } catch (InterruptedException e) {
            record0(THREAD_INTERRUPTED, null, 0);
            throw e;
        } finally {
            record0(JOINED, t, 0);
        }
    }

    public static void join(Thread t, long millis) throws InterruptedException {
        if (!bound || t == null) {
            t.join(millis);
            return;
        }
        record0(JOIN, t, millis);
        try {
            t.join(millis);
        } catch (InterruptedException e) {
            record0(THREAD_INTERRUPTED, null, 0);
            throw e;
        } finally {
            record0(JOINED, t, 0);
        }
    }

    public static void join(Thread t, long millis, int nanos) throws InterruptedException {
        if (!bound || t == null) {
            t.join(millis, nanos);
            return;
        }
        record0(JOIN, t, millis);
        try {
            t.join(millis, nanos);
        } catch (InterruptedException e) {
            record0(THREAD_INTERRUPTED, null, 0);
            throw e;
        } finally {
            record0(JOINED, t, 0);
        }
    }

    /** {@code boolean Thread.join(Duration)}, JDK 19+. */
    public static boolean join(Thread t, Duration duration) throws InterruptedException {
        MethodHandle mh = joinDuration;
        if (mh == null) {
            joinDuration = mh = lookup("join", MethodType.methodType(boolean.class, Duration.class), false);
        }
        if (!bound || t == null) {
            return invokeJoin(mh, t, duration);
        }
        record0(JOIN, t, duration == null ? 0 : Math.max(1, saturatedMillis(duration)));
        try {
            return invokeJoin(mh, t, duration);
        } catch (InterruptedException e) {
            record0(THREAD_INTERRUPTED, null, 0);
            throw e;
        } finally {
            record0(JOINED, t, 0);
        }
    }

    public static void wait(Object monitor) throws InterruptedException {
        try {
            monitor.wait();
        } catch (InterruptedException e) {
            if (bound) {
                record0(THREAD_INTERRUPTED, null, 0);
            }
            throw e;
        }
    }

    public static void wait(Object monitor, long millis) throws InterruptedException {
        try {
            monitor.wait(millis);
        } catch (InterruptedException e) {
            if (bound) {
                record0(THREAD_INTERRUPTED, null, 0);
            }
            throw e;
        }
    }

    public static void wait(Object monitor, long millis, int nanos) throws InterruptedException {
        try {
            monitor.wait(millis, nanos);
        } catch (InterruptedException e) {
            if (bound) {
                record0(THREAD_INTERRUPTED, null, 0);
            }
            throw e;
        }
    }

    private static long saturatedMillis(Duration d) {
        try {
            return d.toMillis();
        } catch (ArithmeticException e) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    private static MethodHandle lookup(String name, MethodType type, boolean isStatic) {
        try {
            return isStatic ? MethodHandles.publicLookup().findStatic(Thread.class, name, type)
                    : MethodHandles.publicLookup().findVirtual(Thread.class, name, type);
        } catch (ReflectiveOperationException e) {
            // Unreachable: call sites of these overloads exist only on JDKs that have them.
            throw new NoSuchMethodError("Thread." + name + type + ": " + e);
        }
    }

    private static void invokeSleep(MethodHandle mh, Duration d) throws InterruptedException {
        try {
            mh.invokeExact(d);
        } catch (InterruptedException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new UndeclaredThrowableException(e);
        }
    }

    private static boolean invokeJoin(MethodHandle mh, Thread t, Duration d) throws InterruptedException {
        try {
            return (boolean) mh.invokeExact(t, d);
        } catch (InterruptedException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new UndeclaredThrowableException(e);
        }
    }
}
