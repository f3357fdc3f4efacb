package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * N short-lived threads, one after another: each starts, does one timed wait of 1 ms on its
 * own {@link ChurnLock} (a MonitorWait/MonitorWaited pair) and ends before the next starts.
 * Used to exercise the recorder's per-thread buffer turnover and memory cap: with a small
 * cap the rings of the earliest threads must be freed, the latest ones kept.
 *
 * <p>Threads: {@code churn-0 .. churn-(N-1)}, strictly in that order. Monitor class:
 * {@code dev.convoy.testapps.ThreadChurn$ChurnLock}.
 */
public final class ThreadChurn implements Scenario {

    public static final String NAME = "thread-churn";
    public static final String THREAD_PREFIX = "churn-";
    public static final int DEFAULT_THREADS = 50;

    /** Monitor each churn thread waits on. */
    public static final class ChurnLock {
    }

    /** @param threadNames the threads in start (and end) order */
    public record Result(int threads, int waitsDone, List<String> threadNames) implements ScenarioResult {

        @Override
        public boolean ok() {
            return waitsDone == threads && threadNames.size() == threads;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "threads", threads, "waitsDone", waitsDone,
                    "lock", ChurnLock.class.getName());
        }
    }

    private final int threads;

    private ThreadChurn(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1");
        }
        this.threads = threads;
    }

    public static ThreadChurn create(int threads) {
        return new ThreadChurn(threads);
    }

    public static ThreadChurn create() {
        return create(DEFAULT_THREADS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        Threads.Failures failures = new Threads.Failures();
        AtomicInteger waits = new AtomicInteger();
        List<Thread> all = oneAfterAnother(THREAD_PREFIX, threads, failures, waits);
        failures.check();
        return new Result(threads, waits.get(), Threads.names(all));
    }

    /**
     * Starts {@code count} threads {@code prefix0 ..}, each after the last has ended: each does one
     * timed wait of 1 ms on its own {@link ChurnLock} and then counts it in {@code waits}.
     * Returns them in start order.
     */
    static List<Thread> oneAfterAnother(String prefix, int count, Threads.Failures failures, AtomicInteger waits) {
        List<Thread> all = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ChurnLock lock = new ChurnLock();
            Thread t = Threads.start(prefix + i, failures, () -> {
                synchronized (lock) {
                    lock.wait(1);
                }
                waits.incrementAndGet();
            });
            Threads.awaitTermination(List.of(t));
            all.add(t);
        }
        return all;
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "ThreadChurn [threads=" + DEFAULT_THREADS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 1));
        }));
    }
}
