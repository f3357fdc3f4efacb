package dev.convoy.testapps.bench.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.convoy.testapps.bench.BenchmarkRunner;

/** The pure parts of the suite: parsing, statistics, tables, targets and the chart. No timing. */
class SuitePartsTest {

    // --- result lines ----------------------------------------------------------------------------

    @Test
    void theHistoryOnDiskGoesToARepositoryOfTheRunsOwn() throws Exception {
        Path run = java.nio.file.Files.createTempDirectory("suite-run");
        List<String> args = SuiteConfig.DISK.jvmArgs(new SuiteConfig.Tools(Paths.get("/a/convoy-agent.jar"), null), run,
                false);
        assertEquals("-javaagent:/a/convoy-agent.jar=repository=" + run.resolve("repo") + ",dumpdir=" + run,
                args.get(0));
        assertTrue(java.nio.file.Files.isDirectory(run.resolve("repo")));
    }

    @Test
    void resultLineRoundTrips() {
        Map<String, Object> kv = new LinkedHashMap<>();
        kv.put("workload", "h2");
        kv.put("ops_per_s", 1234.5);
        kv.put("errors", 0L);
        String line = ResultLine.format(kv);
        assertEquals("SUITE workload=h2 ops_per_s=1234.500 errors=0", line);
        Map<String, String> back = ResultLine.parse(line);
        assertEquals(List.of("workload", "ops_per_s", "errors"), List.copyOf(back.keySet()));
        assertEquals(1234.5, ResultLine.number(back, "ops_per_s"), 1e-9);
    }

    @Test
    void resultLineRejectsMalformedInput() {
        assertThrows(IllegalArgumentException.class, () -> ResultLine.parse("PINGPONG a=1"));
        assertThrows(IllegalArgumentException.class, () -> ResultLine.parse("SUITE a"));
        assertThrows(IllegalArgumentException.class, () -> ResultLine.parse("SUITE a=1 a=2"));
        assertThrows(IllegalArgumentException.class, () -> ResultLine.format(Map.of("k", "has blank")));
        assertThrows(IllegalArgumentException.class, () -> ResultLine.number(Map.of("a", "x"), "a"));
        assertThrows(IllegalArgumentException.class, () -> ResultLine.number(Map.of(), "a"));
    }

    @Test
    void findTakesTheLastSuiteLineAmongNoise() {
        var found = ResultLine.find(List.of("Profiling started", "SUITE a=1", "warning: x", "  SUITE a=2  "));
        assertEquals("2", found.orElseThrow().get("a"));
        assertTrue(ResultLine.find(List.of("nothing")).isEmpty());
    }

    // --- child processes -------------------------------------------------------------------------

    @Test
    void childClasspathIsAbsoluteForChildrenInTheirRunDirectories() throws Exception {
        Path lib = java.nio.file.Files.createTempDirectory("suite-lib");
        try {
            java.nio.file.Files.createFile(lib.resolve("b.jar"));
            java.nio.file.Files.createFile(lib.resolve("a.jar"));
            java.nio.file.Files.createFile(lib.resolve("async-profiler-4.0.jar"));
            java.nio.file.Files.createFile(lib.resolve("notes.txt"));
            String cp = SuiteRunner.childClasspath("test-apps/target/classes::/abs/x.jar:lib/*", lib);
            Path cwd = Path.of("").toAbsolutePath();
            assertEquals(List.of(cwd.resolve("test-apps/target/classes").toString(), "/abs/x.jar",
                    cwd.resolve("lib/*").toString(), lib.resolve("a.jar").toAbsolutePath().toString(),
                    lib.resolve("b.jar").toAbsolutePath().toString()), List.of(cp.split(":")));
        } finally {
            try (var files = java.nio.file.Files.list(lib)) {
                for (Path f : files.toList()) {
                    java.nio.file.Files.delete(f);
                }
            }
            java.nio.file.Files.delete(lib);
        }
    }

    @Test
    void recordedArgumentsNameRepositoryFilesRelativeToTheRoot() {
        assertEquals("--agent recorder-mbean/target/convoy-agent.jar --runs 3 --out docs/bench/suite-jdk17.md "
                + "--java /usr/lib/jvm/x/bin/java --marker /repo",
                SuiteRunner.recordedArguments(new String[] {"--agent", "/repo/recorder-mbean/target/convoy-agent.jar",
                    "--runs", "3", "--out", "/repo/docs/bench/suite-jdk17.md", "--java", "/usr/lib/jvm/x/bin/java",
                    "--marker", "/repo"}, Path.of("/repo")));
    }

    // --- captures --------------------------------------------------------------------------------

    @Test
    void collapsedCountsOnlyTheLockClassFrames() {
        List<String> lines = List.of(
                "java/lang/Thread.run;a/B.work;dev.x.Outer$Lock_[i] 4",
                "java/lang/Thread.run;a/B.other;dev.x.Outer$Lock_[i] 3",
                "java/lang/Thread.run;a/B.work;java.lang.Object_[i] 100",
                "java/lang/Thread.run;dev/x/Outer$Lock 2",
                "garbage");
        assertEquals(9, Captures.collapsedEnters(lines, "dev.x.Outer$Lock"));
        assertEquals(100, Captures.collapsedEnters(lines, "java.lang.Object"));
        assertEquals(0, Captures.collapsedEnters(lines, "dev.x.Other"));
    }

    @Test
    void collapsedSamplesCountsEveryLine() {
        assertEquals(9, Captures.collapsedSamples(List.of("a;b;java.util.concurrent.locks.ReentrantLock$NonfairSync_[i] 7",
                "a;c;int[]_[i] 2", "garbage", "x y")));
        assertEquals(0, Captures.collapsedSamples(List.of()));
    }

    // --- workload helpers ------------------------------------------------------------------------

    @Test
    void parkWorkloadsCountTheirParks() throws Exception {
        // functional only: the keys are there and the counts add up; no timing is asserted
        Map<String, Object> rl = new LinkedHashMap<>();
        ParkWorkloads.rlPingPong(2000, 200, rl);
        long parks = (Long) rl.get("parks");
        assertTrue(parks > 0 && parks <= (Long) rl.get("parks_total"), rl.toString());
        assertEquals((double) parks / 2000, (Double) rl.get("parks_per_op"), 1e-12);
        assertTrue(rl.containsKey("ns_per_roundtrip"));
        for (String kind : List.of("abq", "sync")) {
            Map<String, Object> q = new LinkedHashMap<>();
            ParkWorkloads.queueHandoff(2000, 200, kind, q);
            assertEquals(kind, q.get("queue"));
            assertTrue((Long) q.get("parks_total") >= (Long) q.get("parks"), q.toString());
            assertTrue(q.containsKey("ns_per_handoff"));
            ResultLine.format(q); // printable
        }
        assertThrows(IllegalArgumentException.class, () -> ParkWorkloads.queueHandoff(10, 0, "lbq", new LinkedHashMap<>()));
    }

    @Test
    void percentileOfHistogram() {
        long[] h = new long[10];
        h[1] = 50;
        h[2] = 49;
        h[9] = 1;
        assertEquals(1, H2Workloads.percentile(h, 0.50));
        assertEquals(2, H2Workloads.percentile(h, 0.99));
        assertEquals(9, H2Workloads.percentile(h, 1.0));
        assertEquals(0, H2Workloads.percentile(new long[3], 0.5));
    }

    @Test
    void rssAndMedian() {
        assertEquals(123456, MemoryWorkload.parseRssKb(List.of("Name:\tjava", "VmRSS:\t  123456 kB", "VmSwap: 0 kB")));
        assertEquals(-1, MemoryWorkload.parseRssKb(List.of("Name: x")));
        assertEquals(2.5, Workloads.median(List.of(4.0, 1.0, 2.0, 3.0)), 1e-12);
        assertEquals(4.0, Workloads.max(List.of(4.0, 1.0)), 1e-12);
    }

    // --- configurations --------------------------------------------------------------------------

    @Test
    void jvmArgsPerTool() {
        SuiteConfig.Tools tools = new SuiteConfig.Tools(Paths.get("/a/agent.jar"), Paths.get("/l/libasyncProfiler.so"));
        Path run = Paths.get("/r");
        assertEquals(List.of("-Dconvoy.bench.dir=/r"), SuiteConfig.NONE.jvmArgs(tools, run, true));
        assertEquals("-javaagent:/a/agent.jar=bench.callbacks=empty", SuiteConfig.FLOOR.jvmArgs(tools, run, true).get(0));
        assertEquals("-javaagent:/a/agent.jar=stackdepth=0,dumpdir=/r,dumponexit=snapshot,dumpname=convoy",
                SuiteConfig.RING.jvmArgs(tools, run, true).get(0));
        assertEquals("-javaagent:/a/agent.jar=dumpdir=/r", SuiteConfig.DEFAULT.jvmArgs(tools, run, false).get(0));
        assertEquals("-javaagent:/a/agent.jar=contanalysis=on,dumpdir=/r",
                SuiteConfig.CONTAN.jvmArgs(tools, run, false).get(0));
        assertEquals("-XX:StartFlightRecording:filename=/r/run.jfr", SuiteConfig.JFR.jvmArgs(tools, run, true).get(0));
        String jfr0 = SuiteConfig.JFR0.jvmArgs(tools, run, true).get(0);
        assertTrue(jfr0.contains("jdk.JavaMonitorEnter#threshold=0ms") && jfr0.contains("jdk.ThreadPark#stackTrace=false"));
        assertFalse(SuiteConfig.JFR0S.jvmArgs(tools, run, true).get(0).contains("stackTrace"));
        assertEquals("-agentpath:/l/libasyncProfiler.so=start,event=lock,lock=0,file=/r/async.collapsed",
                SuiteConfig.ASYNC.jvmArgs(tools, run, true).get(0));
        assertThrows(IllegalStateException.class,
                () -> SuiteConfig.ASYNC.jvmArgs(new SuiteConfig.Tools(Paths.get("/a"), null), run, true));
        assertThrows(IllegalArgumentException.class, () -> SuiteConfig.byId("nope"));
        assertEquals(SuiteConfig.JFR0S, SuiteConfig.byId("jfr0s"));
    }

    // --- statistics, tables and targets ----------------------------------------------------------

    private static Measurements pingPong(double none, double floor, double ring, double def, double jfr0s) {
        Measurements m = new Measurements(new Measurements.Spec("pingpong", "Ping-pong", "ns_per_roundtrip",
                "ns/round trip", false, 4, false), List.of(SuiteConfig.NONE, SuiteConfig.FLOOR, SuiteConfig.RING,
                SuiteConfig.DEFAULT, SuiteConfig.JFR0S));
        for (double d : new double[] {-100, 0, 100}) { // three runs around each median
            m.add(SuiteConfig.NONE, Map.of("ns_per_roundtrip", Double.toString(none + d)));
            m.add(SuiteConfig.FLOOR, Map.of("ns_per_roundtrip", Double.toString(floor + d)));
            m.add(SuiteConfig.RING, Map.of("ns_per_roundtrip", Double.toString(ring + d)));
            m.add(SuiteConfig.DEFAULT, Map.of("ns_per_roundtrip", Double.toString(def + d)));
            m.add(SuiteConfig.JFR0S, Map.of("ns_per_roundtrip", Double.toString(jfr0s + d)));
        }
        return m;
    }

    /** A timed run: enters whose p99.9 and max miss because of 10 switched callbacks, waits that meet both. */
    static dev.convoy.testapps.bench.CallbackTiming tails(String enterSteadyHist, long enterSteadyMax) {
        Map<String, String> info = new LinkedHashMap<>();
        info.put("timing.clock", "source=rdtsc ns_per_tick=1.000000 seconds=1.000 stamp_ns=8.00");
        info.put("timing.monitor_enter", "events=2000 ns=4000000 max_ns=2000000 gc=0 gc_max_ns=0 p50_ns=1999 "
                + "p99_ns=1999 p999_ns=69999 stages=clock:2000:1:1,thread:2000:1:1,owner:2000:1:1,"
                + "object:2000:3000000:1990000,walk:2000:1:1,intern:2000:1:1,ring:2000:1:1 slept=4 preempted=6 "
                + "steady_p999_ns=0 steady_max_ns=" + enterSteadyMax + " hist_ticks=1000-1999:1990,60000-69999:10 "
                + "steady_hist_ticks=" + enterSteadyHist);
        info.put("timing.monitor_wait", "events=1000 ns=1000000 max_ns=9000 gc=0 gc_max_ns=0 p50_ns=999 p99_ns=999 "
                + "p999_ns=9000 stages=clock:1000:1:1,thread:1000:1:1,owner:0:0:0,object:1000:1:1,walk:1000:1:1,"
                + "intern:1000:1:1,ring:1000:1:1 slept=0 preempted=0 steady_p999_ns=9000 steady_max_ns=9000 "
                + "hist_ticks=500-999:999,8000-8999:1 steady_hist_ticks=500-999:999,8000-8999:1");
        info.put("timing.slowest", "monitor_enter:1000:2000000:object:1990000:0:1:0");
        return dev.convoy.testapps.bench.CallbackTiming.fromInfo(info).orElseThrow();
    }

    @Test
    void tailTargetsSayByHowMuchAndWhy() {
        List<SuiteReport.Target> t = SuiteReport.tailTargets("H2", tails("1000-1999:1990,20000-29999:4", 25_000), null);
        assertEquals(2, t.size());
        SuiteReport.Target p = t.get(0);
        assertFalse(p.met(), p.line());
        assertTrue(p.line().startsWith("- Callback p99.9 < 50 µs, every event type, H2: monitor_enter 70.0 µs, "
                + "monitor_wait 999 ns"), p.line());
        assertTrue(p.line().contains("over by 20.0 µs (monitor_enter)"), p.line());
        assertTrue(p.line().contains("without the preempted callbacks: monitor_enter 25.0 µs, monitor_wait 999 ns "
                + "(met)"), p.line());
        assertTrue(p.line().contains("monitor_enter 4 slept and 6 preempted of 2,000 (0.50 %)"), p.line());
        SuiteReport.Target m = t.get(1);
        assertFalse(m.met(), m.line());
        assertTrue(m.line().contains("over by 1.00 ms (monitor_enter)"), m.line());
        assertTrue(m.line().contains("the slowest: monitor_enter 2.00 ms, of which object id 1.99 ms, slept 1 / "
                + "preempted 0"), m.line());
        assertTrue(m.line().contains("(met)"), "the max without preempted callbacks, 25 µs: " + m.line());

        List<SuiteReport.Target> slept = SuiteReport.tailTargets("H2",
                tails("1000-1999:1990,60000-69999:4", 1_500_000), null);
        assertTrue(slept.get(0).line().contains("monitor_enter 70.0 µs, monitor_wait 999 ns (missed)"),
                "sleeps alone set the p99.9: " + slept.get(0).line());
        assertTrue(slept.get(1).line().contains("(missed)"), slept.get(1).line());
    }

    @Test
    void tailTargetsSayWhatTheMachineAloneOwes() {
        // 2 CPUs for 10 s: 2,000 stalls over 50 µs (100 a second per CPU), 20 over 1 ms (1 a second)
        MachineStalls stalls = new MachineStalls(2, 10, new long[] {9000, 2000, 600, 100, 20}, 3_000_000);
        assertEquals(100, stalls.perSecond(50_000), 1e-9);
        assertEquals(1, stalls.perSecond(1_000_000), 1e-9);
        assertEquals(2e-4, stalls.chance(2000, 50_000), 1e-7);   // 2 µs at 100 a second
        assertThrows(IllegalArgumentException.class, () -> stalls.perSecond(70_000));
        MachineStalls twice = stalls.plus(new MachineStalls(2, 10, new long[] {1000, 0, 0, 0, 0}, 100_000));
        assertEquals(50, twice.perSecond(50_000), 1e-9);   // 2,000 stalls in 40 CPU-seconds
        assertEquals(3_000_000, twice.maxNs());
        assertThrows(IllegalArgumentException.class, () -> stalls.plus(new MachineStalls(1, 1, new long[5], 0)));
        List<SuiteReport.Target> t = SuiteReport.tailTargets("H2", tails("1000-1999:1990,20000-29999:4", 25_000),
                stalls);
        // the median enter lasts 2 µs (its bucket 1000-1999 ns), the median wait 1 µs (500-999 ns)
        assertTrue(t.get(0).line().contains("owed to the machine alone (a stall over 50.0 µs 100.0 times a second "
                + "per CPU, met at the callback's median length): monitor_enter 0.020 %, monitor_wait 0.010 % "
                + "(the target allows 0.1 %)"), t.get(0).line());
        assertTrue(t.get(1).line().contains("a stall over 1.00 ms 1.0 times a second per CPU, met at the callback's "
                + "median length): monitor_enter 0.000 %, monitor_wait 0.000 % (the target allows none)"), t.get(1).line());
        assertTrue(stalls.summary().startsWith("one thread spinning on each of 2 CPUs for 10.0 s in all, nothing else "
                + "running, lost its CPU for longer than 10 µs 450.0, 50 µs 100.0, 100 µs 30.0, 200 µs 5.0, 1 ms 1.0 "
                + "times a second per CPU (longest 3.00 ms)"), stalls.summary());
    }

    @Test
    void machineStallsAreCountedOnThisMachine() throws InterruptedException {
        MachineStalls m = MachineStalls.measure(1, 0.2);
        assertEquals(1, m.threads());
        for (int k = 1; k < MachineStalls.THRESHOLDS_NS.length; k++) {
            assertTrue(m.over()[k] <= m.over()[k - 1], "a longer gap is also a shorter one: " + m.summary());
        }
        if (m.maxNs() > MachineStalls.THRESHOLDS_NS[0]) {
            assertTrue(m.over()[0] > 0, "the longest gap was counted: " + m.summary());
        }
    }

    @Test
    void tailTargetsMet() {
        Map<String, String> info = new LinkedHashMap<>();
        info.put("timing.clock", "source=rdtsc ns_per_tick=1.000000 seconds=1.000 stamp_ns=8.00");
        info.put("timing.monitor_wait", "events=1000 ns=1000000 max_ns=9000 gc=0 gc_max_ns=0 p50_ns=999 p99_ns=999 "
                + "p999_ns=9000 stages=clock:1000:1:1,thread:1000:1:1,owner:0:0:0,object:1000:1:1,walk:1000:1:1,"
                + "intern:1000:1:1,ring:1000:1:1 hist_ticks=500-999:999,8000-8999:1");
        List<SuiteReport.Target> t = SuiteReport.tailTargets("H2",
                dev.convoy.testapps.bench.CallbackTiming.fromInfo(info).orElseThrow(), null);
        assertTrue(t.get(0).met(), t.get(0).line());
        assertTrue(t.get(0).line().contains("margin 49.0 µs (monitor_wait)"), t.get(0).line());
        assertTrue(t.get(1).met(), t.get(1).line());
        assertFalse(t.get(0).line().contains("preempted"), "no counts in this run, none claimed: " + t.get(0).line());
    }

    @Test
    void pingPongTargetsMetAndMissed() {
        // default costs (8000-6000)/4 = 500 ns/event, JFR (10000-6000)/4 = 1000: ratio 0.5, both met
        List<SuiteReport.Target> t = SuiteReport.pingPongTargets(pingPong(6000, 6400, 7000, 8000, 10000));
        assertEquals(4, t.size());
        assertTrue(t.get(0).met(), t.get(0).line());
        assertTrue(t.get(0).line().contains("≤ JFR threshold 0"), t.get(0).line());
        assertTrue(t.get(1).met(), t.get(1).line());
        assertTrue(t.get(1).line().contains("≤ ½ of JFR"), t.get(1).line());
        // ring 7000 vs floor 6400: +9.4 %, met; per event 250 vs 100: missed
        assertTrue(t.get(2).met(), t.get(2).line());
        assertFalse(t.get(3).met(), t.get(3).line());
        // default 750 ns/event against JFR's 1000: at most JFR's, not half of it
        List<SuiteReport.Target> worse = SuiteReport.pingPongTargets(pingPong(6000, 6400, 7200, 9000, 10000));
        assertTrue(worse.get(0).met(), worse.get(0).line());
        assertFalse(worse.get(1).met());
        assertTrue(worse.get(1).line().contains("over by 250.0 ns/event"), worse.get(1).line());
        assertFalse(worse.get(2).met());
        List<SuiteReport.Target> over = SuiteReport.pingPongTargets(pingPong(6000, 6400, 7200, 11000, 10000));
        assertFalse(over.get(0).met());
        assertTrue(over.get(0).line().contains("over by 250.0 ns/event"), over.get(0).line());
    }

    @Test
    void overheadSignFollowsDirection() {
        Measurements lower = pingPong(1000, 1000, 1000, 1100, 1000);
        assertEquals(10.0, lower.overheadPercent(SuiteConfig.DEFAULT, SuiteConfig.NONE), 1e-9);
        Measurements higher = new Measurements(new Measurements.Spec("h2", "H2", "ops_per_s", "ops/s", true, 0,
                false), List.of(SuiteConfig.NONE, SuiteConfig.DEFAULT));
        higher.add(SuiteConfig.NONE, Map.of("ops_per_s", "1000", "p50_us", "10", "p99_us", "50"));
        higher.add(SuiteConfig.DEFAULT, Map.of("ops_per_s", "990", "p50_us", "11", "p99_us", "60"));
        assertEquals(1.0, higher.overheadPercent(SuiteConfig.DEFAULT, SuiteConfig.NONE), 1e-9);
        String table = SuiteReport.table(higher);
        assertTrue(table.contains("| Convoy default (stacks 64) | 990 | 990 | 990 | 0.0 % | +1.0 % | 11.0 | 60.0 |"),
                table);
        assertTrue(SuiteReport.h2Targets(higher).get(0).met());
        assertTrue(SuiteReport.h2Targets(higher).get(0).resolved());
        higher.add(SuiteConfig.NONE, Map.of("ops_per_s", "2000", "p50_us", "10", "p99_us", "50"));
        SuiteReport.Target noisy = SuiteReport.h2Targets(higher).get(0);
        assertFalse(noisy.resolved());
        assertTrue(noisy.line().contains("not resolved"), noisy.line());
    }

    @Test
    void fidelityIsTheMedianRatio() {
        Measurements m = new Measurements(new Measurements.Spec("handoff", "Hand-off", "us_per_handoff", "µs", false,
                0, true), List.of(SuiteConfig.NONE, SuiteConfig.JFR));
        m.add(SuiteConfig.NONE, Map.of("us_per_handoff", "10", "truth_enter", "300"));
        m.add(SuiteConfig.JFR, Map.of("us_per_handoff", "11", "truth_enter", "300", "captured", "0"));
        m.add(SuiteConfig.JFR, Map.of("us_per_handoff", "11", "truth_enter", "300", "captured", "150"));
        m.add(SuiteConfig.JFR, Map.of("us_per_handoff", "11", "truth_enter", "300", "captured", "300"));
        assertTrue(Double.isNaN(m.fidelity(SuiteConfig.NONE)));
        assertEquals(0.5, m.fidelity(SuiteConfig.JFR), 1e-12);
        assertTrue(SuiteReport.table(m).contains("50.0 % (150 of 300)"), SuiteReport.table(m));
    }

    @Test
    void memoryTargetComparesPeakWithCap() {
        Measurements m = new Measurements(new Measurements.Spec("memory", "Memory", "rss_kb_churn", "", false, 0,
                false), List.of(SuiteConfig.NONE, SuiteConfig.CAP16));
        m.add(SuiteConfig.NONE, Map.of("rss_kb_p0", "1024", "rss_kb_churn", "2048"));
        m.add(SuiteConfig.CAP16, Map.of("rss_kb_p0", "2048", "rss_kb_churn", "4096", "convoy_cap", "16777216",
                "convoy_memory_p0", "1048576", "convoy_memory_churn", "16777217"));
        List<SuiteReport.Target> t = SuiteReport.memoryTargets(m, List.of("p0", "churn"));
        assertEquals(1, t.size());
        assertFalse(t.get(0).met());
        String table = SuiteReport.memoryTable(m, List.of("p0", "churn"));
        assertTrue(table.contains("| Convoy default, memory=16m | p0 | — | 2.0 | +1.0 | 1.0 | 16.0 |"), table);
    }

    // --- park workloads --------------------------------------------------------------------------

    private static Map<String, String> parkRun(double ns, double parksPerOp, String... more) {
        Map<String, String> r = new LinkedHashMap<>();
        r.put("ns_per_roundtrip", Double.toString(ns));
        r.put("parks_per_op", Double.toString(parksPerOp));
        r.put("parks_total", "1000");
        for (int i = 0; i < more.length; i += 2) {
            r.put(more[i], more[i + 1]);
        }
        return r;
    }

    /** none 2000 ns at 2 parks/op; default and JFR with stacks at the given medians (±20 ns). */
    private static Measurements parks(double def, String convoyRecorded, double jfr0s) {
        Measurements m = new Measurements(new Measurements.Spec("rlpingpong", "RL", "ns_per_roundtrip",
                "ns/round trip", false, 0, false, true), List.of(SuiteConfig.NONE, SuiteConfig.DEFAULT,
                SuiteConfig.JFR0S, SuiteConfig.ASYNC));
        for (double d : new double[] {-20, 0, 20}) {
            m.add(SuiteConfig.NONE, parkRun(2000 + d, 2.0));
            m.add(SuiteConfig.DEFAULT, parkRun(def + d, 2.0, "convoy_recorded", convoyRecorded,
                    Measurements.CAPTURED_PARKS, "0"));
            m.add(SuiteConfig.JFR0S, parkRun(jfr0s + d, 1.0, Measurements.CAPTURED_PARKS, "1000"));
            m.add(SuiteConfig.ASYNC, parkRun(2100 + d, 2.0, Measurements.CAPTURED_PARKS, "5"));
        }
        return m;
    }

    @Test
    void perParkCostDividesByTheConfigurationsOwnParks() {
        Measurements m = parks(3000, "3000", 3000);
        assertEquals(500.0, m.nsPerParkAboveNone(SuiteConfig.DEFAULT), 1e-9); // 1000 ns over 2 parks
        assertEquals(1000.0, m.nsPerParkAboveNone(SuiteConfig.JFR0S), 1e-9); // 1000 ns over 1 park
        assertTrue(Double.isNaN(m.nsPerParkAboveNone(SuiteConfig.RING)));
        assertEquals(3.0, m.convoyRecordsPerPark(SuiteConfig.DEFAULT), 1e-12);
        assertEquals(1.0, m.parksCaptured(SuiteConfig.JFR0S), 1e-12);
        String table = SuiteReport.table(m);
        assertTrue(table.contains("| Parks/op | ns/park above no agent | Convoy records/park | Parks in the output |"),
                table);
        assertTrue(table.contains("| Convoy default (stacks 64) | 3000 | 2980 | 3020 | 1.3 % | +50.0 % | 2.00 | 500 "
                + "| 3.00 | 0.0 % (0 of 1000) |"), table);
        assertTrue(table.contains("| JFR threshold 0, stacks | 3000 | 2980 | 3020 | 1.3 % | +50.0 % | 1.00 | 1000 | — "
                + "| 100.0 % (1000 of 1000) |"), table);
        assertTrue(table.contains("| no agent | 2000 | 1980 | 2020 | 2.0 % | — | 2.00 | — | — | — |"), table);
    }

    @Test
    void parkTargets() {
        List<SuiteReport.Target> met = SuiteReport.parkTargets(parks(3000, "3000", 3000));
        assertEquals(1, met.size()); // no ring / jfr0 rows: only default vs JFR with stacks
        assertTrue(met.get(0).met() && met.get(0).resolved(), met.get(0).line());
        assertTrue(met.get(0).line().contains("margin 500.0 ns/park"), met.get(0).line());
        SuiteReport.Target missed = SuiteReport.parkTargets(parks(5000, "3000", 3000)).get(0);
        assertFalse(missed.met());
        assertTrue(missed.line().contains("**missed**") && missed.line().contains("over by 500.0"), missed.line());
        // 500 vs 505 ns/park, 10 ns per op apart with runs ±20 ns: not resolved
        SuiteReport.Target close = SuiteReport.parkTargets(parks(3000, "3000", 2505)).get(0);
        assertTrue(close.met());
        assertFalse(close.resolved(), close.line());
        // an agent that wrote no park records: never a verdict
        SuiteReport.Target none = SuiteReport.parkTargets(parks(2000, "0", 3000)).get(0);
        assertFalse(none.resolved());
        assertTrue(none.line().contains("not measured: this agent does not record parks"), none.line());
    }

    // --- chart -----------------------------------------------------------------------------------

    @Test
    void ticksAndRangeCoverTheData() {
        List<Double> t = Plot.ticks(0, 220);
        assertEquals(0.0, t.get(0));
        assertTrue(t.size() >= 3 && t.size() <= 9, t.toString());
        assertTrue(t.get(t.size() - 1) <= 220);
        double[] r = Plot.range(List.of(new Plot.Bar("a", -20, -30, 5, null), new Plot.Bar("b", 80, 70, 90, null)));
        assertTrue(r[0] < -20 && r[1] > 80, r[0] + ".." + r[1]);
    }

    @Test
    void renderDrawsEveryPanel() {
        Plot.Panel p = Plot.panel(pingPong(6000, 6400, 7000, 8000, 10000));
        assertEquals(4, p.bars().size());
        assertEquals(100 * 2000 / 6000.0, p.bars().get(2).median(), 1e-9);
        BufferedImage img = Plot.render("title", List.of(p, p, p));
        assertEquals(2 * Plot.PANEL_W + 20, img.getWidth());
        int coloured = 0;
        for (int x = 0; x < img.getWidth(); x += 2) {
            for (int y = 0; y < img.getHeight(); y += 2) {
                int rgb = img.getRGB(x, y) & 0xffffff;
                if (rgb == (Plot.color(SuiteConfig.JFR0S).getRGB() & 0xffffff)) {
                    coloured++;
                }
            }
        }
        assertTrue(coloured > 100, "JFR bars drawn: " + coloured);
    }

    // --- runner arguments ------------------------------------------------------------------------

    @Test
    void runnerArguments() {
        SuiteRunner.Options o = SuiteRunner.parse(new String[] {"--agent", "a.jar", "--lib", "l", "--quick",
                "--workloads", "h2,memory", "--configs", "none,default"});
        assertEquals(2, o.runs());
        assertEquals(List.of("h2", "memory"), o.workloads());
        assertFalse(SuiteRunner.DEFAULT_WORKLOADS.contains("h2cpus"), "tails only, on request");
        assertEquals(List.of("h2cpus"), SuiteRunner.parse(new String[] {"--agent", "a.jar", "--lib", "l",
                "--workloads", "h2cpus"}).workloads());
        assertFalse(o.timing());
        assertEquals(BenchmarkRunner.JVM_FLAGS, o.jvmFlags(), "the suite's flags by default");
        SuiteRunner.Options g1 = SuiteRunner.parse(new String[] {"--agent", "a.jar", "--lib", "l", "--timing",
                "--gc", "g1"});
        assertTrue(g1.timing());
        assertTrue(g1.jvmFlags().contains("-XX:+UseG1GC") && !g1.jvmFlags().contains("-XX:+UseSerialGC"),
                g1.jvmFlags().toString());
        assertEquals(BenchmarkRunner.JVM_FLAGS.size(), g1.jvmFlags().size());
        assertThrows(IllegalArgumentException.class,
                () -> SuiteRunner.parse(new String[] {"--agent", "a", "--lib", "l", "--gc", "zgc"}));
        assertTrue(SuiteConfig.TIMING.timed() && !SuiteConfig.DEFAULT.timed() && !SuiteConfig.JFR0S.timed());
        assertEquals(SuiteConfig.TIMING, SuiteConfig.byId("timing"));
        assertThrows(IllegalArgumentException.class, () -> SuiteRunner.parse(new String[] {"--lib", "l"}));
        assertThrows(IllegalArgumentException.class,
                () -> SuiteRunner.parse(new String[] {"--agent", "a", "--lib", "l", "--workloads", "x"}));
        assertThrows(IllegalArgumentException.class,
                () -> SuiteRunner.parse(new String[] {"--agent", "a", "--lib", "l", "--configs", "x"}));
        assertThrows(IllegalArgumentException.class,
                () -> SuiteRunner.parse(new String[] {"--agent", "a", "--lib", "l", "--runs", "0"}));
        for (String w : List.of("rlpingpong", "queuehandoff")) {
            SuiteRunner.Workload wl = SuiteRunner.workload(w, false, 5);
            assertTrue(wl.pinned() && wl.spec().perPark(), w);
            assertEquals(7, wl.runs(), w); // like the ping-pong: at least 7
            assertTrue(wl.configs().containsAll(List.of(SuiteConfig.NONE, SuiteConfig.DEFAULT, SuiteConfig.JFR0,
                    SuiteConfig.JFR0S, SuiteConfig.ASYNC)), w);
        }
        assertTrue(SuiteConfig.JFR0S.options().contains("jdk.ThreadPark#threshold=0ms"));
        assertEquals("jdk25", SuiteRunner.jdkTag("openjdk version \"25.0.3\" 2026-04-21 LTS"));
        assertEquals("jdk17", SuiteRunner.jdkTag("openjdk version \"17.0.15\" 2025-04-15"));
    }
}
