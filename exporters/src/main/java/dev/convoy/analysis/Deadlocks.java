package dev.convoy.analysis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;

/**
 * Deadlocks at snapshot time: cycles in the waits-for graph in which each thread waits for a
 * lock owned by the next: blocked entering a monitor (MSTATE_BLOCKED in SECTION_MONITORS, the
 * owner reported by the JVM at the snapshot), or parked acquiring a {@code java.util.concurrent}
 * lock (MSTATE_PARKED with an exclusive owner, when the thread's newest PARK record is a lock
 * acquisition, FLAG_LOCK, on that blocker). A cycle may mix both. A thread SECTION_MONITORS gives
 * no such edge has one from the exact owner recorded at its blocked enter
 * ({@link #exactEnterEdge}) when that owner provably still holds the monitor. Every owner edge
 * is exact: no inferred owner makes a deadlock.
 */
public final class Deadlocks {

    /**
     * One cycle: {@code threads.get(i)} is blocked on {@code waits.get(i)} (a monitor, or a
     * lock it is parked on when {@link #parked}), owned by {@code threads.get(i + 1)} (wrapping
     * around). Starts at the thread with the lowest ring id, so the same cycle is always
     * reported the same way.
     */
    public record Deadlock(List<RecordedThread> threads, List<MonitorState> waits) {

        /** Whether thread {@code i} is parked acquiring a lock (MSTATE_PARKED) rather than blocked on a monitor. */
        public boolean parked(int i) {
            return waits.get(i).state() == SnapshotFormat.MSTATE_PARKED;
        }

        /**
         * e.g. "deadlock-A blocked on pkg.LockB#12 owned by deadlock-B; ..."; a parked thread
         * "parked on java.util.concurrent.locks.ReentrantLock#14 owned by ...".
         */
        public String describe(Recording r) {
            List<String> parts = new ArrayList<>();
            for (int i = 0; i < threads.size(); i++) {
                MonitorState w = waits.get(i);
                boolean parked = parked(i);
                String monitor = w.object() != 0 ? Blockers.className(r, w.object(), parked) + "#" + w.object()
                        : String.format(parked ? "lock@%08x" : "monitor@%08x", w.identityHash());
                parts.add(threads.get(i).label() + (parked ? " parked on " : " blocked on ") + monitor
                        + " owned by " + threads.get((i + 1) % threads.size()).label());
            }
            return String.join("; ", parts);
        }
    }

    private Deadlocks() {
    }

    /**
     * The cycles of the waits-for graph at snapshot time. A cycle is reported only when the
     * walk from a blocked thread through the owners of the monitors returns to a thread it
     * already passed: an owner that has no ring in the recording (a thread the recorder did
     * not record, or whose ring it could not keep) ends the walk with no deadlock. Monitor
     * entries of threads the recording does not have are ignored. A parked thread is an edge
     * only when it parked to acquire a lock ({@link #parkedOnLock}): a thread parked on a
     * condition or a queue waits for no owner.
     */
    public static List<Deadlock> find(Recording r) {
        Map<Long, RecordedThread> liveByJavaId = new HashMap<>();
        Set<Long> liveRings = new HashSet<>();
        for (RecordedThread t : r.javaThreads()) {
            if (!t.isEnded()) {
                liveByJavaId.put(t.javaThreadId(), t);
                liveRings.add(t.ringId());
            }
        }
        Map<Long, MonitorState> blockedByRing = new HashMap<>();
        for (MonitorState m : r.monitors()) {
            if (m.ownerThreadId() < 0 || !liveRings.contains(m.ringId())) {
                continue;
            }
            if (m.state() == SnapshotFormat.MSTATE_BLOCKED
                    || m.state() == SnapshotFormat.MSTATE_PARKED && parkedOnLock(r, m)) {
                blockedByRing.put(m.ringId(), m);
            }
        }
        for (RecordedThread t : r.javaThreads()) {
            if (!t.isEnded() && !blockedByRing.containsKey(t.ringId())) {
                MonitorState edge = exactEnterEdge(r, t, liveByJavaId);
                if (edge != null) {
                    blockedByRing.put(t.ringId(), edge);
                }
            }
        }
        List<Deadlock> out = new ArrayList<>();
        Set<Long> done = new HashSet<>();
        List<Long> rings = new ArrayList<>(blockedByRing.keySet());
        rings.sort(null);
        for (long start : rings) {
            LinkedHashSet<Long> path = new LinkedHashSet<>();
            Long closing = null;
            long cur = start;
            while (!done.contains(cur)) {
                if (!path.add(cur)) {
                    closing = cur; // back on the path through an owner edge: a cycle
                    break;
                }
                MonitorState m = blockedByRing.get(cur);
                RecordedThread owner = m == null ? null : liveByJavaId.get(m.ownerThreadId());
                if (owner == null) {
                    break; // not blocked, or its owner has no ring: no deadlock through here
                }
                cur = owner.ringId();
            }
            done.addAll(path);
            if (closing != null) {
                List<Long> all = new ArrayList<>(path);
                out.add(cycleFrom(r, all.subList(all.indexOf(closing), all.size()), blockedByRing));
            }
        }
        return out;
    }

    /**
     * The owner edge of a live thread from the exact owner recorded at its blocked enter: its
     * newest record is a MONITOR_ENTER with FLAG_OWNER naming a live thread O (arg2 &gt; 0), and O
     * has been blocked since before that enter (O's newest record is a MONITOR_ENTER, or a PARK
     * with FLAG_LOCK, older than it). O owned the monitor at the enter and, blocked since, has
     * released nothing: it owns it at the snapshot. As a SECTION_MONITORS entry (MSTATE_BLOCKED);
     * null when there is no such edge. (Of two threads blocked on each other, the one that
     * blocked later has such an edge, the other not: the owner it names ran after the enter and
     * may have let go, so a cycle needs at least one edge reported by the JVM at the snapshot.)
     * None when records of either thread were lost after its newest record (a loss to the
     * snapshot): its newest record kept may not be its newest.
     */
    static MonitorState exactEnterEdge(Recording r, RecordedThread t, Map<Long, RecordedThread> liveByJavaId) {
        int n = newest(t) + 1;
        if (n == 0 || t.rawType(n - 1) != SnapshotFormat.EVENT_MONITOR_ENTER
                || (t.flags(n - 1) & SnapshotFormat.FLAG_OWNER) == 0 || t.arg2(n - 1) <= 0) {
            return null;
        }
        RecordedThread o = liveByJavaId.get(t.arg2(n - 1));
        if (o == null || o == t || o.eventCount() == 0) {
            return null;
        }
        int last = newest(o);
        if (last < 0) {
            return null;
        }
        int type = o.rawType(last);
        boolean blocked = type == SnapshotFormat.EVENT_MONITOR_ENTER
                || type == SnapshotFormat.EVENT_PARK && (o.flags(last) & SnapshotFormat.FLAG_LOCK) != 0;
        if (!blocked || o.ts(last) >= t.ts(n - 1)) {
            return null;
        }
        long snapshot = r.snapshotMonotonicNs();
        if (lostAfter(t, t.ts(n - 1), snapshot) || lostAfter(o, o.ts(last), snapshot)) {
            return null; // records lost after the newest one: it may not be the newest, the thread may have gone on
        }
        long monitor = t.obj(n - 1);
        return new MonitorState(t.ringId(), SnapshotFormat.MSTATE_BLOCKED, monitor, r.identityHash(monitor),
                o.javaThreadId());
    }

    /**
     * The index of a thread's newest record of its own, -1 if none: the recorder's OWNER_SAMPLE
     * records, which follow a block's begin, are not the thread's doing.
     */
    static int newest(RecordedThread t) {
        int i = t.eventCount() - 1;
        while (i >= 0 && t.rawType(i) == SnapshotFormat.EVENT_OWNER_SAMPLE) {
            i--;
        }
        return i;
    }

    /** Whether a loss of {@code t}'s records overlaps the time from {@code a} to {@code b}. */
    private static boolean lostAfter(RecordedThread t, long a, long b) {
        for (dev.convoy.model.Loss l : t.losses()) {
            if (l.overlaps(a, b)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a MSTATE_PARKED entry is a lock acquisition: the thread's newest PARK record has
     * FLAG_LOCK and names the entry's blocker (when the snapshot tied it to an object; when it
     * did not, the thread's records after that PARK must not be lost: its newest park may be lost).
     */
    static boolean parkedOnLock(Recording r, MonitorState m) {
        RecordedThread t = r.threadByRingId(m.ringId()).orElse(null);
        if (t == null) {
            return false;
        }
        for (int i = t.eventCount() - 1; i >= 0; i--) {
            if (t.rawType(i) == SnapshotFormat.EVENT_PARK) {
                if (m.object() == 0 && lostAfter(t, t.ts(i), r.snapshotMonotonicNs())) {
                    return false;
                }
                return (t.flags(i) & SnapshotFormat.FLAG_LOCK) != 0 && (m.object() == 0 || t.obj(i) == m.object());
            }
        }
        return false;
    }

    /**
     * Marks, for each thread of each cycle, its open BLOCKED interval on the cycle's monitor
     * (the last one, from its last MONITOR_ENTER, or PARK for a parked thread) as
     * deadlocked: its thread state is DEADLOCKED instead of BLOCKED. Per ring, the intervals
     * marked (null for a ring with none).
     */
    static java.util.BitSet[] mark(Recording r, Rings x) {
        java.util.BitSet[] marks = new java.util.BitSet[x.rings()];
        for (Deadlock d : find(r)) {
            for (int i = 0; i < d.threads().size(); i++) {
                int ring = x.ring(d.threads().get(i));
                IntervalTable g = x.table(ring);
                MonitorState w = d.waits().get(i);
                boolean parked = d.parked(i);
                int last = -1;
                for (int j = 0; j < g.count(); j++) {
                    if (g.kind[j] == IntervalTable.BLOCKED && g.isPark(j) == parked && g.isOpen(j) && g.endNs(j) > g.startNs(j)
                            && (w.object() == 0 || g.monitor(j) == w.object())) {
                        last = j;
                    }
                }
                if (last >= 0) {
                    if (marks[ring] == null) {
                        marks[ring] = new java.util.BitSet();
                    }
                    marks[ring].set(last);
                }
            }
        }
        return marks;
    }

    private static Deadlock cycleFrom(Recording r, List<Long> cycle, Map<Long, MonitorState> blocked) {
        int first = cycle.indexOf(cycle.stream().min(Long::compare).orElseThrow());
        List<RecordedThread> threads = new ArrayList<>();
        List<MonitorState> waits = new ArrayList<>();
        for (int i = 0; i < cycle.size(); i++) {
            long ring = cycle.get((first + i) % cycle.size());
            Optional<RecordedThread> t = r.threadByRingId(ring);
            threads.add(t.orElseThrow());
            waits.add(blocked.get(ring));
        }
        return new Deadlock(List.copyOf(threads), List.copyOf(waits));
    }
}
