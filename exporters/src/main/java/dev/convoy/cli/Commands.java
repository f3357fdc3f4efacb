package dev.convoy.cli;

import dev.convoy.cli.CommandLine.Argument;
import dev.convoy.cli.CommandLine.Check;
import dev.convoy.cli.CommandLine.Command;
import dev.convoy.cli.CommandLine.Option;
import dev.convoy.export.Output;
import dev.convoy.model.Window;
import dev.convoy.report.ContentionReport;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Every {@code ./convoy} command, declared once: its arguments, options, value checks and help.
 * {@link CommandLine} parses each command from its declaration here and prints its usage from it;
 * {@link #usage()} is the overall usage ({@code ./convoy help}). The commands run in
 * {@code dev.convoy.cli.ConvoyCli} of the agent jar ({@code convert} and {@code report} here, in
 * {@link Convert} and {@link Report}).
 */
public final class Commands {

    /** The sections of the overall usage, in order. */
    public enum Section {
        /** Files and the demo. */
        FILES("commands:", "Options and formats: README.md and docs/."),
        /** JVMs running on this machine. */
        RUNNING("Running JVMs on this machine (like jcmd; through the Attach API and JMX):",
                "Options and formats: README.md and docs/."),
        /** The benchmarks. */
        BENCH("Benchmarks (docs/performance.md, \"How to run\"):", "Their results: docs/performance.md.");

        private final String title;
        private final String footer;

        Section(String title, String footer) {
            this.title = title;
            this.footer = footer;
        }

        /** The line after a command's own usage. */
        String footer() {
            return footer;
        }
    }

    private Commands() {
    }

    // ---- value checks -------------------------------------------------------------------------------

    /** A pid: a positive whole number. */
    static final Check PID = v -> {
        if (!v.matches("[0-9]{1,18}") || Long.parseLong(v) == 0) {
            throw new IllegalArgumentException("'" + v + "' is not a pid (./convoy list shows the JVMs)");
        }
    };

    /** An output format or set of them, {@link Output#select}. */
    static final Check FORMAT = Output::select;

    /** A duration for {@code --since}: 90s, 10m, 2h. */
    static final Check DURATION = v -> {
        try {
            Window.durationNs(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--since " + e.getMessage());
        }
    };

    /** A whole number from {@code min} to {@code max}. */
    static Check range(String option, long min, long max, String meaning) {
        return v -> {
            long n;
            try {
                n = Long.parseLong(v.trim());
            } catch (NumberFormatException e) {
                n = Long.MIN_VALUE;
            }
            if (n < min || n > max) {
                throw new IllegalArgumentException(option + " needs a number from " + min + meaning
                        + (max == Integer.MAX_VALUE ? " up" : " to " + max) + ", got '" + v + "'");
            }
        };
    }

    /** One of {@code values}, case-insensitive; {@code what} names the option in the message (empty: an argument). */
    static Check oneOf(String what, String... values) {
        return v -> {
            if (!Arrays.asList(values).contains(v.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException(what.isEmpty() ? "'" + v + "' is neither " + String.join(" nor ", values)
                        : what + " takes " + String.join("|", values) + ", got '" + v + "'");
            }
        };
    }

    /** A name for files and report sections: letters, digits, '.', '_' or '-'. */
    static final Check MARKER = v -> {
        if (!v.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("--marker must be letters, digits, '.', '_' or '-', got '" + v + "'");
        }
    };

    // ---- declarations -------------------------------------------------------------------------------

    /** A command being declared. */
    private static final class Builder {
        final String name;
        final Section section;
        final String summary;
        final List<Argument> arguments = new ArrayList<>();
        final List<Option> options = new ArrayList<>();
        final Map<String, Set<String>> exclusive = new LinkedHashMap<>();
        String exclusiveMessage;

        Builder(String name, Section section, String summary) {
            this.name = name;
            this.section = section;
            this.summary = summary;
        }

        Builder arg(String argName, String missing, Check check, String help) {
            arguments.add(new Argument(argName, true, false, missing, check, help));
            return this;
        }

        Builder optionalRest(String argName, String help) {
            arguments.add(new Argument(argName, false, true, null, Check.ANY, help));
            return this;
        }

        Builder pid() {
            return arg("PID", "the pid of a JVM is missing (./convoy list shows them)", PID,
                    "the process id of a JVM on this machine, as ./convoy list shows it");
        }

        Builder file(String help) {
            return arg("FILE", "no input file", Check.ANY, help);
        }

        /** An option that takes a value; its key is its first name without dashes. */
        Builder valued(String value, Check check, String help, String... names) {
            options.add(new Option(key(names[0]), List.of(names), value, null, false, check, help));
            return this;
        }

        Builder required(String value, Check check, String help, String... names) {
            options.add(new Option(key(names[0]), List.of(names), value, null, true, check, help));
            return this;
        }

        Builder flag(String help, String... names) {
            options.add(new Option(key(names[0]), List.of(names), null, "true", false, Check.ANY, help));
            return this;
        }

        /** A flag that stands for {@code key=value}. */
        Builder fixed(String key, String value, String help, String... names) {
            options.add(new Option(key, List.of(names), null, value, false, Check.ANY, help));
            return this;
        }

        Builder window() {
            valued("D", DURATION, "only the last D of the recording (90s, 10m, 2h)", "--since");
            valued("T", Check.ANY, "only the part from T: 2026-11-28T14:05:00Z, 2026-11-28T14:05, 14:05 (local "
                    + "time) or -10m (before the recording's end)", "--from");
            valued("T", Check.ANY, "only the part to T, written as for --from", "--to");
            exclusive.put("since", new java.util.LinkedHashSet<>(List.of("from", "to")));
            exclusiveMessage = "--since takes the last part of the recording: give it alone, or --from and --to";
            return this;
        }

        Builder idleRules() {
            return valued("FILE", Check.ANY, "rules that tell idle waits from contention, added to the built-in "
                    + "ones (docs/user-guide.md, \"Idle and contention\")", "--idle-rules");
        }

        Builder debug() {
            return flag("on an internal error, print its stack trace", "--debug");
        }

        Command build() {
            return new Command(name, section, summary, List.copyOf(arguments), List.copyOf(options),
                    java.util.Collections.unmodifiableMap(exclusive), exclusiveMessage);
        }

        private static String key(String name) {
            return name.replaceFirst("^-+", "");
        }
    }

    private static final String FORMATS = Output.names();

    private static final List<Command> ALL = List.of(
            new Builder("demo", Section.FILES, "record a contention scenario (lock storm, producer/consumer, timed "
                    + "waits, handoff chain, join chain, java.util.concurrent ReentrantLock storm and bounded-queue "
                    + "hand-off, deadlock) and write a Chrome trace, a TPTP XML trace, the CSV logs, a JFR recording, "
                    + "the flame graph, the folded stacks, a pprof profile, the report and the binary snapshot into "
                    + "DIR")
                    .valued("DIR", Check.ANY, "where the files go (default: convoy-out next to ./convoy)", "--out").build(),
            new Builder("convert", Section.FILES, "convert a binary snapshot (.cvysnap), or a repository folder, to F: "
                    + "chrome, tptp, csv (the CSV logs of the JVMTI backend's specification and the losses file), "
                    + "csv-ext (the same with Convoy's extended event log), one CSV file (csv-meta, csv-events, "
                    + "csv-events-ext, csv-losses), jfr, flamegraph (HTML), collapsed (folded stacks), pprof (go tool "
                    + "pprof) or snapshot")
                    .file("a Convoy binary snapshot, or a repository folder (option repository)")
                    .required("F", FORMAT, FORMATS, "--format", "-f")
                    .valued("OUT", Check.ANY, "output path (csv: base of OUT.meta.csv, OUT.events.csv and "
                            + "OUT.losses.csv; csv-ext: OUT.events-ext.csv in place of OUT.events.csv); default: FILE "
                            + "without its extension plus the format's suffix", "-o", "--output")
                    .window().idleRules().debug().build(),
            new Builder("report", Section.FILES, "the contention report of a snapshot: most contended monitors and "
                    + "call sites, who waited on whom, deadlocks, critical path")
                    .file("a Convoy binary snapshot (.cvysnap), or a repository folder")
                    .fixed("format", "markdown", "Markdown instead of plain text", "--markdown", "--md")
                    .fixed("format", "text", "plain text, the default", "--text")
                    .valued("STYLE", ContentionReport.Style::parse, "text or markdown", "--format")
                    .valued("OUT", Check.ANY, "write the report into OUT instead of stdout", "-o", "--output")
                    .window().idleRules().debug().build(),
            new Builder("view", Section.FILES, "serve the web view of a saved snapshot (.cvysnap), or of a repository "
                    + "folder, on 127.0.0.1, offline (port 0 or none: a free port; the URL is printed)")
                    .arg("FILE", "no snapshot file given", Check.ANY, "a snapshot file or a repository folder")
                    .valued("N", range("--port", 0, 65535, " (any free port)"), "the port (default 0: a free one)",
                            "--port").build(),
            new Builder("build", Section.FILES, "build the agent jar (mvn -DskipTests package) if a source is newer "
                    + "than it; prints its path").build(),
            new Builder("help", Section.FILES, "this text; ./convoy COMMAND --help: one command's").build(),

            new Builder("list", Section.RUNNING, "the JVMs this user can attach to: pid and main class").build(),
            new Builder("attach", Section.RUNNING, "load Convoy into the JVM; OPTIONS as for the agent at start, e.g. "
                    + "stackdepth=16 buffer=256k (README.md, Options)")
                    .pid().optionalRest("OPTIONS", "agent options, key=value, separated by commas or spaces").build(),
            new Builder("status", Section.RUNNING, "recording on/off, counters, options, version").pid().build(),
            new Builder("start", Section.RUNNING, "start recording").pid().build(),
            new Builder("stop", Section.RUNNING, "stop recording (the rings keep what was recorded)").pid().build(),
            new Builder("contanalysis", Section.RUNNING, "turn contention analysis on or off").pid()
                    .arg("on|off", "say on or off after the pid", oneOf("", "on", "off"), "on or off").build(),
            new Builder("dump", Section.RUNNING, "take a snapshot of the JVM and write it here as F, one of "
                    + FORMATS + "; OUT defaults to ./convoy-PID plus the format's suffix (csv: OUT.meta.csv, "
                    + "OUT.events.csv and OUT.losses.csv; csv-ext: OUT.events-ext.csv for OUT.events.csv); "
                    + "--since 10m: the last 10 minutes of the history; --from/--to 2026-11-28T14:05:00Z, 14:05 or -10m")
                    .pid()
                    .required("F", FORMAT, FORMATS, "--format", "-f")
                    .valued("OUT", Check.ANY, "the file to write (whole or absent)", "-o", "--output")
                    .window().build(),

            new Builder("bench", Section.BENCH, "the per-event cost benchmark (ping-pong); without options: 15 runs "
                    + "into docs/bench/pingpong.md")
                    .valued("PATH", Check.ANY, "the java of the measured JVMs (default: this one)", "--java")
                    .valued("N", range("--runs", 1, Integer.MAX_VALUE, ""), "runs per configuration (15)", "--runs")
                    .valued("M", range("--roundtrips", 1, Integer.MAX_VALUE, ""), "round trips per run",
                            "--roundtrips")
                    .valued("W", range("--warmup", 0, Integer.MAX_VALUE, ""), "warm-up round trips", "--warmup")
                    .valued("FILE", Check.ANY, "the Markdown file to write the results into (else printed)", "--out")
                    .valued("NAME", MARKER, "the section of --out to replace", "--marker")
                    .flag("add the callback timing configuration (bench.timing=on)", "--timing").build(),
            new Builder("bench soak", Section.BENCH, "always on for N minutes (default 60) under thread and lock churn "
                    + "with periodic snapshots and dumps: memory against the cap")
                    .valued("N", range("--minutes", 1, Integer.MAX_VALUE, ""), "how long (60)", "--minutes")
                    .valued("OPTIONS", Check.ANY, "the agent options (memory=8m,buffer=16k,maxsize=4m)", "--options")
                    .valued("yes|no", oneOf("--repository", "yes", "no"), "the history also written to a repository "
                            + "(yes)", "--repository")
                    .valued("FILE", Check.ANY, "the Markdown table (default docs/bench/soak.md without options)",
                            "--out")
                    .valued("PNG", Check.ANY, "the chart (default docs/bench/soak.png without options)", "--plot")
                    .valued("PATH", Check.ANY, "the java of the soaked JVM", "--java")
                    .valued("KB", range("--garbage-kb", 0, Integer.MAX_VALUE, ""), "garbage per step (64)",
                            "--garbage-kb")
                    .valued("yes", oneOf("--report-only", "yes"), "the table and chart of the last run, without "
                            + "running", "--report-only").build(),
            new Builder("bench suite", Section.BENCH, "the side-by-side suite: Convoy, JFR and async-profiler on "
                    + "ping-pong, contention, thread churn, H2, snapshot, memory; without options: into "
                    + "docs/bench/suite-jdkNN.md and .png")
                    .valued("PATH", Check.ANY, "the java of the measured JVMs", "--java")
                    .valued("N", range("--runs", 1, Integer.MAX_VALUE, ""), "runs per configuration (5)", "--runs")
                    .valued("a,b", Check.ANY, "the workloads (docs/performance.md)", "--workloads")
                    .valued("a,b", Check.ANY, "the configurations (docs/performance.md)", "--configs")
                    .flag("smaller workloads, 2 runs", "--quick")
                    .valued("FILE", Check.ANY, "the Markdown file to write the results into (else printed)", "--out")
                    .valued("NAME", MARKER, "the section of --out to replace", "--marker")
                    .valued("PNG", Check.ANY, "the chart", "--plot")
                    .flag("keep the runs' files in test-apps/target/bench-suite", "--keep")
                    .flag("add the callback timing configurations", "--timing")
                    .valued("GC", oneOf("--gc", "serial", "parallel", "g1"), "serial, parallel or g1 (serial)", "--gc")
                    .build());

    /** Every command, in the order of the overall usage. */
    public static List<Command> all() {
        return ALL;
    }

    /**
     * The command {@code args} start with (its words: {@code bench suite} before {@code bench}),
     * or null.
     */
    public static Command find(String[] args) {
        Command best = null;
        for (Command c : ALL) {
            String[] words = c.name().split(" ");
            if (words.length <= args.length && Arrays.equals(words, Arrays.copyOf(args, words.length))
                    && (best == null || words.length > best.name().split(" ").length)) {
                best = c;
            }
        }
        return best;
    }

    /** The command named {@code name}. */
    public static Command get(String name) {
        return ALL.stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no command " + name));
    }

    /** The overall usage: every command of every section, with what it does. */
    public static String usage() {
        StringBuilder u = new StringBuilder();
        u.append("Convoy: an always-on flight recorder for JVM thread and monitor contention.\n\n");
        u.append("usage: ./convoy COMMAND [ARGS]      ./convoy COMMAND --help: that command's options\n");
        for (Section s : Section.values()) {
            u.append('\n').append(s.title).append('\n');
            for (Command c : ALL) {
                if (c.section() == s) {
                    u.append(c.listing());
                }
            }
        }
        u.append("\nRecord any application always-on:\n");
        u.append("  java -javaagent:recorder-mbean/target/convoy-agent.jar[=OPTIONS] -jar app.jar\n");
        u.append("Exit codes: 0 done, 1 failed (the reason on stderr), 2 bad arguments (and the usage).\n");
        u.append(Section.FILES.footer());
        return u.toString();
    }
}
