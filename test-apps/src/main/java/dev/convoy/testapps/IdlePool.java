package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fixed {@link java.util.concurrent.ThreadPoolExecutor} of K daemon workers, each started by
 * one task, then left idle: every worker parks in its queue's {@code take()} (the
 * {@code notEmpty} condition of a {@code LinkedBlockingQueue}) and stays parked until the JVM
 * exits (the pool is never shut down), so a snapshot on exit finds them parked.
 *
 * <p>Threads: {@code pool-worker-0 .. pool-worker-(K-1)}. Blocker class:
 * {@code java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject}.
 */
public final class IdlePool implements Scenario {

    public static final String NAME = "idle-pool";
    public static final String THREAD_PREFIX = "pool-worker-";
    public static final String BLOCKER = "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject";
    public static final int DEFAULT_WORKERS = 3;

    /** Kept reachable so that the idle workers live until the JVM exits. */
    private static final List<ExecutorService> POOLS = new ArrayList<>();

    /** @param idleWorkers workers seen parked in take() */
    public record Result(int workers, int tasksRun, int idleWorkers, List<String> threadNames)
            implements ScenarioResult {

        @Override
        public boolean ok() {
            return tasksRun == workers && idleWorkers == workers;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "workers", workers, "tasksRun", tasksRun,
                    "idleWorkers", idleWorkers, "threadNames", threadNames);
        }
    }

    private final int workers;

    private IdlePool(int workers) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be >= 1");
        }
        this.workers = workers;
    }

    public static IdlePool create(int workers) {
        return new IdlePool(workers);
    }

    public static IdlePool create() {
        return create(DEFAULT_WORKERS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        List<Thread> threads = new ArrayList<>();
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(workers, r -> {
            Thread t = new Thread(r, THREAD_PREFIX + n.getAndIncrement());
            t.setDaemon(true);
            synchronized (threads) {
                threads.add(t);
            }
            return t;
        });
        synchronized (POOLS) {
            POOLS.add(pool);
        }
        CountDownLatch ran = new CountDownLatch(workers);
        for (int i = 0; i < workers; i++) {
            pool.execute(ran::countDown);
        }
        Threads.require(() -> ran.getCount() == 0, "every task run");
        List<Thread> copy;
        synchronized (threads) {
            copy = List.copyOf(threads);
        }
        int idle = 0;
        for (Thread t : copy) {
            Threads.awaitParkedOn(t, BLOCKER);
            idle++;
        }
        return new Result(workers, (int) (workers - ran.getCount()), idle, Threads.names(copy));
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "IdlePool [workers=" + DEFAULT_WORKERS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "workers", DEFAULT_WORKERS, 1));
        }));
    }
}
