package dev.convoy.testapps.bench.suite;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How often this machine takes the CPU away from a running thread for longer than a callback
 * tail allows, whoever takes it: one thread per CPU spins reading the monotonic clock, nothing
 * else running, and counts the gaps between two reads. A gap of tens of microseconds is an
 * interrupt, another task, or the hypervisor running something else on the virtual CPU: the
 * first and last never show in a thread's context switch counts, so a timed callback that meets
 * one is counted neither slept nor preempted. A callback of length d meets a gap over T with
 * probability {@code 1 - exp(-rate(T) * d)}: that is the share of callbacks over T owed to the
 * machine alone, which a p99.9 under T needs to be well under 0.1 %.
 */
public record MachineStalls(int threads, double seconds, long[] over, long maxNs) {

    /** The gap lengths counted, in ns: 10, 50, 100, 200 µs and 1 ms. */
    public static final long[] THRESHOLDS_NS = {10_000, 50_000, 100_000, 200_000, 1_000_000};

    /** Spins {@code threads} threads for {@code seconds} (after a short warm-up) and counts the gaps. */
    public static MachineStalls measure(int threads, double seconds) throws InterruptedException {
        long[][] counts = new long[threads][THRESHOLDS_NS.length];
        long[] max = new long[threads];
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int id = i;
            Thread t = new Thread(() -> {
                spin(200_000_000L, new long[THRESHOLDS_NS.length]);   // compiled before it counts
                max[id] = spin((long) (seconds * 1e9), counts[id]);
            }, "stall-probe-" + i);
            t.setDaemon(true);
            ts.add(t);
        }
        for (Thread t : ts) {
            t.start();
        }
        for (Thread t : ts) {
            t.join();
        }
        long[] over = new long[THRESHOLDS_NS.length];
        long maxNs = 0;
        for (int i = 0; i < threads; i++) {
            for (int k = 0; k < over.length; k++) {
                over[k] += counts[i][k];
            }
            maxNs = Math.max(maxNs, max[i]);
        }
        return new MachineStalls(threads, seconds, over, maxNs);
    }

    /** Both measurements as one: counts and seconds added (same thread count). */
    public MachineStalls plus(MachineStalls o) {
        if (o.threads != threads) {
            throw new IllegalArgumentException("stalls of " + o.threads + " threads added to " + threads);
        }
        long[] sum = over.clone();
        for (int k = 0; k < sum.length; k++) {
            sum[k] += o.over[k];
        }
        return new MachineStalls(threads, seconds + o.seconds, sum, Math.max(maxNs, o.maxNs));
    }

    /** Spins for {@code nanos}, counting the gaps by length; returns the longest. */
    private static long spin(long nanos, long[] counts) {
        long prev = System.nanoTime();
        long end = prev + nanos;
        long longest = 0;
        while (prev < end) {
            long now = System.nanoTime();
            long gap = now - prev;
            if (gap >= THRESHOLDS_NS[0]) {
                for (int k = 0; k < THRESHOLDS_NS.length && gap > THRESHOLDS_NS[k]; k++) {
                    counts[k]++;
                }
                longest = Math.max(longest, gap);
            }
            prev = now;
        }
        return longest;
    }

    /** Gaps longer than {@code thresholdNs} (one of {@link #THRESHOLDS_NS}) per second of one CPU. */
    public double perSecond(long thresholdNs) {
        for (int k = 0; k < THRESHOLDS_NS.length; k++) {
            if (THRESHOLDS_NS[k] == thresholdNs) {
                return over[k] / (threads * seconds);
            }
        }
        throw new IllegalArgumentException("not a counted gap length: " + thresholdNs + " ns");
    }

    /** The chance that a callback lasting {@code ns} meets a gap longer than {@code thresholdNs}. */
    public double chance(double ns, long thresholdNs) {
        return -Math.expm1(-perSecond(thresholdNs) * ns / 1e9);
    }

    /** One line for a report. */
    public String summary() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "one thread spinning on each of %d CPUs for %.1f s in all, nothing else running, lost its CPU for longer than",
                threads, seconds));
        for (int k = 0; k < THRESHOLDS_NS.length; k++) {
            sb.append(k == 0 ? " " : ", ").append(THRESHOLDS_NS[k] >= 1_000_000 ? THRESHOLDS_NS[k] / 1_000_000 + " ms"
                    : THRESHOLDS_NS[k] / 1_000 + " µs").append(String.format(Locale.ROOT, " %.1f", perSecond(THRESHOLDS_NS[k])));
        }
        return sb.append(String.format(Locale.ROOT, " times a second per CPU (longest %.2f ms)", maxNs / 1e6)).toString();
    }
}
