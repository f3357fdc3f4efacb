package dev.convoy.testapps;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * N threads each doing M increments under one shared {@link ReentrantLock} (nonfair), yielding
 * the processor while holding it every fourth time, so that the others find it held. Each
 * iteration first probes with {@code tryLock()}; only when that fails does it call {@code lock()}:
 * the failed probes are the contention the app counts itself, per thread ({@code contended}).
 * Every park of a worker on the lock happens inside such a {@code lock()} call.
 *
 * <p>Deterministic start: {@code run()} holds the lock while it starts the workers and releases
 * it only once every worker is parked in {@code lock()} (queued on the lock, parked on its
 * {@code ReentrantLock$NonfairSync}); so each worker's first park has {@code main} as the lock's
 * owner ({@code ownerAtStart}, its Java thread id).
 *
 * <p>Threads: {@code rls-0 .. rls-(N-1)}. Blocker class: {@code java.util.concurrent.locks.ReentrantLock$NonfairSync}.
 *
 * <p>{@code main} with {@value #PER_LINE} prints {@value #READY}, then runs one storm (fresh
 * threads) per line read from stdin, printing each storm's summary line, until end-of-file: for
 * tests that change the JVM between storms (attach an agent, switch contention analysis).
 */
public final class ReentrantLockStorm implements Scenario {

    public static final String NAME = "reentrant-lock-storm";
    public static final String THREAD_PREFIX = "rls-";
    public static final String BLOCKER = "java.util.concurrent.locks.ReentrantLock$NonfairSync";
    public static final int DEFAULT_THREADS = 4;
    public static final int DEFAULT_ITERATIONS = 2_000;
    public static final String PER_LINE = "--per-stdin-line";
    public static final String READY = "STORMS READY";

    /**
     * @param counter       final counter; equals {@code threads * iterations}
     * @param queuedAtStart workers seen parked on the lock before it was first released
     * @param ownerAtStart  Java thread id of the thread holding the lock at the start ({@code main})
     * @param contended     per worker, the failed {@code tryLock()} probes (each followed by {@code lock()})
     */
    public record Result(int threads, int iterations, long counter, int queuedAtStart, long ownerAtStart,
                         List<String> threadNames, List<Long> threadIds, List<Long> contended)
            implements ScenarioResult {

        @Override
        public boolean ok() {
            return counter == (long) threads * iterations && queuedAtStart == threads
                    && contended.stream().allMatch(c -> c >= 1);
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "threads", threads, "iterations", iterations, "counter", counter,
                    "queuedAtStart", queuedAtStart, "ownerAtStart", ownerAtStart, "threadNames", threadNames,
                    "threadIds", threadIds, "contended", contended);
        }
    }

    private final int threads;
    private final int iterations;

    private ReentrantLockStorm(int threads, int iterations) {
        if (threads < 1 || iterations < 1) {
            throw new IllegalArgumentException("threads and iterations must be >= 1");
        }
        this.threads = threads;
        this.iterations = iterations;
    }

    public static ReentrantLockStorm create(int threads, int iterations) {
        return new ReentrantLockStorm(threads, iterations);
    }

    public static ReentrantLockStorm create() {
        return create(DEFAULT_THREADS, DEFAULT_ITERATIONS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        ReentrantLock lock = new ReentrantLock();
        long[] counter = {0};
        AtomicLongArray contended = new AtomicLongArray(threads);
        Threads.Failures failures = new Threads.Failures();
        List<Thread> workers = new ArrayList<>(threads);
        int queued = 0;
        lock.lock();
        try {
            for (int i = 0; i < threads; i++) {
                int me = i;
                workers.add(Threads.start(THREAD_PREFIX + i, failures, () -> work(lock, counter, contended, me)));
            }
            for (Thread w : workers) {
                Threads.require(() -> lock.hasQueuedThread(w) && Threads.isParkedOn(w, BLOCKER),
                        w.getName() + " parked in lock()");
                queued++;
            }
        } finally {
            lock.unlock();
        }
        Threads.awaitTermination(workers);
        failures.check();
        long total;
        lock.lock();
        try {
            total = counter[0];
        } finally {
            lock.unlock();
        }
        List<Long> perThread = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            perThread.add(contended.get(i));
        }
        return new Result(threads, iterations, total, queued, Thread.currentThread().getId(),
                Threads.names(workers), workers.stream().map(Thread::getId).toList(), perThread);
    }

    private void work(ReentrantLock lock, long[] counter, AtomicLongArray contended, int me) {
        for (int i = 0; i < iterations; i++) {
            if (!lock.tryLock()) {
                contended.incrementAndGet(me);
                lock.lock();
            }
            try {
                counter[0]++;
                long x = counter[0] + i;
                for (int k = 0; k < 16; k++) { // a little work while holding the lock
                    x = x * 6364136223846793005L + 1442695040888963407L;
                }
                if (x == 42) {
                    counter[0] += 0;
                }
                if ((i & 3) == 0) {
                    Thread.yield(); // give the others a chance to find the lock held
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** One storm per line of {@code in} until end-of-file; returns the exit code (0 if every storm was OK). */
    static int runPerLine(BufferedReader in, PrintStream out, int threads, int iterations)
            throws IOException {
        out.println(READY);
        out.flush();
        int code = 0;
        while (in.readLine() != null) {
            code = Math.max(code, Cli.runAndPrint(out, create(threads, iterations)));
        }
        return code;
    }

    public static void main(String[] args) {
        if (List.of(args).contains(PER_LINE)) {
            String[] rest = List.of(args).stream().filter(a -> !a.equals(PER_LINE)).toArray(String[]::new);
            int code;
            try {
                Cli.maxArgs(rest, 2);
                int threads = Cli.intArg(rest, 0, "threads", DEFAULT_THREADS, 1);
                int iterations = Cli.intArg(rest, 1, "iterations", DEFAULT_ITERATIONS, 1);
                code = runPerLine(new BufferedReader(new InputStreamReader(System.in,
                        StandardCharsets.UTF_8)), System.out, threads, iterations);
            } catch (Cli.UsageException e) {
                System.err.println("error: " + e.getMessage());
                System.err.println("usage: ReentrantLockStorm " + PER_LINE + " [threads] [iterations]");
                code = Cli.USAGE;
            } catch (IOException e) {
                System.out.println(NAME + " FAIL error=" + Cli.oneLine(e));
                code = Cli.FAILED;
            }
            Cli.exit(code);
            return;
        }
        Cli.exit(Cli.execute(System.out, NAME, "ReentrantLockStorm [threads=" + DEFAULT_THREADS
                + "] [iterations=" + DEFAULT_ITERATIONS + "]", () -> {
                    Cli.maxArgs(args, 2);
                    return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 1),
                            Cli.intArg(args, 1, "iterations", DEFAULT_ITERATIONS, 1));
                }));
    }
}
