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
 * Pairs begin and end events of each ring into {@link Interval}s: MONITOR_ENTER with the
 * next MONITOR_ENTERED on the same monitor (BLOCKED), MONITOR_WAIT with MONITOR_WAITED
 * (WAITING), SLEEP with SLEPT (SLEEPING), JOIN with JOINED on the same Thread object
 * (JOINING), GC_START with GC_FINISH (GC). A SLEEP or JOIN still open at a
 * THREAD_INTERRUPTED ends there (the InterruptedException left the call).
 *
 * <p>Joins: {@code Thread.join} waits on the joined Thread object, so the MONITOR_WAIT and
 * MONITOR_WAITED on that object between a JOIN and its end are the join's
 * ({@link #joinWaits}); they give no WAITING interval.
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
        return scan(t, snapshotNs, null);
    }

    /**
     * The MONITOR_WAIT and MONITOR_WAITED records of this ring that belong to a
     * {@code Thread.join} (on the joined Thread object between JOIN and its end), as a set
     * (events are equal when they are the same record).
     */
    public static Set<Event> joinWaits(RecordedThread t) {
        Set<Event> inner = new HashSet<>();
        scan(t, t.endNs(), inner);
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

    private static List<Interval> scan(RecordedThread t, long snapshotNs, Set<Event> joinInner) {
        List<Interval> out = new ArrayList<>();
        Event enter = null;
        Event wait = null;
        Event gc = null;
        Event sleep = null;
        Event join = null;
        for (Event e : t.events()) {
            switch (e.type()) {
                case MONITOR_ENTER -> enter = e;
                case GC_START -> gc = e;
                case SLEEP -> sleep = e;
                case JOIN -> join = e;
                case MONITOR_WAIT -> {
                    if (join != null && join.obj() == e.obj()) {
                        add(joinInner, e);
                    } else {
                        wait = e;
                    }
                }
                case MONITOR_ENTERED -> {
                    if (enter != null && enter.obj() == e.obj()) {
                        out.add(new Interval(Interval.Kind.BLOCKED, t, e.obj(), enter.ts(), e.ts(), enter, e));
                    }
                    enter = null;
                }
                case MONITOR_WAITED -> {
                    if (join != null && join.obj() == e.obj()) {
                        add(joinInner, e);
                    } else {
                        if (wait != null && wait.obj() == e.obj()) {
                            out.add(new Interval(Interval.Kind.WAITING, t, e.obj(), wait.ts(), e.ts(), wait, e));
                        }
                        wait = null;
                    }
                }
                case SLEPT -> {
                    if (sleep != null) {
                        out.add(new Interval(Interval.Kind.SLEEPING, t, 0, sleep.ts(), e.ts(), sleep, e));
                    }
                    sleep = null;
                }
                case JOINED -> {
                    if (join != null && join.obj() == e.obj()) {
                        out.add(new Interval(Interval.Kind.JOINING, t, e.obj(), join.ts(), e.ts(), join, e));
                    }
                    join = null;
                }
                case THREAD_INTERRUPTED -> {
                    if (sleep != null) {
                        out.add(new Interval(Interval.Kind.SLEEPING, t, 0, sleep.ts(), e.ts(), sleep, e));
                        sleep = null;
                    }
                    if (join != null) {
                        out.add(new Interval(Interval.Kind.JOINING, t, join.obj(), join.ts(), e.ts(), join, e));
                        join = null;
                    }
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
            out.add(open(Interval.Kind.BLOCKED, t, enter.obj(), enter, openEnd));
        }
        if (wait != null) {
            out.add(open(Interval.Kind.WAITING, t, wait.obj(), wait, openEnd));
        }
        if (sleep != null) {
            out.add(open(Interval.Kind.SLEEPING, t, 0, sleep, openEnd));
        }
        if (join != null) {
            out.add(open(Interval.Kind.JOINING, t, join.obj(), join, openEnd));
        }
        if (gc != null) {
            out.add(open(Interval.Kind.GC, t, 0, gc, openEnd));
        }
        out.sort(Comparator.comparingLong(Interval::startNs));
        return out;
    }

    private static Interval open(Interval.Kind kind, RecordedThread t, long monitor, Event begin, long openEnd) {
        return new Interval(kind, t, monitor, begin.ts(), Math.max(begin.ts(), openEnd), begin, null);
    }

    private static void add(Set<Event> set, Event e) {
        if (set != null) {
            set.add(e);
        }
    }
}
