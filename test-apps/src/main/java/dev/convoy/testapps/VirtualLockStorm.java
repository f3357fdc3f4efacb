package dev.convoy.testapps;

import java.util.concurrent.locks.ReentrantLock;

/**
 * N unnamed virtual threads (JDK 21 and later; default 10,000) contend on one (non-fair)
 * {@link ReentrantLock}. {@code main} holds the lock while it starts them, waits until every one
 * is parked in {@code lock()} (blocker {@link #BLOCKER}), and then unlocks: the lock passes from
 * thread to thread. Each thread takes {@code System.nanoTime()} just before {@code lock()} and
 * again when it returns, so its parks on the lock lie within {@code [enterAt, acquiredAt]}, and
 * one of them began before {@code observedAt} (all were parked then) and ended after
 * {@code releasedAt} (taken by {@code main} just before it unlocked). A virtual thread parks
 * through {@code VirtualThread.park}: its carrier is let go and it may come back on another.
 *
 * <p>The summary lists, in start order, the threads' Java ids ({@code threadIds}),
 * {@code enterAt} and {@code acquiredAt}, and, when Convoy runs in the JVM, the largest
 * {@code MemoryInUseBytes} seen while the threads ran ({@code maxMemoryInUse}, with
 * {@code memoryCap}; -1 without Convoy). Written against the JDK 17 API: on an older JDK it fails
 * with a message saying virtual threads need JDK 21.
 */
public final class VirtualLockStorm implements Scenario {

    public static final String NAME = "virtual-lock-storm";
    public static final int DEFAULT_THREADS = 10_000;

    /** The class of the lock's synchronizer, the blocker of every park on it. */
    public static final String BLOCKER = "java.util.concurrent.locks.ReentrantLock$NonfairSync";

    private final int threads;

    private VirtualLockStorm(int threads) {
        this.threads = VirtualStorm.checkThreads(threads);
    }

    public static VirtualLockStorm create(int threads) {
        return new VirtualLockStorm(threads);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public VirtualStorm.Result run() throws InterruptedException {
        ReentrantLock lock = new ReentrantLock();
        return VirtualStorm.run(NAME, threads, new VirtualStorm.Guard() {
            @Override
            public void holding(Runnable body) {
                lock.lock();
                try {
                    body.run();
                } finally {
                    lock.unlock();
                }
            }

            @Override
            public void awaitBlocked(Thread t) {
                Threads.awaitParkedOn(t, BLOCKER);
            }
        });
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "VirtualLockStorm [threads=" + DEFAULT_THREADS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 1));
        }));
    }
}
