package dev.convoy.analysis;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Pairs begin and end events of each ring into {@link Interval}s: MONITOR_ENTER with the
 * next MONITOR_ENTERED on the same monitor (BLOCKED), MONITOR_WAIT with MONITOR_WAITED
 * (WAITING), GC_START with GC_FINISH (GC).
 *
 * <p>Lost data never fails: an end whose begin was overwritten is ignored; a begin
 * followed by another begin of the same kind (its end was not recorded) is dropped; a
 * begin still open at the end of the ring lasts until the thread's end if it ended,
 * else until the snapshot time.
 */
public final class Intervals {
    private Intervals() {
    }

    /** All intervals of all rings, sorted by start time (ties: file order). */
    public static List<Interval> of(Recording r) {
        List<Interval> out = new ArrayList<>();
        long snapshot = r.snapshotMonotonicNs();
        for (RecordedThread t : r.threads()) {
            out.addAll(of(t, snapshot));
        }
        out.sort(Comparator.comparingLong(Interval::startNs));
        return out;
    }

    /** Intervals of one ring in start order; open ones end at the thread's end or {@code snapshotNs}. */
    public static List<Interval> of(RecordedThread t, long snapshotNs) {
        List<Interval> out = new ArrayList<>();
        Event enter = null;
        Event wait = null;
        Event gc = null;
        for (Event e : t.events()) {
            switch (e.type()) {
                case MONITOR_ENTER -> enter = e;
                case MONITOR_WAIT -> wait = e;
                case GC_START -> gc = e;
                case MONITOR_ENTERED -> {
                    if (enter != null && enter.obj() == e.obj()) {
                        out.add(new Interval(Interval.Kind.BLOCKED, t, e.obj(), enter.ts(), e.ts(), enter, e));
                    }
                    enter = null;
                }
                case MONITOR_WAITED -> {
                    if (wait != null && wait.obj() == e.obj()) {
                        out.add(new Interval(Interval.Kind.WAITING, t, e.obj(), wait.ts(), e.ts(), wait, e));
                    }
                    wait = null;
                }
                case GC_FINISH -> {
                    if (gc != null) {
                        out.add(new Interval(Interval.Kind.GC, t, 0, gc.ts(), e.ts(), gc, e));
                    }
                    gc = null;
                }
                default -> {
                }
            }
        }
        long openEnd = t.endNs() != 0 ? t.endNs() : snapshotNs;
        if (enter != null) {
            out.add(new Interval(Interval.Kind.BLOCKED, t, enter.obj(), enter.ts(),
                    Math.max(enter.ts(), openEnd), enter, null));
        }
        if (wait != null) {
            out.add(new Interval(Interval.Kind.WAITING, t, wait.obj(), wait.ts(),
                    Math.max(wait.ts(), openEnd), wait, null));
        }
        if (gc != null) {
            out.add(new Interval(Interval.Kind.GC, t, 0, gc.ts(), Math.max(gc.ts(), openEnd), gc, null));
        }
        out.sort(Comparator.comparingLong(Interval::startNs));
        return out;
    }
}
