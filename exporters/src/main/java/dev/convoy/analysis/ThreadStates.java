package dev.convoy.analysis;

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

/**
 * The state sequence of every Java thread (the TPTP model's TRCThread*Event sequence: a
 * state lasts until the next one), a view of the {@link SpanTable}s of a {@link ContentionIndex}. Per
 * thread the spans cover, without gap or overlap, the time from its start
 * ({@link RecordedThread#startNs()}, or its first record if earlier) to its end, then one
 * DEAD span from its end to the snapshot:
 * <ul>
 * <li>BLOCKED, WAITING, SLEEPING, JOINING: its {@link Intervals} of those kinds (the
 *     waits of a join are the join's); where intervals nest (a contended enter of the
 *     join's monitor inside a JOINING) the innermost one gives the state;</li>
 * <li>DEADLOCKED: instead of BLOCKED for a thread of a {@link Deadlocks#find} cycle, from
 *     its last MONITOR_ENTER on the cycle's monitor (its open BLOCKED interval) to the
 *     snapshot;</li>
 * <li>UNKNOWN: the time of each loss of its records ({@link RecordedThread#losses()}), clipped
 *     to its life: what it did then is not known (no interval crosses a loss);</li>
 * <li>RUNNING: the rest;</li>
 * <li>DEAD: from the end of a thread that ended to the snapshot (possibly empty).</li>
 * </ul>
 * The spans begin at the thread's start, its first record or the start of its first loss,
 * whichever is first. Empty intervals are left out. Immutable.
 */
public final class ThreadStates {

    /** Thread states of the TPTP model. */
    public enum State {
        RUNNING, BLOCKED, WAITING, SLEEPING, JOINING, DEADLOCKED, DEAD,
        /** Not a thread state: on the critical path, from a Thread.start call to the started thread's start. */
        STARTING,
        /** Records of the thread were lost ({@link RecordedThread#losses()}): its state then is not known. */
        UNKNOWN
    }

    /**
     * One state of one thread.
     *
     * @param monitor  the monitor (BLOCKED, WAITING, DEADLOCKED), the joined Thread object
     *                 (JOINING), else 0
     * @param interval the interval giving the state (the whole interval, which may be
     *                 longer than this span when another interval nests in it); null for
     *                 RUNNING, UNKNOWN and DEAD
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
        return of(ContentionIndex.of(r));
    }

    /** The state sequences of an index's Java threads as objects. */
    public static ThreadStates of(ContentionIndex x) {
        Map<RecordedThread, List<Span>> out = new LinkedHashMap<>();
        for (int k = 0; k < x.rings(); k++) {
            RecordedThread t = x.thread(k);
            if (t.isSystem()) {
                continue;
            }
            IntervalTable g = x.table(k);
            SpanTable st = x.spanTable(k);
            List<Interval> intervals = Intervals.of(g);
            List<Span> spans = new ArrayList<>();
            for (int s = 0; s < st.count(); s++) {
                int iv = st.interval(s);
                spans.add(new Span(t, st.state(s), st.startNs(s), st.endNs(s),
                        iv < 0 ? 0 : g.monitor(iv), iv < 0 ? null : intervals.get(iv)));
            }
            out.put(t, List.copyOf(spans));
        }
        return new ThreadStates(out);
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
