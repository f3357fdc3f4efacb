package dev.convoy.testapps;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A steady beat of {@code notify()} calls, for switching contention analysis on and off while
 * it runs: thread {@code notify-pulse} calls {@link #pulse} (one {@code PulseLock.notify()}
 * under its monitor) every {@code intervalMs} until stopped. Each pulse is a fresh call of
 * {@code pulse}, so a class retransformed while the loop runs is used from the next pulse on
 * (a running method frame would keep its old code). Nobody waits: the notifies wake no one.
 *
 * <p>{@code run()} pulses {@code pulses} times and returns. {@code main} with
 * {@code --until-stdin-eof} prints {@value #MARKER} after the first pulse and pulses until
 * stdin reaches end-of-file (at most {@value #STDIN_CAP_MS} ms), then prints the summary.
 * Not in the {@code all}/{@code demo} sets of {@link Scenarios}: it is a tool for tests that
 * talk to a running JVM.
 *
 * <p>Thread: {@code notify-pulse}. Monitor class: {@code dev.convoy.testapps.NotifyPulse$PulseLock}.
 */
public final class NotifyPulse implements Scenario {

    public static final String NAME = "notify-pulse";
    public static final String THREAD_NAME = "notify-pulse";
    public static final String MARKER = "PULSING";
    public static final int DEFAULT_PULSES = 100;
    public static final int DEFAULT_INTERVAL_MS = 1;
    static final long STDIN_CAP_MS = 60_000;

    /** The notified monitor; its count is guarded by it. */
    public static final class PulseLock {
        long notifies;
    }

    /** @param notifies {@code notify()} calls made; {@code == pulses} when run with a count */
    public record Result(long pulses, long notifies, String threadName, String lockClassName)
            implements ScenarioResult {

        @Override
        public boolean ok() {
            return notifies == pulses && pulses > 0;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "pulses", pulses, "notifies", notifies,
                    "thread", threadName, "lock", lockClassName);
        }
    }

    private final long pulses;
    private final int intervalMs;
    private final AtomicBoolean stop = new AtomicBoolean();

    private NotifyPulse(long pulses, int intervalMs) {
        if (pulses < 1 || intervalMs < 0) {
            throw new IllegalArgumentException("pulses must be >= 1, intervalMs >= 0");
        }
        this.pulses = pulses;
        this.intervalMs = intervalMs;
    }

    public static NotifyPulse create(int pulses, int intervalMs) {
        return new NotifyPulse(pulses, intervalMs);
    }

    public static NotifyPulse create() {
        return create(DEFAULT_PULSES, DEFAULT_INTERVAL_MS);
    }

    /** Pulsing until {@link #stop()}, at most {@code cap} pulses. */
    static NotifyPulse untilStopped(int intervalMs) {
        return new NotifyPulse(Long.MAX_VALUE, intervalMs);
    }

    /** Ends the pulsing after the current pulse. */
    public void stop() {
        stop.set(true);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** One notify under the monitor: the call site contention analysis instruments. */
    static void pulse(PulseLock lock) {
        synchronized (lock) {
            lock.notifies++;
            lock.notify();
        }
    }

    @Override
    public Result run() {
        return run(() -> { });
    }

    private Result run(Runnable afterFirstPulse) {
        PulseLock lock = new PulseLock();
        Threads.Failures failures = new Threads.Failures();
        long[] done = {0};
        Thread t = Threads.start(THREAD_NAME, failures, () -> {
            while (done[0] < pulses && !stop.get()) {
                pulse(lock);
                done[0]++;
                if (done[0] == 1) {
                    afterFirstPulse.run();
                }
                if (intervalMs > 0) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(intervalMs));
                }
            }
        });
        long bound = pulses == Long.MAX_VALUE ? STDIN_CAP_MS + Threads.TIMEOUT.toMillis()
                : Threads.TIMEOUT.toMillis() + pulses * (intervalMs + 1L);
        if (!Threads.await(() -> !t.isAlive(), java.time.Duration.ofMillis(bound))) {
            stop();
            throw new IllegalStateException("notify-pulse did not finish within " + bound + " ms");
        }
        failures.check();
        synchronized (lock) {
            return new Result(pulses == Long.MAX_VALUE ? done[0] : pulses, lock.notifies, t.getName(),
                    PulseLock.class.getName());
        }
    }

    /** Pulses until {@code in} reaches end-of-file (bounded), printing {@value #MARKER} once pulsing. */
    static Result runUntilEof(InputStream in, java.io.PrintStream out, int intervalMs) {
        NotifyPulse p = untilStopped(intervalMs);
        Thread reader = new Thread(() -> {
            try {
                while (in.read() >= 0) {
                    // drain until EOF
                }
            } catch (IOException e) {
                // EOF for our purpose
            }
            p.stop();
        }, "notify-pulse-stdin");
        reader.setDaemon(true);
        reader.start();
        Thread cap = new Thread(() -> {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(STDIN_CAP_MS));
            p.stop();
        }, "notify-pulse-cap");
        cap.setDaemon(true);
        cap.start();
        return p.run(() -> {
            out.println(MARKER);
            out.flush();
        });
    }

    public static void main(String[] args) {
        if (List.of(args).contains("--until-stdin-eof")) {
            Cli.exit(Cli.execute(System.out, NAME, "NotifyPulse --until-stdin-eof [intervalMs]", () -> {
                String[] rest = List.of(args).stream().filter(a -> !a.equals("--until-stdin-eof"))
                        .toArray(String[]::new);
                Cli.maxArgs(rest, 1);
                int interval = Cli.intArg(rest, 0, "intervalMs", DEFAULT_INTERVAL_MS, 0);
                return new Scenario() {
                    @Override
                    public String name() {
                        return NAME;
                    }

                    @Override
                    public ScenarioResult run() {
                        return runUntilEof(System.in, System.out, interval);
                    }
                };
            }));
            return;
        }
        Cli.exit(Cli.execute(System.out, NAME, "NotifyPulse [pulses=" + DEFAULT_PULSES + "] [intervalMs="
                + DEFAULT_INTERVAL_MS + "] | NotifyPulse --until-stdin-eof [intervalMs]", () -> {
                    Cli.maxArgs(args, 2);
                    return create(Cli.intArg(args, 0, "pulses", DEFAULT_PULSES, 1),
                            Cli.intArg(args, 1, "intervalMs", DEFAULT_INTERVAL_MS, 0));
                }));
    }
}
