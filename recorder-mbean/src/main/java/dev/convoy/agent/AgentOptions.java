package dev.convoy.agent;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.convoy.export.AtomicFiles;
import dev.convoy.export.Output;

/**
 * The agent's options, parsed: {@code -javaagent:convoy-agent.jar=key=value,key=value,...}, the
 * keys and values of {@link Option}'s table. SIZE is a number of bytes with an optional k, m or
 * g suffix (powers of 1024); TIME a whole number of s, m, h or d (ms where an option says so).
 * Every error names the option and what it allows.
 */
public final class AgentOptions {

    /** Thrown for an unknown key, a malformed value or an impossible combination. */
    public static final class InvalidOptionException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        InvalidOptionException(String message) {
            super(message);
        }
    }


    static final long MIN_BUFFER = 4 << 10;
    static final long MAX_BUFFER = 64 << 20;
    static final long MIN_MEMORY = 1 << 20;
    /**
     * The largest memory cap. A snapshot holds up to the whole cap (rings, stack table and
     * object table, encoded no larger than they are in memory) plus the names and line tables
     * of the methods and classes it refers to, and is returned as one Java byte[], which holds
     * less than 2 GiB: 1 GiB leaves the other half for those names.
     */
    static final long MAX_MEMORY = 1L << 30;
    static final int MAX_STACK_DEPTH = 2048;
    static final long DEFAULT_OWNER_STACKS_NS = 5_000_000L;
    static final long MIN_OWNER_STACKS_NS = 1_000_000L;
    static final long MAX_OWNER_STACKS_NS = 60_000_000_000L;
    static final long MIN_HISTORY = 1 << 20;
    /**
     * The largest history. A snapshot decodes it (about 7 to 12 bytes a record) into 40-byte
     * records in one Java byte[] of less than 2 GiB: 256 MiB of history at the densest encoding
     * still fits.
     */
    static final long MAX_HISTORY = 256L << 20;
    static final long MAX_DISK = 1L << 40;

    private boolean recording = true;
    private int bufferBytes = 64 << 10;
    private long memoryCap = 64L << 20;
    private long historyBytes = 32L << 20;
    private long historyAgeNs;
    private Path repository;
    private long diskBytes = 256L << 20;
    private Path idleRulesFile;
    private dev.convoy.model.IdleRules idleRules = dev.convoy.model.IdleRules.DEFAULT;
    private Triggers.Spec dumpOn = Triggers.Spec.NONE;
    private long dumpWindowNs = 60_000_000_000L;
    private int dumpKeep = 10;
    /** The owner's side of blocks at least this long, ns; 0: off (option ownerstacks). */
    private long ownerStacksNs = DEFAULT_OWNER_STACKS_NS;
    private int stackDepth = 64;
    private Path dumpDir = Paths.get("convoy-out");
    private Set<Output> dumpOnExit = EnumSet.noneOf(Output.class);
    private long exitWindowNs;
    private String dumpName;
    /** The longest that a dump's file name adds to dumpname: a triggered dump's reasons, time and number. */
    static final String LONGEST_DUMP_TAIL = "-deadlock-block-periodic-20260101-120000-1000.cvysnap";
    /** The longest dumpname whose every dump file name Convoy can write. */
    public static final int MAX_DUMP_NAME = AtomicFiles.MAX_NAME_BYTES - LONGEST_DUMP_TAIL.length();
    private boolean emptyCallbacks;
    private boolean vmOwners = true;
    private String releasers = "vm";
    private boolean releasersGiven;
    private boolean idCache = true;
    private boolean stackCache = true;
    private boolean heldRefs = true;
    /** Default of vthreadevents: see docs/performance.md, "Virtual threads". */
    static final String VIRTUAL_THREAD_EVENTS_DEFAULT = "on";
    private String virtualThreadEvents = VIRTUAL_THREAD_EVENTS_DEFAULT;
    /** bench.vtcapability: the capability without the events (with vthreadevents=off). */
    private boolean vtCapability;
    private boolean contentionAnalysis;
    /** Default of stacks: see docs/performance.md, "Stack capture". */
    static final String STACKS_DEFAULT = "async";
    private String stacks = STACKS_DEFAULT;
    private boolean timing;
    private String text = "";
    private String httpHost;
    private int httpPort = -1;
    private String httpToken;

    private AgentOptions() {
    }

    /** Parses an option string; null or empty gives the defaults. */
    public static AgentOptions parse(String text) {
        AgentOptions o = new AgentOptions();
        o.text = text == null ? "" : text.trim();
        Map<String, String> seen = new LinkedHashMap<>();
        if (!o.text.isEmpty()) {
            for (String part : o.text.split(",", -1)) {
                int eq = part.indexOf('=');
                if (part.isBlank()) {
                    throw new InvalidOptionException("empty option in '" + o.text
                            + "'; options are key=value pairs separated by commas");
                }
                if (eq < 0) {
                    throw new InvalidOptionException("option '" + part.trim() + "' has no value; write "
                            + part.trim() + "=VALUE (options: " + allowed() + ")");
                }
                String key = part.substring(0, eq).trim().toLowerCase(Locale.ROOT);
                String value = part.substring(eq + 1).trim();
                Option option = Option.of(key).orElseThrow(() -> new InvalidOptionException("unknown option '" + key
                        + "'; options: " + allowed()));
                if (seen.put(key, value) != null) {
                    throw new InvalidOptionException("option '" + key + "' is given twice");
                }
                o.apply(option, value);
            }
        }
        o.checkCombination();
        return o;
    }

    /** The options a user may give, and where the benchmarks' are. */
    private static String allowed() {
        return String.join(", ", Option.userKeys()) + " (and, for benchmarks, "
                + String.join(", ", Option.benchKeys()) + ")";
    }

    private void apply(Option option, String value) {
        String key = option.key();
        switch (option) {
            case RECORDING -> recording = onOff(key, value);
            case BUFFER -> bufferBytes = (int) size(key, value, MIN_BUFFER, MAX_BUFFER);
            case MEMORY -> memoryCap = memory(key, value);
            case MAXSIZE -> historyBytes = size(key, value, MIN_HISTORY, MAX_HISTORY);
            case MAXAGE -> historyAgeNs = duration(key, value);
            case REPOSITORY -> {
                if (value.isEmpty()) {
                    throw new InvalidOptionException("option 'repository' needs a directory, e.g. repository=/var/tmp/convoy");
                }
                repository = Paths.get(value);
            }
            case DISKMAXSIZE -> diskBytes = size(key, value, MIN_HISTORY, MAX_DISK);
            case DUMPON -> dumpOn = triggers(key, value);
            case DUMPWINDOW -> {
                dumpWindowNs = duration(key, value);
                if (dumpWindowNs == 0) {
                    throw new InvalidOptionException("option 'dumpwindow' must be a duration above 0, e.g. dumpwindow=1m");
                }
            }
            case DUMPKEEP -> dumpKeep = integer(key, value, 1, 1000);
            case OWNERSTACKS -> ownerStacksNs = ownerStacks(key, value);
            case IDLERULES -> {
                if (value.isEmpty()) {
                    throw new InvalidOptionException("option 'idlerules' needs a file of rules, e.g. idlerules=/etc/convoy/idle.rules");
                }
                idleRulesFile = Paths.get(value);
                try {
                    idleRules = dev.convoy.model.IdleRules.load(idleRulesFile);
                } catch (java.nio.file.NoSuchFileException e) {
                    throw new InvalidOptionException("option 'idlerules': no such file: " + value);
                } catch (java.io.IOException e) {
                    throw new InvalidOptionException("option 'idlerules': cannot read " + value + ": " + e.getMessage());
                } catch (IllegalArgumentException e) {
                    throw new InvalidOptionException("option 'idlerules': " + e.getMessage());
                }
            }
            case STACKDEPTH -> stackDepth = integer(key, value, 0, MAX_STACK_DEPTH);
            case DUMPDIR -> {
                if (value.isEmpty()) {
                    throw new InvalidOptionException("option 'dumpdir' needs a directory, e.g. dumpdir=/var/tmp/convoy");
                }
                dumpDir = Paths.get(value);
            }
            case DUMPONEXIT -> dumpOnExit = formats(key, value);
            case EXITWINDOW -> exitWindowNs = duration(key, value);
            case DUMPNAME -> {
                if (value.isEmpty() || !value.matches("[A-Za-z0-9._-]+")) {
                    throw new InvalidOptionException("option 'dumpname' must be a file name of letters, digits, "
                            + "'.', '_' and '-', got '" + value + "'");
                }
                if (value.length() > MAX_DUMP_NAME) {
                    throw new InvalidOptionException("option 'dumpname' may have at most " + MAX_DUMP_NAME
                            + " characters, got " + value.length() + ": it names files such as NAME"
                            + LONGEST_DUMP_TAIL + ", and Convoy writes file names of at most "
                            + AtomicFiles.MAX_NAME_BYTES + " bytes");
                }
                dumpName = value;
            }
            case BENCH_CALLBACKS -> {
                if (!value.equals("full") && !value.equals("empty")) {
                    throw new InvalidOptionException("option 'bench.callbacks' must be full or empty, got '" + value + "'");
                }
                emptyCallbacks = value.equals("empty");
            }
            case OWNERS -> {
                if (!value.equals("vm") && !value.equals("inferred")) {
                    throw new InvalidOptionException("option 'owners' must be vm or inferred, got '" + value + "'");
                }
                vmOwners = value.equals("vm");
            }
            case RELEASERS -> {
                if (!value.equals("vm") && !value.equals("jfr") && !value.equals("inferred")) {
                    throw new InvalidOptionException("option 'releasers' must be vm, jfr or inferred, got '" + value + "'");
                }
                releasers = value;
                releasersGiven = true;
            }
            case BENCH_IDCACHE -> idCache = onOff(key, value);
            case BENCH_STACKCACHE -> stackCache = onOff(key, value);
            case BENCH_HELDREFS -> heldRefs = onOff(key, value);
            case CONTANALYSIS -> contentionAnalysis = onOff(key, value);
            case VTHREADEVENTS -> {
                virtualThreadEvents = onOff(key, value) ? "on" : "off";
            }
            case STACKS -> {
                if (!value.equals("async") && !value.equals("jvmti")) {
                    throw new InvalidOptionException("option 'stacks' must be async or jvmti, got '" + value + "'");
                }
                stacks = value;
            }
            case BENCH_TIMING -> timing = onOff(key, value);
            case HTTP -> httpAddress(value);
            case HTTPTOKEN -> {
                if (!value.matches("[A-Za-z0-9._~-]{8,256}")) {
                    throw new InvalidOptionException("option 'httptoken' must be 8 to 256 characters of letters, "
                            + "digits, '.', '_', '~' and '-'");
                }
                httpToken = value;
            }
            case BENCH_VTCAPABILITY -> vtCapability = onOff(key, value);
        }
    }

    private void httpAddress(String value) {
        int colon = value.lastIndexOf(':');
        String host = colon < 0 ? "" : value.substring(0, colon).trim();
        String port = colon < 0 ? "" : value.substring(colon + 1).trim();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty() || !host.matches("[A-Za-z0-9.:%_-]{1,253}") || !port.matches("[0-9]{1,5}")
                || Integer.parseInt(port) > 65535) {
            throw new InvalidOptionException("option 'http' must be HOST:PORT with a port from 0 (any free port) "
                    + "to 65535, e.g. http=127.0.0.1:8080, got '" + value + "'");
        }
        httpHost = host;
        httpPort = Integer.parseInt(port);
    }

    /**
     * Whether a host names the loopback interface, decided without a name lookup:
     * {@code localhost} or a loopback IP literal (127.0.0.0/8, ::1). Any other name counts
     * as public.
     */
    public static boolean isLoopback(String host) {
        if (host == null) {
            return false;
        }
        String h = host.trim();
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        if (h.equalsIgnoreCase("localhost")) {
            return true;
        }
        if (h.matches("[0-9.]+")) {
            String[] parts = h.split("\\.", -1);
            if (parts.length != 4) {
                return false;
            }
            for (String p : parts) {
                if (!p.matches("[0-9]{1,3}") || Integer.parseInt(p) > 255) {
                    return false;
                }
            }
            return parts[0].equals("127");
        }
        if (!h.matches("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*")) {
            return false; // a name: never looked up here
        }
        try {
            return java.net.InetAddress.getByName(h).isLoopbackAddress(); // a literal: no lookup
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    private void checkCombination() {
        if (httpHost != null && !isLoopback(httpHost) && httpToken == null) {
            throw new InvalidOptionException("option 'http' binds " + httpHost + ", which is not a loopback address: "
                    + "give an access token with option 'httptoken' (every request must carry it), or bind 127.0.0.1");
        }
        if (httpToken != null && httpHost == null) {
            throw new InvalidOptionException("option 'httptoken' needs option 'http' (the web view it protects)");
        }
        if (emptyCallbacks && httpHost != null) {
            throw new InvalidOptionException("option 'http' needs a recording, but bench.callbacks=empty records nothing");
        }
        if (bufferBytes > memoryCap / 4) {
            throw new InvalidOptionException("option 'buffer' (" + bufferBytes + " bytes) must be at most a quarter of "
                    + "option 'memory' (" + memoryCap + " bytes): raise memory or lower buffer");
        }
        if (emptyCallbacks && !dumpOnExit.isEmpty()) {
            throw new InvalidOptionException("option 'dumponexit' needs a recording, but bench.callbacks=empty records nothing");
        }
        if (exitWindowNs > 0 && dumpOnExit.isEmpty()) {
            throw new InvalidOptionException("option 'exitwindow' cuts the dump on exit, but option 'dumponexit' is none: "
                    + "add e.g. dumponexit=snapshot");
        }
        if (emptyCallbacks && !dumpOn.isEmpty()) {
            throw new InvalidOptionException("option 'dumpon' needs a recording, but bench.callbacks=empty records nothing");
        }
        if (emptyCallbacks && contentionAnalysis) {
            throw new InvalidOptionException("option 'contanalysis' needs a recording, but bench.callbacks=empty records nothing");
        }
        if (emptyCallbacks && timing) {
            throw new InvalidOptionException("option 'bench.timing' times the recorder's callbacks, but "
                    + "bench.callbacks=empty records nothing");
        }
        if (vtCapability && !virtualThreadEvents.equals("off")) {
            throw new InvalidOptionException("option 'bench.vtcapability=on' adds the capability without the events: "
                    + "it needs vthreadevents=off");
        }
        if (!vmOwners && !releasersGiven) {
            releasers = "inferred"; // nothing to read them with
        }
        if (!vmOwners && !releasers.equals("inferred")) {
            throw new InvalidOptionException("option 'releasers=" + releasers + "' reads releasers from the VM, which "
                    + "needs owners=vm");
        }
    }

    private static boolean onOff(String key, String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "on", "true", "yes" -> true;
            case "off", "false", "no" -> false;
            default -> throw new InvalidOptionException("option '" + key + "' must be on or off, got '" + value + "'");
        };
    }

    static long size(String key, String value, long min, long max) {
        String v = value.toLowerCase(Locale.ROOT);
        long unit = 1;
        if (v.endsWith("k")) {
            unit = 1L << 10;
        } else if (v.endsWith("m")) {
            unit = 1L << 20;
        } else if (v.endsWith("g")) {
            unit = 1L << 30;
        }
        String digits = unit == 1 ? v : v.substring(0, v.length() - 1);
        String allowed = " (allowed " + human(min) + " to " + human(max) + ")";
        if (!digits.matches("[0-9]{1,12}")) {
            throw new InvalidOptionException("option '" + key + "': '" + value + "' is not a size; write a number of "
                    + "bytes with an optional k, m or g suffix, e.g. " + key + "=" + human(min * 4) + allowed);
        }
        long n = Long.parseLong(digits);
        if (n > max / unit || n * unit < min || n * unit > max) {
            throw new InvalidOptionException("option '" + key + "': " + value + " is out of range" + allowed);
        }
        return n * unit;
    }

    private static long memory(String key, String value) {
        try {
            return size(key, value, MIN_MEMORY, MAX_MEMORY);
        } catch (InvalidOptionException e) {
            long n;
            try {
                n = size(key, value, 0, Long.MAX_VALUE);
            } catch (InvalidOptionException notASize) {
                throw e;
            }
            if (n > MAX_MEMORY) {
                throw new InvalidOptionException("option '" + key + "': " + value + " is too large: a snapshot holds up "
                        + "to the whole recorder memory and must fit in a Java byte[] (under 2 GiB); the largest "
                        + "allowed value is " + human(MAX_MEMORY) + " (allowed " + human(MIN_MEMORY) + " to "
                        + human(MAX_MEMORY) + ")");
            }
            throw e;
        }
    }

    /** dumpon: deadlock, block:DURATION, every:DURATION joined by '+'. */
    private static Triggers.Spec triggers(String key, String value) {
        boolean deadlock = false;
        long block = 0;
        long every = 0;
        String v = value.toLowerCase(Locale.ROOT);
        if (v.equals("none")) {
            return Triggers.Spec.NONE;
        }
        for (String t : v.split("\\+", -1)) {
            int colon = t.indexOf(':');
            String name = colon < 0 ? t : t.substring(0, colon);
            String arg = colon < 0 ? null : t.substring(colon + 1);
            switch (name) {
                case "deadlock" -> {
                    if (arg != null) {
                        throw new InvalidOptionException("option '" + key + "': 'deadlock' takes no value");
                    }
                    deadlock = true;
                }
                case "block", "every" -> {
                    if (arg == null || arg.isEmpty()) {
                        throw new InvalidOptionException("option '" + key + "': '" + name + "' needs a duration, e.g. "
                                + key + "=" + name + (name.equals("block") ? ":500ms" : ":10m"));
                    }
                    long ns;
                    try {
                        ns = arg.endsWith("ms") && arg.matches("[0-9]{1,7}ms") ? Long.parseLong(arg.substring(0,
                                arg.length() - 2)) * 1_000_000L : duration(key, arg);
                    } catch (InvalidOptionException e) {
                        throw new InvalidOptionException("option '" + key + "': '" + arg + "' is not a duration; write a "
                                + "whole number of ms, s, m, h or d, e.g. " + key + "=" + name + ":500ms");
                    }
                    if (ns <= 0) {
                        throw new InvalidOptionException("option '" + key + "': " + name + " needs a duration above 0");
                    }
                    if (name.equals("block")) {
                        block = ns;
                    } else if (ns < 10_000_000_000L) {
                        throw new InvalidOptionException("option '" + key + "': every:" + arg + " is too often; at least "
                                + "every:10s");
                    } else {
                        every = ns;
                    }
                }
                default -> throw new InvalidOptionException("option '" + key + "': unknown trigger '" + t + "'; write "
                        + "none, or deadlock, block:DURATION and every:DURATION joined by '+', e.g. " + key
                        + "=deadlock+block:500ms");
            }
        }
        return new Triggers.Spec(deadlock, block, every);
    }

    /** ownerstacks: off, or a threshold of 1ms to 60s written as a whole number of ms or s; in ns (0: off). */
    static long ownerStacks(String key, String value) {
        String v = value.toLowerCase(Locale.ROOT);
        if (v.equals("off")) {
            return 0;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9]{1,6})(ms|s)").matcher(v);
        long ns = !m.matches() ? -1 : Long.parseLong(m.group(1)) * (m.group(2).equals("s") ? 1_000_000_000L : 1_000_000L);
        if (ns < MIN_OWNER_STACKS_NS || ns > MAX_OWNER_STACKS_NS) {
            throw new InvalidOptionException("option '" + key + "' must be off or a duration of 1ms to 60s, a whole "
                    + "number of ms or s, e.g. " + key + "=5ms; got '" + value + "'");
        }
        return ns;
    }

    /** A duration: 0 (none), or a whole number with s, m, h or d; in ns. */
    static long duration(String key, String value) {
        String v = value.toLowerCase(Locale.ROOT);
        if (v.equals("0")) {
            return 0;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9]{1,7})(s|m|h|d)").matcher(v);
        if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
            throw new InvalidOptionException("option '" + key + "': '" + value + "' is not a duration; write 0 (none) "
                    + "or a whole number of s, m, h or d, e.g. " + key + "=10m");
        }
        long unit = switch (m.group(2)) {
            case "s" -> 1L;
            case "m" -> 60L;
            case "h" -> 3600L;
            default -> 86400L;
        };
        return Long.parseLong(m.group(1)) * unit * 1_000_000_000L;
    }

    static String humanDuration(long ns) {
        if (ns == 0) {
            return "0";
        }
        if (ns % 1_000_000_000L != 0) {
            return ns / 1_000_000L + "ms";
        }
        long s = ns / 1_000_000_000L;
        if (s % 86400 == 0) {
            return s / 86400 + "d";
        }
        if (s % 3600 == 0) {
            return s / 3600 + "h";
        }
        if (s % 60 == 0) {
            return s / 60 + "m";
        }
        return s + "s";
    }

    private static int integer(String key, String value, int min, int max) {
        if (!value.matches("[0-9]{1,9}")) {
            throw new InvalidOptionException("option '" + key + "': '" + value + "' is not a whole number (allowed "
                    + min + " to " + max + ")");
        }
        long n = Long.parseLong(value);
        if (n < min || n > max) {
            throw new InvalidOptionException("option '" + key + "': " + value + " is out of range (allowed "
                    + min + " to " + max + ")");
        }
        return (int) n;
    }

    private static Set<Output> formats(String key, String value) {
        String v = value.toLowerCase(Locale.ROOT);
        if (v.equals("none")) {
            return EnumSet.noneOf(Output.class);
        }
        if (v.equals("all")) {
            return EnumSet.allOf(Output.class);
        }
        Set<Output> out = EnumSet.noneOf(Output.class);
        for (String f : v.split("\\+", -1)) {
            try {
                out.addAll(Output.select(f));
            } catch (IllegalArgumentException e) {
                throw new InvalidOptionException("option '" + key + "': " + e.getMessage()
                        + "; write none, all, or formats joined by '+', e.g. " + key + "=chrome+tptp+csv");
            }
        }
        return out;
    }

    static String human(long bytes) {
        if (bytes % (1L << 30) == 0) {
            return (bytes >> 30) + "g";
        }
        if (bytes % (1L << 20) == 0) {
            return (bytes >> 20) + "m";
        }
        if (bytes % (1L << 10) == 0) {
            return (bytes >> 10) + "k";
        }
        return Long.toString(bytes);
    }

    public boolean recording() {
        return recording;
    }

    public int bufferBytes() {
        return bufferBytes;
    }

    public long memoryCap() {
        return memoryCap;
    }

    /** The rules that tell idle waits from contention: the built-in ones plus those of option idlerules. */
    public dev.convoy.model.IdleRules idleRules() {
        return idleRules;
    }

    /** Where the history's chunks are also written as files (option repository), or null. */
    public Path repository() {
        return repository;
    }

    /** When to dump a window of the history by itself (option dumpon). */
    public Triggers.Spec dumpOn() {
        return dumpOn;
    }

    /** History before its trigger that a triggered dump holds, in ns (option dumpwindow). */
    public long dumpWindowNs() {
        return dumpWindowNs;
    }

    /** Triggered dumps kept in the dump directory (option dumpkeep). */
    public int dumpKeep() {
        return dumpKeep;
    }

    /** The owner's side of blocks at least this long, in ns; 0 when off (option ownerstacks). */
    public long ownerStacksNs() {
        return emptyCallbacks ? 0 : ownerStacksNs;
    }

    /** Bound of the history, in bytes (option maxsize). */
    public long historyBytes() {
        return historyBytes;
    }

    /** Bound of the repository's files on disk, in bytes (option diskmaxsize). */
    public long diskBytes() {
        return diskBytes;
    }

    /** Age bound of the history, in ns; 0 = none (option maxage). */
    public long historyAgeNs() {
        return historyAgeNs;
    }

    public int stackDepth() {
        return stackDepth;
    }

    public Path dumpDir() {
        return dumpDir;
    }

    /** The last part of the history the dump on exit holds, in ns; 0 = all of it (option exitwindow). */
    public long exitWindowNs() {
        return exitWindowNs;
    }

    public Set<Output> dumpOnExit() {
        return Collections.unmodifiableSet(dumpOnExit);
    }

    /** Base name of dump files: the dumpname option, or convoy-PID. */
    public String dumpName() {
        return dumpName != null ? dumpName : "convoy-" + ProcessHandle.current().pid();
    }

    public boolean emptyCallbacks() {
        return emptyCallbacks;
    }

    /** Whether captured stacks are cached per thread (bench.stackcache=on). */
    public boolean stackCache() {
        return stackCache;
    }

    /** Whether first-seen objects are held until the recorder's maker thread makes their weak reference (bench.heldrefs=on). */
    public boolean heldRefs() {
        return heldRefs;
    }

    /** Whether monitor object ids are cached per thread (bench.idcache=on). */
    public boolean idCache() {
        return idCache;
    }

    /** How monitor releasers are known: vm, jfr or inferred (releasers=). */
    public String releasers() {
        return releasers;
    }

    /** Whether monitor owners are read from the JVM (owners=vm). */
    public boolean vmOwners() {
        return vmOwners;
    }

    /** vthreadevents: 0 off, 1 on (start and end recorded), 2 the capability only. */
    public int virtualThreadEvents() {
        return virtualThreadEvents.equals("on") ? 1 : vtCapability ? 2 : 0;
    }

    /** Whether contention analysis (bytecode instrumentation of call sites) starts on. */
    public boolean contentionAnalysis() {
        return contentionAnalysis;
    }

    /** stacks: 1 async (AsyncGetCallTrace, GetStackTrace as fallback), 0 jvmti (GetStackTrace). */
    public int stackCapture() {
        return stacks.equals("async") ? 1 : 0;
    }

    /**
     * Whether the callbacks are timed (bench.timing=on): a benchmark-only switch, see
     * docs/performance.md ("Where a callback's time goes").
     */
    public boolean timing() {
        return timing;
    }

    /** Host of the web view, or null when it is off. */
    public String httpHost() {
        return httpHost;
    }

    /** Port of the web view (0: any free port), -1 when it is off. */
    public int httpPort() {
        return httpPort;
    }

    /** The web view's access token, or null for none. Never part of {@link #effective()}. */
    public String httpToken() {
        return httpToken;
    }

    /** The option text as given. */
    public String text() {
        return text;
    }

    /**
     * Every option with its value in effect, for logs and snapshots, in {@link Option}'s order:
     * optional ones (a repository, rules, a web view, triggers) only when given, benchmark
     * options only when not at their default; the web view's token never.
     */
    public String effective() {
        List<String> parts = new ArrayList<>();
        for (Option o : Option.values()) {
            String v = value(o);
            if (v != null && !(o.bench() && o.defaultCell().equals("`" + v + "`"))) {
                parts.add(o.key() + "=" + v);
            }
        }
        return String.join(",", parts);
    }

    /** The value of an option in effect, as it would be written; null where it is not named. */
    private String value(Option o) {
        return switch (o) {
            case RECORDING -> onOff(recording);
            case BUFFER -> human(bufferBytes);
            case MEMORY -> human(memoryCap);
            case MAXSIZE -> human(historyBytes);
            case MAXAGE -> humanDuration(historyAgeNs);
            case REPOSITORY -> repository == null ? null : repository.toString();
            case DISKMAXSIZE -> repository == null ? null : human(diskBytes);
            case STACKDEPTH -> Integer.toString(stackDepth);
            case DUMPDIR -> dumpDir.toString();
            case DUMPONEXIT -> dumpOnExit.isEmpty() ? "none" : Output.join(dumpOnExit);
            case EXITWINDOW -> exitWindowNs == 0 ? null : humanDuration(exitWindowNs);
            case DUMPNAME -> dumpName();
            case IDLERULES -> idleRulesFile == null ? null : idleRulesFile.toString();
            case DUMPON -> dumpOn.isEmpty() ? null : dumpOn.toString();
            case DUMPWINDOW -> dumpOn.isEmpty() ? null : humanDuration(dumpWindowNs);
            case DUMPKEEP -> dumpOn.isEmpty() ? null : Integer.toString(dumpKeep);
            case OWNERSTACKS -> ownerStacksNs == 0 ? "off" : ownerStacksNs % 1_000_000_000L == 0
                    ? ownerStacksNs / 1_000_000_000L + "s" : ownerStacksNs / 1_000_000L + "ms";
            case OWNERS -> vmOwners ? "vm" : "inferred";
            case RELEASERS -> releasers;
            case CONTANALYSIS -> onOff(contentionAnalysis);
            case VTHREADEVENTS -> virtualThreadEvents;
            case STACKS -> stacks;
            case HTTP -> httpHost == null ? null
                    : (httpHost.contains(":") ? "[" + httpHost + "]" : httpHost) + ":" + httpPort;
            case HTTPTOKEN -> httpToken == null ? null : "(hidden)";
            case BENCH_CALLBACKS -> emptyCallbacks ? "empty" : "full";
            case BENCH_IDCACHE -> onOff(idCache);
            case BENCH_STACKCACHE -> onOff(stackCache);
            case BENCH_HELDREFS -> onOff(heldRefs);
            case BENCH_TIMING -> onOff(timing);
            case BENCH_VTCAPABILITY -> onOff(vtCapability);
        };
    }

    private static String onOff(boolean on) {
        return on ? "on" : "off";
    }
}
