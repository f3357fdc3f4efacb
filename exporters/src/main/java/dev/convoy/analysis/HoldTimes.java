package dev.convoy.analysis;

import dev.convoy.model.Loss;
import dev.convoy.model.RecordedThread;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Hold times per lock: how long a thread held a monitor, or an owned {@code java.util.concurrent}
 * lock, after a contended acquisition, counted only where the records prove both ends. JVMTI
 * records neither a release nor an uncontended acquisition, so most holds have no end in the
 * record; the ones that do are these.
 *
 * <p><b>Begin</b>: a contended acquisition by thread T at t1, the end of a closed BLOCKED interval
 * of T ({@link IntervalTable}): its MONITOR_ENTERED, or for a lock the end of its park (PARKED).
 *
 * <p><b>End</b>, the first of these facts about the same monitor or lock after t1 (by time; at one
 * time an enter or a park first, then a wait, then a cut interval, then an acquisition, then a
 * wait's end):
 * <ol>
 * <li>another thread U acquires it (its BLOCKED interval ends) and its releaser is T, exact: for
 *     a monitor the VM recorded T as the releaser (FLAG_RELEASER, JFR's {@code previousOwner}), for
 *     a lock T's UNPARK woke U's park. The hold ends at the release
 *     ({@link InteractionTable#fromNs} of that HANDOFF or UNPARK), never before t1;</li>
 * <li>T waits on the monitor ({@code Object.wait}: MONITOR_WAIT), which releases it: the hold
 *     ends at the wait's start.</li>
 * </ol>
 * <p><b>Not proven</b>, so not counted (each counted apart, {@link Row}): the acquisition by
 * another thread whose releaser is inferred, or not T ({@link Row#inferred}); a loss of T's
 * records ({@link RecordedThread#losses()}) overlapping {@code [t1, end]}: T's state then is
 * unknown, nothing is inferred across it ({@link Row#acrossLoss}); and holds with no proven end
 * ({@link Row#noEnd}): before any end, a fact that contradicts the hold or hides it: T itself
 * blocks or parks on it again (it let go unseen), another thread's enter or park records an
 * exact owner other than T (or none), another thread waits on it or comes back from a wait on
 * it, a BLOCKED or WAITING interval on it is cut by a loss, or the recording ends. A
 * lock's hold needs, besides, a proof that T got the lock after its park: a park of another
 * thread on the lock, before the end, naming T as the exclusive owner (T may otherwise have
 * failed to get it and kept spinning).
 *
 * <p>What the record cannot show: T letting go and taking the monitor again without contention
 * in between (neither is recorded); such a hold counts as one, from the contended acquisition
 * to the proven release. Only T's losses are checked: a lost record of another thread could
 * hide only such an exchange, or change the releaser that the VM recorded itself.
 */
public final class HoldTimes {

    /**
     * The proven holds of one monitor or lock and the contended acquisitions whose hold is not
     * counted, by reason.
     *
     * @param monitor      the monitor or lock object id
     * @param lock         a {@code java.util.concurrent} lock (a park's blocker), not a monitor
     * @param acquisitions contended acquisitions: proven holds plus the three kinds not counted
     * @param holdsNs      the proven holds' durations, ascending
     * @param inferred     holds ended by another thread's acquisition whose releaser is inferred
     *                     or not the holder
     * @param acrossLoss   holds with a proven end whose span overlaps a loss of the holder's records
     * @param noEnd        holds with no proven end
     */
    public record Row(long monitor, boolean lock, long acquisitions, long[] holdsNs, long inferred,
                      long acrossLoss, long noEnd) {
        /** Number of proven holds. */
        public int count() {
            return holdsNs.length;
        }

        /** The proven holds' total time, ns. */
        public long totalNs() {
            long n = 0;
            for (long h : holdsNs) {
                n += h;
            }
            return n;
        }

        /** The longest proven hold, ns; 0 without any. */
        public long maxNs() {
            return holdsNs.length == 0 ? 0 : holdsNs[holdsNs.length - 1];
        }

        /** The median proven hold (the lower of the middle two for an even count), ns; 0 without any. */
        public long medianNs() {
            return holdsNs.length == 0 ? 0 : holdsNs[(holdsNs.length - 1) / 2];
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Row w && w.monitor == monitor && w.lock == lock && w.acquisitions == acquisitions
                    && Arrays.equals(w.holdsNs, holdsNs) && w.inferred == inferred && w.acrossLoss == acrossLoss
                    && w.noEnd == noEnd;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(monitor) * 31 + Arrays.hashCode(holdsNs);
        }

        @Override
        public String toString() {
            return "Row[monitor=" + monitor + ", lock=" + lock + ", acquisitions=" + acquisitions + ", holdsNs="
                    + Arrays.toString(holdsNs) + ", inferred=" + inferred + ", acrossLoss=" + acrossLoss
                    + ", noEnd=" + noEnd + "]";
        }
    }

    // fact kinds, in their order at one time
    private static final int ENTER = 0;    // a thread blocks or parks on it (owner: the exact owner recorded)
    private static final int WAIT = 1;     // a thread waits on it (releases it)
    private static final int CUT = 2;      // an interval on it cut by a loss: what followed is unknown
    private static final int ACQUIRE = 3;  // a thread gets it after a block (releaser, release time)
    private static final int WAITED = 4;   // a thread comes back from a wait on it

    private static final long NONE = -1;    // owner: exactly none
    private static final long UNKNOWN = -2; // owner: not exact, or unknown

    /** One fact about a monitor: kind, ring, time; the owner or releaser ring; the release time. */
    private record Fact(int kind, int ring, long ns, long other, long releaseNs) {
    }

    private final List<Row> rows;

    private HoldTimes(List<Row> rows) {
        this.rows = List.copyOf(rows);
    }

    /** The hold times of an index's recording. */
    public static HoldTimes of(ContentionIndex x) {
        InteractionTable in = x.interactionTable();
        Map<Long, List<Fact>> monitors = new HashMap<>();
        Map<Long, List<Fact>> locks = new HashMap<>();
        for (int k = 0; k < x.rings(); k++) {
            IntervalTable g = x.table(k);
            if (g.thread().isSystem()) {
                continue;
            }
            for (int iv = 0; iv < g.count(); iv++) {
                int kind = g.kind(iv);
                long mon = g.monitor(iv);
                if (mon == 0 || kind != IntervalTable.BLOCKED && (kind != IntervalTable.WAITING || g.isPark(iv))) {
                    continue; // blocks, lock parks and Object.wait (a join's waits are JOINING)
                }
                List<Fact> facts = (g.isPark(iv) ? locks : monitors).computeIfAbsent(mon, m -> new ArrayList<>());
                boolean closed = !g.isOpen(iv) && !g.isCut(iv);
                if (kind == IntervalTable.WAITING) {
                    facts.add(new Fact(WAIT, k, g.startNs(iv), 0, 0));
                    facts.add(closed ? new Fact(WAITED, k, g.endNs(iv), 0, 0) : new Fact(CUT, k, g.endNs(iv), 0, 0));
                    continue;
                }
                MonitorOwnership.Source src = in.ownerSource(k, iv);
                long owner = src == null || !src.exact() ? UNKNOWN : src == MonitorOwnership.Source.NONE ? NONE
                        : in.ownerRing(k, iv) >= 0 ? in.ownerRing(k, iv) : UNKNOWN - 1 - Math.max(0, in.ownerJavaId(k, iv));
                facts.add(new Fact(ENTER, k, g.startNs(iv), owner, 0));
                if (g.isCut(iv)) {
                    facts.add(new Fact(CUT, k, g.endNs(iv), 0, 0));
                } else if (closed) {
                    int id = in.endedBy(k, iv);
                    boolean exact = id >= 0 && in.exact(id)
                            && (in.kind(id) == Interactions.Kind.HANDOFF || in.kind(id) == Interactions.Kind.UNPARK);
                    facts.add(new Fact(ACQUIRE, k, g.endNs(iv), exact ? in.fromRing(id) : UNKNOWN,
                            exact ? in.fromNs(id) : 0));
                }
            }
        }
        List<Row> out = new ArrayList<>();
        monitors.forEach((m, facts) -> out.add(walk(x, m, false, facts)));
        locks.forEach((m, facts) -> out.add(walk(x, m, true, facts)));
        out.removeIf(w -> w.acquisitions() == 0);
        out.sort(Comparator.comparingLong((Row w) -> -w.totalNs()).thenComparingLong(w -> -w.acquisitions())
                .thenComparingLong(Row::monitor));
        return new HoldTimes(out);
    }

    /** The holds of one monitor or lock, from its facts. */
    private static Row walk(ContentionIndex x, long monitor, boolean lock, List<Fact> facts) {
        facts.sort(Comparator.comparingLong(Fact::ns).thenComparingInt(Fact::kind).thenComparingInt(Fact::ring));
        long[] holds = new long[4];
        int n = 0;
        long acquisitions = 0;
        long inferred = 0;
        long acrossLoss = 0;
        long noEnd = 0;
        int holder = -1; // the ring holding it since a contended acquisition, -1 none
        long from = 0;
        boolean got = false; // a lock: a park named the holder as owner since
        for (Fact f : facts) {
            if (holder < 0) {
                if (f.kind() == ACQUIRE) {
                    acquisitions++;
                    holder = f.ring();
                    from = f.ns();
                    got = !lock;
                }
                continue;
            }
            switch (f.kind()) {
                case ENTER -> {
                    if (f.ring() == holder || f.other() != UNKNOWN && f.other() != holder) {
                        noEnd++;
                        holder = -1;
                    } else if (f.other() == holder) {
                        got = true;
                    }
                }
                case WAIT -> {
                    if (f.ring() == holder && !lock) {
                        long to = Math.max(from, f.ns());
                        if (lost(x.thread(holder), from, to)) {
                            acrossLoss++;
                        } else {
                            n = add(holds, n, to - from);
                            holds = grow(holds, n);
                        }
                    } else {
                        noEnd++;
                    }
                    holder = -1;
                }
                case ACQUIRE -> {
                    if (f.ring() == holder) {
                        noEnd++;
                    } else if (f.other() != holder) {
                        inferred++;
                    } else if (!got) {
                        noEnd++;
                    } else {
                        long to = Math.max(from, Math.min(f.ns(), f.releaseNs()));
                        if (lost(x.thread(holder), from, to)) {
                            acrossLoss++;
                        } else {
                            n = add(holds, n, to - from);
                            holds = grow(holds, n);
                        }
                    }
                    acquisitions++;
                    holder = f.ring();
                    from = f.ns();
                    got = !lock;
                }
                default -> { // CUT, WAITED
                    noEnd++;
                    holder = -1;
                }
            }
        }
        if (holder >= 0) {
            noEnd++;
        }
        long[] sorted = Arrays.copyOf(holds, n);
        Arrays.sort(sorted);
        return new Row(monitor, lock, acquisitions, sorted, inferred, acrossLoss, noEnd);
    }

    private static int add(long[] holds, int n, long ns) {
        holds[n] = ns;
        return n + 1;
    }

    private static long[] grow(long[] holds, int n) {
        return n < holds.length ? holds : Arrays.copyOf(holds, 2 * holds.length);
    }

    /** Whether a loss of a thread's records overlaps {@code [from, to]}. */
    private static boolean lost(RecordedThread t, long from, long to) {
        for (Loss l : t.losses()) {
            if (l.overlaps(from, to)) {
                return true;
            }
        }
        return false;
    }

    /** Every monitor and lock with a contended acquisition: most proven hold time first, then most acquisitions. */
    public List<Row> rows() {
        return rows;
    }

    /** The rows with at least one proven hold. */
    public List<Row> proven() {
        return rows.stream().filter(w -> w.count() > 0).toList();
    }

    /** Contended acquisitions over all rows. */
    public long acquisitions() {
        return rows.stream().mapToLong(Row::acquisitions).sum();
    }

    /** Proven holds over all rows. */
    public long holds() {
        return rows.stream().mapToLong(Row::count).sum();
    }

    /** Holds not counted over all rows: {releaser inferred, across a loss, no proven end}. */
    public long[] notCounted() {
        long[] v = new long[3];
        for (Row w : rows) {
            v[0] += w.inferred();
            v[1] += w.acrossLoss();
            v[2] += w.noEnd();
        }
        return v;
    }
}
