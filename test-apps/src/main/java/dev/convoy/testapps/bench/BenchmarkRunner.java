package dev.convoy.testapps.bench;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs {@link PingPong} under each {@link BenchConfig} side by side and reports the cost per
 * monitor event of the recorder above the JVMTI floor and above no agent.
 *
 * <pre>
 * java -cp test-apps/target/classes dev.convoy.testapps.bench.BenchmarkRunner \
 *     --agent recorder-mbean/target/convoy-agent.jar [--java PATH] [--runs 15] \
 *     [--roundtrips 200000] [--warmup 50000] [--out docs/bench/pingpong.md] [--marker pingpong-jdk17]
 *     [--timing]
 * </pre>
 *
 * {@code --timing} adds the configuration {@link BenchConfig#TIMING} (Convoy default with the
 * benchmark-only {@code bench.timing=on}), whose runs each dump a snapshot on exit; the section then ends
 * with where each callback's time goes, over all those runs ({@link CallbackTiming}).
 *
 * {@code ./convoy bench} without arguments passes {@code --runs 15 --roundtrips 200000
 * --out docs/bench/pingpong.md --marker pingpong-jdkNN} (NN: the JVM's feature version).
 *
 * Runs are interleaved (run 1 of every configuration, then run 2, ...) so that slow drift of the
 * machine hits every configuration alike. Each run is a fresh JVM with identical flags, pinned to
 * CPU 0 with {@code taskset -c 0} when taskset exists and works. The child's classpath is this
 * JVM's {@code java.class.path}. With {@code --out}, the section between
 * {@code <!-- MARKER:begin -->} and {@code <!-- MARKER:end -->} of the file is replaced (appended if
 * the markers are absent).
 */
public final class BenchmarkRunner {

    /** JVM flags of every child, whatever the configuration. */
    public static final List<String> JVM_FLAGS = List.of("-Xms256m", "-Xmx256m", "-XX:+UseSerialGC");
    static final String PING_PONG_CLASS = PingPong.class.getName();
    static final long CHILD_TIMEOUT_MINUTES = 10;

    /** Parsed command line. */
    record Options(String agent, String java, int runs, int roundtrips, int warmup, String out, String marker,
                   boolean timing) {
    }

    /** The options that take a value ({@code ./convoy bench} declares them for the user, but --agent). */
    public static final List<String> OPTIONS = List.of("--agent", "--java", "--runs", "--roundtrips", "--warmup",
            "--out", "--marker");
    /** The flags. */
    public static final List<String> FLAGS = List.of("--timing");
    static final String USAGE = "usage: ./convoy bench --help";

    private BenchmarkRunner() {
    }

    public static void main(String[] args) {
        Options o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        try {
            run(o, args);
        } catch (Exception e) {
            System.err.println("benchmark failed: " + e.getMessage());
            System.exit(1);
        }
    }

    static Options parse(String[] args) {
        BenchArgs a = BenchArgs.parse(args, OPTIONS, FLAGS);
        String agent = a.required("--agent", "PATH (the convoy-agent.jar)");
        String java = a.get("--java", Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        String marker = a.get("--marker", "pingpong");
        if (!marker.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("--marker must be letters, digits, '.', '_' or '-', got '" + marker + "'");
        }
        return new Options(agent, java,
                a.intArg("--runs", 15, 1),
                a.intArg("--roundtrips", PingPong.DEFAULT_ROUNDTRIPS, 1),
                a.intArg("--warmup", PingPong.DEFAULT_WARMUP, 0),
                a.get("--out"), marker, a.flag("--timing"));
    }

    private static void run(Options o, String[] args) throws IOException, InterruptedException {
        if (!Files.isRegularFile(Paths.get(o.agent()))) {
            throw new IOException("agent jar not found: " + o.agent() + " (build it with: mvn -q -DskipTests package)");
        }
        List<String> pin = List.of();
        String pinning;
        String taskset = onPath("taskset");
        String jdk;
        if (taskset == null) {
            pinning = "none: taskset not found, runs are NOT pinned (threads may migrate between CPUs)";
            System.err.println("note: taskset not found; runs are not pinned to one CPU");
            jdk = javaVersion(List.of(), o.java());
        } else {
            List<String> candidate = List.of(taskset, "-c", "0");
            String v = null;
            try {
                v = javaVersion(candidate, o.java());
            } catch (IOException e) {
                System.err.println("note: '" + taskset + " -c 0' does not work here (" + e.getMessage()
                        + "); runs are not pinned");
            }
            if (v != null) {
                pin = candidate;
                pinning = "`taskset -c 0`: each JVM (both ping-pong threads, JIT and GC) on CPU 0";
                jdk = v;
            } else {
                pinning = "none: `taskset -c 0` failed, runs are NOT pinned";
                jdk = javaVersion(List.of(), o.java());
            }
        }
        String classpath = System.getProperty("java.class.path");
        List<BenchConfig> configs = new ArrayList<>(BenchConfig.ALL);
        if (o.timing()) {
            configs.add(BenchConfig.TIMING);
        }
        CallbackTiming.Collector timings = new CallbackTiming.Collector();
        Path dumps = Files.createTempDirectory("convoy-bench-timing");
        Map<BenchConfig, List<Double>> results = new LinkedHashMap<>();
        for (BenchConfig c : configs) {
            results.put(c, new ArrayList<>());
        }
        System.err.println("JDK: " + jdk);
        System.err.println("running " + o.runs() + " runs x " + configs.size() + " configurations, "
                + o.roundtrips() + " round trips each (+" + o.warmup() + " warm-up)");
        for (int run = 1; run <= o.runs(); run++) {
            for (BenchConfig c : configs) {
                String agentArg = c.javaagentArg(o.agent());
                Path snapshot = dumps.resolve("timing-" + run + ".cvysnap");
                if (c.timed()) {
                    agentArg += ",dumponexit=snapshot,dumpdir=" + dumps + ",dumpname=timing-" + run;
                }
                List<String> cmd = childCommand(pin, o.java(), agentArg, classpath, o.roundtrips(), o.warmup());
                Path safepoints = dumps.resolve("safepoints-" + run + ".log");
                if (c.timed()) {
                    cmd = new ArrayList<>(cmd);
                    cmd.add(cmd.indexOf("-cp"), SafepointLog.flag(safepoints)); // to explain the slowest callbacks
                }
                PingPongLine line = runChild(cmd, c);
                if (c.timed()) {
                    timings.add(c.label(), CallbackTiming.read(Paths.get(o.agent()), snapshot).orElseThrow(
                            () -> new IOException(snapshot + " holds no timing (an agent without bench.timing=on?)"))
                            .withSafepoints(SafepointLog.read(safepoints)));
                    Files.delete(snapshot);
                    Files.deleteIfExists(safepoints);
                }
                results.get(c).add(line.nsPerRoundtrip());
                System.err.printf("run %d/%d  %-33s %10.1f ns/round trip%n", run, o.runs(), c.label(),
                        line.nsPerRoundtrip());
            }
        }
        List<Report.ConfigResult> rs = new ArrayList<>();
        results.forEach((c, v) -> rs.add(new Report.ConfigResult(c, v)));
        Report.Environment env = new Report.Environment(
                ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")),
                jdk, machine(), o.runs(), o.roundtrips(), o.warmup(), pinning, String.join(" ", JVM_FLAGS),
                relativeToWorkingDirectory("java -cp " + classpath + " " + BenchmarkRunner.class.getName() + " "
                        + String.join(" ", args)));
        String section = Report.section(env, rs, PingPong.EVENTS_PER_ROUNDTRIP);
        for (Map.Entry<String, CallbackTiming> t : timings.merged().entrySet()) {
            section += "\n" + t.getValue().section("Where a callback's time goes: " + t.getKey()
                    + ", every measured and warm-up round trip") + "\n" + TIMING_NOTE;
        }
        Files.deleteIfExists(dumps);
        System.out.println(section);
        if (o.out() != null) {
            Path out = Paths.get(o.out());
            String doc = Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
            Files.writeString(out, Markers.replace(doc, o.marker(), section), StandardCharsets.UTF_8);
            System.err.println("updated " + out + " between " + Markers.begin(o.marker()) + " and "
                    + Markers.end(o.marker()));
        }
    }

    /** {@code text} with the working directory's paths written relative to it, as the report says they are. */
    static String relativeToWorkingDirectory(String text) {
        String dir = Paths.get("").toAbsolutePath().toString();
        return text.replace(dir + "/", "").replace(dir, ".");
    }

    /** Under the timing tables: how to read them. */
    public static final String TIMING_NOTE = "Stages are consecutive intervals between time-stamp reads, so a row's stages "
            + "add up to its whole (the reads' own cost is spread over them); the whole excludes JVMTI's dispatch "
            + "before the callback and after it. Quantiles are bucket bounds (at most 12.5 % high). A callback slept "
            + "if its thread switched out voluntarily during it (a lock, a safepoint, a page fault that waited) and was "
            + "preempted if the kernel gave its CPU to another thread (getrusage, read outside the measured "
            + "duration); \"not preempted\" leaves the latter out, as no code of Convoy's can prevent them on a "
            + "machine with more runnable threads than CPUs.\n";

    /** The command line of one child JVM. */
    static List<String> childCommand(List<String> pin, String java, String javaagentArg, String classpath,
                                     int roundtrips, int warmup) {
        List<String> cmd = new ArrayList<>(pin);
        cmd.add(java);
        cmd.addAll(JVM_FLAGS);
        if (javaagentArg != null) {
            cmd.add(javaagentArg);
        }
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(PING_PONG_CLASS);
        cmd.add("--roundtrips");
        cmd.add(Integer.toString(roundtrips));
        cmd.add("--warmup");
        cmd.add(Integer.toString(warmup));
        return cmd;
    }

    private static PingPongLine runChild(List<String> cmd, BenchConfig c) throws IOException, InterruptedException {
        ChildProcess.Output r = exec(cmd);
        if (r.exitCode() != 0) {
            throw new IOException("configuration '" + c.label() + "' exited with " + r.exitCode() + ": "
                    + String.join(" ", cmd) + "\n" + String.join("\n", r.lines()));
        }
        try {
            return PingPongLine.find(r.lines()).orElseThrow(() -> new IOException(
                    "configuration '" + c.label() + "' printed no PINGPONG line:\n" + String.join("\n", r.lines())));
        } catch (IllegalArgumentException e) {
            throw new IOException("configuration '" + c.label() + "': " + e.getMessage());
        }
    }

    private static ChildProcess.Output exec(List<String> cmd) throws IOException, InterruptedException {
        return ChildProcess.run(cmd, null, CHILD_TIMEOUT_MINUTES);
    }

    /** {@code java -version} of {@code java} (run under {@code pin}): its first two lines. */
    private static String javaVersion(List<String> pin, String java) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(pin);
        cmd.add(java);
        cmd.add("-version");
        ChildProcess.Output r = exec(cmd);
        if (r.exitCode() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited with " + r.exitCode() + ": "
                    + String.join(" ", r.lines()));
        }
        return versionText(r.lines());
    }

    /** The first two lines of {@code java -version} output, without "Picked up ..." noise. */
    static String versionText(List<String> lines) {
        List<String> kept = new ArrayList<>();
        for (String l : lines) {
            if (!l.isBlank() && !l.startsWith("Picked up ")) {
                kept.add(l.trim());
            }
        }
        return String.join("; ", kept.subList(0, Math.min(2, kept.size())));
    }

    /** nproc, the CPU model name and the kernel. */
    private static String machine() {
        String nproc;
        try {
            ChildProcess.Output r = onPath("nproc") != null ? exec(List.of("nproc")) : null;
            nproc = r != null && r.exitCode() == 0 && !r.lines().isEmpty() ? r.lines().get(0).trim()
                    : Integer.toString(Runtime.getRuntime().availableProcessors());
        } catch (IOException | InterruptedException e) {
            nproc = Integer.toString(Runtime.getRuntime().availableProcessors());
        }
        String model = "unknown CPU";
        try {
            model = modelName(Files.readAllLines(Paths.get("/proc/cpuinfo"), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException ignored) {
            // not Linux: keep "unknown CPU"
        }
        return "nproc " + nproc + ", " + model + ", " + System.getProperty("os.name") + " "
                + System.getProperty("os.version") + " " + System.getProperty("os.arch");
    }

    /** The value of the first {@code model name} line of /proc/cpuinfo. */
    static String modelName(List<String> cpuinfo) {
        for (String l : cpuinfo) {
            int colon = l.indexOf(':');
            if (colon > 0 && l.substring(0, colon).trim().equals("model name")) {
                return l.substring(colon + 1).trim();
            }
        }
        return "unknown CPU";
    }

    private static String onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            File f = new File(dir, name);
            if (f.isFile() && f.canExecute()) {
                return f.getPath();
            }
        }
        return null;
    }
}
