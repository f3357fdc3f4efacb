package dev.convoy.testing;

import static dev.convoy.snapshot.SnapshotFormat.*;

import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.model.Event;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks the owners the analysis gives against what was recorded, for tests on hand-built and
 * real recordings: every owner at a MONITOR_ENTER ({@link MonitorOwnership#owner}, the owner
 * every format writes) and every releaser of a monitor handoff ({@link MonitorOwnership#handoffs},
 * the handoff arrows, "who kept them waiting" and the critical path) must be a thread that could
 * hold the monitor at that moment. Impossible are:
 * <ul>
 * <li>{@link Reason#SELF}: the entering thread itself;</li>
 * <li>{@link Reason#ENDED}: a thread that had ended (its THREAD_END before the enter in the order
 *     of {@link Recording#events()}, or its ring's end earlier; for a releaser: its end before
 *     the release time);</li>
 * <li>{@link Reason#NOT_STARTED}: a thread that had not started (a ring not met late whose start
 *     is later);</li>
 * <li>{@link Reason#BLOCKED_ON_MONITOR}, {@link Reason#WAITING_ON_MONITOR}: a thread blocked on,
 *     or waiting on, that very monitor at that moment: from its MONITOR_ENTER (MONITOR_WAIT) on
 *     it to its next MONITOR_ENTERED or MONITOR_ENTER (MONITOR_WAITED or MONITOR_WAIT), whatever
 *     their monitor, or its THREAD_END, or where a loss of its records begins (its state in the
 *     loss is unknown, {@code RecordedThread.losses()}), else its ring's end or forever; parks do
 *     not count. At an
 *     enter "at that moment" is strictly between in event order; at a release, strictly
 *     between in time.</li>
 * </ul>
 * This class states the definitions again and computes them on its own (one pass over the
 * records), so that it checks the analysis rather than repeating it.
 *
 * <p>Exact owners are checked too and reported with {@link Impossible#exact()} true: the VM
 * recorded them, so such a case is a timing artefact or a recorder bug, not an inference
 * error. The owner read happens inside the contended enter, while the owner's own
 * MONITOR_ENTERED or MONITOR_WAITED is written by its callback a little after it acquired
 * the monitor: an exact owner may show as still blocked or waiting by up to that callback's
 * latency ({@link Impossible#overlapNs()}). Exact releasers (the MONITOR_ENTERED's
 * FLAG_RELEASER: the VM recorded who left the monitor last) are reported with
 * {@link Impossible#exact()} true as well, but their release time is the analysis's, which it
 * draws so that the releaser could hold the monitor until then: an impossible exact releaser is
 * an analysis error like an impossible inferred one. {@link Result#inferred()} lists what the
 * analysis answers for (inferred owners, every releaser), {@link Result#exact()} the owners the
 * VM recorded.
 *
 * <pre>
 * OwnerConsistency.Result c = OwnerConsistency.check(recording);
 * assertEquals(List.of(), c.inferred(), c::toString);
 * </pre>
 */
public final class OwnerConsistency {
    private OwnerConsistency() {
    }

    /** Why an owner is impossible. */
    public enum Reason { SELF, ENDED, NOT_STARTED, BLOCKED_ON_MONITOR, WAITING_ON_MONITOR }

    /** What was checked: the owner at a MONITOR_ENTER, or the releaser of a monitor handoff. */
    public enum Role { OWNER_AT_ENTER, HANDOFF_RELEASER }

    /**
     * One impossible owner.
     *
     * @param role       owner at an enter, or releaser of a handoff
     * @param thread     the entering (blocked) thread
     * @param record     the record index of its MONITOR_ENTER (of the blocked interval's enter for a handoff)
     * @param monitor    the monitor object id
     * @param ns         the moment checked: the enter, or the release time of the handoff
     * @param owner      the impossible owner (or releaser)
     * @param exact      whether the VM recorded it (FLAG_OWNER at an enter, FLAG_RELEASER at a
     *                   handoff) rather than the analysis inferring it
     * @param source     where the owner at an enter comes from; null for a releaser
     * @param reason     why it is impossible
     * @param conflictNs the recorded time that contradicts it: the owner's end or start, the
     *                   start of its blocked or waiting state; {@code ns} for {@link Reason#SELF}
     * @param overlapNs  by how long the records contradict it: from {@code conflictNs} to
     *                   {@code ns} for an end; for a blocked or waiting state, from {@code ns}
     *                   to that state's end (Long.MAX_VALUE when it never ended); for a start,
     *                   from {@code ns} to the start
     */
    public record Impossible(Role role, RecordedThread thread, int record, long monitor, long ns, RecordedThread owner,
                             boolean exact, MonitorOwnership.Source source, Reason reason, long conflictNs,
                             long overlapNs) {
        @Override
        public String toString() {
            String what = role == Role.OWNER_AT_ENTER ? "owner at the MONITOR_ENTER" : "releaser of the handoff";
            String why = switch (reason) {
                case SELF -> "is the entering thread itself";
                case ENDED -> "had ended at " + conflictNs + " ns";
                case NOT_STARTED -> "had not started (starts at " + conflictNs + " ns)";
                case BLOCKED_ON_MONITOR -> "was blocked on that monitor since " + conflictNs + " ns"
                        + (overlapNs == Long.MAX_VALUE ? " (never acquired)" : " (for " + overlapNs + " ns more)");
                case WAITING_ON_MONITOR -> "was waiting on that monitor since " + conflictNs + " ns"
                        + (overlapNs == Long.MAX_VALUE ? " (never woke)" : " (for " + overlapNs + " ns more)");
            };
            return what + " of " + thread.label() + " (ring " + thread.ringId() + ", record " + record + ") on monitor "
                    + monitor + " at " + ns + " ns: " + owner.label() + " (ring " + owner.ringId() + ", "
                    + (exact ? "exact" : "inferred") + (source != null ? ", " + source : "") + ") " + why;
        }
    }

    /**
     * What {@link #check} found.
     *
     * @param enters         MONITOR_ENTER records
     * @param exactOwners    of them, with an owner the VM recorded (FLAG_OWNER with a thread id)
     * @param noOwner        with FLAG_OWNER saying the monitor had no owner
     * @param inferredOwners with an owner the analysis inferred
     * @param unknownOwners  with no owner
     * @param withoutRing    with an owner no ring has (known by its Java id only: nothing to check it against)
     * @param handoffs       monitor handoffs checked
     * @param exactReleasers of them, with a releaser the VM recorded (FLAG_RELEASER)
     * @param impossible     the impossible owners (by ring, then record) and releasers (in handoff order)
     */
    public record Result(int enters, int exactOwners, int noOwner, int inferredOwners, int unknownOwners,
                         int withoutRing, int handoffs, int exactReleasers, List<Impossible> impossible) {
        /**
         * What the analysis answers for, the list to assert empty: the impossible owners it
         * inferred, and every impossible releaser of a monitor handoff, exact ones included (the
         * VM names an exact releaser, the analysis its release time).
         */
        public List<Impossible> inferred() {
            return impossible.stream().filter(i -> !i.exact() || i.role() == Role.HANDOFF_RELEASER).toList();
        }

        /** The impossible exact owners at enters (recorded by the VM). */
        public List<Impossible> exact() {
            return impossible.stream().filter(i -> i.exact() && i.role() == Role.OWNER_AT_ENTER).toList();
        }

        /** Counts, then the first 50 cases, one a line: for an assertion message. */
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder().append(enters).append(" enters (").append(exactOwners)
                    .append(" exact, ").append(noOwner).append(" exactly no owner, ").append(inferredOwners)
                    .append(" inferred, ").append(unknownOwners).append(" unknown, ").append(withoutRing)
                    .append(" owners without a ring), ").append(handoffs).append(" monitor handoffs (")
                    .append(exactReleasers).append(" exact releasers); ")
                    .append(impossible.size()).append(" impossible (").append(exact().size()).append(" exact)");
            impossible.stream().limit(50).forEach(i -> sb.append("\n  ").append(i));
            if (impossible.size() > 50) {
                sb.append("\n  ... ").append(impossible.size() - 50).append(" more");
            }
            return sb.toString();
        }
    }

    /** A blocked ({@code blocked}) or waiting state of a thread on a monitor, in event positions and times. */
    private record State(boolean blocked, long monitor, long fromPos, long toPos, long fromNs, long toNs) {
    }

    /** Checks the owners at every MONITOR_ENTER and the releaser of every monitor handoff of a recording. */
    public static Result check(Recording r) {
        List<RecordedThread> threads = r.threads();
        Map<RecordedThread, Integer> ring = new IdentityHashMap<>();
        for (int k = 0; k < threads.size(); k++) {
            ring.put(threads.get(k), k);
        }
        // the position of every record in event order; per ring its records in that order
        long[][] pos = new long[threads.size()][];
        int[][] order = new int[threads.size()][];
        int[] filled = new int[threads.size()];
        for (int k = 0; k < threads.size(); k++) {
            pos[k] = new long[threads.get(k).eventCount()];
            order[k] = new int[threads.get(k).eventCount()];
        }
        long p = 0;
        long[] tsAt = new long[16]; // the time of each position, for where a loss begins in event order
        Recording.Cursor c = r.cursor();
        while (c.next()) {
            if (p == tsAt.length) {
                tsAt = java.util.Arrays.copyOf(tsAt, 2 * tsAt.length);
            }
            tsAt[(int) p] = c.ts();
            pos[c.ring()][c.record()] = p++;
            order[c.ring()][filled[c.ring()]++] = c.record();
        }
        int positions = (int) p;
        // per ring: its first THREAD_END (position, time) and its blocked and waiting states
        long[] endPos = new long[threads.size()];
        long[] endTs = new long[threads.size()];
        List<List<State>> states = new ArrayList<>();
        for (int k = 0; k < threads.size(); k++) {
            RecordedThread t = threads.get(k);
            endPos[k] = Long.MAX_VALUE;
            endTs[k] = Long.MAX_VALUE;
            List<State> out = new ArrayList<>();
            long[] open = {0, 0}; // monitor blocked on, waiting on
            long[] fromPos = new long[2];
            long[] fromNs = new long[2];
            List<dev.convoy.model.Loss> losses = t.losses();
            int lost = 0;
            for (int i : order[k]) {
                int type = t.rawType(i);
                long at = pos[k][i];
                long ts = t.ts(i);
                while (lost < losses.size() && losses.get(lost).fromNs() < ts) {
                    long from = losses.get(lost++).fromNs();
                    endAtLoss(out, open, fromPos, fromNs, firstAfter(tsAt, positions, from), from);
                }
                int which = type == EVENT_MONITOR_ENTER || type == EVENT_MONITOR_ENTERED ? 0
                        : type == EVENT_MONITOR_WAIT || type == EVENT_MONITOR_WAITED ? 1 : -1;
                if (type == EVENT_THREAD_END) {
                    if (endPos[k] == Long.MAX_VALUE) {
                        endPos[k] = at;
                        endTs[k] = ts;
                    }
                    for (int w = 0; w < 2; w++) {
                        if (open[w] != 0) {
                            out.add(new State(w == 0, open[w], fromPos[w], at, fromNs[w], ts));
                            open[w] = 0;
                        }
                    }
                } else if (which >= 0) {
                    if (open[which] != 0) {
                        out.add(new State(which == 0, open[which], fromPos[which], at, fromNs[which], ts));
                        open[which] = 0;
                    }
                    if (type == EVENT_MONITOR_ENTER || type == EVENT_MONITOR_WAIT) {
                        open[which] = t.obj(i);
                        fromPos[which] = at;
                        fromNs[which] = ts;
                    }
                }
            }
            if (lost < losses.size()) {
                long from = losses.get(lost).fromNs();
                endAtLoss(out, open, fromPos, fromNs, firstAfter(tsAt, positions, from), from);
            }
            long until = t.endNs() != 0 ? t.endNs() : Long.MAX_VALUE;
            for (int w = 0; w < 2; w++) {
                if (open[w] != 0) {
                    out.add(new State(w == 0, open[w], fromPos[w], Long.MAX_VALUE, fromNs[w], Math.max(until, fromNs[w])));
                }
            }
            states.add(out);
        }

        MonitorOwnership mo = MonitorOwnership.of(r);
        List<Impossible> found = new ArrayList<>();
        int enters = 0, exact = 0, none = 0, inferred = 0, unknown = 0, unchecked = 0;
        for (int k = 0; k < threads.size(); k++) {
            RecordedThread t = threads.get(k);
            for (int i = 0; i < t.eventCount(); i++) {
                if (t.rawType(i) != EVENT_MONITOR_ENTER) {
                    continue;
                }
                enters++;
                Event e = t.event(i);
                MonitorOwnership.Owner o = mo.owner(e).orElse(null);
                if (o == null) {
                    unknown++;
                    continue;
                }
                if (o.none()) {
                    none++;
                    continue;
                }
                if (o.exact()) {
                    exact++;
                } else {
                    inferred++;
                }
                if (o.thread() == null) {
                    unchecked++;
                    continue;
                }
                int u = ring.get(o.thread());
                RecordedThread owner = o.thread();
                long ts = t.ts(i);
                long at = pos[k][i];
                Impossible bad = null;
                if (u == k) {
                    bad = impossible(Role.OWNER_AT_ENTER, t, i, e.obj(), ts, owner, o, Reason.SELF, ts, 0);
                } else if (endPos[u] < at || owner.endNs() != 0 && owner.endNs() < ts) {
                    long end = endPos[u] < at ? endTs[u] : owner.endNs();
                    bad = impossible(Role.OWNER_AT_ENTER, t, i, e.obj(), ts, owner, o, Reason.ENDED, end, ts - end);
                } else if (!owner.isLate() && owner.startNs() > ts) {
                    bad = impossible(Role.OWNER_AT_ENTER, t, i, e.obj(), ts, owner, o, Reason.NOT_STARTED,
                            owner.startNs(), owner.startNs() - ts);
                } else {
                    for (State s : states.get(u)) {
                        if (s.monitor() == e.obj() && s.fromPos() < at && at < s.toPos()) {
                            bad = impossible(Role.OWNER_AT_ENTER, t, i, e.obj(), ts, owner, o,
                                    s.blocked() ? Reason.BLOCKED_ON_MONITOR : Reason.WAITING_ON_MONITOR, s.fromNs(),
                                    s.toPos() == Long.MAX_VALUE ? Long.MAX_VALUE : s.toNs() - ts);
                            break;
                        }
                    }
                }
                if (bad != null) {
                    found.add(bad);
                }
            }
        }
        int handoffs = 0, exactReleasers = 0;
        for (MonitorOwnership.Handoff h : mo.handoffs()) {
            if (h.blocked().isPark()) {
                continue; // the recorded UNPARK of a lock park
            }
            handoffs++;
            boolean x = h.exact();
            if (x) {
                exactReleasers++;
            }
            int u = ring.get(h.from());
            RecordedThread t = h.to();
            RecordedThread from = h.from();
            long a = h.releaseNs();
            int record = h.blocked().begin() == null ? -1 : h.blocked().begin().index();
            long end = Math.min(endTs[u], from.endNs() == 0 ? Long.MAX_VALUE : from.endNs());
            Impossible bad = null;
            if (from == t) {
                bad = new Impossible(Role.HANDOFF_RELEASER, t, record, h.monitor(), a, from, x, null, Reason.SELF, a, 0);
            } else if (end < a) {
                bad = new Impossible(Role.HANDOFF_RELEASER, t, record, h.monitor(), a, from, x, null, Reason.ENDED,
                        end, a - end);
            } else {
                for (State s : states.get(u)) {
                    if (s.monitor() == h.monitor() && s.fromNs() < a && a < s.toNs()) {
                        bad = new Impossible(Role.HANDOFF_RELEASER, t, record, h.monitor(), a, from, x, null,
                                s.blocked() ? Reason.BLOCKED_ON_MONITOR : Reason.WAITING_ON_MONITOR, s.fromNs(),
                                s.toNs() == Long.MAX_VALUE ? Long.MAX_VALUE : s.toNs() - a);
                        break;
                    }
                }
            }
            if (bad != null) {
                found.add(bad);
            }
        }
        return new Result(enters, exact, none, inferred, unknown, unchecked, handoffs, exactReleasers,
                List.copyOf(found));
    }

    /** Ends the open blocked and waiting states where a loss begins: at event position {@code at}, time {@code from}. */
    private static void endAtLoss(List<State> out, long[] open, long[] fromPos, long[] fromNs, long at, long from) {
        for (int w = 0; w < 2; w++) {
            if (open[w] != 0) {
                out.add(new State(w == 0, open[w], fromPos[w], Math.max(at, fromPos[w] + 1), fromNs[w],
                        Math.max(from, fromNs[w])));
                open[w] = 0;
            }
        }
    }

    /** The first event position whose time is after {@code ns} ({@code positions} if none). */
    private static long firstAfter(long[] tsAt, int positions, long ns) {
        int lo = 0;
        int hi = positions;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (tsAt[mid] <= ns) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static Impossible impossible(Role role, RecordedThread t, int record, long monitor, long ns,
                                         RecordedThread owner, MonitorOwnership.Owner o, Reason reason, long conflictNs,
                                         long overlapNs) {
        return new Impossible(role, t, record, monitor, ns, owner, o.exact(), o.source(), reason, conflictNs, overlapNs);
    }
}
