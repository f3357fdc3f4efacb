package dev.convoy.testapps.bench.suite;

import static dev.convoy.testapps.bench.suite.Workloads.MBEAN;
import static dev.convoy.testapps.bench.suite.Workloads.convoyPresent;
import static dev.convoy.testapps.bench.suite.Workloads.max;
import static dev.convoy.testapps.bench.suite.Workloads.median;

import dev.convoy.testapps.bench.SafepointLog;
import dev.convoy.testapps.bench.SafepointLog.Safepoint;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The {@code snapshot} workload of {@link Workloads}: a hiccup meter (a thread reading
 * System.nanoTime in a tight loop) runs while Convoy takes snapshots and dumps through the MBean
 * (or JFR dumps its recording), and the longest pause during each operation is set against
 * control windows of the same length, with the safepoints of {@code -Xlog:safepoint} if given.
 */
final class SnapshotWorkload {

    private SnapshotWorkload() {
    }

    /** A thread that reads System.nanoTime in a tight loop and keeps every gap above 20 µs. */
    static final class HiccupMeter extends Thread {
        static final long KEEP_NS = 20_000;
        final long[] at = new long[2_000_000];
        final long[] gap = new long[at.length];
        volatile int n;
        volatile boolean stop;

        HiccupMeter() {
            super("hiccup-meter");
            setDaemon(true);
        }

        @Override
        public void run() {
            long last = System.nanoTime();
            int k = 0;
            while (!stop) {
                long now = System.nanoTime();
                long g = now - last;
                if (g > KEEP_NS && k < at.length) {
                    at[k] = now;
                    gap[k] = g;
                    k++;
                    n = k;
                }
                last = now;
            }
        }

        /** The longest gap that overlaps [from, to]. */
        long maxGap(long from, long to) {
            long m = 0;
            int count = n;
            for (int i = 0; i < count; i++) {
                long end = at[i];
                long begin = end - gap[i];
                if (end >= from && begin <= to) {
                    m = Math.max(m, gap[i]);
                }
            }
            return m;
        }
    }

    static void snapshot(int seconds, int intervalMs, Map<String, Object> out) throws Exception {
        // background events: 4 threads doing 1 ms timed waits (about 8,000 events/s with stacks,
        // little CPU, so the meter keeps a CPU of its own)
        boolean[] stop = new boolean[1];
        for (int t = 0; t < 4; t++) {
            Object own = new Object();
            Thread w = new Thread(() -> {
                try {
                    while (!stop[0]) {
                        synchronized (own) {
                            own.wait(1);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "snap-waiter-" + t);
            w.setDaemon(true);
            w.start();
        }
        HiccupMeter meter = new HiccupMeter();
        meter.start();
        Thread.sleep(1000); // warm-up: JIT the meter and the ping-pong
        boolean convoy = convoyPresent();
        boolean jfr = !convoy && !jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings().isEmpty();
        String mode = convoy ? "convoy" : jfr ? "jfr" : "none";
        MBeanServer s = ManagementFactory.getPlatformMBeanServer();
        ObjectName n = new ObjectName(MBEAN);
        String[] formats = {"snapshot", "csv", "chrome", "tptp"};
        Map<String, List<Double>> opMs = new LinkedHashMap<>();
        List<long[]> windows = new ArrayList<>();
        List<String> opNames = new ArrayList<>();
        Path dir = Paths.get(System.getProperty("convoy.bench.dir", "."));
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        int i = 0;
        while (System.nanoTime() < end) {
            String op;
            long a = System.nanoTime();
            if (convoy) {
                int k = i % (formats.length + 1);
                if (k == 0) {
                    op = "snapshot";
                    s.invoke(n, "snapshot", new Object[0], new String[0]);
                } else {
                    op = "dump_" + formats[k - 1];
                    s.invoke(n, "dump", new Object[] {formats[k - 1], "snap-" + i},
                            new String[] {"java.lang.String", "java.lang.String"});
                }
            } else if (jfr) {
                op = "dump_jfr";
                try (jdk.jfr.Recording r = jdk.jfr.FlightRecorder.getFlightRecorder().takeSnapshot()) {
                    r.dump(dir.resolve("snap-" + i + ".jfr"));
                }
            } else {
                op = "idle";
            }
            long b = System.nanoTime();
            windows.add(new long[] {a, b});
            opNames.add(op);
            opMs.computeIfAbsent(op, x -> new ArrayList<>()).add((b - a) / 1e6);
            i++;
            Thread.sleep(intervalMs);
        }
        meter.stop = true;
        stop[0] = true;
        // pause during each operation vs. control windows of the same length half an interval later
        List<Double> during = new ArrayList<>();
        List<Double> control = new ArrayList<>();
        long half = intervalMs * 500_000L;
        Map<String, Double> pauseByOp = new LinkedHashMap<>();
        // safepoints (every GC pause is one) from -Xlog:safepoint with System.nanoTime stamps, if given
        List<Safepoint> safepoints = SafepointLog.read(Paths.get(System.getProperty("convoy.bench.safepoints",
                SafepointLog.FILE)));
        List<Double> outsideSafepoints = new ArrayList<>();
        Map<String, Double> safepointByName = new TreeMap<>();
        for (int k = 0; k < windows.size(); k++) {
            long[] w = windows.get(k);
            double p = meter.maxGap(w[0], w[1]) / 1000.0;
            during.add(p);
            boolean any = false;
            for (Safepoint sp : safepoints) {
                if (sp.overlaps(w[0], w[1] - w[0])) {
                    any = true;
                    safepointByName.merge(sp.name(), sp.totalNs() / 1000.0, Math::max);
                }
            }
            if (!any) {
                outsideSafepoints.add(p);
            }
            pauseByOp.merge(opNames.get(k), p, Math::max);
            control.add(meter.maxGap(w[1] + half, w[1] + half + (w[1] - w[0])) / 1000.0);
        }
        out.put("mode", mode);
        out.put("ops", windows.size());
        out.put("pause_max_us", max(during));
        out.put("pause_median_us", median(during));
        out.put("safepoint_log", safepoints.isEmpty() ? 0 : 1);
        out.put("ops_with_safepoint", during.size() - outsideSafepoints.size());
        out.put("pause_nosafepoint_max_us", max(outsideSafepoints));
        for (Map.Entry<String, Double> e : safepointByName.entrySet()) {
            out.put("safepoint_" + e.getKey() + "_max_us", e.getValue());
        }
        out.put("control_max_us", max(control));
        out.put("control_median_us", median(control));
        for (Map.Entry<String, List<Double>> e : opMs.entrySet()) {
            out.put(e.getKey() + "_ms", median(e.getValue()));
            out.put(e.getKey() + "_max_ms", max(e.getValue()));
            out.put(e.getKey() + "_pause_max_us", pauseByOp.get(e.getKey()));
        }
    }
}
