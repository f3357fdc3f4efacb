package dev.convoy.analysis;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Interactions between threads (TPTP 4.5 contention analysis design, "Entities for thread
 * interaction reflection"): an active thread ({@code from}) made another thread
 * ({@code to}) run. Derived from a recording as follows (details in
 * {@code docs/analysis.md}):
 * <ul>
 * <li>{@link Kind#START}: a START_CALL on the starter's ring and the started thread's
 *     THREAD_START (the ring whose Thread object is the call's obj, else whose Java id is
 *     its arg2; not a late ring; one start per thread).</li>
 * <li>{@link Kind#HANDOFF}: {@link MonitorOwnership#handoffs()}.</li>
 * <li>{@link Kind#NOTIFY} / {@link Kind#NOTIFY_ALL}: the seed's binding rule. In the order
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
 *     object that ended by JOINED at or after that end (the seed's
 *     TRCThreadDeadAndNotifyJoined).</li>
 * <li>{@link Kind#TIMEOUT}: a WAITING interval whose MONITOR_WAITED has FLAG_TIMED_OUT
 *     (the seed's TRCThreadWaitTimeoutExceed): {@code from == to}, at the wake time.</li>
 * </ul>
 */
public final class Interactions {

    /** Kinds of interactions, each with its own legend in the formats. */
    public enum Kind { START, HANDOFF, NOTIFY, NOTIFY_ALL, INTERRUPT, JOIN_END, TIMEOUT }

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
     *                INTERRUPT_CALL, THREAD_END if recorded); null for HANDOFF and TIMEOUT
     *                and a lost THREAD_END
     * @param effect  the event of {@code to} that shows it running (THREAD_START if recorded,
     *                MONITOR_ENTERED, MONITOR_WAITED, SLEPT, JOINED, THREAD_INTERRUPTED)
     * @param ended   the interval of {@code to} this interaction ended; null for START and
     *                for an interrupt met only by its THREAD_INTERRUPTED
     */
    public record Interaction(Kind kind, RecordedThread from, long fromNs, RecordedThread to, long toNs,
                              long monitor, Event cause, Event effect, Interval ended) {
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

    private final List<Interaction> all;
    private final List<Notification> notifications;
    private final Map<Interval, Interaction> endedBy = new HashMap<>();
    private final Map<RecordedThread, Interaction> startOf = new IdentityHashMap<>();
    private final MonitorOwnership ownership;

    private Interactions(List<Interaction> all, List<Notification> notifications, MonitorOwnership ownership) {
        this.all = List.copyOf(all);
        this.notifications = List.copyOf(notifications);
        this.ownership = ownership;
        for (Interaction i : this.all) {
            if (i.ended() != null) {
                endedBy.putIfAbsent(i.ended(), i);
            }
            if (i.kind() == Kind.START) {
                startOf.putIfAbsent(i.to(), i);
            }
        }
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

    /** The owner derivation the handoffs come from. */
    public MonitorOwnership ownership() {
        return ownership;
    }

    /** Derives every interaction of the recording. */
    public static Interactions of(Recording r) {
        return of(r, MonitorOwnership.of(r));
    }

    /** Derives every interaction, reusing an owner derivation of the same recording. */
    public static Interactions of(Recording r, MonitorOwnership ownership) {
        long snapshot = r.snapshotMonotonicNs();
        Map<RecordedThread, List<Interval>> intervals = new IdentityHashMap<>();
        Map<Event, Interval> byEnd = new HashMap<>();
        for (RecordedThread t : r.javaThreads()) {
            List<Interval> list = Intervals.of(t, snapshot);
            intervals.put(t, list);
            for (Interval in : list) {
                if (in.end() != null) {
                    byEnd.put(in.end(), in);
                }
            }
        }
        List<Interaction> out = new ArrayList<>();
        starts(r, out);
        for (MonitorOwnership.Handoff h : ownership.handoffs()) {
            out.add(new Interaction(Kind.HANDOFF, h.from(), h.releaseNs(), h.to(), h.acquireNs(), h.monitor(),
                    null, h.blocked().end(), h.blocked()));
        }
        Set<Interval> interrupted = interrupts(r, intervals, byEnd, out);
        for (List<Interval> list : intervals.values()) {
            for (Interval in : list) {
                if (in.kind() == Interval.Kind.WAITING && in.timedOut()) {
                    out.add(new Interaction(Kind.TIMEOUT, in.thread(), in.endNs(), in.thread(), in.endNs(),
                            in.monitor(), null, in.end(), in));
                }
            }
        }
        joins(r, intervals, out);
        List<Notification> notifications = notifies(r, byEnd, interrupted, out);
        // stable sort: ties keep derivation order
        List<Interaction> sorted = new ArrayList<>(out);
        sorted.sort(Comparator.comparingLong(Interaction::toNs).thenComparingLong(Interaction::fromNs));
        return new Interactions(sorted, notifications, ownership);
    }

    /** The ring of a target thread: its Thread object, else its Java id; prefers a ring that was not met late. */
    static Optional<RecordedThread> target(Recording r, long threadObject, long javaId) {
        RecordedThread found = null;
        for (RecordedThread t : r.javaThreads()) {
            boolean match = threadObject != 0 ? t.threadObject() == threadObject : javaId >= 0 && t.javaThreadId() == javaId;
            if (match && (found == null || found.isLate() && !t.isLate())) {
                found = t;
            }
        }
        return Optional.ofNullable(found);
    }

    private static void starts(Recording r, List<Interaction> out) {
        Set<RecordedThread> started = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Event e : r.events()) {
            if (e.type() != EventType.START_CALL) {
                continue;
            }
            RecordedThread t = target(r, e.obj(), e.arg2()).orElse(null);
            if (t == null || t.isLate() || t == e.thread() || !started.add(t)) {
                continue;
            }
            Event threadStart = t.events().stream().filter(x -> x.type() == EventType.THREAD_START).findFirst()
                    .orElse(null);
            long at = threadStart != null ? threadStart.ts() : t.startNs();
            out.add(new Interaction(Kind.START, e.thread(), e.ts(), t, at, t.threadObject(), e, threadStart, null));
        }
    }

    private static boolean resumable(Interval in) {
        return in.kind() == Interval.Kind.WAITING || in.kind() == Interval.Kind.SLEEPING
                || in.kind() == Interval.Kind.JOINING;
    }

    private static Set<Interval> interrupts(Recording r, Map<RecordedThread, List<Interval>> intervals,
                                            Map<Event, Interval> byEnd, List<Interaction> out) {
        Set<Interval> used = new HashSet<>();
        Set<Event> usedEvents = new HashSet<>();
        for (Event e : r.events()) {
            if (e.type() != EventType.INTERRUPT_CALL) {
                continue;
            }
            RecordedThread x = target(r, e.obj(), e.arg2()).orElse(null);
            if (x == null || x == e.thread()) {
                continue;
            }
            Interval hit = null;
            for (Interval in : intervals.getOrDefault(x, List.of())) {
                if (resumable(in) && !in.isOpen() && in.startNs() <= e.ts() && e.ts() <= in.endNs()
                        && !used.contains(in)) {
                    hit = in; // innermost wins: intervals are in start order
                }
            }
            Event effect = null;
            if (hit != null) {
                effect = hit.end();
            } else {
                for (Event c : x.events()) {
                    if (c.type() == EventType.THREAD_INTERRUPTED && c.ts() >= e.ts() && !usedEvents.contains(c)) {
                        effect = c;
                        break;
                    }
                }
                if (effect == null) {
                    continue;
                }
                hit = byEnd.get(effect);
                if (hit != null && used.contains(hit)) {
                    continue;
                }
            }
            if (hit != null) {
                used.add(hit);
            }
            usedEvents.add(effect);
            out.add(new Interaction(Kind.INTERRUPT, e.thread(), e.ts(), x, effect.ts(), x.threadObject(), e, effect,
                    hit));
        }
        // a wait whose next record is THREAD_INTERRUPTED was interrupted, even by uninstrumented code
        Set<Interval> interrupted = new HashSet<>(used);
        for (List<Interval> list : intervals.values()) {
            for (Interval in : list) {
                if (in.kind() == Interval.Kind.WAITING && in.end() != null) {
                    List<Event> ev = in.thread().events();
                    int i = ev.indexOf(in.end());
                    if (i >= 0 && i + 1 < ev.size() && ev.get(i + 1).type() == EventType.THREAD_INTERRUPTED) {
                        interrupted.add(in);
                    }
                }
            }
        }
        return interrupted;
    }

    private static void joins(Recording r, Map<RecordedThread, List<Interval>> intervals, List<Interaction> out) {
        for (List<Interval> list : intervals.values()) {
            for (Interval in : list) {
                if (in.kind() != Interval.Kind.JOINING || in.end() == null || in.end().type() != EventType.JOINED) {
                    continue;
                }
                RecordedThread dead = target(r, in.monitor(), in.begin().arg2()).orElse(null);
                if (dead == null || dead == in.thread() || !dead.isEnded() || dead.endNs() == 0
                        || dead.endNs() > in.endNs()) {
                    continue;
                }
                Event end = dead.events().stream().filter(x -> x.type() == EventType.THREAD_END).findFirst().orElse(null);
                out.add(new Interaction(Kind.JOIN_END, dead, dead.endNs(), in.thread(), in.endNs(), in.monitor(),
                        end, in.end(), in));
            }
        }
    }

    private static final class Pending {
        final Event call;
        final List<Interaction> woke = new ArrayList<>();

        Pending(Event call) {
            this.call = call;
        }
    }

    private static List<Notification> notifies(Recording r, Map<Event, Interval> byEnd, Set<Interval> interrupted,
                                               List<Interaction> out) {
        List<Pending> calls = new ArrayList<>();
        Map<Long, Deque<Pending>> unbound = new HashMap<>();
        Map<Long, List<Pending>> alls = new HashMap<>(); // NOTIFY_ALL calls per monitor, in time order
        Map<Long, Deque<Interval>> pending = new HashMap<>();
        for (Event e : r.events()) {
            switch (e.type()) {
                case NOTIFY -> {
                    Pending n = new Pending(e);
                    calls.add(n);
                    Deque<Interval> waiting = pending.getOrDefault(e.obj(), new ArrayDeque<>());
                    Interval w = waiting.pollFirst();
                    if (w != null) {
                        bind(n, w, out);
                    } else {
                        unbound.computeIfAbsent(e.obj(), k -> new ArrayDeque<>()).addLast(n);
                    }
                }
                case NOTIFY_ALL -> {
                    Pending n = new Pending(e);
                    calls.add(n);
                    Deque<Interval> waiting = pending.remove(e.obj());
                    if (waiting != null) {
                        for (Interval w : waiting) {
                            bind(n, w, out);
                        }
                    }
                    alls.computeIfAbsent(e.obj(), k -> new ArrayList<>()).add(n);
                }
                case MONITOR_WAITED -> {
                    Interval w = byEnd.get(e);
                    if (w == null || w.kind() != Interval.Kind.WAITING || w.timedOut() || interrupted.contains(w)) {
                        continue;
                    }
                    // the first notifyAll at or after the wait began woke it, unless an unbound notify came first
                    Pending all = firstAtOrAfter(alls.get(e.obj()), w.startNs());
                    Pending n = null;
                    Deque<Pending> q = unbound.get(e.obj());
                    if (q != null) {
                        for (Iterator<Pending> it = q.iterator(); it.hasNext(); ) {
                            Pending c = it.next();
                            if (c.call.ts() >= w.startNs()) {
                                if (all == null || c.call.ts() <= all.call.ts()) {
                                    n = c;
                                    it.remove();
                                }
                                break;
                            }
                        }
                    }
                    if (n == null) {
                        n = all;
                    }
                    if (n != null) {
                        bind(n, w, out);
                    } else {
                        pending.computeIfAbsent(e.obj(), k -> new ArrayDeque<>()).addLast(w);
                    }
                }
                default -> {
                }
            }
        }
        List<Notification> result = new ArrayList<>();
        for (Pending p : calls) {
            result.add(new Notification(p.call, List.copyOf(p.woke)));
        }
        return result;
    }

    /** The first call of a time-ordered list made at or after {@code ns}, or null. */
    private static Pending firstAtOrAfter(List<Pending> calls, long ns) {
        if (calls == null) {
            return null;
        }
        int lo = 0;
        int hi = calls.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (calls.get(mid).call.ts() < ns) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < calls.size() ? calls.get(lo) : null;
    }

    private static void bind(Pending n, Interval w, List<Interaction> out) {
        Kind kind = n.call.type() == EventType.NOTIFY_ALL ? Kind.NOTIFY_ALL : Kind.NOTIFY;
        Interaction i = new Interaction(kind, n.call.thread(), n.call.ts(), w.thread(), w.endNs(), w.monitor(),
                n.call, w.end(), w);
        n.woke.add(i);
        out.add(i);
    }
}
