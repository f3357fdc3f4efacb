package dev.convoy.analysis;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The contention analysis of a recording (the rules of {@code docs/analysis.md}), made by
 * {@link #of} and not changed after: tables of primitive columns, nothing per event, made by one
 * builder in this order, each stage from the finished ones before it:
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
 *
 * <p>Built once per recording for as long as a front-end {@link #hold holds} the recording:
 * every {@link #of} call for it then gets the same index (the outputs of one dump, the web
 * view's summary, timeline, report and downloads of the snapshot it shows). Without a hold each
 * call builds its own, which lives no longer than its caller's use: nothing keeps an analysis on
 * the heap (an application's, for the agent) once no front-end asks for it.
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

    /** Recordings held ({@link #hold}) and their index, by identity. */
    private static final Map<Recording, Held> HELD = new IdentityHashMap<>();

    /** A held recording: how many holds it has, and its index once built. */
    private static final class Held {
        final Recording r;
        int holds;
        private ContentionIndex index;

        Held(Recording r) {
            this.r = r;
        }

        synchronized ContentionIndex index() {
            if (index == null) {
                index = build(r);
            }
            return index;
        }
    }

    /**
     * The index of a recording: while the recording is {@link #hold held}, the one built on the
     * first call; else a new one.
     */
    public static ContentionIndex of(Recording r) {
        Held h;
        synchronized (HELD) {
            h = HELD.get(r);
        }
        return h == null ? build(r) : h.index();
    }

    /**
     * Holds a recording until {@link Hold#close()}: meanwhile {@link #of} builds its index once
     * and every caller shares it; the last hold closed lets it go.
     */
    public static Hold hold(Recording r) {
        synchronized (HELD) {
            Held h = HELD.computeIfAbsent(r, Held::new);
            h.holds++;
            return new Hold(h);
        }
    }

    /** A hold of a recording ({@link #hold}); closing it twice is closing it once. */
    public static final class Hold implements AutoCloseable {
        private Held held;

        private Hold(Held held) {
            this.held = held;
        }

        @Override
        public void close() {
            synchronized (HELD) {
                if (held != null && --held.holds == 0) {
                    HELD.remove(held.r);
                }
                held = null;
            }
        }
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
