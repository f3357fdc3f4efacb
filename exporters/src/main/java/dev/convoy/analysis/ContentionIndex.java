package dev.convoy.analysis;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The contention analysis of a recording (the rules of {@code docs/analysis.md}), built once
 * per recording by {@link #of} and not changed after: tables of primitive columns, nothing per
 * event, made by one builder in this order, each stage from the finished ones before it:
 * <ol>
 * <li>{@link Rings}: per ring, its {@link IntervalTable} (one scan of the ring, which also
 *     collects the start and interrupt calls);</li>
 * <li>the {@link InteractionTable}: the start, interrupt and join rules, then one pass over
 *     the records in event order (owners, handoffs, notify binding);</li>
 * <li>the deadlocked intervals ({@link Deadlocks});</li>
 * <li>per Java ring, its thread-state {@link SpanTable};</li>
 * <li>the critical path, a {@link PathTable};</li>
 * <li>the owner's side of long blocks, {@link OwnerSamples}.</li>
 * </ol>
 * Read through typed cursors, each with its own position (so that readers on several threads
 * share one index): {@link #intervals} of a ring, {@link #spans} of a ring,
 * {@link #interactions} and the critical {@link #path}; {@link Intervals}, {@link Interactions},
 * {@link ThreadStates}, {@link CriticalPath} and {@link MonitorOwnership#handoffs()} are views
 * that materialize objects from it. Rings are numbered in {@link Recording#threads()} order.
 */
public final class ContentionIndex {
    private final Rings rings;
    private final SpanTable[] spans;
    private final InteractionTable interactions;
    private final BitSet[] deadlocked;
    private final PathTable path;
    private final OwnerSamples ownerSamples;

    private ContentionIndex(Rings rings, InteractionTable interactions, BitSet[] deadlocked, SpanTable[] spans,
                            PathTable path, OwnerSamples ownerSamples) {
        this.rings = rings;
        this.interactions = interactions;
        this.deadlocked = deadlocked;
        this.spans = spans;
        this.path = path;
        this.ownerSamples = ownerSamples;
    }

    /** The builder: the stages in order, each from the finished ones before it. */
    private static ContentionIndex build(Recording r) {
        List<long[]> starts = new ArrayList<>();
        List<long[]> interrupts = new ArrayList<>();
        Rings rings = new Rings(r, starts, interrupts);
        InteractionTable interactions = InteractionTable.of(r, rings, starts, interrupts);
        BitSet[] deadlocked = Deadlocks.mark(r, rings);
        long snapshot = r.snapshotMonotonicNs();
        SpanTable[] spans = new SpanTable[rings.rings()];
        for (int k = 0; k < spans.length; k++) {
            spans[k] = rings.thread(k).isSystem() ? SpanTable.NONE
                    : SpanTable.of(rings.table(k), deadlocked[k], snapshot);
        }
        PathTable path = PathTable.walk(r, rings, spans, interactions);
        OwnerSamples samples = OwnerSamples.of(rings, interactions);
        return new ContentionIndex(rings, interactions, deadlocked, spans, path, samples);
    }

    /**
     * The index of a recording: built on the first call for it, the same index after (kept with
     * the recording, {@link Recording#derived}, and as long as it).
     */
    public static ContentionIndex of(Recording r) {
        return r.derived(ContentionIndex.class, ContentionIndex::build);
    }

    /** Number of rings. */
    public int rings() {
        return rings.rings();
    }

    /** The rings, in {@link Recording#threads()} order. */
    public RecordedThread thread(int ring) {
        return rings.thread(ring);
    }

    /** Position of a ring in {@link Recording#threads()}. */
    public int ring(RecordedThread t) {
        return rings.ring(t);
    }

    /** A new cursor over the intervals of a ring. */
    public IntervalCursor intervals(int ring) {
        return new IntervalCursor(this, ring, rings.table(ring));
    }

    /** A new cursor over the thread-state spans of a ring (none for the GC ring). */
    public SpanCursor spans(int ring) {
        return new SpanCursor(this, ring, spans[ring]);
    }

    /** A new cursor over the interactions (the arrows: every kind but TIMEOUT). */
    public InteractionCursor interactions() {
        return new InteractionCursor(this, interactions);
    }

    /** A new cursor over the critical path's segments. */
    public PathCursor path() {
        return new PathCursor(this, path);
    }

    /** The owner's side of long blocks (OWNER_SAMPLE records). */
    public OwnerSamples ownerSamples() {
        return ownerSamples;
    }

    // ---- the tables, for the views of this package

    IntervalTable table(int ring) {
        return rings.table(ring);
    }

    SpanTable spanTable(int ring) {
        return spans[ring];
    }

    InteractionTable interactionTable() {
        return interactions;
    }

    PathTable pathTable() {
        return path;
    }

    boolean isDeadlocked(int ring, int iv) {
        return deadlocked[ring] != null && deadlocked[ring].get(iv);
    }
}
