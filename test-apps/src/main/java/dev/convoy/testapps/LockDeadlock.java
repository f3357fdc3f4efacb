package dev.convoy.testapps;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A guaranteed two-thread {@link ReentrantLock} deadlock: {@code lock-deadlock-A} holds lock 1 and
 * wants lock 2, {@code lock-deadlock-B} holds lock 2 and wants lock 1; a latch makes each hold its
 * first before asking for the second. Both stay parked (daemon threads) until the JVM exits, so a
 * snapshot on exit finds them parked, each on the lock the other owns. {@code run()} returns once
 * both are parked and {@code ThreadMXBean.findDeadlockedThreads()} reports them.
 *
 * <p>Blocker class: {@code java.util.concurrent.locks.ReentrantLock$NonfairSync}.
 */
public final class LockDeadlock implements Scenario {

    public static final String NAME = "lock-deadlock";
    public static final String THREAD_A = "lock-deadlock-A";
    public static final String THREAD_B = "lock-deadlock-B";
    public static final String BLOCKER = ReentrantLockStorm.BLOCKER;

    /** @param jvmDetected findDeadlockedThreads reported both */
    public record Result(long aId, long bId, boolean aParkedOnLock2, boolean bParkedOnLock1, boolean jvmDetected)
            implements ScenarioResult {

        @Override
        public boolean ok() {
            return aParkedOnLock2 && bParkedOnLock1 && jvmDetected;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "aId", aId, "bId", bId, "aParkedOnLock2", aParkedOnLock2,
                    "bParkedOnLock1", bParkedOnLock1, "jvmDetected", jvmDetected);
        }
    }

    private LockDeadlock() {
    }

    public static LockDeadlock create() {
        return new LockDeadlock();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        ReentrantLock lock1 = new ReentrantLock();
        ReentrantLock lock2 = new ReentrantLock();
        CountDownLatch bothHoldFirst = new CountDownLatch(2);
        Threads.Failures failures = new Threads.Failures();
        Thread a = Threads.start(THREAD_A, failures, () -> lockBoth(lock1, lock2, bothHoldFirst));
        Thread b = Threads.start(THREAD_B, failures, () -> lockBoth(lock2, lock1, bothHoldFirst));
        Threads.require(() -> lock2.hasQueuedThread(a) && lock1.hasQueuedThread(b)
                && Threads.isParkedOn(a, BLOCKER) && Threads.isParkedOn(b, BLOCKER) || !a.isAlive() || !b.isAlive(),
                "both threads parked on the other's lock");
        failures.check();
        return new Result(a.getId(), b.getId(), lock2.hasQueuedThread(a), lock1.hasQueuedThread(b),
                detected(a, b));
    }

    static boolean detected(Thread a, Thread b) {
        long[] ids = ManagementFactory.getThreadMXBean().findDeadlockedThreads();
        return ids != null && Arrays.stream(ids).anyMatch(id -> id == a.getId())
                && Arrays.stream(ids).anyMatch(id -> id == b.getId());
    }

    private static void lockBoth(ReentrantLock first, ReentrantLock second, CountDownLatch bothHoldFirst)
            throws InterruptedException {
        first.lock();
        try {
            bothHoldFirst.countDown();
            if (!bothHoldFirst.await(Threads.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the other thread never took its first lock");
            }
            second.lock();
            throw new IllegalStateException("acquired both locks: no deadlock");
        } finally {
            first.unlock();
        }
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "LockDeadlock", () -> {
            Cli.maxArgs(args, 0);
            return create();
        }));
    }
}
