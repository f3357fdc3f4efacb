package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;

/**
 * N short-lived unnamed virtual threads (JDK 21 and later; default 100,000), each blocking once on
 * a {@code synchronized} block and then ending, in batches of {@link #BATCH}. For each batch
 * {@code main} makes a new {@link BatchLock}, holds it while it starts the batch, waits until
 * every thread of the batch is BLOCKED entering it, lets go, and waits until the batch has ended;
 * nothing keeps the threads once their batch is over. So each thread blocked exactly once, on its
 * batch's lock, and its block began after {@code batchStart[b]} and before {@code observedAt[b]}
 * and ended after {@code releasedAt[b]} and before {@code batchEnd[b]}.
 *
 * <p>The summary lists the threads' Java ids in start order (thread {@code i} is in batch
 * {@code i / BATCH}), the four times per batch, and, when Convoy runs in the JVM, the largest
 * {@code MemoryInUseBytes} seen ({@code maxMemoryInUse}, with {@code memoryCap}; -1 without
 * Convoy). Written against the JDK 17 API: on an older JDK it fails with a message saying
 * virtual threads need JDK 21.
 */
public final class VirtualBlockOnce implements Scenario {

    public static final String NAME = "virtual-block-once";
    public static final int DEFAULT_THREADS = 100_000;
    public static final int BATCH = 1_000;

    /** The monitor of one batch. */
    public static final class BatchLock {
    }

    public record Result(int threads, long acquired, List<Long> batchStart, List<Long> observedAt,
                         List<Long> releasedAt, List<Long> batchEnd, List<Long> threadIds,
                         long maxMemoryInUse, long memoryCap, long memorySamples) implements ScenarioResult {

        @Override
        public boolean ok() {
            return acquired == threads && threadIds.size() == threads
                    && (memoryCap < 0 || maxMemoryInUse <= memoryCap);
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "threads", threads, "batch", BATCH, "acquired", acquired,
                    "maxMemoryInUse", maxMemoryInUse, "memoryCap", memoryCap, "memorySamples", memorySamples,
                    "batchStart", batchStart, "observedAt", observedAt, "releasedAt", releasedAt,
                    "batchEnd", batchEnd, "threadIds", threadIds);
        }
    }

    private final int threads;

    private VirtualBlockOnce(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1");
        }
        this.threads = threads;
    }

    public static VirtualBlockOnce create(int threads) {
        return new VirtualBlockOnce(threads);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() throws InterruptedException {
        long[] acquired = new long[1];
        Threads.Failures failures = new Threads.Failures();
        List<Long> ids = new ArrayList<>(threads);
        List<Long> starts = new ArrayList<>();
        List<Long> observed = new ArrayList<>();
        List<Long> released = new ArrayList<>();
        List<Long> ends = new ArrayList<>();
        try (ConvoyMemory memory = new ConvoyMemory()) {
            for (int done = 0; done < threads; done += BATCH) {
                BatchLock lock = new BatchLock();
                List<Thread> batch = new ArrayList<>(BATCH);
                for (int i = done; i < Math.min(threads, done + BATCH); i++) {
                    int me = i;
                    batch.add(VirtualThreadChurn.virtualThread(() -> {
                        try {
                            synchronized (lock) {
                                acquired[0]++;
                            }
                        } catch (Throwable e) {
                            failures.add("virtual-" + me, e);
                        }
                    }));
                }
                synchronized (lock) {
                    starts.add(System.nanoTime());
                    batch.forEach(Thread::start);
                    for (Thread t : batch) {
                        Threads.require(() -> t.getState() == Thread.State.BLOCKED,
                                "a virtual thread BLOCKED on its batch's lock");
                        ids.add(t.getId());
                    }
                    observed.add(System.nanoTime());
                    released.add(System.nanoTime());
                }
                Threads.awaitTermination(batch);
                ends.add(System.nanoTime());
                failures.check();
            }
            memory.close();
            synchronized (this) {
                return new Result(threads, acquired[0], starts, observed, released, ends, ids,
                        memory.max(), memory.cap(), memory.samples());
            }
        }
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "VirtualBlockOnce [threads=" + DEFAULT_THREADS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 1));
        }));
    }
}
