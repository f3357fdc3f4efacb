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
import dev.convoy.agent.http.ViewMain;
import dev.convoy.export.AtomicFiles;
import dev.convoy.export.Output;
import dev.convoy.model.Recording;
import dev.convoy.model.Window;
import dev.convoy.snapshot.SnapshotReader;

/**
 * {@code ./convoy COMMAND [ARGS]}: every command of the launcher, each parsed from its declaration
 * in {@link Commands} (the one table of commands, options and usages). {@code convert} and
 * {@code report} run as {@link Convert} and {@link Report}, {@code view} as {@link ViewMain},
 * {@code demo} as {@link Demo}, the benchmarks as {@link Bench}; {@code list}, {@code attach},
 * {@code status}, {@code start}, {@code stop}, {@code contanalysis} and {@code dump} reach JVMs
 * that are already running, like {@code jcmd}, through the Attach API and the Convoy MBean
 * ({@value RecorderClient#NAME}) over the target's local JMX connector.
 *
 * <p>Exit codes, for every command: {@value #EXIT_OK} done, {@value #EXIT_FAILED} the operation
 * failed (the reason on stderr), {@value #EXIT_USAGE} bad arguments (the problem and the command's
 * usage on stderr).
 */
public final class ConvoyCli {

    public static final int EXIT_OK = CommandLine.EXIT_OK;
    public static final int EXIT_FAILED = CommandLine.EXIT_FAILED;
    public static final int EXIT_USAGE = CommandLine.EXIT_USAGE;

    /** Overrides where the agent jar is looked for (the tests set it). */
    static final String AGENT_JAR_PROPERTY = "convoy.agent.jar";

    /** The commands that reach a running JVM through the Attach API (jdk.attach). */
    static final Set<String> ATTACH_COMMANDS = Set.of("list", "attach", "status", "start", "stop", "contanalysis",
            "dump");

    private static final String[] STATUS_ATTRIBUTES = {"Version", "Recording", "OffReason", "RecordingStartTime",
        "ContentionAnalysis", "EventsRecorded", "EventsOverwritten", "EventsDropped", "ThreadsRecorded",
        "MemoryInUseBytes", "MemoryCapBytes", "BufferBytes", "StackDepth", "DumpDirectory", "Options"};

    private ConvoyCli() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command; returns the exit code instead of exiting. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        try {
            if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help")) {
                out.println(Commands.usage());
                return EXIT_OK;
            }
            CommandLine.Command c = Commands.find(args);
            if (c == null) {
                err.println("convoy: unknown command '" + args[0] + "'");
                err.println(Commands.usage());
                return EXIT_USAGE;
            }
            String[] rest = Arrays.copyOfRange(args, c.name().split(" ").length, args.length);
            switch (c.name()) {
                case "convert":
                    return Convert.run(rest, out, err);
                case "report":
                    return Report.run(rest, out, err);
                case "view":
                    return ViewMain.run(rest, out, err);
                default:
                    break;
            }
            CommandLine.Parsed p = CommandLine.parse(c, rest, out, err);
            if (p.exit() >= 0) {
                return p.exit();
            }
            try {
                return switch (c.name()) {
                    case "help" -> {
                        out.println(Commands.usage());
                        yield EXIT_OK;
                    }
                    case "build" -> {
                        out.println(agentJar()); // ./convoy built it if it was missing or older than a source
                        yield EXIT_OK;
                    }
                    case "demo" -> Demo.run(p, out, err);
                    case "bench", "bench soak", "bench suite" -> Bench.run(c, rest, err);
                    default -> {
                        if (ModuleLayer.boot().findModule("jdk.attach").isEmpty()) {
                            throw CliException.failed("this Java (" + System.getProperty("java.home") + ") has no "
                                    + "jdk.attach module; run ./convoy with a full JDK 17 or newer (set JAVA_HOME)");
                        }
                        Command.of(p).execute(out, err);
                        yield EXIT_OK;
                    }
                };
            } catch (CliException e) {
                if (e.exitCode() == EXIT_USAGE) {
                    return CommandLine.usageError(c, e.getMessage(), err);
                }
                err.println(CommandLine.prefix(c.name()) + e.getMessage());
                return e.exitCode();
            }
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** A parsed command of a running JVM. */
    record Command(String name, long pid, String options, String value, Set<Output> format, String output,
                   String since, String from, String to) {

        /** The command {@code args} give, parsed as {@link #run} parses it (for the tests). */
        static Command parse(String[] args) throws CliException {
            CommandLine.Command c = Commands.find(args);
            if (c == null || !ATTACH_COMMANDS.contains(c.name())) {
                throw CliException.usage("unknown command '" + (args.length == 0 ? "" : args[0]) + "'");
            }
            try {
                Map<String, String> values = CommandLine.parse(c, Arrays.copyOfRange(args, 1, args.length));
                return of(new CommandLine.Parsed(-1, c, values));
            } catch (IllegalArgumentException e) {
                throw CliException.usage(e.getMessage());
            }
        }

        /** The command of a parse; the checks the table cannot make (agent options, file names) made here. */
        static Command of(CommandLine.Parsed p) throws CliException {
            String name = p.command().name();
            long pid = p.has("PID") ? Long.parseLong(p.get("PID")) : 0;
            switch (name) {
                case "attach" -> {
                    String options = p.has("OPTIONS") ? p.get("OPTIONS") : "";
                    try {
                        AgentOptions.parse(options);
                    } catch (AgentOptions.InvalidOptionException e) {
                        throw CliException.usage(e.getMessage());
                    }
                    return new Command(name, pid, options, null, null, null, null, null, null);
                }
                case "contanalysis" -> {
                    return new Command(name, pid, null, p.get("on|off").toLowerCase(Locale.ROOT), null, null, null,
                            null, null);
                }
                case "dump" -> {
                    Set<Output> f = Output.select(p.get("format")); // checked by the parse
                    String output = p.get("o");
                    if (output != null && output.isBlank()) {
                        throw CliException.usage("-o needs a file name");
                    }
                    if (output != null) {
                        try {
                            Output.checkFileNames(f, Paths.get(output));
                        } catch (IllegalArgumentException e) { // InvalidPathException too
                            throw CliException.usage("-o " + e.getMessage());
                        }
                    }
                    return new Command(name, pid, null, null, f, output, p.get("since"), p.get("from"), p.get("to"));
                }
                default -> {
                    return new Command(name, pid, null, null, null, null, null, null, null);
                }
            }
        }

        void execute(PrintStream out, PrintStream err) throws CliException {
            switch (name) {
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
                err.println(CommandLine.prefix("attach") + "note: the JVM with pid " + pid + " printed \"WARNING: A Java agent has been loaded"
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
                        throw CliException.usage(e.getMessage());
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
