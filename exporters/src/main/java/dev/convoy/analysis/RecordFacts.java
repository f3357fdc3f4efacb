package dev.convoy.analysis;

import dev.convoy.model.Event;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the analysis says of each record, for the writers that stream {@link Recording#events()}
 * (the CSV event log, the TPTP trace) and need no index: feed every event to {@link #next} in
 * that order, then read {@link #owner()}, {@link #begin()} and {@link #innerJoinWait()} of it.
 * The owner at a MONITOR_ENTER comes from the rules of {@link MonitorOwnership} (its tracker,
 * the one {@link ContentionIndex} runs too); the pairs are those of the rings' scans
 * ({@link Intervals}): the inner waits of a {@code Thread.join} ({@link Intervals#joinWaits}) and
 * the begin of a MONITOR_WAITED, SLEPT or PARKED. Per ring and per monitor state only: nothing
 * is kept per record. The per-ring scans go in ring order; the merged order is the same for a
 * ring whose records are in time order, so only a ring that is not (lost or reordered data)
 * gets its pairs computed up front.
 */
public final class RecordFacts {
    private final Map<RecordedThread, Integer> index = new IdentityHashMap<>();
    private final Event[] wait;
    private final Event[] sleep;
    private final Event[] join;
    private final Event[] park;
    private final boolean[] unsorted;
    private final Set<Event> unsortedInner = new java.util.HashSet<>();
    private final Map<Event, Event> unsortedBegin = new HashMap<>();
    private final MonitorOwnership.Tracker owners;
    private Event begin;
    private boolean inner;
    private MonitorOwnership.Owner owner;

    /** The facts of a recording's records, from its first event on. */
    public RecordFacts(Recording r) {
        this.owners = new MonitorOwnership.Tracker(r);
        List<RecordedThread> threads = r.threads();
        int n = threads.size();
        wait = new Event[n];
        sleep = new Event[n];
        join = new Event[n];
        park = new Event[n];
        unsorted = new boolean[n];
        for (int k = 0; k < n; k++) {
            RecordedThread t = threads.get(k);
            index.put(t, k);
            for (int i = 1; i < t.eventCount(); i++) {
                if (t.ts(i - 1) > t.ts(i)) {
                    unsorted[k] = true;
                    break;
                }
            }
            if (unsorted[k]) {
                unsortedInner.addAll(Intervals.joinWaits(t));
                RecordFacts one = new RecordFacts();
                for (Event e : t.events()) {
                    one.scan(0, e);
                    if (one.begin != null) {
                        unsortedBegin.put(e, one.begin);
                    }
                }
            }
        }
    }

    private RecordFacts() {
        owners = null;
        wait = new Event[1];
        sleep = new Event[1];
        join = new Event[1];
        park = new Event[1];
        unsorted = new boolean[1];
    }

    /** Position of a ring in {@link Recording#threads()}. */
    public int ring(RecordedThread t) {
        return index.get(t);
    }

    /** Takes the next event of the order of {@link Recording#events()}. */
    public void next(Event e) {
        owner = owners.next(e);
        int k = ring(e.thread());
        if (unsorted[k]) {
            begin = unsortedBegin.get(e);
            inner = unsortedInner.contains(e);
        } else {
            inner = scan(k, e);
        }
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

    private boolean scan(int k, Event e) {
        begin = null;
        switch (e.type()) {
            case JOIN -> join[k] = e;
            case JOINED -> join[k] = null;
            case SLEEP -> sleep[k] = e;
            case SLEPT -> {
                begin = sleep[k];
                sleep[k] = null;
            }
            case PARK -> park[k] = e;
            case PARKED -> {
                Event p = park[k];
                park[k] = null;
                if (p != null && p.obj() == e.obj()) {
                    begin = p;
                }
            }
            case THREAD_INTERRUPTED -> {
                sleep[k] = null;
                join[k] = null;
            }
            case MONITOR_WAIT -> {
                wait[k] = e; // every wait, the inner waits of joins included
                return join[k] != null && join[k].obj() == e.obj();
            }
            case MONITOR_WAITED -> {
                Event w = wait[k];
                wait[k] = null;
                if (w != null && w.obj() == e.obj()) {
                    begin = w;
                }
                return join[k] != null && join[k].obj() == e.obj();
            }
            default -> {
            }
        }
        return false;
    }
}
