package dev.convoy.agent.jmx;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.management.openmbean.ArrayType;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.CompositeDataSupport;
import javax.management.openmbean.CompositeType;
import javax.management.openmbean.OpenDataException;
import javax.management.openmbean.OpenType;
import javax.management.openmbean.SimpleType;
import javax.management.openmbean.TabularDataSupport;
import javax.management.openmbean.TabularType;

import dev.convoy.analysis.Deadlocks;
import dev.convoy.analysis.MonitorStatistics;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;

/**
 * The open-data summary of a snapshot that {@code snapshot()} returns: readable in JConsole
 * and by any JMX client without Convoy's classes.
 */
final class SnapshotSummary {

    /** Monitors listed, most blocked time first. */
    static final int TOP_MONITORS = 20;

    static final CompositeType EVENT_COUNT;
    static final TabularType EVENT_COUNTS;
    static final CompositeType THREAD;
    static final TabularType THREADS;
    static final CompositeType MONITOR;
    static final TabularType MONITORS;
    static final CompositeType SUMMARY;

    static {
        try {
            EVENT_COUNT = new CompositeType("dev.convoy.EventCount", "records of one event type",
                    new String[] {"type", "count"}, new String[] {"event type", "records in the snapshot"},
                    new OpenType<?>[] {SimpleType.STRING, SimpleType.LONG});
            EVENT_COUNTS = new TabularType("dev.convoy.EventCounts", "records by event type", EVENT_COUNT,
                    new String[] {"type"});
            THREAD = new CompositeType("dev.convoy.Thread", "one recorded thread",
                    new String[] {"ring", "javaThreadId", "name", "state", "events", "blockedCount", "blockedMillis",
                        "waitCount", "waitMillis", "idleCount", "idleMillis", "overwritten", "unknownMillis"},
                    new String[] {"ring id in the snapshot", "Thread.getId()", "thread name",
                        "alive, ended, blocked, waiting or parked at snapshot time", "records kept",
                        "contended monitor enters and lock parks", "time blocked entering monitors and locks (ms)",
                        "Object.wait calls and other parks that were contention",
                        "time in Object.wait and other parks that was contention (ms)",
                        "idle waits: nothing to do (a pool waiting for tasks, housekeeping, an empty queue)",
                        "time in idle waits, not contention (ms)",
                        "records of the thread lost (overwritten before they were kept, or aged out)",
                        "time whose records were lost: the thread's state then is unknown (ms)"},
                    new OpenType<?>[] {SimpleType.LONG, SimpleType.LONG, SimpleType.STRING, SimpleType.STRING,
                        SimpleType.LONG, SimpleType.LONG, SimpleType.DOUBLE, SimpleType.LONG, SimpleType.DOUBLE,
                        SimpleType.LONG, SimpleType.DOUBLE, SimpleType.LONG, SimpleType.DOUBLE});
            THREADS = new TabularType("dev.convoy.Threads", "recorded threads", THREAD, new String[] {"ring"});
            MONITOR = new CompositeType("dev.convoy.Monitor", "one contended monitor",
                    new String[] {"monitorClass", "monitorId", "blockedCount", "totalBlockedMillis",
                        "maxBlockedMillis"},
                    new String[] {"class of the monitor object", "Convoy's id of the monitor object",
                        "contended enters", "total time threads were blocked on it (ms)",
                        "longest single block (ms)"},
                    new OpenType<?>[] {SimpleType.STRING, SimpleType.LONG, SimpleType.LONG, SimpleType.DOUBLE,
                        SimpleType.DOUBLE});
            MONITORS = new TabularType("dev.convoy.Monitors", "most contended monitors", MONITOR,
                    new String[] {"monitorId"});
            SUMMARY = new CompositeType("dev.convoy.SnapshotSummary", "summary of a Convoy snapshot",
                    new String[] {"startTime", "endTime", "durationMillis", "recordsWritten", "recordsOverwritten",
                        "recordsAgedOut", "recordsDropped", "losses", "eventCounts", "threads",
                        "mostContendedMonitors", "deadlocks"},
                    new String[] {"start of the recording (ISO-8601, UTC)", "time of the snapshot (ISO-8601, UTC)",
                        "time covered (ms)", "records ever written",
                        "records a thread's ring overwrote before the recorder kept them",
                        "records that aged out of the history (maxsize, maxage)",
                        "events that could not be recorded", "what was lost, in one sentence (nothing lost: says so)",
                        "records by event type", "recorded threads",
                        "most contended monitors, most blocked time first", "monitor deadlocks at snapshot time"},
                    new OpenType<?>[] {SimpleType.STRING, SimpleType.STRING, SimpleType.LONG, SimpleType.LONG,
                        SimpleType.LONG, SimpleType.LONG, SimpleType.LONG, SimpleType.STRING, EVENT_COUNTS, THREADS,
                        MONITORS, new ArrayType<String>(1, SimpleType.STRING)});
        } catch (OpenDataException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private SnapshotSummary() {
    }

    private static double millis(long ns) {
        return ns / 1_000_000.0;
    }

    static CompositeData of(Recording r) throws OpenDataException {
        Map<EventType, Long> counts = new EnumMap<>(EventType.class);
        for (RecordedThread t : r.threads()) {
            for (Event e : t.events()) {
                counts.merge(e.type(), 1L, Long::sum);
            }
        }
        TabularDataSupport eventCounts = new TabularDataSupport(EVENT_COUNTS);
        for (Map.Entry<EventType, Long> c : counts.entrySet()) {
            eventCounts.put(new CompositeDataSupport(EVENT_COUNT, new String[] {"type", "count"},
                    new Object[] {c.getKey().name(), c.getValue()}));
        }

        MonitorStatistics stats = MonitorStatistics.of(r);
        TabularDataSupport threads = new TabularDataSupport(THREADS);
        for (MonitorStatistics.ThreadRow row : stats.threads()) {
            threads.put(new CompositeDataSupport(THREAD, THREAD.keySet().toArray(String[]::new), threadRow(r, row)));
        }

        List<MonitorStatistics.MonitorRow> monitors = new ArrayList<>();
        for (MonitorStatistics.MonitorRow m : stats.monitors()) {
            if (m.blocked().count() > 0) {
                monitors.add(m);
            }
        }
        monitors.sort(Comparator.comparingLong((MonitorStatistics.MonitorRow m) -> -m.blocked().totalNs())
                .thenComparingLong(MonitorStatistics.MonitorRow::monitor));
        TabularDataSupport top = new TabularDataSupport(MONITORS);
        for (MonitorStatistics.MonitorRow m : monitors.subList(0, Math.min(TOP_MONITORS, monitors.size()))) {
            top.put(new CompositeDataSupport(MONITOR,
                    new String[] {"monitorClass", "monitorId", "blockedCount", "totalBlockedMillis", "maxBlockedMillis"},
                    new Object[] {m.blocker() ? m.className() : r.objectClassName(m.monitor()), m.monitor(),
                        m.blocked().count(),
                        millis(m.blocked().totalNs()), millis(m.blocked().maxNs())}));
        }

        String[] deadlocks = Deadlocks.find(r).stream().map(d -> d.describe(r)).toArray(String[]::new);
        long startNs = r.startMonotonicNs();
        long endNs = r.snapshotMonotonicNs();
        return new CompositeDataSupport(SUMMARY,
                new String[] {"startTime", "endTime", "durationMillis", "recordsWritten", "recordsOverwritten",
                    "recordsAgedOut", "recordsDropped", "losses", "eventCounts", "threads", "mostContendedMonitors",
                    "deadlocks"},
                new Object[] {instant(r.toEpochNs(startNs)), instant(r.toEpochNs(endNs)), (endNs - startNs) / 1_000_000,
                    r.infoLong("records.written", 0), r.infoLong("records.overwritten", 0),
                    r.infoLong("records.aged", 0), r.infoLong("records.dropped", 0), r.lossSummary(), eventCounts,
                    threads, top, deadlocks});
    }

    private static Object[] threadRow(Recording r, MonitorStatistics.ThreadRow s) {
        RecordedThread t = s.thread();
        String state = t.isEnded() ? "ended" : r.monitorState(t.ringId())
                .map(m -> m.state() == dev.convoy.snapshot.SnapshotFormat.MSTATE_BLOCKED ? "blocked"
                        : m.state() == dev.convoy.snapshot.SnapshotFormat.MSTATE_PARKED ? "parked" : "waiting")
                .orElse("alive");
        // Keys of THREAD in its (sorted) key order.
        Map<String, Object> row = new HashMap<>();
        row.put("ring", t.ringId());
        row.put("javaThreadId", t.javaThreadId());
        row.put("name", t.name());
        row.put("state", state);
        row.put("events", (long) t.events().size());
        row.put("blockedCount", s.blockedCount());
        row.put("blockedMillis", millis(s.blockedNs()));
        row.put("waitCount", s.waitedCount());
        row.put("waitMillis", millis(s.waitedNs()));
        row.put("idleCount", s.idleCount());
        row.put("idleMillis", millis(s.idleNs()));
        row.put("overwritten", t.overwritten());
        row.put("unknownMillis", millis(t.lostNs()));
        return THREAD.keySet().stream().map(row::get).toArray();
    }

    private static String instant(long epochNs) {
        return Instant.ofEpochSecond(0, epochNs).toString();
    }
}
