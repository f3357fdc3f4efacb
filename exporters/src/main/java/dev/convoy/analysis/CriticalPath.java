package dev.convoy.analysis;

import dev.convoy.analysis.Interactions.Interaction;
import dev.convoy.analysis.ThreadStates.Span;
import dev.convoy.analysis.ThreadStates.State;
import dev.convoy.model.Event;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The critical path: the chain of dependent activity across threads that ends at the end
 * of the recording's work, found by walking back in time from that end through
 * {@link ThreadStates} and {@link Interactions}:
 * <ul>
 * <li>while the current thread was RUNNING, the path stays on it;</li>
 * <li>when it was BLOCKED, WAITING, JOINING or SLEEPING, and the interval of that state
 *     was ended by an interaction from another thread that acted during the state (HANDOFF:
 *     the previous owner at its release; NOTIFY/NOTIFY_ALL: the notifier at the call;
 *     INTERRUPT: the interrupter; JOIN_END: the ended thread at its end), the path keeps
 *     the part of the state after that act (the wake-up latency) and jumps to the acting
 *     thread at that moment; otherwise (timeout, sleep, unknown release, deadlock) it
 *     stays on the thread for the whole state;</li>
 * <li>at the start of a thread it jumps to its starter at the START_CALL (the time between
 *     is a STARTING segment of the started thread); a thread without a known starter ends
 *     the walk, as does the recording start.</li>
 * </ul>
 * The end ({@link #of(Recording)}): the Java thread that ended last, at its end; when no
 * thread ended, the Java thread with the latest record, at the snapshot time. The segments
 * are contiguous, so {@link #lengthNs()} = {@code endNs - startNs} = the sum of their
 * durations.
 */
public final class CriticalPath {

    /**
     * One piece of the path.
     *
     * @param thread   the thread the path is on
     * @param state    RUNNING, BLOCKED, WAITING, SLEEPING, JOINING, DEADLOCKED, or STARTING
     *                 (between a Thread.start call and the thread's start)
     * @param monitor  the monitor (BLOCKED, WAITING, DEADLOCKED), the joined Thread
     *                 (JOINING), else 0
     * @param interval the thread's whole interval of that state; null for RUNNING and
     *                 STARTING
     * @param via      the interaction the walk followed back from this segment (the path
     *                 came to this thread from {@code via.from()} at {@code startNs}); null
     *                 when the previous segment is on the same thread
     */
    public record Segment(RecordedThread thread, State state, long startNs, long endNs, long monitor,
                          Interval interval, Interaction via) {
        /** {@code endNs - startNs}. */
        public long durationNs() {
            return endNs - startNs;
        }

        @Override
        public String toString() {
            return thread.name() + " " + state + " [" + startNs + ", " + endNs + "]"
                    + (monitor != 0 ? " obj=" + monitor : "") + (via != null ? " via " + via.kind() : "");
        }
    }

    private final List<Segment> segments;
    private final RecordedThread endThread;
    private final long startNs;
    private final long endNs;

    private CriticalPath(List<Segment> segments, RecordedThread endThread, long startNs, long endNs) {
        this.segments = List.copyOf(segments);
        this.endThread = endThread;
        this.startNs = startNs;
        this.endNs = endNs;
    }

    /** The path of a recording, ending at the default end (see the class comment). */
    public static CriticalPath of(Recording r) {
        Interactions in = Interactions.of(r);
        return of(r, ThreadStates.of(r), in);
    }

    /** The path from already computed states and interactions of the recording. */
    public static CriticalPath of(Recording r, ThreadStates states, Interactions interactions) {
        RecordedThread end = null;
        long endNs = Long.MIN_VALUE;
        long mainEnd = r.javaThreads().stream().filter(t -> t.javaThreadId() == 1 && t.isEnded())
                .mapToLong(RecordedThread::endNs).findFirst().orElse(0);
        for (RecordedThread t : r.javaThreads()) {
            if (t.isEnded() && t.endNs() != 0 && t.endNs() > endNs && isApplicationWork(t, mainEnd)) {
                end = t;
                endNs = t.endNs();
            }
        }
        if (end == null) {
            long latest = Long.MIN_VALUE;
            for (RecordedThread t : r.javaThreads()) {
                for (Event e : t.events()) {
                    if (e.ts() > latest) {
                        latest = e.ts();
                        end = t;
                    }
                }
            }
            endNs = r.snapshotMonotonicNs();
        }
        if (end == null) {
            return new CriticalPath(List.of(), null, endNs, endNs);
        }
        return of(r, states, interactions, end, endNs);
    }

    /**
     * Whether a thread's end can end the recording's work: not one of the JVM's own threads
     * (groups {@code system} and {@code InnocuousThreadGroup}), and not a thread started
     * after the main thread ended (shutdown hooks, the JVM's DestroyJavaVM thread), whose
     * ends would otherwise always be the last and make the path a few microseconds of exit.
     */
    static boolean isApplicationWork(RecordedThread t, long mainEnd) {
        if ("system".equals(t.group()) || "InnocuousThreadGroup".equals(t.group())) {
            return false;
        }
        return mainEnd == 0 || t.javaThreadId() == 1 || t.startNs() <= mainEnd;
    }

    /** The path ending on {@code endThread} at {@code endNs}. */
    public static CriticalPath of(Recording r, ThreadStates states, Interactions interactions,
                                  RecordedThread endThread, long endNs) {
        long floor = r.startMonotonicNs();
        List<Segment> back = new ArrayList<>();
        Set<String> visited = new HashSet<>();
        RecordedThread cur = endThread;
        long t = endNs;
        int guard = 0;
        int limit = 16;
        for (List<Span> l : states.all().values()) {
            limit += 2 * l.size() + 2;
        }
        while (t > floor && guard++ < limit) {
            Span sp = spanBefore(states.of(cur), t);
            if (sp == null) {
                Optional<Interaction> start = interactions.startOf(cur);
                if (start.isPresent() && start.get().fromNs() <= t
                        && visited.add(start.get().from().ringId() + "@" + start.get().fromNs())) {
                    Interaction st = start.get();
                    back.add(new Segment(cur, State.STARTING, st.fromNs(), t, 0, null, st));
                    cur = st.from();
                    t = st.fromNs();
                    continue;
                }
                break;
            }
            if (sp.state() == State.RUNNING || sp.state() == State.DEAD) {
                back.add(new Segment(cur, State.RUNNING, sp.startNs(), t, 0, null, null));
                t = sp.startNs();
                continue;
            }
            Interval in = sp.interval();
            Interaction via = in != null && sp.endNs() == in.endNs() ? interactions.endedBy(in).orElse(null) : null;
            if (via != null && via.from() != cur && sp.startNs() <= via.fromNs() && via.fromNs() <= t
                    && visited.add(via.from().ringId() + "@" + via.fromNs())) {
                back.add(new Segment(cur, sp.state(), via.fromNs(), t, sp.monitor(), in, via));
                cur = via.from();
                t = via.fromNs();
            } else {
                back.add(new Segment(cur, sp.state(), sp.startNs(), t, sp.monitor(), in, null));
                t = sp.startNs();
            }
        }
        List<Segment> fwd = new ArrayList<>();
        for (int i = back.size() - 1; i >= 0; i--) {
            Segment s = back.get(i);
            Segment last = fwd.isEmpty() ? null : fwd.get(fwd.size() - 1);
            if (last != null && s.state() == State.RUNNING && last.state() == State.RUNNING
                    && last.thread() == s.thread() && last.via() == null) {
                fwd.set(fwd.size() - 1, new Segment(s.thread(), State.RUNNING, last.startNs(), s.endNs(), 0, null, null));
            } else {
                fwd.add(s);
            }
        }
        return new CriticalPath(fwd, endThread, t, endNs);
    }

    /** The span with {@code startNs < t <= endNs}, null if t is at or before the first span's start. */
    private static Span spanBefore(List<Span> spans, long t) {
        for (int i = spans.size() - 1; i >= 0; i--) {
            Span s = spans.get(i);
            if (s.startNs() < t && t <= s.endNs()) {
                return s;
            }
        }
        return null;
    }

    /** The segments in time order, contiguous from {@link #startNs()} to {@link #endNs()}. */
    public List<Segment> segments() {
        return segments;
    }

    /** Where the path ends (null for a recording without Java threads). */
    public RecordedThread endThread() {
        return endThread;
    }

    /** Where the walk back stopped: a thread's start without a known starter, or the recording start. */
    public long startNs() {
        return startNs;
    }

    /** The end of the recording's work. */
    public long endNs() {
        return endNs;
    }

    /** {@code endNs - startNs}, which equals the sum of the segments' durations. */
    public long lengthNs() {
        return endNs - startNs;
    }

    /** The segments that were not RUNNING: blocked, waiting, joining, sleeping, starting. */
    public List<Segment> waits() {
        return segments.stream().filter(s -> s.state() != State.RUNNING).toList();
    }

    /** Time on the path per state (every state on it, in enum order). */
    public Map<State, Long> nsByState() {
        Map<State, Long> out = new EnumMap<>(State.class);
        for (Segment s : segments) {
            out.merge(s.state(), s.durationNs(), Long::sum);
        }
        return out;
    }

    /** Time on the path blocked (BLOCKED or DEADLOCKED) per monitor, in path order. */
    public Map<Long, Long> blockedNsByMonitor() {
        return byMonitor(State.BLOCKED, State.DEADLOCKED);
    }

    /** Time on the path waiting in Object.wait per monitor, in path order. */
    public Map<Long, Long> waitingNsByMonitor() {
        return byMonitor(State.WAITING, State.WAITING);
    }

    private Map<Long, Long> byMonitor(State a, State b) {
        Map<Long, Long> out = new LinkedHashMap<>();
        for (Segment s : segments) {
            if (s.state() == a || s.state() == b) {
                out.merge(s.monitor(), s.durationNs(), Long::sum);
            }
        }
        return Collections.unmodifiableMap(out);
    }

    /** The intervals the path passes through (a segment of it lies on the path), in path order. */
    public List<Interval> intervals() {
        List<Interval> out = new ArrayList<>();
        for (Segment s : segments) {
            if (s.interval() != null && !out.contains(s.interval())) {
                out.add(s.interval());
            }
        }
        return out;
    }

    /** True when a segment of this interval is on the path. */
    public boolean isOnPath(Interval in) {
        return segments.stream().anyMatch(s -> in.equals(s.interval()));
    }
}
