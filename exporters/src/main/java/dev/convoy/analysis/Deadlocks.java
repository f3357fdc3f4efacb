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
 * Monitor deadlocks at snapshot time: cycles in the waits-for graph in which each thread is
 * blocked entering a monitor owned by the next (SECTION_MONITORS).
 */
public final class Deadlocks {

    /**
     * One cycle: {@code threads.get(i)} is blocked on {@code monitors.get(i)}, owned by
     * {@code threads.get(i + 1)} (wrapping around). Starts at the thread with the lowest
     * ring id, so the same cycle is always reported the same way.
     */
    public record Deadlock(List<RecordedThread> threads, List<MonitorState> waits) {

        /** e.g. "deadlock-A blocked on pkg.LockB#12 owned by deadlock-B; ...". */
        public String describe(Recording r) {
            List<String> parts = new ArrayList<>();
            for (int i = 0; i < threads.size(); i++) {
                MonitorState w = waits.get(i);
                String monitor = w.object() != 0 ? r.objectClassName(w.object()) + "#" + w.object()
                        : String.format("monitor@%08x", w.identityHash());
                parts.add(threads.get(i).label() + " blocked on " + monitor + " owned by "
                        + threads.get((i + 1) % threads.size()).label());
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
     * entries of threads the recording does not have are ignored.
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
            if (m.state() == SnapshotFormat.MSTATE_BLOCKED && m.ownerThreadId() >= 0 && liveRings.contains(m.ringId())) {
                blockedByRing.put(m.ringId(), m);
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
     * Marks, for each thread of each cycle, its open BLOCKED interval on the cycle's monitor
     * (the last one, from its last MONITOR_ENTER) as {@link IntervalTable#isDeadlocked}: its
     * thread state is DEADLOCKED instead of BLOCKED.
     */
    static void mark(Recording r, ContentionIndex x) {
        for (Deadlock d : find(r)) {
            for (int i = 0; i < d.threads().size(); i++) {
                IntervalTable g = x.intervals(x.ring(d.threads().get(i)));
                MonitorState w = d.waits().get(i);
                int last = -1;
                for (int j = 0; j < g.count(); j++) {
                    if (g.kind(j) == IntervalTable.BLOCKED && g.isOpen(j) && g.endNs(j) > g.startNs(j)
                            && (w.object() == 0 || g.monitor(j) == w.object())) {
                        last = j;
                    }
                }
                if (last >= 0) {
                    g.mark(last, IntervalTable.DEADLOCKED);
                }
            }
        }
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
