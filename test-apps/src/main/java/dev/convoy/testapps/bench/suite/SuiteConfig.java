package dev.convoy.testapps.bench.suite;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One configuration of the suite: which recorder, if any, the child JVM runs with.
 *
 * @param id      short name used on the command line ({@code --configs})
 * @param label   name in the tables and the plot
 * @param tool    which tool
 * @param options tool options: Convoy agent options, JFR {@code -XX:StartFlightRecording} options,
 *                or async-profiler agent options (without {@code file=})
 */
public record SuiteConfig(String id, String label, Tool tool, String options) {

    public enum Tool { NONE, FLOOR, CONVOY, JFR, ASYNC }

    /** In a Convoy option's value: a folder {@code repo} of the run's own folder, made for the run. */
    static final String RUN_DIR = "{run}";

    static final String JFR_T0 = "jdk.JavaMonitorEnter#threshold=0ms,jdk.JavaMonitorWait#threshold=0ms,"
            + "jdk.ThreadPark#threshold=0ms";
    static final String JFR_NO_STACKS = "jdk.JavaMonitorEnter#stackTrace=false,jdk.JavaMonitorWait#stackTrace=false,"
            + "jdk.ThreadPark#stackTrace=false";

    public static final SuiteConfig NONE = new SuiteConfig("none", "no agent", Tool.NONE, "");
    public static final SuiteConfig FLOOR = new SuiteConfig("floor", "JVMTI floor (bench.callbacks=empty)", Tool.FLOOR,
            "bench.callbacks=empty");
    public static final SuiteConfig RING = new SuiteConfig("ring", "Convoy ring only (stackdepth=0)", Tool.CONVOY,
            "stackdepth=0");
    /** Ring only without reading monitor owners from the JVM: the owner read's cost is ring less this. */
    public static final SuiteConfig RING_INFERRED = new SuiteConfig("ringinf", "Convoy ring only, owners=inferred",
            Tool.CONVOY, "stackdepth=0,owners=inferred");
    public static final SuiteConfig DEFAULT = new SuiteConfig("default", "Convoy default (stacks 64)", Tool.CONVOY, "");
    /** Convoy default with every stack taken by GetStackTrace (the capture before stacks=async). */
    public static final SuiteConfig JVMTI_STACKS = new SuiteConfig("jvmti", "Convoy default, stacks=jvmti",
            Tool.CONVOY, "stacks=jvmti");
    public static final SuiteConfig CONTAN = new SuiteConfig("contan", "Convoy default + contanalysis", Tool.CONVOY,
            "contanalysis=on");
    public static final SuiteConfig JFR = new SuiteConfig("jfr", "JFR default", Tool.JFR, "");
    public static final SuiteConfig JFR0 = new SuiteConfig("jfr0", "JFR threshold 0, no stacks", Tool.JFR,
            JFR_T0 + "," + JFR_NO_STACKS);
    public static final SuiteConfig JFR0S = new SuiteConfig("jfr0s", "JFR threshold 0, stacks", Tool.JFR, JFR_T0);
    public static final SuiteConfig ASYNC = new SuiteConfig("async", "async-profiler lock=0", Tool.ASYNC,
            "start,event=lock,lock=0");
    /**
     * Convoy default with the benchmark-only {@code bench.timing=on}: its snapshot at exit says where each
     * callback's time goes (CallbackTiming). Added to the workloads by {@code --timing}.
     */
    public static final SuiteConfig TIMING = new SuiteConfig("timing", "Convoy default, bench.timing=on", Tool.CONVOY,
            "bench.timing=on");
    /** {@link #JVMTI_STACKS} with bench.timing=on: where its callbacks' time goes, beside {@link #TIMING}. */
    public static final SuiteConfig TIMING_JVMTI = new SuiteConfig("timingjvmti", "Convoy stacks=jvmti, bench.timing=on",
            Tool.CONVOY, "stacks=jvmti,bench.timing=on");
    /** Convoy default with a small memory cap, for the memory workload. */
    public static final SuiteConfig CAP16 = new SuiteConfig("cap16", "Convoy default, memory=16m", Tool.CONVOY,
            "memory=16m");

    /** Virtual threads' start and end not recorded, without can_support_virtual_threads. */
    public static final SuiteConfig VT_OFF = new SuiteConfig("vtoff", "Convoy default, vthreadevents=off",
            Tool.CONVOY, "vthreadevents=off");
    /** can_support_virtual_threads added, VirtualThreadStart/End not enabled: the capability's own cost. */
    public static final SuiteConfig VT_CAP = new SuiteConfig("vtcap", "Convoy default, vthreadevents=off,bench.vtcapability=on",
            Tool.CONVOY, "vthreadevents=off,bench.vtcapability=on");

    /**
     * Exact releasers: Convoy starts a JFR recording that enables jdk.JavaMonitorEnter and writes
     * nothing (contended-enter workloads).
     */
    public static final SuiteConfig RELEASERS = new SuiteConfig("releasers", "Convoy default, releasers=jfr",
            Tool.CONVOY, "releasers=jfr");

    /** Convoy default with its history also written to disk, a repository in the run's folder. */
    public static final SuiteConfig DISK = new SuiteConfig("disk", "Convoy default, history on disk (repository)",
            Tool.CONVOY, "repository=" + RUN_DIR);

    /** Every begin event asks JVMTI for its object's tag: the id cache's saving. */
    public static final SuiteConfig ID_OFF = new SuiteConfig("idoff", "Convoy default, bench.idcache=off", Tool.CONVOY,
            "bench.idcache=off");

    /** Timing without the id cache: where its saving shows, stage by stage. */
    public static final SuiteConfig TIMING_ID_OFF = new SuiteConfig("timingidoff", "Convoy default, bench.timing=on, bench.idcache=off",
            Tool.CONVOY, "bench.timing=on,bench.idcache=off");

    /** Every stack walked again: the per-thread stack cache's saving. */
    public static final SuiteConfig STACK_CACHE_OFF = new SuiteConfig("scoff", "Convoy default, bench.stackcache=off",
            Tool.CONVOY, "bench.stackcache=off");

    /** Timing without the stack cache: where its saving shows, stage by stage. */
    public static final SuiteConfig TIMING_STACK_CACHE_OFF = new SuiteConfig("timingscoff",
            "Convoy default, bench.timing=on, bench.stackcache=off", Tool.CONVOY, "bench.timing=on,bench.stackcache=off");

    /** First sights make their weak reference in the callback: the held references' saving. */
    public static final SuiteConfig HELD_OFF = new SuiteConfig("heldoff", "Convoy default, bench.heldrefs=off", Tool.CONVOY,
            "bench.heldrefs=off");

    /** Timing without held references: where their saving shows, in the object-id stage and the tails. */
    public static final SuiteConfig TIMING_HELD_OFF = new SuiteConfig("timingheldoff",
            "Convoy default, bench.timing=on, bench.heldrefs=off", Tool.CONVOY, "bench.timing=on,bench.heldrefs=off");

    /** Without the owner's side of long blocks (on by default, ownerstacks=5ms): its cost when no block is long. */
    public static final SuiteConfig OWNER_OFF = new SuiteConfig("ownoff", "Convoy default, ownerstacks=off", Tool.CONVOY,
            "ownerstacks=off");

    /** The owner's side of every block over 1 ms (at most 20 samples a second): its cost when blocks are long. */
    public static final SuiteConfig OWNER_1MS = new SuiteConfig("own1ms", "Convoy default, ownerstacks=1ms",
            Tool.CONVOY, "ownerstacks=1ms");

    public static final List<SuiteConfig> ALL = List.of(NONE, FLOOR, RING, RING_INFERRED, DEFAULT, JVMTI_STACKS, CONTAN, JFR, JFR0, JFR0S, ASYNC,
            CAP16, VT_OFF, VT_CAP, TIMING, TIMING_JVMTI, RELEASERS, DISK, ID_OFF, TIMING_ID_OFF, STACK_CACHE_OFF,
            TIMING_STACK_CACHE_OFF, HELD_OFF, TIMING_HELD_OFF, OWNER_OFF, OWNER_1MS);

    /** Whether a run of this configuration dumps a snapshot whose callback timing the runner reads. */
    public boolean timed() {
        return tool == Tool.CONVOY && List.of(options.split(",")).contains("bench.timing=on");
    }

    public static SuiteConfig byId(String id) {
        for (SuiteConfig c : ALL) {
            if (c.id.equals(id)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown configuration '" + id + "'; known: " + ids(ALL));
    }

    public static String ids(List<SuiteConfig> cs) {
        List<String> s = new ArrayList<>();
        cs.forEach(c -> s.add(c.id));
        return String.join(",", s);
    }

    private static String repository(Path runDir) {
        Path repo = runDir.resolve("repo");
        try {
            java.nio.file.Files.createDirectories(repo);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot make " + repo, e);
        }
        return repo.toString();
    }

    /** Where the tools are: the Convoy agent jar and async-profiler's native library. */
    public record Tools(Path agentJar, Path asyncProfilerLib) {
    }

    /**
     * The JVM arguments of this configuration for a run whose files go into {@code runDir}.
     * With {@code record}, each tool writes what it captured there: Convoy {@code convoy.cvysnap}
     * (dump at exit), JFR {@code run.jfr}, async-profiler {@code async.collapsed}.
     */
    public List<String> jvmArgs(Tools tools, Path runDir, boolean record) {
        List<String> a = new ArrayList<>();
        switch (tool) {
            case NONE -> {
            }
            case FLOOR -> a.add("-javaagent:" + tools.agentJar() + "=" + options);
            case CONVOY -> {
                Map<String, String> o = new LinkedHashMap<>();
                for (String kv : options.split(",")) {
                    if (!kv.isEmpty()) {
                        int eq = kv.indexOf('=');
                        o.put(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                }
                o.replaceAll((k, v) -> v.equals(RUN_DIR) ? repository(runDir) : v);
                o.put("dumpdir", runDir.toString());
                if (record) {
                    o.put("dumponexit", "snapshot");
                    o.put("dumpname", "convoy");
                }
                List<String> parts = new ArrayList<>();
                o.forEach((k, v) -> parts.add(k + "=" + v));
                a.add("-javaagent:" + tools.agentJar() + "=" + String.join(",", parts));
            }
            case JFR -> {
                String file = "filename=" + runDir.resolve("run.jfr");
                a.add("-XX:StartFlightRecording:" + (options.isEmpty() ? file : file + "," + options));
                a.add("-Xlog:jfr+startup=warning");
            }
            case ASYNC -> {
                if (tools.asyncProfilerLib() == null) {
                    throw new IllegalStateException("async-profiler's library is not available");
                }
                a.add("-agentpath:" + tools.asyncProfilerLib() + "=" + options + ",file="
                        + runDir.resolve("async.collapsed"));
            }
            default -> throw new IllegalStateException();
        }
        a.add("-Dconvoy.bench.dir=" + runDir);
        return a;
    }

    /** Options as shown in the tables. */
    public String optionsText() {
        return switch (tool) {
            case NONE -> "—";
            case FLOOR, CONVOY -> options.isEmpty() ? "(defaults)" : "`" + options + "`";
            case JFR -> options.isEmpty() ? "`-XX:StartFlightRecording`" : "`-XX:StartFlightRecording:"
                    + options.replace("jdk.", "").replace(",", ", ") + "`";
            case ASYNC -> "`-agentpath:libasyncProfiler.so=" + options + "`";
        };
    }
}
