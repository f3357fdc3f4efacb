package dev.convoy.testapps;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A guaranteed two-thread monitor deadlock. {@code deadlock-A} locks a {@link LockA} then wants
 * the {@link LockB}; {@code deadlock-B} locks the {@code LockB} then wants the {@code LockA}. A
 * latch (park-based, so it adds no monitor events) makes each hold its first lock before trying
 * the second.
 *
 * <p>The two threads are daemons, so the JVM can still exit; they stay deadlocked until it does
 * (and therefore never produce ThreadEnd events). {@code run()} returns as soon as both are
 * BLOCKED on their second lock.
 *
 * <p>{@code main} prints the marker line {@value #MARKER} once both threads are blocked, then the
 * summary line, and then optionally keeps the JVM alive so a recorder can snapshot the deadlock:
 * <ul>
 *   <li>{@code --hold-ms=N} (or {@code -Dconvoy.hold.ms=N}): stay alive N ms;</li>
 *   <li>{@code --hold-until-stdin-eof} (or {@code -Dconvoy.hold.stdin=true}): stay alive until
 *       stdin reaches end-of-file, bounded by {@code --hold-ms} if given, else by
 *       {@value #DEFAULT_STDIN_HOLD_CAP_MS} ms.</li>
 * </ul>
 * After holding it prints {@value #RELEASED_MARKER} and exits 0.
 *
 * <p>Threads: {@code deadlock-A}, {@code deadlock-B}. Monitor classes:
 * {@code dev.convoy.testapps.Deadlock$LockA}, {@code dev.convoy.testapps.Deadlock$LockB}.
 */
public final class Deadlock implements Scenario {

    public static final String NAME = "deadlock";
    public static final String THREAD_A = "deadlock-A";
    public static final String THREAD_B = "deadlock-B";
    /** Printed on its own line by {@code main} once both threads are BLOCKED. */
    public static final String MARKER = "DEADLOCKED";
    /** Printed by {@code main} after a hold, just before the JVM exits. */
    public static final String RELEASED_MARKER = "HOLD-RELEASED";
    public static final long DEFAULT_STDIN_HOLD_CAP_MS = 60_000;

    /** First lock of deadlock-A, second lock of deadlock-B. */
    public static final class LockA {
    }

    /** First lock of deadlock-B, second lock of deadlock-A. */
    public static final class LockB {
    }

    /**
     * @param threadNames      {@code [deadlock-A, deadlock-B]}
     * @param aBlockedOnB      deadlock-A observed BLOCKED entering the LockB
     * @param bBlockedOnA      deadlock-B observed BLOCKED entering the LockA
     * @param jvmDetected      {@code ThreadMXBean.findMonitorDeadlockedThreads()} reported both threads
     */
    public record Result(List<String> threadNames, boolean aBlockedOnB, boolean bBlockedOnA,
                         boolean jvmDetected, String lockAClassName, String lockBClassName)
            implements ScenarioResult {

        @Override
        public boolean ok() {
            return aBlockedOnB && bBlockedOnA && jvmDetected;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "threadNames", threadNames,
                    "aBlockedOnB", aBlockedOnB, "bBlockedOnA", bBlockedOnA, "jvmDetected", jvmDetected,
                    "lockA", lockAClassName, "lockB", lockBClassName);
        }
    }

    private Deadlock() {
    }

    public static Deadlock create() {
        return new Deadlock();
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * Creates the deadlock and returns once both threads are BLOCKED. The two daemon threads
     * remain deadlocked for the rest of the JVM's life.
     */
    @Override
    public Result run() {
        LockA lockA = new LockA();
        LockB lockB = new LockB();
        CountDownLatch bothHoldFirst = new CountDownLatch(2);
        Threads.Failures failures = new Threads.Failures();
        Thread a = Threads.start(THREAD_A, failures, () -> lockBoth(lockA, lockB, bothHoldFirst));
        Thread b = Threads.start(THREAD_B, failures, () -> lockBoth(lockB, lockA, bothHoldFirst));
        Threads.require(() -> Threads.isBlockedOn(a, lockB) && Threads.isBlockedOn(b, lockA)
                || !a.isAlive() || !b.isAlive(), "deadlock-A BLOCKED on LockB and deadlock-B BLOCKED on LockA");
        failures.check();
        long[] deadlocked = ManagementFactory.getThreadMXBean().findMonitorDeadlockedThreads();
        boolean detected = deadlocked != null
                && Arrays.stream(deadlocked).anyMatch(id -> id == a.getId())
                && Arrays.stream(deadlocked).anyMatch(id -> id == b.getId());
        return new Result(List.of(a.getName(), b.getName()), Threads.isBlockedOn(a, lockB),
                Threads.isBlockedOn(b, lockA), detected, LockA.class.getName(), LockB.class.getName());
    }

    private static void lockBoth(Object first, Object second, CountDownLatch bothHoldFirst)
            throws InterruptedException {
        synchronized (first) {
            bothHoldFirst.countDown();
            if (!bothHoldFirst.await(Threads.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the other thread never took its first lock");
            }
            synchronized (second) {
                throw new IllegalStateException("acquired both locks: no deadlock");
            }
        }
    }

    /** How long {@code main} keeps the JVM alive after the deadlock. */
    record Hold(long millis, boolean untilStdinEof) {

        static Hold parse(String[] args) {
            long millis = Long.getLong("convoy.hold.ms", -1L);
            boolean stdin = Boolean.getBoolean("convoy.hold.stdin");
            for (String arg : args) {
                if (arg.startsWith("--hold-ms=")) {
                    try {
                        millis = Long.parseLong(arg.substring("--hold-ms=".length()));
                    } catch (NumberFormatException e) {
                        throw new Cli.UsageException("bad --hold-ms value: " + arg);
                    }
                    if (millis < 0) {
                        throw new Cli.UsageException("--hold-ms must be >= 0");
                    }
                } else if (arg.equals("--hold-until-stdin-eof")) {
                    stdin = true;
                } else {
                    throw new Cli.UsageException("unknown argument: " + arg);
                }
            }
            if (stdin && millis < 0) {
                millis = DEFAULT_STDIN_HOLD_CAP_MS;
            }
            return new Hold(Math.max(millis, 0), stdin);
        }

        boolean holds() {
            return millis > 0;
        }

        /** Blocks until the hold is over; never longer than {@code millis}. */
        void await(InputStream stdin) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            if (untilStdinEof) {
                Thread reader = new Thread(() -> drainUntilEof(stdin), "deadlock-stdin-watch");
                reader.setDaemon(true);
                reader.start();
                while (reader.isAlive() && System.nanoTime() - deadline < 0) {
                    LockSupport.parkNanos(10_000_000L);
                }
            } else {
                long remaining;
                while ((remaining = deadline - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(remaining);
                }
            }
        }

        private static void drainUntilEof(InputStream in) {
            byte[] buf = new byte[256];
            try {
                while (in.read(buf) >= 0) {
                    // discard
                }
            } catch (IOException e) {
                // treat a broken stdin like end-of-file
            }
        }
    }

    static final String USAGE = "Deadlock [--hold-ms=N] [--hold-until-stdin-eof]";

    /** Runs the scenario as {@code main} does, printing to {@code out}; returns the exit code. */
    static int runMain(String[] args, PrintStream out, InputStream in) {
        Hold hold;
        try {
            hold = Hold.parse(args);
        } catch (Cli.UsageException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("usage: " + USAGE);
            return Cli.USAGE;
        }
        Result result;
        try {
            result = create().run();
        } catch (Exception e) {
            out.println(NAME + " FAIL error=" + Cli.oneLine(e));
            out.flush();
            return Cli.FAILED;
        }
        if (result.ok()) {
            out.println(MARKER);
        }
        out.println(result.summary());
        out.flush();
        if (!result.ok()) {
            return Cli.FAILED;
        }
        if (hold.holds()) {
            hold.await(in);
            out.println(RELEASED_MARKER);
            out.flush();
        }
        return 0;
    }

    public static void main(String[] args) {
        Cli.exit(runMain(args, System.out, System.in));
    }
}
