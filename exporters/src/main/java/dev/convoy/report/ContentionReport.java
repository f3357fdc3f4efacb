package dev.convoy.report;

import dev.convoy.analysis.Chains;
import dev.convoy.analysis.HoldTimes;
import dev.convoy.analysis.ContentionIndex;
import dev.convoy.analysis.CriticalPath;
import dev.convoy.analysis.CriticalPath.Segment;
import dev.convoy.analysis.Deadlocks;
import dev.convoy.analysis.InteractionCursor;
import dev.convoy.analysis.Interval;
import dev.convoy.analysis.Interactions;
import dev.convoy.analysis.Interactions.Kind;
import dev.convoy.analysis.IntervalCursor;
import dev.convoy.analysis.MonitorStatistics;
import dev.convoy.analysis.MonitorStatistics.CallerRow;
import dev.convoy.analysis.MonitorStatistics.ClassRow;
import dev.convoy.analysis.MonitorStatistics.ThreadRow;
import dev.convoy.analysis.OwnerSamples;
import dev.convoy.export.Output;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.Frame;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The contention report a person reads first: what it says about one recording, rendered in
 * plain text or Markdown by {@link ReportRenderer}.
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
 * <li>the longest blocks whose owner's side was recorded ({@link OwnerSamples}): who held the
 *     lock, in which frame, and what the owner was doing itself, along the chain of owners;</li>
 * <li>the critical path summary ({@link CriticalPath}): its length, the time per state and
 *     the time blocked or waiting on each monitor, and its longest waits.</li>
 * </ol>
 * Its header says how many records were written and lost, and, for the threads with lost
 * records, how many and from when their history is complete (their time in a loss is unknown,
 * counted in no blocked or waited time). The content is deterministic: a function of the
 * recording alone, rows ordered by time (descending), ties by name.
 */
public final class ContentionReport {

    /** Output styles of {@link ReportRenderer}. */
    public enum Style {
        /** Plain text: underlined headings, aligned columns. */
        TEXT,
        /** GitHub-flavoured Markdown: headings, pipe tables, stacks in code blocks. */
        MARKDOWN;

        /** "text" or "markdown" (case-insensitive, trimmed); "md" for Markdown. */
        public static Style parse(String name) {
            String n = Output.normalizedName(name);
            return switch (n) {
                case "text", "txt" -> TEXT;
                case "markdown", "md" -> MARKDOWN;
                default -> throw new IllegalArgumentException("unknown report format " + Output.quotedName(name)
                        + "; allowed: text, markdown");
            };
        }
    }

    /** Rows of the monitor and thread tables, and longest waits on the path. */
    public static final int TOP = 10;
    /** Call sites per monitor class, "kept waiting by" rows per thread. */
    public static final int TOP_SITES = 3;

    /** One row of "who kept this thread waiting": a thread (or the timeout) and how. */
    public record Cause(RecordedThread thread, String by, String how, long count, long ns) {
    }

    /** The hottest call sites of a monitor class: where it blocked threads, else (only waited on) where they waited. */
    public record CallSites(ClassRow monitorClass, boolean blocked, List<CallerRow> callers) {
    }

    /**
     * Who kept one of the {@link #topThreads()} blocked or waiting: its first {@link #TOP_SITES}
     * {@link #causes}, the rest summed ({@code others}, null when there is no rest), and the
     * blocks and waits no cause explains (open at the snapshot or unattributed).
     */
    public record KeptWaiting(ThreadRow row, List<Cause> causes, Cause others, long unexplainedCount,
                              long unexplainedNs) {
    }

    /** Time on the critical path blocked or waiting ({@code state}) on one monitor. */
    public record PathMonitor(String state, long monitor, long ns) {
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

    /** The report in a style ({@link ReportRenderer}); ends with a newline. */
    public String render(Style style) {
        return ReportRenderer.render(this, style);
    }

    /** The report in plain text. */
    public String text() {
        return render(Style.TEXT);
    }

    /** The report in Markdown. */
    public String markdown() {
        return render(Style.MARKDOWN);
    }

    /** The recording reported on. */
    public Recording recording() {
        return r;
    }

    /** The statistics the report is made of. */
    public MonitorStatistics statistics() {
        return stats;
    }

    /** Whether threads parked on this object (a {@code java.util.concurrent} blocker; 0 for parks without one). */
    public boolean isBlocker(long object) {
        if (blockers == null) {
            java.util.Set<Long> b = new java.util.HashSet<>();
            for (MonitorStatistics.MonitorRow m : stats.monitors()) {
                if (m.blocker()) {
                    b.add(m.monitor());
                }
            }
            blockers = b;
        }
        return blockers.contains(object);
    }

    private java.util.Set<Long> blockers;

    /** The deadlocks at snapshot time. */
    public List<Deadlocks.Deadlock> deadlocks() {
        return deadlocks;
    }

    /** The critical path of the recording. */
    public CriticalPath criticalPath() {
        return path;
    }

    /** Number of BLOCKED intervals of all threads. */
    public long blocks() {
        long n = 0;
        for (ThreadRow t : stats.threads()) {
            n += t.blockedCount();
        }
        return n;
    }

    /** Number of WAITING intervals of all threads. */
    public long waits() {
        long n = 0;
        for (ThreadRow t : stats.threads()) {
            n += t.waitedCount();
        }
        return n;
    }

    /**
     * The monitors and locks with proven hold times ({@link HoldTimes}): most hold time first, at
     * most {@link #TOP_SITES} + 2.
     */
    public List<HoldTimes.Row> holdTimes() {
        return holds().proven().stream().limit(TOP_SITES + 2).toList();
    }

    /** Number of monitors and locks with proven holds beyond {@link #holdTimes()}. */
    public int moreHoldTimes() {
        return Math.max(0, holds().proven().size() - TOP_SITES - 2);
    }

    /** Every monitor's and lock's contended acquisitions and proven holds ({@link HoldTimes}), made on first use. */
    public HoldTimes holds() {
        if (holds == null) {
            holds = HoldTimes.of(index);
        }
        return holds;
    }

    private HoldTimes holds;

    /** The contention chains grouped by their locks' classes, at most {@link #TOP_SITES} + 2 rows ({@link Chains#rows()}). */
    public List<Chains.Row> chains() {
        if (chains == null) {
            chains = Chains.of(r, index).rows();
        }
        return chains.stream().limit(TOP_SITES + 2).toList();
    }

    /** Number of chain rows beyond {@link #chains()}. */
    public int moreChains() {
        chains();
        return Math.max(0, chains.size() - TOP_SITES - 2);
    }

    private List<Chains.Row> chains;

    /** Number of waits classified idle ({@link dev.convoy.model.IdleRules}): no contention. */
    public long idleWaits() {
        long n = 0;
        for (ThreadRow t : stats.threads()) {
            n += t.idleCount();
        }
        return n;
    }

    /**
     * The most contended monitor classes: at most {@link #TOP} of {@link MonitorStatistics#classes()},
     * those with only idle waits left out.
     */
    public List<ClassRow> topClasses() {
        return stats.classes().stream().filter(c -> !c.idleOnly()).limit(TOP).toList();
    }

    /** Number of contended monitor classes beyond {@link #topClasses()}. */
    public int moreClasses() {
        return (int) Math.max(0, stats.classes().stream().filter(c -> !c.idleOnly()).count() - TOP);
    }

    /** One thread's idle waits: how many, how long, and the rule that made the longest part of them idle. */
    public record IdleRow(ThreadRow row, String rule) {
    }

    /** The threads with idle waits, most idle time first, then name, then ring id; at most {@link #TOP}. */
    public List<IdleRow> idleThreads() {
        dev.convoy.model.IdleRules.Classifier c = r.idleRules().classifier(r);
        List<IdleRow> out = new ArrayList<>();
        stats.threads().stream().filter(t -> t.idleCount() > 0)
                .sorted(Comparator.comparingLong((ThreadRow t) -> -t.idleNs())
                        .thenComparing(t -> t.thread().name()).thenComparingLong(t -> t.thread().ringId()))
                .limit(TOP).forEach(t -> out.add(new IdleRow(t, idleRule(c, t.thread()))));
        return out;
    }

    /** Number of threads with idle waits beyond {@link #idleThreads()}. */
    public int moreIdleThreads() {
        return (int) Math.max(0, stats.threads().stream().filter(t -> t.idleCount() > 0).count() - TOP);
    }

    /** The rule that classified the longest part of a thread's idle waits. */
    private String idleRule(dev.convoy.model.IdleRules.Classifier c, RecordedThread t) {
        IntervalCursor g = index.intervals(index.ring(t));
        Map<String, Long> byRule = new LinkedHashMap<>();
        for (int iv = 0; iv < g.count(); iv++) {
            if (g.select(iv).kind() == Interval.Kind.WAITING) {
                dev.convoy.model.IdleRules.Rule rule = c.rule(t, t.stackId(g.beginRecord()));
                if (rule != null && rule.idle()) {
                    byRule.merge(rule.toString(), g.endNs() - g.startNs(), Long::sum);
                }
            }
        }
        return byRule.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("-");
    }

    /** For each of {@link #topClasses()}, its first {@link #TOP_SITES} call sites. */
    public List<CallSites> hottestCallSites() {
        List<CallSites> out = new ArrayList<>();
        for (ClassRow c : topClasses()) {
            boolean blocked = c.blocked().count() > 0;
            List<CallerRow> callers = blocked ? stats.blockCallers(c.className()) : stats.waitCallers(c.className());
            if (callers.isEmpty()) {
                continue;
            }
            out.add(new CallSites(c, blocked, callers.stream().limit(TOP_SITES).toList()));
        }
        return out;
    }

    /** Blocked plus waited time of a thread row (idle waits not included). */
    static long total(ThreadRow t) {
        return t.contentionNs();
    }

    /**
     * The threads that were blocked or waited longest: rows with a block or a wait that was
     * contention (idle waits do not count), by blocked + waited time descending, then name, then
     * ring id; at most {@link #TOP}.
     */
    public List<ThreadRow> topThreads() {
        return stats.threads().stream().filter(t -> t.blockedCount() + t.waitedCount() > 0)
                .sorted(Comparator.comparingLong((ThreadRow t) -> -total(t))
                        .thenComparing(t -> t.thread().name()).thenComparingLong(t -> t.thread().ringId()))
                .limit(TOP).toList();
    }

    /** Who kept each of the {@link #topThreads()} waiting, in their order. */
    public List<KeptWaiting> keptWaiting() {
        List<KeptWaiting> out = new ArrayList<>();
        for (ThreadRow t : topThreads()) {
            List<Cause> cs = causes(t.thread());
            long count = t.blockedCount() + t.waitedCount();
            long ns = total(t);
            for (Cause c : cs) {
                count -= c.count();
                ns -= c.ns();
            }
            Cause others = null;
            if (cs.size() > TOP_SITES) {
                others = cs.stream().skip(TOP_SITES).reduce(new Cause(null, "", "", 0, 0),
                        (a, c) -> new Cause(null, "", "", a.count() + c.count(), a.ns() + c.ns()));
            }
            out.add(new KeptWaiting(t, cs.stream().limit(TOP_SITES).toList(), others, count, ns));
        }
        return out;
    }

    /**
     * Who kept {@code t} blocked or waiting: per (thread, kind) of the interactions that ended
     * one of its BLOCKED or WAITING intervals, the count and the time of those intervals. HANDOFF
     * is "lock held" when the VM recorded the releaser (FLAG_RELEASER) and "lock held (inferred)"
     * otherwise (JVMTI records no release, see
     * {@link dev.convoy.analysis.MonitorOwnership.Handoff#exact}), UNPARK of a lock park
     * "lock held" (the recorded unpark of the releasing thread), UNPARK of another park "unpark",
     * NOTIFY "notify", NOTIFY_ALL "notifyAll", INTERRUPT "interrupt", TIMEOUT (by "(timeout)",
     * thread null) "timed out". Time descending, then by, then how.
     */
    public List<Cause> causes(RecordedThread t) {
        dev.convoy.model.IdleRules.Classifier idle = r.idleRules().classifier(r);
        int ring = index.ring(t);
        IntervalCursor intervals = index.intervals(ring);
        InteractionCursor interactions = index.interactions();
        Map<String, Cause> out = new LinkedHashMap<>();
        for (int id = 0; id < interactions.count(); id++) {
            InteractionCursor a = interactions.select(id);
            int ended = a.endedInterval();
            if (a.toRing() != ring || ended < 0) {
                continue;
            }
            IntervalCursor e = intervals.select(ended);
            if (e.kind() != Interval.Kind.BLOCKED && e.kind() != Interval.Kind.WAITING
                    || e.kind() == Interval.Kind.WAITING && idle.isIdle(t, t.stackId(e.beginRecord()))) {
                continue;
            }
            add(out, a.kind(), a.kind() == Kind.TIMEOUT ? null : a.from(), e.endNs() - e.startNs(),
                    e.kind() == Interval.Kind.BLOCKED, a.exact());
        }
        // a timeout is no interaction of the index (Interactions makes one per timed-out wait)
        for (int iv = 0; iv < intervals.count() && !t.isSystem(); iv++) {
            IntervalCursor w = intervals.select(iv);
            if (w.kind() == Interval.Kind.WAITING && w.timedOut() && !idle.isIdle(t, t.stackId(w.beginRecord()))) {
                add(out, Kind.TIMEOUT, null, w.endNs() - w.startNs(), false, true);
            }
        }
        return out.values().stream().sorted(Comparator.comparingLong((Cause c) -> -c.ns())
                .thenComparing(Cause::by).thenComparing(Cause::how)).toList();
    }

    private static void add(Map<String, Cause> out, Kind kind, RecordedThread from, long ns, boolean blocked,
                            boolean exact) {
        String how = switch (kind) {
            case HANDOFF -> exact ? "lock held" : "lock held (inferred)";
            case UNPARK -> blocked ? "lock held" : "unpark";
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
                if (e.type().ordinal() >= EventType.START_CALL.ordinal()
                        && e.type().ordinal() <= EventType.THREAD_INTERRUPTED.ordinal()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The stack of a deadlocked thread's blocked enter: of its last MONITOR_ENTER on the monitor (any when 0); empty if none. */
    public List<Frame> enterStack(RecordedThread t, long monitor) {
        return enterStack(t, monitor, false);
    }

    /**
     * The stack of a deadlocked thread's blocked enter ({@code park} false) or lock park
     * ({@code park} true): of its last MONITOR_ENTER (PARK) on the object (any when 0); empty if none.
     */
    public List<Frame> enterStack(RecordedThread t, long monitor, boolean park) {
        EventType type = park ? EventType.PARK : EventType.MONITOR_ENTER;
        Event found = null;
        for (Event e : t.events()) {
            if (e.type() == type && (monitor == 0 || e.obj() == monitor)) {
                found = e;
            }
        }
        return found == null ? List.of() : r.frames(found.stackId());
    }

    /** Time on the critical path blocked and waiting per monitor: time descending, then state, then monitor. */
    public List<PathMonitor> pathMonitors() {
        List<PathMonitor> ms = new ArrayList<>();
        path.blockedNsByMonitor().forEach((m, ns) -> ms.add(new PathMonitor("blocked", m, ns)));
        path.waitingNsByMonitor().forEach((m, ns) -> ms.add(new PathMonitor("waiting", m, ns)));
        ms.sort(Comparator.comparingLong((PathMonitor m) -> -m.ns()).thenComparing(PathMonitor::state)
                .thenComparingLong(PathMonitor::monitor));
        return ms;
    }

    /** The longest waits on the critical path (not RUNNING, not empty): duration descending, then start; at most {@link #TOP}. */
    public List<Segment> longestWaits() {
        return path.waits().stream().filter(s -> s.durationNs() > 0).sorted(Comparator.comparingLong((Segment s) -> -s.durationNs())
                .thenComparingLong(Segment::startNs)).limit(TOP).toList();
    }

    /**
     * The threads with lost records ({@link RecordedThread#losses()}), the GC ring included: most
     * unknown time first, then name, then ring id; at most {@link #TOP}.
     */
    public List<RecordedThread> threadsWithLosses() {
        return r.threadsWithLosses().stream().sorted(Comparator.comparingLong((RecordedThread t) -> -t.lostNs())
                .thenComparing(RecordedThread::name).thenComparingLong(RecordedThread::ringId)).limit(TOP).toList();
    }

    /** Number of threads with lost records beyond {@link #threadsWithLosses()}. */
    public int moreThreadsWithLosses() {
        return Math.max(0, r.threadsWithLosses().size() - TOP);
    }

    /**
     * The longest blocks with an owner's side ({@link OwnerSamples}, agent option
     * {@code ownerstacks}): longest first, then start, then thread name; at most {@link #TOP}.
     */
    public List<OwnerSamples.Sample> longBlocks() {
        OwnerSamples os = index.ownerSamples();
        return os.all().stream().sorted(Comparator.comparingLong((OwnerSamples.Sample x) -> -blockedNs(x))
                .thenComparingLong(x -> index.intervals(x.ring()).select(x.interval()).startNs())
                .thenComparing(x -> x.blocked().name())).limit(TOP).toList();
    }

    /** Number of blocks with an owner's side beyond {@link #longBlocks()}. */
    public int moreLongBlocks() {
        return Math.max(0, index.ownerSamples().all().size() - TOP);
    }

    /** How long a sample's block lasted (to the snapshot, or the thread's end, when still open). */
    public long blockedNs(OwnerSamples.Sample s) {
        return index.ownerSamples().blockedNs(s);
    }

    /** The owner's side of the blocks: samples and their chains. */
    public OwnerSamples ownerSamples() {
        return index.ownerSamples();
    }

    /** Number of threads the critical path passes through. */
    public long pathThreads() {
        return path.segments().stream().map(s -> s.thread()).distinct().count();
    }
}
