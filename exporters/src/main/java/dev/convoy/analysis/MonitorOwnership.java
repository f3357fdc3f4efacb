package dev.convoy.analysis;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The owner of the monitor at each MONITOR_ENTER, derived by the rule at the end of
 * {@code schema/snapshot-format.md}, in this order:
 * <ol>
 * <li>an enter still unfinished at snapshot time (no MONITOR_ENTERED followed it) of a
 *     thread SECTION_MONITORS lists as blocked on that monitor: the ring of the Java
 *     thread listed there as owner ({@code ownerThreadId}; the live ring if the thread
 *     was met twice);</li>
 * <li>otherwise the last thread proven to hold the monitor before the enter: its
 *     MONITOR_ENTERED or MONITOR_WAITED on the monitor, with no MONITOR_WAIT on it since
 *     (a wait releases it; any thread's wait also proves the last holder let go) and no
 *     MONITOR_ENTERED/WAITED of another thread since;</li>
 * <li>otherwise unknown.</li>
 * </ol>
 * "Before" is the order of {@link Recording#events()} (time, ties in file order). The
 * entering thread itself is never its own owner. The rule is the {@link Tracker}, which
 * {@link ContentionIndex} and the streaming writers apply too; the {@link #handoffs()} are a
 * view of the index's. Immutable once built.
 */
public final class MonitorOwnership {
    private final Recording r;
    private final Map<Event, RecordedThread> owners = new HashMap<>();
    private List<Handoff> handoffs;

    /**
     * A lock handoff: {@code to}, blocked on the monitor, got it from {@code from}.
     *
     * @param from      the last thread proven to hold the monitor before the
     *                  MONITOR_ENTERED (by rule 2, where a MONITOR_WAIT of the holder
     *                  counts as its release); if none, the owner at the MONITOR_ENTER
     * @param to        the thread that was blocked
     * @param monitor   monitor object id
     * @param releaseNs when {@code from} let go, as far as known: its MONITOR_WAIT, else
     *                  the acquisition time
     * @param blocked   the closed BLOCKED interval of {@code to}
     */
    public record Handoff(RecordedThread from, RecordedThread to, long monitor, long releaseNs,
                          Interval blocked) {
        /** When {@code to} got the monitor (MONITOR_ENTERED). */
        public long acquireNs() {
            return blocked.endNs();
        }
    }

    private MonitorOwnership(Recording r) {
        this.r = r;
    }

    /** Derives the owners of every MONITOR_ENTER of the recording. */
    public static MonitorOwnership of(Recording r) {
        MonitorOwnership mo = new MonitorOwnership(r);
        Tracker tr = new Tracker(r);
        for (Event e : r.events()) {
            RecordedThread owner = tr.next(e);
            if (owner != null) {
                mo.owners.put(e, owner);
            }
        }
        return mo;
    }

    /** Owner of the monitor at this MONITOR_ENTER; empty when unknown or not an enter. */
    public Optional<RecordedThread> ownerAt(Event enter) {
        return Optional.ofNullable(owners.get(enter));
    }

    /** Java thread id of {@link #ownerAt}, 0 when unknown. */
    public long ownerJavaThreadId(Event enter) {
        return ownerAt(enter).map(RecordedThread::javaThreadId).orElse(0L);
    }

    /**
     * Handoffs of every closed BLOCKED interval whose owner is known, by acquisition time: the
     * HANDOFF interactions of {@link ContentionIndex} (made on first use); for a lock park, the
     * UNPARK that woke it (the releasing thread unparks the next one, from its release at the
     * UNPARK to the PARKED).
     */
    public synchronized List<Handoff> handoffs() {
        if (handoffs == null) {
            Interactions in = Interactions.of(ContentionIndex.of(r));
            List<Handoff> out = new ArrayList<>();
            for (Interactions.Interaction i : in.of(Interactions.Kind.HANDOFF)) {
                out.add(new Handoff(i.from(), i.to(), i.monitor(), i.fromNs(), i.ended()));
            }
            for (Interactions.Interaction i : in.of(Interactions.Kind.UNPARK)) {
                if (i.ended() != null && i.ended().kind() == Interval.Kind.BLOCKED) {
                    out.add(new Handoff(i.from(), i.to(), i.monitor(), i.fromNs(), i.ended()));
                }
            }
            // ties: by the blocked interval's start, then ring (the order of Intervals.of(r))
            out.sort(Comparator.comparingLong(Handoff::acquireNs).thenComparingLong(h -> h.blocked().startNs())
                    .thenComparingInt(h -> in.index().ring(h.to())));
            handoffs = List.copyOf(out);
        }
        return handoffs;
    }

    /**
     * The owner rule applied while the events are read in the order of
     * {@link Recording#events()}, with state per monitor and per ring only (for writers that
     * stream): feed every event to {@link #next}, which gives the owner at a MONITOR_ENTER
     * exactly as {@link MonitorOwnership#ownerAt} does.
     */
    public static final class Tracker {
        private final Recording r;
        private final LongMap<RecordedThread> holder = new LongMap<>();
        private final LongMap<Release> releasedByWait = new LongMap<>();
        /** Per ring listed as blocked in SECTION_MONITORS: the index of its unfinished last enter on that monitor. */
        private final Map<RecordedThread, Integer> pendingEnter = new HashMap<>();
        RecordedThread releasedBy;
        long releaseNs;

        public Tracker(Recording r) {
            this.r = r;
            for (RecordedThread t : r.threads()) {
                Optional<MonitorState> ms = r.monitorState(t.ringId());
                if (ms.isEmpty() || ms.get().state() != SnapshotFormat.MSTATE_BLOCKED) {
                    continue;
                }
                for (int i = t.eventCount() - 1; i >= 0; i--) {
                    int type = t.rawType(i);
                    if (type == SnapshotFormat.EVENT_MONITOR_ENTERED) {
                        break;
                    }
                    if (type == SnapshotFormat.EVENT_MONITOR_ENTER) {
                        if (t.event(i).obj() == ms.get().object()) {
                            pendingEnter.put(t, i);
                        }
                        break;
                    }
                }
            }
        }

        /** Takes the next event; returns the owner at a MONITOR_ENTER (null when unknown or not an enter). */
        public RecordedThread next(Event e) {
            return next(e.thread(), e.index(), e.type(), e.obj(), e.ts());
        }

        /**
         * {@link #next(Event)} for record {@code index} of ring {@code t}, of the given type,
         * object and time: the same, without an {@link Event}.
         */
        public RecordedThread next(RecordedThread t, int index, EventType type, long obj, long ts) {
            releasedBy = null;
            switch (type) {
                case MONITOR_ENTERED, MONITOR_WAITED -> {
                    if (type == EventType.MONITOR_ENTERED) {
                        RecordedThread prev = holder.get(obj);
                        Release wait = releasedByWait.get(obj);
                        if (prev != null && prev != t) {
                            releasedBy = prev;
                            releaseNs = ts;
                        } else if (prev == null && wait != null && wait.by() != t) {
                            releasedBy = wait.by();
                            releaseNs = wait.ns();
                        }
                    }
                    releasedByWait.remove(obj);
                    holder.put(obj, t);
                    return null;
                }
                case MONITOR_WAIT -> {
                    if (holder.remove(obj) == t) {
                        releasedByWait.put(obj, new Release(t, ts));
                    } else {
                        releasedByWait.remove(obj);
                    }
                    return null;
                }
                case MONITOR_ENTER -> {
                    Integer pending = pendingEnter.isEmpty() ? null : pendingEnter.get(t);
                    RecordedThread owner = pending != null && pending == index ? ownerAtSnapshot(r, t) : null;
                    if (owner == null || owner == t) {
                        owner = holder.get(obj);
                    }
                    return owner != null && owner != t ? owner : null;
                }
                default -> {
                    return null;
                }
            }
        }

        /** A monitor released by a wait: who waited, when. */
        private record Release(RecordedThread by, long ns) {
        }
    }

    /** The Java thread SECTION_MONITORS names as owner for the blocked thread of this enter. */
    private static RecordedThread ownerAtSnapshot(Recording r, RecordedThread blocked) {
        long owner = r.monitorState(blocked.ringId()).map(MonitorState::ownerThreadId).orElse(-1L);
        if (owner < 0) {
            return null;
        }
        RecordedThread found = null;
        for (RecordedThread t : r.javaThreads()) {
            if (t.javaThreadId() == owner && (found == null || !t.isEnded())) {
                found = t; // a thread met twice: the live ring owns it
            }
        }
        return found;
    }
}
