package dev.convoy.analysis;

import dev.convoy.analysis.CriticalPath.Segment;
import dev.convoy.analysis.Interactions.Interaction;
import dev.convoy.analysis.Interactions.Kind;
import dev.convoy.analysis.MonitorStatistics.CallerRow;
import dev.convoy.analysis.MonitorStatistics.ClassRow;
import dev.convoy.analysis.MonitorStatistics.ThreadRow;
import dev.convoy.analysis.ThreadStates.State;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.Frame;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The contention report a person reads first, in plain text or Markdown, from the analysis
 * of one recording:
 * <ol>
 * <li>the most contended monitor classes ({@link MonitorStatistics#classes()}) and, for
 *     each, its hottest call sites ({@link MonitorStatistics#blockCallers}, else
 *     {@link MonitorStatistics#waitCallers} for a class that was only waited on);</li>
 * <li>the threads that were blocked or waited longest ({@link MonitorStatistics#threads()})
 *     and on whom: the previous owners that handed them a lock, the notifiers, interrupters
 *     and ended threads that woke them, the timeouts ({@link Interactions}), with the
 *     time of the intervals so ended;</li>
 * <li>deadlocks ({@link Deadlocks}), each thread with the monitor it is blocked on, its
 *     owner and the stack of its blocked enter;</li>
 * <li>the critical path summary ({@link CriticalPath}): its length, the time per state and
 *     the time blocked or waiting on each monitor, and its longest waits.</li>
 * </ol>
 * The output is deterministic: a function of the recording alone, rows ordered by time
 * (descending), ties by name. Durations are printed with {@link #duration(long)}.
 */
public final class ContentionReport {

    /** Output styles. */
    public enum Style {
        /** Plain text: underlined headings, aligned columns. */
        TEXT,
        /** GitHub-flavoured Markdown: headings, pipe tables, stacks in code blocks. */
        MARKDOWN;

        /** "text" or "markdown" (case-insensitive, trimmed); "md" for Markdown. */
        public static Style parse(String name) {
            String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
            return switch (n) {
                case "text", "txt" -> TEXT;
                case "markdown", "md" -> MARKDOWN;
                default -> throw new IllegalArgumentException("unknown report format '" + name
                        + "'; allowed: text, markdown");
            };
        }
    }

    /** Rows of the monitor and thread tables. */
    public static final int TOP = 10;
    /** Call sites per monitor class, "kept waiting by" rows per thread. */
    public static final int TOP_SITES = 3;

    /** One row of "who kept this thread waiting": a thread (or the timeout) and how. */
    public record Cause(RecordedThread thread, String by, String how, long count, long ns) {
    }

    private final Recording r;
    private final MonitorStatistics stats;
    private final ContentionIndex index; // primitive: the report keeps no object per interval or interaction
    private final List<Deadlocks.Deadlock> deadlocks;
    private final CriticalPath path;

    private ContentionReport(Recording r) {
        this.r = r;
        this.stats = MonitorStatistics.of(r);
        this.index = ContentionIndex.of(r);
        this.deadlocks = Deadlocks.find(r);
        this.path = CriticalPath.of(index);
    }

    /** Analyses a recording. */
    public static ContentionReport of(Recording r) {
        return new ContentionReport(r);
    }

    /** The report in plain text. */
    public String text() {
        return render(Style.TEXT);
    }

    /** The report in Markdown. */
    public String markdown() {
        return render(Style.MARKDOWN);
    }

    /** The statistics the report is made of. */
    public MonitorStatistics statistics() {
        return stats;
    }

    /** The deadlocks at snapshot time. */
    public List<Deadlocks.Deadlock> deadlocks() {
        return deadlocks;
    }

    /** The critical path of the recording. */
    public CriticalPath criticalPath() {
        return path;
    }

    /** Blocked plus waited time of a thread row. */
    private static long total(ThreadRow t) {
        return t.blockedNs() + t.waitedNs();
    }

    /**
     * The threads that were blocked or waited longest: rows with a block or a wait, by
     * blocked + waited time descending, then name, then ring id; at most {@link #TOP}.
     */
    public List<ThreadRow> topThreads() {
        return stats.threads().stream().filter(t -> t.blockedCount() + t.waitedCount() > 0)
                .sorted(Comparator.comparingLong((ThreadRow t) -> -total(t))
                        .thenComparing(t -> t.thread().name()).thenComparingLong(t -> t.thread().ringId()))
                .limit(TOP).toList();
    }

    /**
     * Who kept {@code t} blocked or waiting: per (thread, kind) of the interactions that ended
     * one of its BLOCKED or WAITING intervals, the count and the time of those intervals. HANDOFF
     * is "lock held", NOTIFY "notify", NOTIFY_ALL "notifyAll", INTERRUPT "interrupt", TIMEOUT
     * (by "(timeout)", thread null) "timed out". Time descending, then by, then how.
     */
    public List<Cause> causes(RecordedThread t) {
        int ring = index.ring(t);
        IntervalTable intervals = index.intervals(ring);
        InteractionTable interactions = index.interactions();
        Map<String, Cause> out = new LinkedHashMap<>();
        for (int id = 0; id < interactions.count(); id++) {
            int ended = interactions.ended(id);
            if (interactions.toRing(id) != ring || ended < 0 || (intervals.kind(ended) != IntervalTable.BLOCKED
                    && intervals.kind(ended) != IntervalTable.WAITING)) {
                continue;
            }
            add(out, interactions.kind(id), interactions.kind(id) == Kind.TIMEOUT ? null : interactions.from(id),
                    intervals.endNs(ended) - intervals.startNs(ended));
        }
        // a timeout is no interaction of the index (Interactions makes one per timed-out wait)
        for (int iv = 0; iv < intervals.count() && !t.isSystem(); iv++) {
            if (intervals.kind(iv) == IntervalTable.WAITING && intervals.timedOut(iv)) {
                add(out, Kind.TIMEOUT, null, intervals.endNs(iv) - intervals.startNs(iv));
            }
        }
        return out.values().stream().sorted(Comparator.comparingLong((Cause c) -> -c.ns())
                .thenComparing(Cause::by).thenComparing(Cause::how)).toList();
    }

    private static void add(Map<String, Cause> out, Kind kind, RecordedThread from, long ns) {
        String how = switch (kind) {
            case HANDOFF -> "lock held";
            case NOTIFY -> "notify";
            case NOTIFY_ALL -> "notifyAll";
            case INTERRUPT -> "interrupt";
            case TIMEOUT -> "timed out";
            default -> null;
        };
        if (how == null) {
            return;
        }
        String by = from == null ? "(timeout)" : from.label();
        String key = by + "\u0000" + (from == null ? -1 : from.ringId()) + "\u0000" + how;
        Cause c = out.get(key);
        out.put(key, c == null ? new Cause(from, by, how, 1, ns) : new Cause(from, by, how, c.count() + 1, c.ns() + ns));
    }

    /** Whether the recording holds any contention analysis event (types 16..24). */
    public boolean hasContentionAnalysisEvents() {
        for (RecordedThread t : r.threads()) {
            for (Event e : t.events()) {
                if (e.type().ordinal() >= EventType.START_CALL.ordinal() && e.type() != EventType.UNKNOWN) {
                    return true;
                }
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- rendering

    /** The report in a style; ends with a newline. */
    public String render(Style style) {
        Out o = new Out(style);
        o.title("Convoy contention report");
        long window = r.snapshotMonotonicNs() - r.startMonotonicNs();
        String main = r.mainClass().isEmpty() ? "unknown" : r.mainClass();
        long blocks = 0, waits = 0;
        for (ThreadRow t : stats.threads()) {
            blocks += t.blockedCount();
            waits += t.waitedCount();
        }
        o.line("Recording: " + main + ", pid " + r.pid() + ", " + duration(window) + ", "
                + r.javaThreads().size() + " threads, " + blocks + " blocks, " + waits + " waits, "
                + deadlocks.size() + (deadlocks.size() == 1 ? " deadlock." : " deadlocks."));
        o.line(hasContentionAnalysisEvents()
                ? "Contention analysis events: recorded (notify, start, join, sleep, interrupt)."
                : "Contention analysis events: none (record with contanalysis=on to see who notified, "
                + "started, joined and interrupted whom).");

        monitors(o);
        threads(o);
        deadlocks(o);
        criticalPath(o);
        return o.toString();
    }

    private void monitors(Out o) {
        o.section("Most contended monitors");
        List<ClassRow> classes = stats.classes();
        if (classes.isEmpty()) {
            o.line("No monitor was contended or waited on.");
            return;
        }
        List<ClassRow> top = classes.stream().limit(TOP).toList();
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
        if (classes.size() > TOP) {
            o.line("(" + (classes.size() - TOP) + " more classes not shown)");
        }
        o.subsection("Hottest call sites");
        List<List<String>> sites = new ArrayList<>();
        for (ClassRow c : top) {
            boolean blocked = c.blocked().count() > 0;
            List<CallerRow> callers = blocked ? stats.blockCallers(c.className()) : stats.waitCallers(c.className());
            for (CallerRow s : callers.stream().limit(TOP_SITES).toList()) {
                sites.add(List.of(c.className(), s.caller(), blocked ? "blocked" : "waited",
                        Long.toString(s.stats().count()), duration(s.stats().totalNs()), duration(s.stats().maxNs()),
                        Integer.toString(s.monitors()), Integer.toString(s.threads())));
            }
        }
        o.table(List.of("monitor class", "call site", "kind", "count", "time", "max", "monitors", "threads"),
                List.of(false, false, false, true, true, true, true, true), sites);
    }

    private void threads(Out o) {
        o.section("Threads that waited most");
        List<ThreadRow> top = topThreads();
        if (top.isEmpty()) {
            o.line("No thread was blocked or waited.");
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        for (ThreadRow t : top) {
            rows.add(List.of(t.thread().label(), Long.toString(t.blockedCount()), duration(t.blockedNs()),
                    Long.toString(t.waitedCount()), duration(t.waitedNs()), duration(total(t))));
        }
        o.table(List.of("thread", "blocks", "blocked", "waits", "waited", "total"),
                List.of(false, true, true, true, true, true), rows);
        o.subsection("Who kept them waiting");
        List<List<String>> causes = new ArrayList<>();
        for (ThreadRow t : top) {
            List<Cause> cs = causes(t.thread());
            long count = t.blockedCount() + t.waitedCount();
            long ns = total(t);
            for (Cause c : cs) {
                count -= c.count();
                ns -= c.ns();
            }
            for (Cause c : cs.stream().limit(TOP_SITES).toList()) {
                causes.add(List.of(t.thread().label(), c.by(), c.how(), Long.toString(c.count()), duration(c.ns())));
            }
            if (cs.size() > TOP_SITES) {
                Cause rest = cs.stream().skip(TOP_SITES).reduce(new Cause(null, "", "", 0, 0),
                        (a, c) -> new Cause(null, "", "", a.count() + c.count(), a.ns() + c.ns()));
                causes.add(List.of(t.thread().label(), "(others)", "-", Long.toString(rest.count()),
                        duration(rest.ns())));
            }
            if (count > 0) {
                causes.add(List.of(t.thread().label(), "(not recorded)", "open or unattributed",
                        Long.toString(count), duration(ns)));
            }
        }
        o.table(List.of("thread", "by", "how", "count", "time"), List.of(false, false, false, true, true), causes);
    }

    private void deadlocks(Out o) {
        o.section("Deadlocks");
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
                o.line(o.bullet() + t.label() + " is blocked on " + monitorName(w.object(), w.identityHash())
                        + ", held by " + owner.label());
                List<String> frames = new ArrayList<>();
                Event enter = lastEnter(t, w.object());
                if (enter != null) {
                    for (Frame f : r.frames(enter.stackId())) {
                        frames.add("at " + r.describe(f));
                    }
                }
                if (frames.isEmpty()) {
                    frames.add("(no stack recorded)");
                }
                o.code(frames);
            }
        }
    }

    /** The thread's last MONITOR_ENTER on the monitor (any monitor when it is 0), or null. */
    private static Event lastEnter(RecordedThread t, long monitor) {
        Event found = null;
        for (Event e : t.events()) {
            if (e.type() == EventType.MONITOR_ENTER && (monitor == 0 || e.obj() == monitor)) {
                found = e;
            }
        }
        return found;
    }

    private void criticalPath(Out o) {
        o.section("Critical path");
        if (path.segments().isEmpty()) {
            o.line("No Java thread recorded.");
            return;
        }
        Segment first = path.segments().get(0);
        o.line("Length " + duration(path.lengthNs()) + ", from " + first.thread().label() + " at "
                + offset(path.startNs()) + " to the end of " + path.endThread().label() + " at "
                + offset(path.endNs()) + ", through " + path.segments().stream().map(s -> s.thread())
                .distinct().count() + " threads in " + path.segments().size() + " segments.");
        List<List<String>> states = new ArrayList<>();
        for (Map.Entry<State, Long> e : path.nsByState().entrySet()) {
            states.add(List.of(e.getKey().name().toLowerCase(Locale.ROOT), duration(e.getValue()),
                    percent(e.getValue(), path.lengthNs())));
        }
        o.table(List.of("state", "time", "share"), List.of(false, true, true), states);

        o.subsection("Blocked and waiting on the path, by monitor");
        List<List<String>> mons = new ArrayList<>();
        record M(String state, long monitor, long ns) {
        }
        List<M> ms = new ArrayList<>();
        path.blockedNsByMonitor().forEach((m, ns) -> ms.add(new M("blocked", m, ns)));
        path.waitingNsByMonitor().forEach((m, ns) -> ms.add(new M("waiting", m, ns)));
        ms.sort(Comparator.comparingLong((M m) -> -m.ns()).thenComparing(M::state).thenComparingLong(M::monitor));
        for (M m : ms) {
            mons.add(List.of(monitorName(m.monitor(), r.identityHash(m.monitor())), m.state(), duration(m.ns()),
                    percent(m.ns(), path.lengthNs())));
        }
        if (mons.isEmpty()) {
            o.line("The path was never blocked or waiting on a monitor.");
        } else {
            o.table(List.of("monitor", "state", "time", "share"), List.of(false, false, true, true), mons);
        }

        o.subsection("Longest waits on the path");
        List<Segment> waits = path.waits().stream().filter(s -> s.durationNs() > 0).sorted(Comparator.comparingLong((Segment s) -> -s.durationNs())
                .thenComparingLong(Segment::startNs)).limit(TOP).toList();
        if (waits.isEmpty()) {
            o.line("The path never waited.");
            return;
        }
        List<List<String>> rows = new ArrayList<>();
        for (Segment s : waits) {
            String on = s.monitor() == 0 ? "-" : s.state() == State.JOINING
                    ? r.threadByObject(s.monitor()).map(RecordedThread::name).orElse(monitorName(s.monitor(), 0))
                    : monitorName(s.monitor(), r.identityHash(s.monitor()));
            String via = s.via() == null ? "-" : kind(s.via().kind()) + " by " + s.via().from().label();
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
        };
    }

    /** {@code pkg.Class@hash} (identity hash in hex, as Object.toString), or {@code monitor#id}. */
    private String monitorName(long object, int identityHash) {
        String c = object != 0 ? r.objectClassName(object) : "";
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
            return "-" + duration(-ns);
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
