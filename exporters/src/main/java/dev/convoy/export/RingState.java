package dev.convoy.export;

import dev.convoy.analysis.Intervals;
import dev.convoy.model.Event;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Per-ring pairing state for the writers that stream {@link Recording#events()}: feed every
 * event to {@link #next} in that order. It tells whether the event is an inner wait of a
 * {@code Thread.join} (as {@link Intervals#joinWaits}) and, for a MONITOR_WAITED or SLEPT,
 * the argument (timeout) of its MONITOR_WAIT or SLEEP, and for a PARKED its PARK. The per-ring scans of the analysis
 * go in ring order; the merged order is the same for a ring whose records are in time order,
 * so only a ring that is not (lost or reordered data) gets its pairs computed up front.
 */
final class RingState {
    private final Map<RecordedThread, Integer> index = new IdentityHashMap<>();
    private final Event[] wait;
    private final Event[] sleep;
    private final Event[] join;
    private final Event[] park;
    private final boolean[] unsorted;
    private final Set<Event> unsortedInner = new java.util.HashSet<>();
    private final Map<Event, Event> unsortedBegin = new HashMap<>();

    /** The begin of the last MONITOR_WAITED, SLEPT or PARKED given to {@link #next}, null when none. */
    Event begin;

    RingState(Recording r) {
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
                RingState one = new RingState();
                for (Event e : t.events()) {
                    one.scan(0, e);
                    if (one.begin != null) {
                        unsortedBegin.put(e, one.begin);
                    }
                }
            }
        }
    }

    private RingState() {
        wait = new Event[1];
        sleep = new Event[1];
        join = new Event[1];
        park = new Event[1];
        unsorted = new boolean[1];
    }

    /** Position of a ring in {@link Recording#threads()}. */
    int index(RecordedThread t) {
        return index.get(t);
    }

    /** Takes the next event of the merged order; true when it is the inner wait of a join. */
    boolean next(Event e) {
        int k = index(e.thread());
        if (unsorted[k]) {
            begin = unsortedBegin.get(e);
            return unsortedInner.contains(e);
        }
        return scan(k, e);
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

    /**
     * Marks (thread start or end lines) of the rings accepted by {@code which}, at
     * {@code ts}, sorted by (time, ring position): pairs {@code [ts, ring]} in one array.
     */
    static long[] marks(Recording r, Predicate<RecordedThread> which, ToLongFunction<RecordedThread> ts) {
        List<long[]> m = new ArrayList<>();
        List<RecordedThread> threads = r.threads();
        for (int k = 0; k < threads.size(); k++) {
            if (which.test(threads.get(k))) {
                m.add(new long[] {ts.applyAsLong(threads.get(k)), k});
            }
        }
        m.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        long[] out = new long[2 * m.size()];
        for (int i = 0; i < m.size(); i++) {
            out[2 * i] = m.get(i)[0];
            out[2 * i + 1] = m.get(i)[1];
        }
        return out;
    }

    static int count(long[] marks) {
        return marks.length / 2;
    }

    static long ts(long[] marks, int i) {
        return marks[2 * i];
    }

    static int ring(long[] marks, int i) {
        return (int) marks[2 * i + 1];
    }
}
