package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * N threads each call {@code Thread.sleep(sleepMs)} a known number of times. No monitors are
 * involved: this is the negative control (TIMED_WAITING threads that produce no monitor
 * contention or wait events, only thread start/end).
 *
 * <p>Threads: {@code sleeper-0 .. sleeper-(N-1)}. No scenario monitor.
 */
public final class Sleepers implements Scenario {

    public static final String NAME = "sleepers";
    public static final String THREAD_PREFIX = "sleeper-";
    public static final int DEFAULT_THREADS = 3;
    public static final int DEFAULT_SLEEP_MS = 20;
    public static final int DEFAULT_TIMES = 3;

    /** @param sleepsCompleted {@code Thread.sleep} calls that returned normally; {@code threads * times} */
    public record Result(int threads, int sleepMs, int times, int sleepsCompleted,
                         List<String> threadNames) implements ScenarioResult {

        @Override
        public boolean ok() {
            return sleepsCompleted == threads * times;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "threads", threads, "sleepMs", sleepMs,
                    "times", times, "sleepsCompleted", sleepsCompleted, "threadNames", threadNames);
        }
    }

    private final int threads;
    private final int sleepMs;
    private final int times;

    private Sleepers(int threads, int sleepMs, int times) {
        if (threads < 1 || sleepMs < 0 || times < 0) {
            throw new IllegalArgumentException("threads must be >= 1, sleepMs and times >= 0");
        }
        this.threads = threads;
        this.sleepMs = sleepMs;
        this.times = times;
    }

    public static Sleepers create(int threads, int sleepMs, int times) {
        return new Sleepers(threads, sleepMs, times);
    }

    public static Sleepers create() {
        return create(DEFAULT_THREADS, DEFAULT_SLEEP_MS, DEFAULT_TIMES);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        AtomicInteger completed = new AtomicInteger();
        Threads.Failures failures = new Threads.Failures();
        List<Thread> sleepers = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            sleepers.add(Threads.start(THREAD_PREFIX + i, failures, () -> {
                for (int n = 0; n < times; n++) {
                    Thread.sleep(sleepMs);
                    completed.incrementAndGet();
                }
            }));
        }
        Threads.awaitTermination(sleepers);
        failures.check();
        return new Result(threads, sleepMs, times, completed.get(), Threads.names(sleepers));
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "Sleepers [threads=" + DEFAULT_THREADS + "] [sleepMs="
                + DEFAULT_SLEEP_MS + "] [times=" + DEFAULT_TIMES + "]", () -> {
                    Cli.maxArgs(args, 3);
                    return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 1),
                            Cli.intArg(args, 1, "sleepMs", DEFAULT_SLEEP_MS, 0),
                            Cli.intArg(args, 2, "times", DEFAULT_TIMES, 0));
                }));
    }
}
