package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;

/**
 * N threads each doing M {@code synchronized} increments on one shared {@link StormLock}, with a
 * little work inside the critical section so the lock is really fought over.
 *
 * <p>Deterministic contention: {@code run()} holds the lock while it starts the workers and only
 * releases it once <em>every</em> worker is BLOCKED entering it. So a recording holds at least
 * {@code threads} MonitorContendedEnter/Entered pairs on {@code LockStorm$StormLock}, one per
 * worker, and usually many more.
 *
 * <p>Threads: {@code storm-0 .. storm-(N-1)}. Monitor class: {@code dev.convoy.testapps.LockStorm$StormLock}.
 */
public final class LockStorm implements Scenario {

    public static final String NAME = "lock-storm";
    public static final String THREAD_PREFIX = "storm-";
    public static final int DEFAULT_THREADS = 4;
    public static final int DEFAULT_ITERATIONS = 20_000;

    /** The contended monitor; its fields are only touched while holding it. */
    public static final class StormLock {
        long counter;
        long checksum;
    }

    /**
     * @param counter        final value of the shared counter; equals {@code threads * iterations}
     * @param blockedAtStart workers observed BLOCKED on the lock before it was first released
     */
    public record Result(int threads, int iterations, long counter, int blockedAtStart,
                         List<String> threadNames, String lockClassName) implements ScenarioResult {

        public long expectedCounter() {
            return (long) threads * iterations;
        }

        @Override
        public boolean ok() {
            return counter == expectedCounter() && blockedAtStart == threads;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "threads", threads, "iterations", iterations,
                    "counter", counter, "blockedAtStart", blockedAtStart,
                    "threadNames", threadNames, "lock", lockClassName);
        }
    }

    private final int threads;
    private final int iterations;

    private LockStorm(int threads, int iterations) {
        if (threads < 1 || iterations < 1) {
            throw new IllegalArgumentException("threads and iterations must be >= 1");
        }
        this.threads = threads;
        this.iterations = iterations;
    }

    public static LockStorm create(int threads, int iterations) {
        return new LockStorm(threads, iterations);
    }

    public static LockStorm create() {
        return create(DEFAULT_THREADS, DEFAULT_ITERATIONS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        StormLock lock = new StormLock();
        Threads.Failures failures = new Threads.Failures();
        List<Thread> workers = new ArrayList<>(threads);
        int blockedAtStart = 0;
        synchronized (lock) {
            for (int i = 0; i < threads; i++) {
                workers.add(Threads.start(THREAD_PREFIX + i, failures, () -> work(lock)));
            }
            for (Thread w : workers) {
                Threads.awaitBlockedOn(w, lock);
                blockedAtStart++;
            }
        }
        Threads.awaitTermination(workers);
        failures.check();
        long counter;
        synchronized (lock) {
            counter = lock.counter;
        }
        return new Result(threads, iterations, counter, blockedAtStart,
                Threads.names(workers), StormLock.class.getName());
    }

    private void work(StormLock lock) {
        for (int i = 0; i < iterations; i++) {
            synchronized (lock) {
                lock.counter++;
                long x = lock.checksum + i;
                for (int k = 0; k < 16; k++) { // a little work while holding the lock
                    x = x * 6364136223846793005L + 1442695040888963407L;
                }
                lock.checksum = x;
            }
        }
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "LockStorm [threads=" + DEFAULT_THREADS
                + "] [iterations=" + DEFAULT_ITERATIONS + "]", () -> {
                    Cli.maxArgs(args, 2);
                    return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 1),
                            Cli.intArg(args, 1, "iterations", DEFAULT_ITERATIONS, 1));
                }));
    }
}
