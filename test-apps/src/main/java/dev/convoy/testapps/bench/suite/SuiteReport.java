package dev.convoy.testapps.bench.suite;

import dev.convoy.testapps.bench.CallbackTiming;
import dev.convoy.testapps.bench.Stats;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/** Markdown for the suite's results: one table per workload and the targets, met or missed. */
public final class SuiteReport {

    private SuiteReport() {
    }

    /** The table of a throughput/latency workload (every workload but snapshot and memory). */
    public static String table(Measurements m) {
        Measurements.Spec s = m.spec();
        Stats none = m.stats(SuiteConfig.NONE);
        Stats floor = m.stats(SuiteConfig.FLOOR);
        StringBuilder sb = new StringBuilder();
        sb.append("| Configuration | Median ").append(s.unit()).append(" | Min | Max | Spread | vs no agent ");
        if (s.eventsPerOp() > 0) {
            sb.append("| ns/event above no agent ");
        }
        if (s.perPark()) {
            sb.append("| Parks/op | ns/park above no agent | Convoy records/park | Parks in the output ");
        }
        if (s.fidelity()) {
            sb.append("| Captured / ground truth ");
        }
        if (isH2(s.id())) {
            sb.append("| p50 µs | p99 µs ");
        }
        sb.append("|\n|---|---:|---:|---:|---:|---:|");
        if (s.eventsPerOp() > 0) {
            sb.append("---:|");
        }
        if (s.perPark()) {
            sb.append("---:|---:|---:|---:|");
        }
        if (s.fidelity()) {
            sb.append("---:|");
        }
        if (isH2(s.id())) {
            sb.append("---:|---:|");
        }
        sb.append('\n');
        for (SuiteConfig c : m.configs()) {
            Stats st = m.stats(c);
            if (st == null) {
                continue;
            }
            sb.append("| ").append(c.label())
                    .append(" | ").append(num(st.median()))
                    .append(" | ").append(num(st.min()))
                    .append(" | ").append(num(st.max()))
                    .append(" | ").append(f1(st.spreadPercent())).append(" %")
                    .append(" | ").append(c == SuiteConfig.NONE || none == null ? "—"
                            : signed(m.overheadPercent(st.median(), none.median())) + " %");
            if (s.eventsPerOp() > 0) {
                sb.append(" | ").append(c == SuiteConfig.NONE || none == null ? "—"
                        : f1((st.median() - none.median()) / s.eventsPerOp()));
            }
            if (s.perPark()) {
                double rp = m.convoyRecordsPerPark(c);
                sb.append(" | ").append(f2(m.parksPerOp(c)))
                        .append(" | ").append(c == SuiteConfig.NONE ? "—" : num(m.nsPerParkAboveNone(c)))
                        .append(" | ").append(c.tool() != SuiteConfig.Tool.CONVOY || Double.isNaN(rp) ? "—" : f2(rp))
                        .append(" | ").append(parksCapturedText(m, c));
            }
            if (s.fidelity()) {
                double f = m.fidelity(c);
                sb.append(" | ").append(Double.isNaN(f) ? "—" : fidelityText(m, c));
            }
            if (isH2(s.id())) {
                sb.append(" | ").append(num(Stats.of(m.values(c, "p50_us")).median()))
                        .append(" | ").append(num(Stats.of(m.values(c, "p99_us")).median()));
            }
            sb.append(" |\n");
        }
        if (floor == null) {
            return sb.toString();
        }
        return sb.toString();
    }

    /** e.g. {@code 100.0 % (51482 of 51482)}: the run closest to the median share; — if none. */
    static String parksCapturedText(Measurements m, SuiteConfig c) {
        double f = m.parksCaptured(c);
        if (Double.isNaN(f)) {
            return "—";
        }
        Map<String, String> best = null;
        double bestD = Double.MAX_VALUE;
        for (Map<String, String> r : m.runs(c)) {
            if (r.containsKey(Measurements.CAPTURED_PARKS) && r.containsKey("parks_total")) {
                double d = Math.abs(ResultLine.number(r, Measurements.CAPTURED_PARKS)
                        / ResultLine.number(r, "parks_total") - f);
                if (d < bestD) {
                    bestD = d;
                    best = r;
                }
            }
        }
        return f1(100 * f) + " %" + (best == null ? "" : " (" + best.get(Measurements.CAPTURED_PARKS) + " of "
                + best.get("parks_total") + ")");
    }

    /** e.g. {@code 100.0 % (4012 of 4012)} for the median run. */
    static String fidelityText(Measurements m, SuiteConfig c) {
        List<Map<String, String>> rs = m.runs(c);
        double f = m.fidelity(c);
        // the run closest to the median ratio, for the absolute numbers
        Map<String, String> best = null;
        double bestD = Double.MAX_VALUE;
        for (Map<String, String> r : rs) {
            if (r.containsKey("captured") && r.containsKey("truth_enter")) {
                double d = Math.abs(ResultLine.number(r, "captured") / ResultLine.number(r, "truth_enter") - f);
                if (d < bestD) {
                    bestD = d;
                    best = r;
                }
            }
        }
        String abs = best == null ? "" : " (" + best.get("captured") + " of " + best.get("truth_enter") + ")";
        if (best != null && best.containsKey("convoy_recorded") && best.containsKey("convoy_overwritten")) {
            abs += "; rings: " + best.get("convoy_recorded") + " records written, " + best.get("convoy_overwritten")
                    + " overwritten";
        }
        return f1(100 * f) + " %" + abs;
    }

    /** One target: what, the figure, met or missed and by how much. */
    public record Target(String what, String figure, boolean met, String margin, boolean resolved,
                         String unresolved) {
        static final String NOISE = "not resolved: the run-to-run noise is larger than the target";

        public Target(String what, String figure, boolean met, String margin, boolean resolved) {
            this(what, figure, met, margin, resolved, NOISE);
        }

        public Target(String what, String figure, boolean met, String margin) {
            this(what, figure, met, margin, true);
        }

        public String line() {
            String verdict = resolved ? (met ? "met" : "missed") : unresolved;
            return "- " + what + ": " + figure + " — **" + verdict + "** (" + margin + ")";
        }
    }

    /**
     * Per-park targets of a park workload: Convoy's added cost per park at most JFR's with
     * jdk.ThreadPark at threshold 0, default against JFR with stacks, ring only against JFR
     * without. Not resolved when the difference per operation is below half the larger run-to-run
     * range (max − min) of the two; not measured when Convoy wrote fewer records than the run made
     * parks (an agent without park recording).
     */
    public static List<Target> parkTargets(Measurements m) {
        List<Target> t = new ArrayList<>();
        String wl = m.spec().id();
        for (SuiteConfig[] pair : new SuiteConfig[][] {{SuiteConfig.DEFAULT, SuiteConfig.JFR0S},
                {SuiteConfig.RING, SuiteConfig.JFR0}}) {
            SuiteConfig c = pair[0];
            SuiteConfig j = pair[1];
            Stats sc = m.stats(c);
            Stats sj = m.stats(j);
            double cc = m.nsPerParkAboveNone(c);
            double cj = m.nsPerParkAboveNone(j);
            if (sc == null || sj == null || Double.isNaN(cc) || Double.isNaN(cj)) {
                continue;
            }
            String what = "Convoy's added cost per park ≤ JFR's (" + wl + "), " + c.label() + " vs " + j.label();
            String figure = f1(cc) + " vs " + f1(cj) + " ns/park above no agent";
            double rp = m.convoyRecordsPerPark(c);
            if (Double.isNaN(rp) || rp < 1) {
                t.add(new Target(what, figure, false, "Convoy wrote " + (Double.isNaN(rp) ? "no count of" : f2(rp))
                        + " records per park: its row is an agent that does not record parks", false,
                        "not measured: this agent does not record parks"));
                continue;
            }
            double diffPerOp = Math.abs(cc - cj) * m.parksPerOp(c);
            double noise = 0.5 * Math.max(sc.spread(), sj.spread());
            t.add(new Target(what, figure, cc <= cj,
                    (cc <= cj ? "margin " + f1(cj - cc) : "over by " + f1(cc - cj)) + " ns/park; half the larger "
                            + "run-to-run range " + num(noise) + " " + m.spec().unit(), diffPerOp >= noise));
        }
        return t;
    }

    /**
     * Per-event targets from the ping-pong: Convoy default at most half of JFR threshold 0 with
     * stacks (costs above no agent), and ring only within 10 % of the floor.
     */
    public static List<Target> pingPongTargets(Measurements pp) {
        List<Target> t = new ArrayList<>();
        Stats none = pp.stats(SuiteConfig.NONE);
        Stats jfr = pp.stats(SuiteConfig.JFR0S);
        Stats floor = pp.stats(SuiteConfig.FLOOR);
        Stats ring = pp.stats(SuiteConfig.RING);
        int e = pp.spec().eventsPerOp();
        for (SuiteConfig c : List.of(SuiteConfig.DEFAULT, SuiteConfig.JVMTI_STACKS)) {
            Stats def = pp.stats(c);
            if (none == null || def == null || jfr == null) {
                continue;
            }
            double cd = (def.median() - none.median()) / e;
            double cj = (jfr.median() - none.median()) / e;
            double ratio = cd / cj;
            t.add(new Target(c.label() + " per-event cost ≤ JFR threshold 0 with stacks (ping-pong, above no agent)",
                    f1(cd) + " ns vs " + f1(cj) + " ns: ratio " + f2(ratio), ratio <= 1.0,
                    ratio <= 1.0 ? "margin " + f1(cj - cd) + " ns/event" : "over by " + f1(cd - cj) + " ns/event"));
            t.add(new Target(c.label() + " per-event cost ≤ ½ of JFR threshold 0 with stacks (ping-pong, above no agent)",
                    f1(cd) + " ns vs " + f1(cj) + " ns: ratio " + f2(ratio), ratio <= 0.5,
                    ratio <= 0.5 ? "margin " + f1(0.5 * cj - cd) + " ns/event"
                            : "over by " + f1(cd - 0.5 * cj) + " ns/event; would need " + f1(0.5 * cj) + " ns"));
        }
        if (floor != null && ring != null && none != null) {
            double r = ring.median() / floor.median();
            t.add(new Target("Convoy ring only within 10 % of the JVMTI floor (ping-pong round trip time)",
                    num(ring.median()) + " vs " + num(floor.median()) + " ns/round trip: +" + f1(100 * (r - 1)) + " %",
                    r <= 1.10, r <= 1.10 ? "margin " + f1(100 * (1.10 - r)) + " points"
                            : "over by " + f1(100 * (r - 1.10)) + " points, " + f1((ring.median() - 1.1 * floor.median()) / e)
                            + " ns/event"));
            double cr = (ring.median() - none.median()) / e;
            double cf = (floor.median() - none.median()) / e;
            t.add(new Target("(stricter reading) ring-only cost per event within 10 % of the floor's, both above no agent",
                    f1(cr) + " vs " + f1(cf) + " ns/event", cr <= 1.1 * cf,
                    cr <= 1.1 * cf ? "within" : "over by " + f1(cr - 1.1 * cf) + " ns/event"));
        }
        return t;
    }

    /** The H2 throughput workloads (not h2ab, whose measure is the paired overhead). */
    public static boolean isH2(String id) {
        return id.equals("h2") || id.equals("h2cpus");
    }

    static final double TAIL_P999_NS = 50_000;
    static final double TAIL_MAX_NS = 1_000_000;

    /**
     * Issue 14's callback tails, over every event type of a timed run: p99.9 under 50 µs and the
     * maximum under 1 ms. A miss says by how much and why, from the run's own counts: how many
     * callbacks slept or were preempted (more than 0.1 % of them sets the p99.9), the same figure
     * without the preempted ones, and the slowest callback's longest stage. With the machine's
     * stalls measured (may be null), also the share of each event type's callbacks that, at their
     * median length, meet a stall of the machine's over the limit: callbacks over it that no code of
     * the recorder's can prevent, and that no switch count shows.
     */
    public static List<Target> tailTargets(String what, CallbackTiming t, MachineStalls stalls) {
        List<CallbackTiming.Event> events = t.events().values().stream().filter(e -> e.events() > 0).toList();
        if (events.isEmpty()) {
            return List.of();
        }
        boolean counted = events.stream().allMatch(CallbackTiming.Event::hasSwitches);
        String why = !counted ? "" : "; callbacks that slept or were preempted: "
                + join(events, e -> e.name() + ' ' + String.format(Locale.ROOT,
                "%,d slept and %,d preempted of %,d (%.2f %%)", e.slept(), e.preempted(), e.events(),
                100.0 * (e.slept() + e.preempted()) / e.events()))
                + " (a p99.9 lets 0.1 % through)";
        if (stalls != null) {
            why += machineShare(t, events, stalls, (long) TAIL_P999_NS, "0.1 %");
        }
        CallbackTiming.Slow slowest = t.slowest().isEmpty() ? null : t.slowest().get(0);
        String slow = slowest == null ? "" : "; the slowest: " + slowest.event() + " "
                + CallbackTiming.duration(slowest.ns()) + ", of which " + CallbackTiming.stageTitle(slowest.stage())
                + " " + CallbackTiming.duration(slowest.stageNs())
                + (slowest.preempted() < 0 ? "" : ", slept " + slowest.slept() + " / preempted " + slowest.preempted())
                + (slowest.gc() ? ", met a GC pause" : "");
        if (stalls != null) {
            slow += machineShare(t, events, stalls, (long) TAIL_MAX_NS, "none");
        }
        return List.of(
                tailTarget("Callback p99.9 < 50 µs, every event type, " + what, TAIL_P999_NS, events,
                        e -> t.quantileNs(e.name(), 0.999), e -> t.steadyQuantileNs(e.name(), 0.999), counted, why),
                tailTarget("Callback max < 1 ms, every event type, " + what, TAIL_MAX_NS, events,
                        e -> e.maxNs(), e -> e.steadyMaxNs(), counted, slow));
    }

    /**
     * One tail target: every event type's value against the limit, the worst deciding; a miss
     * adds the values without the preempted callbacks (when the run counted them) and `why`.
     */
    private static Target tailTarget(String what, double limit, List<CallbackTiming.Event> events,
                                     ToDoubleFunction<CallbackTiming.Event> value,
                                     ToDoubleFunction<CallbackTiming.Event> steady, boolean counted, String why) {
        CallbackTiming.Event worst = events.get(0);
        double worstValue = value.applyAsDouble(worst);
        double steadyWorst = 0;
        for (CallbackTiming.Event e : events) {
            double v = value.applyAsDouble(e);
            if (v > worstValue) {
                worst = e;
                worstValue = v;
            }
            double sv = steady.applyAsDouble(e);
            steadyWorst = Math.max(steadyWorst, Double.isNaN(sv) ? 0 : sv);
        }
        boolean met = worstValue <= limit;
        String margin = met ? "margin " + CallbackTiming.duration(limit - worstValue) + " (" + worst.name() + ")"
                : "over by " + CallbackTiming.duration(worstValue - limit) + " (" + worst.name() + ")"
                + (counted ? "; without the preempted callbacks: "
                + join(events, e -> e.name() + ' ' + CallbackTiming.duration(steady.applyAsDouble(e)))
                + " (" + (steadyWorst <= limit ? "met" : "missed") + ")" : "") + why;
        return new Target(what, join(events, e -> e.name() + ' ' + CallbackTiming.duration(value.applyAsDouble(e))),
                met, margin);
    }

    /**
     * Each event type's share of callbacks that meet a machine stall over `limitNs` at their median
     * length (not the mean, which the slow callbacks themselves would inflate).
     */
    private static String machineShare(CallbackTiming t, List<CallbackTiming.Event> events, MachineStalls stalls,
                                       long limitNs, String allowed) {
        return "; owed to the machine alone (a stall over " + CallbackTiming.duration(limitNs) + " "
                + String.format(Locale.ROOT, "%.1f", stalls.perSecond(limitNs))
                + " times a second per CPU, met at the callback's median length): "
                + join(events, e -> e.name() + String.format(Locale.ROOT, " %.3f %%",
                100 * stalls.chance(t.quantileNs(e.name(), 0.5), limitNs)))
                + " (the target allows " + allowed + ")";
    }

    private static String join(List<CallbackTiming.Event> events, Function<CallbackTiming.Event, String> text) {
        return events.stream().map(text).collect(Collectors.joining(", "));
    }

    /** Whole-application overhead on H2 at most 1 % (throughput), per Convoy configuration. */
    public static List<Target> h2Targets(Measurements h2) {
        List<Target> t = new ArrayList<>();
        Stats none = h2.stats(SuiteConfig.NONE);
        if (none == null) {
            return t;
        }
        for (SuiteConfig c : List.of(SuiteConfig.RING, SuiteConfig.DEFAULT, SuiteConfig.JVMTI_STACKS,
                SuiteConfig.CONTAN)) {
            Stats s = h2.stats(c);
            if (s == null) {
                continue;
            }
            double o = h2.overheadPercent(s.median(), none.median());
            double noise = none.spreadPercent();
            t.add(new Target("H2 throughput overhead ≤ 1 %, " + c.label(),
                    signed(o) + " % (no-agent spread between runs " + f1(noise) + " %)", o <= 1.0,
                    o <= 1.0 ? "margin " + f1(1.0 - o) + " points" : "over by " + f1(o - 1.0) + " points",
                    noise <= 5.0));
        }
        return t;
    }

    /**
     * The paired H2 table: per configuration, the median over runs of each run's median paired
     * overhead (recording off vs on in the same JVM), the runs' quartiles of the pairs, and the
     * throughput and contention event rate while recording.
     */
    public static String pairedTable(Measurements m) {
        StringBuilder sb = new StringBuilder();
        sb.append("| Configuration | Pairs | Throughput lost to recording, median of runs (%) | Per run: median "
                + "[p25, p75] of the pairs (%) | ops/s while on | contended enters + waits /s while on |\n");
        sb.append("|---|---:|---:|---|---:|---:|\n");
        for (SuiteConfig c : m.configs()) {
            if (!m.has(c)) {
                continue;
            }
            StringBuilder per = new StringBuilder();
            for (Map<String, String> run : m.runs(c)) {
                if (per.length() > 0) {
                    per.append("; ");
                }
                per.append(signed(Double.parseDouble(run.get("overhead_pct")))).append(" [")
                        .append(signed(Double.parseDouble(run.get("overhead_p25_pct")))).append(", ")
                        .append(signed(Double.parseDouble(run.get("overhead_p75_pct")))).append(']');
            }
            sb.append("| ").append(c == SuiteConfig.NONE ? "no agent (A/A control: both phases the same)" : c.label())
                    .append(" | ").append(num(sum(m.values(c, "pairs"))))
                    .append(" | ").append(signed(med(m.values(c, "overhead_pct"))))
                    .append(" | ").append(per)
                    .append(" | ").append(num(med(m.values(c, "ops_per_s_on"))))
                    .append(" | ").append(num(med(m.values(c, "contention_events_per_s_on"))))
                    .append(" |\n");
        }
        return sb.toString();
    }

    /**
     * The 1 % target on the paired measurement: met when the median of the runs is at most 1 %,
     * resolved when the A/A control's median is within ±1 % (the method can see 1 %).
     */
    public static List<Target> pairedTargets(Measurements m) {
        List<Target> t = new ArrayList<>();
        List<Double> control = m.values(SuiteConfig.NONE, "overhead_pct");
        double aa = control.isEmpty() ? Double.NaN : med(control);
        for (SuiteConfig c : List.of(SuiteConfig.RING, SuiteConfig.DEFAULT, SuiteConfig.JVMTI_STACKS,
                SuiteConfig.CONTAN)) {
            List<Double> v = m.values(c, "overhead_pct");
            if (v.isEmpty()) {
                continue;
            }
            double o = med(v);
            t.add(new Target("H2 throughput overhead ≤ 1 % (paired phases in one JVM), " + c.label(),
                    signed(o) + " % (A/A control " + signed(aa) + " %)", o <= 1.0,
                    o <= 1.0 ? "margin " + f1(1.0 - o) + " points" : "over by " + f1(o - 1.0) + " points",
                    !Double.isNaN(aa) && Math.abs(aa) <= 1.0));
        }
        return t;
    }

    /** The snapshot-under-load table: pause seen by the hiccup meter during vs. between operations. */
    public static String snapshotTable(Measurements m) {
        StringBuilder sb = new StringBuilder();
        sb.append("| Configuration | Operations | Longest pause during an operation (µs, max over runs) "
                + "| Operations overlapping a safepoint | Longest pause, operations without a safepoint (µs) "
                + "| Median of per-operation longest pause (µs) | Longest pause in control windows (µs) "
                + "| snapshot() ms (longest pause µs) | dump snapshot ms (pause) | dump csv ms (pause) | dump chrome ms (pause) "
                + "| dump tptp ms (pause) | JFR takeSnapshot+dump ms (pause) |\n");
        sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (SuiteConfig c : m.configs()) {
            if (!m.has(c)) {
                continue;
            }
            sb.append("| ").append(c.label())
                    .append(" | ").append(num(sum(m.values(c, "ops"))))
                    .append(" | ").append(num(maxOf(m.values(c, "pause_max_us"))))
                    .append(" | ").append(num(sum(m.values(c, "ops_with_safepoint"))))
                    .append(" | ").append(num(maxOf(m.values(c, "pause_nosafepoint_max_us"))))
                    .append(" | ").append(num(med(m.values(c, "pause_median_us"))))
                    .append(" | ").append(num(maxOf(m.values(c, "control_max_us"))));
            for (String k : List.of("snapshot", "dump_snapshot", "dump_csv", "dump_chrome", "dump_tptp", "dump_jfr")) {
                List<Double> v = m.values(c, k + "_ms");
                List<Double> p = m.values(c, k + "_pause_max_us");
                sb.append(" | ").append(v.isEmpty() ? "—" : num(med(v)) + (p.isEmpty() ? "" : " (" + num(maxOf(p)) + ")"));
            }
            sb.append(" |\n");
        }
        sb.append("\nLongest safepoint overlapping an operation, by VM operation (µs, max over runs; from "
                + "`-Xlog:safepoint`, every GC pause is one):\n\n");
        for (SuiteConfig c : m.configs()) {
            Map<String, Double> byName = new TreeMap<>();
            for (Map<String, String> run : m.runs(c)) {
                for (Map.Entry<String, String> e : run.entrySet()) {
                    String k = e.getKey();
                    if (k.startsWith("safepoint_") && k.endsWith("_max_us")) {
                        byName.merge(k.substring("safepoint_".length(), k.length() - "_max_us".length()),
                                Double.parseDouble(e.getValue()), Math::max);
                    }
                }
            }
            if (m.has(c)) {
                sb.append("- ").append(c.label()).append(": ").append(byName.isEmpty() ? "none"
                        : byName.entrySet().stream().map(e -> e.getKey() + " " + num(e.getValue()))
                                .collect(java.util.stream.Collectors.joining(", "))).append('\n');
            }
        }
        return sb.toString();
    }

    public static List<Target> snapshotTargets(Measurements m) {
        List<Target> t = new ArrayList<>();
        for (SuiteConfig c : m.configs()) {
            if (c.tool() != SuiteConfig.Tool.CONVOY || !m.has(c)) {
                continue;
            }
            double p = maxOf(m.values(c, "pause_max_us"));
            double ctl = maxOf(m.values(c, "control_max_us"));
            double noSp = maxOf(m.values(c, "pause_nosafepoint_max_us"));
            t.add(new Target("No application thread paused > 1 ms by a snapshot, " + c.label(),
                    "longest pause during a snapshot/dump " + num(p) + " µs (in operations that overlap no "
                            + "safepoint " + num(noSp) + " µs; control windows " + num(ctl) + " µs)",
                    p <= 1000, p <= 1000 ? "margin " + num(1000 - p) + " µs" : "over by " + num(p - 1000) + " µs",
                    p <= 1000 || ctl <= 1000));
        }
        return t;
    }

    /** The memory table: RSS per phase and Convoy's own accounting against its cap. */
    public static String memoryTable(Measurements m, List<String> phases) {
        StringBuilder sb = new StringBuilder();
        sb.append("| Configuration | Phase | Threads | RSS MiB | RSS growth over no agent MiB | Convoy memory in use MiB | Cap MiB |\n");
        sb.append("|---|---|---:|---:|---:|---:|---:|\n");
        for (SuiteConfig c : m.configs()) {
            if (!m.has(c)) {
                continue;
            }
            for (String p : phases) {
                double rss = med(m.values(c, "rss_kb_" + p)) / 1024;
                List<Double> noneV = m.values(SuiteConfig.NONE, "rss_kb_" + p);
                String growth = noneV.isEmpty() || c == SuiteConfig.NONE ? "—" : signed(rss - med(noneV) / 1024);
                List<Double> mem = m.values(c, "convoy_memory_" + p);
                List<Double> cap = m.values(c, "convoy_cap");
                List<Double> th = m.values(c, "threads_" + p);
                sb.append("| ").append(c.label()).append(" | ").append(p)
                        .append(" | ").append(th.isEmpty() ? "—" : num(med(th)))
                        .append(" | ").append(f1(rss))
                        .append(" | ").append(growth)
                        .append(" | ").append(mem.isEmpty() ? "—" : f1(maxOf(mem) / 1048576.0))
                        .append(" | ").append(cap.isEmpty() ? "—" : f1(med(cap) / 1048576.0))
                        .append(" |\n");
            }
        }
        return sb.toString();
    }

    public static List<Target> memoryTargets(Measurements m, List<String> phases) {
        List<Target> t = new ArrayList<>();
        for (SuiteConfig c : m.configs()) {
            List<Double> cap = m.values(c, "convoy_cap");
            if (c.tool() != SuiteConfig.Tool.CONVOY || cap.isEmpty()) {
                continue;
            }
            double worst = 0;
            for (String p : phases) {
                worst = Math.max(worst, maxOf(m.values(c, "convoy_memory_" + p)));
            }
            double capB = med(cap);
            t.add(new Target("Recorder memory never above the cap, " + c.label(),
                    "peak " + f1(worst / 1048576.0) + " MiB of " + f1(capB / 1048576.0) + " MiB (at the measured phases)",
                    worst <= capB, worst <= capB ? "margin " + f1((capB - worst) / 1048576.0) + " MiB"
                            : "over by " + f1((worst - capB) / 1048576.0) + " MiB"));
        }
        return t;
    }

    static double sum(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).sum();
    }

    static double maxOf(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    static double med(List<Double> v) {
        return v.isEmpty() ? Double.NaN : Stats.of(v).median();
    }

    /** Integers for large values, one decimal below 100, two below 1. */
    static String num(double v) {
        if (Double.isNaN(v)) {
            return "—";
        }
        double a = Math.abs(v);
        return String.format(Locale.ROOT, a >= 100 ? "%.0f" : a >= 1 ? "%.1f" : "%.2f", v);
    }

    static String signed(double v) {
        return String.format(Locale.ROOT, "%+.1f", v);
    }

    static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String f2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
