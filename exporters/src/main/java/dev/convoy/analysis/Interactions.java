package dev.convoy.analysis;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Interactions between threads (TPTP 4.5 contention analysis design, "Entities for thread
 * interaction reflection"): an active thread ({@code from}) made another thread
 * ({@code to}) run. A view of the {@link InteractionTable} of a {@link ContentionIndex}, which derives them as follows
 * (details in {@code docs/analysis.md}):
 * <ul>
 * <li>{@link Kind#START}: a START_CALL on the starter's ring and the started thread's
 *     THREAD_START (the ring whose Thread object is the call's obj, else whose Java id is
 *     its arg2; not a late ring; one start per thread).</li>
 * <li>{@link Kind#HANDOFF}: the releaser ({@link MonitorOwnership.Handoff}: exact, the thread the
 *     VM recorded as the last to leave the monitor, where the MONITOR_ENTERED has FLAG_RELEASER;
 *     otherwise inferred, the last thread known to hold the monitor) at its release, and the
 *     blocked thread at its MONITOR_ENTERED.</li>
 * <li>{@link Kind#NOTIFY} / {@link Kind#NOTIFY_ALL}: the TPTP design's binding rule. In the order
 *     of {@link Recording#events()}, a MONITOR_WAITED that ends a WAITING interval, not
 *     timed out and not interrupted, binds to the oldest unbound NOTIFY on the same
 *     monitor made at or after its MONITOR_WAIT, unless the first NOTIFY_ALL on the monitor
 *     made at or after its MONITOR_WAIT came before that notify; failing that to that first
 *     NOTIFY_ALL (a notifyAll wakes every thread waiting when it is made, so the first one
 *     after the wait began is the one that woke it; it can wake several);
 *     failing that it is kept as pending, and the next NOTIFY on the monitor binds the
 *     oldest pending one, the next NOTIFY_ALL every pending one.</li>
 * <li>{@link Kind#INTERRUPT}: an INTERRUPT_CALL and its target: the end of the target's
 *     WAITING, SLEEPING or JOINING interval open at the call, else the target's first
 *     THREAD_INTERRUPTED at or after the call.</li>
 * <li>{@link Kind#JOIN_END}: a thread that ended, and each JOINING interval on its Thread
 *     object that ended by JOINED at or after that end (the TPTP design's
 *     TRCThreadDeadAndNotifyJoined).</li>
 * <li>{@link Kind#TIMEOUT}: a WAITING interval whose MONITOR_WAITED (or PARKED) has
 *     FLAG_TIMED_OUT (the TPTP design's TRCThreadWaitTimeoutExceed): {@code from == to}, at
 *     the wake time.</li>
 * <li>{@link Kind#UNPARK}: an UNPARK on the unparker's ring and the PARKED that ended the
 *     target's park: the first PARKED of the target's ring at or after the UNPARK, unless an
 *     earlier UNPARK took it or it ended a park that timed out or was interrupted (for a
 *     lock park this is also its handoff, {@link MonitorOwnership#handoffs()}).</li>
 * </ul>
 */
public final class Interactions {

    /** Kinds of interactions, each with its own legend in the formats. */
    public enum Kind { START, HANDOFF, NOTIFY, NOTIFY_ALL, INTERRUPT, JOIN_END, TIMEOUT, UNPARK }

    /**
     * One interaction.
     *
     * @param kind    what happened
     * @param from    the active thread (the starter, previous owner, notifier, interrupter,
     *                ended thread; the waiting thread itself for TIMEOUT)
     * @param fromNs  when it acted: START_CALL, release, NOTIFY/NOTIFY_ALL, INTERRUPT_CALL,
     *                its end; the wake time for TIMEOUT
     * @param to      the thread made to run
     * @param toNs    when it ran: its THREAD_START, MONITOR_ENTERED, MONITOR_WAITED, the end
     *                of the interrupted interval or its THREAD_INTERRUPTED, JOINED
     * @param monitor the monitor (HANDOFF, NOTIFY*, TIMEOUT) or the Thread object (START,
     *                INTERRUPT, JOIN_END)
     * @param cause   the event of {@code from} (START_CALL, NOTIFY, NOTIFY_ALL,
     *                INTERRUPT_CALL, UNPARK, THREAD_END if recorded); null for HANDOFF and TIMEOUT
     *                and a lost THREAD_END
     * @param effect  the event of {@code to} that shows it running (THREAD_START if recorded,
     *                MONITOR_ENTERED, MONITOR_WAITED, SLEPT, JOINED, THREAD_INTERRUPTED)
     * @param ended   the interval of {@code to} this interaction ended; null for START and
     *                for an interrupt met only by its THREAD_INTERRUPTED
     * @param exact   whether {@code from} is a recorded fact: false only for a HANDOFF whose
     *                releaser is inferred; true for a HANDOFF whose MONITOR_ENTERED has
     *                FLAG_RELEASER (the VM recorded the releaser) and for every other kind
     */
    public record Interaction(Kind kind, RecordedThread from, long fromNs, RecordedThread to, long toNs,
                              long monitor, Event cause, Event effect, Interval ended, boolean exact) {
        @Override
        public String toString() {
            return kind + " " + from.name() + "@" + fromNs + " -> " + to.name() + "@" + toNs + " obj=" + monitor;
        }
    }

    /**
     * A NOTIFY or NOTIFY_ALL call and the interactions of the threads it woke (at most one
     * for NOTIFY; empty when it woke no recorded wait).
     */
    public record Notification(Event call, List<Interaction> woke) {
        /** NOTIFY_ALL. */
        public boolean isNotifyAll() {
            return call.type() == EventType.NOTIFY_ALL;
        }
    }

    private final ContentionIndex x;
    private final IntervalCache intervals;
    private final Interaction[] byId;
    private final List<Interaction> all;
    private final List<Notification> notifications;
    private final Map<Interval, Interaction> endedBy = new HashMap<>();
    private final Map<RecordedThread, Interaction> startOf = new IdentityHashMap<>();

    private Interactions(ContentionIndex x) {
        this.x = x;
        this.intervals = new IntervalCache(x);
        InteractionTable in = x.interactionTable();
        this.byId = new Interaction[in.count()];
        for (int id = 0; id < byId.length; id++) {
            byId[id] = interaction(x, id, intervals);
            RecordedThread to = byId[id].to();
            if (in.kind(id) == Kind.START) {
                startOf.putIfAbsent(to, byId[id]);
            }
        }
        // derivation order: by kind, each in index order (handoffs by blocked interval, timeouts by
        // ring and interval); then by toNs, fromNs
        List<Interaction> out = new ArrayList<>();
        for (Kind k : new Kind[] {Kind.START, Kind.HANDOFF, Kind.INTERRUPT, Kind.TIMEOUT, Kind.JOIN_END, null,
            Kind.UNPARK}) {
            if (k == Kind.TIMEOUT) {
                timeouts(out);
                continue;
            }
            int from = out.size();
            for (Interaction i : byId) {
                if (i.kind() == k || k == null && (i.kind() == Kind.NOTIFY || i.kind() == Kind.NOTIFY_ALL)) {
                    out.add(i);
                }
            }
            if (k == Kind.HANDOFF) {
                // by the blocked interval's start, then ring (the order of Intervals.of(r))
                out.subList(from, out.size()).sort(Comparator.comparingLong((Interaction i) -> i.ended().startNs())
                        .thenComparingInt(i -> x.ring(i.to())));
            }
        }
        out.sort(Comparator.comparingLong(Interaction::toNs).thenComparingLong(Interaction::fromNs));
        this.all = List.copyOf(out);
        List<Notification> calls = new ArrayList<>();
        for (int n = 0; n < in.notifyCalls(); n++) {
            List<Interaction> woke = new ArrayList<>();
            for (int id : in.notifyCall(n)) {
                woke.add(byId[id]);
            }
            calls.add(new Notification(x.thread(in.notifyCallRing(n)).event(in.notifyCallRecord(n)),
                    List.copyOf(woke)));
        }
        this.notifications = List.copyOf(calls);
    }

    /**
     * The TIMEOUT interactions of the timed-out waits of Java threads, and the interaction
     * that ended each interval (a timeout ends its wait unless another thread acted first).
     */
    private void timeouts(List<Interaction> out) {
        InteractionTable table = x.interactionTable();
        for (int k = 0; k < x.rings(); k++) {
            boolean java = !x.thread(k).isSystem();
            IntervalTable g = x.table(k);
            for (int iv = 0; iv < g.count(); iv++) {
                int by = table.endedBy(k, iv);
                Interaction timeout = null;
                if (java && g.kind(iv) == IntervalTable.WAITING && g.timedOut(iv)) {
                    Interval in = interval(k, iv);
                    timeout = new Interaction(Kind.TIMEOUT, in.thread(), in.endNs(), in.thread(), in.endNs(),
                            in.monitor(), null, in.end(), in, true);
                    out.add(timeout);
                }
                if (by != -1) {
                    endedBy.put(interval(k, iv), by == -2 ? timeout : byId[by]);
                }
            }
        }
    }

    /** The intervals of an index's rings as objects, each ring's made once, when first asked for. */
    static final class IntervalCache {
        private final ContentionIndex x;
        private final java.util.Map<Long, Interval> made = new java.util.HashMap<>();

        IntervalCache(ContentionIndex x) {
            this.x = x;
        }

        /** Interval {@code iv} of a ring, made once (only the intervals asked for are made). */
        Interval get(int ring, int iv) {
            return made.computeIfAbsent(((long) ring << 32) | iv, k -> Intervals.of(x.table(ring), iv));
        }
    }

    /** Interaction {@code id} of an index as an object, the interval it ended taken from {@code intervals}. */
    static Interaction interaction(ContentionIndex x, int id, IntervalCache intervals) {
        InteractionTable in = x.interactionTable();
        RecordedThread from = in.from(id);
        RecordedThread to = in.to(id);
        int cause = in.cause(id);
        int effect = in.effect(id);
        int ended = in.ended(id);
        return new Interaction(in.kind(id), from, in.fromNs(id), to, in.toNs(id), in.monitor(id),
                cause < 0 ? null : from.event(cause), effect < 0 ? null : to.event(effect),
                ended < 0 ? null : intervals.get(in.toRing(id), ended), in.exact(id));
    }

    /** Interval {@code iv} of a ring as an object, made once. */
    Interval interval(int ring, int iv) {
        return intervals.get(ring, iv);
    }

    /** The intervals this view made. */
    IntervalCache intervals() {
        return intervals;
    }

    /** The object of interaction {@code id} of the index. */
    Interaction interaction(int id) {
        return byId[id];
    }

    /** The index this is a view of. */
    public ContentionIndex index() {
        return x;
    }

    /** Every interaction, by {@code toNs} (ties: {@code fromNs}, then derivation order). */
    public List<Interaction> all() {
        return all;
    }

    /** The interactions of one kind, in the order of {@link #all()}. */
    public List<Interaction> of(Kind kind) {
        return all.stream().filter(i -> i.kind() == kind).toList();
    }

    /** Every NOTIFY and NOTIFY_ALL call of the recording, in time order, with what it woke. */
    public List<Notification> notifications() {
        return notifications;
    }

    /** The interaction that ended this interval (by value equality of intervals). */
    public Optional<Interaction> endedBy(Interval in) {
        return Optional.ofNullable(endedBy.get(in));
    }

    /** The START interaction of this thread. */
    public Optional<Interaction> startOf(RecordedThread t) {
        return Optional.ofNullable(startOf.get(t));
    }

    /** Every interaction of the recording. */
    public static Interactions of(Recording r) {
        return of(ContentionIndex.of(r));
    }

    /** The interactions of an index as objects. */
    public static Interactions of(ContentionIndex x) {
        return new Interactions(x);
    }
}
