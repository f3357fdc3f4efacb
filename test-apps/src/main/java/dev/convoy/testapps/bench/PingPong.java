package dev.convoy.testapps.bench;

import java.util.List;

/**
 * A wait/notify ping-pong between two threads on one monitor: the benchmark workload.
 *
 * <p>The calling thread ({@code main}, "A") and a daemon thread {@code pingpong-b} ("B") hand a
 * turn back and forth under one lock. One round trip: A gives the turn to B, notifies and waits;
 * B wakes, gives the turn back, notifies and waits; A wakes. Per round trip that is exactly two
 * {@code Object.wait} calls, so the JVMTI spec gives {@value #EVENTS_PER_ROUNDTRIP} monitor
 * events: 2 MonitorWait + 2 MonitorWaited. A waiter that is notified re-acquires the monitor
 * after the notifier has itself released it by waiting, so on HotSpot the re-acquisition is not
 * contended and posts no MonitorContendedEnter/Entered (a spurious wake-up would add a wait pair;
 * the measured counts under the real recorder are in {@code docs/performance.md}).
 *
 * <p>{@code W} warm-up round trips run first (JIT compilation of both loops), then {@code N}
 * measured round trips timed with {@link System#nanoTime()} on thread A. The loop allocates
 * nothing. Thread B's first entry and the final hand-off are outside the measured phase, and the
 * program uses no {@code Thread.join} (which waits on the thread object), so every monitor event
 * of the run comes from the ping-pong lock.
 *
 * <p>Usage: {@code PingPong [--roundtrips N] [--warmup W]}; prints one line, see
 * {@link PingPongLine}, e.g. {@code PINGPONG roundtrips=200000 warmup=50000 nanos=... ns_per_roundtrip=...}.
 */
public final class PingPong {

    /** JVMTI monitor events per round trip: 2 MonitorWait + 2 MonitorWaited. */
    public static final int EVENTS_PER_ROUNDTRIP = 4;
    public static final int DEFAULT_ROUNDTRIPS = 200_000;
    public static final int DEFAULT_WARMUP = 50_000;

    private static final int A = 0;
    private static final int B = 1;

    private final Object lock = new Object();
    /** Whose turn it is; guarded by {@link #lock}. */
    private int turn = A;
    /** Set by A when the measured phase is over; guarded by {@link #lock}. */
    private boolean done;

    private PingPong() {
    }

    /** Runs {@code warmup} then {@code roundtrips} round trips; returns the measured nanoseconds. */
    static long run(int warmup, int roundtrips) throws InterruptedException {
        return new PingPong().pingPong(warmup, roundtrips);
    }

    private long pingPong(int warmup, int roundtrips) throws InterruptedException {
        Thread b = new Thread(this::responder, "pingpong-b");
        b.setDaemon(true);
        b.start();
        long start = 0;
        long end;
        int total = warmup + roundtrips;
        synchronized (lock) {
            for (int i = 0; i < total; i++) {
                if (i == warmup) {
                    start = System.nanoTime();
                }
                turn = B;
                lock.notify();
                while (turn != A) {
                    lock.wait();
                }
            }
            end = System.nanoTime();
            done = true;
            turn = B;
            lock.notify();
        }
        return end - start;
    }

    private void responder() {
        try {
            synchronized (lock) {
                while (true) {
                    while (turn != B) {
                        lock.wait();
                    }
                    if (done) {
                        return;
                    }
                    turn = A;
                    lock.notify();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        int roundtrips;
        int warmup;
        try {
            BenchArgs a = BenchArgs.parse(args, List.of("--roundtrips", "--warmup"), List.of());
            roundtrips = a.intArg("--roundtrips", DEFAULT_ROUNDTRIPS, 1);
            warmup = a.intArg("--warmup", DEFAULT_WARMUP, 0);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("usage: PingPong [--roundtrips N] [--warmup W]");
            System.exit(2);
            return;
        }
        long nanos = run(warmup, roundtrips);
        System.out.println(new PingPongLine(roundtrips, warmup, nanos).format());
        System.out.flush();
    }
}
