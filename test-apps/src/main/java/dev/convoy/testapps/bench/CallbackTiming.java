package dev.convoy.testapps.bench;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The per-callback timing of the agent's benchmark-only switch {@code bench.timing=on}, as a snapshot
 * reports it in its INFO section (keys {@code timing.clock} and {@code timing.<event>}, grammar in
 * schema/snapshot-format.md), read, merged over runs and rendered as Markdown tables.
 *
 * <p>The event types and stages are those of native-recorder/src/timing.h ({@link #EVENTS},
 * {@link #STAGES}, in its order; TimingNamesTest holds the two lists to the header). A callback's
 * stages are consecutive intervals between time-stamp reads, so they add up to its whole duration.
 * Durations are histogrammed in ticks of the time-stamp counter (log2 buckets cut in 8): runs on
 * one machine merge bucket by bucket, and a quantile is the high bound of its bucket (at most 12.5 %
 * above the true value), never above the exact maximum.
 */
public final class CallbackTiming {

    /** The event types, in timing.h's order (CV_TIMING_EVENTS), lower case as in the INFO keys. */
    public static final List<String> EVENTS = List.of("monitor_enter", "monitor_entered", "monitor_wait",
            "monitor_waited", "park", "parked", "unpark");
    /** The stages, in timing.h's order (CV_TIMING_STAGES). */
    public static final List<String> STAGES = List.of("clock", "thread", "owner", "object", "walk", "intern", "ring");

    /** Column heads of the stages in the tables. */
    static final Map<String, String> STAGE_TITLES = Map.of("clock", "clock", "thread", "thread-local",
            "owner", "owner read", "object", "object id", "walk", "stack walk", "intern", "interning",
            "ring", "ring write");

    /** One stage of one event type: how many callbacks ran it, their time in it, the longest. */
    public record Stage(long count, long ns, long maxNs) {
        Stage plus(Stage o) {
            return new Stage(count + o.count, ns + o.ns, Math.max(maxNs, o.maxNs));
        }
    }

    /**
     * One event type: the callbacks that recorded a record, their whole time, the longest, those
     * that overlapped a GC pause and the longest of them, each stage, and the histogram of whole
     * durations (bucket low tick, inclusive, to {high tick, count}); then the callbacks that slept
     * (a voluntary context switch) and those preempted (an involuntary one), and the longest and
     * the histogram of those not preempted (-1 and empty in files that predate them).
     */
    public record Event(String name, long events, long ns, long maxNs, long gc, long gcMaxNs, Map<String, Stage> stages,
                        TreeMap<Long, long[]> histTicks, long slept, long preempted, long steadyMaxNs,
                        TreeMap<Long, long[]> steadyHistTicks) {

        /** Whether the run counted context switches. */
        public boolean hasSwitches() {
            return preempted >= 0;
        }

        public double meanNs() {
            return events == 0 ? Double.NaN : (double) ns / events;
        }

        /** Mean ns per callback spent in the stage (its total over all callbacks of the type). */
        public double stageMeanNs(String stage) {
            Stage s = stages.get(stage);
            return s == null || s.count == 0 || events == 0 ? Double.NaN : (double) s.ns / events;
        }
    }

    /**
     * One of the slowest callbacks: its type, when it began (monotonic ns, the clock of
     * {@code System.nanoTime()} and {@code -Xlog:...:tn}), how long it took, its longest stage and
     * that stage's time, whether it met a GC pause, and the safepoint it overlapped ("" none, null not
     * looked up).
     */
    public record Slow(String event, long startNs, long ns, String stage, long stageNs, boolean gc, int slept,
                       int preempted, String safepoint) {
        Slow withSafepoint(String sp) {
            return new Slow(event, startNs, ns, stage, stageNs, gc, slept, preempted, sp);
        }
    }

    /** How many of the slowest callbacks a snapshot reports and a merge keeps. */
    public static final int SLOWEST = 32;

    /** The clock: ns per tick, over how long it was calibrated, and what one time-stamp read costs. */
    public record Clock(String source, double nsPerTick, double seconds, double stampNs) {
    }

    private final Clock clock;
    private final Map<String, Event> events;
    private final List<Slow> slowest;
    private final int runs;

    private CallbackTiming(Clock clock, Map<String, Event> events, List<Slow> slowest, int runs) {
        this.clock = clock;
        this.events = Collections.unmodifiableMap(events);
        this.slowest = List.copyOf(slowest);
        this.runs = runs;
    }

    /** The slowest callbacks, slowest first. */
    public List<Slow> slowest() {
        return slowest;
    }

    /**
     * This run with each of its slowest callbacks tied to the longest safepoint it overlapped, from
     * the run's {@code -Xlog:safepoint} (same clock).
     */
    public CallbackTiming withSafepoints(List<SafepointLog.Safepoint> safepoints) {
        List<Slow> s = new ArrayList<>();
        for (Slow x : slowest) {
            s.add(x.withSafepoint(SafepointLog.longestOverlapping(safepoints, x.startNs(), x.ns())
                    .map(sp -> sp.name() + " " + duration(sp.totalNs())).orElse("")));
        }
        return new CallbackTiming(clock, events, s, runs);
    }

    public Clock clock() {
        return clock;
    }

    /** The event types present, in {@link #EVENTS}' order. */
    public Map<String, Event> events() {
        return events;
    }

    public Event event(String name) {
        return events.get(name);
    }

    /** How many runs were merged into this. */
    public int runs() {
        return runs;
    }

    /**
     * The timing in a snapshot's INFO; empty when the snapshot was taken without {@code bench.timing=on}
     * (no {@code timing.clock} key).
     *
     * @throws IllegalArgumentException if a timing key is malformed
     */
    public static Optional<CallbackTiming> fromInfo(Map<String, String> info) {
        String c = info.get("timing.clock");
        if (c == null) {
            return Optional.empty();
        }
        Map<String, String> cf = fields(c);
        Clock clock = new Clock(cf.getOrDefault("source", "?"), dbl(cf, "ns_per_tick"), dbl(cf, "seconds"),
                dbl(cf, "stamp_ns"));
        Map<String, Event> events = new LinkedHashMap<>();
        for (String name : EVENTS) {
            String v = info.get("timing." + name);
            if (v != null) {
                events.put(name, parseEvent(name, v));
            }
        }
        List<Slow> slow = new ArrayList<>();
        String sl = info.getOrDefault("timing.slowest", "");
        if (!sl.isEmpty()) {
            for (String x : sl.split(",")) {
                String[] p = x.split(":");
                if (p.length != 6 && p.length != 8) {
                    throw new IllegalArgumentException("timing.slowest: '" + x
                            + "' is not event:start_ns:ns:stage:stage_ns:gc[:slept:preempted]");
                }
                slow.add(new Slow(p[0], Long.parseLong(p[1]), Long.parseLong(p[2]), p[3], Long.parseLong(p[4]),
                        p[5].equals("1"), p.length == 8 ? Integer.parseInt(p[6]) : -1,
                        p.length == 8 ? Integer.parseInt(p[7]) : -1, null));
            }
        }
        return Optional.of(new CallbackTiming(clock, events, slow, 1));
    }

    /** One {@code timing.<event>} value. */
    static Event parseEvent(String name, String value) {
        Map<String, String> f = fields(value);
        Map<String, Stage> stages = new LinkedHashMap<>();
        String st = f.getOrDefault("stages", "");
        if (!st.isEmpty()) {
            for (String s : st.split(",")) {
                String[] p = s.split(":");
                if (p.length != 4) {
                    throw new IllegalArgumentException("timing." + name + ": stage '" + s + "' is not name:count:ns:max_ns");
                }
                stages.put(p[0], new Stage(Long.parseLong(p[1]), Long.parseLong(p[2]), Long.parseLong(p[3])));
            }
        }
        boolean switches = f.containsKey("preempted");
        return new Event(name, lng(f, "events", name), lng(f, "ns", name), lng(f, "max_ns", name), lng(f, "gc", name),
                lng(f, "gc_max_ns", name), stages, hist(f, "hist_ticks", name),
                switches ? lng(f, "slept", name) : -1, switches ? lng(f, "preempted", name) : -1,
                switches ? lng(f, "steady_max_ns", name) : -1, hist(f, "steady_hist_ticks", name));
    }

    /** A histogram field: low-high:count, comma-separated (empty when absent). */
    private static TreeMap<Long, long[]> hist(Map<String, String> f, String key, String name) {
        TreeMap<Long, long[]> hist = new TreeMap<>();
        String h = f.getOrDefault(key, "");
        if (!h.isEmpty()) {
            for (String b : h.split(",")) {
                int dash = b.indexOf('-');
                int colon = b.indexOf(':');
                if (dash <= 0 || colon <= dash) {
                    throw new IllegalArgumentException("timing." + name + ": bucket '" + b + "' is not low-high:count");
                }
                hist.put(Long.parseLong(b.substring(0, dash)), new long[] {Long.parseLong(b.substring(dash + 1, colon)),
                        Long.parseLong(b.substring(colon + 1))});
            }
        }
        return hist;
    }

    private static Map<String, String> fields(String value) {
        Map<String, String> f = new LinkedHashMap<>();
        for (String part : value.trim().split("\\s+")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                f.put(part.substring(0, eq), part.substring(eq + 1));
            }
        }
        return f;
    }

    private static long lng(Map<String, String> f, String key, String event) {
        String v = f.get(key);
        if (v == null) {
            throw new IllegalArgumentException("timing." + event + " has no " + key);
        }
        return Long.parseLong(v);
    }

    private static double dbl(Map<String, String> f, String key) {
        String v = f.get(key);
        if (v == null) {
            throw new IllegalArgumentException("timing.clock has no " + key);
        }
        return Double.parseDouble(v);
    }

    /**
     * The timing in a Convoy binary snapshot, read with the exporters' SnapshotReader from
     * {@code agentJar} (test-apps has no compile dependency on the exporters).
     */
    public static Optional<CallbackTiming> read(Path agentJar, Path snapshot) throws IOException {
        try (URLClassLoader cl = new URLClassLoader(new URL[] {agentJar.toUri().toURL()},
                CallbackTiming.class.getClassLoader())) {
            Class<?> reader = Class.forName("dev.convoy.snapshot.SnapshotReader", true, cl);
            Object rec = reader.getMethod("read", Path.class).invoke(null, snapshot);
            @SuppressWarnings("unchecked")
            Map<String, String> info = (Map<String, String>) rec.getClass().getMethod("info").invoke(rec);
            return fromInfo(info);
        } catch (ReflectiveOperationException e) {
            throw new IOException("cannot read " + snapshot + " with SnapshotReader from " + agentJar + ": " + e, e);
        }
    }

    /**
     * Several runs as one: counts and times add up, maxima are the largest, histograms merge bucket by
     * bucket (one machine: the same ticks), ns per tick is the runs' mean weighted by their length.
     */
    public static CallbackTiming merge(List<CallbackTiming> all) {
        if (all.isEmpty()) {
            throw new IllegalArgumentException("no runs to merge");
        }
        double secs = 0;
        double weighted = 0;
        double stamp = 0;
        int runs = 0;
        Map<String, Event> events = new LinkedHashMap<>();
        List<Slow> slow = new ArrayList<>();
        for (CallbackTiming t : all) {
            slow.addAll(t.slowest);
            secs += t.clock.seconds();
            weighted += t.clock.nsPerTick() * Math.max(t.clock.seconds(), 1e-9);
            stamp += t.clock.stampNs();
            runs += t.runs;
            for (Event e : t.events.values()) {
                events.merge(e.name(), e, CallbackTiming::mergeEvent);
            }
        }
        Map<String, Event> ordered = new LinkedHashMap<>();
        for (String name : EVENTS) {
            if (events.containsKey(name)) {
                ordered.put(name, events.get(name));
            }
        }
        Clock clock = new Clock(all.get(0).clock.source(), weighted / Math.max(secs, 1e-9 * all.size()), secs,
                stamp / all.size());
        slow.sort((x, y) -> Long.compare(y.ns(), x.ns()));
        return new CallbackTiming(clock, ordered, slow.subList(0, Math.min(SLOWEST, slow.size())), runs);
    }

    private static Event mergeEvent(Event a, Event b) {
        Map<String, Stage> stages = new LinkedHashMap<>(a.stages());
        b.stages().forEach((k, v) -> stages.merge(k, v, Stage::plus));
        boolean switches = a.hasSwitches() && b.hasSwitches();
        return new Event(a.name(), a.events() + b.events(), a.ns() + b.ns(), Math.max(a.maxNs(), b.maxNs()),
                a.gc() + b.gc(), Math.max(a.gcMaxNs(), b.gcMaxNs()), stages, mergeHist(a.histTicks(), b.histTicks()),
                switches ? a.slept() + b.slept() : -1, switches ? a.preempted() + b.preempted() : -1,
                switches ? Math.max(a.steadyMaxNs(), b.steadyMaxNs()) : -1,
                switches ? mergeHist(a.steadyHistTicks(), b.steadyHistTicks()) : new TreeMap<>());
    }

    private static TreeMap<Long, long[]> mergeHist(TreeMap<Long, long[]> a, TreeMap<Long, long[]> b) {
        TreeMap<Long, long[]> hist = new TreeMap<>();
        a.forEach((k, v) -> hist.put(k, v.clone()));
        b.forEach((k, v) -> hist.merge(k, v.clone(), (x, y) -> new long[] {Math.max(x[0], y[0]), x[1] + y[1]}));
        return hist;
    }

    /**
     * The q-quantile (0 &lt; q &lt;= 1) of an event type's whole durations in ns: the high bound of
     * the bucket holding the ceil(q * n)-th shortest, at most the maximum; NaN without callbacks.
     */
    public double quantileNs(String event, double q) {
        Event e = events.get(event);
        return e == null ? Double.NaN : quantile(e.histTicks(), e.maxNs(), q);
    }

    /** The same over the callbacks that were not preempted; NaN without them or without the counts. */
    public double steadyQuantileNs(String event, double q) {
        Event e = events.get(event);
        return e == null || !e.hasSwitches() ? Double.NaN : quantile(e.steadyHistTicks(), e.steadyMaxNs(), q);
    }

    private double quantile(TreeMap<Long, long[]> hist, long maxNs, double q) {
        long n = 0;
        for (long[] v : hist.values()) {
            n += v[1];
        }
        if (n == 0) {
            return Double.NaN;
        }
        long rank = Math.max(1, (long) Math.ceil(Math.min(q, 1) * n - 1e-9));
        long seen = 0;
        for (long[] v : hist.values()) {
            seen += v[1];
            if (seen >= rank) {
                return Math.min(v[0] * clock.nsPerTick(), maxNs);
            }
        }
        return maxNs;
    }

    /** The stage whose single longest interval was the longest, and that interval. */
    static Map.Entry<String, Stage> longestStage(Event e) {
        Map.Entry<String, Stage> best = null;
        for (Map.Entry<String, Stage> s : e.stages().entrySet()) {
            if (s.getValue().count() > 0 && (best == null || s.getValue().maxNs() > best.getValue().maxNs())) {
                best = s;
            }
        }
        return best;
    }

    /**
     * Mean ns per callback in each stage (the stage's total over every callback of the type: the
     * columns add up to the whole), "—" for a stage the type never runs.
     */
    public String stageTable() {
        StringBuilder sb = new StringBuilder("| event | callbacks |");
        for (String s : STAGES) {
            sb.append(' ').append(STAGE_TITLES.get(s)).append(" |");
        }
        sb.append(" whole | walk + interning |\n|---|---:|");
        sb.append("---:|".repeat(STAGES.size())).append("---:|---:|\n");
        for (Event e : events.values()) {
            if (e.events() == 0) {
                continue;
            }
            sb.append("| ").append(e.name()).append(" | ").append(String.format(Locale.ROOT, "%,d", e.events()))
                    .append(" |");
            for (String s : STAGES) {
                double m = e.stageMeanNs(s);
                sb.append(' ').append(Double.isNaN(m) ? "—" : f0(m)).append(" |");
            }
            double walk = nz(e.stageMeanNs("walk")) + nz(e.stageMeanNs("intern"));
            sb.append(' ').append(f0(e.meanNs())).append(" | ")
                    .append(e.stages().getOrDefault("walk", new Stage(0, 0, 0)).count() == 0 ? "—"
                            : String.format(Locale.ROOT, "%.0f %%", 100 * walk / e.meanNs()))
                    .append(" |\n");
        }
        return sb.toString();
    }

    /**
     * The whole durations per event type: p50, p99, p99.9, max, how many callbacks overlapped a GC
     * pause (and the longest of those), and the stage of the single longest interval; then how many
     * slept and how many were preempted, and p99.9 and max of those not preempted.
     */
    public String distributionTable() {
        StringBuilder sb = new StringBuilder("| event | callbacks | p50 | p99 | p99.9 | max | met a GC pause "
                + "(longest) | longest single stage | slept | preempted | not preempted: p99.9, max |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n");
        for (Event e : events.values()) {
            if (e.events() == 0) {
                continue;
            }
            Map.Entry<String, Stage> longest = longestStage(e);
            sb.append("| ").append(e.name())
                    .append(" | ").append(String.format(Locale.ROOT, "%,d", e.events()))
                    .append(" | ").append(duration(quantileNs(e.name(), 0.50)))
                    .append(" | ").append(duration(quantileNs(e.name(), 0.99)))
                    .append(" | ").append(duration(quantileNs(e.name(), 0.999)))
                    .append(" | ").append(duration(e.maxNs()))
                    .append(" | ").append(e.gc() == 0 ? "0" : String.format(Locale.ROOT, "%,d (%s)", e.gc(),
                            duration(e.gcMaxNs())))
                    .append(" | ").append(longest == null ? "—" : STAGE_TITLES.get(longest.getKey()) + " "
                            + duration(longest.getValue().maxNs()))
                    .append(" | ").append(e.hasSwitches() ? String.format(Locale.ROOT, "%,d", e.slept()) : "—")
                    .append(" | ").append(e.hasSwitches() ? String.format(Locale.ROOT, "%,d", e.preempted()) : "—")
                    .append(" | ").append(e.hasSwitches() ? duration(steadyQuantileNs(e.name(), 0.999)) + ", "
                            + duration(e.steadyMaxNs() < 0 ? Double.NaN : e.steadyMaxNs()) : "—")
                    .append(" |\n");
        }
        return sb.toString();
    }

    /**
     * The {@code n} slowest callbacks: type, duration, longest stage, whether they met a GC pause and,
     * when looked up, the safepoint they overlapped.
     */
    public String slowestTable(int n) {
        boolean sp = slowest.stream().anyMatch(x -> x.safepoint() != null);
        StringBuilder sb = new StringBuilder("| event | duration | longest stage | met a GC pause | context switches "
                + "(slept / preempted) |" + (sp ? " overlapping safepoint (its length) |" : "") + "\n|---|---:|---|---|---|"
                + (sp ? "---|" : "") + "\n");
        for (Slow x : slowest.subList(0, Math.min(n, slowest.size()))) {
            sb.append("| ").append(x.event()).append(" | ").append(duration(x.ns())).append(" | ")
                    .append(STAGE_TITLES.getOrDefault(x.stage(), x.stage())).append(' ').append(duration(x.stageNs()))
                    .append(" | ").append(x.gc() ? "yes" : "no").append(" | ")
                    .append(x.preempted() < 0 ? "—" : x.slept() + " / " + x.preempted()).append(" |");
            if (sp) {
                sb.append(' ').append(x.safepoint() == null ? "?" : x.safepoint().isEmpty() ? "none"
                        : x.safepoint()).append(" |");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** The tables with a line on the clock, for a report. */
    public String section(String title) {
        return "**" + title + "** (" + runs + (runs == 1 ? " run" : " runs") + "; " + clock.source() + ", "
                + String.format(Locale.ROOT, "%.4f", clock.nsPerTick()) + " ns per tick, one time-stamp read "
                + String.format(Locale.ROOT, "%.1f", clock.stampNs()) + " ns)\n\n"
                + "Mean ns per callback, by stage:\n\n" + stageTable() + "\nWhole callback durations:\n\n"
                + distributionTable()
                + (slowest.isEmpty() ? "" : "\nThe " + Math.min(10, slowest.size()) + " slowest callbacks:\n\n"
                + slowestTable(10));
    }

    /** A stage's title in the tables ("object id" for object), else the name given. */
    public static String stageTitle(String stage) {
        return STAGE_TITLES.getOrDefault(stage, stage);
    }

    /** ns as "850 ns", "12.3 µs" or "7.41 ms". */
    public static String duration(double ns) {
        if (Double.isNaN(ns)) {
            return "—";
        }
        if (ns < 10_000) {
            return String.format(Locale.ROOT, "%.0f ns", ns);
        }
        if (ns < 1_000_000) {
            return String.format(Locale.ROOT, "%.1f µs", ns / 1e3);
        }
        return String.format(Locale.ROOT, "%.2f ms", ns / 1e6);
    }

    private static double nz(double v) {
        return Double.isNaN(v) ? 0 : v;
    }

    private static String f0(double v) {
        return String.format(Locale.ROOT, "%.0f", v);
    }

    /** Lists of every merged run's timing, per key, kept in insertion order. */
    public static final class Collector {
        private final Map<String, List<CallbackTiming>> runs = new LinkedHashMap<>();

        public void add(String key, CallbackTiming t) {
            runs.computeIfAbsent(key, k -> new ArrayList<>()).add(t);
        }

        public boolean isEmpty() {
            return runs.isEmpty();
        }

        /** Every key's runs merged. */
        public Map<String, CallbackTiming> merged() {
            Map<String, CallbackTiming> m = new LinkedHashMap<>();
            runs.forEach((k, v) -> m.put(k, merge(v)));
            return m;
        }
    }
}
