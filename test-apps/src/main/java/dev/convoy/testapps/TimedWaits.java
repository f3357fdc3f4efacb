package dev.convoy.testapps;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Two timed waits, run concurrently, one per outcome:
 * <ul>
 *   <li>{@code timed-wait-timeout} calls {@code TimeoutLock.wait(timeoutMs)} and nobody notifies,
 *       so the wait times out ({@code timed_out=true});</li>
 *   <li>{@code timed-wait-notified} calls {@code NotifyLock.wait(}{@value #NOTIFIED_WAIT_MS}{@code )};
 *       {@code run()} waits until it is TIMED_WAITING and then calls {@code notify()}, so the wait
 *       ends by notification ({@code timed_out=false}).</li>
 * </ul>
 * Each thread loops on its condition, so a spurious wake-up adds a wait call; the result reports
 * the exact number of wait calls per thread (normally 1 each).
 *
 * <p>Threads: {@code timed-wait-timeout}, {@code timed-wait-notified}. Monitor classes:
 * {@code dev.convoy.testapps.TimedWaits$TimeoutLock}, {@code dev.convoy.testapps.TimedWaits$NotifyLock}.
 */
public final class TimedWaits implements Scenario {

    public static final String NAME = "timed-waits";
    public static final String TIMEOUT_THREAD = "timed-wait-timeout";
    public static final String NOTIFIED_THREAD = "timed-wait-notified";
    public static final int DEFAULT_TIMEOUT_MS = 50;
    /** Timeout passed to the wait that gets notified; long enough never to elapse. */
    public static final long NOTIFIED_WAIT_MS = 30_000;

    /** Monitor of the wait that times out; fields guarded by it. */
    public static final class TimeoutLock {
        boolean signalled; // never set
        int waitCalls;
        boolean timedOut;
    }

    /** Monitor of the wait that is notified; fields guarded by it. */
    public static final class NotifyLock {
        boolean signalled;
        int waitCalls;
        boolean notified;
    }

    public record Result(int timeoutMs, String timeoutThread, boolean timedOut, int timeoutWaitCalls,
                         String notifiedThread, boolean notified, int notifiedWaitCalls,
                         String timeoutLockClassName, String notifyLockClassName) implements ScenarioResult {

        public List<String> threadNames() {
            return List.of(timeoutThread, notifiedThread);
        }

        @Override
        public boolean ok() {
            return timedOut && timeoutWaitCalls >= 1 && notified && notifiedWaitCalls >= 1;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "timeoutMs", timeoutMs,
                    "timeoutThread", timeoutThread, "timedOut", timedOut, "timeoutWaitCalls", timeoutWaitCalls,
                    "notifiedThread", notifiedThread, "notified", notified,
                    "notifiedWaitCalls", notifiedWaitCalls,
                    "timeoutLock", timeoutLockClassName, "notifyLock", notifyLockClassName);
        }
    }

    private final int timeoutMs;

    private TimedWaits(int timeoutMs) {
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("timeoutMs must be >= 1");
        }
        this.timeoutMs = timeoutMs;
    }

    public static TimedWaits create(int timeoutMs) {
        return new TimedWaits(timeoutMs);
    }

    public static TimedWaits create() {
        return create(DEFAULT_TIMEOUT_MS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        TimeoutLock timeoutLock = new TimeoutLock();
        NotifyLock notifyLock = new NotifyLock();
        Threads.Failures failures = new Threads.Failures();
        Thread timing = Threads.start(TIMEOUT_THREAD, failures, () -> {
            synchronized (timeoutLock) {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
                while (!timeoutLock.signalled) {
                    long remainingNanos = deadline - System.nanoTime();
                    if (remainingNanos <= 0) {
                        timeoutLock.timedOut = true;
                        break;
                    }
                    // The first wait is for exactly timeoutMs (what a recording must show, however
                    // long this thread was held up since the deadline was taken); a wait after a
                    // spurious wake-up for what is left.
                    long waitMs = timeoutLock.waitCalls == 0 ? timeoutMs
                            : Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNanos + 999_999));
                    timeoutLock.waitCalls++;
                    timeoutLock.wait(waitMs);
                }
            }
        });
        Thread notified = Threads.start(NOTIFIED_THREAD, failures, () -> {
            synchronized (notifyLock) {
                while (!notifyLock.signalled) {
                    notifyLock.waitCalls++;
                    notifyLock.wait(NOTIFIED_WAIT_MS);
                }
                notifyLock.notified = true;
            }
        });
        Threads.awaitWaitingOn(notified, notifyLock);
        synchronized (notifyLock) {
            notifyLock.signalled = true;
            notifyLock.notify();
        }
        Threads.awaitTermination(List.of(timing, notified));
        failures.check();
        synchronized (timeoutLock) {
            synchronized (notifyLock) {
                return new Result(timeoutMs, timing.getName(), timeoutLock.timedOut, timeoutLock.waitCalls,
                        notified.getName(), notifyLock.notified, notifyLock.waitCalls,
                        TimeoutLock.class.getName(), NotifyLock.class.getName());
            }
        }
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "TimedWaits [timeoutMs=" + DEFAULT_TIMEOUT_MS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "timeoutMs", DEFAULT_TIMEOUT_MS, 1));
        }));
    }
}
