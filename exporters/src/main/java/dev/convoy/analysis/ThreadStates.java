package dev.convoy.analysis;

import dev.convoy.model.Event;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The state sequence of every Java thread (the TPTP model's TRCThread*Event sequence: a
 * state lasts until the next one). Per thread the spans cover, without gap or overlap,
 * the time from its start ({@link RecordedThread#startNs()}, or its first record if
 * earlier) to its end, then one DEAD span from its end to the snapshot:
 * <ul>
 * <li>BLOCKED, WAITING, SLEEPING, JOINING: its {@link Intervals} of those kinds (the
 *     waits of a join are the join's); where intervals nest (a contended enter of the
 *     join's monitor inside a JOINING) the innermost one gives the state;</li>
 * <li>DEADLOCKED: instead of BLOCKED for a thread of a {@link Deadlocks#find} cycle, from
 *     its last MONITOR_ENTER on the cycle's monitor (its open BLOCKED interval) to the
 *     snapshot;</li>
 * <li>RUNNING: the rest;</li>
 * <li>DEAD: from the end of a thread that ended to the snapshot (possibly empty).</li>
 * </ul>
 * Empty intervals are left out. Immutable.
 */
public final class ThreadStates {

    /** Thread states of the TPTP model. */
    public enum State {
        RUNNING, BLOCKED, WAITING, SLEEPING, JOINING, DEADLOCKED, DEAD,
        /** Not a thread state: on the critical path, from a Thread.start call to the started thread's start. */
        STARTING
    }

    /**
     * One state of one thread.
     *
     * @param monitor  the monitor (BLOCKED, WAITING, DEADLOCKED), the joined Thread object
     *                 (JOINING), else 0
     * @param interval the interval giving the state (the whole interval, which may be
     *                 longer than this span when another interval nests in it); null for
     *                 RUNNING and DEAD
     */
    public record Span(RecordedThread thread, State state, long startNs, long endNs, long monitor,
                       Interval interval) {
        /** {@code endNs - startNs}. */
        public long durationNs() {
            return endNs - startNs;
        }

        @Override
        public String toString() {
            return thread.name() + " " + state + " [" + startNs + ", " + endNs + "]" + (monitor != 0 ? " obj=" + monitor : "");
        }
    }

    private final Map<RecordedThread, List<Span>> spans;

    private ThreadStates(Map<RecordedThread, List<Span>> spans) {
        this.spans = Collections.unmodifiableMap(spans);
    }

    /** Every Java thread's spans, threads in file order. */
    public Map<RecordedThread, List<Span>> all() {
        return spans;
    }

    /** The spans of one thread in time order (empty for the GC ring or a foreign ring). */
    public List<Span> of(RecordedThread t) {
        return spans.getOrDefault(t, List.of());
    }

    /** The span of a thread at a time: {@code startNs <= ns < endNs}, or the last span when ns is at or after its end. */
    public Optional<Span> at(RecordedThread t, long ns) {
        List<Span> list = of(t);
        for (Span s : list) {
            if (s.startNs() <= ns && ns < s.endNs()) {
                return Optional.of(s);
            }
        }
        return list.isEmpty() || ns < list.get(0).startNs() ? Optional.empty() : Optional.of(list.get(list.size() - 1));
    }

    /** Computes the state sequences of all Java threads. */
    public static ThreadStates of(Recording r) {
        long snapshot = r.snapshotMonotonicNs();
        Map<RecordedThread, MonitorState> deadlocked = new IdentityHashMap<>();
        for (Deadlocks.Deadlock d : Deadlocks.find(r)) {
            for (int i = 0; i < d.threads().size(); i++) {
                deadlocked.put(d.threads().get(i), d.waits().get(i));
            }
        }
        Map<RecordedThread, List<Span>> out = new LinkedHashMap<>();
        for (RecordedThread t : r.javaThreads()) {
            out.put(t, List.copyOf(states(t, snapshot, deadlocked.get(t))));
        }
        return new ThreadStates(out);
    }

    private static List<Span> states(RecordedThread t, long snapshot, MonitorState deadlock) {
        long begin = t.startNs();
        for (Event e : t.events()) {
            begin = Math.min(begin, e.ts());
            break;
        }
        long lifeEnd = t.isEnded() && t.endNs() != 0 ? Math.max(begin, t.endNs()) : Math.max(begin, snapshot);
        List<Interval> intervals = new ArrayList<>();
        for (Interval in : Intervals.of(t, snapshot)) {
            if (in.kind() != Interval.Kind.GC && in.endNs() > in.startNs()) {
                intervals.add(in);
            }
        }
        Interval deadlockInterval = null;
        if (deadlock != null) {
            for (Interval in : intervals) {
                if (in.kind() == Interval.Kind.BLOCKED && in.isOpen()
                        && (deadlock.object() == 0 || in.monitor() == deadlock.object())) {
                    deadlockInterval = in; // the last one
                }
            }
        }
        TreeSet<Long> bounds = new TreeSet<>();
        bounds.add(begin);
        bounds.add(lifeEnd);
        for (Interval in : intervals) {
            bounds.add(clamp(in.startNs(), begin, lifeEnd));
            bounds.add(clamp(in.endNs(), begin, lifeEnd));
        }
        List<Span> out = new ArrayList<>();
        List<Interval> active = new ArrayList<>(); // intervals covering the current segment
        int next = 0; // intervals are in start order
        Long prev = null;
        for (long b : bounds) {
            if (prev != null) {
                long a = prev;
                while (next < intervals.size() && intervals.get(next).startNs() <= a) {
                    active.add(intervals.get(next++));
                }
                active.removeIf(in -> in.endNs() <= a);
                Interval inner = null;
                for (Interval in : active) {
                    if (inner == null || in.startNs() > inner.startNs()
                            || in.startNs() == inner.startNs() && in.endNs() <= inner.endNs()) {
                        inner = in;
                    }
                }
                Span s = inner == null ? new Span(t, State.RUNNING, a, b, 0, null)
                        : new Span(t, inner == deadlockInterval ? State.DEADLOCKED : state(inner.kind()), a, b,
                        inner.monitor(), inner);
                Span last = out.isEmpty() ? null : out.get(out.size() - 1);
                if (last != null && last.state() == s.state() && last.interval() == s.interval()) {
                    out.set(out.size() - 1, new Span(t, s.state(), last.startNs(), b, s.monitor(), s.interval()));
                } else {
                    out.add(s);
                }
            }
            prev = b;
        }
        if (out.isEmpty()) {
            out.add(new Span(t, State.RUNNING, begin, lifeEnd, 0, null));
        }
        if (t.isEnded() && t.endNs() != 0) {
            out.add(new Span(t, State.DEAD, lifeEnd, Math.max(lifeEnd, snapshot), 0, null));
        }
        return out;
    }

    private static long clamp(long v, long lo, long hi) {
        return Math.max(lo, Math.min(hi, v));
    }

    private static State state(Interval.Kind k) {
        return switch (k) {
            case BLOCKED -> State.BLOCKED;
            case WAITING -> State.WAITING;
            case SLEEPING -> State.SLEEPING;
            case JOINING -> State.JOINING;
            case GC -> State.RUNNING;
        };
    }

    /** Threads with at least one span in a state, for convenience. */
    public Set<RecordedThread> threadsIn(State s) {
        Set<RecordedThread> out = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Map.Entry<RecordedThread, List<Span>> e : spans.entrySet()) {
            if (e.getValue().stream().anyMatch(x -> x.state() == s)) {
                out.add(e.getKey());
            }
        }
        return out;
    }
}
