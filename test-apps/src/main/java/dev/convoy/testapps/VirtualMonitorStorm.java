package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;

/**
 * N unnamed virtual threads (JDK 21 and later; default 10,000) contend on one {@code synchronized}
 * block. {@code main} holds the monitor ({@link StormLock}) while it starts them, waits until
 * every one is BLOCKED entering it, and then lets go: the monitor passes from thread to thread.
 * Each thread takes {@code System.nanoTime()} just before the {@code synchronized} and again as
 * the first thing inside, so each one blocked exactly once, and its block lies within
 * {@code [enterAt, acquiredAt]}, began before {@code observedAt} (all were BLOCKED then) and ended
 * after {@code releasedAt} (taken by {@code main} just before it let go). On JDK 24 and later
 * (JEP 491) a blocked virtual thread lets its carrier go, and may be mounted on another one
 * when it gets the monitor.
 *
 * <p>The summary lists, in start order, the threads' Java ids ({@code threadIds}),
 * {@code enterAt} and {@code acquiredAt}, and, when Convoy runs in the JVM, the largest
 * {@code MemoryInUseBytes} seen while the threads ran ({@code maxMemoryInUse}, with
 * {@code memoryCap}; -1 without Convoy). Written against the JDK 17 API: on an older JDK it fails
 * with a message saying virtual threads need JDK 21.
 */
public final class VirtualMonitorStorm implements Scenario {

    public static final String NAME = "virtual-monitor-storm";
    public static final int DEFAULT_THREADS = 10_000;

    /** The contended monitor. */
    public static final class StormLock {
    }

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

    private VirtualMonitorStorm(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1");
        }
        this.threads = threads;
    }

    public static VirtualMonitorStorm create(int threads) {
        return new VirtualMonitorStorm(threads);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() throws InterruptedException {
        StormLock lock = new StormLock();
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
                    synchronized (lock) {
                        acquiredAt[me] = System.nanoTime();
                        acquired[0]++;
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
            synchronized (lock) {
                startAt = System.nanoTime();
                vts.forEach(Thread::start);
                for (Thread t : vts) {
                    Threads.require(() -> t.getState() == Thread.State.BLOCKED, "a virtual thread BLOCKED on the storm lock");
                }
                observedAt = System.nanoTime();
                releasedAt = System.nanoTime();
            }
            Threads.awaitTermination(vts);
            failures.check();
            memory.close();
            synchronized (lock) {
                return new Result(threads, acquired[0], startAt, observedAt, releasedAt,
                        vts.stream().map(Thread::getId).toList(), longs(enterAt), longs(acquiredAt),
                        memory.max(), memory.cap(), memory.samples());
            }
        }
    }

    static List<Long> longs(long[] a) {
        List<Long> l = new ArrayList<>(a.length);
        for (long v : a) {
            l.add(v);
        }
        return l;
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "VirtualMonitorStorm [threads=" + DEFAULT_THREADS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 1));
        }));
    }
}
