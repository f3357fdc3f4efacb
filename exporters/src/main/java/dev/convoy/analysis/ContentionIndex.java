package dev.convoy.analysis;

import static dev.convoy.snapshot.SnapshotFormat.*;

import dev.convoy.analysis.Interactions.Kind;
import dev.convoy.analysis.ThreadStates.State;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RadixSort;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The contention analysis of a recording (the rules of {@code docs/analysis.md}): intervals,
 * owners and handoffs, interactions, thread states and the critical path, in primitive
 * arrays. The one implementation of those rules: the streaming Chrome writer reads it
 * directly; {@link Intervals}, {@link Interactions}, {@link ThreadStates},
 * {@link CriticalPath} and {@link MonitorOwnership#handoffs()} are views that materialize
 * their objects from it. Built in one pass over each ring (intervals, calls) and one pass
 * over {@link Recording#events()} (owners, handoffs, notify binding).
 *
 * <p>What it keeps: per interval 42 to 58 bytes (start, end, monitor, record indexes, owner,
 * the interaction that ended it), per thread-state span 12, per interaction (arrow) 49, per
 * critical-path segment 37, per start or interrupt call 4, per notify call 12, and per
 * monitor the notify calls a wake could still bind and the wakes waiting for a notify. No
 * object per event.
 *
 * <p>Intervals are numbered per ring in {@link Intervals#of(RecordedThread, long)} order;
 * interactions globally, in derivation order. TIMEOUT is not an interaction of the index (it
 * is no arrow): a WAITING interval that {@link #timedOut} has one.
 */
public final class ContentionIndex {
    /** Interval kind BLOCKED ({@link Interval.Kind} ordinals, as the others). */
    public static final int BLOCKED = 0;
    /** Interval kind WAITING. */
    public static final int WAITING = 1;
    /** Interval kind SLEEPING. */
    public static final int SLEEPING = 2;
    /** Interval kind JOINING. */
    public static final int JOINING = 3;
    /** Interval kind GC. */
    public static final int GC = 4;

    private static final int OPEN = 1;
    private static final int TIMED_OUT = 2;
    private static final int ENDS_AT_INTERRUPT = 4;
    private static final int INTERRUPT_USED = 8;
    private static final int NEXT_IS_INTERRUPT = 16;
    private static final int CRITICAL = 32;
    private static final int DEADLOCKED = 64;

    private static final Kind[] KINDS = Kind.values();
    private static final State[] STATES = State.values();

    /** The intervals of one ring (start order), its spans and a few record indexes. */
    private static final class Ring {
        final RecordedThread t;
        int n;
        long[] start = new long[8];
        long[] end = new long[8];
        long[] monitor = new long[8];
        byte[] kind = new byte[8];
        byte[] flags = new byte[8];
        int[] begin = new int[8];
        int[] endIdx = new int[8];
        int[] owner; // ring position + 1, 0 unknown (BLOCKED)
        int[] ender; // interaction id, or -2 - ring position of the waiter for a TIMEOUT, -1 none
        long[] maxEnd; // prefix maximum of end, made when an interrupt call needs it
        int[] byBegin; // interval ids by begin record index; null: the identity
        int[] byEnd; // closed interval ids by end record index; null: the identity (none open)
        int[] interrupted = new int[0]; // THREAD_INTERRUPTED record indexes
        boolean[] interruptUsed;
        int firstStart = -1;
        int firstEnd = -1; // the first THREAD_END record
        int[] joinWaits; // the join's MONITOR_WAIT/WAITED record indexes, when asked for
        int joinWaitCount;
        boolean sorted = true;
        long[] spanStart;
        long lastSpanEnd; // spans are contiguous: span i ends where span i + 1 starts
        int[] spanIv; // interval id, -1 RUNNING, -2 DEAD
        int spans;

        Ring(RecordedThread t) {
            this.t = t;
        }

        void add(int k, long mon, int b, int e, long endNs, int f) {
            if (n == start.length) {
                int c = 2 * n;
                start = Arrays.copyOf(start, c);
                end = Arrays.copyOf(end, c);
                monitor = Arrays.copyOf(monitor, c);
                kind = Arrays.copyOf(kind, c);
                flags = Arrays.copyOf(flags, c);
                begin = Arrays.copyOf(begin, c);
                endIdx = Arrays.copyOf(endIdx, c);
            }
            start[n] = t.ts(b);
            end[n] = endNs;
            monitor[n] = mon;
            kind[n] = (byte) k;
            flags[n] = (byte) f;
            begin[n] = b;
            endIdx[n] = e;
            n++;
        }

        int beginCursor;
        int endCursor;

        /** The interval beginning at record {@code idx}: a cursor when records come in ring order. */
        int atBegin(int idx) {
            if (!sorted) {
                return find(byBegin, begin, idx);
            }
            int len = byBegin == null ? n : byBegin.length;
            while (beginCursor < len && begin[id(byBegin, beginCursor)] < idx) {
                beginCursor++;
            }
            return beginCursor < len && begin[id(byBegin, beginCursor)] == idx ? id(byBegin, beginCursor) : -1;
        }

        static int id(int[] ids, int pos) {
            return ids == null ? pos : ids[pos];
        }

        long spanEnd(int i) {
            return i + 1 < spans ? spanStart[i + 1] : lastSpanEnd;
        }

        /** The closed interval ending at record {@code idx}, as {@link #atBegin}. */
        int atEnd(int idx) {
            if (!sorted) {
                return find(byEnd, endIdx, idx);
            }
            int len = byEnd == null ? n : byEnd.length;
            while (endCursor < len && endIdx[id(byEnd, endCursor)] < idx) {
                endCursor++;
            }
            return endCursor < len && endIdx[id(byEnd, endCursor)] == idx ? id(byEnd, endCursor) : -1;
        }

        void trim() {
            start = Arrays.copyOf(start, n);
            end = Arrays.copyOf(end, n);
            monitor = Arrays.copyOf(monitor, n);
            kind = Arrays.copyOf(kind, n);
            flags = Arrays.copyOf(flags, n);
            begin = Arrays.copyOf(begin, n);
            endIdx = Arrays.copyOf(endIdx, n);
        }

        /** Interval id whose begin (or end) record is {@code idx}, -1 if none. */
        int find(int[] ids, int[] key, int idx) {
            int lo = 0;
            int hi = (ids == null ? n : ids.length) - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                int v = key[id(ids, mid)];
                if (v < idx) {
                    lo = mid + 1;
                } else if (v > idx) {
                    hi = mid - 1;
                } else {
                    return id(ids, mid);
                }
            }
            return -1;
        }
    }

    private final Recording r;
    private final RecordedThread[] threads;
    private final Map<RecordedThread, Integer> position = new IdentityHashMap<>();
    private final Ring[] rings;
    private final Map<Long, Integer> byObject = new HashMap<>();
    private final Map<Long, Integer> byJavaId = new HashMap<>();

    // interactions (arrows): derivation order
    private int count;
    private byte[] iKind = new byte[64];
    private int[] iFrom = new int[64];
    private long[] iFromNs = new long[64];
    private int[] iTo = new int[64];
    private long[] iToNs = new long[64];
    private long[] iMonitor = new long[64];
    private int[] iCause = new int[64]; // record index of the cause on the from ring, -1 none
    private int[] iEnded = new int[64]; // interval of the to ring it ended; -1 none; <= -2: none, effect record -2 - v
    private int[] startOf;
    private int[] startCall; // per START_CALL in event order: its interaction, -1
    private int[] interruptCall;
    private int[] notifyFirst; // per NOTIFY/NOTIFY_ALL call in event order: first bound interaction, -1
    private int[] notifyNext; // per interaction: the next one bound to the same call, -1
    private int notifyCalls;
    private int[] notifyRing; // per NOTIFY/NOTIFY_ALL call in event order: its ring and record index
    private int[] notifyRecord;

    // the critical path
    private int segs;
    private int[] sRing = new int[16];
    private byte[] sState = new byte[16];
    private long[] sStart = new long[16];
    private long[] sEnd = new long[16];
    private long[] sMonitor = new long[16];
    private int[] sVia = new int[16]; // interaction id, -1 none
    private int[] sIv = new int[16]; // interval of the segment's ring, -1 none
    private int pathEnd = -1;
    private long pathStartNs;
    private long pathEndNs;

    private ContentionIndex(Recording r, RecordedThread[] threads) {
        this.r = r;
        this.threads = threads;
        this.rings = new Ring[threads.length];
        for (int k = 0; k < threads.length; k++) {
            position.put(threads[k], k);
        }
    }

    /** Builds the index of a recording. */
    public static ContentionIndex of(Recording r) {
        ContentionIndex x = new ContentionIndex(r, r.threads().toArray(new RecordedThread[0]));
        x.build();
        return x;
    }

    /**
     * The intervals of one ring alone (its ring 0), open ones ending at the thread's end or
     * {@code snapshotNs}: the interval accessors only, no interactions, spans or path.
     */
    static ContentionIndex intervalsOnly(RecordedThread t, long snapshotNs) {
        ContentionIndex x = new ContentionIndex(null, new RecordedThread[] {t});
        x.rings[0] = scan(t, 0, snapshotNs, null, null, false);
        return x;
    }

    /** The MONITOR_WAIT and MONITOR_WAITED record indexes of a ring that belong to a {@code Thread.join}. */
    static int[] joinWaits(RecordedThread t) {
        Ring g = scan(t, 0, t.endNs(), null, null, true);
        return Arrays.copyOf(g.joinWaits, g.joinWaitCount);
    }

    private void build() {
        long snapshot = r.snapshotMonotonicNs();
        List<long[]> starts = new ArrayList<>();
        List<long[]> interrupts = new ArrayList<>();
        for (int k = 0; k < threads.length; k++) {
            rings[k] = scan(threads[k], k, snapshot, starts, interrupts, false);
            RecordedThread t = threads[k];
            if (!t.isSystem()) {
                if (t.threadObject() != 0) {
                    prefer(byObject, t.threadObject(), k);
                }
                if (t.javaThreadId() >= 0) {
                    prefer(byJavaId, t.javaThreadId(), k);
                }
            }
        }
        startOf = new int[threads.length];
        Arrays.fill(startOf, -1);
        starts(sortCalls(starts));
        interrupts(sortCalls(interrupts));
        for (Ring g : rings) {
            if (g.t.isSystem()) {
                continue;
            }
            for (int i = 0; i < g.n; i++) {
                if (g.kind[i] == WAITING && (g.flags[i] & TIMED_OUT) != 0) {
                    ender(g, i, -2 - position.get(g.t), g.end[i], Kind.TIMEOUT);
                }
            }
        }
        joins();
        merged();
        deadlocks();
        for (Ring g : rings) {
            if (!g.t.isSystem()) {
                spans(g, snapshot);
            }
        }
        walk();
        iKind = Arrays.copyOf(iKind, count);
        iFrom = Arrays.copyOf(iFrom, count);
        iFromNs = Arrays.copyOf(iFromNs, count);
        iTo = Arrays.copyOf(iTo, count);
        iToNs = Arrays.copyOf(iToNs, count);
        iMonitor = Arrays.copyOf(iMonitor, count);
        iCause = Arrays.copyOf(iCause, count);
        iEnded = Arrays.copyOf(iEnded, count);
    }

    private void prefer(Map<Long, Integer> map, long key, int k) {
        Integer found = map.get(key);
        if (found == null || threads[found].isLate() && !threads[k].isLate()) {
            map.put(key, k);
        }
    }

    /** The Java thread's ring of a Thread object, else of a Java id (one not met late preferred); -1 if none. */
    private int target(long threadObject, long javaId) {
        Integer k = threadObject != 0 ? byObject.get(threadObject) : javaId >= 0 ? byJavaId.get(javaId) : null;
        return k == null ? -1 : k;
    }

    /**
     * The intervals of a ring (the pairing rules of {@link Intervals}), plus its calls (when
     * {@code starts} and {@code interrupts} are given), interrupt records and, if asked, the
     * records of its joins' waits.
     */
    private static Ring scan(RecordedThread t, int k, long snapshot, List<long[]> starts, List<long[]> interrupts,
                             boolean joinWaits) {
        Ring g = new Ring(t);
        if (joinWaits) {
            g.joinWaits = new int[4];
        }
        int enter = -1;
        int wait = -1;
        int gc = -1;
        int sleep = -1;
        int join = -1;
        int n = t.eventCount();
        int[] ti = new int[4];
        int tiCount = 0;
        long prevTs = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            long ts = t.ts(i);
            if (ts < prevTs) {
                g.sorted = false;
            }
            prevTs = ts;
            switch (t.rawType(i)) {
                case EVENT_MONITOR_ENTER -> enter = i;
                case EVENT_GC_START -> gc = i;
                case EVENT_SLEEP -> sleep = i;
                case EVENT_JOIN -> join = i;
                case EVENT_MONITOR_WAIT -> {
                    if (join < 0 || t.obj(join) != t.obj(i)) {
                        wait = i;
                    } else {
                        joinWait(g, i);
                    }
                }
                case EVENT_MONITOR_ENTERED -> {
                    if (enter >= 0 && t.obj(enter) == t.obj(i)) {
                        g.add(BLOCKED, t.obj(i), enter, i, ts, 0);
                    }
                    enter = -1;
                }
                case EVENT_MONITOR_WAITED -> {
                    if (join < 0 || t.obj(join) != t.obj(i)) {
                        if (wait >= 0 && t.obj(wait) == t.obj(i)) {
                            int f = (t.flags(i) & FLAG_TIMED_OUT) != 0 ? TIMED_OUT : 0;
                            if (i + 1 < n && t.rawType(i + 1) == EVENT_THREAD_INTERRUPTED) {
                                f |= NEXT_IS_INTERRUPT;
                            }
                            g.add(WAITING, t.obj(i), wait, i, ts, f);
                        }
                        wait = -1;
                    } else {
                        joinWait(g, i);
                    }
                }
                case EVENT_SLEPT -> {
                    if (sleep >= 0) {
                        g.add(SLEEPING, 0, sleep, i, ts, 0);
                    }
                    sleep = -1;
                }
                case EVENT_JOINED -> {
                    if (join >= 0 && t.obj(join) == t.obj(i)) {
                        g.add(JOINING, t.obj(i), join, i, ts, 0);
                    }
                    join = -1;
                }
                case EVENT_THREAD_INTERRUPTED -> {
                    if (tiCount == ti.length) {
                        ti = Arrays.copyOf(ti, 2 * tiCount);
                    }
                    ti[tiCount++] = i;
                    if (sleep >= 0) {
                        g.add(SLEEPING, 0, sleep, i, ts, ENDS_AT_INTERRUPT);
                        sleep = -1;
                    }
                    if (join >= 0) {
                        g.add(JOINING, t.obj(join), join, i, ts, ENDS_AT_INTERRUPT);
                        join = -1;
                    }
                }
                case EVENT_GC_FINISH -> {
                    if (gc >= 0) {
                        g.add(GC, 0, gc, i, ts, 0);
                    }
                    gc = -1;
                }
                case EVENT_START_CALL -> {
                    if (starts != null) {
                        starts.add(new long[] {ts, k, i});
                    }
                }
                case EVENT_INTERRUPT_CALL -> {
                    if (interrupts != null) {
                        interrupts.add(new long[] {ts, k, i});
                    }
                }
                case EVENT_THREAD_START -> g.firstStart = g.firstStart < 0 ? i : g.firstStart;
                case EVENT_THREAD_END -> g.firstEnd = g.firstEnd < 0 ? i : g.firstEnd;
                default -> {
                }
            }
        }
        long openEnd = t.endNs() != 0 ? t.endNs() : snapshot;
        int[] open = {enter, wait, sleep, join, gc};
        int[] kinds = {BLOCKED, WAITING, SLEEPING, JOINING, GC};
        for (int j = 0; j < open.length; j++) {
            int b = open[j];
            if (b >= 0) {
                long mon = kinds[j] == BLOCKED || kinds[j] == WAITING || kinds[j] == JOINING ? t.obj(b) : 0;
                g.add(kinds[j], mon, b, -1, Math.max(t.ts(b), openEnd), OPEN);
            }
        }
        g.trim();
        sortByStart(g);
        g.interrupted = Arrays.copyOf(ti, tiCount);
        g.interruptUsed = new boolean[tiCount];
        g.owner = new int[g.n];
        g.ender = new int[g.n];
        Arrays.fill(g.ender, -1);
        g.byBegin = order(g.n, g.begin, false, g);
        g.byEnd = order(g.n, g.endIdx, true, g);
        return g;
    }

    private static void joinWait(Ring g, int i) {
        if (g.joinWaits != null) {
            if (g.joinWaitCount == g.joinWaits.length) {
                g.joinWaits = Arrays.copyOf(g.joinWaits, 2 * g.joinWaitCount);
            }
            g.joinWaits[g.joinWaitCount++] = i;
        }
    }

    private static int[] order(int n, int[] key, boolean closedOnly, Ring g) {
        int m = 0;
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            if (!closedOnly || (g.flags[i] & OPEN) == 0) {
                ids[m++] = i;
            }
        }
        ids = Arrays.copyOf(ids, m);
        long[] k = new long[n];
        for (int i = 0; i < n; i++) {
            k[i] = key[i];
        }
        ids = sortStable(ids, k);
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] != i) {
                return ids;
            }
        }
        return ids.length == n ? null : ids;
    }

    /** Reorders the ring's intervals by start time, stably (as {@link Intervals} sorts them). */
    private static void sortByStart(Ring g) {
        boolean sorted = true;
        for (int i = 1; i < g.n && sorted; i++) {
            sorted = g.start[i - 1] <= g.start[i];
        }
        int n = g.n;
        if (sorted) {
            return;
        }
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = i;
        }
        ids = sortStable(ids, g.start);
        long[] start = new long[n];
        long[] end = new long[n];
        long[] mon = new long[n];
        byte[] kind = new byte[n];
        byte[] flags = new byte[n];
        int[] begin = new int[n];
        int[] endIdx = new int[n];
        for (int i = 0; i < n; i++) {
            int j = ids[i];
            start[i] = g.start[j];
            end[i] = g.end[j];
            mon[i] = g.monitor[j];
            kind[i] = g.kind[j];
            flags[i] = g.flags[j];
            begin[i] = g.begin[j];
            endIdx[i] = g.endIdx[j];
        }
        g.start = start;
        g.end = end;
        g.monitor = mon;
        g.kind = kind;
        g.flags = flags;
        g.begin = begin;
        g.endIdx = endIdx;
    }

    /**
     * The ids ordered by {@code key[id]}, ties in their given order: a {@link RadixSort} of the
     * keys' offsets from the smallest, linear in the number of ids; the ids as given when
     * already in order.
     */
    static int[] sortStable(int[] ids, long[] key) {
        int n = ids.length;
        long[] ka = new long[n];
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        boolean sorted = true;
        for (int i = 0; i < n; i++) {
            long k = key[ids[i]];
            ka[i] = k;
            min = Math.min(min, k);
            max = Math.max(max, k);
            sorted &= i == 0 || ka[i - 1] <= k;
        }
        if (sorted) {
            return ids;
        }
        for (int i = 0; i < n; i++) {
            ka[i] -= min; // as unsigned: order kept even if the range overflows a signed long
        }
        int bits = 64 - Long.numberOfLeadingZeros(max - min);
        int[] a = ids.clone();
        int[] b = new int[n];
        return new RadixSort().sort(ka, a, new long[n], b, n, bits) ? b : a;
    }

    /** Calls {ts, ring, index} in the order of {@link Recording#events()}. */
    private static List<long[]> sortCalls(List<long[]> calls) {
        calls.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0])
                : a[1] != b[1] ? Long.compare(a[1], b[1]) : Long.compare(a[2], b[2]));
        return calls;
    }

    /**
     * A new interaction; {@code cause}: its record on the from ring, -1 none; {@code ended}: the
     * interval of the to ring it ended, else -1, or {@code -2 - record} of its effect.
     */
    private int interaction(Kind kind, int from, long fromNs, int to, long toNs, long monitor, int cause, int ended) {
        if (count == iKind.length) {
            int c = 2 * count;
            iKind = Arrays.copyOf(iKind, c);
            iFrom = Arrays.copyOf(iFrom, c);
            iFromNs = Arrays.copyOf(iFromNs, c);
            iTo = Arrays.copyOf(iTo, c);
            iToNs = Arrays.copyOf(iToNs, c);
            iMonitor = Arrays.copyOf(iMonitor, c);
            iCause = Arrays.copyOf(iCause, c);
            iEnded = Arrays.copyOf(iEnded, c);
        }
        iCause[count] = cause;
        iEnded[count] = ended;
        iKind[count] = (byte) kind.ordinal();
        iFrom[count] = from;
        iFromNs[count] = fromNs;
        iTo[count] = to;
        iToNs[count] = toNs;
        iMonitor[count] = monitor;
        return count++;
    }

    /**
     * Records a candidate for the interaction that ended an interval: the first by
     * (from time, derivation order of the kinds), as {@link Interactions#endedBy} picks it.
     */
    private void ender(Ring g, int iv, int id, long fromNs, Kind kind) {
        int cur = g.ender[iv];
        if (cur != -1) {
            long curNs = cur >= 0 ? iFromNs[cur] : g.end[iv];
            Kind curKind = cur >= 0 ? KINDS[iKind[cur]] : Kind.TIMEOUT;
            if (curNs < fromNs || curNs == fromNs && rank(curKind) <= rank(kind)) {
                return;
            }
        }
        g.ender[iv] = id;
    }

    /** The order in which the kinds were first derived, the tie-breaker of {@link Interactions#all()}. */
    private static int rank(Kind k) {
        return switch (k) {
            case START -> 0;
            case HANDOFF -> 1;
            case INTERRUPT -> 2;
            case TIMEOUT -> 3;
            case JOIN_END -> 4;
            case NOTIFY, NOTIFY_ALL -> 5;
        };
    }

    private void starts(List<long[]> calls) {
        startCall = new int[calls.size()];
        Arrays.fill(startCall, -1);
        for (int c = 0; c < calls.size(); c++) {
            int k = (int) calls.get(c)[1];
            int i = (int) calls.get(c)[2];
            RecordedThread caller = threads[k];
            int to = target(caller.obj(i), caller.arg2(i));
            if (to < 0 || threads[to].isLate() || to == k || startOf[to] >= 0) {
                continue;
            }
            Ring g = rings[to];
            long at = g.firstStart >= 0 ? threads[to].ts(g.firstStart) : threads[to].startNs();
            int id = interaction(Kind.START, k, caller.ts(i), to, at, threads[to].threadObject(), i,
                    g.firstStart >= 0 ? -2 - g.firstStart : -1);
            startOf[to] = id;
            startCall[c] = id;
        }
    }

    private static boolean resumable(int kind) {
        return kind == WAITING || kind == SLEEPING || kind == JOINING;
    }

    private void interrupts(List<long[]> calls) {
        interruptCall = new int[calls.size()];
        Arrays.fill(interruptCall, -1);
        for (int c = 0; c < calls.size(); c++) {
            long ts = calls.get(c)[0];
            int k = (int) calls.get(c)[1];
            int i = (int) calls.get(c)[2];
            int x = target(threads[k].obj(i), threads[k].arg2(i));
            if (x < 0 || x == k) {
                continue;
            }
            Ring g = rings[x];
            if (g.maxEnd == null) {
                g.maxEnd = new long[g.n];
                long max = Long.MIN_VALUE;
                for (int j = 0; j < g.n; j++) {
                    max = Math.max(max, g.end[j]);
                    g.maxEnd[j] = max;
                }
            }
            int hit = -1;
            for (int j = lastStartAtOrBefore(g, ts); j >= 0 && g.maxEnd[j] >= ts; j--) {
                if (resumable(g.kind[j]) && (g.flags[j] & OPEN) == 0 && g.start[j] <= ts && ts <= g.end[j]
                        && (g.flags[j] & INTERRUPT_USED) == 0) {
                    hit = j; // innermost: the latest in start order
                    break;
                }
            }
            int effect;
            if (hit >= 0) {
                effect = g.endIdx[hit];
            } else {
                int ti = -1;
                for (int q = 0; q < g.interrupted.length; q++) {
                    if (threads[x].ts(g.interrupted[q]) >= ts && !g.interruptUsed[q]) {
                        ti = q;
                        break;
                    }
                }
                if (ti < 0) {
                    continue;
                }
                effect = g.interrupted[ti];
                hit = g.find(g.byEnd, g.endIdx, effect);
                if (hit >= 0 && (g.flags[hit] & INTERRUPT_USED) != 0) {
                    continue;
                }
            }
            if (hit >= 0) {
                g.flags[hit] |= INTERRUPT_USED;
            }
            int q = Arrays.binarySearch(g.interrupted, effect);
            if (q >= 0) {
                g.interruptUsed[q] = true;
            }
            int id = interaction(Kind.INTERRUPT, k, ts, x, threads[x].ts(effect), threads[x].threadObject(), i,
                    hit >= 0 ? hit : -2 - effect);
            interruptCall[c] = id;
            if (hit >= 0) {
                ender(g, hit, id, ts, Kind.INTERRUPT);
            }
        }
    }

    /** The last interval (start order) starting at or before {@code ts}, -1 if none. */
    private static int lastStartAtOrBefore(Ring g, long ts) {
        int lo = 0;
        int hi = g.n - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (g.start[mid] <= ts) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    private void joins() {
        for (int k = 0; k < rings.length; k++) {
            Ring g = rings[k];
            if (g.t.isSystem()) {
                continue;
            }
            for (int i = 0; i < g.n; i++) {
                if (g.kind[i] != JOINING || (g.flags[i] & (OPEN | ENDS_AT_INTERRUPT)) != 0) {
                    continue;
                }
                int dead = target(g.monitor[i], g.t.arg2(g.begin[i]));
                RecordedThread d = dead < 0 ? null : threads[dead];
                if (d == null || dead == k || !d.isEnded() || d.endNs() == 0 || d.endNs() > g.end[i]) {
                    continue;
                }
                int id = interaction(Kind.JOIN_END, dead, d.endNs(), k, g.end[i], g.monitor[i], rings[dead].firstEnd, i);
                ender(g, i, id, d.endNs(), Kind.JOIN_END);
            }
        }
    }

    /**
     * Per monitor: unbound notify calls, the notifyAll calls, wakes waiting for a notify.
     * The calls are pruned ({@link #prune}); the wakes are kept until a notify binds them.
     */
    private static final class Monitor {
        int limit = 64; // prune the calls when there are more
        final ArrayDeque<long[]> unbound = new ArrayDeque<>(); // {ts, call, ring}
        long[] allTs = new long[0];
        int[] allCall = new int[0];
        int[] allRing = new int[0];
        int alls;
        final ArrayDeque<long[]> pending = new ArrayDeque<>(); // {ring, interval}
    }

    /**
     * Drops the calls no wake can bind any more: a wake binds a call made at or after its
     * wait began, and every wake still to come on the monitor began its wait at or after the
     * oldest wait now open on it, or later than now. Only when every ring is in time order.
     */
    private void prune(Monitor m, long monitor, long now, long[] openWait, long[] openMonitor) {
        long lo = now;
        for (int k = 0; k < openWait.length; k++) {
            if (openWait[k] != Long.MAX_VALUE && openMonitor[k] == monitor) {
                lo = Math.min(lo, openWait[k]);
            }
        }
        while (!m.unbound.isEmpty() && m.unbound.peekFirst()[0] < lo) {
            m.unbound.pollFirst();
        }
        int drop = 0;
        while (drop < m.alls && m.allTs[drop] < lo) {
            drop++;
        }
        if (drop > 0) {
            m.alls -= drop;
            System.arraycopy(m.allTs, drop, m.allTs, 0, m.alls);
            System.arraycopy(m.allCall, drop, m.allCall, 0, m.alls);
            System.arraycopy(m.allRing, drop, m.allRing, 0, m.alls);
        }
        m.limit = Math.max(64, 2 * Math.max(m.unbound.size(), m.alls));
    }

    /** Owners and handoffs ({@link MonitorOwnership}), notify binding ({@link Interactions}), in event order. */
    private void merged() {
        new MergedPass().run();
    }

    /**
     * The pass of {@link #merged}: a small loop over the records in event order and one
     * method per record type, so that the JIT compiles each once and quickly (one large
     * loop body was recompiled many times over a long conversion).
     */
    private final class MergedPass {
        final MonitorOwnership.Tracker tracker = new MonitorOwnership.Tracker(r);
        final boolean inOrder;
        final long[] openWait = new long[rings.length]; // per ring: the start of its open MONITOR_WAIT, MAX_VALUE none
        final long[] openMonitor = new long[rings.length];
        final List<long[]> deferred = new ArrayList<>();
        final LongMap<Monitor> monitors = new LongMap<>();
        int[] first = new int[16];
        int calls;

        MergedPass() {
            boolean sorted = true;
            for (Ring g : rings) {
                sorted &= g.sorted;
            }
            inOrder = sorted;
            Arrays.fill(openWait, Long.MAX_VALUE);
            notifyRing = new int[16];
            notifyRecord = new int[16];
        }

        void run() {
            Recording.Cursor cur = r.cursor();
            while (cur.next()) {
                int k = cur.ring();
                int index = cur.record();
                RecordedThread t = rings[k].t;
                EventType type = t.type(index);
                long obj = t.obj(index);
                long ts = cur.ts();
                RecordedThread owner = tracker.next(t, index, type, obj, ts);
                switch (type) {
                    case MONITOR_WAIT -> {
                        openWait[k] = ts;
                        openMonitor[k] = obj;
                    }
                    case MONITOR_ENTER -> enter(rings[k], index, owner);
                    case MONITOR_ENTERED -> entered(k, index);
                    case NOTIFY, NOTIFY_ALL -> notifyCall(k, index, type == EventType.NOTIFY_ALL, obj, ts);
                    case MONITOR_WAITED -> waited(k, index, obj);
                    default -> {
                    }
                }
            }
            for (long[] d : deferred) {
                handoff((int) d[0], (int) d[1], (int) d[2], d[3]);
            }
            for (Ring g : rings) {
                g.beginCursor = 0;
                g.endCursor = 0;
            }
            notifyCalls = calls;
            notifyFirst = Arrays.copyOf(first, calls);
            notifyRing = Arrays.copyOf(notifyRing, calls);
            notifyRecord = Arrays.copyOf(notifyRecord, calls);
        }

        void enter(Ring g, int index, RecordedThread owner) {
            int iv = g.atBegin(index);
            if (iv >= 0 && owner != null) {
                g.owner[iv] = position.get(owner) + 1;
            }
        }

        void entered(int k, int index) {
            Ring g = rings[k];
            int iv = g.atEnd(index);
            if (iv < 0 || g.kind[iv] != BLOCKED) {
                return;
            }
            int by = tracker.releasedBy != null ? position.get(tracker.releasedBy) : -1;
            if (g.sorted) {
                handoff(k, iv, by, tracker.releaseNs);
            } else { // its MONITOR_ENTER may come later in event order: after the pass
                deferred.add(new long[] {k, iv, by, tracker.releaseNs});
            }
        }

        Monitor monitor(long obj) {
            Monitor m = monitors.get(obj);
            if (m == null) {
                m = new Monitor();
                monitors.put(obj, m);
            }
            return m;
        }

        void notifyCall(int k, int index, boolean all, long obj, long ts) {
            if (calls == first.length) {
                first = Arrays.copyOf(first, 2 * calls);
                notifyRing = Arrays.copyOf(notifyRing, 2 * calls);
                notifyRecord = Arrays.copyOf(notifyRecord, 2 * calls);
            }
            first[calls] = -1;
            notifyRing[calls] = k;
            notifyRecord[calls] = index;
            Monitor m = monitor(obj);
            long[] call = {ts, calls, k};
            if (!all) {
                long[] w = m.pending.pollFirst();
                if (w != null) {
                    bind(call, false, w, first);
                } else {
                    m.unbound.addLast(call);
                }
            } else {
                for (long[] w; (w = m.pending.pollFirst()) != null; ) {
                    bind(call, true, w, first);
                }
                if (m.alls == m.allTs.length) {
                    int c = Math.max(4, 2 * m.alls);
                    m.allTs = Arrays.copyOf(m.allTs, c);
                    m.allCall = Arrays.copyOf(m.allCall, c);
                    m.allRing = Arrays.copyOf(m.allRing, c);
                }
                m.allTs[m.alls] = ts;
                m.allCall[m.alls] = calls;
                m.allRing[m.alls++] = k;
            }
            calls++;
            if (inOrder && Math.max(m.unbound.size(), m.alls) > m.limit) {
                prune(m, obj, ts, openWait, openMonitor);
            }
        }

        void waited(int k, int index, long obj) {
            openWait[k] = Long.MAX_VALUE;
            Ring g = rings[k];
            if (g.t.isSystem()) {
                return;
            }
            int iv = g.atEnd(index);
            if (iv < 0 || g.kind[iv] != WAITING
                    || (g.flags[iv] & (TIMED_OUT | INTERRUPT_USED | NEXT_IS_INTERRUPT)) != 0) {
                return;
            }
            Monitor m = monitor(obj);
            int all = firstAtOrAfter(m, g.start[iv]);
            long[] n = null;
            for (var it = m.unbound.iterator(); it.hasNext(); ) {
                long[] c = it.next();
                if (c[0] >= g.start[iv]) {
                    if (all < 0 || c[0] <= m.allTs[all]) {
                        n = c;
                        it.remove();
                    }
                    break;
                }
            }
            long[] w = {k, iv};
            if (n != null) {
                bind(n, false, w, first);
            } else if (all >= 0) {
                bind(new long[] {m.allTs[all], m.allCall[all], m.allRing[all]}, true, w, first);
            } else {
                m.pending.addLast(w);
            }
        }
    }

    /**
     * The handoff of a closed BLOCKED interval ({@link MonitorOwnership#handoffs}): from the
     * thread the tracker saw release the monitor ({@code by}, at {@code releaseNs}), else from
     * the owner at the enter, released at its first wait within the block or at the acquisition.
     */
    private void handoff(int k, int iv, int by, long releaseNs) {
        Ring g = rings[k];
        int from = by >= 0 ? by : g.owner[iv] - 1;
        if (from < 0) {
            return;
        }
        long release = by >= 0 ? releaseNs : firstWait(threads[from], g.monitor[iv], g.start[iv], g.end[iv]);
        int id = interaction(Kind.HANDOFF, from, release, k, g.end[iv], g.monitor[iv], -1, iv);
        ender(g, iv, id, release, Kind.HANDOFF);
    }

    private void bind(long[] call, boolean all, long[] waiter, int[] first) {
        Ring g = rings[(int) waiter[0]];
        int iv = (int) waiter[1];
        int c = (int) call[1];
        int id = interaction(all ? Kind.NOTIFY_ALL : Kind.NOTIFY, (int) call[2], call[0], (int) waiter[0], g.end[iv],
                g.monitor[iv], notifyRecord[c], iv);
        if (notifyNext == null || notifyNext.length < iKind.length) {
            int old = notifyNext == null ? 0 : notifyNext.length;
            notifyNext = notifyNext == null ? new int[iKind.length] : Arrays.copyOf(notifyNext, iKind.length);
            Arrays.fill(notifyNext, old, notifyNext.length, -1);
        }
        // append to the call's list, keeping bind order
        if (first[c] < 0) {
            first[c] = id;
        } else {
            int last = first[c];
            while (notifyNext[last] >= 0) {
                last = notifyNext[last];
            }
            notifyNext[last] = id;
        }
        ender(g, iv, id, call[0], all ? Kind.NOTIFY_ALL : Kind.NOTIFY);
    }

    private static int firstAtOrAfter(Monitor m, long ns) {
        int lo = 0;
        int hi = m.alls;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (m.allTs[mid] < ns) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < m.alls ? lo : -1;
    }

    /** The owner's first MONITOR_WAIT (ring order) on the monitor within [lo, hi]; else hi (the acquisition). */
    private long firstWait(RecordedThread t, long monitor, long lo, long hi) {
        int n = t.eventCount();
        int i = 0;
        if (rings[position.get(t)].sorted) {
            int a = 0;
            int b = n;
            while (a < b) {
                int mid = (a + b) >>> 1;
                if (t.ts(mid) < lo) {
                    a = mid + 1;
                } else {
                    b = mid;
                }
            }
            i = a;
        }
        for (; i < n; i++) {
            long ts = t.ts(i);
            if (ts > hi && rings[position.get(t)].sorted) {
                break;
            }
            if (ts >= lo && ts <= hi && t.rawType(i) == EVENT_MONITOR_WAIT && t.obj(i) == monitor) {
                return ts;
            }
        }
        return hi;
    }

    private void deadlocks() {
        for (Deadlocks.Deadlock d : Deadlocks.find(r)) {
            for (int i = 0; i < d.threads().size(); i++) {
                Ring g = rings[position.get(d.threads().get(i))];
                MonitorState w = d.waits().get(i);
                int last = -1;
                for (int j = 0; j < g.n; j++) {
                    if (g.kind[j] == BLOCKED && (g.flags[j] & OPEN) != 0 && g.end[j] > g.start[j]
                            && (w.object() == 0 || g.monitor[j] == w.object())) {
                        last = j;
                    }
                }
                if (last >= 0) {
                    g.flags[last] |= DEADLOCKED;
                }
            }
        }
    }

    /** The spans of {@link ThreadStates} for one Java ring. */
    private static void spans(Ring g, long snapshot) {
        RecordedThread t = g.t;
        long begin = t.eventCount() > 0 ? Math.min(t.startNs(), t.ts(0)) : t.startNs();
        boolean dead = t.isEnded() && t.endNs() != 0;
        long lifeEnd = dead ? Math.max(begin, t.endNs()) : Math.max(begin, snapshot);
        int[] list = new int[g.n];
        int m = 0;
        for (int i = 0; i < g.n; i++) {
            if (g.kind[i] != GC && g.end[i] > g.start[i]) {
                list[m++] = i;
            }
        }
        long[] bounds = new long[2 * m + 2];
        int b = 0;
        bounds[b++] = begin;
        bounds[b++] = lifeEnd;
        for (int j = 0; j < m; j++) {
            bounds[b++] = Math.max(begin, Math.min(lifeEnd, g.start[list[j]]));
            bounds[b++] = Math.max(begin, Math.min(lifeEnd, g.end[list[j]]));
        }
        Arrays.sort(bounds);
        int cap = 2 * m + 4;
        g.spanStart = new long[cap];
        g.spanIv = new int[cap];
        int[] active = new int[8];
        int actives = 0;
        int next = 0;
        for (int q = 1; q < bounds.length; q++) {
            long a = bounds[q - 1];
            long e = bounds[q];
            if (e == a) {
                continue;
            }
            while (next < m && g.start[list[next]] <= a) {
                if (actives == active.length) {
                    active = Arrays.copyOf(active, 2 * actives);
                }
                active[actives++] = list[next++];
            }
            int w = 0;
            for (int j = 0; j < actives; j++) {
                if (g.end[active[j]] > a) {
                    active[w++] = active[j];
                }
            }
            actives = w;
            int inner = -1;
            for (int j = 0; j < actives; j++) {
                int in = active[j];
                if (inner < 0 || g.start[in] > g.start[inner]
                        || g.start[in] == g.start[inner] && g.end[in] <= g.end[inner]) {
                    inner = in;
                }
            }
            if (g.spans == 0 || g.spanIv[g.spans - 1] != inner) {
                g.spanStart[g.spans] = a;
                g.spanIv[g.spans++] = inner;
            }
            g.lastSpanEnd = e;
        }
        if (g.spans == 0) {
            g.spanStart[0] = begin;
            g.spanIv[0] = -1;
            g.spans = 1;
            g.lastSpanEnd = lifeEnd;
        }
        if (dead) {
            g.spanStart[g.spans] = lifeEnd;
            g.spanIv[g.spans++] = -2;
            g.lastSpanEnd = Math.max(lifeEnd, snapshot);
        }
        g.spanStart = Arrays.copyOf(g.spanStart, g.spans);
        g.spanIv = Arrays.copyOf(g.spanIv, g.spans);
    }

    private static State state(Ring g, int iv) {
        if (iv == -1) {
            return State.RUNNING;
        }
        if (iv == -2) {
            return State.DEAD;
        }
        if ((g.flags[iv] & DEADLOCKED) != 0) {
            return State.DEADLOCKED;
        }
        return switch (g.kind[iv]) {
            case BLOCKED -> State.BLOCKED;
            case WAITING -> State.WAITING;
            case SLEEPING -> State.SLEEPING;
            case JOINING -> State.JOINING;
            default -> State.RUNNING;
        };
    }

    private record Visit(int ring, long ns) {
    }

    /**
     * Whether a thread's end can end the recording's work: not one of the JVM's own threads
     * (groups {@code system} and {@code InnocuousThreadGroup}), and not a thread started
     * after the main thread ended (shutdown hooks, the JVM's DestroyJavaVM thread), whose
     * ends would otherwise always be the last and make the path a few microseconds of exit.
     */
    private static boolean isApplicationWork(RecordedThread t, long mainEnd) {
        if ("system".equals(t.group()) || "InnocuousThreadGroup".equals(t.group())) {
            return false;
        }
        return mainEnd == 0 || t.javaThreadId() == 1 || t.startNs() <= mainEnd;
    }

    /**
     * The critical path ({@link CriticalPath}): from its end (the Java thread that ended
     * last, at its end; else the one with the latest record, at the snapshot) back in time.
     */
    private void walk() {
        int end = -1;
        long endNs = Long.MIN_VALUE;
        long mainEnd = 0;
        for (RecordedThread t : threads) {
            if (!t.isSystem() && t.javaThreadId() == 1 && t.isEnded()) {
                mainEnd = t.endNs();
                break;
            }
        }
        for (int k = 0; k < threads.length; k++) {
            RecordedThread t = threads[k];
            if (!t.isSystem() && t.isEnded() && t.endNs() != 0 && t.endNs() > endNs
                    && isApplicationWork(t, mainEnd)) {
                end = k;
                endNs = t.endNs();
            }
        }
        if (end < 0) {
            long latest = Long.MIN_VALUE;
            for (int k = 0; k < threads.length; k++) {
                RecordedThread t = threads[k];
                for (int i = 0; !t.isSystem() && i < t.eventCount(); i++) {
                    if (t.ts(i) > latest) {
                        latest = t.ts(i);
                        end = k;
                    }
                }
            }
            endNs = r.snapshotMonotonicNs();
        }
        pathEnd = end;
        pathStartNs = endNs;
        pathEndNs = endNs;
        if (end < 0) {
            return;
        }
        long floor = r.startMonotonicNs();
        Set<Visit> visited = new HashSet<>();
        int cur = end;
        long t = endNs;
        int guard = 0;
        long limit = 16;
        for (Ring g : rings) {
            if (!g.t.isSystem()) {
                limit += 2L * g.spans + 2;
            }
        }
        while (t > floor && guard++ < limit) {
            Ring g = rings[cur];
            int sp = spanBefore(g, t);
            if (sp < 0) {
                int st = startOf[cur];
                if (st >= 0 && iFromNs[st] <= t && visited.add(new Visit(iFrom[st], iFromNs[st]))) {
                    segment(cur, State.STARTING, iFromNs[st], t, 0, -1, st);
                    cur = iFrom[st];
                    t = iFromNs[st];
                    continue;
                }
                break;
            }
            int iv = g.spanIv[sp];
            State s = state(g, iv);
            if (iv < 0) {
                segment(cur, State.RUNNING, g.spanStart[sp], t, 0, -1, -1);
                t = g.spanStart[sp];
                continue;
            }
            int via = g.spanEnd(sp) == g.end[iv] ? g.ender[iv] : -1;
            if (via >= 0 && iFrom[via] != cur && g.spanStart[sp] <= iFromNs[via] && iFromNs[via] <= t
                    && visited.add(new Visit(iFrom[via], iFromNs[via]))) {
                segment(cur, s, iFromNs[via], t, g.monitor[iv], iv, via);
                cur = iFrom[via];
                t = iFromNs[via];
            } else {
                segment(cur, s, g.spanStart[sp], t, g.monitor[iv], iv, -1);
                t = g.spanStart[sp];
            }
        }
        pathStartNs = t;
        reverse();
    }

    private static int spanBefore(Ring g, long t) {
        int lo = 0;
        int hi = g.spans - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (g.spanStart[mid] < t) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found >= 0 && t <= g.spanEnd(found) ? found : -1;
    }

    private void segment(int ring, State state, long start, long end, long monitor, int iv, int via) {
        if (segs == sRing.length) {
            int c = 2 * segs;
            sRing = Arrays.copyOf(sRing, c);
            sState = Arrays.copyOf(sState, c);
            sStart = Arrays.copyOf(sStart, c);
            sEnd = Arrays.copyOf(sEnd, c);
            sMonitor = Arrays.copyOf(sMonitor, c);
            sVia = Arrays.copyOf(sVia, c);
            sIv = Arrays.copyOf(sIv, c);
        }
        sIv[segs] = iv;
        sRing[segs] = ring;
        sState[segs] = (byte) state.ordinal();
        sStart[segs] = start;
        sEnd[segs] = end;
        sMonitor[segs] = monitor;
        sVia[segs] = via;
        segs++;
        if (iv >= 0) {
            rings[ring].flags[iv] |= CRITICAL;
        }
    }

    /** The walked segments in time order, consecutive RUNNING segments of one thread merged. */
    private void reverse() {
        int[] ring = new int[segs];
        byte[] state = new byte[segs];
        long[] start = new long[segs];
        long[] end = new long[segs];
        long[] monitor = new long[segs];
        int[] via = new int[segs];
        int[] iv = new int[segs];
        int out = 0;
        for (int i = segs - 1; i >= 0; i--) {
            if (out > 0 && sState[i] == State.RUNNING.ordinal() && state[out - 1] == State.RUNNING.ordinal()
                    && ring[out - 1] == sRing[i] && via[out - 1] < 0) {
                end[out - 1] = sEnd[i];
                continue;
            }
            ring[out] = sRing[i];
            state[out] = sState[i];
            start[out] = sStart[i];
            end[out] = sEnd[i];
            monitor[out] = sMonitor[i];
            via[out] = sVia[i];
            iv[out] = sIv[i];
            out++;
        }
        sRing = ring;
        sState = state;
        sStart = start;
        sEnd = end;
        sMonitor = monitor;
        sVia = via;
        sIv = iv;
        segs = out;
    }

    // ---- access for writers and the object views

    /** Number of rings. */
    public int rings() {
        return threads.length;
    }

    /** The rings, in {@link Recording#threads()} order. */
    public RecordedThread thread(int ring) {
        return threads[ring];
    }

    /** Number of intervals of a ring. */
    public int intervalCount(int ring) {
        return rings[ring].n;
    }

    /** Position of a ring in {@link Recording#threads()}. */
    public int ring(RecordedThread t) {
        return position.get(t);
    }

    /**
     * The interval of a ring beginning at its record {@code index}, -1 if none; fastest when
     * called for the records in the order of {@link Recording#events()}.
     */
    public int intervalAt(int ring, int index) {
        return rings[ring].atBegin(index);
    }

    /** Kind of an interval ({@link #BLOCKED} ... {@link #GC}). */
    public int kind(int ring, int iv) {
        return rings[ring].kind[iv];
    }

    /** Start of an interval (its begin record's time). */
    public long startNs(int ring, int iv) {
        return rings[ring].start[iv];
    }

    /** End of an interval: its end record's time, or the thread's end or the snapshot when open. */
    public long endNs(int ring, int iv) {
        return rings[ring].end[iv];
    }

    /** Monitor of an interval, the joined Thread object for JOINING, 0 for SLEEPING and GC. */
    public long monitor(int ring, int iv) {
        return rings[ring].monitor[iv];
    }

    /** Record index of the interval's begin. */
    public int begin(int ring, int iv) {
        return rings[ring].begin[iv];
    }

    /** Record index of the interval's end, -1 while open. */
    public int end(int ring, int iv) {
        return rings[ring].endIdx[iv];
    }

    /** Still open at the snapshot. */
    public boolean isOpen(int ring, int iv) {
        return (rings[ring].flags[iv] & OPEN) != 0;
    }

    /** A WAITING interval ended by its timeout. */
    public boolean timedOut(int ring, int iv) {
        return (rings[ring].flags[iv] & TIMED_OUT) != 0;
    }

    /** SLEEPING or JOINING ended by THREAD_INTERRUPTED. */
    public boolean interrupted(int ring, int iv) {
        return (rings[ring].flags[iv] & ENDS_AT_INTERRUPT) != 0;
    }

    /** A segment of the critical path lies in this interval ({@link CriticalPath#isOnPath}). */
    public boolean isOnPath(int ring, int iv) {
        return (rings[ring].flags[iv] & CRITICAL) != 0;
    }

    /** Owner at a BLOCKED interval's MONITOR_ENTER ({@link MonitorOwnership#ownerAt}), null if unknown. */
    public RecordedThread owner(int ring, int iv) {
        int o = rings[ring].owner[iv];
        return o == 0 ? null : threads[o - 1];
    }

    /** {@link #owner} as a ring position, -1 when unknown. */
    public int ownerRing(int ring, int iv) {
        return rings[ring].owner[iv] - 1;
    }

    /**
     * The interaction that ended an interval ({@link Interactions#endedBy}: the first by the
     * time its thread acted, then by derivation order); -2 for the interval's own timeout, -1
     * none. Only for the rings of Java threads.
     */
    public int endedBy(int ring, int iv) {
        int e = rings[ring].ender[iv];
        return e <= -2 ? -2 : e;
    }

    /** Number of thread-state spans of a Java thread's ring (0 for the GC ring). */
    public int spans(int ring) {
        return rings[ring].spans;
    }

    /** Start of a span. */
    public long spanStartNs(int ring, int s) {
        return rings[ring].spanStart[s];
    }

    /** End of a span: the start of the next one. */
    public long spanEndNs(int ring, int s) {
        return rings[ring].spanEnd(s);
    }

    /** The interval giving a span's state, -1 for RUNNING and DEAD. */
    public int spanInterval(int ring, int s) {
        int iv = rings[ring].spanIv[s];
        return iv < 0 ? -1 : iv;
    }

    /** The state of a span. */
    public State spanState(int ring, int s) {
        return state(rings[ring], rings[ring].spanIv[s]);
    }

    /** Number of interactions drawn as arrows (every kind but TIMEOUT). */
    public int interactions() {
        return count;
    }

    /** Kind of an interaction. */
    public Kind kind(int id) {
        return KINDS[iKind[id]];
    }

    /** The active thread of an interaction. */
    public RecordedThread from(int id) {
        return threads[iFrom[id]];
    }

    /** {@link #from} as a ring position. */
    public int fromRing(int id) {
        return iFrom[id];
    }

    /** When the active thread acted. */
    public long fromNs(int id) {
        return iFromNs[id];
    }

    /** The thread an interaction made run. */
    public RecordedThread to(int id) {
        return threads[iTo[id]];
    }

    /** {@link #to} as a ring position. */
    public int toRing(int id) {
        return iTo[id];
    }

    /** When that thread ran. */
    public long toNs(int id) {
        return iToNs[id];
    }

    /** The monitor or Thread object of an interaction. */
    public long monitor(int id) {
        return iMonitor[id];
    }

    /** Record index (on the {@link #from} ring) of the call or THREAD_END that caused an interaction, -1 none. */
    public int cause(int id) {
        return iCause[id];
    }

    /** The interval (of the {@link #to} ring) an interaction ended, -1 none. */
    public int ended(int id) {
        return Math.max(-1, iEnded[id]);
    }

    /** Record index (on the {@link #to} ring) that shows the thread running, -1 if not recorded. */
    public int effect(int id) {
        int v = iEnded[id];
        return v >= 0 ? rings[iTo[id]].endIdx[v] : v == -1 ? -1 : -2 - v;
    }

    /** The START interaction of the n-th START_CALL in event order, -1 if it started nothing. */
    public int startCall(int n) {
        return n < startCall.length ? startCall[n] : -1;
    }

    /** The INTERRUPT interaction of the n-th INTERRUPT_CALL in event order, -1 if none. */
    public int interruptCall(int n) {
        return n < interruptCall.length ? interruptCall[n] : -1;
    }

    /** The interactions bound to the n-th NOTIFY/NOTIFY_ALL call in event order, in bind order. */
    public int[] notifyCall(int n) {
        if (n >= notifyCalls || notifyFirst[n] < 0) {
            return new int[0];
        }
        int[] out = new int[4];
        int m = 0;
        for (int id = notifyFirst[n]; id >= 0; id = notifyNext[id]) {
            if (m == out.length) {
                out = Arrays.copyOf(out, 2 * m);
            }
            out[m++] = id;
        }
        return Arrays.copyOf(out, m);
    }

    /** Number of NOTIFY and NOTIFY_ALL calls. */
    public int notifyCalls() {
        return notifyCalls;
    }

    /** The ring of the n-th NOTIFY/NOTIFY_ALL call in event order. */
    public int notifyCallRing(int n) {
        return notifyRing[n];
    }

    /** Its record index on that ring. */
    public int notifyCallRecord(int n) {
        return notifyRecord[n];
    }

    /** Interaction ids sorted stably by a key. */
    public int[] sortedBy(boolean byFromNs, java.util.function.IntPredicate which) {
        int[] ids = new int[count];
        int m = 0;
        for (int i = 0; i < count; i++) {
            if (which.test(i)) {
                ids[m++] = i;
            }
        }
        return sortStable(Arrays.copyOf(ids, m), byFromNs ? iFromNs : iToNs);
    }

    /** Number of critical-path segments, in time order. */
    public int segments() {
        return segs;
    }

    /** The thread a critical-path segment is on. */
    public RecordedThread segmentThread(int s) {
        return threads[sRing[s]];
    }

    /** Its state (STARTING between a Thread.start call and the start). */
    public State segmentState(int s) {
        return STATES[sState[s]];
    }

    /** Its start. */
    public long segmentStartNs(int s) {
        return sStart[s];
    }

    /** Its end. */
    public long segmentEndNs(int s) {
        return sEnd[s];
    }

    /** Its monitor or joined Thread object, 0 if none. */
    public long segmentMonitor(int s) {
        return sMonitor[s];
    }

    /** The interaction the walk followed back from this segment, -1 if none. */
    public int segmentVia(int s) {
        return sVia[s];
    }

    /** The interval of the segment's ring the segment lies in, -1 for RUNNING and STARTING. */
    public int segmentInterval(int s) {
        return sIv[s];
    }

    /** Where the critical path ends, null for a recording without Java threads. */
    public RecordedThread pathEnd() {
        return pathEnd < 0 ? null : threads[pathEnd];
    }

    /** Where the walk back stopped (the path's start). */
    public long pathStartNs() {
        return pathStartNs;
    }

    /** The end of the critical path. */
    public long pathEndNs() {
        return pathEndNs;
    }
}
