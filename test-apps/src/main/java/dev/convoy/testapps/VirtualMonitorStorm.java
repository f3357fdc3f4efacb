package dev.convoy.testapps;

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

    private final int threads;

    private VirtualMonitorStorm(int threads) {
        this.threads = VirtualStorm.checkThreads(threads);
    }

    public static VirtualMonitorStorm create(int threads) {
        return new VirtualMonitorStorm(threads);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public VirtualStorm.Result run() throws InterruptedException {
        StormLock lock = new StormLock();
        return VirtualStorm.run(NAME, threads, new VirtualStorm.Guard() {
            @Override
            public void holding(Runnable body) {
                synchronized (lock) {
                    body.run();
                }
            }

            @Override
            public void awaitBlocked(Thread t) {
                Threads.require(() -> t.getState() == Thread.State.BLOCKED, "a virtual thread BLOCKED on the storm lock");
            }
        });
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "VirtualMonitorStorm [threads=" + DEFAULT_THREADS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 1));
        }));
    }
}
