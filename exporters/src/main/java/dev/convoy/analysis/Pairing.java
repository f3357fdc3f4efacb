package dev.convoy.analysis;

import static dev.convoy.snapshot.SnapshotFormat.*;

import dev.convoy.model.Loss;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.List;

/**
 * The pairing rules of {@link Intervals}, applied to one ring's records one at a time in ring
 * order: the only place that says which begin record an end record closes. Every reader that
 * needs pairs takes them from here, whether it keeps them ({@link IntervalTable}), streams them
 * in event order ({@link RecordFacts}) or only adds them up ({@link Intervals#visit}, the web
 * view's overview).
 *
 * <p>Each interval goes to the {@link Sink} when its end is known: at its end record, at the
 * first record after a loss of the ring's records that it was open at (cut where the loss
 * begins, no end record), or at {@link #finish} (open: it lasts until the thread's end, else
 * the snapshot). State per ring only: one begin per kind, nothing per record.
 */
final class Pairing {
    /** Where the pairs go. */
    interface Sink {
        /**
         * An interval: {@code kind} an {@link Interval.Kind} ordinal, its begin record, its end
         * record (-1 when cut or open), when it ends, and {@link IntervalTable}'s flags.
         */
        void interval(int kind, long monitor, int begin, int end, long endNs, int flags);

        /**
         * A MONITOR_WAIT or MONITOR_WAITED inside a {@code Thread.join} (between JOIN and its
         * end), with, for a MONITOR_WAITED, its MONITOR_WAIT (else -1).
         */
        default void joinWait(int record, int begin) {
        }
    }

    private static final int[] OPEN_KINDS = {IntervalTable.BLOCKED, IntervalTable.WAITING, IntervalTable.SLEEPING,
        IntervalTable.JOINING, IntervalTable.GC};

    private final Recording r;
    private final RecordedThread t;
    private final Sink sink;
    private final List<Loss> losses;
    private final int n;
    private int lost;
    private int enter = -1;
    private int wait = -1;
    private int sleep = -1;
    private int join = -1;
    private int gc = -1;
    private int park = -1;
    /** The open join's inner MONITOR_WAIT. */
    private int joinWait = -1;
    /** The open join is a wait whose stack is in {@code Thread.join} (only with a recording). */
    private boolean joinFromWait;

    /**
     * The pairing of ring {@code t}; with {@code r} null, a wait is never taken for a join by its
     * stack (only JOIN records open joins).
     */
    Pairing(Recording r, RecordedThread t, Sink sink) {
        this.r = r;
        this.t = t;
        this.sink = sink;
        this.losses = t.losses();
        this.n = t.eventCount();
    }

    /** Takes record {@code i}, the next in ring order. */
    void next(int i) {
        if (lost < losses.size() && t.ts(i) > losses.get(lost).fromNs()) {
            // the record comes after a loss: what was open when it began is cut there
            long from = losses.get(lost).fromNs();
            while (lost < losses.size() && t.ts(i) > losses.get(lost).fromNs()) {
                lost++;
            }
            close(from, IntervalTable.CUT);
        }
        switch (t.rawType(i)) {
            case EVENT_MONITOR_ENTER -> enter = i;
            case EVENT_GC_START -> gc = i;
            case EVENT_SLEEP -> sleep = i;
            case EVENT_JOIN -> {
                join = i;
                joinFromWait = false;
            }
            case EVENT_MONITOR_WAIT -> {
                if (join >= 0 && t.obj(join) == t.obj(i)) {
                    joinWait = i;
                    sink.joinWait(i, -1);
                } else if (join < 0 && r != null && r.isJoinStack(t.stackId(i))) {
                    join = i;
                    joinFromWait = true;
                } else {
                    wait = i;
                }
            }
            case EVENT_MONITOR_ENTERED -> {
                if (enter >= 0 && t.obj(enter) == t.obj(i)) {
                    sink.interval(IntervalTable.BLOCKED, t.obj(i), enter, i, t.ts(i), 0);
                }
                enter = -1;
            }
            case EVENT_MONITOR_WAITED -> {
                if (joinFromWait && t.obj(join) == t.obj(i)) {
                    sink.interval(IntervalTable.JOINING, t.obj(i), join, i, t.ts(i), timedOut(i));
                    join = -1;
                    joinFromWait = false;
                } else if (join < 0 || t.obj(join) != t.obj(i)) {
                    if (wait >= 0 && t.obj(wait) == t.obj(i)) {
                        int f = timedOut(i);
                        if (i + 1 < n && t.rawType(i + 1) == EVENT_THREAD_INTERRUPTED) {
                            f |= IntervalTable.NEXT_IS_INTERRUPT;
                        }
                        sink.interval(IntervalTable.WAITING, t.obj(i), wait, i, t.ts(i), f);
                    }
                    wait = -1;
                } else {
                    sink.joinWait(i, joinWait >= 0 && t.obj(joinWait) == t.obj(i) ? joinWait : -1);
                    joinWait = -1;
                }
            }
            case EVENT_SLEPT -> {
                if (sleep >= 0) {
                    sink.interval(IntervalTable.SLEEPING, 0, sleep, i, t.ts(i), 0);
                }
                sleep = -1;
            }
            case EVENT_JOINED -> {
                if (join >= 0 && t.obj(join) == t.obj(i)) {
                    sink.interval(IntervalTable.JOINING, t.obj(i), join, i, t.ts(i), 0);
                }
                join = -1;
                joinFromWait = false;
            }
            case EVENT_THREAD_INTERRUPTED -> {
                if (sleep >= 0) {
                    sink.interval(IntervalTable.SLEEPING, 0, sleep, i, t.ts(i), IntervalTable.ENDS_AT_INTERRUPT);
                    sleep = -1;
                }
                if (join >= 0) {
                    sink.interval(IntervalTable.JOINING, t.obj(join), join, i, t.ts(i), IntervalTable.ENDS_AT_INTERRUPT);
                    join = -1;
                    joinFromWait = false;
                }
            }
            case EVENT_GC_FINISH -> {
                if (gc >= 0) {
                    sink.interval(IntervalTable.GC, 0, gc, i, t.ts(i), 0);
                }
                gc = -1;
            }
            case EVENT_PARK -> park = i;
            case EVENT_PARKED -> {
                if (park >= 0 && t.obj(park) == t.obj(i)) {
                    int f = IntervalTable.PARK | timedOut(i)
                            | ((t.flags(i) & FLAG_INTERRUPTED) != 0 ? IntervalTable.NEXT_IS_INTERRUPT : 0);
                    sink.interval(parkKind(park), t.obj(i), park, i, t.ts(i), f);
                }
                park = -1;
            }
            default -> {
            }
        }
    }

    /**
     * Ends what is still open after the last record: cut at a loss that follows it, else open
     * until the thread's end or {@code snapshotNs}.
     */
    void finish(long snapshotNs) {
        if (lost < losses.size()) {
            close(losses.get(lost).fromNs(), IntervalTable.CUT);
        }
        close(t.endNs() != 0 ? t.endNs() : snapshotNs, IntervalTable.OPEN);
    }

    /** Every ring record in order, then {@link #finish}. */
    void all(long snapshotNs) {
        for (int i = 0; i < n; i++) {
            next(i);
        }
        finish(snapshotNs);
    }

    /** The begins still open, each an interval ending at {@code endNs} with no end record. */
    private void close(long endNs, int flag) {
        int[] open = {enter, wait, sleep, join, gc};
        for (int j = 0; j < open.length; j++) {
            int b = open[j];
            if (b >= 0) {
                int k = OPEN_KINDS[j];
                long mon = k == IntervalTable.BLOCKED || k == IntervalTable.WAITING || k == IntervalTable.JOINING
                        ? t.obj(b) : 0;
                sink.interval(k, mon, b, -1, Math.max(t.ts(b), endNs), flag);
            }
        }
        if (park >= 0) {
            sink.interval(parkKind(park), t.obj(park), park, -1, Math.max(t.ts(park), endNs),
                    flag | IntervalTable.PARK);
        }
        enter = wait = sleep = join = gc = park = joinWait = -1;
        joinFromWait = false;
    }

    private int timedOut(int i) {
        return (t.flags(i) & FLAG_TIMED_OUT) != 0 ? IntervalTable.TIMED_OUT : 0;
    }

    /** A park is BLOCKED when it acquires a lock (FLAG_LOCK on its PARK), else WAITING. */
    private int parkKind(int p) {
        return (t.flags(p) & FLAG_LOCK) != 0 ? IntervalTable.BLOCKED : IntervalTable.WAITING;
    }
}
