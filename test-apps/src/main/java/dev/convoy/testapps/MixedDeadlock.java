package dev.convoy.testapps;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A guaranteed deadlock across a monitor and a {@link ReentrantLock}: {@code mixed-deadlock-A}
 * holds the monitor (a {@link Monitor}) and wants the lock (it parks), {@code mixed-deadlock-B}
 * holds the lock and wants the monitor (it is BLOCKED). Daemon threads, held until the JVM exits.
 * {@code run()} returns once A is parked on the lock, B blocked on the monitor, and
 * {@code ThreadMXBean.findDeadlockedThreads()} reports both.
 *
 * <p>Blocker class of A: {@code java.util.concurrent.locks.ReentrantLock$NonfairSync}; monitor
 * class of B: {@code dev.convoy.testapps.MixedDeadlock$Monitor}.
 */
public final class MixedDeadlock implements Scenario {

    public static final String NAME = "mixed-deadlock";
    public static final String THREAD_A = "mixed-deadlock-A";
    public static final String THREAD_B = "mixed-deadlock-B";
    public static final String BLOCKER = ReentrantLockStorm.BLOCKER;

    /** The monitor A holds and B wants. */
    public static final class Monitor {
    }

    public record Result(long aId, long bId, boolean aParkedOnLock, boolean bBlockedOnMonitor, boolean jvmDetected)
            implements ScenarioResult {

        @Override
        public boolean ok() {
            return aParkedOnLock && bBlockedOnMonitor && jvmDetected;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "aId", aId, "bId", bId, "aParkedOnLock", aParkedOnLock,
                    "bBlockedOnMonitor", bBlockedOnMonitor, "jvmDetected", jvmDetected);
        }
    }

    private MixedDeadlock() {
    }

    public static MixedDeadlock create() {
        return new MixedDeadlock();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        Monitor monitor = new Monitor();
        ReentrantLock lock = new ReentrantLock();
        CountDownLatch bothHoldFirst = new CountDownLatch(2);
        Threads.Failures failures = new Threads.Failures();
        Thread a = Threads.start(THREAD_A, failures, () -> {
            synchronized (monitor) {
                awaitBoth(bothHoldFirst);
                lock.lock();
                throw new IllegalStateException("acquired both: no deadlock");
            }
        });
        Thread b = Threads.start(THREAD_B, failures, () -> {
            lock.lock();
            try {
                awaitBoth(bothHoldFirst);
                synchronized (monitor) {
                    throw new IllegalStateException("acquired both: no deadlock");
                }
            } finally {
                lock.unlock();
            }
        });
        Threads.require(() -> lock.hasQueuedThread(a) && Threads.isParkedOn(a, BLOCKER) && Threads.isBlockedOn(b, monitor)
                || !a.isAlive() || !b.isAlive(), "A parked on the lock and B blocked on the monitor");
        failures.check();
        return new Result(a.getId(), b.getId(), lock.hasQueuedThread(a), Threads.isBlockedOn(b, monitor),
                LockDeadlock.detected(a, b));
    }

    private static void awaitBoth(CountDownLatch bothHoldFirst) throws InterruptedException {
        bothHoldFirst.countDown();
        if (!bothHoldFirst.await(Threads.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("the other thread never took its first lock");
        }
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "MixedDeadlock", () -> {
            Cli.maxArgs(args, 0);
            return create();
        }));
    }
}
