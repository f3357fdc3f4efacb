package dev.convoy.analysis;

import dev.convoy.analysis.Interactions.Interaction;
import dev.convoy.analysis.ThreadStates.State;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The critical path: the chain of dependent activity across threads that ends at the end
 * of the recording's work, found by walking back in time from that end through the thread
 * states and the interactions (a view of the {@link PathTable} of a {@link ContentionIndex}):
 * <ul>
 * <li>while the current thread was RUNNING, the path stays on it;</li>
 * <li>when it was BLOCKED, WAITING, JOINING or SLEEPING, and the interval of that state
 *     was ended by an interaction from another thread that acted during the state (HANDOFF:
 *     the releaser at its release; NOTIFY/NOTIFY_ALL: the notifier at the call;
 *     INTERRUPT: the interrupter; JOIN_END: the ended thread at its end), the path keeps
 *     the part of the state after that act (the wake-up latency) and jumps to the acting
 *     thread at that moment; otherwise (timeout, sleep, unknown release, deadlock) it
 *     stays on the thread for the whole state;</li>
 * <li>at the start of a thread it jumps to its starter at the START_CALL (the time between
 *     is a STARTING segment of the started thread); a thread without a known starter ends
 *     the walk, as does the recording start;</li>
 * <li>at a loss of the current thread's records (an UNKNOWN span) the walk stops: what it
 *     waited for before is not known ({@link #stoppedAtLoss()}).</li>
 * </ul>
 * The end: the Java thread that ended last, at its end (not a JVM thread of the groups
 * {@code system} or {@code InnocuousThreadGroup}, nor one started after the main thread
 * ended); when no thread ended, the Java thread with the latest record, at the snapshot
 * time. The segments are contiguous, so {@link #lengthNs()} = {@code endNs - startNs} = the
 * sum of their durations.
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
    private final RecordedThread lossThread;

    private CriticalPath(List<Segment> segments, RecordedThread endThread, long startNs, long endNs,
                         RecordedThread lossThread) {
        this.segments = List.copyOf(segments);
        this.endThread = endThread;
        this.startNs = startNs;
        this.endNs = endNs;
        this.lossThread = lossThread;
    }

    /** The path of a recording, ending at the default end (see the class comment). */
    public static CriticalPath of(Recording r) {
        return of(Interactions.of(r));
    }

    /**
     * The path of an index as objects: only the path's own intervals and interactions are
     * made (equal to those of {@link Interactions#of(ContentionIndex)}), not every one of the
     * recording.
     */
    public static CriticalPath of(ContentionIndex x) {
        Interactions.IntervalCache intervals = new Interactions.IntervalCache(x);
        return of(x, intervals, via -> Interactions.interaction(x, via, intervals));
    }

    /** The path of the index an interactions view was made of, its interactions as {@code via}. */
    public static CriticalPath of(Interactions interactions) {
        return of(interactions.index(), interactions.intervals(), interactions::interaction);
    }

    private static CriticalPath of(ContentionIndex x, Interactions.IntervalCache intervals,
                                   java.util.function.IntFunction<Interactions.Interaction> interaction) {
        PathTable p = x.pathTable();
        List<Segment> segments = new ArrayList<>();
        for (int s = 0; s < p.count(); s++) {
            int iv = p.interval(s);
            int via = p.via(s);
            segments.add(new Segment(p.thread(s), p.state(s), p.startNs(s), p.endNs(s),
                    p.monitor(s), iv < 0 ? null : intervals.get(p.ring(s), iv),
                    via < 0 ? null : interaction.apply(via)));
        }
        return new CriticalPath(segments, p.endThread(), p.pathStartNs(), p.pathEndNs(), p.lossThread());
    }

    /** The segments in time order, contiguous from {@link #startNs()} to {@link #endNs()}. */
    public List<Segment> segments() {
        return segments;
    }

    /** Where the path ends (null for a recording without Java threads). */
    public RecordedThread endThread() {
        return endThread;
    }

    /**
     * Where the walk back stopped: a thread's start without a known starter, the recording start,
     * or the end of a loss of records ({@link #stoppedAtLoss()}).
     */
    public long startNs() {
        return startNs;
    }

    /** Whether the walk stopped at a loss of the records of the thread it had reached: the path before is not known. */
    public boolean stoppedAtLoss() {
        return lossThread != null;
    }

    /** The thread whose lost records stopped the walk at {@link #startNs()}, null when it did not stop at a loss. */
    public RecordedThread lossThread() {
        return lossThread;
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
