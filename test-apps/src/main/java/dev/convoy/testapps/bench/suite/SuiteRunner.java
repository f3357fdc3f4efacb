package dev.convoy.testapps.bench.suite;

import dev.convoy.testapps.bench.BenchArgs;
import dev.convoy.testapps.bench.BenchmarkRunner;
import dev.convoy.testapps.bench.CallbackTiming;
import dev.convoy.testapps.bench.SafepointLog;
import dev.convoy.testapps.bench.ChildProcess;
import dev.convoy.testapps.bench.Markers;
import dev.convoy.testapps.bench.PingPong;
import dev.convoy.testapps.bench.PingPongLine;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The benchmark suite: every workload under every configuration, side by side, each run in a
 * fresh JVM, runs interleaved (run 1 of every configuration, then run 2, ...), medians and spread;
 * writes a Markdown section (between markers) and a PNG chart.
 *
 * <pre>
 * java -cp test-apps/target/classes dev.convoy.testapps.bench.suite.SuiteRunner \
 *     --agent recorder-mbean/target/convoy-agent.jar --lib test-apps/target/bench-lib \
 *     [--java PATH] [--runs 5] [--workloads pingpong,rlpingpong,queuehandoff,contended,handoff,churn,vchurn,h2,h2cpus,h2ab,snapshot,memory]
 *     [--configs none,floor,...] [--quick] [--out docs/bench/suite-jdk17.md] [--marker suite-jdk17]
 *     [--plot docs/bench/suite-jdk17.png] [--work test-apps/target/bench-suite] [--keep]
 *     [--timing] [--gc serial|parallel|g1]
 * </pre>
 *
 * {@code --timing} adds the configuration {@code timing} (Convoy default with the benchmark-only
 * {@code bench.timing=on}) to every workload but h2ab, snapshot and memory; each of its runs dumps a
 * snapshot, and the section gives, per workload, where each callback's time goes over all its runs
 * (dev.convoy.testapps.bench.CallbackTiming). {@code --gc} replaces {@code -XX:+UseSerialGC} in every
 * child's flags (to see what another collector's pauses do to the callbacks).
 *
 * {@code ./convoy bench suite} without arguments passes {@code --out docs/bench/suite-jdkNN.md
 * --plot docs/bench/suite-jdkNN.png --marker suite-jdkNN} (NN: the JVM's feature version).
 *
 * {@code --lib} holds the benchmark-only third-party files: the H2 jar and async-profiler's
 * {@code libasyncProfiler.so} (./convoy bench suite puts them there).
 */
public final class SuiteRunner {

    static final List<String> JVM_FLAGS = BenchmarkRunner.JVM_FLAGS;
    static final long CHILD_TIMEOUT_MINUTES = 5;

    /** A workload of the suite: how to run it and how to read it. */
    record Workload(Measurements.Spec spec, String mainClass, List<String> args, List<SuiteConfig> configs,
                    int runs, boolean pinned, List<String> extraFlags) {
    }

    record Options(Path agent, String java, Path lib, int runs, List<String> workloads, List<String> configs,
                   boolean quick, Path out, String marker, Path plot, Path work, boolean keep, boolean timing,
                   List<String> jvmFlags) {
    }

    /** Workloads that --timing leaves alone: their own configuration lists measure other things. */
    static final List<String> UNTIMED_WORKLOADS = List.of("h2ab", "snapshot", "memory");
    static final Map<String, String> GC_FLAGS = Map.of("serial", "-XX:+UseSerialGC", "parallel", "-XX:+UseParallelGC",
            "g1", "-XX:+UseG1GC");

    static final List<String> WORKLOADS = List.of("pingpong", "rlpingpong", "queuehandoff", "contended", "handoff",
            "churn", "vchurn", "h2", "h2cpus", "h2ab", "snapshot", "memory");
    /** Without --workloads: all but h2cpus, which is h2 with fewer clients, for callback tails (--timing). */
    static final List<String> DEFAULT_WORKLOADS = WORKLOADS.stream().filter(w -> !w.equals("h2cpus")).toList();
    /** h2cpus runs one H2 client per CPU: no more runnable clients than CPUs. */
    static final int CPUS = Runtime.getRuntime().availableProcessors();
    static final List<String> MEMORY_PHASES = List.of("start", "p0", "p1", "p2", "churn");

    /** The options that take a value ({@code ./convoy bench suite} declares them for the user, but --agent, --lib, --work). */
    public static final List<String> OPTIONS = List.of("--agent", "--java", "--lib", "--runs", "--workloads",
            "--configs", "--out", "--marker", "--plot", "--work", "--gc");
    /** The flags. */
    public static final List<String> FLAGS = List.of("--quick", "--keep", "--timing");

    private SuiteRunner() {
    }

    /**
     * Runs the suite; with {@code --check-args} first, only checks the arguments that follow (exit 0,
     * or 2 with the usage), so that {@code ./convoy bench suite} refuses bad ones before it fetches
     * the benchmark-only artifacts.
     */
    public static void main(String[] argv) {
        boolean checkOnly = argv.length > 0 && argv[0].equals("--check-args");
        String[] args = checkOnly ? java.util.Arrays.copyOfRange(argv, 1, argv.length) : argv;
        Options o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("usage: ./convoy bench suite --help");
            System.exit(2);
            return;
        }
        if (checkOnly) {
            return;
        }
        try {
            run(o, args);
        } catch (Exception e) {
            System.err.println("suite failed: " + e);
            e.printStackTrace();
            System.exit(1);
        }
    }

    static Options parse(String[] args) {
        BenchArgs a = BenchArgs.parse(args, OPTIONS, FLAGS);
        boolean quick = a.flag("--quick");
        a.required("--agent", "JAR");
        a.required("--lib", "DIR (H2 jar and libasyncProfiler.so)");
        List<String> workloads = List.of(a.get("--workloads", String.join(",", DEFAULT_WORKLOADS)).split(","));
        for (String w : workloads) {
            if (!WORKLOADS.contains(w)) {
                throw new IllegalArgumentException("unknown workload '" + w + "'; known: " + String.join(",", WORKLOADS));
            }
        }
        List<String> configs = a.get("--configs") != null ? List.of(a.get("--configs").split(",")) : List.of();
        String gc = a.get("--gc", "serial");
        if (!GC_FLAGS.containsKey(gc)) {
            throw new IllegalArgumentException("--gc must be serial, parallel or g1, got '" + gc + "'");
        }
        List<String> jvmFlags = new ArrayList<>();
        for (String f : JVM_FLAGS) {
            jvmFlags.add(f.equals("-XX:+UseSerialGC") ? GC_FLAGS.get(gc) : f);
        }
        configs.forEach(SuiteConfig::byId);
        int runs = a.intArg("--runs", quick ? 2 : 5, 1);
        String marker = a.get("--marker");
        if (marker != null && !marker.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("--marker must be letters, digits, '.', '_' or '-'");
        }
        return new Options(Paths.get(a.get("--agent")),
                a.get("--java", Paths.get(System.getProperty("java.home"), "bin", "java").toString()),
                Paths.get(a.get("--lib")), runs, workloads, configs, quick,
                a.get("--out") != null ? Paths.get(a.get("--out")) : null, marker,
                a.get("--plot") != null ? Paths.get(a.get("--plot")) : null,
                Paths.get(a.get("--work", "test-apps/target/bench-suite")), a.flag("--keep"), a.flag("--timing"),
                List.copyOf(jvmFlags));
    }

    /**
     * The configurations of the park workloads: JFR with jdk.ThreadPark at threshold 0 is
     * {@code jfr0} (no stacks) and {@code jfr0s} (stacks); async-profiler's lock mode hooks
     * Unsafe.park. Contention analysis adds nothing to parks and is left out.
     */
    static final List<SuiteConfig> PARK_CONFIGS = List.of(SuiteConfig.NONE, SuiteConfig.FLOOR, SuiteConfig.RING,
            SuiteConfig.DEFAULT, SuiteConfig.ID_OFF, SuiteConfig.STACK_CACHE_OFF, SuiteConfig.JVMTI_STACKS, SuiteConfig.JFR,
            SuiteConfig.JFR0, SuiteConfig.JFR0S, SuiteConfig.ASYNC);

    /**
     * A workload's configurations and, after Convoy's default, the owner's side off and at 1 ms,
     * the history also on disk, and exact releasers (Convoy's own JFR recording).
     */
    static List<SuiteConfig> withOwnerSide(List<SuiteConfig> configs) {
        List<SuiteConfig> out = new ArrayList<>(configs);
        out.addAll(out.indexOf(SuiteConfig.DEFAULT) + 1, List.of(SuiteConfig.OWNER_OFF, SuiteConfig.OWNER_1MS,
                SuiteConfig.DISK, SuiteConfig.RELEASERS));
        return List.copyOf(out);
    }

    /** The workloads with their sizes (smaller with --quick) and configurations. */
    static Workload workload(String id, boolean quick, int runs) {
        List<SuiteConfig> standard = List.of(SuiteConfig.NONE, SuiteConfig.FLOOR, SuiteConfig.RING, SuiteConfig.DEFAULT,
                SuiteConfig.ID_OFF, SuiteConfig.STACK_CACHE_OFF, SuiteConfig.JVMTI_STACKS, SuiteConfig.CONTAN, SuiteConfig.JFR,
                SuiteConfig.JFR0, SuiteConfig.JFR0S, SuiteConfig.ASYNC);
        // Contended enters: also ring only without the owner read, for its cost per enter,
        // releasers read from the VM under Convoy's own JFR recording (releasers=jfr), for its cost, and the owner's
        // side of long blocks off (ownoff) and at its lowest threshold (own1ms).
        List<SuiteConfig> enters = List.of(SuiteConfig.NONE, SuiteConfig.FLOOR, SuiteConfig.RING,
                SuiteConfig.RING_INFERRED, SuiteConfig.DEFAULT, SuiteConfig.OWNER_OFF, SuiteConfig.OWNER_1MS,
                SuiteConfig.RELEASERS, SuiteConfig.STACK_CACHE_OFF,
                SuiteConfig.JVMTI_STACKS,
                SuiteConfig.CONTAN, SuiteConfig.JFR, SuiteConfig.JFR0, SuiteConfig.JFR0S, SuiteConfig.ASYNC);
        String w = Workloads.class.getName();
        return switch (id) {
            case "pingpong" -> new Workload(new Measurements.Spec(id, "Ping-pong (wait/notify, 1 CPU)",
                    "ns_per_roundtrip", "ns/round trip", false, PingPong.EVENTS_PER_ROUNDTRIP, false),
                    PingPong.class.getName(), List.of("--roundtrips", quick ? "30000" : "200000", "--warmup",
                    quick ? "10000" : "50000"), standard, Math.max(runs, quick ? runs : 7), true, List.of());
            case "rlpingpong" -> new Workload(new Measurements.Spec(id,
                    "ReentrantLock ping-pong (lock + conditions, parks, 1 CPU)", "ns_per_roundtrip", "ns/round trip",
                    false, 0, false, true), w, List.of("rlpingpong", "roundtrips=" + (quick ? 30000 : 200000),
                    "warmup=" + (quick ? 10000 : 50000)), PARK_CONFIGS, Math.max(runs, quick ? runs : 7), true,
                    List.of());
            case "queuehandoff" -> new Workload(new Measurements.Spec(id,
                    "Queue hand-off (ArrayBlockingQueue of 1, parks, 1 CPU)", "ns_per_handoff", "ns/hand-off", false, 0,
                    false, true), w, List.of("queuehandoff", "queue=abq", "items=" + (quick ? 30000 : 200000),
                    "warmup=" + (quick ? 10000 : 50000)), PARK_CONFIGS, Math.max(runs, quick ? runs : 7), true,
                    List.of());
            case "contended" -> new Workload(new Measurements.Spec(id, "Contended synchronized (4 threads)",
                    "ns_per_op", "ns/op", false, 0, true), w,
                    List.of("contended", "threads=4", "iterations=" + (quick ? 20000 : 100000), "work=16", "yield=1"), enters, runs, false,
                    List.of());
            case "handoff" -> new Workload(new Measurements.Spec(id, "Hand-off chain",
                    "us_per_handoff", "µs/hand-off", false, 0, true), w,
                    List.of("handoff", "threads=20", "rounds=" + (quick ? 3 : 15)), enters, runs, false, List.of());
            case "churn" -> new Workload(new Measurements.Spec(id, "Thread churn (start+join)",
                    "us_per_thread", "µs/thread", false, 0, false), w,
                    List.of("churn", "threads=" + (quick ? 2000 : 8000)), standard, runs, false, List.of());
            case "vchurn" -> new Workload(new Measurements.Spec(id, "Virtual-thread churn (JDK 21+), JVM CPU time",
                    "cpu_us_per_thread", "CPU µs/thread", false, 0, false), w,
                    List.of("vchurn", "threads=" + (quick ? 20000 : 100000), "batch=100"),
                    List.of(SuiteConfig.NONE, SuiteConfig.FLOOR, SuiteConfig.VT_OFF, SuiteConfig.VT_CAP,
                            SuiteConfig.DEFAULT, SuiteConfig.JFR, SuiteConfig.JFR0S),
                    runs, false, List.of());
            case "h2" -> h2(id, "H2 database, 8 JDBC clients", 8, w, quick, withOwnerSide(standard), runs);
            case "h2cpus" -> h2(id, "H2 database, one JDBC client per CPU (" + CPUS + ")", CPUS, w, quick, standard,
                    runs);
            case "h2ab" -> new Workload(new Measurements.Spec(id,
                    "H2, recording switched on and off inside one JVM (paired phases)", "overhead_pct", "%", false, 0,
                    false), w, List.of("h2ab", "clients=8", "warmup=" + (quick ? 1 : 3), "pairs=" + (quick ? 6 : 30),
                    "phase=" + (quick ? 200 : 400)),
                    List.of(SuiteConfig.NONE, SuiteConfig.RING, SuiteConfig.DEFAULT, SuiteConfig.STACK_CACHE_OFF,
                            SuiteConfig.JVMTI_STACKS, SuiteConfig.CONTAN, SuiteConfig.DISK),
                    Math.min(runs, 3), false, List.of());
            case "snapshot" -> new Workload(new Measurements.Spec(id, "Snapshot under load", "ops", "", false, 0, false),
                    w, List.of("snapshot", "seconds=" + (quick ? 3 : 8), "interval=150"),
                    List.of(SuiteConfig.NONE, SuiteConfig.RING, SuiteConfig.DEFAULT, SuiteConfig.JFR0S),
                    Math.min(runs, 3), false, List.of("-Xlog:safepoint:file=safepoints.log:tn"));
            case "memory" -> new Workload(new Measurements.Spec(id, "Memory", "rss_kb_churn", "", false, 0, false),
                    w, List.of("memory", "phases=" + (quick ? "16,64,128" : "64,256,1024")),
                    List.of(SuiteConfig.NONE, SuiteConfig.DEFAULT, SuiteConfig.CAP16, SuiteConfig.JFR0S),
                    Math.min(runs, 2), false, List.of("-XX:+AlwaysPreTouch"));
            default -> throw new IllegalArgumentException(id);
        };
    }

    /**
     * H2 driven by {@code clients} JDBC clients, throughput measured (h2, h2cpus). With the
     * standard configurations and held references off: H2 makes new lock objects all the time,
     * and each first sight is where they matter.
     */
    private static Workload h2(String id, String title, int clients, String mainClass, boolean quick,
                               List<SuiteConfig> standard, int runs) {
        List<SuiteConfig> configs = new ArrayList<>(standard);
        configs.add(configs.indexOf(SuiteConfig.STACK_CACHE_OFF) + 1, SuiteConfig.HELD_OFF);
        return new Workload(new Measurements.Spec(id, title, "ops_per_s", "ops/s", true, 0, false), mainClass,
                List.of("h2", "clients=" + clients, "warmup=" + (quick ? 1 : 2), "seconds=" + (quick ? 2 : 4)),
                configs, runs, false, List.of());
    }

    private static void run(Options o, String[] args) throws Exception {
        if (!Files.isRegularFile(o.agent())) {
            throw new IOException("agent jar not found: " + o.agent());
        }
        Path asyncLib = extractAsyncProfiler(o.lib());
        SuiteConfig.Tools tools = new SuiteConfig.Tools(o.agent().toAbsolutePath(),
                Files.isRegularFile(asyncLib) ? asyncLib.toAbsolutePath() : null);
        String classpath = childClasspath(System.getProperty("java.class.path"), o.lib());
        String jdk = versionText(exec(List.of(o.java(), "-version"), null).lines());
        String tag = jdkTag(jdk);
        List<String> pin = pinning(o.java());
        Files.createDirectories(o.work());
        System.err.println("JDK: " + jdk + "\nchild classpath: " + classpath);
        List<Measurements> all = new ArrayList<>();
        CallbackTiming.Collector timings = new CallbackTiming.Collector();
        // The callback tails' floor on this machine (MachineStalls): one second before each timed
        // H2 run, so that it follows the machine through the suite.
        MachineStalls stalls = null;
        long t0 = System.nanoTime();
        for (String id : o.workloads()) {
            if (id.equals("vchurn") && jdkFeature(jdk) < 21) {
                System.err.println("note: " + tag + " has no virtual threads (JDK 21 and later): vchurn skipped");
                continue;
            }
            Workload wl = workload(id, o.quick(), o.runs());
            List<SuiteConfig> configs = new ArrayList<>(wl.configs());
            if (o.timing() && !UNTIMED_WORKLOADS.contains(id)) {
                configs.add(configs.contains(SuiteConfig.DEFAULT) ? configs.indexOf(SuiteConfig.DEFAULT) + 1
                        : configs.size(), SuiteConfig.TIMING);
                if (configs.contains(SuiteConfig.JVMTI_STACKS)) {
                    configs.add(configs.indexOf(SuiteConfig.JVMTI_STACKS) + 1, SuiteConfig.TIMING_JVMTI);
                }
                if (configs.contains(SuiteConfig.STACK_CACHE_OFF)) {
                    configs.add(configs.indexOf(SuiteConfig.STACK_CACHE_OFF) + 1, SuiteConfig.TIMING_STACK_CACHE_OFF);
                }
                if (configs.contains(SuiteConfig.ID_OFF)) {
                    configs.add(configs.indexOf(SuiteConfig.ID_OFF) + 1, SuiteConfig.TIMING_ID_OFF);
                }
                if (configs.contains(SuiteConfig.HELD_OFF)) {
                    configs.add(configs.indexOf(SuiteConfig.HELD_OFF) + 1, SuiteConfig.TIMING_HELD_OFF);
                }
            }
            if (!o.configs().isEmpty()) {
                configs.removeIf(c -> !o.configs().contains(c.id()));
            }
            if (tools.asyncProfilerLib() == null && configs.remove(SuiteConfig.ASYNC)) {
                System.err.println("note: " + asyncLib + " not found; async-profiler left out");
            }
            Measurements m = new Measurements(wl.spec(), configs);
            for (int r = 1; r <= wl.runs(); r++) {
                for (SuiteConfig c : configs) {
                    Path runDir = o.work().resolve(tag + "-" + id + "-" + c.id() + "-" + r).toAbsolutePath();
                    deleteTree(runDir);
                    Files.createDirectories(runDir);
                    if (c.timed() && SuiteReport.isH2(id)) {
                        MachineStalls now = MachineStalls.measure(CPUS, 1);
                        stalls = stalls == null ? now : stalls.plus(now);
                    }
                    Map<String, String> res = runOne(o, wl, c, tools, classpath, pin, runDir);
                    m.add(c, res);
                    if (c.timed()) {
                        Path snap = runDir.resolve("convoy.cvysnap");
                        timings.add(timingKey(id, c), CallbackTiming.read(tools.agentJar(), snap).orElseThrow(
                                () -> new IOException(snap + " holds no callback timing"))
                                .withSafepoints(SafepointLog.read(runDir.resolve(SafepointLog.FILE))));
                    }
                    System.err.printf("%-9s run %d/%d  %-34s %s%n", id, r, wl.runs(), c.label(),
                            res.getOrDefault(wl.spec().metric(), "?")
                                    + (res.containsKey(Measurements.PARKS_PER_OP) ? "  parks/op "
                                    + res.get(Measurements.PARKS_PER_OP) : "")
                                    + (res.containsKey(Measurements.CAPTURED_PARKS) ? "  parks in output "
                                    + res.get(Measurements.CAPTURED_PARKS) + " of " + res.get("parks_total") : "")
                                    + (res.containsKey("captured") ? "  captured " + res.get("captured") + " of "
                                    + res.get("truth_enter") : ""));
                    if (!o.keep()) {
                        deleteTree(runDir);
                    }
                }
            }
            all.add(m);
        }
        double minutes = (System.nanoTime() - t0) / 60e9;
        Path rawFile = o.work().resolve("results-" + tag + ".txt");
        List<String> raw = new ArrayList<>();
        for (Measurements m : all) {
            for (SuiteConfig c : m.configs()) {
                for (Map<String, String> r : m.runs(c)) {
                    raw.add(m.spec().id() + "\t" + c.id() + "\t" + r);
                }
            }
        }
        Files.write(rawFile, raw, StandardCharsets.UTF_8);
        System.err.println("every field of every run: " + rawFile);
        String date = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
        Path plot = o.plot();
        if (plot != null) {
            List<Plot.Panel> panels = new ArrayList<>();
            for (Measurements m : all) {
                if (!List.of("snapshot", "memory", "h2ab").contains(m.spec().id())) {
                    panels.add(Plot.panel(m));
                }
            }
            if (!panels.isEmpty()) {
                Files.createDirectories(plot.toAbsolutePath().getParent());
                Plot.write(plot, "Convoy vs JFR vs async-profiler: overhead vs no agent, " + tag + " (" + date + ")",
                        panels);
                System.err.println("wrote " + plot);
            }
        }
        String section = section(all, timings.merged(), stalls, o.jvmFlags(), date, jdk, recordedArguments(args, Path.of("").toAbsolutePath()), minutes, plot,
                pin.isEmpty() ? "none" : String.join(" ", pin));
        System.out.println(section);
        if (o.out() != null) {
            String marker = o.marker() != null ? o.marker() : "suite-" + tag;
            String doc = Files.exists(o.out()) ? Files.readString(o.out(), StandardCharsets.UTF_8) : "";
            Files.writeString(o.out(), Markers.replace(doc, marker, section), StandardCharsets.UTF_8);
            System.err.println("updated " + o.out() + " between " + Markers.begin(marker) + " and " + Markers.end(marker));
        }
    }

    /** Each timed configuration's callback timing is kept apart: the workload's id, then /config but for timing. */
    static String timingKey(String workload, SuiteConfig c) {
        return c.equals(SuiteConfig.TIMING) ? workload : workload + "/" + c.id();
    }

    static String section(List<Measurements> all, Map<String, CallbackTiming> timings, MachineStalls stalls,
                          List<String> jvmFlags, String date, String jdk, String args, double minutes, Path plot,
                          String pin) {
        StringBuilder sb = new StringBuilder();
        sb.append("- Date: ").append(date).append("; JDK: ").append(jdk).append('\n');
        sb.append("- Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" CPUs, ")
                .append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.arch")).append('\n');
        sb.append("- Every run a fresh JVM with `").append(String.join(" ", jvmFlags))
                .append("`; runs interleaved (run 1 of every configuration, then run 2, ...); ping-pong workloads (pingpong, rlpingpong, queuehandoff) pinned with `")
                .append(pin).append("`; took ").append(String.format(java.util.Locale.ROOT, "%.1f", minutes))
                .append(" min\n");
        sb.append("- Arguments: `").append(args).append("`\n");
        if (stalls != null) {
            sb.append("- Machine stalls, one second before each timed H2 run: ").append(stalls.summary()).append('\n');
        }
        if (plot != null) {
            sb.append("\n![overhead chart](").append(plot.getFileName()).append(")\n");
        }
        List<SuiteReport.Target> targets = new ArrayList<>();
        StringBuilder raw = new StringBuilder();
        for (Measurements m : all) {
            String id = m.spec().id();
            int n = m.configs().isEmpty() ? 0 : m.runs(m.configs().get(0)).size();
            sb.append("\n**").append(m.spec().title()).append("** (").append(n).append(" runs per configuration)\n\n");
            switch (id) {
                case "snapshot" -> {
                    sb.append(SuiteReport.snapshotTable(m));
                    targets.addAll(SuiteReport.snapshotTargets(m));
                }
                case "h2ab" -> {
                    sb.append(SuiteReport.pairedTable(m));
                    targets.addAll(SuiteReport.pairedTargets(m));
                }
                case "memory" -> {
                    sb.append(SuiteReport.memoryTable(m, MEMORY_PHASES));
                    targets.addAll(SuiteReport.memoryTargets(m, MEMORY_PHASES));
                }
                default -> {
                    sb.append(SuiteReport.table(m));
                    if (id.equals("pingpong")) {
                        targets.addAll(SuiteReport.pingPongTargets(m));
                    }
                    if (SuiteReport.isH2(id)) {
                        targets.addAll(SuiteReport.h2Targets(m));
                    }
                    if (m.spec().perPark()) {
                        targets.addAll(SuiteReport.parkTargets(m));
                    }
                }
            }
            for (SuiteConfig c : m.configs()) {
                CallbackTiming t = c.timed() ? timings.get(timingKey(id, c)) : null;
                if (t != null) {
                    sb.append('\n').append(t.section("Where a callback's time goes (" + c.label() + "), "
                            + m.spec().title())).append('\n').append(BenchmarkRunner.TIMING_NOTE);
                    if (SuiteReport.isH2(id)) {
                        targets.addAll(SuiteReport.tailTargets(m.spec().title() + ", " + c.label(), t, stalls));
                    }
                }
            }
            raw.append("- ").append(id).append(":\n");
            for (SuiteConfig c : m.configs()) {
                raw.append("  - ").append(c.id()).append(": ");
                List<String> vs = new ArrayList<>();
                for (Map<String, String> r : m.runs(c)) {
                    vs.add(r.getOrDefault(m.spec().metric(), "?")
                            + (r.containsKey(Measurements.PARKS_PER_OP) ? " (" + r.get(Measurements.PARKS_PER_OP)
                            + " parks/op" + (r.containsKey(Measurements.CAPTURED_PARKS) ? ", "
                            + r.get(Measurements.CAPTURED_PARKS) + "/" + r.get("parks_total") + " in output" : "")
                            + ")" : "") + (r.containsKey("captured")
                            ? " [" + r.get("captured") + "/" + r.get("truth_enter") + "]" : ""));
                }
                raw.append(String.join(", ", vs)).append('\n');
            }
        }
        if (!targets.isEmpty()) {
            sb.append("\n**Targets (computed by the harness)**\n\n");
            targets.forEach(t -> sb.append(t.line()).append('\n'));
        }
        sb.append("\n<details><summary>Every run, main figure in run order ([captured/ground truth])</summary>\n\n");
        sb.append(raw);
        sb.append("\n</details>\n");
        return sb.toString();
    }

    private static Map<String, String> runOne(Options o, Workload wl, SuiteConfig c, SuiteConfig.Tools tools,
                                              String classpath, List<String> pin, Path runDir) throws Exception {
        List<String> cmd = new ArrayList<>(wl.pinned() ? pin : List.of());
        cmd.add(o.java());
        cmd.addAll(o.jvmFlags());
        cmd.addAll(wl.extraFlags());
        cmd.addAll(c.jvmArgs(tools, runDir, wl.spec().fidelity() || wl.spec().perPark() || c.timed()));
        if (c.timed() && wl.extraFlags().stream().noneMatch(f -> f.startsWith("-Xlog:safepoint"))) {
            cmd.add(SafepointLog.JVM_FLAG); // into runDir: ties the slowest callbacks to safepoints
        }
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(wl.mainClass());
        cmd.addAll(wl.args());
        ChildProcess.Output out = exec(cmd, runDir.toFile());
        Files.write(runDir.resolve("output.txt"), out.lines(), StandardCharsets.UTF_8);
        if (out.exitCode() != 0) {
            throw new IOException(c.label() + " on " + wl.spec().id() + " exited with " + out.exitCode() + ": "
                    + String.join(" ", cmd) + "\n" + String.join("\n", out.lines()));
        }
        Map<String, String> res;
        if (wl.mainClass().equals(PingPong.class.getName())) {
            PingPongLine l = PingPongLine.find(out.lines()).orElseThrow(() -> new IOException(
                    "no PINGPONG line: " + String.join("\n", out.lines())));
            res = new LinkedHashMap<>();
            res.put("ns_per_roundtrip", Double.toString(l.nsPerRoundtrip()));
        } else {
            res = new LinkedHashMap<>(ResultLine.find(out.lines()).orElseThrow(() -> new IOException(
                    "no SUITE line from " + c.label() + ": " + String.join("\n", out.lines()))));
        }
        if (wl.spec().fidelity()) {
            String lock = res.get("lock");
            Long captured = switch (c.tool()) {
                case CONVOY -> Captures.convoyEnters(tools.agentJar(), runDir.resolve("convoy.cvysnap"), lock);
                case JFR -> Captures.jfrEnters(runDir.resolve("run.jfr"), lock);
                case ASYNC -> Captures.collapsedEnters(runDir.resolve("async.collapsed"), lock);
                default -> null;
            };
            if (captured != null) {
                res.put("captured", Long.toString(captured));
            }
        }
        if (wl.spec().perPark()) {
            Long captured = switch (c.tool()) {
                case CONVOY -> Captures.convoyParks(tools.agentJar(), runDir.resolve("convoy.cvysnap"));
                case JFR -> Captures.jfrParks(runDir.resolve("run.jfr"));
                case ASYNC -> Captures.collapsedSamples(Files.readAllLines(runDir.resolve("async.collapsed"),
                        StandardCharsets.UTF_8));
                default -> null;
            };
            if (captured != null) {
                res.put(Measurements.CAPTURED_PARKS, Long.toString(captured));
            }
        }
        return res;
    }

    /**
     * The arguments as the results record them: a path inside {@code root} (the directory the
     * suite runs in, the repository's root under {@code ./convoy}) relative to it, so that the
     * results name files of the repository, not of the machine they ran on.
     */
    static String recordedArguments(String[] args, Path root) {
        List<String> out = new ArrayList<>();
        for (String a : args) {
            Path p = a.startsWith("/") ? Path.of(a).normalize() : null;
            out.add(p != null && p.startsWith(root) && !p.equals(root) ? root.relativize(p).toString() : a);
        }
        return String.join(" ", out);
    }

    /**
     * The child's classpath: this runner's own ({@code own}), plus every jar of the lib directory,
     * every entry absolute: each child runs in its own run directory.
     */
    static String childClasspath(String own, Path lib) throws IOException {
        List<String> cp = new ArrayList<>();
        for (String e : own.split(File.pathSeparator)) {
            if (!e.isEmpty()) {
                cp.add(Path.of(e).toAbsolutePath().normalize().toString());
            }
        }
        if (Files.isDirectory(lib)) {
            try (Stream<Path> s = Files.list(lib)) {
                s.filter(p -> p.toString().endsWith(".jar") && !p.getFileName().toString().startsWith("async-profiler"))
                        .sorted()
                        .forEach(p -> cp.add(p.toAbsolutePath().toString()));
            }
        }
        return String.join(File.pathSeparator, cp);
    }

    /**
     * async-profiler's Linux x64 library, taken out of the {@code tools.profiler:async-profiler} jar
     * in {@code lib} (it bundles {@code linux-x64/libasyncProfiler.so}); returns where it is.
     */
    static Path extractAsyncProfiler(Path lib) throws IOException {
        Path so = lib.resolve("libasyncProfiler.so");
        if (Files.isRegularFile(so) || !Files.isDirectory(lib)) {
            return so;
        }
        List<Path> jars;
        try (Stream<Path> s = Files.list(lib)) {
            jars = s.filter(p -> p.getFileName().toString().matches("async-profiler-.*\\.jar")).toList();
        }
        for (Path jar : jars) {
            try (java.util.zip.ZipFile z = new java.util.zip.ZipFile(jar.toFile())) {
                java.util.zip.ZipEntry e = z.getEntry("linux-x64/libasyncProfiler.so");
                if (e != null) {
                    try (java.io.InputStream in = z.getInputStream(e)) {
                        Files.copy(in, so);
                    }
                    return so;
                }
            }
        }
        return so;
    }

    /** {@code taskset -c 0} if it works, else nothing. */
    private static List<String> pinning(String java) {
        try {
            ChildProcess.Output r = exec(List.of("taskset", "-c", "0", java, "-version"), null);
            if (r.exitCode() == 0) {
                return List.of("taskset", "-c", "0");
            }
        } catch (IOException | InterruptedException ignored) {
            // no taskset
        }
        System.err.println("note: taskset -c 0 does not work here; the ping-pong runs unpinned");
        return List.of();
    }

    /** "jdk17", "jdk25", ... from the version text. */
    static int jdkFeature(String version) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("version \"(\\d+)").matcher(version);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    static String jdkTag(String version) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("version \"(\\d+)").matcher(version);
        return m.find() ? "jdk" + m.group(1) : "jdk";
    }

    static String versionText(List<String> lines) {
        List<String> kept = new ArrayList<>();
        for (String l : lines) {
            if (!l.isBlank() && !l.startsWith("Picked up ")) {
                kept.add(l.trim());
            }
        }
        return String.join("; ", kept.subList(0, Math.min(2, kept.size())));
    }

    static ChildProcess.Output exec(List<String> cmd, File dir) throws IOException, InterruptedException {
        return ChildProcess.run(cmd, dir, CHILD_TIMEOUT_MINUTES);
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
