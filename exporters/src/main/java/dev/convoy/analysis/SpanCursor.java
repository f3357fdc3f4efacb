package dev.convoy.analysis;

import dev.convoy.analysis.ThreadStates.State;

/**
 * A cursor over the thread-state spans of one Java thread's ring ({@link ThreadStates}):
 * contiguous spans from the thread's start, span {@code i} ending where span {@code i + 1}
 * starts. {@link #select} puts it on one, whose facts the other methods read.
 */
public final class SpanCursor {
    private final ContentionIndex x;
    private final int ring;
    private final SpanTable st;
    private int s = -1;

    SpanCursor(ContentionIndex x, int ring, SpanTable st) {
        this.x = x;
        this.ring = ring;
        this.st = st;
    }

    /** Number of spans (0 for the GC ring). */
    public int count() {
        return st.count();
    }

    /** Puts the cursor on span {@code s}. */
    public SpanCursor select(int s) {
        if (s < 0 || s >= st.count()) {
            throw new IndexOutOfBoundsException("span " + s + " of " + st.count());
        }
        this.s = s;
        return this;
    }

    /** The first span that ends after {@code ns} ({@link #count()} if none). */
    public int firstEndingAfter(long ns) {
        int lo = 0;
        int hi = st.count();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (st.endNs(mid) <= ns) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Start. */
    public long startNs() {
        return st.startNs(s);
    }

    /** End: the start of the next span. */
    public long endNs() {
        return st.endNs(s);
    }

    /** The state. */
    public State state() {
        return st.state(s);
    }

    /**
     * The interval that gives the span its state (an id of the ring's {@link IntervalCursor}),
     * -1 for RUNNING, UNKNOWN and DEAD.
     */
    public int interval() {
        return st.interval(s);
    }

    /** The ring. */
    public int ring() {
        return ring;
    }
}
