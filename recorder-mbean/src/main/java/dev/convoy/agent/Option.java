package dev.convoy.agent;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The agent's options, declared once: {@code -javaagent:convoy-agent.jar=key=value,...}. Each
 * has its key, the values it takes, its default and what it means. {@link AgentOptions} parses
 * them by this table and derives its INFO line ({@link AgentOptions#effective()}) from it; the
 * README's option tables are its {@link #row()}s, and the user guide and docs/performance.md
 * name every user and benchmark option, which {@code OptionDocsTest} checks.
 *
 * <p>Benchmark options ({@link #bench()}) are named {@code bench.*}: they exist to measure the
 * recorder (a floor, a cache turned off, timing); they are documented with the benchmarks
 * (docs/performance.md), not in the README, and named in the INFO line only when not at their
 * default.
 */
public enum Option {

    RECORDING("recording", "on|off", "`on`", "record monitor, park and GC events from the start"),
    BUFFER("buffer", "SIZE", "`64k`", "ring per thread (4k to 64m), where events wait for the recorder's thread"),
    MEMORY("memory", "SIZE", "`64m`", "cap on the rings and tables (1m to 1g, at least 4 × buffer)"),
    MAXSIZE("maxsize", "SIZE", "`32m`", "bound of the history in memory (1m to 256m), about 10 bytes an event; the "
            + "oldest age out first, counted"),
    MAXAGE("maxage", "TIME", "`0`", "events older than this age out of the history (`30s`, `10m`, `2h`; `0`: none)"),
    REPOSITORY("repository", "DIR", "none", "also write the history into a new folder of DIR as files that survive a "
            + "crash, read by `./convoy report\\|convert FOLDER`"),
    DISKMAXSIZE("diskmaxsize", "SIZE", "`256m`", "bound of that folder on disk (1m to 1024g); the oldest files go first, "
            + "also by `maxage`"),
    STACKDEPTH("stackdepth", "N", "`64`", "frames per stack (0 to 2048; `0`: no stacks)"),
    DUMPDIR("dumpdir", "DIR", "`convoy-out`", "where dumps are written"),
    DUMPONEXIT("dumponexit", "FORMATS", "`none`", "dump when the JVM exits: `none`, `all`, or formats joined by `+` "
            + "(`chrome+jfr+snapshot`)"),
    EXITWINDOW("exitwindow", "TIME", "all", "the dump on exit holds only the last TIME of the history (`10m`)"),
    DUMPNAME("dumpname", "NAME", "`convoy-PID`", "base name of the dump files (at most "
            + AgentOptions.MAX_DUMP_NAME + " characters)"),
    IDLERULES("idlerules", "FILE", "none", "rules that tell idle waits from contention, added to the built-in ones"),
    DUMPON("dumpon", "TRIGGERS", "`none`", "dump a window of the history by itself on `deadlock`, `block:500ms`, "
            + "`every:10m`, joined by `+`"),
    DUMPWINDOW("dumpwindow", "TIME", "`1m`", "history before its trigger that such a dump holds (and 2 s after)"),
    DUMPKEEP("dumpkeep", "N", "`10`", "such dumps kept in the dump directory, the oldest deleted"),
    OWNERSTACKS("ownerstacks", "TIME|off", "`5ms`", "for a block longer than this (1ms to 60s), the owner's state, "
            + "stack and the frame holding the lock"),
    OWNERS("owners", "vm|inferred", "`vm`", "read each contended monitor's exact owner from the JVM, or leave owners "
            + "to the analysis (marked inferred)"),
    RELEASERS("releasers", "vm|jfr|inferred", "`vm`", "who let a monitor go to a blocked thread: read from the JVM "
            + "while a JFR recording allows; `jfr` starts one for it (costly on hot locks)"),
    CONTANALYSIS("contanalysis", "on|off", "`off`", "instrument calls of `Thread.start/join/interrupt/sleep` and "
            + "`notify` to record who woke or started whom; switchable by the MBean"),
    VTHREADEVENTS("vthreadevents", "on|off", "`on`", "record virtual threads' real start and end (JDK 21+)"),
    STACKS("stacks", "async|jvmti", "`async`", "walk stacks with `AsyncGetCallTrace` where it is safe, or always with "
            + "JVMTI `GetStackTrace`; same frames either way"),
    HTTP("http", "HOST:PORT", "none", "serve the web view (port `0`: a free port, logged on stderr); use "
            + "`127.0.0.1`"),
    HTTPTOKEN("httptoken", "TOKEN", "none", "required when HOST is not loopback: every request carries it "
            + "(`X-Convoy-Token` or `?token=`), else 401"),

    BENCH_CALLBACKS("bench.callbacks", "full|empty", "`full`", "`empty` registers JVMTI callbacks that do nothing: "
            + "the benchmark floor; records nothing"),
    BENCH_IDCACHE("bench.idcache", "on|off", "`on`", "`off`: every event asks JVMTI for its object's id (the id "
            + "cache's saving); same ids"),
    BENCH_STACKCACHE("bench.stackcache", "on|off", "`on`", "`off`: every stack is walked (the stack cache's saving); "
            + "same stacks"),
    BENCH_HELDREFS("bench.heldrefs", "on|off", "`on`", "`off`: a new monitor object's weak reference is made in the "
            + "callback (the held references' saving)"),
    BENCH_TIMING("bench.timing", "on|off", "`off`", "time every callback stage by stage into INFO `timing.*` "
            + "(`./convoy bench --timing`)"),
    BENCH_VTCAPABILITY("bench.vtcapability", "on|off", "`off`", "`on` with `vthreadevents=off`: add "
            + "`can_support_virtual_threads` without its events (the capability's own cost)");

    /** The prefix of benchmark options. */
    public static final String BENCH_PREFIX = "bench.";

    private final String key;
    private final String syntax;
    private final String defaultCell;
    private final String meaning;

    Option(String key, String values, String defaultCell, String meaning) {
        this.key = key;
        this.syntax = values;
        this.defaultCell = defaultCell;
        this.meaning = meaning;
    }

    /** The key, as written before '='. */
    public String key() {
        return key;
    }

    /** The values it takes, as the README writes them after '=': {@code on|off}, {@code SIZE}, ... */
    public String syntax() {
        return syntax;
    }

    /** The default, as the README's table writes it (Markdown). */
    public String defaultCell() {
        return defaultCell;
    }

    /** What it means, in one short Markdown sentence. */
    public String meaning() {
        return meaning;
    }

    /** Whether it exists for benchmarks only ({@code bench.*}). */
    public boolean bench() {
        return key.startsWith(BENCH_PREFIX);
    }

    /** Its row of the README's option table (benchmark options: of docs/performance.md's). */
    public String row() {
        return "| `" + key + "=" + syntax.replace("|", "\\|") + "` | " + defaultCell + " | " + meaning + " |";
    }

    /** The option of a key, if there is one. */
    public static Optional<Option> of(String key) {
        return Arrays.stream(values()).filter(o -> o.key.equals(key)).findFirst();
    }

    /** The keys of the user's options (not the benchmarks'), in the table's order. */
    public static List<String> userKeys() {
        return Arrays.stream(values()).filter(o -> !o.bench()).map(Option::key).toList();
    }

    /** The keys of the benchmark options. */
    public static List<String> benchKeys() {
        return Arrays.stream(values()).filter(Option::bench).map(Option::key).toList();
    }

    @Override
    public String toString() {
        return key.toLowerCase(Locale.ROOT);
    }
}
