package dev.convoy.analysis;

import dev.convoy.model.Event;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The intervals of each ring as {@link Interval} objects, made from the pairing of
 * {@link IntervalTable}: MONITOR_ENTER with the next MONITOR_ENTERED on the same monitor
 * (BLOCKED), MONITOR_WAIT with MONITOR_WAITED (WAITING), SLEEP with SLEPT (SLEEPING), JOIN
 * with JOINED on the same Thread object (JOINING), GC_START with GC_FINISH (GC), PARK with
 * PARKED on the same blocker (BLOCKED with FLAG_LOCK, else WAITING). A SLEEP or
 * JOIN still open at a THREAD_INTERRUPTED ends there (the InterruptedException left the
 * call).
 *
 * <p>Joins: {@code Thread.join} waits on the joined Thread object, so the MONITOR_WAIT and
 * MONITOR_WAITED on that object between a JOIN and its end are the join's
 * ({@link #joinWaits}); they give no WAITING interval.
 *
 * <p>Lost data never fails: an end whose begin was overwritten is ignored; a begin
 * followed by another begin of the same kind (its end was not recorded) is dropped; a
 * begin still open at the end of the ring lasts until the thread's end if it ended,
 * else until the snapshot time. No interval crosses a loss of the ring's records
 * ({@code RecordedThread.losses()}): one open when a loss begins is cut there
 * ({@link Interval#cut()}), and an end after the loss ends nothing.
 */
public final class Intervals {
    private Intervals() {
    }

    /** All intervals of all rings, sorted by start time (ties: file order). */
    public static List<Interval> of(Recording r) {
        List<Interval> out = new ArrayList<>();
        long snapshot = r.snapshotMonotonicNs();
        for (RecordedThread t : r.threads()) {
            out.addAll(of(r, t, snapshot));
        }
        out.sort(Comparator.comparingLong(Interval::startNs));
        return out;
    }

    /** Intervals of one ring of a recording in start order; open ones end at the thread's end or {@code snapshotNs}. */
    public static List<Interval> of(Recording r, RecordedThread t, long snapshotNs) {
        return of(IntervalTable.of(r, t, snapshotNs));
    }

    /** What {@link #visit} hands over: one interval, as {@link #of} pairs it. */
    @FunctionalInterface
    public interface Visitor {
        /** An interval of {@code kind} from its begin record (an index into the ring) and its start to its end. */
        void interval(Interval.Kind kind, int beginRecord, long startNs, long endNs);
    }

    /**
     * Hands a ring's intervals, paired as {@link #of(Recording, RecordedThread, long)} pairs them,
     * to {@code v} in the order their ends are found, keeping none: memory independent of the
     * ring's size, for readers that only add intervals up.
     */
    public static void visit(Recording r, RecordedThread t, long snapshotNs, Visitor v) {
        new Pairing(r, t, (kind, monitor, begin, end, endNs, flags) -> v.interval(KINDS[kind], begin, t.ts(begin),
                endNs)).all(snapshotNs);
    }

    /** The intervals of a ring of an index, in its interval numbering (start order). */
    public static List<Interval> of(ContentionIndex x, int ring) {
        return of(x.table(ring));
    }

    /** The intervals of a table, in its numbering (start order). */
    public static List<Interval> of(IntervalTable g) {
        int n = g.count();
        List<Interval> out = new ArrayList<>(n);
        for (int iv = 0; iv < n; iv++) {
            out.add(of(g, iv));
        }
        return out;
    }

    /** Interval {@code iv} of a table as an object. */
    static Interval of(IntervalTable g, int iv) {
        RecordedThread t = g.thread();
        int end = g.end(iv);
        return new Interval(KINDS[g.kind(iv)], t, g.monitor(iv), g.startNs(iv), g.endNs(iv),
                t.event(g.begin(iv)), end < 0 ? null : t.event(end), g.isCut(iv));
    }

    private static final Interval.Kind[] KINDS = Interval.Kind.values();

    /**
     * The MONITOR_WAIT and MONITOR_WAITED records of this ring that belong to a
     * {@code Thread.join} (on the joined Thread object between JOIN and its end), as a set
     * (events are equal when they are the same record).
     */
    public static Set<Event> joinWaits(RecordedThread t) {
        Set<Event> inner = new HashSet<>();
        for (int i : IntervalTable.joinWaits(t)) {
            inner.add(t.event(i));
        }
        return inner;
    }

    /** The join waits of every ring. */
    public static Set<Event> joinWaits(Recording r) {
        Set<Event> inner = new HashSet<>();
        for (RecordedThread t : r.threads()) {
            inner.addAll(joinWaits(t));
        }
        return inner;
    }
}
