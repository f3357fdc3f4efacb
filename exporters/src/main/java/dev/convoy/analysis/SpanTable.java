package dev.convoy.analysis;

import static dev.convoy.analysis.IntervalTable.*;

import dev.convoy.analysis.ThreadStates.State;
import dev.convoy.model.Loss;
import dev.convoy.model.RecordedThread;
import java.util.Arrays;
import java.util.List;

/**
 * The thread-state spans of one Java thread's ring ({@link ThreadStates}), in primitive
 * columns: contiguous spans from the thread's start (span {@code i} ends where span
 * {@code i + 1} starts), each UNKNOWN in a loss of the ring's records, else the innermost
 * interval of its ring open then (RUNNING when none), then DEAD from the thread's end to the
 * snapshot. 12 bytes per span.
 */
final class SpanTable {
    private static final int RUNNING = -1;
    private static final int DEAD = -2;
    private static final int UNKNOWN = -3;
    private static final State[] BY_KIND = {State.BLOCKED, State.WAITING, State.SLEEPING, State.JOINING};

    /** No spans (the GC ring's). */
    static final SpanTable NONE = new SpanTable(null, null, new long[0], new int[0], 0, 0);

    private final IntervalTable intervals;
    private final java.util.BitSet deadlocked; // the ring's deadlocked intervals, null none
    private final long[] spanStart;
    private final int[] spanIv; // interval id, RUNNING, DEAD
    private final int spans;
    private final long lastSpanEnd;

    private SpanTable(IntervalTable intervals, java.util.BitSet deadlocked, long[] spanStart, int[] spanIv, int spans, long lastSpanEnd) {
        this.intervals = intervals;
        this.deadlocked = deadlocked;
        this.spanStart = spanStart;
        this.spanIv = spanIv;
        this.spans = spans;
        this.lastSpanEnd = lastSpanEnd;
    }

    /**
     * The spans of a Java thread's ring from its intervals, {@code deadlocked} the ones
     * {@link Deadlocks} marked (null: none); DEAD lasts to {@code snapshot}.
     */
    static SpanTable of(IntervalTable g, java.util.BitSet deadlocked, long snapshot) {
        RecordedThread t = g.thread();
        int n = g.count();
        long begin = t.eventCount() > 0 ? Math.min(t.startNs(), t.ts(0)) : t.startNs();
        List<Loss> losses = t.losses();
        if (!losses.isEmpty()) {
            begin = Math.min(begin, losses.get(0).fromNs());
        }
        boolean dead = t.isEnded() && t.endNs() != 0;
        long lifeEnd = dead ? Math.max(begin, t.endNs()) : Math.max(begin, snapshot);
        int[] list = new int[n];
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (g.kind[i] != GC && g.end[i] > g.start[i]) {
                list[m++] = i;
            }
        }
        int lossCount = losses.size();
        long[] bounds = new long[2 * m + 2 + 2 * lossCount];
        int b = 0;
        bounds[b++] = begin;
        bounds[b++] = lifeEnd;
        for (int j = 0; j < m; j++) {
            bounds[b++] = Math.max(begin, Math.min(lifeEnd, g.start[list[j]]));
            bounds[b++] = Math.max(begin, Math.min(lifeEnd, g.end[list[j]]));
        }
        for (Loss l : losses) {
            bounds[b++] = Math.max(begin, Math.min(lifeEnd, l.fromNs()));
            bounds[b++] = Math.max(begin, Math.min(lifeEnd, l.toNs()));
        }
        Arrays.sort(bounds);
        int lost = 0;
        int cap = 2 * m + 4 + 2 * lossCount;
        long[] spanStart = new long[cap];
        int[] spanIv = new int[cap];
        int spans = 0;
        long lastSpanEnd = 0;
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
            int inner = RUNNING;
            for (int j = 0; j < actives; j++) {
                int in = active[j];
                if (inner < 0 || g.start[in] > g.start[inner]
                        || g.start[in] == g.start[inner] && g.end[in] <= g.end[inner]) {
                    inner = in;
                }
            }
            while (lost < lossCount && losses.get(lost).toNs() <= a) {
                lost++;
            }
            if (lost < lossCount && losses.get(lost).fromNs() <= a) {
                inner = UNKNOWN; // records lost: whatever the intervals say (none crosses a loss), not known
            }
            if (spans == 0 || spanIv[spans - 1] != inner) {
                spanStart[spans] = a;
                spanIv[spans++] = inner;
            }
            lastSpanEnd = e;
        }
        if (spans == 0) {
            spanStart[0] = begin;
            spanIv[0] = RUNNING;
            spans = 1;
            lastSpanEnd = lifeEnd;
        }
        if (dead) {
            spanStart[spans] = lifeEnd;
            spanIv[spans++] = DEAD;
            lastSpanEnd = Math.max(lifeEnd, snapshot);
        }
        return new SpanTable(g, deadlocked, Arrays.copyOf(spanStart, spans), Arrays.copyOf(spanIv, spans), spans, lastSpanEnd);
    }

    /** The state of interval {@code iv} of a ring's table (RUNNING for -1, DEAD for -2, UNKNOWN for -3). */
    static State state(IntervalTable g, java.util.BitSet deadlocked, int iv) {
        if (iv == RUNNING) {
            return State.RUNNING;
        }
        if (iv == DEAD) {
            return State.DEAD;
        }
        if (iv == UNKNOWN) {
            return State.UNKNOWN;
        }
        if (deadlocked != null && deadlocked.get(iv)) {
            return State.DEADLOCKED;
        }
        int k = g.kind(iv);
        return k < BY_KIND.length ? BY_KIND[k] : State.RUNNING;
    }

    /** The state of a span's raw interval ({@link #rawInterval}) of this ring. */
    State stateOf(int iv) {
        return state(intervals, deadlocked, iv);
    }

    /** The last span starting before {@code t} if {@code t} is within it (its end included), else -1. */
    int before(long t) {
        int lo = 0;
        int hi = spans - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (spanStart[mid] < t) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found >= 0 && t <= endNs(found) ? found : -1;
    }

    /** The span's interval id, -1 RUNNING, -2 DEAD, -3 UNKNOWN. */
    int rawInterval(int s) {
        return spanIv[s];
    }

    // ---- access

    /** Number of spans (0 for the GC ring). */
    int count() {
        return spans;
    }

    /** Start of a span. */
    long startNs(int s) {
        return spanStart[s];
    }

    /** End of a span: the start of the next one. */
    long endNs(int s) {
        return s + 1 < spans ? spanStart[s + 1] : lastSpanEnd;
    }

    /** The interval giving a span's state, -1 for RUNNING, UNKNOWN and DEAD. */
    int interval(int s) {
        int iv = spanIv[s];
        return iv < 0 ? -1 : iv;
    }

    /** The state of a span. */
    State state(int s) {
        return state(intervals, deadlocked, spanIv[s]);
    }
}
