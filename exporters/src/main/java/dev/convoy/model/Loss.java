package dev.convoy.model;

import dev.convoy.snapshot.SnapshotFormat;

/**
 * Records of one thread that are missing, and when (SECTION_LOSSES): from {@code fromNs}, the
 * time of the thread's last record before them (or when its history starts), to {@code toNs},
 * the time of its first record kept after them (or the snapshot). The thread's state in that
 * time is unknown: the analysis infers nothing from the absence of records there.
 *
 * @param kind    {@code LOSS_OVERWRITTEN}, {@code LOSS_AGED}, or a kind this reader does not
 *                know (still a loss)
 * @param fromNs  monotonic ns, at most {@code toNs}
 * @param toNs    monotonic ns
 * @param records how many records are missing (&gt; 0)
 */
public record Loss(int kind, long fromNs, long toNs, long records) {

    /** LOSS_OVERWRITTEN: the thread's ring overwrote them before the recorder moved them into the history. */
    public boolean overwritten() {
        return kind == SnapshotFormat.LOSS_OVERWRITTEN;
    }

    /** LOSS_AGED: they aged out of the history. */
    public boolean aged() {
        return kind == SnapshotFormat.LOSS_AGED;
    }

    /** {@code toNs - fromNs}. */
    public long durationNs() {
        return toNs - fromNs;
    }

    /** The word every output uses for the kind: "overwritten", "aged", else "kind N". */
    public String kindName() {
        return kindName(kind);
    }

    /** {@link #kindName()} of a {@code LOSS_*} value. */
    public static String kindName(int kind) {
        return switch (kind) {
            case SnapshotFormat.LOSS_OVERWRITTEN -> "overwritten";
            case SnapshotFormat.LOSS_AGED -> "aged";
            default -> "kind " + Integer.toUnsignedString(kind);
        };
    }

    /**
     * Whether the loss overlaps the time between {@code a} and {@code b} (either order): some of its
     * unknown time lies strictly between them, or, for a loss of no duration, its instant does.
     * Touching at an end is not overlapping: the records at {@code fromNs} and {@code toNs} are kept.
     */
    public boolean overlaps(long a, long b) {
        return overlaps(fromNs, toNs, a, b);
    }

    /** {@link #overlaps(long, long)} of a loss from {@code fromNs} to {@code toNs}. */
    public static boolean overlaps(long fromNs, long toNs, long a, long b) {
        if (a > b) {
            long t = a;
            a = b;
            b = t;
        }
        if (fromNs == toNs) {
            return a < fromNs && fromNs < b;
        }
        return fromNs < b && a < toNs;
    }
}
