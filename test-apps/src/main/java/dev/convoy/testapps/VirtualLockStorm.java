package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;
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

    public record Result(int threads, long acquired, long startAt, long observedAt, long releasedAt,
                         List<Long> threadIds, List<Long> enterAt, List<Long> acquiredAt,
                         long maxMemoryInUse, long memoryCap, long memorySamples) implements ScenarioResult {

        @Override
        public boolean ok() {
            return acquired == threads && threadIds.size() == threads
                    && (memoryCap < 0 || maxMemoryInUse <= memoryCap);
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "threads", threads, "acquired", acquired, "startAt", startAt,
                    "observedAt", observedAt, "releasedAt", releasedAt, "maxMemoryInUse", maxMemoryInUse,
                    "memoryCap", memoryCap, "memorySamples", memorySamples, "threadIds", threadIds,
                    "enterAt", enterAt, "acquiredAt", acquiredAt);
        }
    }

    private final int threads;

    private VirtualLockStorm(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1");
        }
        this.threads = threads;
    }

    public static VirtualLockStorm create(int threads) {
        return new VirtualLockStorm(threads);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() throws InterruptedException {
        ReentrantLock lock = new ReentrantLock();
        long[] enterAt = new long[threads];
        long[] acquiredAt = new long[threads];
        long[] acquired = new long[1];
        Threads.Failures failures = new Threads.Failures();
        List<Thread> vts = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            int me = i;
            vts.add(VirtualThreadChurn.virtualThread(() -> {
                try {
                    enterAt[me] = System.nanoTime();
                    lock.lock();
                    try {
                        acquiredAt[me] = System.nanoTime();
                        acquired[0]++;
                    } finally {
                        lock.unlock();
                    }
                } catch (Throwable e) {
                    failures.add("virtual-" + me, e);
                }
            }));
        }
        long startAt;
        long observedAt;
        long releasedAt;
        try (ConvoyMemory memory = new ConvoyMemory()) {
            lock.lock();
            try {
                startAt = System.nanoTime();
                vts.forEach(Thread::start);
                for (Thread t : vts) {
                    Threads.awaitParkedOn(t, BLOCKER);
                }
                observedAt = System.nanoTime();
                releasedAt = System.nanoTime();
            } finally {
                lock.unlock();
            }
            Threads.awaitTermination(vts);
            failures.check();
            memory.close();
            lock.lock();
            try {
                return new Result(threads, acquired[0], startAt, observedAt, releasedAt,
                        vts.stream().map(Thread::getId).toList(), VirtualMonitorStorm.longs(enterAt), VirtualMonitorStorm.longs(acquiredAt),
                        memory.max(), memory.cap(), memory.samples());
            } finally {
                lock.unlock();
            }
        }
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "VirtualLockStorm [threads=" + DEFAULT_THREADS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 1));
        }));
    }
}
