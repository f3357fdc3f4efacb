package dev.convoy.report;

import dev.convoy.analysis.CriticalPath;
import dev.convoy.analysis.CriticalPath.Segment;
import dev.convoy.analysis.Blockers;
import dev.convoy.analysis.Deadlocks;
import dev.convoy.analysis.Interactions.Kind;
import dev.convoy.analysis.MonitorStatistics.CallerRow;
import dev.convoy.analysis.MonitorStatistics.ClassRow;
import dev.convoy.analysis.MonitorStatistics.ThreadRow;
import dev.convoy.analysis.HoldTimes;
import dev.convoy.analysis.OwnerSamples;
import dev.convoy.analysis.ThreadStates.State;
import dev.convoy.model.Frame;
import dev.convoy.model.Loss;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.report.ContentionReport.CallSites;
import dev.convoy.report.ContentionReport.Cause;
import dev.convoy.report.ContentionReport.KeptWaiting;
import dev.convoy.report.ContentionReport.PathMonitor;
import dev.convoy.report.ContentionReport.Style;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders a {@link ContentionReport} in plain text or Markdown: headings, paragraphs,
 * tables and stacks; names of monitors and threads, times since the recording start,
 * durations ({@link #duration(long)}) and shares ({@link #percent}).
 */
final class ReportRenderer {
    private final ContentionReport report;
    private final Recording r;
    private final Out o;

    private ReportRenderer(ContentionReport report, Style style) {
        this.report = report;
        this.r = report.recording();
        this.o = new Out(style);
    }

    /** The report in a style; ends with a newline. */
    public static String render(ContentionReport report, Style style) {
        return new ReportRenderer(report, style).render();
    }

    private String render() {
        o.title("Convoy contention report");
        long window = r.snapshotMonotonicNs() - r.startMonotonicNs();
        String main = r.mainClass().isEmpty() ? "unknown" : r.mainClass();
        List<Deadlocks.Deadlock> deadlocks = report.deadlocks();
        o.line("Recording: " + main + ", pid " + r.pid() + ", " + duration(window) + ", "
                + r.javaThreads().size() + " threads, " + report.blocks() + " blocks, " + report.waits() + " waits, "
                + deadlocks.size() + (deadlocks.size() == 1 ? " deadlock" : " deadlocks")
                + (report.idleWaits() > 0 ? "; " + report.idleWaits() + " idle waits apart (" + r.idleRules().source() + ")."
                : "."));
        o.line(report.hasContentionAnalysisEvents()
                ? "Contention analysis events: recorded (notify, start, join, sleep, interrupt)."
                : "Contention analysis events: none (record with contanalysis=on to see who notified, "
                + "started, joined and interrupted whom).");
        losses();

        monitors();
        wholeRun();
        threads();
        chains();
        longBlocks();
        idle();
        deadlocks();
        criticalPath();
        return o.toString();
    }

    /**
     * What was lost: the totals, and per thread with lost records how many, the time they cover
     * (unknown, in no state) and from when its history is complete.
     */
    private void losses() {
        long historyFrom = r.historyFromNs();
        o.line(r.lossSummary() + (historyFrom >= 0 ? " The history holds records from " + offset(historyFrom)
                + "; older ones aged out." : ""));
        List<RecordedThread> lost = report.threadsWithLosses();
        if (lost.isEmpty()) {
            return;
        }
        o.subsection("Threads with lost records (their state in that time is unknown)");
        List<List<String>> rows = new ArrayList<>();
        for (RecordedThread t : lost) {
            long overwritten = 0;
            long aged = 0;
            long other = 0;
            for (Loss l : t.losses()) {
                if (l.overwritten()) {
                    overwritten += l.records();
                } else if (l.aged()) {
                    aged += l.records();
                } else {
                    other += l.records();
                }
            }
            rows.add(List.of(t.isSystem() ? "GC" : t.label(), Long.toString(t.lostRecords()),
                    Long.toString(overwritten), Long.toString(aged) + (other > 0 ? " (+" + other + " other)" : ""),
                    duration(t.lostNs()), offset(t.completeFromNs())));
        }
        o.table(List.of("thread", "records lost", "overwritten", "aged out", "unknown time", "complete from"),
                List.of(false, true, true, true, true, true), rows);
        if (report.moreThreadsWithLosses() > 0) {
            o.line("(" + report.moreThreadsWithLosses() + " more threads with lost records not shown)");
        }
    }

    private void monitors() {
        o.section("Most contended monitors");
        List<ClassRow> top = report.topClasses();
        if (top.isEmpty()) {
            o.line("No monitor was contended or waited on.");
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        for (ClassRow c : top) {
            boolean b = c.blocked().count() > 0;
            rows.add(List.of(c.className(), Long.toString(c.blocked().count()),
                    b ? duration(c.blocked().totalNs()) : "-", b ? duration(c.blocked().avgNs()) : "-",
                    b ? duration(c.blocked().maxNs()) : "-", Long.toString(c.waited().count()),
                    c.waited().count() > 0 ? duration(c.waited().totalNs()) : "-"));
        }
        o.table(List.of("monitor class", "blocks", "blocked", "avg", "max", "waits", "waited"),
                List.of(false, true, true, true, true, true, true), rows);
        if (report.moreClasses() > 0) {
            o.line("(" + report.moreClasses() + " more classes not shown)");
        }
        o.subsection("Hottest call sites");
        List<List<String>> sites = new ArrayList<>();
        for (CallSites cs : report.hottestCallSites()) {
            String className = cs.monitorClass().className();
            for (CallerRow s : cs.callers()) {
                sites.add(List.of(className, s.caller(), cs.blocked() ? "blocked" : "waited",
                        Long.toString(s.stats().count()), duration(s.stats().totalNs()), duration(s.stats().maxNs()),
                        Integer.toString(s.monitors()), Integer.toString(s.threads())));
            }
        }
        o.table(List.of("monitor class", "call site", "kind", "count", "time", "max", "monitors", "threads"),
                List.of(false, false, false, true, true, true, true, true), sites);
        holdTimes();
    }

    /**
     * Hold times per monitor or lock where the record proves both ends ({@link HoldTimes}): the
     * top rows, and how many contended acquisitions were not counted, and why.
     */
    private void holdTimes() {
        List<HoldTimes.Row> rows = report.holdTimes();
        HoldTimes all = report.holds();
        if (all.acquisitions() == 0) {
            return;
        }
        o.subsection("Hold times after contended acquisitions");
        long[] not = all.notCounted();
        o.line("From a thread's contended acquisition to its release where the record proves both: the next "
                + "thread's acquisition with this thread as exact releaser, or its Object.wait. " + all.holds() + " of "
                + all.acquisitions() + " proven; not counted: " + not[0] + " releaser inferred, " + not[1]
                + " across lost records of the holder, " + not[2] + " no proven release.");
        if (rows.isEmpty()) {
            return;
        }
        List<List<String>> table = new ArrayList<>();
        for (HoldTimes.Row w : rows) {
            table.add(List.of(monitorName(w.monitor(), r.identityHash(w.monitor()), w.lock()),
                    Long.toString(w.acquisitions()), Integer.toString(w.count()), duration(w.totalNs()),
                    duration(w.medianNs()), duration(w.maxNs())));
        }
        o.table(List.of("lock", "acquisitions", "proven holds", "held", "median", "max"),
                List.of(false, true, true, true, true, true), table);
        if (report.moreHoldTimes() > 0) {
            o.line("(" + report.moreHoldTimes() + " more locks with proven holds not shown)");
        }
    }

    /**
     * The whole run's totals by monitor or lock class (SECTION_TOTALS), when the history no longer
     * holds the whole run: they count what aged out too.
     */
    private void wholeRun() {
        if (r.totals().isEmpty() || r.historyFromNs() < 0 && r.recordsAged() <= 0) {
            return;
        }
        o.subsection("The whole run, aged-out records included");
        long from = totalsFrom();
        o.line("Counted by the recorder as it kept the records, since " + offset(from) + ": the tables above "
                + "cover only what the history still holds. An object no longer described is of an unknown class.");
        java.util.Map<String, long[]> byClass = new java.util.TreeMap<>();
        for (dev.convoy.model.Total t : r.totals()) {
            String cls = t.object() == 0 ? "(no object)" : r.objects().containsKey(t.object())
                    ? r.objectClassName(t.object()) : "(unknown class)";
            long[] v = byClass.computeIfAbsent(cls, k -> new long[5]);
            boolean block = t.kind() == dev.convoy.snapshot.SnapshotFormat.TOTAL_BLOCKED
                    || t.kind() == dev.convoy.snapshot.SnapshotFormat.TOTAL_PARKED_LOCK;
            v[block ? 0 : 2] += t.count();
            v[block ? 1 : 3] += t.totalNs();
            if (block) {
                v[4] = Math.max(v[4], t.maxNs());
            }
        }
        List<java.util.Map.Entry<String, long[]>> sorted = new ArrayList<>(byClass.entrySet());
        sorted.sort((a, b) -> Long.compare(b.getValue()[1] + b.getValue()[3], a.getValue()[1] + a.getValue()[3]));
        List<List<String>> rows = new ArrayList<>();
        for (java.util.Map.Entry<String, long[]> e : sorted.subList(0, Math.min(ContentionReport.TOP, sorted.size()))) {
            long[] v = e.getValue();
            rows.add(List.of(e.getKey(), Long.toString(v[0]), v[0] > 0 ? duration(v[1]) : "-",
                    v[0] > 0 ? duration(v[4]) : "-", Long.toString(v[2]), v[2] > 0 ? duration(v[3]) : "-"));
        }
        o.table(List.of("monitor class", "blocks", "blocked", "max", "waits and parks", "waited"),
                List.of(false, true, true, true, true, true), rows);
    }

    /** INFO totals' {@code from}, else the recording's start. */
    private long totalsFrom() {
        String t = r.info().get("totals");
        if (t != null) {
            for (String part : t.split(" ")) {
                if (part.startsWith("from=")) {
                    try {
                        return Long.parseLong(part.substring(5));
                    } catch (NumberFormatException e) {
                        break;
                    }
                }
            }
        }
        return r.startMonotonicNs();
    }

    private void threads() {
        o.section("Threads that waited most");
        List<KeptWaiting> top = report.keptWaiting();
        if (top.isEmpty()) {
            o.line("No thread was blocked or waited.");
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        boolean lost = !r.threadsWithLosses().isEmpty();
        for (KeptWaiting k : top) {
            ThreadRow t = k.row();
            List<String> row = new ArrayList<>(List.of(t.thread().label(), Long.toString(t.blockedCount()),
                    duration(t.blockedNs()), Long.toString(t.waitedCount()), duration(t.waitedNs()),
                    duration(ContentionReport.total(t))));
            if (lost) {
                row.add(t.thread().losses().isEmpty() ? "-" : duration(t.thread().lostNs()));
            }
            rows.add(row);
        }
        if (lost) { // the time of its lost records: counted in neither blocked nor waited
            o.table(List.of("thread", "blocks", "blocked", "waits", "waited", "total", "unknown"),
                    List.of(false, true, true, true, true, true, true), rows);
        } else {
            o.table(List.of("thread", "blocks", "blocked", "waits", "waited", "total"),
                    List.of(false, true, true, true, true, true), rows);
        }
        o.subsection("Who kept them waiting");
        List<List<String>> causes = new ArrayList<>();
        for (KeptWaiting k : top) {
            String label = k.row().thread().label();
            for (Cause c : k.causes()) {
                causes.add(List.of(label, c.by(), c.how(), Long.toString(c.count()), duration(c.ns())));
            }
            if (k.others() != null) {
                causes.add(List.of(label, "(others)", "-", Long.toString(k.others().count()),
                        duration(k.others().ns())));
            }
            if (k.unexplainedCount() > 0) {
                causes.add(List.of(label, "(not recorded)", "open or unattributed",
                        Long.toString(k.unexplainedCount()), duration(k.unexplainedNs())));
            }
        }
        o.table(List.of("thread", "by", "how", "count", "time"), List.of(false, false, false, true, true), causes);
    }

    /** Chains of blocks: a thread blocked on a lock whose owner was blocked too. */
    private void chains() {
        List<dev.convoy.analysis.Chains.Row> rows = report.chains();
        if (rows.isEmpty()) {
            return;
        }
        o.subsection("Contention chains");
        o.line("A thread blocked on a lock whose owner was itself blocked on another: the time the first waited "
                + "for a thread that was waiting too, by the locks' classes (head first).");
        List<List<String>> table = new ArrayList<>();
        for (dev.convoy.analysis.Chains.Row w : rows) {
            dev.convoy.analysis.Chains.Chain c = w.longest();
            table.add(List.of(String.join(" -> ", w.classes()),
                    String.join(" -> ", c.threads().stream().map(RecordedThread::label).toList())
                            + (c.deadlock() ? " -> " + c.threads().get(c.cycle()).label() + " (deadlock)" : "")
                            + (c.exact() ? "" : " (owners inferred)"),
                    Long.toString(w.count()), duration(w.totalNs()), duration(c.durationNs())));
        }
        o.table(List.of("locks", "longest chain", "chains", "time", "longest"),
                List.of(false, false, true, true, true), table);
        if (report.moreChains() > 0) {
            o.line("(" + report.moreChains() + " more kinds of chains not shown)");
        }
    }

    /**
     * The longest blocks with the owner's side (OWNER_SAMPLE): one line each, "T: blocked D on M,
     * held by O in FRAME, itself blocked on N, held by P, sleeping in FRAME", along the chain.
     */
    private void longBlocks() {
        List<OwnerSamples.Sample> blocks = report.longBlocks();
        if (blocks.isEmpty()) {
            return;
        }
        o.subsection("Long blocks: the owner's side");
        o.line("Sampled once per block longer than " + threshold() + ": who held the lock, the frame holding "
                + "it (\"probably\": one of several frames that hold monitors), and what the owner did meanwhile.");
        List<String> lines = new ArrayList<>();
        for (OwnerSamples.Sample s : blocks) {
            StringBuilder b = new StringBuilder(s.blocked().label()).append(": ")
                    .append(s.lock() ? "parked " : "blocked ").append(duration(report.blockedNs(s))).append(" on ")
                    .append(monitorName(s.monitor(), r.identityHash(s.monitor()), s.lock()));
            ownerSide(b, s);
            for (OwnerSamples.Link l : report.ownerSamples().chain(s, 4)) {
                if (l.on() == 0 || l.holder() == null) {
                    break;
                }
                if (l.deadlock()) {
                    b.append(", held by ").append(l.holder().label()).append(": deadlock");
                    break;
                }
                if (l.sample() == null) {
                    b.append(", held by ").append(l.holder().label());
                    break;
                }
                ownerSide(b, l.sample());
            }
            lines.add(b.toString());
        }
        o.bullets(lines);
        if (report.moreLongBlocks() > 0) {
            o.line("(" + report.moreLongBlocks() + " more sampled blocks not shown)");
        }
    }

    /** ", held by O in FRAME, itself blocked on M" and so on, for one sample. */
    private void ownerSide(StringBuilder b, OwnerSamples.Sample s) {
        b.append(", held by ").append(s.owner() != null ? s.owner().label() : s.ownerName());
        Frame f = s.holdingFrame(r);
        if (f != null) {
            b.append(" in ").append(r.describe(f)).append(s.frameExact() ? "" : " (probably)");
        }
        switch (s.state()) {
            case BLOCKED -> b.append(", itself blocked on ").append(monitorName(s.on(), r.identityHash(s.on()), false));
            case PARKED -> b.append(", itself parked on ").append(monitorName(s.on(), r.identityHash(s.on()), true));
            case WAITING -> b.append(", itself waiting").append(s.on() != 0
                    ? " on " + monitorName(s.on(), r.identityHash(s.on()), false) : "");
            case UNKNOWN -> { }
            default -> b.append(", ").append(s.state().label());
        }
    }

    /** The sampling threshold from INFO owners.samples, "the threshold" when unknown. */
    private String threshold() {
        String info = r.info().getOrDefault("owners.samples", "");
        for (String part : info.split(" ")) {
            if (part.startsWith("threshold=")) {
                return part.substring("threshold=".length());
            }
        }
        return "the threshold";
    }

    /** The threads' idle waits: not contention, shown apart ({@link dev.convoy.model.IdleRules}). */
    private void idle() {
        List<ContentionReport.IdleRow> idle = report.idleThreads();
        if (idle.isEmpty()) {
            return;
        }
        o.subsection("Idle threads (not contention)");
        o.line("Waits with nothing to do (a pool waiting for tasks, housekeeping, an empty queue), by the "
                + r.idleRules().source() + ": counted in no table above.");
        List<List<String>> rows = new ArrayList<>();
        for (ContentionReport.IdleRow i : idle) {
            rows.add(List.of(i.row().thread().label(), Long.toString(i.row().idleCount()),
                    duration(i.row().idleNs()), i.rule()));
        }
        o.table(List.of("thread", "idle waits", "idle", "rule"), List.of(false, true, true, false), rows);
        if (report.moreIdleThreads() > 0) {
            o.line("(" + report.moreIdleThreads() + " more idle threads not shown)");
        }
    }

    private void deadlocks() {
        o.section("Deadlocks");
        List<Deadlocks.Deadlock> deadlocks = report.deadlocks();
        if (deadlocks.isEmpty()) {
            o.line("None at snapshot time.");
            return;
        }
        int n = 0;
        for (Deadlocks.Deadlock d : deadlocks) {
            n++;
            o.subsection("Deadlock " + n + " (" + String.join(", ", d.threads().stream()
                    .map(RecordedThread::name).toList()) + ")");
            for (int i = 0; i < d.threads().size(); i++) {
                RecordedThread t = d.threads().get(i);
                MonitorState w = d.waits().get(i);
                RecordedThread owner = d.threads().get((i + 1) % d.threads().size());
                o.line(o.bullet() + t.label() + (d.parked(i) ? " is parked on " : " is blocked on ")
                        + monitorName(w.object(), w.identityHash(), d.parked(i)) + ", held by " + owner.label());
                List<String> frames = new ArrayList<>();
                for (Frame f : report.enterStack(t, w.object(), d.parked(i))) {
                    frames.add("at " + r.describe(f));
                }
                if (frames.isEmpty()) {
                    frames.add("(no stack recorded)");
                }
                o.code(frames);
            }
        }
    }

    private void criticalPath() {
        o.section("Critical path");
        CriticalPath path = report.criticalPath();
        if (path.segments().isEmpty()) {
            o.line("No Java thread recorded.");
            return;
        }
        Segment first = path.segments().get(0);
        o.line("Length " + duration(path.lengthNs()) + ", from " + first.thread().label() + " at "
                + offset(path.startNs()) + " to the end of " + path.endThread().label() + " at "
                + offset(path.endNs()) + ", through " + report.pathThreads() + " threads in "
                + path.segments().size() + " segments."
                + (path.stoppedAtLoss() ? " Before " + offset(path.startNs()) + " the path is unknown: records of "
                + path.lossThread().label() + " were lost." : ""));
        List<List<String>> states = new ArrayList<>();
        for (Map.Entry<State, Long> e : path.nsByState().entrySet()) {
            states.add(List.of(e.getKey().name().toLowerCase(Locale.ROOT), duration(e.getValue()),
                    percent(e.getValue(), path.lengthNs())));
        }
        o.table(List.of("state", "time", "share"), List.of(false, true, true), states);

        o.subsection("Blocked and waiting on the path, by monitor");
        List<List<String>> mons = new ArrayList<>();
        for (PathMonitor m : report.pathMonitors()) {
            mons.add(List.of(monitorName(m.monitor(), r.identityHash(m.monitor())), m.state(), duration(m.ns()),
                    percent(m.ns(), path.lengthNs())));
        }
        if (mons.isEmpty()) {
            o.line("The path was never blocked or waiting on a monitor.");
        } else {
            o.table(List.of("monitor", "state", "time", "share"), List.of(false, false, true, true), mons);
        }

        o.subsection("Longest waits on the path");
        List<Segment> waits = report.longestWaits();
        if (waits.isEmpty()) {
            o.line("The path never waited.");
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        for (Segment s : waits) {
            String on = s.monitor() == 0 ? "-" : s.state() == State.JOINING
                    ? r.threadByObject(s.monitor()).map(RecordedThread::name).orElse(monitorName(s.monitor(), 0))
                    : monitorName(s.monitor(), r.identityHash(s.monitor()), s.interval() != null && s.interval().isPark());
            String via = s.via() == null ? "-" : kind(s.via().kind()) + " by " + s.via().from().label()
                    + (s.via().exact() ? "" : " (inferred)");
            rows.add(List.of(s.thread().label(), s.state().name().toLowerCase(Locale.ROOT), on, offset(s.startNs()),
                    duration(s.durationNs()), via));
        }
        o.table(List.of("thread", "state", "on", "at", "time", "ended by"),
                List.of(false, false, false, true, true, false), rows);
    }

    private static String kind(Kind k) {
        return switch (k) {
            case START -> "start";
            case HANDOFF -> "lock release";
            case NOTIFY -> "notify";
            case NOTIFY_ALL -> "notifyAll";
            case INTERRUPT -> "interrupt";
            case JOIN_END -> "end";
            case TIMEOUT -> "timeout";
            case UNPARK -> "unpark";
        };
    }

    /**
     * {@code pkg.Class@hash} (identity hash in hex, as Object.toString), or {@code monitor#id};
     * a park's blocker by its lock's class ({@link Blockers#className}).
     */
    private String monitorName(long object, int identityHash) {
        return monitorName(object, identityHash, report.isBlocker(object));
    }

    private String monitorName(long object, int identityHash, boolean blocker) {
        if (blocker && object == 0) {
            return Blockers.NO_BLOCKER;
        }
        String c = object != 0 ? Blockers.className(r, object, blocker) : "";
        int hash = identityHash != 0 ? identityHash : r.identityHash(object);
        if (c.isEmpty()) {
            return object != 0 ? "monitor#" + object : String.format(Locale.ROOT, "monitor@%x", hash);
        }
        return c + "@" + Integer.toHexString(hash);
    }

    /** "+1.250 ms": time since the recording start. */
    private String offset(long ns) {
        return "+" + duration(ns - r.startMonotonicNs());
    }

    /** "12.5%" of a whole, one decimal, rounded down. */
    static String percent(long part, long whole) {
        if (whole <= 0) {
            return "-";
        }
        long permille = part * 1000 / whole;
        return permille / 10 + "." + permille % 10 + "%";
    }

    /**
     * A duration, 4 significant digits at most, rounded down: {@code 850 ns}, {@code 12.30 us},
     * {@code 1.250 ms}, {@code 2.000 s}; at least 1000 s in whole seconds.
     */
    public static String duration(long ns) {
        if (ns < 0) {
            return "-" + duration(ns == Long.MIN_VALUE ? Long.MAX_VALUE : -ns); // -MIN_VALUE overflows
        }
        if (ns < 1_000) {
            return ns + " ns";
        }
        String[] units = {"us", "ms", "s"};
        long unit = 1_000;
        for (String u : units) {
            if (ns < unit * 1_000 || u.equals("s")) {
                long whole = ns / unit;
                if (whole >= 1000) {
                    return whole + " " + u;
                }
                int decimals = whole >= 100 ? 1 : whole >= 10 ? 2 : 3;
                long scale = (long) Math.pow(10, decimals);
                long frac = ns % unit * scale / unit;
                String f = Long.toString(frac);
                return whole + "." + "0".repeat(decimals - f.length()) + f + " " + u;
            }
            unit *= 1_000;
        }
        throw new AssertionError();
    }

    /** Builds either style: blocks (headings, paragraphs, tables, stacks) separated by one blank line. */
    private static final class Out {
        private final Style style;
        private final StringBuilder sb = new StringBuilder();

        Out(Style style) {
            this.style = style;
        }

        /** Ends the current block: exactly one blank line follows it. */
        private void blank() {
            if (sb.length() == 0) {
                return;
            }
            while (sb.length() >= 2 && sb.charAt(sb.length() - 1) == '\n' && sb.charAt(sb.length() - 2) == '\n') {
                sb.setLength(sb.length() - 1);
            }
            if (sb.charAt(sb.length() - 1) != '\n') {
                sb.append('\n');
            }
            sb.append('\n');
        }

        void title(String s) {
            heading(s, "# ", '=');
        }

        void section(String s) {
            heading(s, "## ", '-');
        }

        void subsection(String s) {
            blank();
            if (style == Style.MARKDOWN) {
                sb.append("### ").append(md(s)).append('\n');
            } else {
                sb.append(plain(s)).append(":\n");
            }
            blank();
        }

        private void heading(String s, String hashes, char underline) {
            blank();
            if (style == Style.MARKDOWN) {
                sb.append(hashes).append(md(s)).append('\n');
            } else {
                sb.append(plain(s)).append('\n').append(String.valueOf(underline).repeat(s.length())).append('\n');
            }
            blank();
        }

        String bullet() {
            return style == Style.MARKDOWN ? "- " : "";
        }

        /** Lines of a list: "- " items in Markdown, indented lines in text. */
        void bullets(List<String> lines) {
            blank();
            for (String l : lines) {
                sb.append(style == Style.MARKDOWN ? "- " + md(l) : "  " + plain(l)).append('\n');
            }
            blank();
        }

        /** A line of text; in Markdown a paragraph of its own. */
        void line(String s) {
            if (style == Style.MARKDOWN) {
                sb.append(md(s)).append('\n');
                blank();
            } else {
                sb.append(plain(s)).append('\n');
            }
        }

        /** A stack: indented in text, a fenced code block (inside the list item) in Markdown. */
        void code(List<String> lines) {
            if (style == Style.MARKDOWN) {
                blank();
                sb.append("  ```\n");
                for (String l : lines) {
                    sb.append("  ").append(plain(l)).append('\n');
                }
                sb.append("  ```\n");
            } else {
                for (String l : lines) {
                    sb.append("    ").append(plain(l)).append('\n');
                }
            }
            blank();
        }

        void table(List<String> header, List<Boolean> right, List<List<String>> rows) {
            blank();
            if (style == Style.MARKDOWN) {
                sb.append('|');
                for (String h : header) {
                    sb.append(' ').append(h).append(" |");
                }
                sb.append("\n|");
                for (Boolean r : right) {
                    sb.append(r ? "---:|" : "---|");
                }
                sb.append('\n');
                for (List<String> row : rows) {
                    sb.append('|');
                    for (String c : row) {
                        sb.append(' ').append(cell(c)).append(" |");
                    }
                    sb.append('\n');
                }
                blank();
                return;
            }
            int[] w = new int[header.size()];
            for (int i = 0; i < w.length; i++) {
                w[i] = header.get(i).length();
                for (List<String> row : rows) {
                    w[i] = Math.max(w[i], plain(row.get(i)).length());
                }
            }
            append(header, right, w);
            List<String> rule = new ArrayList<>();
            for (int x : w) {
                rule.add("-".repeat(x));
            }
            append(rule, right, w);
            for (List<String> row : rows) {
                append(row, right, w);
            }
            blank();
        }

        private void append(List<String> cells, List<Boolean> right, int[] w) {
            StringBuilder line = new StringBuilder("  ");
            for (int i = 0; i < cells.size(); i++) {
                String c = plain(cells.get(i));
                String pad = " ".repeat(w[i] - c.length());
                line.append(right.get(i) ? pad + c : c + pad);
                if (i + 1 < cells.size()) {
                    line.append("  ");
                }
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }

        /** Plain text: control characters (names may hold any) as U+FFFD. */
        private static String plain(String s) {
            StringBuilder b = new StringBuilder(s.length());
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                b.append(c < 0x20 && c != '\t' ? '\uFFFD' : c);
            }
            return b.toString();
        }

        /** A Markdown table cell: pipes escaped, control characters and line breaks as spaces. */
        private static String cell(String s) {
            return md(s).replace("|", "\\|");
        }

        /** Markdown text: control characters (names may hold any) as U+FFFD, angle brackets escaped. */
        private static String md(String s) {
            StringBuilder b = new StringBuilder(s.length());
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c < 0x20 && c != '\t') {
                    b.append('\uFFFD');
                } else if (c == '<') {
                    b.append("&lt;");
                } else if (c == '>') {
                    b.append("&gt;");
                } else {
                    b.append(c);
                }
            }
            return b.toString();
        }

        /** The text, ending with exactly one newline. */
        @Override
        public String toString() {
            String t = sb.toString().stripTrailing();
            return t + "\n";
        }
    }
}
