package dev.convoy.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.Locale;
import java.util.Map;
import java.util.jar.JarFile;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;

import dev.convoy.agent.AgentOptions;
import dev.convoy.export.AtomicFiles;
import dev.convoy.export.Output;
import dev.convoy.model.Recording;
import dev.convoy.model.Window;
import dev.convoy.snapshot.SnapshotReader;

/**
 * {@code ./convoy list|attach|status|start|stop|contanalysis|dump}: Convoy in JVMs that are
 * already running, like {@code jcmd}, through the Attach API and the Convoy MBean
 * ({@value RecorderClient#NAME}) over the target's local JMX connector.
 *
 * <p>Exit codes: {@value #EXIT_OK} done, {@value #EXIT_FAILED} the operation failed (the
 * reason on stderr), {@value #EXIT_USAGE} bad arguments (the problem and the usage on stderr).
 */
public final class ConvoyCli {

    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_USAGE = 2;

    /** Overrides where the agent jar is looked for (the tests set it). */
    static final String AGENT_JAR_PROPERTY = "convoy.agent.jar";

    /**
     * The usage; the formats {@code dump} takes are {@link Output#names()}, the one list of
     * outputs, so that a new output is named here without a change.
     */
    static final String USAGE = """
            usage: ./convoy COMMAND [ARGS]   (Convoy in a running JVM on this machine)
              list                            the JVMs this user can attach to: pid and main class
              attach PID [OPTIONS]            load Convoy into the JVM; OPTIONS as for -javaagent,
                                              e.g. stackdepth=16,buffer=256k (README.md, Options)
              status PID                      recording on/off, counters, options, version
              start PID                       start recording
              stop PID                        stop recording (the rings keep what was recorded)
              contanalysis PID on|off         turn contention analysis on or off
              dump PID --format F [-o OUT] [--since D | --from T --to T]
                                              take a snapshot and write it here as F, one of
            %s
                                              OUT defaults to ./convoy-PID plus the format's suffix
                                              (csv: OUT.meta.csv, OUT.events.csv and OUT.losses.csv;
                                              csv-ext: OUT.events-ext.csv for OUT.events.csv);
                                              --since 10m: the last 10 minutes of the history;
                                              --from/--to 2026-11-28T14:05:00Z, 14:05 or -10m""".formatted(
            wrap(Output.names() + ";", " ".repeat(34), 96));

    /** Words wrapped into lines of at most {@code width} characters, each starting with {@code indent}. */
    static String wrap(String text, String indent, int width) {
        StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder(indent);
        for (String word : text.split(" ")) {
            if (line.length() > indent.length() && line.length() + 1 + word.length() > width) {
                out.append(line).append('\n');
                line = new StringBuilder(indent);
            }
            if (line.length() > indent.length()) {
                line.append(' ');
            }
            line.append(word);
        }
        return out.append(line).toString();
    }

    private static final String[] STATUS_ATTRIBUTES = {"Version", "Recording", "OffReason", "RecordingStartTime",
        "ContentionAnalysis", "EventsRecorded", "EventsOverwritten", "EventsDropped", "ThreadsRecorded",
        "MemoryInUseBytes", "MemoryCapBytes", "BufferBytes", "StackDepth", "DumpDirectory", "Options"};

    private ConvoyCli() {
    }

    public static void main(String[] args) {
        if (ModuleLayer.boot().findModule("jdk.attach").isEmpty()) {
            System.err.println("convoy: this Java (" + System.getProperty("java.home") + ") has no jdk.attach module;"
                    + " run ./convoy with a full JDK 17 or newer (set JAVA_HOME)");
            System.exit(EXIT_FAILED);
        }
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command; returns the exit code instead of exiting. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        try {
            Command command = Command.parse(args);
            command.execute(out, err);
            return EXIT_OK;
        } catch (CliException e) {
            err.println("convoy: " + e.getMessage());
            if (e.exitCode() == EXIT_USAGE) {
                err.println(USAGE);
            }
            return e.exitCode();
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** A parsed command line. */
    record Command(String name, long pid, String options, String value, Set<Output> format, String output,
                   String since, String from, String to) {
        Command(String name, long pid, String options, String value, Set<Output> format, String output) {
            this(name, pid, options, value, format, output, null, null, null);
        }


        static Command parse(String[] args) throws CliException {
            if (args.length == 0) {
                throw CliException.usage("no command");
            }
            String name = args[0];
            List<String> rest = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
            switch (name) {
                case "help", "-h", "--help" -> {
                    return new Command("help", 0, null, null, null, null);
                }
                case "list" -> {
                    noMore(name, rest, 0);
                    return new Command(name, 0, null, null, null, null);
                }
                case "status", "start", "stop" -> {
                    long pid = pid(name, rest);
                    noMore(name, rest, 1);
                    return new Command(name, pid, null, null, null, null);
                }
                case "attach" -> {
                    long pid = pid(name, rest);
                    String options = String.join(",", rest.subList(1, rest.size()));
                    try {
                        AgentOptions.parse(options);
                    } catch (AgentOptions.InvalidOptionException e) {
                        throw CliException.usage("attach: " + e.getMessage());
                    }
                    return new Command(name, pid, options, null, null, null);
                }
                case "contanalysis" -> {
                    long pid = pid(name, rest);
                    if (rest.size() < 2) {
                        throw CliException.usage("contanalysis: say on or off after the pid");
                    }
                    noMore(name, rest, 2);
                    String v = rest.get(1).toLowerCase(Locale.ROOT);
                    if (!v.equals("on") && !v.equals("off")) {
                        throw CliException.usage("contanalysis: '" + rest.get(1) + "' is neither on nor off");
                    }
                    return new Command(name, pid, null, v, null, null);
                }
                case "dump" -> {
                    return parseDump(rest);
                }
                default -> throw CliException.usage("unknown command '" + name + "'");
            }
        }

        private static Command parseDump(List<String> rest) throws CliException {
            long pid = pid("dump", rest);
            String format = null;
            String output = null;
            String since = null;
            String from = null;
            String to = null;
            for (int i = 1; i < rest.size(); i++) {
                String a = rest.get(i);
                if (List.of("--format", "-f", "-o", "--output", "--since", "--from", "--to").contains(a)) {
                    if (i + 1 >= rest.size()) {
                        throw CliException.usage("dump: " + a + " needs a value");
                    }
                    String v = rest.get(++i);
                    switch (a) {
                        case "-o", "--output" -> output = v;
                        case "--since" -> since = v;
                        case "--from" -> from = v;
                        case "--to" -> to = v;
                        default -> format = v;
                    }
                } else if (a.startsWith("--format=")) {
                    format = a.substring("--format=".length());
                } else if (a.startsWith("--output=")) {
                    output = a.substring("--output=".length());
                } else {
                    throw CliException.usage("dump: unexpected argument '" + a + "'");
                }
            }
            if (format == null) {
                throw CliException.usage("dump: --format is missing (" + Output.names() + ")");
            }
            Set<Output> f;
            try {
                f = Output.select(format);
            } catch (IllegalArgumentException e) {
                throw CliException.usage("dump: " + e.getMessage());
            }
            if (output != null && output.isBlank()) {
                throw CliException.usage("dump: -o needs a file name");
            }
            if (output != null) {
                try {
                    Output.checkFileNames(f, Paths.get(output));
                } catch (IllegalArgumentException e) { // InvalidPathException too
                    throw CliException.usage("dump: -o " + e.getMessage());
                }
            }
            if (since != null && (from != null || to != null)) {
                throw CliException.usage("dump: --since takes the last part of the recording: give it alone, or "
                        + "--from and --to");
            }
            try {
                if (since != null) {
                    Window.durationNs(since);
                }
            } catch (IllegalArgumentException e) {
                throw CliException.usage("dump: --since " + e.getMessage());
            }
            return new Command("dump", pid, null, null, f, output, since, from, to);
        }

        private static long pid(String command, List<String> rest) throws CliException {
            if (rest.isEmpty()) {
                throw CliException.usage(command + ": the pid of a JVM is missing (./convoy list shows them)");
            }
            String p = rest.get(0);
            if (!p.matches("[0-9]{1,18}") || Long.parseLong(p) == 0) {
                throw CliException.usage(command + ": '" + p + "' is not a pid (./convoy list shows the JVMs)");
            }
            return Long.parseLong(p);
        }

        private static void noMore(String command, List<String> rest, int allowed) throws CliException {
            if (rest.size() > allowed) {
                throw CliException.usage(command + ": unexpected argument '" + rest.get(allowed) + "'");
            }
        }

        void execute(PrintStream out, PrintStream err) throws CliException {
            switch (name) {
                case "help" -> out.println(USAGE);
                case "list" -> list(out);
                case "attach" -> attach(pid, options, out, err);
                default -> {
                    try (TargetJvm target = TargetJvm.attach(pid)) {
                        RecorderClient recorder = RecorderClient.of(target);
                        switch (name) {
                            case "status" -> status(target, recorder, out);
                            case "start" -> {
                                recorder.invoke("start", new Object[0], new String[0]);
                                out.println("recording started in " + pid);
                            }
                            case "stop" -> {
                                recorder.invoke("stop", new Object[0], new String[0]);
                                out.println("recording stopped in " + pid);
                            }
                            case "contanalysis" -> {
                                recorder.set("ContentionAnalysis", value.equals("on"));
                                out.println("contention analysis " + value + " in " + pid);
                            }
                            case "dump" -> dump(target, recorder, format, output, out, this);
                            default -> throw new AssertionError(name);
                        }
                    }
                }
            }
        }
    }

    static void list(PrintStream out) {
        long self = ProcessHandle.current().pid();
        List<VirtualMachineDescriptor> vms = VirtualMachine.list().stream()
                .filter(d -> !d.id().equals(Long.toString(self)))
                .sorted(Comparator.comparingLong(d -> parsePid(d.id())))
                .toList();
        if (vms.isEmpty()) {
            out.println("no JVM found (not listed: other users' JVMs, and JVMs started with -XX:-UsePerfData"
                    + " or -XX:+DisableAttachMechanism)");
            return;
        }
        out.printf("%-8s %s%n", "PID", "MAIN CLASS / JAR AND ARGUMENTS");
        for (VirtualMachineDescriptor d : vms) {
            String display = d.displayName() == null || d.displayName().isBlank() || d.displayName().equals(d.id())
                    ? "(unknown main class)" : d.displayName();
            out.printf("%-8s %s%n", d.id(), display);
        }
    }

    private static long parsePid(String id) {
        try {
            return Long.parseLong(id);
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    static void attach(long pid, String options, PrintStream out, PrintStream err) throws CliException {
        try (TargetJvm target = TargetJvm.attach(pid)) {
            String wanted = effectiveOptions(options, pid);
            if (RecorderClient.isLoaded(target)) {
                RecorderClient recorder = RecorderClient.of(target);
                if (recorder.getAll("OffReason").get("OffReason") instanceof String why && !why.isEmpty()) {
                    throw CliException.failed("Convoy is loaded in " + pid + " but its recorder is off: " + why
                            + "; restart that JVM once the cause is fixed");
                }
                String running = String.valueOf(recorder.get("Options"));
                if (normalized(running).equals(wanted)) {
                    out.println("Convoy is already attached to " + pid + " with options " + running);
                    return;
                }
                throw CliException.failed("Convoy already runs in " + pid + " with options " + running
                        + "; cannot attach with " + wanted);
            }
            DynamicLoading loading = dynamicLoading(target);
            if (loading == DynamicLoading.REFUSED) {
                throw CliException.failed("the JVM with pid " + pid + " was started with -XX:-EnableDynamicAgentLoading"
                        + " and refuses agents at run time; restart it without that option, or with "
                        + "-javaagent:convoy-agent.jar to record from the start");
            }
            Path jar = agentJar(); // only now: every check above works without a built jar
            target.loadAgent(jar, options);
            if (!RecorderClient.isLoaded(target)) {
                throw CliException.failed("the agent " + jar + " started in " + pid + " but registered no MBean "
                        + RecorderClient.NAME + "; is the jar older than this command?");
            }
            String running = String.valueOf(RecorderClient.of(target).get("Options"));
            out.println("Convoy attached to " + pid + " with options " + running);
            if (loading == DynamicLoading.WARNS) {
                err.println("convoy: note: the JVM with pid " + pid + " printed \"WARNING: A Java agent has been loaded"
                        + " dynamically\" on its stderr (JDK 21+); start it with -XX:+EnableDynamicAgentLoading to"
                        + " allow Convoy without the warning (the recording is not affected)");
            }
        }
    }

    /**
     * The effective options the target would report for this option text: as
     * {@link AgentOptions#effective()}, with the default dump name of the target's pid, not ours.
     */
    static String effectiveOptions(String text, long pid) {
        boolean named = Arrays.stream(text.split(",")).map(p -> p.split("=", 2)[0].trim().toLowerCase(Locale.ROOT))
                .anyMatch("dumpname"::equals);
        String withName = named ? text : (text.isBlank() ? "" : text + ",") + "dumpname=convoy-" + pid;
        return AgentOptions.parse(withName).effective();
    }

    /** The target's effective options in this version's canonical form; as given if unparsable. */
    private static String normalized(String effective) {
        try {
            return AgentOptions.parse(effective).effective();
        } catch (IllegalArgumentException e) {
            return effective;
        }
    }

    /** What the target says about agents loaded at run time (JDK 21+, JEP 451). */
    enum DynamicLoading {
        /** Before JDK 21, or -XX:+EnableDynamicAgentLoading given: no warning. */
        SILENT,
        /** JDK 21+ by default: allowed, with a warning on the target's stderr. */
        WARNS,
        /** -XX:-EnableDynamicAgentLoading: refused. */
        REFUSED
    }

    static DynamicLoading dynamicLoading(TargetJvm target) {
        try {
            MBeanServerConnection mbs = target.mbeans();
            CompositeData option = (CompositeData) mbs.invoke(new ObjectName("com.sun.management:type=HotSpotDiagnostic"),
                    "getVMOption", new Object[] {"EnableDynamicAgentLoading"}, new String[] {String.class.getName()});
            if (!"true".equals(String.valueOf(option.get("value")))) {
                return DynamicLoading.REFUSED;
            }
            // JDK 17 updates have the flag too (and honour -XX:-...), but only JDK 21+ warns.
            String spec = target.systemProperties().getProperty("java.specification.version", "17");
            boolean warns = Integer.parseInt(spec.split("\\.")[0]) >= 21;
            return warns && "DEFAULT".equals(String.valueOf(option.get("origin"))) ? DynamicLoading.WARNS
                    : DynamicLoading.SILENT;
        } catch (Exception e) {
            // no such flag before JDK 21 (or no answer): nothing to say
            return DynamicLoading.SILENT;
        }
    }

    static void status(TargetJvm target, RecorderClient recorder, PrintStream out) throws CliException {
        Map<String, Object> a = recorder.getAll(STATUS_ATTRIBUTES);
        out.println("Convoy " + a.getOrDefault("Version", "(version unknown)") + " in " + target.pid());
        line(out, "recording", onOff(a.get("Recording")));
        if (a.get("OffReason") instanceof String why && !why.isEmpty()) {
            line(out, "recorder", "off: " + why);
        }
        if (a.get("RecordingStartTime") instanceof Long t && t > 0) {
            line(out, "agent started", Instant.ofEpochMilli(t));
        }
        line(out, "contention analysis", a.containsKey("ContentionAnalysis") ? onOff(a.get("ContentionAnalysis"))
                : "unavailable");
        line(out, "events recorded", a.get("EventsRecorded"));
        line(out, "events overwritten", a.get("EventsOverwritten"));
        line(out, "events dropped", a.get("EventsDropped"));
        line(out, "threads recorded", a.get("ThreadsRecorded"));
        line(out, "memory in use", bytes(a.get("MemoryInUseBytes")) + " of " + bytes(a.get("MemoryCapBytes")));
        line(out, "buffer per thread", bytes(a.get("BufferBytes")));
        line(out, "stack depth", a.get("StackDepth"));
        line(out, "dump directory", a.get("DumpDirectory"));
        line(out, "options", a.get("Options"));
    }

    private static void line(PrintStream out, String label, Object value) {
        out.printf("  %-20s %s%n", label + ":", value == null ? "?" : value);
    }

    private static String onOff(Object b) {
        return b instanceof Boolean v ? (v ? "on" : "off") : "?";
    }

    static String bytes(Object v) {
        if (!(v instanceof Number n)) {
            return "?";
        }
        long b = n.longValue();
        if (b >= 1L << 30) {
            return String.format(Locale.ROOT, "%.1f GiB", b / (double) (1L << 30));
        }
        if (b >= 1L << 20) {
            return String.format(Locale.ROOT, "%.1f MiB", b / (double) (1L << 20));
        }
        if (b >= 1L << 10) {
            return String.format(Locale.ROOT, "%.1f KiB", b / (double) (1L << 10));
        }
        return b + " bytes";
    }

    /**
     * Streams a snapshot in the format out of the target and writes it here, atomically.
     * Several files (the CSV files) must come from one snapshot: the binary snapshot is
     * streamed and every file is written here from it, by the same writer the agent uses.
     */
    /** The words of the agent's refusal of an analysis its heap cannot hold (AnalysisBudget). */
    static final String HEAP_REFUSAL = "not enough heap for the analysis of";

    static void dump(TargetJvm target, RecorderClient recorder, Set<Output> format, String output, PrintStream out,
                     Command window) throws CliException {
        boolean windowed = window != null && (window.since() != null || window.from() != null || window.to() != null);
        Path dest = Paths.get(output != null ? output : Output.defaultName("convoy-" + target.pid(), format))
                .toAbsolutePath();
        try {
            // Freeze a fresh snapshot: the streams then read it, not one frozen earlier by someone else.
            // snapshot() freezes before it makes its summary; a summary refused for the target's heap
            // leaves the snapshot frozen, and the binary snapshot streams from native memory.
            try {
                recorder.invoke("snapshot", new Object[0], new String[0]);
            } catch (CliException e) {
                if (e.getMessage() == null || !e.getMessage().contains(HEAP_REFUSAL)) {
                    throw e;
                }
            }
            List<Path> written;
            if (format.size() > 1 || windowed) {
                // the binary snapshot, cut and converted here: the target's heap holds no output
                ByteArrayOutputStream snapshot = new ByteArrayOutputStream(1 << 20);
                recorder.copyStream(Output.SNAPSHOT.id(), snapshot);
                Recording r = SnapshotReader.read(snapshot.toByteArray());
                if (windowed) {
                    try {
                        r = Window.of(r, window.since(), window.from(), window.to()).cut(r);
                    } catch (IllegalArgumentException e) {
                        throw CliException.usage("dump: " + e.getMessage());
                    }
                }
                written = Output.write(r, format, dest);
            } else {
                Output one = format.iterator().next();
                CliException[] failure = new CliException[1];
                try {
                    written = List.of(AtomicFiles.write(dest, os -> {
                        try {
                            recorder.copyStream(one.id(), os);
                        } catch (CliException e) {
                            failure[0] = e;
                            throw new IOException(e.getMessage(), e);
                        }
                    }));
                } catch (IOException e) {
                    if (failure[0] != null) {
                        throw failure[0];
                    }
                    throw e;
                }
            }
            written.forEach(out::println);
        } catch (IOException e) {
            throw CliException.failed("cannot write " + dest + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw CliException.failed("the snapshot from " + target.pid() + " is unreadable: " + e.getMessage(), e);
        }
    }

    /**
     * The agent jar to load: {@code -Dconvoy.agent.jar}, else the jar this class runs from if
     * it is the agent jar, else {@code convoy-agent.jar} next to it (or next to the classes
     * directory it runs from).
     */
    static Path agentJar() throws CliException {
        String override = System.getProperty(AGENT_JAR_PROPERTY);
        if (override != null && !override.isBlank()) {
            Path p = Paths.get(override).toAbsolutePath();
            if (!Files.isRegularFile(p)) {
                throw CliException.failed("the agent jar " + p + " (-D" + AGENT_JAR_PROPERTY + ") does not exist");
            }
            return p;
        }
        Path here;
        try {
            CodeSource cs = ConvoyCli.class.getProtectionDomain().getCodeSource();
            here = Paths.get(cs.getLocation().toURI()).toAbsolutePath();
        } catch (URISyntaxException | RuntimeException e) {
            throw CliException.failed("cannot tell where convoy-agent.jar is; run with -D" + AGENT_JAR_PROPERTY
                    + "=PATH", e);
        }
        if (Files.isRegularFile(here) && hasAgentClass(here)) {
            return here;
        }
        Path sibling = here.resolveSibling("convoy-agent.jar");
        if (Files.isRegularFile(sibling)) {
            return sibling;
        }
        throw CliException.failed("convoy-agent.jar not found next to " + here + "; run ./convoy build");
    }

    private static boolean hasAgentClass(Path jar) {
        try (JarFile f = new JarFile(jar.toFile())) {
            return f.getManifest() != null && f.getManifest().getMainAttributes().getValue("Agent-Class") != null;
        } catch (IOException e) {
            return false;
        }
    }
}
