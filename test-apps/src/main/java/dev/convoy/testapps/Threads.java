package dev.convoy.testapps;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Thread helpers shared by the scenarios.
 *
 * <p>Design rule: the coordinating thread (usually {@code main}) never calls {@code Object.wait},
 * {@code Thread.join}, {@code Thread.sleep} or {@code LockSupport.park*} to wait for a condition.
 * It polls with {@link Thread#onSpinWait()}, {@link Thread#yield()} and a short
 * {@link TimeUnit#sleep} back-off: a platform thread's sleep parks nothing and posts no JVMTI
 * event, and contention analysis instruments {@code Thread.sleep} call sites, which this is not.
 * So every monitor, park and interaction event in a recording of a scenario comes from the
 * scenario's named threads. All polls are bounded by {@link #TIMEOUT}.
 */
public final class Threads {

    /** Upper bound for every wait loop; override with {@code -Dconvoy.testapps.timeoutMs=...}. */
    public static final Duration TIMEOUT =
            Duration.ofMillis(Long.getLong("convoy.testapps.timeoutMs", 20_000L));

    private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

    private Threads() {
    }

    /** A thread body that may throw. */
    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    /** Collects failures of scenario threads so {@code run()} can rethrow them. */
    public static final class Failures {
        private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

        void add(String thread, Throwable t) {
            failures.add(new IllegalStateException("thread " + thread + " failed: " + t, t));
        }

        /** Throws if any scenario thread failed. */
        public void check() {
            Throwable first = failures.peek();
            if (first != null) {
                IllegalStateException e = new IllegalStateException(first.getMessage(), first);
                failures.stream().skip(1).forEach(e::addSuppressed);
                throw e;
            }
        }
    }

    /**
     * Creates and starts a daemon thread with the given name. Daemon, so that a scenario that
     * fails half-way can never keep the JVM alive. Exceptions thrown by the body are recorded in
     * {@code failures}.
     */
    public static Thread start(String name, Failures failures, Body body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failures.add(Thread.currentThread().getName(), e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Polls {@code condition} until true or {@code timeout} elapses; returns the last value. */
    public static boolean await(BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int spins = 0;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                return condition.getAsBoolean();
            }
            if (spins < 64) {
                Thread.onSpinWait();
            } else if (spins < 128) {
                Thread.yield();
            } else {
                try {
                    TimeUnit.MICROSECONDS.sleep(100); // 1 ms on JDK 17, which sleeps whole milliseconds
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return condition.getAsBoolean();
                }
            }
            spins++;
        }
        return true;
    }

    /** Like {@link #await} with {@link #TIMEOUT}, throwing {@link IllegalStateException} on timeout. */
    public static void require(BooleanSupplier condition, String what) {
        if (!await(condition, TIMEOUT)) {
            throw new IllegalStateException("timed out after " + TIMEOUT.toMillis() + " ms waiting for " + what);
        }
    }

    /** True if {@code t} is BLOCKED entering {@code monitor} (not some other monitor). */
    public static boolean isBlockedOn(Thread t, Object monitor) {
        return isParkedOn(t, monitor, Thread.State.BLOCKED, Thread.State.BLOCKED);
    }

    /** True if {@code t} is in {@code monitor.wait(...)} (WAITING or TIMED_WAITING). */
    public static boolean isWaitingOn(Thread t, Object monitor) {
        return isParkedOn(t, monitor, Thread.State.WAITING, Thread.State.TIMED_WAITING);
    }

    private static boolean isParkedOn(Thread t, Object monitor, Thread.State s1, Thread.State s2) {
        Thread.State s = t.getState();
        if (s != s1 && s != s2) {
            return false; // cheap check first; ThreadMXBean below needs a VM operation
        }
        ThreadInfo info = MX.getThreadInfo(t.getId());
        if (info == null || (info.getThreadState() != s1 && info.getThreadState() != s2)) {
            return false;
        }
        LockInfo lock = info.getLockInfo();
        return lock != null
                && lock.getIdentityHashCode() == System.identityHashCode(monitor)
                && lock.getClassName().equals(monitor.getClass().getName());
    }

    /**
     * True if {@code t} is parked (WAITING or TIMED_WAITING in {@code LockSupport.park*}) with a
     * blocker of exactly the class {@code blockerClassName}.
     */
    public static boolean isParkedOn(Thread t, String blockerClassName) {
        Thread.State s = t.getState();
        Object blocker = LockSupport.getBlocker(t);
        return (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) && blocker != null
                && blocker.getClass().getName().equals(blockerClassName);
    }

    /** Waits (bounded) until {@code t} is parked with a blocker of that class. */
    public static void awaitParkedOn(Thread t, String blockerClassName) {
        require(() -> isParkedOn(t, blockerClassName), t.getName() + " parked on a " + blockerClassName);
    }

    /** Waits (bounded) until {@code t} is BLOCKED entering {@code monitor}. */
    public static void awaitBlockedOn(Thread t, Object monitor) {
        require(() -> isBlockedOn(t, monitor), t.getName() + " BLOCKED on " + monitor.getClass().getName());
    }

    /** Waits (bounded) until {@code t} is in {@code monitor.wait(...)}. */
    public static void awaitWaitingOn(Thread t, Object monitor) {
        require(() -> isWaitingOn(t, monitor), t.getName() + " WAITING on " + monitor.getClass().getName());
    }

    /**
     * Waits (bounded) until every thread has terminated, by polling {@link Thread#isAlive()} rather
     * than joining. HotSpot posts the JVMTI ThreadEnd event before the thread stops being alive, so
     * once this returns the recorder has seen every thread end.
     */
    public static void awaitTermination(Collection<Thread> threads) {
        List<Thread> copy = new ArrayList<>(threads);
        require(() -> copy.stream().noneMatch(Thread::isAlive), "termination of " + names(copy));
    }

    /** The names of the given threads, in order. */
    public static List<String> names(Collection<Thread> threads) {
        return threads.stream().map(Thread::getName).toList();
    }
}
