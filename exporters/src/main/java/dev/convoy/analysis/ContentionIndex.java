package dev.convoy.analysis;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The contention analysis of a recording (the rules of {@code docs/analysis.md}) as tables of
 * primitive columns, nothing per event, built in this order:
 * <ol>
 * <li>per ring, its {@link IntervalTable} (one scan of the ring, which also collects the start
 *     and interrupt calls);</li>
 * <li>the {@link InteractionTable}: the start, interrupt and join rules, then one pass over
 *     the records in event order (owners, handoffs, notify binding);</li>
 * <li>the deadlocked intervals ({@link Deadlocks});</li>
 * <li>per Java ring, its thread-state {@link SpanTable};</li>
 * <li>the critical path, a {@link PathTable}.</li>
 * </ol>
 * The one implementation of those rules: the streaming Chrome writer reads the tables
 * directly; {@link Intervals}, {@link Interactions}, {@link ThreadStates},
 * {@link CriticalPath} and {@link MonitorOwnership#handoffs()} are views that materialize
 * their objects from them. Rings are numbered in {@link Recording#threads()} order.
 */
public final class ContentionIndex {
    private final RecordedThread[] threads;
    private final Map<RecordedThread, Integer> position = new IdentityHashMap<>();
    private final IntervalTable[] intervals;
    private final SpanTable[] spans;
    private final InteractionTable interactions;
    private final PathTable path;
    private OwnerSamples ownerSamples;

    private ContentionIndex(Recording r) {
        this.threads = r.threads().toArray(new RecordedThread[0]);
        for (int k = 0; k < threads.length; k++) {
            position.put(threads[k], k);
        }
        long snapshot = r.snapshotMonotonicNs();
        List<long[]> starts = new ArrayList<>();
        List<long[]> interrupts = new ArrayList<>();
        this.intervals = new IntervalTable[threads.length];
        for (int k = 0; k < threads.length; k++) {
            intervals[k] = IntervalTable.scan(r, threads[k], k, snapshot, starts, interrupts, false);
        }
        this.interactions = InteractionTable.of(r, this, intervals, starts, interrupts);
        Deadlocks.mark(r, this);
        this.spans = new SpanTable[threads.length];
        for (int k = 0; k < threads.length; k++) {
            spans[k] = threads[k].isSystem() ? SpanTable.NONE : SpanTable.of(intervals[k], snapshot);
        }
        this.path = PathTable.walk(r, this);
    }

    /** Builds the index of a recording. */
    public static ContentionIndex of(Recording r) {
        return new ContentionIndex(r);
    }

    /** Number of rings. */
    public int rings() {
        return threads.length;
    }

    /** The rings, in {@link Recording#threads()} order. */
    public RecordedThread thread(int ring) {
        return threads[ring];
    }

    /** Position of a ring in {@link Recording#threads()}. */
    public int ring(RecordedThread t) {
        return position.get(t);
    }

    /** The intervals of a ring. */
    public IntervalTable intervals(int ring) {
        return intervals[ring];
    }

    /** The thread-state spans of a ring (none for the GC ring). */
    public SpanTable spans(int ring) {
        return spans[ring];
    }

    /** The interactions, owners and the interactions that ended intervals. */
    public InteractionTable interactions() {
        return interactions;
    }

    /** The critical path. */
    public PathTable path() {
        return path;
    }

    /** The owner's side of long blocks (OWNER_SAMPLE records), made on first use. */
    public synchronized OwnerSamples ownerSamples() {
        if (ownerSamples == null) {
            ownerSamples = OwnerSamples.of(this);
        }
        return ownerSamples;
    }
}
