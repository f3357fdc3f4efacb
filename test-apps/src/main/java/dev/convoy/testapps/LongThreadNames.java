package dev.convoy.testapps;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Threads with very long names: one that waits once on its own {@link NameLock} and ends,
 * and a daemon that waits on another until the JVM exits (so a snapshot taken at exit
 * reads its name live). Each name is {@code length} characters: a prefix, then 'é' (two
 * bytes in UTF-8) repeated, so that a cut by bytes must fall on a character boundary.
 *
 * <p>Threads: {@code ENDED_PREFIX...}, {@code LIVE_PREFIX...}. Monitor class:
 * {@code dev.convoy.testapps.LongThreadNames$NameLock}.
 */
public final class LongThreadNames implements Scenario {

    public static final String NAME = "long-thread-names";
    public static final String ENDED_PREFIX = "long-ended-";
    public static final String LIVE_PREFIX = "long-live-";
    public static final int DEFAULT_LENGTH = 64 * 1024;

    /** Monitor each thread waits on. */
    public static final class NameLock {
    }

    public record Result(int length, boolean ended, boolean liveWaiting) implements ScenarioResult {
        @Override
        public boolean ok() {
            return ended && liveWaiting;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "length", length, "ended", ended, "liveWaiting", liveWaiting);
        }
    }

    private final int length;

    private LongThreadNames(int length) {
        if (length < LIVE_PREFIX.length() + 1) {
            throw new IllegalArgumentException("length must be > " + LIVE_PREFIX.length());
        }
        this.length = length;
    }

    public static LongThreadNames create(int length) {
        return new LongThreadNames(length);
    }

    /** A name of `length` characters: prefix, then 'é' repeated. */
    public static String name(String prefix, int length) {
        return prefix + "é".repeat(length - prefix.length());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() throws InterruptedException {
        Threads.Failures failures = new Threads.Failures();
        NameLock endedLock = new NameLock();
        Thread ended = Threads.start(name(ENDED_PREFIX, length), failures, () -> {
            synchronized (endedLock) {
                endedLock.wait(1);
            }
        });
        Threads.awaitTermination(List.of(ended));
        failures.check();
        NameLock liveLock = new NameLock();
        CountDownLatch holding = new CountDownLatch(1);
        Thread live = new Thread(() -> {
            synchronized (liveLock) {
                holding.countDown();
                try {
                    liveLock.wait(); // until the JVM exits
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, name(LIVE_PREFIX, length));
        live.setDaemon(true);
        live.start();
        if (!holding.await(Threads.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(LIVE_PREFIX + " thread did not start");
        }
        synchronized (liveLock) {
            // the live thread let go of the monitor: it is in wait() now
        }
        boolean waiting = live.getState() == Thread.State.WAITING;
        return new Result(length, !ended.isAlive(), waiting);
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "LongThreadNames [length=" + DEFAULT_LENGTH + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "length", DEFAULT_LENGTH, LIVE_PREFIX.length() + 1));
        }));
    }
}
