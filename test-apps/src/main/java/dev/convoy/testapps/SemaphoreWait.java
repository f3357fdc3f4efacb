package dev.convoy.testapps;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Semaphore} of one permit (nonfair), held by {@code sem-holder} throughout three
 * deterministic waits: {@code sem-waiter} parks in {@code acquire()} until the holder releases;
 * {@code sem-timed} parks in {@code tryAcquire(timeoutMs)}, which times out (returns false);
 * {@code sem-interrupted} parks in {@code acquire()} and is interrupted (InterruptedException).
 * The holder releases once the waiter is seen parked and the other two have finished.
 *
 * <p>Blocker class: {@code java.util.concurrent.Semaphore$NonfairSync} (never an exclusive owner).
 */
public final class SemaphoreWait implements Scenario {

    public static final String NAME = "semaphore-wait";
    public static final String HOLDER = "sem-holder";
    public static final String WAITER = "sem-waiter";
    public static final String TIMED = "sem-timed";
    public static final String INTERRUPTED = "sem-interrupted";
    public static final String BLOCKER = "java.util.concurrent.Semaphore$NonfairSync";
    public static final int DEFAULT_TIMEOUT_MS = 50;

    /**
     * @param waiterAcquired   the waiter got the permit after the holder released it
     * @param timedOut         {@code tryAcquire} returned false
     * @param interrupted      {@code acquire()} threw InterruptedException after the thread was seen parked
     */
    public record Result(int timeoutMs, boolean waiterAcquired, boolean timedOut, boolean interrupted,
                         long holderId) implements ScenarioResult {

        @Override
        public boolean ok() {
            return waiterAcquired && timedOut && interrupted;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "timeoutMs", timeoutMs, "waiterAcquired", waiterAcquired,
                    "timedOut", timedOut, "interrupted", interrupted, "holderId", holderId);
        }
    }

    private final int timeoutMs;

    private SemaphoreWait(int timeoutMs) {
        this.timeoutMs = timeoutMs;
    }

    public static SemaphoreWait create(int timeoutMs) {
        return new SemaphoreWait(timeoutMs);
    }

    public static SemaphoreWait create() {
        return create(DEFAULT_TIMEOUT_MS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        Semaphore sem = new Semaphore(1);
        CountDownLatch release = new CountDownLatch(1);
        boolean[] acquired = {false};
        boolean[] timedOut = {false};
        boolean[] interrupted = {false};
        Threads.Failures failures = new Threads.Failures();
        Thread holder = Threads.start(HOLDER, failures, () -> {
            sem.acquire();
            try {
                if (!release.await(Threads.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("never released");
                }
            } finally {
                sem.release();
            }
        });
        Threads.require(() -> sem.availablePermits() == 0, "the holder holding the permit");
        Thread waiter = Threads.start(WAITER, failures, () -> {
            sem.acquire();
            acquired[0] = true;
            sem.release();
        });
        Threads.awaitParkedOn(waiter, BLOCKER);
        Thread timed = Threads.start(TIMED, failures, () -> timedOut[0] = !sem.tryAcquire(timeoutMs,
                TimeUnit.MILLISECONDS));
        Threads.awaitTermination(List.of(timed));
        Thread interruptee = Threads.start(INTERRUPTED, failures, () -> {
            try {
                sem.acquire();
                sem.release();
            } catch (InterruptedException e) {
                interrupted[0] = true;
            }
        });
        Threads.awaitParkedOn(interruptee, BLOCKER);
        interruptee.interrupt();
        Threads.awaitTermination(List.of(interruptee));
        release.countDown();
        Threads.awaitTermination(List.of(holder, waiter));
        failures.check();
        return new Result(timeoutMs, acquired[0], timedOut[0], interrupted[0], holder.getId());
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "SemaphoreWait [timeoutMs=" + DEFAULT_TIMEOUT_MS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "timeoutMs", DEFAULT_TIMEOUT_MS, 1));
        }));
    }
}
