package dev.convoy.analysis;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;

/**
 * A cursor over the intervals of one ring ({@link Intervals}: BLOCKED, WAITING, SLEEPING,
 * JOINING, GC and parks), numbered in start order: {@link #at} or {@link #select} puts it on
 * one, whose facts the other methods read. Its own position: each reader has its own cursor
 * (from {@link ContentionIndex#intervals}, or {@link #scan} for one ring without the index).
 */
public final class IntervalCursor {
    private static final Interval.Kind[] KINDS = Interval.Kind.values();

    private final ContentionIndex x; // null: a ring scanned alone (no owners, enders, path, deadlocks)
    private final int ring;
    private final IntervalTable g;
    private int iv = -1;
    private int beginCursor;

    IntervalCursor(ContentionIndex x, int ring, IntervalTable g) {
        this.x = x;
        this.ring = ring;
        this.g = g;
    }

    /**
     * The intervals of one ring scanned alone, without the rest of the analysis (the first
     * stage of {@link ContentionIndex}): open ones end at the thread's end or {@code snapshotNs};
     * the owner, ender, critical-path and deadlock facts are not known (none).
     */
    public static IntervalCursor scan(Recording r, RecordedThread t, long snapshotNs) {
        return new IntervalCursor(null, 0, IntervalTable.of(r, t, snapshotNs));
    }

    /** The ring's position in {@link Recording#threads()}. */
    public int ring() {
        return ring;
    }

    /** The ring's thread. */
    public RecordedThread thread() {
        return g.t;
    }

    /** Number of intervals. */
    public int count() {
        return g.rows();
    }

    /**
     * Puts the cursor on the interval beginning at record {@code record} of the ring; false
     * (and on none) if no interval begins there. Fastest when called for the records in ring
     * order (as {@link Recording#cursor()} gives them).
     */
    public boolean at(int record) {
        int found;
        if (!g.sorted) {
            found = g.atBegin(record);
        } else {
            beginCursor = g.advance(g.byBegin(), g.begin, beginCursor, record);
            found = g.idAt(g.byBegin(), g.begin, beginCursor, record);
        }
        iv = found;
        return found >= 0;
    }

    /** Puts the cursor on interval {@code id} (0 to {@link #count()} - 1, start order). */
    public IntervalCursor select(int id) {
        if (id < 0 || id >= g.rows()) {
            throw new IndexOutOfBoundsException("interval " + id + " of " + g.rows());
        }
        iv = id;
        return this;
    }

    /** The interval the cursor is on. */
    public int id() {
        return iv;
    }

    /** What the thread did. */
    public Interval.Kind kind() {
        return KINDS[g.kind[iv]];
    }

    /** Start (the begin record's time). */
    public long startNs() {
        return g.start[iv];
    }

    /** End: its end record's time, the thread's end or the snapshot when open, the start of the loss that cut it. */
    public long endNs() {
        return g.end[iv];
    }

    /** The monitor, a park's blocker, the joined Thread object for JOINING; 0 for SLEEPING and GC. */
    public long monitor() {
        return g.monitor[iv];
    }

    /** Record index of the begin (MONITOR_ENTER, MONITOR_WAIT, SLEEP, JOIN, GC_START, PARK). */
    public int beginRecord() {
        return g.begin[iv];
    }

    /** Record index of the end, -1 while open or when cut. */
    public int endRecord() {
        return g.endIdx[iv];
    }

    /** Still open at the snapshot. */
    public boolean isOpen() {
        return g.has(iv, IntervalTable.OPEN);
    }

    /** Cut by a loss of the ring's records: how it ended is unknown. */
    public boolean isCut() {
        return g.has(iv, IntervalTable.CUT);
    }

    /** A wait, join or park ended by its timeout. */
    public boolean timedOut() {
        return g.has(iv, IntervalTable.TIMED_OUT);
    }

    /** A park (PARK .. PARKED): BLOCKED when it acquires a lock, else WAITING; its monitor is the blocker. */
    public boolean isPark() {
        return g.has(iv, IntervalTable.PARK);
    }

    /** A park whose PARKED has FLAG_INTERRUPTED. */
    public boolean parkInterrupted() {
        return g.parkInterrupted(iv);
    }

    /** SLEEPING or JOINING ended by THREAD_INTERRUPTED. */
    public boolean interrupted() {
        return g.has(iv, IntervalTable.ENDS_AT_INTERRUPT);
    }

    /** A segment of the critical path lies in it ({@link CriticalPath#isOnPath}). */
    public boolean isOnPath() {
        return x != null && x.pathTable().isOnPath(ring, iv);
    }

    /** The open BLOCKED interval of a {@link Deadlocks} cycle (its span is DEADLOCKED). */
    public boolean isDeadlocked() {
        return x != null && x.isDeadlocked(ring, iv);
    }

    /**
     * Where the owner of a BLOCKED interval comes from; a lock park's is {@code RECORDED} (or
     * {@code NONE}: its PARK named none); null when unknown and for every other interval.
     */
    public MonitorOwnership.Source ownerSource() {
        return x == null ? null : x.interactionTable().ownerSource(ring, iv);
    }

    /** The ring of the owner of a BLOCKED interval ({@link #ownerSource}), -1 if none, unknown or without a ring. */
    public int ownerRing() {
        return x == null ? -1 : x.interactionTable().ownerRing(ring, iv);
    }

    /** The owner of a BLOCKED interval as a thread, null if none, unknown or without a ring. */
    public RecordedThread owner() {
        return x == null ? null : x.interactionTable().owner(ring, iv);
    }

    /**
     * The owner's Java thread id: of its ring, or the recorded id of an owner no ring has; -1
     * when exactly none; 0 when unknown.
     */
    public long ownerJavaId() {
        return x == null ? 0 : x.interactionTable().ownerJavaId(ring, iv);
    }

    /** Whether the owner is exact (recorded by the VM, or a lock park's); false when inferred or unknown. */
    public boolean ownerExact() {
        return x != null && x.interactionTable().ownerExact(ring, iv);
    }

    /**
     * The interaction that ended the interval (an id of {@link ContentionIndex#interactions}: the
     * first by the time its thread acted); -1 when none did, or its own timeout ({@link #timedOut},
     * {@link #endedByTimeout}). Only for the rings of Java threads.
     */
    public int endedBy() {
        return x == null ? -1 : Math.max(-1, x.interactionTable().endedBy(ring, iv));
    }

    /** Whether its own timeout ended it (a TIMEOUT interaction of {@link Interactions}). */
    public boolean endedByTimeout() {
        return x != null && x.interactionTable().endedBy(ring, iv) == -2;
    }

    /** The owner's side of a BLOCKED interval (OWNER_SAMPLE), null if it has none. */
    public OwnerSamples.Sample ownerSample() {
        return x == null ? null : x.ownerSamples().of(ring, iv);
    }

    /** The last interval (start order) starting at or before {@code ns}, -1 if none. */
    public int lastStartingAtOrBefore(long ns) {
        return g.lastStartAtOrBefore(ns);
    }
}
