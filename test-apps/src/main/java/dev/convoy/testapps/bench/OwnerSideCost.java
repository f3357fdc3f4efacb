package dev.convoy.testapps.bench;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What a sample of the owner's side of a block (agent option {@code ownerstacks}) costs the
 * owner: one thread holds a {@code ReentrantLock} and spins (counting loop iterations, calling a
 * few frames deep, in compiled code) for {@code seconds}; {@code waiters} threads keep trying the
 * lock with {@code tryLock(10 ms)}, each try a block of 10 ms, so that with {@code ownerstacks=1ms}
 * the recorder samples the owner as often as it may (20 a second). The owner's spin rate with the
 * option off, at its default and at 1 ms gives the owner's loss per sample; the owner also times
 * every gap of more than {@value #GAP_NS} ns between two iterations (a stop: a handshake, a
 * safepoint, the scheduler), so that the stops a sample adds show beside those the machine makes
 * anyway. The sampler thread's CPU comes from {@code /proc/self/task/TID/schedstat} ({@link RecorderCpu}).
 *
 * <p>Prints {@code OWNERSIDECOST seconds=N spins=N stops=N stop_ns=N cpu.<thread>=NS ...}. Usage:
 * {@code OwnerSideCost [seconds] [waiters]} (defaults 5, 4).
 */
public final class OwnerSideCost {

    private OwnerSideCost() {
    }

    static volatile long sink;
    /** A gap between two iterations at least this long is a stop of the owner. */
    static final long GAP_NS = 5_000;
    static long stops;
    static long stopNs;

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int waiters = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        ReentrantLock lock = new ReentrantLock();
        AtomicBoolean done = new AtomicBoolean();
        long[] spins = new long[1];
        Thread owner = new Thread(() -> {
            lock.lock();
            try {
                // warm-up, then the measured window
                spin(System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
                stops = 0;
                stopNs = 0;
                spins[0] = spin(System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds));
            } finally {
                lock.unlock();
            }
        }, "owner");
        owner.start();
        while (!lock.isLocked()) {
            Thread.onSpinWait();
        }
        Thread[] ws = new Thread[waiters];
        for (int i = 0; i < waiters; i++) {
            ws[i] = new Thread(() -> {
                try {
                    while (!done.get()) {
                        if (lock.tryLock(10, TimeUnit.MILLISECONDS)) {
                            lock.unlock();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "waiter-" + i);
            ws[i].setDaemon(true);
            ws[i].start();
        }
        owner.join();
        done.set(true);
        StringBuilder line = new StringBuilder("OWNERSIDECOST seconds=" + seconds + " spins=" + spins[0] + " stops="
                + stops + " stop_ns=" + stopNs);
        for (Map.Entry<String, Long> e : RecorderCpu.recorderCpu().entrySet()) {
            line.append(" cpu.").append(e.getKey()).append('=').append(e.getValue());
        }
        System.out.println(line);
    }

    /** Loop iterations until {@code end}, through a few frames (a stack worth walking); gaps counted. */
    static long spin(long end) {
        long n = 0;
        long prev = System.nanoTime();
        long now;
        while ((now = System.nanoTime()) < end) {
            if (now - prev >= GAP_NS) {
                stops++;
                stopNs += now - prev;
            }
            prev = now;
            n += level1(n);
        }
        return n;
    }

    static long level1(long n) {
        return level2(n) + 1;
    }

    static long level2(long n) {
        sink = n;
        return 0;
    }
}
