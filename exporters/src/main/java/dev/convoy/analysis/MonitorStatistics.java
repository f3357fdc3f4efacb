package dev.convoy.analysis;

import dev.convoy.model.ClassInfo;
import dev.convoy.model.IdleRules;
import dev.convoy.model.Frame;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The "Monitor statistics" tables of the TPTP 4.5 contention analysis design, for all Java
 * threads or a selection of them:
 * <ol>
 * <li>{@link #threads()}: per thread, blocked count and time, waited count and time, idle count and time;</li>
 * <li>{@link #classes()}: per class of monitor objects, {@link Stats} of the blocks and of
 *     the waits (count, total, min, max, average, distribution);</li>
 * <li>{@link #blockCallers(String)} / {@link #waitCallers(String)}: for one class, per
 *     caller method, the stats, the number of monitor objects and of threads;</li>
 * <li>{@link #monitors()}: per monitor object, the stats of its blocks and of its waits.</li>
 * </ol>
 * Every row also has the stacks behind it ({@link #threadStacks}, {@link #monitorStacks},
 * {@link #callerStacks}): per stack of the MONITOR_ENTER (MONITOR_WAIT), the count and the time.
 * A block is a BLOCKED interval, a wait a WAITING interval ({@link Intervals}: the waits
 * of a {@code Thread.join} are not object waits and are not counted); the recording's
 * {@link IdleRules} split the waits into contention ({@code waited}) and {@code idle}, which
 * every table keeps apart and ranks after contention; a park counts as one
 * or the other (a lock acquisition blocks, any other park waits), its blocker as the
 * monitor, named by {@link Blockers#className} ({@link Blockers#NO_BLOCKER} for none), its
 * caller found in the PARK's stack the same way. Intervals still open
 * at the snapshot count with their time up to the thread's end or the snapshot. The
 * caller method is the top frame of the MONITOR_ENTER's (MONITOR_WAIT's) stack that is not
 * a JDK frame ({@link #isJdkClass}), or the top frame when all are, named
 * {@code pkg.Class.method}; {@code <no stack>} without a stack. A monitor whose object or
 * class is not described is of class {@code <unknown class>}.
 */
public final class MonitorStatistics {

    /** Upper bounds (exclusive) of the distribution buckets in ns; the last bucket has none. */
    public static final List<Long> BUCKET_BOUNDS_NS = List.of(1_000L, 10_000L, 100_000L, 1_000_000L,
            10_000_000L, 100_000_000L, 1_000_000_000L);
    /** Names of the distribution buckets, one more than {@link #BUCKET_BOUNDS_NS}. */
    public static final List<String> BUCKET_NAMES = List.of("<1us", "1us-10us", "10us-100us", "100us-1ms",
            "1ms-10ms", "10ms-100ms", "100ms-1s", ">=1s");
    /** Class name of monitors whose class is not described. */
    public static final String UNKNOWN_CLASS = "<unknown class>";
    /** Caller of an event without a stack. */
    public static final String NO_STACK = "<no stack>";

    /**
     * Durations of a set of intervals.
     *
     * @param count     number of intervals
     * @param totalNs   sum of durations
     * @param minNs     shortest (0 when count is 0)
     * @param maxNs     longest (0 when count is 0)
     * @param histogram count per bucket of {@link #BUCKET_BOUNDS_NS}
     */
    public record Stats(long count, long totalNs, long minNs, long maxNs, List<Long> histogram) {
        /** No interval. */
        public static final Stats EMPTY = new Stats(0, 0, 0, 0, Collections.nCopies(BUCKET_NAMES.size(), 0L));

        /** {@code totalNs / count} rounded down, 0 when count is 0. */
        public long avgNs() {
            return count == 0 ? 0 : totalNs / count;
        }
    }

    /** Durations added one at a time, summed up as {@link Stats}. */
    private static final class Acc {
        long count;
        long total;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        final long[] histogram = new long[BUCKET_NAMES.size()];

        void add(long d) {
            count++;
            total += d;
            min = Math.min(min, d);
            max = Math.max(max, d);
            histogram[bucket(d)]++;
        }

        Stats stats() {
            if (count == 0) {
                return Stats.EMPTY;
            }
            List<Long> hist = new ArrayList<>();
            for (long v : histogram) {
                hist.add(v);
            }
            return new Stats(count, total, min, max, List.copyOf(hist));
        }
    }

    /** A class's blocks (or waits): their durations, and per caller method. */
    private static final class ClassAcc {
        final Acc all = new Acc();
        final Map<String, CallerAcc> callers = new LinkedHashMap<>();
    }

    /** One caller's blocks (or waits) on a class: durations, distinct monitors and threads, stacks. */
    private static final class CallerAcc {
        final Acc all = new Acc();
        final Set<Long> monitors = new HashSet<>();
        final Set<RecordedThread> threads = Collections.newSetFromMap(new IdentityHashMap<>());
        final StackTally stacks = new StackTally();
    }

    /** One monitor's blocks and waits, and their stacks. */
    private static final class MonitorAcc {
        boolean park; // a park's blocker
        final Acc blocked = new Acc();
        final Acc waited = new Acc();
        final Acc idle = new Acc();
        final StackTally stacks = new StackTally();
    }

    /** Count and time per stack id (stack 0, no stack, is not counted). */
    private static final class StackTally {
        final Map<Integer, long[]> byStack = new HashMap<>();

        void add(int stackId, long ns) {
            if (stackId != 0) {
                long[] v = byStack.computeIfAbsent(stackId, k -> new long[2]);
                v[0]++;
                v[1] += ns;
            }
        }

        /** Most time first, then stack id. */
        List<StackCount> sorted() {
            List<StackCount> out = new ArrayList<>(byStack.size());
            byStack.forEach((id, v) -> out.add(new StackCount(id, v[0], v[1])));
            out.sort(Comparator.comparingLong((StackCount c) -> -c.totalNs()).thenComparingInt(StackCount::stackId));
            return out;
        }
    }

    /** The bucket index of a duration. */
    public static int bucket(long ns) {
        for (int i = 0; i < BUCKET_BOUNDS_NS.size(); i++) {
            if (ns < BUCKET_BOUNDS_NS.get(i)) {
                return i;
            }
        }
        return BUCKET_BOUNDS_NS.size();
    }

    /**
     * One thread's row: its blocks, its waits that were contention and its idle waits
     * ({@link IdleRules}).
     */
    public record ThreadRow(RecordedThread thread, long blockedCount, long blockedNs, long waitedCount,
                            long waitedNs, long idleCount, long idleNs) {
        /** Blocked plus waited: the time contention cost the thread (idle time not included). */
        public long contentionNs() {
            return blockedNs + waitedNs;
        }
    }

    /**
     * One monitor object's row: its blocks and its waits.
     *
     * @param className its class, {@link #UNKNOWN_CLASS} when not described; for a park's
     *                  blocker the lock's class ({@link Blockers#className})
     * @param blocker   a blocker threads parked on ({@code java.util.concurrent}), not (only) a monitor
     */
    public record MonitorRow(long monitor, String className, Stats blocked, Stats waited, Stats idle, boolean blocker) {
    }

    /** The blocks and waits of one row that began with one stack: how many, and their total time. */
    public record StackCount(int stackId, long count, long totalNs) {
    }

    /** One monitor class's row: its blocks, its waits that were contention and its idle waits. */
    public record ClassRow(String className, Stats blocked, Stats waited, Stats idle) {
        /** Whether nothing but idle waits were on it. */
        public boolean idleOnly() {
            return blocked.count() == 0 && waited.count() == 0;
        }
    }

    /**
     * One caller method of a class's blocks (or waits).
     *
     * @param monitors number of distinct monitor objects
     * @param threads  number of distinct threads
     */
    public record CallerRow(String className, String caller, Stats stats, int monitors, int threads) {
    }

    // Aggregated while the intervals are read, so that nothing is kept per interval.
    private final List<ThreadRow> threads;
    private final Map<String, ClassAcc> blocksByClass = new LinkedHashMap<>();
    private final Map<String, ClassAcc> waitsByClass = new LinkedHashMap<>();
    private final Map<String, ClassAcc> idleByClass = new LinkedHashMap<>();
    private final Map<Integer, String> callerOfStack = new HashMap<>();
    private final Map<Long, MonitorAcc> byMonitor = new LinkedHashMap<>();
    private final Map<RecordedThread, StackTally> threadStacks = new IdentityHashMap<>();
    private final Recording r;

    private MonitorStatistics(Recording r, Collection<RecordedThread> selected) {
        this.r = r;
        Set<RecordedThread> sel = Collections.newSetFromMap(new IdentityHashMap<>());
        sel.addAll(selected);
        long snapshot = r.snapshotMonotonicNs();
        IdleRules.Classifier idleRules = r.idleRules().classifier(r);
        List<ThreadRow> rows = new ArrayList<>();
        for (RecordedThread t : r.javaThreads()) {
            if (!sel.contains(t)) {
                continue;
            }
            long bc = 0, bn = 0, wc = 0, wn = 0, ic = 0, in_ = 0;
            StackTally stacks = new StackTally();
            for (Interval in : Intervals.of(r, t, snapshot)) {
                if (in.kind() == Interval.Kind.BLOCKED) {
                    bc++;
                    bn += in.durationNs();
                    add(blocksByClass, in);
                    MonitorAcc m = monitor(in);
                    m.blocked.add(in.durationNs());
                    m.stacks.add(in.begin().stackId(), in.durationNs());
                    stacks.add(in.begin().stackId(), in.durationNs());
                } else if (in.kind() == Interval.Kind.WAITING && idleRules.isIdle(t, in.begin().stackId())) {
                    ic++;
                    in_ += in.durationNs();
                    add(idleByClass, in);
                    monitor(in).idle.add(in.durationNs());
                } else if (in.kind() == Interval.Kind.WAITING) {
                    wc++;
                    wn += in.durationNs();
                    add(waitsByClass, in);
                    MonitorAcc m = monitor(in);
                    m.waited.add(in.durationNs());
                    m.stacks.add(in.begin().stackId(), in.durationNs());
                    stacks.add(in.begin().stackId(), in.durationNs());
                }
            }
            threadStacks.put(t, stacks);
            rows.add(new ThreadRow(t, bc, bn, wc, wn, ic, in_));
        }
        this.threads = List.copyOf(rows);
    }

    /** Statistics over all Java threads. */
    public static MonitorStatistics of(Recording r) {
        return new MonitorStatistics(r, r.javaThreads());
    }

    /** Statistics over the selected threads only (the TPTP design's thread multi-selection). */
    public static MonitorStatistics of(Recording r, Collection<RecordedThread> selected) {
        return new MonitorStatistics(r, selected);
    }

    /** One row per selected Java thread, in file order (threads without blocks or waits included). */
    public List<ThreadRow> threads() {
        return threads;
    }

    private MonitorAcc monitor(Interval in) {
        MonitorAcc m = byMonitor.computeIfAbsent(in.monitor(), k -> new MonitorAcc());
        m.park |= in.isPark();
        return m;
    }

    private void add(Map<String, ClassAcc> byClass, Interval in) {
        ClassAcc c = byClass.computeIfAbsent(className(in.monitor(), in.isPark()), k -> new ClassAcc());
        c.all.add(in.durationNs());
        int stack = in.begin().stackId();
        CallerAcc k = c.callers.computeIfAbsent(callerOfStack.computeIfAbsent(stack, s -> caller(r, s)),
                x -> new CallerAcc());
        k.all.add(in.durationNs());
        k.monitors.add(in.monitor());
        k.threads.add(in.thread());
        k.stacks.add(stack, in.durationNs());
    }

    /**
     * One row per monitor object with at least one block or wait: by total blocked time, then
     * total waited time (both descending), then monitor id.
     */
    public List<MonitorRow> monitors() {
        List<MonitorRow> out = new ArrayList<>(byMonitor.size());
        byMonitor.forEach((id, m) -> out.add(new MonitorRow(id, className(id, m.park), m.blocked.stats(),
                m.waited.stats(), m.idle.stats(), m.park)));
        out.sort(Comparator.comparingLong((MonitorRow m) -> -m.blocked().totalNs())
                .thenComparingLong(m -> -m.waited().totalNs()).thenComparingLong(m -> -m.idle().totalNs())
                .thenComparingLong(MonitorRow::monitor));
        return out;
    }

    /** The stacks of a selected thread's blocks and waits, most time first; empty for a thread not selected. */
    public List<StackCount> threadStacks(RecordedThread t) {
        StackTally s = threadStacks.get(t);
        return s == null ? List.of() : s.sorted();
    }

    /** The stacks of the blocks and waits on a monitor, most time first. */
    public List<StackCount> monitorStacks(long monitor) {
        MonitorAcc m = byMonitor.get(monitor);
        return m == null ? List.of() : m.stacks.sorted();
    }

    /** The stacks of a caller row ({@link #blockCallers} or {@link #waitCallers}), most time first. */
    public List<StackCount> callerStacks(CallerRow row, boolean blocks) {
        ClassAcc c = (blocks ? blocksByClass : waitsByClass).get(row.className());
        CallerAcc k = c == null ? null : c.callers.get(row.caller());
        if (k == null && !blocks) {
            ClassAcc i = idleByClass.get(row.className());
            k = i == null ? null : i.callers.get(row.caller());
        }
        return k == null ? List.of() : k.stacks.sorted();
    }

    /**
     * One row per class with at least one block or wait: by total blocked time, then total
     * waited time, then idle time (all descending), then name; the classes with only idle waits
     * come last.
     */
    public List<ClassRow> classes() {
        Set<String> names = new HashSet<>(blocksByClass.keySet());
        names.addAll(waitsByClass.keySet());
        names.addAll(idleByClass.keySet());
        List<ClassRow> out = new ArrayList<>();
        for (String n : names) {
            out.add(new ClassRow(n, stats(blocksByClass.get(n)), stats(waitsByClass.get(n)), stats(idleByClass.get(n))));
        }
        out.sort(Comparator.comparingLong((ClassRow c) -> -c.blocked().totalNs())
                .thenComparingLong(c -> -c.waited().totalNs()).thenComparingLong(c -> -c.idle().totalNs())
                .thenComparing(ClassRow::className));
        return out;
    }

    private static Stats stats(ClassAcc c) {
        return c == null ? Stats.EMPTY : c.all.stats();
    }

    /** The blocks on monitors of a class, per caller method, by total time descending, then caller. */
    public List<CallerRow> blockCallers(String className) {
        return callers(className, blocksByClass.get(className));
    }

    /** The waits (contention) on monitors of a class, per caller method, by total time descending, then caller. */
    public List<CallerRow> waitCallers(String className) {
        return callers(className, waitsByClass.get(className));
    }

    /** The idle waits on monitors of a class, per caller method, by total time descending, then caller. */
    public List<CallerRow> idleCallers(String className) {
        return callers(className, idleByClass.get(className));
    }

    private static List<CallerRow> callers(String className, ClassAcc c) {
        if (c == null) {
            return List.of();
        }
        List<CallerRow> out = new ArrayList<>();
        for (Map.Entry<String, CallerAcc> e : c.callers.entrySet()) {
            CallerAcc k = e.getValue();
            out.add(new CallerRow(className, e.getKey(), k.all.stats(), k.monitors.size(), k.threads.size()));
        }
        out.sort(Comparator.comparingLong((CallerRow row) -> -row.stats().totalNs()).thenComparing(CallerRow::caller));
        return out;
    }

    private String className(long monitor, boolean park) {
        String c = Blockers.className(r, monitor, park);
        return c.isEmpty() ? UNKNOWN_CLASS : c;
    }

    /**
     * Classes skipped when looking for the caller: the JDK's (java., javax., jdk., sun.,
     * com.sun.) and Convoy's instrumentation probes (dev.convoy.probes.), through which an
     * instrumented {@code wait} call site calls {@code Object.wait}.
     */
    public static boolean isJdkClass(String dotted) {
        return dotted.startsWith("java.") || dotted.startsWith("javax.") || dotted.startsWith("jdk.")
                || dotted.startsWith("sun.") || dotted.startsWith("com.sun.") || dotted.startsWith("dev.convoy.probes.");
    }

    /** The caller method of a stack: {@code pkg.Class.method} of its first frame not skipped by {@link #isJdkClass}, else of its top frame. */
    public static String caller(Recording r, int stackId) {
        List<Frame> frames = r.frames(stackId);
        if (frames.isEmpty()) {
            return NO_STACK;
        }
        for (Frame f : frames) {
            String c = declaringClass(r, f);
            if (c != null && !isJdkClass(c)) {
                return methodName(r, f);
            }
        }
        return methodName(r, frames.get(0));
    }

    private static String declaringClass(Recording r, Frame f) {
        MethodInfo m = r.methods().get(f.methodId());
        if (m == null) {
            return null;
        }
        ClassInfo c = r.classes().get(m.classId());
        return c == null ? "" : c.dottedName();
    }

    /**
     * A frame's method as {@code pkg.Class.method}: {@code <unloaded>} for the class of an
     * undescribed or unnamed class, {@code <unknown method 0x...>} for an undescribed method.
     */
    public static String methodName(Recording r, Frame f) {
        MethodInfo m = r.methods().get(f.methodId());
        if (m == null) {
            return "<unknown method 0x" + Long.toHexString(f.methodId()) + ">";
        }
        String c = declaringClass(r, f);
        return (c == null || c.isEmpty() ? "<unloaded>" : c) + "." + m.name();
    }
}
