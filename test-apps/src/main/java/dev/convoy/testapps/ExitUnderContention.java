package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Calls {@code System.exit(0)} while N daemon threads are still fighting over one monitor
 * and waiting on it: monitor events keep arriving while the JVM shuts down, so a recorder's
 * callbacks race with its dump on exit and with VM death.
 *
 * <p>{@code run()} starts the threads and returns once every thread has acquired the monitor
 * at least once; {@code main} then prints the summary and calls {@code System.exit(0)} without
 * stopping them.
 *
 * <p>Threads: {@code exit-race-0 .. exit-race-(N-1)}. Monitor class:
 * {@code dev.convoy.testapps.ExitUnderContention$RaceLock}.
 */
public final class ExitUnderContention implements Scenario {

    public static final String NAME = "exit-under-contention";
    public static final String THREAD_PREFIX = "exit-race-";
    public static final int DEFAULT_THREADS = 4;

    /** The monitor the threads fight over. */
    public static final class RaceLock {
        long counter;
    }

    public record Result(int threads, long acquisitionsBeforeExit, List<String> threadNames)
            implements ScenarioResult {

        @Override
        public boolean ok() {
            return acquisitionsBeforeExit >= threads;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "threads", threads,
                    "acquisitionsBeforeExit", acquisitionsBeforeExit, "lock", RaceLock.class.getName());
        }
    }

    private final int threads;
    private final List<Thread> racers = new ArrayList<>();
    private volatile boolean stopped;

    private ExitUnderContention(int threads) {
        if (threads < 2) {
            throw new IllegalArgumentException("threads must be >= 2");
        }
        this.threads = threads;
    }

    public static ExitUnderContention create(int threads) {
        return new ExitUnderContention(threads);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Starts the threads; they keep running (daemons) after this returns. */
    @Override
    public Result run() {
        RaceLock lock = new RaceLock();
        AtomicLong started = new AtomicLong();
        Threads.Failures failures = new Threads.Failures();
        for (int i = 0; i < threads; i++) {
            racers.add(Threads.start(THREAD_PREFIX + i, failures, () -> {
                started.incrementAndGet();
                while (!stopped) {
                    synchronized (lock) {
                        lock.counter++;
                        if (lock.counter % 64 == 0) {
                            lock.notifyAll();
                            lock.wait(1);
                        }
                    }
                }
            }));
        }
        Threads.require(() -> started.get() == threads, "all racers running");
        Threads.require(() -> {
            synchronized (lock) {
                return lock.counter >= 4L * threads;
            }
        }, "racers acquired the monitor");
        failures.check();
        synchronized (lock) {
            return new Result(threads, lock.counter, Threads.names(racers));
        }
    }

    /** Stops the racers and waits for them to end (for in-process use; main never calls it). */
    public void stop() {
        stopped = true;
        Threads.awaitTermination(racers);
    }

    public static void main(String[] args) {
        int code = Cli.execute(System.out, NAME, "ExitUnderContention [threads=" + DEFAULT_THREADS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 2));
        });
        System.exit(code);
    }
}
