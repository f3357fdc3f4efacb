package dev.convoy.testapps;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * N unnamed virtual threads (JDK 21 and later), in batches: each does one timed wait of 1 ms
 * on its own {@link VirtualLock}; after each batch has ended, {@code System.gc()} lets their
 * Thread objects go. Then one platform thread, {@link #AFTER_THREAD}, waits once on an
 * {@link AfterLock}. Used to check that the recorder frees the rings of virtual threads that
 * ended (it gets no end event for them) when the memory cap needs room, so that threads
 * started later are still recorded.
 *
 * <p>Written against the JDK 17 API (virtual threads through reflection): on an older JDK it
 * fails with a message saying so.
 */
public final class VirtualThreadChurn implements Scenario {

    public static final String NAME = "virtual-thread-churn";
    public static final String AFTER_THREAD = "after-virtual";
    public static final int DEFAULT_THREADS = 400;
    public static final int BATCH = 50;

    /** Monitor each virtual thread waits on. */
    public static final class VirtualLock {
    }

    /** Monitor the platform thread started after them waits on. */
    public static final class AfterLock {
    }

    public record Result(int threads, int waitsDone, boolean afterWaited) implements ScenarioResult {

        @Override
        public boolean ok() {
            return waitsDone == threads && afterWaited;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "threads", threads, "waitsDone", waitsDone,
                    "afterWaited", afterWaited);
        }
    }

    private final int threads;

    private VirtualThreadChurn(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1");
        }
        this.threads = threads;
    }

    public static VirtualThreadChurn create(int threads) {
        return new VirtualThreadChurn(threads);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** A new unstarted virtual thread, or an exception saying the JDK has none. */
    public static Thread virtualThread(Runnable task) {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Method unstarted = Class.forName("java.lang.Thread$Builder").getMethod("unstarted", Runnable.class);
            return (Thread) unstarted.invoke(builder, task);
        } catch (ReflectiveOperationException e) {
            throw new UnsupportedOperationException("virtual threads need JDK 21 or later (this is "
                    + Runtime.version() + ")", e);
        }
    }

    @Override
    public Result run() {
        Threads.Failures failures = new Threads.Failures();
        AtomicInteger waits = new AtomicInteger();
        for (int done = 0; done < threads; done += BATCH) {
            List<Thread> batch = new ArrayList<>();
            for (int i = done; i < Math.min(threads, done + BATCH); i++) {
                VirtualLock lock = new VirtualLock();
                Thread t = virtualThread(() -> {
                    try {
                        synchronized (lock) {
                            lock.wait(1);
                        }
                        waits.incrementAndGet();
                    } catch (Throwable e) {
                        failures.add("virtual", e);
                    }
                });
                t.start();
                batch.add(t);
            }
            Threads.awaitTermination(batch);
            batch.clear();
            System.gc();
        }
        AfterLock after = new AfterLock();
        boolean[] afterWaited = new boolean[1];
        Thread a = Threads.start(AFTER_THREAD, failures, () -> {
            synchronized (after) {
                after.wait(1);
                afterWaited[0] = true;
            }
        });
        Threads.awaitTermination(List.of(a));
        failures.check();
        synchronized (after) {
            return new Result(threads, waits.get(), afterWaited[0]);
        }
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "VirtualThreadChurn [threads=" + DEFAULT_THREADS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 1));
        }));
    }
}
