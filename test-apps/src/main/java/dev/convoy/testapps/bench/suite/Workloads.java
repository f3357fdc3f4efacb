package dev.convoy.testapps.bench.suite;

import dev.convoy.testapps.ConvoyMBean;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The workloads of the benchmark suite, each run in its own JVM under one configuration by
 * {@link SuiteRunner}: {@code Workloads NAME [key=value ...]}. Each prints one {@link ResultLine}.
 * This class is the entry point and holds what the workloads share; their bodies are in
 * {@link LockWorkloads}, {@link ParkWorkloads}, {@link ThreadWorkloads}, {@link H2Workloads},
 * {@link SnapshotWorkload} and {@link MemoryWorkload}.
 *
 * <ul>
 *   <li>{@code contended threads= iterations=}: synchronized increments on one {@link ContendedLock};
 *       ground truth: the JVM's own count of contended enters (ThreadInfo.getBlockedCount).</li>
 *   <li>{@code handoff threads= rounds=}: {@code HandoffChain} repeated; exactly threads x rounds
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
 *       {@code ReentrantLock} and one {@code Condition} per side: every hand-off parks the giver and
 *       unparks the taker (java.util.concurrent parks, no monitor event).</li>
 *   <li>{@code queuehandoff items= warmup= queue=abq|sync}: a producer and a consumer through an
 *       {@code ArrayBlockingQueue} of capacity 1 (default) or a {@code SynchronousQueue}.</li>
 * </ul>
 *
 * The two park workloads count their own parks ({@link ParkWorkloads}), printed as
 * {@code parks_per_op}.
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
            case "contended" -> LockWorkloads.contended(intArg(a, "threads", 4), intArg(a, "iterations", 200_000),
                    intArg(a, "work", 8), intArg(a, "yield", 0), out);
            case "handoff" -> LockWorkloads.handoff(intArg(a, "threads", 20), intArg(a, "rounds", 10), out);
            case "churn" -> ThreadWorkloads.churn(intArg(a, "threads", 10_000), out);
            case "vchurn" -> ThreadWorkloads.virtualChurn(intArg(a, "threads", 100_000), intArg(a, "batch", 100), out);
            case "h2" -> H2Workloads.h2(intArg(a, "clients", 8), intArg(a, "warmup", 2), intArg(a, "seconds", 4),
                    intArg(a, "rows", 8), out);
            case "h2ab" -> H2Workloads.h2ab(intArg(a, "clients", 8), intArg(a, "warmup", 3), intArg(a, "pairs", 24),
                    intArg(a, "phase", 500), intArg(a, "rows", 8), out);
            case "snapshot" -> SnapshotWorkload.snapshot(intArg(a, "seconds", 5), intArg(a, "interval", 200), out);
            case "memory" -> MemoryWorkload.memory(a.getOrDefault("phases", "64,256,1024"), out);
            case "rlpingpong" -> ParkWorkloads.rlPingPong(intArg(a, "roundtrips", 200_000),
                    intArg(a, "warmup", 50_000), out);
            case "queuehandoff" -> ParkWorkloads.queueHandoff(intArg(a, "items", 200_000), intArg(a, "warmup", 50_000),
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

    // --- statistics ------------------------------------------------------------------------------

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
}
