package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * W threads wait in {@link CountDownLatch#await()} until {@code main}, once it has seen every one
 * parked on the latch, counts it down. A latch's parks wait, they do not acquire a lock; the
 * count-down unparks the waiters (the first by {@code main}, the others by each other as the
 * release propagates).
 *
 * <p>Threads: {@code latch-0 .. latch-(W-1)}. Blocker class: {@code java.util.concurrent.CountDownLatch$Sync}.
 */
public final class LatchWait implements Scenario {

    public static final String NAME = "latch-wait";
    public static final String THREAD_PREFIX = "latch-";
    public static final String BLOCKER = "java.util.concurrent.CountDownLatch$Sync";
    public static final int DEFAULT_WAITERS = 3;

    /** @param parkedBeforeCountDown waiters seen parked on the latch before the count-down */
    public record Result(int waiters, int parkedBeforeCountDown, int released, List<Long> threadIds)
            implements ScenarioResult {

        @Override
        public boolean ok() {
            return parkedBeforeCountDown == waiters && released == waiters;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "waiters", waiters, "parkedBeforeCountDown", parkedBeforeCountDown,
                    "released", released, "threadIds", threadIds);
        }
    }

    private final int waiters;

    private LatchWait(int waiters) {
        if (waiters < 1) {
            throw new IllegalArgumentException("waiters must be >= 1");
        }
        this.waiters = waiters;
    }

    public static LatchWait create(int waiters) {
        return new LatchWait(waiters);
    }

    public static LatchWait create() {
        return create(DEFAULT_WAITERS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        CountDownLatch latch = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger released = new java.util.concurrent.atomic.AtomicInteger();
        Threads.Failures failures = new Threads.Failures();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            ts.add(Threads.start(THREAD_PREFIX + i, failures, () -> {
                if (latch.await(Threads.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    released.incrementAndGet();
                }
            }));
        }
        int parked = 0;
        for (Thread t : ts) {
            Threads.awaitParkedOn(t, BLOCKER);
            parked++;
        }
        latch.countDown();
        Threads.awaitTermination(ts);
        failures.check();
        return new Result(waiters, parked, released.get(), ts.stream().map(Thread::getId).toList());
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "LatchWait [waiters=" + DEFAULT_WAITERS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "waiters", DEFAULT_WAITERS, 1));
        }));
    }
}
