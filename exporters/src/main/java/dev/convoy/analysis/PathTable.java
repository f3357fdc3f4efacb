package dev.convoy.analysis;

import dev.convoy.analysis.ThreadStates.State;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * The critical path ({@link CriticalPath}) in primitive columns: the walk back in time from the
 * end of the recording's work over the rings' {@link SpanTable}s and the
 * {@link InteractionTable}, its segments in time order (37 bytes each). The walk marks the
 * intervals it passes through ({@link IntervalCursor#isOnPath}).
 */
final class PathTable extends Columns {
    private static final State[] STATES = State.values();

    private final Rings x;
    private final SpanTable[] spanTables;
    private final InteractionTable in;
    private final java.util.BitSet[] onPath; // per ring: the intervals a segment lies in, null none
    private int[] sRing = new int[16];
    private byte[] sState = new byte[16];
    private long[] sStart = new long[16];
    private long[] sEnd = new long[16];
    private long[] sMonitor = new long[16];
    private int[] sVia = new int[16]; // interaction id, -1 none
    private int[] sIv = new int[16]; // interval of the segment's ring, -1 none
    private int pathEnd = -1;
    private boolean stoppedAtLoss;
    private int lossRing = -1;
    private long pathStartNs;
    private long pathEndNs;

    private PathTable(Rings x, SpanTable[] spans, InteractionTable in) {
        super(16);
        this.x = x;
        this.spanTables = spans;
        this.in = in;
        this.onPath = new java.util.BitSet[x.rings()];
    }

    /** Walks the critical path over the rings' intervals and spans and the interactions. */
    static PathTable walk(Recording r, Rings x, SpanTable[] spans, InteractionTable in) {
        PathTable p = new PathTable(x, spans, in);
        p.walk(r);
        return p;
    }

    @Override
    void resize(int c) {
        sRing = Arrays.copyOf(sRing, c);
        sState = Arrays.copyOf(sState, c);
        sStart = Arrays.copyOf(sStart, c);
        sEnd = Arrays.copyOf(sEnd, c);
        sMonitor = Arrays.copyOf(sMonitor, c);
        sVia = Arrays.copyOf(sVia, c);
        sIv = Arrays.copyOf(sIv, c);
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
        return mainEnd == 0 || isMain(t) || t.startNs() <= mainEnd;
    }

    /**
     * The thread the launcher ran {@code main} on: named {@code main} in the group {@code main}
     * (its Java id is 1 up to JDK 20, 3 since: the id alone does not tell it).
     */
    static boolean isMain(RecordedThread t) {
        return !t.isSystem() && !t.isVirtual() && "main".equals(t.name()) && "main".equals(t.group());
    }

    /**
     * From the path's end back in time. The end, where the application's work ends:
     * <ul>
     * <li>when the main thread ended: of main and the application threads ({@link #isApplicationWork},
     *     not idle by the recording's {@link dev.convoy.model.IdleRules} thread rules) that are not
     *     daemons (RING_DAEMON: the JVM does not wait for them), the one that ended last, at its end
     *     (main's end unless non-daemon threads worked on);</li>
     * <li>while the main thread runs (a server): of such threads, the one whose block, join or wait
     *     that was contention ended last (the latest request kept waiting), at its end when it
     *     ended, else at the snapshot;</li>
     * <li>without a main thread in the recording (attached late): the application thread that
     *     ended last, at its end;</li>
     * <li>else the thread with the latest record, at the snapshot.</li>
     * </ul>
     */
    private void walk(Recording r) {
        int rings = x.rings();
        int end = -1;
        long endNs = Long.MIN_VALUE;
        long mainEnd = 0;
        boolean mainAlive = false;
        for (int k = 0; k < rings; k++) {
            RecordedThread t = x.thread(k);
            if (isMain(t)) {
                mainEnd = t.isEnded() ? t.endNs() : 0;
                mainAlive = !t.isEnded();
                break;
            }
        }
        dev.convoy.model.IdleRules.Classifier idle = r.idleRules().classifier(r);
        for (int k = 0; k < rings && !mainAlive; k++) {
            RecordedThread t = x.thread(k);
            if (!t.isSystem() && t.isEnded() && t.endNs() != 0 && t.endNs() > endNs
                    && isApplicationWork(t, mainEnd) && !idle.isIdle(t, 0)
                    && (mainEnd == 0 || !t.isDaemon() || isMain(t))) {
                end = k;
                endNs = t.endNs();
            }
        }
        long latestRelease = Long.MIN_VALUE;
        for (int k = 0; k < rings && mainAlive; k++) {
            RecordedThread t = x.thread(k);
            if (t.isSystem() || !isApplicationWork(t, 0) || idle.isIdle(t, 0)) {
                continue;
            }
            IntervalTable g = x.table(k);
            for (int iv = 0; iv < g.count(); iv++) {
                int kind = g.kind(iv);
                if (g.has(iv, IntervalTable.OPEN | IntervalTable.CUT) || g.endNs(iv) <= latestRelease
                        || kind != IntervalTable.BLOCKED && kind != IntervalTable.JOINING && kind != IntervalTable.WAITING
                        || kind == IntervalTable.WAITING && idle.isIdle(t, t.stackId(g.begin(iv)))) {
                    continue;
                }
                end = k;
                latestRelease = g.endNs(iv);
            }
        }
        if (mainAlive && end >= 0) {
            RecordedThread t = x.thread(end);
            endNs = t.isEnded() && t.endNs() != 0 ? t.endNs() : r.snapshotMonotonicNs();
        }
        if (end < 0) {
            long latest = Long.MIN_VALUE;
            for (int k = 0; k < rings; k++) {
                RecordedThread t = x.thread(k);
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
        for (int k = 0; k < rings; k++) {
            if (!x.thread(k).isSystem()) {
                limit += 2L * spanTables[k].count() + 2;
            }
        }
        while (t > floor && guard++ < limit) {
            SpanTable spans = spanTables[cur];
            IntervalTable g = x.table(cur);
            int sp = spans.before(t);
            if (sp < 0) {
                int st = in.startOf(cur);
                if (st >= 0 && in.fromNs(st) <= t && visited.add(new Visit(in.fromRing(st), in.fromNs(st)))) {
                    segment(cur, State.STARTING, in.fromNs(st), t, 0, -1, st);
                    cur = in.fromRing(st);
                    t = in.fromNs(st);
                    continue;
                }
                break;
            }
            int iv = spans.rawInterval(sp);
            State s = spans.stateOf(iv);
            if (s == State.UNKNOWN) {
                stoppedAtLoss = true; // records lost: what the thread waited for before is not known
                lossRing = cur;
                break;
            }
            if (iv < 0) {
                segment(cur, State.RUNNING, spans.startNs(sp), t, 0, -1, -1);
                t = spans.startNs(sp);
                continue;
            }
            int via = spans.endNs(sp) == g.endNs(iv) ? in.rawEnder(cur, iv) : -1;
            if (via >= 0 && in.fromRing(via) != cur && spans.startNs(sp) <= in.fromNs(via) && in.fromNs(via) <= t
                    && visited.add(new Visit(in.fromRing(via), in.fromNs(via)))) {
                segment(cur, s, in.fromNs(via), t, g.monitor(iv), iv, via);
                cur = in.fromRing(via);
                t = in.fromNs(via);
            } else {
                segment(cur, s, spans.startNs(sp), t, g.monitor(iv), iv, -1);
                t = spans.startNs(sp);
            }
        }
        pathStartNs = t;
        reverse();
    }

    private void segment(int ring, State state, long start, long end, long monitor, int iv, int via) {
        int n = append();
        sIv[n] = iv;
        sRing[n] = ring;
        sState[n] = (byte) state.ordinal();
        sStart[n] = start;
        sEnd[n] = end;
        sMonitor[n] = monitor;
        sVia[n] = via;
        if (iv >= 0) {
            if (onPath[ring] == null) {
                onPath[ring] = new java.util.BitSet();
            }
            onPath[ring].set(iv);
        }
    }

    /** The walked segments in time order, consecutive RUNNING segments of one thread merged. */
    private void reverse() {
        int segs = rows();
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
        replaced(out, segs);
    }

    // ---- access

    /** Whether a segment lies in an interval of a ring. */
    boolean isOnPath(int ring, int iv) {
        return onPath[ring] != null && onPath[ring].get(iv);
    }

    /** Number of segments, in time order. */
    int count() {
        return rows();
    }

    /** The ring of the thread a segment is on. */
    int ring(int s) {
        return sRing[s];
    }

    /** The thread a segment is on. */
    RecordedThread thread(int s) {
        return x.thread(sRing[s]);
    }

    /** Its state (STARTING between a Thread.start call and the start). */
    State state(int s) {
        return STATES[sState[s]];
    }

    /** Its start. */
    long startNs(int s) {
        return sStart[s];
    }

    /** Its end. */
    long endNs(int s) {
        return sEnd[s];
    }

    /** Its monitor or joined Thread object, 0 if none. */
    long monitor(int s) {
        return sMonitor[s];
    }

    /** The interaction the walk followed back from this segment, -1 if none. */
    int via(int s) {
        return sVia[s];
    }

    /** The interval of the segment's ring the segment lies in, -1 for RUNNING and STARTING. */
    int interval(int s) {
        return sIv[s];
    }

    /** Where the critical path ends, null for a recording without Java threads. */
    RecordedThread endThread() {
        return pathEnd < 0 ? null : x.thread(pathEnd);
    }

    /** Where the walk back stopped (the path's start). */
    long pathStartNs() {
        return pathStartNs;
    }

    /**
     * Whether the walk stopped at a loss of records: the thread it reached was in an UNKNOWN span
     * there (its records before are lost), so the path before its start is not known.
     */
    boolean stoppedAtLoss() {
        return stoppedAtLoss;
    }

    /** The thread whose lost records stopped the walk ({@link #stoppedAtLoss()}), else null. */
    RecordedThread lossThread() {
        return lossRing < 0 ? null : x.thread(lossRing);
    }

    /** The end of the critical path. */
    long pathEndNs() {
        return pathEndNs;
    }
}
