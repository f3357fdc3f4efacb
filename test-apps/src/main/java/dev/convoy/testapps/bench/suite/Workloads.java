package dev.convoy.testapps.bench.suite;

import dev.convoy.testapps.ConvoyMBean;
import dev.convoy.testapps.HandoffChain;
import dev.convoy.testapps.bench.SafepointLog;
import dev.convoy.testapps.bench.SafepointLog.Safepoint;
import dev.convoy.testapps.bench.TimingWindow;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The workloads of the benchmark suite, each run in its own JVM under one configuration by
 * {@link SuiteRunner}: {@code Workloads NAME [key=value ...]}. Each prints one {@link ResultLine}.
 *
 * <ul>
 *   <li>{@code contended threads= iterations=}: synchronized increments on one {@link ContendedLock};
 *       ground truth: the JVM's own count of contended enters (ThreadInfo.getBlockedCount).</li>
 *   <li>{@code handoff threads= rounds=}: {@link HandoffChain} repeated; exactly threads x rounds
 *       contended enters on {@code HandoffChain$HandoffLock}.</li>
 *   <li>{@code churn threads=}: short-lived threads started and joined one after another.</li>
 *   <li>{@code vchurn threads= batch=}: short-lived virtual threads (JDK 21+), started a batch at a time.</li>
 *   <li>{@code h2 clients= warmup= seconds= rows=}: the H2 database (in memory, on the classpath
 *       only in the benchmark) driven through JDBC by concurrent clients.</li>
 *   <li>{@code h2ab clients= warmup= pairs= phase= rows=}: the same H2 clients, Convoy's recording
 *       switched on and off in alternating phases inside one JVM (paired overhead).</li>
 *   <li>{@code snapshot seconds= interval=}: a hiccup meter while snapshots/dumps are taken.</li>
 *   <li>{@code memory phases=}: resident memory as live threads with events grow, then churn.</li>
 *   <li>{@code rlpingpong roundtrips= warmup=}: two threads pass a turn through a
 *       {@link ReentrantLock} and one {@link Condition} per side: every hand-off parks the giver and
 *       unparks the taker (java.util.concurrent parks, no monitor event).</li>
 *   <li>{@code queuehandoff items= warmup= queue=abq|sync}: a producer and a consumer through an
 *       {@link ArrayBlockingQueue} of capacity 1 (default) or a {@link SynchronousQueue}.</li>
 * </ul>
 *
 * The two park workloads count their own parks: {@link ThreadInfo#getWaitedCount()} of both
 * threads over the measured phase (HotSpot counts every {@code Unsafe.park} call there, whether it
 * blocks or returns at once on a pending permit), printed as {@code parks_per_op}.
 *
 * With {@code -Dconvoy.bench.contanalysis=on} the workload turns Convoy's contention analysis
 * on through the MBean before it starts. No dependency on Convoy: everything goes through JMX.
 */
public final class Workloads {

    static final String MBEAN = ConvoyMBean.NAME;

    /** The monitor of the contended workload. */
    public static final class ContendedLock {
        long counter;
        long x;
    }

    private Workloads() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: Workloads contended|handoff|churn|vchurn|h2|h2ab|snapshot|memory|rlpingpong|queuehandoff [key=value ...]");
            System.exit(2);
        }
        Map<String, String> a = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq <= 0) {
                System.err.println("bad argument '" + args[i] + "' (key=value)");
                System.exit(2);
            }
            a.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        setupAgent();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("workload", args[0]);
        switch (args[0]) {
            case "contended" -> contended(intArg(a, "threads", 4), intArg(a, "iterations", 200_000),
                    intArg(a, "work", 8), intArg(a, "yield", 0), out);
            case "handoff" -> handoff(intArg(a, "threads", 20), intArg(a, "rounds", 10), out);
            case "churn" -> churn(intArg(a, "threads", 10_000), out);
            case "vchurn" -> virtualChurn(intArg(a, "threads", 100_000), intArg(a, "batch", 100), out);
            case "h2" -> h2(intArg(a, "clients", 8), intArg(a, "warmup", 2), intArg(a, "seconds", 4),
                    intArg(a, "rows", 8), out);
            case "h2ab" -> h2ab(intArg(a, "clients", 8), intArg(a, "warmup", 3), intArg(a, "pairs", 24),
                    intArg(a, "phase", 500), intArg(a, "rows", 8), out);
            case "snapshot" -> snapshot(intArg(a, "seconds", 5), intArg(a, "interval", 200), out);
            case "memory" -> memory(a.getOrDefault("phases", "64,256,1024"), out);
            case "rlpingpong" -> rlPingPong(intArg(a, "roundtrips", 200_000), intArg(a, "warmup", 50_000), out);
            case "queuehandoff" -> queueHandoff(intArg(a, "items", 200_000), intArg(a, "warmup", 50_000),
                    a.getOrDefault("queue", "abq"), out);
            default -> {
                System.err.println("unknown workload '" + args[0] + "'");
                System.exit(2);
            }
        }
        convoyCounters(out);
        System.out.println(ResultLine.format(out));
        System.out.flush();
    }

    static int intArg(Map<String, String> a, String k, int def) {
        String v = a.get(k);
        return v == null ? def : Integer.parseInt(v);
    }

    // --- agent control through JMX --------------------------------------------------------------

    static boolean convoyPresent() {
        try {
            return ManagementFactory.getPlatformMBeanServer().isRegistered(new ObjectName(MBEAN));
        } catch (Exception e) {
            return false;
        }
    }

    private static void setupAgent() throws Exception {
        if ("on".equals(System.getProperty("convoy.bench.contanalysis"))) {
            if (!convoyPresent()) {
                throw new IllegalStateException("contanalysis requested but the Convoy MBean is not registered");
            }
            MBeanServer s = ManagementFactory.getPlatformMBeanServer();
            s.setAttribute(new ObjectName(MBEAN), new Attribute("ContentionAnalysis", Boolean.TRUE));
        }
    }

    private static void convoyCounters(Map<String, Object> out) throws Exception {
        if (!convoyPresent()) {
            return;
        }
        MBeanServer s = ManagementFactory.getPlatformMBeanServer();
        ObjectName n = new ObjectName(MBEAN);
        out.put("convoy_recorded", s.getAttribute(n, "EventsRecorded"));
        out.put("convoy_overwritten", s.getAttribute(n, "EventsOverwritten"));
        out.put("convoy_dropped", s.getAttribute(n, "EventsDropped"));
        out.put("convoy_memory", s.getAttribute(n, "MemoryInUseBytes"));
        out.put("convoy_cap", s.getAttribute(n, "MemoryCapBytes"));
    }

    // --- contended synchronized ------------------------------------------------------------------

    static void contended(int threads, int iterations, int work, int yieldEvery,
                          Map<String, Object> out) throws InterruptedException {
        ContendedLock lock = new ContendedLock();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        AtomicLong blocked = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        long start;
        synchronized (lock) {
            for (int i = 0; i < threads; i++) {
                Thread t = new Thread(() -> {
                    for (int k = 0; k < iterations; k++) {
                        synchronized (lock) {
                            lock.counter++;
                            long x = lock.x + k;
                            for (int j = 0; j < work; j++) {
                                x = x * 6364136223846793005L + 1442695040888963407L;
                            }
                            lock.x = x;
                            if (yieldEvery > 0 && k % yieldEvery == 0) {
                                Thread.yield(); // give up the CPU while holding the lock: waiters block
                            }
                        }
                    }
                    ThreadInfo ti = mx.getThreadInfo(Thread.currentThread().getId());
                    blocked.addAndGet(ti.getBlockedCount());
                }, "contended-" + i);
                t.start();
                workers.add(t);
            }
            for (Thread t : workers) {
                awaitState(t, Thread.State.BLOCKED);
            }
            start = System.nanoTime();
        }
        for (Thread t : workers) {
            t.join();
        }
        long nanos = System.nanoTime() - start;
        long ops = (long) threads * iterations;
        synchronized (lock) {
            if (lock.counter != ops) {
                throw new IllegalStateException("counter " + lock.counter + " != " + ops);
            }
        }
        out.put("ops", ops);
        out.put("ns_per_op", (double) nanos / ops);
        out.put("truth_enter", blocked.get());
        out.put("lock", ContendedLock.class.getName());
    }

    private static void awaitState(Thread t, Thread.State s) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (t.getState() != s) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(t.getName() + " never reached " + s);
            }
            Thread.sleep(1);
        }
    }

    // --- hand-off chain --------------------------------------------------------------------------

    static void handoff(int threads, int rounds, Map<String, Object> out) throws InterruptedException {
        long start = System.nanoTime();
        long handoffs = 0;
        for (int r = 0; r < rounds; r++) {
            HandoffChain.Result res = HandoffChain.create(threads).run();
            if (!res.ok()) {
                throw new IllegalStateException("hand-off chain failed: " + res.summary());
            }
            handoffs += res.contendedHandoffs();
        }
        long nanos = System.nanoTime() - start;
        out.put("handoffs", handoffs);
        out.put("us_per_handoff", nanos / 1000.0 / handoffs);
        out.put("truth_enter", handoffs);
        out.put("lock", HandoffChain.HandoffLock.class.getName());
    }

    // --- java.util.concurrent parks: ReentrantLock ping-pong and queue hand-off -------------------

    /**
     * Total {@link ThreadInfo#getWaitedCount()} of {@code ids}: on HotSpot, Object.wait calls plus
     * every {@code Unsafe.park} call (JavaThreadParkedState counts it before parking).
     */
    static long waitedCount(ThreadMXBean mx, long... ids) {
        long n = 0;
        for (ThreadInfo ti : mx.getThreadInfo(ids)) {
            if (ti == null) {
                throw new IllegalStateException("a thread of the workload ended early");
            }
            n += ti.getWaitedCount();
        }
        return n;
    }

    /** The parks of a measured phase: {@code parks} over {@code ops} operations. */
    static void putParks(Map<String, Object> out, long parks, long ops, long parksTotal) {
        out.put("parks", parks);
        out.put("parks_per_op", (double) parks / ops);
        out.put("parks_total", parksTotal);
    }

    /** The ReentrantLock ping-pong's shared state. */
    static final class RlPingPong {
        final ReentrantLock lock = new ReentrantLock();
        final Condition turnA = lock.newCondition();
        final Condition turnB = lock.newCondition();
        /** 0: A's turn, 1: B's; guarded by lock. */
        int turn;
        boolean done;
    }

    /**
     * PingPong's hand-off with a ReentrantLock instead of a monitor: A (the main thread) gives the
     * turn to B, signals B's condition and awaits its own; B does the same back. A round trip is
     * two awaits, each one park of the waiting thread, released by the other side's unlock (inside
     * its own await), which unparks it: 2 parks and 2 unparks per round trip when every await
     * blocks, as it does when both threads share one CPU. The loop allocates nothing; the parks
     * actually made are counted ({@link #waitedCount}), not assumed.
     */
    static void rlPingPong(int roundtrips, int warmup, Map<String, Object> out) throws InterruptedException {
        RlPingPong s = new RlPingPong();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Thread b = new Thread(() -> {
            s.lock.lock();
            try {
                while (true) {
                    while (s.turn != 1) {
                        s.turnB.awaitUninterruptibly();
                    }
                    if (s.done) {
                        return;
                    }
                    s.turn = 0;
                    s.turnA.signal();
                }
            } finally {
                s.lock.unlock();
            }
        }, "rlpingpong-b");
        b.setDaemon(true);
        b.start();
        long[] ids = {Thread.currentThread().getId(), b.getId()};
        long start = 0;
        long end;
        long before = 0;
        int total = warmup + roundtrips;
        s.lock.lock();
        try {
            for (int i = 0; i < total; i++) {
                if (i == warmup) {
                    before = waitedCount(mx, ids);
                    start = System.nanoTime();
                }
                s.turn = 1;
                s.turnB.signal();
                while (s.turn != 0) {
                    s.turnA.awaitUninterruptibly();
                }
            }
            end = System.nanoTime();
            long after = waitedCount(mx, ids);
            putParks(out, after - before, roundtrips, after);
            s.done = true;
            s.turn = 1;
            s.turnB.signal();
        } finally {
            s.lock.unlock();
        }
        b.join();
        out.put("roundtrips", roundtrips);
        out.put("warmup", warmup);
        out.put("ns_per_roundtrip", (double) (end - start) / roundtrips);
    }

    /**
     * A producer thread puts one preallocated token {@code warmup + items} times into a queue of
     * capacity 1 ({@code abq}, ArrayBlockingQueue: one ReentrantLock, conditions notFull and
     * notEmpty) or a SynchronousQueue ({@code sync}); the main thread takes them. Sharing one CPU,
     * each side parks once per item: the producer on the full queue, the consumer on the empty
     * one. Timed on the consumer from item {@code warmup} to the last; parks counted, not assumed.
     */
    static void queueHandoff(int items, int warmup, String kind, Map<String, Object> out) throws InterruptedException {
        BlockingQueue<Object> q = switch (kind) {
            case "abq" -> new ArrayBlockingQueue<>(1);
            case "sync" -> new SynchronousQueue<>();
            default -> throw new IllegalArgumentException("queue=abq|sync, not '" + kind + "'");
        };
        Object token = new Object();
        int total = warmup + items;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long[] producerWaited = new long[1];
        Thread producer = new Thread(() -> {
            try {
                for (int i = 0; i < total; i++) {
                    q.put(token);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            producerWaited[0] = waitedCount(mx, Thread.currentThread().getId()); // read before it ends
        }, "queuehandoff-producer");
        producer.setDaemon(true);
        producer.start();
        long[] ids = {Thread.currentThread().getId(), producer.getId()};
        long start = 0;
        long before = 0;
        for (int i = 0; i < total; i++) {
            if (i == warmup) {
                before = waitedCount(mx, ids);
                start = System.nanoTime();
            }
            if (q.take() != token) {
                throw new IllegalStateException("wrong item");
            }
        }
        long end = System.nanoTime();
        long consumerAfter = waitedCount(mx, ids[0]);
        producer.join();
        long after = consumerAfter + producerWaited[0];
        putParks(out, after - before, items, after);
        out.put("queue", kind);
        out.put("items", items);
        out.put("warmup", warmup);
        out.put("ns_per_handoff", (double) (end - start) / items);
    }

    // --- thread churn ----------------------------------------------------------------------------

    static void churn(int threads, Map<String, Object> out) throws InterruptedException {
        Object lock = new Object();
        long[] sink = new long[1];
        Runnable body = () -> {
            synchronized (lock) {
                sink[0]++;
            }
        };
        for (int i = 0; i < Math.max(200, threads / 10); i++) { // warm-up
            Thread t = new Thread(body, "churn-warm");
            t.start();
            t.join();
        }
        long start = System.nanoTime();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(body, "churn-" + i);
            t.start();
            t.join();
        }
        long nanos = System.nanoTime() - start;
        out.put("threads", threads);
        out.put("us_per_thread", nanos / 1000.0 / threads);
    }

    /**
     * Virtual-thread churn (JDK 21+): {@code threads} virtual threads, started {@code batch} at a
     * time and joined, each entering one (rarely contended) {@code synchronized} block and ending.
     * Measures the cost per virtual thread of what the recorder does at each start and end: the
     * JVM's CPU time per thread ({@code cpu_us_per_thread}, all its threads: less sensitive than
     * wall time to other processes on a shared machine), and wall time ({@code us_per_thread}).
     */
    static void virtualChurn(int threads, int batch, Map<String, Object> out) throws InterruptedException {
        Object lock = new Object();
        long[] sink = new long[1];
        Runnable body = () -> {
            synchronized (lock) {
                sink[0]++;
            }
        };
        Thread[] running = new Thread[batch];
        for (int round = 0; round < 2; round++) {
            int n = round == 0 ? Math.max(2_000, threads / 10) : threads; // warm-up, then measured
            long start = System.nanoTime();
            long cpu0 = processCpuNanos();
            for (int i = 0; i < n; i += batch) {
                int k = Math.min(batch, n - i);
                for (int j = 0; j < k; j++) {
                    running[j] = dev.convoy.testapps.VirtualThreadChurn.virtualThread(body);
                    running[j].start();
                }
                for (int j = 0; j < k; j++) {
                    running[j].join();
                }
            }
            long nanos = System.nanoTime() - start;
            long cpu = processCpuNanos() - cpu0;
            if (round == 1) {
                out.put("threads", threads);
                out.put("us_per_thread", nanos / 1000.0 / threads);
                out.put("cpu_us_per_thread", cpu / 1000.0 / threads);
            }
        }
    }

    /** CPU time of this JVM, all threads, in ns (-1 if the platform does not say). */
    static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean s ? s.getProcessCpuTime() : -1;
    }

    // --- H2 driven by concurrent JDBC clients ----------------------------------------------------

    /** Latency histogram in microseconds, one bucket per microsecond up to {@link #MAX_US}. */
    static final int MAX_US = 200_000;

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

    // --- snapshot under load ---------------------------------------------------------------------

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

    static double median(List<Double> v) {
        if (v.isEmpty()) {
            return 0;
        }
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    static double max(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    }

    // --- memory ----------------------------------------------------------------------------------

    /** Each phase: this many threads alive, each having done 50 timed waits (with stacks). */
    static void memory(String phases, Map<String, Object> out) throws Exception {
        int[] counts = Arrays.stream(phases.split(",")).mapToInt(Integer::parseInt).toArray();
        List<Thread> alive = new ArrayList<>();
        CountDownLatch release = new CountDownLatch(1);
        out.put("rss_kb_start", rssKb());
        putConvoyMemory(out, "start");
        for (int p = 0; p < counts.length; p++) {
            int target = counts[p];
            CountDownLatch did = new CountDownLatch(target - alive.size());
            while (alive.size() < target) {
                Object own = new Object();
                Thread t = new Thread(() -> {
                    try {
                        for (int w = 0; w < 50; w++) {
                            synchronized (own) {
                                own.wait(1);
                            }
                        }
                        did.countDown();
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "mem-" + alive.size());
                t.setDaemon(true);
                t.start();
                alive.add(t);
            }
            did.await();
            System.gc();
            out.put("threads_p" + p, target);
            out.put("rss_kb_p" + p, rssKb());
            putConvoyMemory(out, "p" + p);
        }
        // churn: end them all, then as many short-lived threads again, one batch of 64 at a time
        release.countDown();
        for (Thread t : alive) {
            t.join();
        }
        int churn = counts[counts.length - 1];
        for (int i = 0; i < churn; i += 64) {
            List<Thread> batch = new ArrayList<>();
            for (int j = 0; j < 64; j++) {
                Object own = new Object();
                Thread t = new Thread(() -> {
                    try {
                        for (int w = 0; w < 10; w++) {
                            synchronized (own) {
                                own.wait(1);
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "mem-churn-" + (i + j));
                t.start();
                batch.add(t);
            }
            for (Thread t : batch) {
                t.join();
            }
        }
        System.gc();
        out.put("rss_kb_churn", rssKb());
        putConvoyMemory(out, "churn");
    }

    private static void putConvoyMemory(Map<String, Object> out, String phase) throws Exception {
        if (convoyPresent()) {
            out.put("convoy_memory_" + phase, ManagementFactory.getPlatformMBeanServer()
                    .getAttribute(new ObjectName(MBEAN), "MemoryInUseBytes"));
        }
    }

    static long rssKb() throws IOException {
        return parseRssKb(Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.UTF_8));
    }

    /** VmRSS in kB from the lines of /proc/PID/status; -1 if absent. */
    static long parseRssKb(List<String> status) {
        for (String l : status) {
            if (l.startsWith("VmRSS:")) {
                return Long.parseLong(l.substring(6).trim().split("\\s+")[0]);
            }
        }
        return -1;
    }
}
