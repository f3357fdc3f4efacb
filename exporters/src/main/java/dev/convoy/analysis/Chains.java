package dev.convoy.analysis;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Contention chains: a thread blocked on a lock whose owner was itself blocked on another lock
 * at the same time (A waits for B, who waits for C). Made of the {@link ContentionIndex}'s
 * BLOCKED intervals (contended monitor enters and lock parks) and their owners
 * ({@link InteractionTable#owner}, exact or inferred): for each block of A whose owner B has a
 * block overlapping it, the chain goes on from B's block within the overlap, to B's owner C, and
 * so on, until an owner that was not blocked then, an unknown owner, or a thread already in the
 * chain: a deadlock's cycle, where the chain stops ({@link Chain#deadlock()}) rather than going
 * round again. A chain is counted once per head block, for the time it lasted:
 * the overlap of the head's block with the next link's, the time the head waited for a thread
 * that was itself waiting. A chain is exact only when every owner on it is exact.
 *
 * <p>Chains are grouped by the classes of their locks, head first ({@link Row}).
 */
public final class Chains {
    /** Longest chain followed: deeper ones are cut there (a thread count, head included). */
    public static final int MAX_LENGTH = 16;

    /**
     * One chain at one time: {@code threads[0]} blocked on {@code monitors[0]} held by
     * {@code threads[1]}, itself blocked on {@code monitors[1]} held by {@code threads[2]}, ...;
     * the last thread was not blocked (or its owner is unknown) during {@code [startNs, endNs]},
     * or, when {@code cycle >= 0}, was blocked on its monitor held by {@code threads[cycle]}, a
     * thread already on the chain: a deadlock's cycle, where the chain stops.
     */
    public record Chain(List<RecordedThread> threads, List<Long> monitors, List<String> classes, long startNs,
                       long endNs, boolean exact, int cycle) {
        /** {@code endNs - startNs}. */
        public long durationNs() {
            return endNs - startNs;
        }

        /** The chain comes back to a thread already on it ({@code threads[cycle]}): a deadlock. */
        public boolean deadlock() {
            return cycle >= 0;
        }
    }

    /** The chains whose locks are of the same classes, in order: how many, how long, the longest one. */
    public record Row(List<String> classes, long count, long totalNs, Chain longest) {
    }

    private final List<Row> rows;

    private Chains(List<Row> rows) {
        this.rows = List.copyOf(rows);
    }

    /** The chains of a recording, grouped. */
    public static Chains of(Recording r) {
        return of(r, ContentionIndex.of(r));
    }

    /** The chains of an index's recording, grouped (no chain is kept but each group's longest). */
    public static Chains of(Recording r, ContentionIndex x) {
        Map<List<String>, long[]> sums = new LinkedHashMap<>();
        Map<List<String>, Chain> longest = new LinkedHashMap<>();
        walk(r, x, c -> {
            long[] v = sums.computeIfAbsent(c.classes(), k -> new long[2]);
            v[0]++;
            v[1] += c.durationNs();
            longest.merge(c.classes(), c, (a, b) -> b.durationNs() > a.durationNs() ? b : a);
        });
        List<Row> out = new ArrayList<>();
        sums.forEach((k, v) -> out.add(new Row(k, v[0], v[1], longest.get(k))));
        out.sort(Comparator.comparingLong((Row w) -> -w.totalNs()).thenComparingLong(w -> -w.count())
                .thenComparing(w -> String.join(" ", w.classes())));
        return new Chains(out);
    }

    /** Every chain of a recording, in ring and block order (one object each: for tests and small recordings). */
    public static List<Chain> all(Recording r) {
        List<Chain> out = new ArrayList<>();
        walk(r, ContentionIndex.of(r), out::add);
        return out;
    }

    private static void walk(Recording r, ContentionIndex x, java.util.function.Consumer<Chain> sink) {
        InteractionTable in = x.interactionTable();
        Map<String, List<String>> classPaths = new java.util.HashMap<>(); // one list per path, shared
        for (int k = 0; k < x.rings(); k++) {
            IntervalTable g = x.table(k);
            if (g.thread().isSystem()) {
                continue;
            }
            for (int iv = 0; iv < g.count(); iv++) {
                if (g.kind(iv) != IntervalTable.BLOCKED || g.isCut(iv)) {
                    continue;
                }
                List<Integer> rings = new ArrayList<>(List.of(k));
                List<Long> monitors = new ArrayList<>(List.of(g.monitor(iv)));
                List<Boolean> parks = new ArrayList<>(List.of(g.isPark(iv)));
                boolean exact = in.ownerExact(k, iv);
                long from = g.startNs(iv);
                long to = g.endNs(iv);
                int ring = k;
                int cur = iv;
                int cycle = -1;
                while (rings.size() < MAX_LENGTH) {
                    int owner = in.ownerRing(ring, cur);
                    if (owner >= 0 && rings.contains(owner) && monitors.size() > 1) {
                        cycle = rings.indexOf(owner);
                    }
                    if (owner < 0 || rings.contains(owner)) {
                        break;
                    }
                    int next = blockAt(x.table(owner), from, to);
                    if (next < 0) {
                        if (rings.size() > 1) {
                            rings.add(owner);
                        }
                        break;
                    }
                    IntervalTable o = x.table(owner);
                    from = Math.max(from, o.startNs(next));
                    to = Math.min(to, o.endNs(next));
                    rings.add(owner);
                    monitors.add(o.monitor(next));
                    parks.add(o.isPark(next));
                    exact &= in.ownerExact(owner, next);
                    ring = owner;
                    cur = next;
                }
                if (monitors.size() < 2 || to <= from) {
                    continue;
                }
                List<RecordedThread> threads = new ArrayList<>();
                for (int ri : rings) {
                    threads.add(x.thread(ri));
                }
                List<String> classes = new ArrayList<>();
                for (int i = 0; i < monitors.size(); i++) {
                    String c = Blockers.className(r, monitors.get(i), parks.get(i));
                    classes.add(c.isEmpty() ? MonitorStatistics.UNKNOWN_CLASS : c);
                }
                List<String> shared = classPaths.computeIfAbsent(String.join("\n", classes), p -> List.copyOf(classes));
                sink.accept(new Chain(threads, List.copyOf(monitors), shared, from, to, exact, cycle));
            }
        }
    }

    /** A BLOCKED interval of a ring that overlaps {@code [from, to]}, the one covering most of it; -1 if none. */
    private static int blockAt(IntervalTable o, long from, long to) {
        int best = -1;
        long bestNs = 0;
        for (int i = Math.max(0, o.lastStartAtOrBefore(to)); i >= 0 && i < o.count(); i--) {
            if (o.kind(i) == IntervalTable.BLOCKED && !o.isCut(i) && o.startNs(i) < to && o.endNs(i) > from) {
                long ns = Math.min(to, o.endNs(i)) - Math.max(from, o.startNs(i));
                if (ns > bestNs) {
                    best = i;
                    bestNs = ns;
                }
            }
            if (o.endNs(i) <= from && o.kind(i) == IntervalTable.BLOCKED) {
                break; // blocks of one thread do not overlap: earlier ones end earlier still
            }
        }
        return best;
    }

    /** The chains grouped by the classes of their locks: most time first, then most chains, then classes. */
    public List<Row> rows() {
        return rows;
    }
}
