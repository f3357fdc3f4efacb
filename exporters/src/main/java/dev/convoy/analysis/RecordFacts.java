package dev.convoy.analysis;

import static dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_WAITED;
import static dev.convoy.snapshot.SnapshotFormat.EVENT_PARKED;
import static dev.convoy.snapshot.SnapshotFormat.EVENT_SLEPT;

import dev.convoy.model.Event;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.BitSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the analysis says of each record, for the writers that stream {@link Recording#events()}
 * (the CSV event log, the TPTP trace) and need no index: feed every event to {@link #next} in
 * that order, then read {@link #owner()}, {@link #begin()} and {@link #innerJoinWait()} of it.
 * The owner at a MONITOR_ENTER comes from the rules of {@link MonitorOwnership} (its tracker,
 * the one {@link ContentionIndex} runs too); the pairs are the analysis' own ({@link Pairing}, as
 * {@link Intervals} has them): the inner waits of a {@code Thread.join} and the begin of a
 * MONITOR_WAITED (a join's inner one included), SLEPT or PARKED. Per ring and per monitor state
 * only: nothing is kept per record. Each ring's pairing takes its records in ring order, which is their merged order when
 * the ring's records are in time order; a ring whose records are not (lost or reordered data)
 * has its pairs computed up front.
 */
public final class RecordFacts {
    private final Map<RecordedThread, Integer> index = new IdentityHashMap<>();
    private final Ring[] rings;
    private final MonitorOwnership.Tracker owners;
    private Event begin;
    private boolean inner;
    private MonitorOwnership.Owner owner;

    /** One ring's pairing, and what it said of the record taken last. */
    private static final class Ring implements Pairing.Sink {
        final RecordedThread t;
        final Pairing pairs;
        /** For a ring not in time order: per record, its begin (-1 none), and its inner join waits. */
        int[] beginOf;
        BitSet innerOf;
        int record = -1;
        int begin = -1;
        boolean inner;
        /** The ring's last events taken, by record index modulo their number: a begin is most often one of them. */
        final Event[] recent = new Event[8];

        Ring(Recording r, RecordedThread t) {
            this.t = t;
            this.pairs = new Pairing(r, t, this);
        }

        /** Takes record {@code i}: what it ends and whether it is a join's wait. */
        void take(int i) {
            record = i;
            begin = -1;
            inner = false;
            pairs.next(i);
        }

        @Override
        public void interval(int kind, long monitor, int b, int end, long endNs, int flags) {
            if (end == record) {
                int type = t.rawType(end);
                if (type == EVENT_MONITOR_WAITED || type == EVENT_SLEPT || type == EVENT_PARKED) {
                    begin = b;
                }
            }
        }

        @Override
        public void joinWait(int i, int b) {
            if (i == record) {
                inner = true;
                begin = b;
            }
        }

        /** Pairs the whole ring in ring order, keeping per record what {@link #take} finds. */
        void upFront() {
            int n = t.eventCount();
            beginOf = new int[n];
            innerOf = new BitSet(n);
            for (int i = 0; i < n; i++) {
                take(i);
                beginOf[i] = begin;
                innerOf.set(i, inner);
            }
        }
    }

    /** The facts of a recording's records, from its first event on. */
    public RecordFacts(Recording r) {
        this.owners = new MonitorOwnership.Tracker(r);
        List<RecordedThread> threads = r.threads();
        rings = new Ring[threads.size()];
        for (int k = 0; k < rings.length; k++) {
            RecordedThread t = threads.get(k);
            index.put(t, k);
            rings[k] = new Ring(r, t);
            for (int i = 1; i < t.eventCount(); i++) {
                if (t.ts(i - 1) > t.ts(i)) {
                    rings[k].upFront();
                    break;
                }
            }
        }
    }

    /** Position of a ring in {@link Recording#threads()}. */
    public int ring(RecordedThread t) {
        return index.get(t);
    }

    /** Takes the next event of the order of {@link Recording#events()}. */
    public void next(Event e) {
        owner = owners.next(e);
        Ring g = rings[ring(e.thread())];
        int i = e.index();
        if (g.beginOf == null) {
            g.take(i);
        } else {
            g.begin = g.beginOf[i];
            g.inner = g.innerOf.get(i);
        }
        g.recent[i & 7] = e;
        if (g.begin < 0) {
            begin = null;
        } else {
            Event b = g.recent[g.begin & 7];
            begin = b != null && b.index() == g.begin ? b : g.t.event(g.begin);
        }
        inner = g.inner;
    }

    /** The owner at the MONITOR_ENTER taken last (exact or inferred); null when unknown or not an enter. */
    public MonitorOwnership.Owner owner() {
        return owner;
    }

    /**
     * The begin of the MONITOR_WAITED (its MONITOR_WAIT), SLEPT (its SLEEP) or PARKED (its PARK)
     * taken last; null when not known (lost, or ended otherwise) and for every other record.
     */
    public Event begin() {
        return begin;
    }

    /** Whether the record taken last is a wait inside a {@code Thread.join} (JOIN and JOINED stand for it). */
    public boolean innerJoinWait() {
        return inner;
    }
}
