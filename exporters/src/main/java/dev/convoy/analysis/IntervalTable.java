package dev.convoy.analysis;

import static dev.convoy.snapshot.SnapshotFormat.*;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.Arrays;
import java.util.List;

/**
 * The intervals of one ring (paired by {@link Pairing}), in primitive columns,
 * numbered in start order (ties: ring order): kind, start, end, monitor, begin and end record
 * indexes and flags. Made by one scan of the ring, which also collects its start and
 * interrupt calls (for {@link InteractionTable}), its THREAD_INTERRUPTED records, its first
 * THREAD_START and THREAD_END and, if asked, the records of its joins' waits.
 *
 * <p>Not changed once scanned: what later stages of {@link ContentionIndex} find per interval
 * (owners, the interactions that ended intervals, deadlocked intervals, the critical path's)
 * they keep themselves. Read outside the package through an {@link IntervalCursor}.
 */
final class IntervalTable extends Columns implements Pairing.Sink {
    /** Interval kind BLOCKED ({@link Interval.Kind} ordinals, as the others). */
    static final int BLOCKED = 0;
    /** Interval kind WAITING. */
    static final int WAITING = 1;
    /** Interval kind SLEEPING. */
    static final int SLEEPING = 2;
    /** Interval kind JOINING. */
    static final int JOINING = 3;
    /** Interval kind GC. */
    static final int GC = 4;

    static final int OPEN = 1;
    static final int TIMED_OUT = 2;
    static final int ENDS_AT_INTERRUPT = 4;
    static final int NEXT_IS_INTERRUPT = 16;
    /** A park (PARK .. PARKED); with {@link #NEXT_IS_INTERRUPT} when its PARKED has FLAG_INTERRUPTED. */
    static final int PARK = 128;
    /** Cut where a loss of the ring's records begins (it has no end record; see {@link #isCut}). */
    static final int CUT = 256;

    final RecordedThread t;
    long[] start = new long[8];
    long[] end = new long[8];
    long[] monitor = new long[8];
    byte[] kind = new byte[8];
    short[] flags = new short[8];
    int[] begin = new int[8];
    int[] endIdx = new int[8];
    private int[] byBegin; // interval ids by begin record index; null: the identity
    private int[] byEnd; // closed interval ids by end record index; null: the identity (none open)
    int[] interrupted = new int[0]; // THREAD_INTERRUPTED record indexes
    int[] parked = new int[0]; // PARKED record indexes, in ring order
    int firstStart = -1;
    int firstEnd = -1; // the first THREAD_END record
    private int[] joinWaits; // the join's MONITOR_WAIT/WAITED record indexes, when asked for
    private int joinWaitCount;
    boolean sorted = true; // the ring's records are in time order
    private int beginCursor;
    private int endCursor;

    private IntervalTable(RecordedThread t) {
        super(8);
        this.t = t;
    }

    @Override
    void resize(int c) {
        start = Arrays.copyOf(start, c);
        end = Arrays.copyOf(end, c);
        monitor = Arrays.copyOf(monitor, c);
        kind = Arrays.copyOf(kind, c);
        flags = Arrays.copyOf(flags, c);
        begin = Arrays.copyOf(begin, c);
        endIdx = Arrays.copyOf(endIdx, c);
    }

    @Override
    public void interval(int k, long mon, int b, int e, long endNs, int f) {
        int n = append();
        start[n] = t.ts(b);
        end[n] = endNs;
        monitor[n] = mon;
        kind[n] = (byte) k;
        flags[n] = (short) f;
        begin[n] = b;
        endIdx[n] = e;
    }

    /** The intervals of one ring of a recording; open ones end at the thread's end or {@code snapshotNs}. */
    static IntervalTable of(Recording r, RecordedThread t, long snapshotNs) {
        return scan(r, t, 0, snapshotNs, null, null, false);
    }

    /**
     * The MONITOR_WAIT and MONITOR_WAITED record indexes of a ring that belong to a join recorded
     * by contention analysis (between its JOIN and JOINED).
     */
    static int[] joinWaits(RecordedThread t) {
        IntervalTable g = scan(null, t, 0, t.endNs(), null, null, true);
        return Arrays.copyOf(g.joinWaits, g.joinWaitCount);
    }

    /**
     * The intervals of ring {@code k}, plus its calls {ts, ring, index} (when {@code starts}
     * and {@code interrupts} are given), interrupt records and, if asked, the records of its
     * joins' waits.
     */
    static IntervalTable scan(Recording r, RecordedThread t, int k, long snapshot, List<long[]> starts,
                              List<long[]> interrupts, boolean joinWaits) {
        IntervalTable g = new IntervalTable(t);
        if (joinWaits) {
            g.joinWaits = new int[4];
        }
        Pairing pairs = new Pairing(r, t, g);
        int n = t.eventCount();
        int[] ti = new int[4];
        int tiCount = 0;
        int[] pd = new int[0];
        int pdCount = 0;
        long prevTs = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            long ts = t.ts(i);
            if (ts < prevTs) {
                g.sorted = false;
            }
            prevTs = ts;
            pairs.next(i);
            switch (t.rawType(i)) {
                case EVENT_THREAD_INTERRUPTED -> {
                    if (tiCount == ti.length) {
                        ti = Arrays.copyOf(ti, 2 * tiCount);
                    }
                    ti[tiCount++] = i;
                }
                case EVENT_PARKED -> {
                    if (pdCount == pd.length) {
                        pd = Arrays.copyOf(pd, Math.max(4, 2 * pdCount));
                    }
                    pd[pdCount++] = i;
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
        pairs.finish(snapshot);
        g.trim();
        g.sortByStart();
        g.interrupted = Arrays.copyOf(ti, tiCount);
        g.parked = Arrays.copyOf(pd, pdCount);
        g.byBegin = g.order(g.begin, false);
        g.byEnd = g.order(g.endIdx, true);
        return g;
    }

    /**
     * The first PARKED of the ring (ring order) at or after {@code ts}, as a position in
     * {@link #parked}, -1 if none.
     */
    int firstParkedAtOrAfter(long ts) {
        int[] p = parked;
        if (!sorted) {
            for (int q = 0; q < p.length; q++) {
                if (t.ts(p[q]) >= ts) {
                    return q;
                }
            }
            return -1;
        }
        int lo = 0;
        int hi = p.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (t.ts(p[mid]) < ts) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < p.length ? lo : -1;
    }

    @Override
    public void joinWait(int i, int begin) {
        if (joinWaits != null) {
            if (joinWaitCount == joinWaits.length) {
                joinWaits = Arrays.copyOf(joinWaits, 2 * joinWaitCount);
            }
            joinWaits[joinWaitCount++] = i;
        }
    }

    private int[] order(int[] key, boolean closedOnly) {
        int n = rows();
        int m = 0;
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            if (!closedOnly || (flags[i] & (OPEN | CUT)) == 0) {
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

    /** Reorders the intervals by start time, stably (as {@link Intervals} sorts them). */
    private void sortByStart() {
        int n = rows();
        boolean inOrder = true;
        for (int i = 1; i < n && inOrder; i++) {
            inOrder = start[i - 1] <= start[i];
        }
        if (inOrder) {
            return;
        }
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = i;
        }
        ids = sortStable(ids, start);
        long[] s = new long[n];
        long[] e = new long[n];
        long[] mon = new long[n];
        byte[] k = new byte[n];
        short[] f = new short[n];
        int[] b = new int[n];
        int[] ei = new int[n];
        for (int i = 0; i < n; i++) {
            int j = ids[i];
            s[i] = start[j];
            e[i] = end[j];
            mon[i] = monitor[j];
            k[i] = kind[j];
            f[i] = flags[j];
            b[i] = begin[j];
            ei[i] = endIdx[j];
        }
        start = s;
        end = e;
        monitor = mon;
        kind = k;
        flags = f;
        begin = b;
        endIdx = ei;
    }

    /** Interval ids by begin record index; null: the identity. */
    int[] byBegin() {
        return byBegin;
    }

    static int id(int[] ids, int pos) {
        return ids == null ? pos : ids[pos];
    }

    /** The closed interval ending at record {@code idx}, -1 if none; a cursor when records come in ring order. */
    int atEnd(int idx) {
        if (!sorted) {
            return find(byEnd, endIdx, idx);
        }
        endCursor = advance(byEnd, endIdx, endCursor, idx);
        return idAt(byEnd, endIdx, endCursor, idx);
    }

    /**
     * A cursor over {@code ids} (interval ids in {@code key} order) at {@code pos}, moved on to
     * the first whose key is not below {@code idx}: its new position.
     */
    int advance(int[] ids, int[] key, int pos, int idx) {
        int len = ids == null ? rows() : ids.length;
        while (pos < len && key[id(ids, pos)] < idx) {
            pos++;
        }
        return pos;
    }

    /** The interval id at position {@code pos} of {@code ids} when its key is {@code idx}, else -1. */
    int idAt(int[] ids, int[] key, int pos, int idx) {
        int len = ids == null ? rows() : ids.length;
        return pos < len && key[id(ids, pos)] == idx ? id(ids, pos) : -1;
    }

    /** The interval beginning at record {@code idx}, -1 if none (a binary search: no cursor moves). */
    int atBegin(int idx) {
        return find(byBegin, begin, idx);
    }

    /** The closed interval ending at record {@code idx}, -1 if none (a binary search). */
    int findByEnd(int idx) {
        return find(byEnd, endIdx, idx);
    }

    /** Sets the cursors of {@link #at} and {@link #atEnd} back to the ring's first record. */
    void rewind() {
        beginCursor = 0;
        endCursor = 0;
    }

    /** Interval id whose begin (or end) record is {@code idx}, -1 if none. */
    private int find(int[] ids, int[] key, int idx) {
        int lo = 0;
        int hi = (ids == null ? rows() : ids.length) - 1;
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

    /** The last interval (start order) starting at or before {@code ts}, -1 if none. */
    int lastStartAtOrBefore(long ts) {
        int lo = 0;
        int hi = rows() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (start[mid] <= ts) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** Whether an interval has a flag. */
    boolean has(int iv, int flag) {
        return (flags[iv] & flag) != 0;
    }

    // ---- access

    /** The thread of the ring. */
    RecordedThread thread() {
        return t;
    }

    /** Number of intervals. */
    int count() {
        return rows();
    }

    /**
     * The interval beginning at record {@code index}, -1 if none; fastest when called for the
     * records in the order of {@link Recording#events()} (a cursor when the ring is in order).
     * For the stages that build the index (one thread); readers have an {@link IntervalCursor}.
     */
    int at(int index) {
        if (!sorted) {
            return find(byBegin, begin, index);
        }
        beginCursor = advance(byBegin, begin, beginCursor, index);
        return idAt(byBegin, begin, beginCursor, index);
    }

    /** Kind of an interval ({@link #BLOCKED} ... {@link #GC}). */
    int kind(int iv) {
        return kind[iv];
    }

    /** Start of an interval (its begin record's time). */
    long startNs(int iv) {
        return start[iv];
    }

    /**
     * End of an interval: its end record's time, the thread's end or the snapshot when open, the
     * start of the loss that cut it.
     */
    long endNs(int iv) {
        return end[iv];
    }

    /** Monitor of an interval, the joined Thread object for JOINING, 0 for SLEEPING and GC. */
    long monitor(int iv) {
        return monitor[iv];
    }

    /** Record index of the interval's begin. */
    int begin(int iv) {
        return begin[iv];
    }

    /** Record index of the interval's end, -1 while open or when cut. */
    int end(int iv) {
        return endIdx[iv];
    }

    /** Still open at the snapshot. */
    boolean isOpen(int iv) {
        return has(iv, OPEN);
    }

    /**
     * Cut by a loss: open when a loss of the ring's records began, it ends there; how it ended
     * is unknown (its end record, if kept, comes after the loss and ends nothing).
     */
    boolean isCut(int iv) {
        return has(iv, CUT);
    }

    /** A WAITING interval (or a park) ended by its timeout. */
    boolean timedOut(int iv) {
        return has(iv, TIMED_OUT);
    }

    /** A park (PARK .. PARKED): BLOCKED when it acquires a lock, else WAITING; its monitor is the blocker. */
    boolean isPark(int iv) {
        return has(iv, PARK);
    }

    /** A park whose PARKED has FLAG_INTERRUPTED (the thread's interrupt status was set). */
    boolean parkInterrupted(int iv) {
        return has(iv, PARK) && has(iv, NEXT_IS_INTERRUPT);
    }

    /** SLEEPING or JOINING ended by THREAD_INTERRUPTED. */
    boolean interrupted(int iv) {
        return has(iv, ENDS_AT_INTERRUPT);
    }
}
