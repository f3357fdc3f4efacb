package dev.convoy.analysis;

import dev.convoy.analysis.ThreadStates.State;
import dev.convoy.model.RecordedThread;

/**
 * A cursor over the critical path's segments ({@link CriticalPath}), in time order:
 * {@link #select} puts it on one, whose facts the other methods read; the path's own facts
 * (where it ends, where the walk stopped) need no position.
 */
public final class PathCursor {
    private final ContentionIndex x;
    private final PathTable p;
    private int s = -1;

    PathCursor(ContentionIndex x, PathTable p) {
        this.x = x;
        this.p = p;
    }

    /** Number of segments. */
    public int count() {
        return p.count();
    }

    /** Puts the cursor on segment {@code s}. */
    public PathCursor select(int s) {
        if (s < 0 || s >= p.count()) {
            throw new IndexOutOfBoundsException("segment " + s + " of " + p.count());
        }
        this.s = s;
        return this;
    }

    /** The first segment that ends after {@code ns} ({@link #count()} if none). */
    public int firstEndingAfter(long ns) {
        int lo = 0;
        int hi = p.count();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (p.endNs(mid) <= ns) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The ring of the thread the segment is on. */
    public int ring() {
        return p.ring(s);
    }

    /** The thread the segment is on. */
    public RecordedThread thread() {
        return p.thread(s);
    }

    /** Its state (STARTING between a Thread.start call and the start). */
    public State state() {
        return p.state(s);
    }

    /** Its start. */
    public long startNs() {
        return p.startNs(s);
    }

    /** Its end. */
    public long endNs() {
        return p.endNs(s);
    }

    /** Its monitor, blocker or joined Thread object, 0 if none. */
    public long monitor() {
        return p.monitor(s);
    }

    /** The interaction the walk followed back from it (an id of {@link ContentionIndex#interactions}), -1 if none. */
    public int via() {
        return p.via(s);
    }

    /** Whether it lies in a park (its monitor is then the park's blocker). */
    public boolean inPark() {
        int iv = p.interval(s);
        return iv >= 0 && x.table(p.ring(s)).has(iv, IntervalTable.PARK);
    }

    /** Where the critical path ends, null for a recording without Java threads. */
    public RecordedThread endThread() {
        return p.endThread();
    }

    /** Where the walk back stopped (the path's start). */
    public long pathStartNs() {
        return p.pathStartNs();
    }

    /** The end of the critical path. */
    public long pathEndNs() {
        return p.pathEndNs();
    }

    /** Whether the walk stopped at a loss of records (the path before its start is not known). */
    public boolean stoppedAtLoss() {
        return p.stoppedAtLoss();
    }

    /** The thread whose lost records stopped the walk, else null. */
    public RecordedThread lossThread() {
        return p.lossThread();
    }
}
