package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;

/**
 * The storm that {@link VirtualMonitorStorm} and {@link VirtualLockStorm} run, each over its kind
 * of lock: N virtual threads started while {@code main} holds the lock, {@code main} waiting until
 * every one is blocked on it, then letting go. Each thread takes {@code System.nanoTime()} just
 * before it asks for the lock ({@code enterAt}) and as the first thing once it has it
 * ({@code acquiredAt}); {@code observedAt} is taken when all were seen blocked, {@code releasedAt}
 * just before {@code main} lets go. While they run, Convoy's {@code MemoryInUseBytes} is sampled
 * ({@link ConvoyMemory}).
 */
public final class VirtualStorm {

    /** A kind of lock: runs a body holding it, and waits (bounded) until a thread is blocked on it. */
    interface Guard {
        void holding(Runnable body);

        void awaitBlocked(Thread t);
    }

    public record Result(String name, int threads, long acquired, long startAt, long observedAt, long releasedAt,
                         List<Long> threadIds, List<Long> enterAt, List<Long> acquiredAt,
                         long maxMemoryInUse, long memoryCap, long memorySamples) implements ScenarioResult {

        @Override
        public boolean ok() {
            return acquired == threads && threadIds.size() == threads
                    && (memoryCap < 0 || maxMemoryInUse <= memoryCap);
        }

        @Override
        public String summary() {
            return ScenarioResult.line(name, ok(), "threads", threads, "acquired", acquired, "startAt", startAt,
                    "observedAt", observedAt, "releasedAt", releasedAt, "maxMemoryInUse", maxMemoryInUse,
                    "memoryCap", memoryCap, "memorySamples", memorySamples, "threadIds", threadIds,
                    "enterAt", enterAt, "acquiredAt", acquiredAt);
        }
    }

    private VirtualStorm() {
    }

    static int checkThreads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1");
        }
        return threads;
    }

    static Result run(String name, int threads, Guard guard) throws InterruptedException {
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
                    guard.holding(() -> {
                        acquiredAt[me] = System.nanoTime();
                        acquired[0]++;
                    });
                } catch (Throwable e) {
                    failures.add("virtual-" + me, e);
                }
            }));
        }
        long[] times = new long[3]; // startAt, observedAt, releasedAt
        try (ConvoyMemory memory = new ConvoyMemory()) {
            guard.holding(() -> {
                times[0] = System.nanoTime();
                vts.forEach(Thread::start);
                vts.forEach(guard::awaitBlocked);
                times[1] = System.nanoTime();
                times[2] = System.nanoTime();
            });
            Threads.awaitTermination(vts);
            failures.check();
            memory.close();
            Result[] result = new Result[1];
            // taken holding the lock: every thread's writes are seen
            guard.holding(() -> result[0] = new Result(name, threads, acquired[0], times[0], times[1], times[2],
                    vts.stream().map(Thread::getId).toList(), longs(enterAt), longs(acquiredAt),
                    memory.max(), memory.cap(), memory.samples()));
            return result[0];
        }
    }

    static List<Long> longs(long[] a) {
        List<Long> l = new ArrayList<>(a.length);
        for (long v : a) {
            l.add(v);
        }
        return l;
    }
}
