package dev.convoy.testapps.bench.suite;

import static dev.convoy.testapps.bench.suite.Workloads.MBEAN;
import static dev.convoy.testapps.bench.suite.Workloads.convoyPresent;
import static dev.convoy.testapps.bench.suite.Workloads.median;

import dev.convoy.testapps.bench.TimingWindow;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;

import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The H2 workloads of {@link Workloads}: the H2 database (in memory, on the classpath only in the
 * benchmark) driven through JDBC by concurrent clients, with a hot-row update and a range sum.
 * {@code h2} measures throughput and latency percentiles with whatever the JVM was started with;
 * {@code h2ab} switches Convoy's recording on and off in alternating phases inside one JVM
 * (paired overhead).
 */
final class H2Workloads {

    /** Latency histogram in microseconds, one bucket per microsecond up to {@link #MAX_US}. */
    static final int MAX_US = 200_000;

    private H2Workloads() {
    }

    static void h2(int clients, int warmupSeconds, int seconds, int rows, Map<String, Object> out)
            throws Exception {
        String url = h2Table(rows);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long[][] hist = new long[clients][MAX_US + 1];
        long[] opsDone = new long[clients];
        long[] events = new long[clients];
        long[] errors = new long[clients];
        CountDownLatch ready = new CountDownLatch(clients);
        long t0 = System.nanoTime();
        long measureFrom = t0 + warmupSeconds * 1_000_000_000L;
        long measureTo = measureFrom + seconds * 1_000_000_000L;
        List<Thread> ts = new ArrayList<>();
        for (int ci = 0; ci < clients; ci++) {
            int id = ci;
            Thread t = new Thread(() -> {
                h2Session(url, (upd, sel) -> {
                    ready.countDown();
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    long before = 0;
                    boolean measuring = false;
                    while (true) {
                        long s = System.nanoTime();
                        if (s >= measureTo) {
                            break;
                        }
                        if (!measuring && s >= measureFrom) {
                            measuring = true;
                            ThreadInfo ti = mx.getThreadInfo(Thread.currentThread().getId());
                            before = ti.getBlockedCount() + ti.getWaitedCount();
                        }
                        try {
                            h2Op(upd, sel, rows, rnd);
                        } catch (SQLException e) {
                            errors[id]++; // e.g. a lock time-out; counted, not fatal
                            continue;
                        }
                        if (measuring) {
                            long us = (System.nanoTime() - s) / 1000;
                            hist[id][(int) Math.min(us, MAX_US)]++;
                            opsDone[id]++;
                        }
                    }
                    ThreadInfo ti = mx.getThreadInfo(Thread.currentThread().getId());
                    events[id] = ti.getBlockedCount() + ti.getWaitedCount() - before;
                });
            }, "h2-client-" + ci);
            t.start();
            ts.add(t);
        }
        // With bench.timing=on, the callback timing covers the measured phase alone, as the figures do.
        long untilMeasured = measureFrom - System.nanoTime();
        if (untilMeasured > 0) {
            Thread.sleep(untilMeasured / 1_000_000, (int) (untilMeasured % 1_000_000));
        }
        out.put("timing_restarted", TimingWindow.restart() ? 1 : 0);
        for (Thread t : ts) {
            t.join();
        }
        long[] merged = new long[MAX_US + 1];
        long ops = 0;
        long evs = 0;
        long errs = 0;
        for (int ci = 0; ci < clients; ci++) {
            for (int i = 0; i <= MAX_US; i++) {
                merged[i] += hist[ci][i];
            }
            ops += opsDone[ci];
            evs += events[ci];
            errs += errors[ci];
        }
        if (ops == 0) {
            throw new IllegalStateException("no operation completed");
        }
        out.put("ops_per_s", ops / (double) seconds);
        out.put("p50_us", (double) percentile(merged, 0.50));
        out.put("p99_us", (double) percentile(merged, 0.99));
        out.put("contention_events_per_s", evs / (double) seconds);
        out.put("errors", errs);
    }

    /** An in-memory H2 database with a table of {@code rows * 64} accounts; returns its URL. */
    static String h2Table(int rows) throws SQLException {
        String url = "jdbc:h2:mem:bench" + ProcessHandle.current().pid() + ";DB_CLOSE_DELAY=-1";
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             Statement st = c.createStatement()) {
            st.execute("CREATE TABLE acct(id INT PRIMARY KEY, balance BIGINT, note VARCHAR(64))");
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO acct VALUES(?, 0, ?)")) {
                for (int i = 0; i < rows * 64; i++) {
                    ins.setInt(1, i);
                    ins.setString(2, "row " + i);
                    ins.executeUpdate();
                }
            }
        }
        return url;
    }

    /** What a client does with its own connection's two statements. */
    interface H2Client {
        void run(PreparedStatement update, PreparedStatement rangeSum) throws SQLException;
    }

    /** Runs {@code client} on a new connection to {@code url} with the workload's two statements. */
    static void h2Session(String url, H2Client client) {
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             PreparedStatement upd = c.prepareStatement("UPDATE acct SET balance = balance + 1 WHERE id = ?");
             PreparedStatement sel = c.prepareStatement("SELECT SUM(balance) FROM acct WHERE id BETWEEN ? AND ?")) {
            client.run(upd, sel);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One client operation: 25 % an update of one of {@code rows} hot rows, 75 % a range sum. */
    static void h2Op(PreparedStatement upd, PreparedStatement sel, int rows, ThreadLocalRandom rnd)
            throws SQLException {
        if (rnd.nextInt(4) == 0) {
            upd.setInt(1, rnd.nextInt(rows)); // hot rows: row-lock and monitor contention
            upd.executeUpdate();
        } else {
            int from = rnd.nextInt(rows * 64 - 32);
            sel.setInt(1, from);
            sel.setInt(2, from + 32);
            try (ResultSet r = sel.executeQuery()) {
                r.next();
            }
        }
    }

    /**
     * H2 overhead measured inside one JVM: the same clients run throughout while the main thread
     * switches Convoy's recording on and off (the MBean's Recording attribute: off disables the
     * JVMTI events) in phases of {@code phaseMs}, {@code pairs} on/off pairs in alternating order
     * (on-off, off-on, ...) so that drift cancels. The figure is the median over pairs of
     * {@code rate(off) / rate(on) - 1}: the throughput lost to recording, with the JVM, its JIT
     * state and its heap the same on both sides. Without Convoy both phases are identical: an A/A
     * control that shows the method's own resolution.
     */
    static void h2ab(int clients, int warmupSeconds, int pairs, int phaseMs, int rows, Map<String, Object> out)
            throws Exception {
        String url = h2Table(rows);
        boolean convoy = convoyPresent();
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName(MBEAN);
        java.util.concurrent.atomic.LongAdder ops = new java.util.concurrent.atomic.LongAdder();
        boolean[] stop = new boolean[1];
        List<Thread> ts = new ArrayList<>();
        CountDownLatch ready = new CountDownLatch(clients);
        for (int ci = 0; ci < clients; ci++) {
            Thread t = new Thread(() -> {
                h2Session(url, (upd, sel) -> {
                    ready.countDown();
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    while (!stop[0]) {
                        try {
                            h2Op(upd, sel, rows, rnd);
                            ops.increment();
                        } catch (SQLException e) {
                            // a lock time-out: not an operation done
                        }
                    }
                });
            }, "h2-client-" + ci);
            t.setDaemon(true);
            t.start();
            ts.add(t);
        }
        ready.await();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long[] ids = ts.stream().mapToLong(Thread::getId).toArray();
        Thread.sleep(warmupSeconds * 1000L);
        List<Double> overhead = new ArrayList<>();
        double onOps = 0;
        double onEvents = 0;
        double onSeconds = 0;
        for (int p = 0; p < pairs; p++) {
            double[] rate = new double[2]; // [off, on]
            for (int half = 0; half < 2; half++) {
                boolean on = (p % 2 == 0) == (half == 0);
                if (convoy) {
                    server.setAttribute(name, new Attribute("Recording", on));
                }
                Thread.sleep(20); // let the switch settle
                long ev0 = contentionEvents(mx, ids);
                long a = ops.sum();
                long t0 = System.nanoTime();
                Thread.sleep(phaseMs);
                long b = ops.sum();
                long t1 = System.nanoTime();
                long ev1 = contentionEvents(mx, ids);
                rate[on ? 1 : 0] = (b - a) / ((t1 - t0) / 1e9);
                if (on) {
                    onOps += b - a;
                    onEvents += ev1 - ev0;
                    onSeconds += (t1 - t0) / 1e9;
                }
            }
            overhead.add(100.0 * (rate[0] / rate[1] - 1));
        }
        stop[0] = true;
        if (convoy) {
            server.setAttribute(name, new Attribute("Recording", true));
        }
        double[] sorted = overhead.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        out.put("mode", convoy ? "convoy" : "aa-control");
        out.put("pairs", pairs);
        out.put("overhead_pct", median(overhead));
        out.put("overhead_p25_pct", sorted[(int) Math.floor(0.25 * (sorted.length - 1))]);
        out.put("overhead_p75_pct", sorted[(int) Math.ceil(0.75 * (sorted.length - 1))]);
        out.put("ops_per_s_on", onOps / onSeconds);
        out.put("contention_events_per_s_on", onEvents / onSeconds);
    }

    /** Contended enters plus waits of these threads so far (ThreadInfo without stacks: no safepoint). */
    static long contentionEvents(ThreadMXBean mx, long[] ids) {
        long n = 0;
        for (ThreadInfo ti : mx.getThreadInfo(ids)) {
            if (ti != null) {
                n += ti.getBlockedCount() + ti.getWaitedCount();
            }
        }
        return n;
    }

    /** The smallest bucket value at or below which a fraction {@code q} of the counts lie. */
    static long percentile(long[] hist, double q) {
        long total = 0;
        for (long c : hist) {
            total += c;
        }
        if (total == 0) {
            return 0;
        }
        long need = (long) Math.ceil(q * total);
        long seen = 0;
        for (int i = 0; i < hist.length; i++) {
            seen += hist[i];
            if (seen >= need) {
                return i;
            }
        }
        return hist.length - 1;
    }
}
