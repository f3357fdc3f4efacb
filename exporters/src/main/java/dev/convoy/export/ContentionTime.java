package dev.convoy.export;

import dev.convoy.analysis.Blockers;
import dev.convoy.analysis.Interval;
import dev.convoy.analysis.IntervalCursor;
import dev.convoy.analysis.MonitorStatistics;
import dev.convoy.model.ObjectInfo;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.Total;
import dev.convoy.snapshot.SnapshotFormat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The blocked and waited time of a recording that the stack outputs count: the folded stacks and
 * the flame graph ({@link FlameStacks}) and the pprof profile ({@link PprofWriter}), read the same
 * way for all of them.
 *
 * <p>Every BLOCKED and WAITING interval of a Java thread ({@link IntervalTable}: a park blocks
 * when it acquires a lock and waits otherwise; the waits of a {@code Thread.join} are not
 * counted; intervals still open at the snapshot count up to the thread's end or the snapshot) is
 * one block or wait, the time of the report's monitor statistics ({@link MonitorStatistics}).
 * When the history no longer holds the whole run (records aged out) and the recording has the
 * whole run's totals (SECTION_TOTALS), they are read instead ({@link #wholeRun}): the blocks,
 * waits and parks that ended since the totals began, joins left out as above; what was still
 * blocked at the snapshot is not in them.
 *
 * <p>The class of a block or wait is its monitor's class, or a park's blocker's as the analysis
 * names it ({@link Blockers#className}), {@link MonitorStatistics#UNKNOWN_CLASS} when not
 * described; classes are numbered in the order first met ({@link #className(int)}).
 */
final class ContentionTime {

    /** Receives the blocks and waits; called once per interval, or once per total. */
    interface Sink {
        /**
         * @param ringId  the thread's ring
         * @param thread  the thread, null for a total of a ring no longer in the recording
         * @param cls     the class's number ({@link #className(int)})
         * @param blocked blocked (else waited)
         * @param idle    a wait the recording's {@link dev.convoy.model.IdleRules} call idle (never a block)
         * @param park    a park ({@code java.util.concurrent}), else a monitor's enter or wait
         * @param stackId the stack of the begin event, 0 none
         * @param count   how many blocks or waits (1 for an interval)
         * @param ns      their time
         */
        void add(long ringId, RecordedThread thread, int cls, boolean blocked, boolean idle, boolean park, int stackId,
                 long count, long ns);
    }

    private final Recording r;
    private final boolean wholeRun;
    private final Map<String, Integer> classIndex = new HashMap<>();
    private final List<String> classNames = new ArrayList<>();
    private final Map<Long, Integer> monitorClass = new HashMap<>();
    private final Map<Long, Integer> blockerClass = new HashMap<>();
    private final dev.convoy.model.IdleRules.Classifier idle;

    private ContentionTime(Recording r) {
        this.r = r;
        this.idle = r.idleRules().classifier(r);
        this.wholeRun = wholeRun(r);
    }

    /**
     * Whether the time comes from the whole run's totals: the recording has them and records aged
     * out of its history (INFO {@code records.aged} or {@code history.from.ns}).
     */
    static boolean wholeRun(Recording r) {
        return !r.totals().isEmpty() && (r.recordsAged() > 0 || r.historyFromNs() >= 0);
    }

    /** Reads a recording's blocks and waits into {@code sink}; returns the reading, for its class names. */
    static ContentionTime read(Recording r, Sink sink) {
        ContentionTime c = new ContentionTime(r);
        if (c.wholeRun) {
            c.readTotals(sink);
        } else {
            c.readIntervals(sink);
        }
        return c;
    }

    /** Whether the time came from the whole run's totals. */
    boolean isWholeRun() {
        return wholeRun;
    }

    /** The name of class number {@code cls}. */
    String className(int cls) {
        return classNames.get(cls);
    }

    /** How many classes were met. */
    int classCount() {
        return classNames.size();
    }

    private void readTotals(Sink sink) {
        for (Total total : r.totals()) {
            boolean park = total.kind() == SnapshotFormat.TOTAL_PARKED || total.kind() == SnapshotFormat.TOTAL_PARKED_LOCK;
            boolean blocked = total.kind() == SnapshotFormat.TOTAL_BLOCKED || total.kind() == SnapshotFormat.TOTAL_PARKED_LOCK;
            ObjectInfo o = r.objects().get(total.object());
            if (!park && o != null && o.kind() == SnapshotFormat.OBJ_THREAD) {
                continue; // a join's waits, as in the intervals
            }
            RecordedThread t = r.threadByRingId(total.ringId()).orElse(null);
            boolean isIdle = !blocked && (t != null ? idle.isIdle(t, total.stackId()) : idle.isIdleStack(total.stackId()));
            sink.add(total.ringId(), t, classOf(total.object(), park), blocked, isIdle, park, total.stackId(),
                    total.count(), total.totalNs());
        }
    }

    private void readIntervals(Sink sink) {
        long snapshot = r.snapshotMonotonicNs();
        for (RecordedThread t : r.javaThreads()) {
            IntervalCursor g = IntervalCursor.scan(r, t, snapshot);
            for (int iv = 0, n = g.count(); iv < n; iv++) {
                Interval.Kind state = g.select(iv).kind();
                if (state != Interval.Kind.BLOCKED && state != Interval.Kind.WAITING) {
                    continue;
                }
                boolean park = g.isPark();
                int stack = t.stackId(g.beginRecord());
                boolean blocked = state == Interval.Kind.BLOCKED;
                sink.add(t.ringId(), t, classOf(g.monitor(), park), blocked, !blocked && idle.isIdle(t, stack), park,
                        stack, 1, g.endNs() - g.startNs());
            }
        }
    }

    private int classOf(long object, boolean park) {
        return (park ? blockerClass : monitorClass).computeIfAbsent(object, m -> {
            String c = Blockers.className(r, m, park);
            String name = c.isEmpty() ? MonitorStatistics.UNKNOWN_CLASS : c;
            return classIndex.computeIfAbsent(name, k -> {
                classNames.add(k);
                return classNames.size() - 1;
            });
        });
    }

    /** INFO {@code totals}' value of {@code key} ({@code from}, {@code entries}, {@code dropped}), or {@code dflt}. */
    static long totalsInfo(Recording r, String key, long dflt) {
        String t = r.info().get("totals");
        if (t != null) {
            for (String part : t.trim().split("\\s+")) {
                if (part.startsWith(key + "=")) {
                    try {
                        return Long.parseLong(part.substring(key.length() + 1));
                    } catch (NumberFormatException e) {
                        return dflt;
                    }
                }
            }
        }
        return dflt;
    }
}
