package dev.convoy.agent.http;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.convoy.analysis.ContentionIndex;
import dev.convoy.analysis.CriticalPath;
import dev.convoy.analysis.Deadlocks;
import dev.convoy.analysis.Interval;
import dev.convoy.analysis.Intervals;
import dev.convoy.analysis.MonitorStatistics;
import dev.convoy.analysis.ThreadStates;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;

/**
 * The summary the page shows, as JSON: threads with their states, monitor statistics per
 * thread, per class (with caller methods) and per monitor, deadlocks, the critical path.
 * Every count comes with the ids of the stacks behind it ({@code stacks}: id, count, ns),
 * most time first, which {@code /api/stacks/ID} resolves to frames. Times are in ns.
 */
final class SnapshotJson {

    /** Stacks listed per row. */
    static final int TOP_STACKS = 10;
    /** Critical path segments listed. */
    static final int MAX_SEGMENTS = 500;

    private SnapshotJson() {
    }

    /** Count and time per stack id. */
    private static final class StackTally {
        final Map<Integer, long[]> byStack = new HashMap<>();

        void add(Interval in) {
            int id = in.begin() == null ? 0 : in.begin().stackId();
            if (id != 0) {
                long[] v = byStack.computeIfAbsent(id, k -> new long[2]);
                v[0]++;
                v[1] += in.durationNs();
            }
        }

        void write(JsonGenerator g) throws IOException {
            List<Map.Entry<Integer, long[]>> es = new ArrayList<>(byStack.entrySet());
            es.sort(Comparator.comparingLong((Map.Entry<Integer, long[]> e) -> -e.getValue()[1])
                    .thenComparing(Map.Entry::getKey));
            g.writeArrayFieldStart("stacks");
            for (Map.Entry<Integer, long[]> e : es.subList(0, Math.min(TOP_STACKS, es.size()))) {
                g.writeStartObject();
                g.writeNumberField("id", e.getKey());
                g.writeNumberField("count", e.getValue()[0]);
                g.writeNumberField("ns", e.getValue()[1]);
                g.writeEndObject();
            }
            g.writeEndArray();
        }
    }

    /** Per-monitor totals. */
    private static final class MonitorRow {
        long blockedCount, blockedNs, maxBlockedNs, waitedCount, waitedNs;
        final StackTally stacks = new StackTally();
    }

    static void write(JsonGenerator g, Recording r) throws IOException {
        long snapshotNs = r.snapshotMonotonicNs();
        long startNs = r.startMonotonicNs();
        MonitorStatistics stats = MonitorStatistics.of(r);
        ContentionIndex x = ContentionIndex.of(r);
        ThreadStates states = ThreadStates.of(x);
        CriticalPath path = CriticalPath.of(x);

        Map<Long, StackTally> threadStacks = new HashMap<>();
        Map<Long, MonitorRow> monitors = new LinkedHashMap<>();
        Map<String, StackTally> callerStacks = new HashMap<>(); // kind|class|caller
        for (RecordedThread t : r.javaThreads()) {
            StackTally ts = threadStacks.computeIfAbsent(t.ringId(), k -> new StackTally());
            for (Interval in : Intervals.of(x, x.ring(t))) {
                if (in.kind() != Interval.Kind.BLOCKED && in.kind() != Interval.Kind.WAITING) {
                    continue;
                }
                ts.add(in);
                MonitorRow m = monitors.computeIfAbsent(in.monitor(), k -> new MonitorRow());
                if (in.kind() == Interval.Kind.BLOCKED) {
                    m.blockedCount++;
                    m.blockedNs += in.durationNs();
                    m.maxBlockedNs = Math.max(m.maxBlockedNs, in.durationNs());
                } else {
                    m.waitedCount++;
                    m.waitedNs += in.durationNs();
                }
                m.stacks.add(in);
                String caller = MonitorStatistics.caller(r, in.begin() == null ? 0 : in.begin().stackId());
                callerStacks.computeIfAbsent(in.kind() + "|" + className(r, in.monitor()) + "|" + caller,
                        k -> new StackTally()).add(in);
            }
        }

        g.writeStartObject();
        g.writeNumberField("pid", r.pid());
        g.writeStringField("mainClass", r.mainClass());
        g.writeStringField("startTime", instant(r.toEpochNs(startNs)));
        g.writeStringField("endTime", instant(r.toEpochNs(snapshotNs)));
        g.writeNumberField("durationNs", snapshotNs - startNs);
        g.writeObjectFieldStart("records");
        g.writeNumberField("written", r.infoLong("records.written", 0));
        g.writeNumberField("overwritten", r.infoLong("records.overwritten", 0));
        g.writeNumberField("dropped", r.infoLong("records.dropped", 0));
        g.writeEndObject();

        g.writeArrayFieldStart("threads");
        for (MonitorStatistics.ThreadRow row : stats.threads()) {
            RecordedThread t = row.thread();
            g.writeStartObject();
            g.writeNumberField("ring", t.ringId());
            g.writeNumberField("javaThreadId", t.javaThreadId());
            g.writeStringField("name", t.label());
            g.writeStringField("group", t.group());
            g.writeStringField("state", stateAtSnapshot(r, t));
            g.writeNumberField("events", t.eventCount());
            g.writeNumberField("blockedCount", row.blockedCount());
            g.writeNumberField("blockedNs", row.blockedNs());
            g.writeNumberField("waitedCount", row.waitedCount());
            g.writeNumberField("waitedNs", row.waitedNs());
            Map<ThreadStates.State, Long> byState = new LinkedHashMap<>();
            for (ThreadStates.Span s : states.of(t)) {
                byState.merge(s.state(), s.durationNs(), Long::sum);
            }
            g.writeObjectFieldStart("nsByState");
            for (Map.Entry<ThreadStates.State, Long> e : byState.entrySet()) {
                g.writeNumberField(e.getKey().name(), e.getValue());
            }
            g.writeEndObject();
            threadStacks.getOrDefault(t.ringId(), new StackTally()).write(g);
            g.writeEndObject();
        }
        g.writeEndArray();

        g.writeArrayFieldStart("classes");
        for (MonitorStatistics.ClassRow c : stats.classes()) {
            g.writeStartObject();
            g.writeStringField("className", c.className());
            stats(g, "blocked", c.blocked());
            stats(g, "waited", c.waited());
            callers(g, r, "blockCallers", Interval.Kind.BLOCKED, stats.blockCallers(c.className()), callerStacks);
            callers(g, r, "waitCallers", Interval.Kind.WAITING, stats.waitCallers(c.className()), callerStacks);
            g.writeEndObject();
        }
        g.writeEndArray();

        List<Map.Entry<Long, MonitorRow>> ms = new ArrayList<>(monitors.entrySet());
        ms.sort(Comparator.comparingLong((Map.Entry<Long, MonitorRow> e) -> -e.getValue().blockedNs)
                .thenComparingLong(e -> -e.getValue().waitedNs).thenComparing(Map.Entry::getKey));
        g.writeArrayFieldStart("monitors");
        for (Map.Entry<Long, MonitorRow> e : ms) {
            MonitorRow m = e.getValue();
            g.writeStartObject();
            g.writeNumberField("id", e.getKey());
            g.writeStringField("className", className(r, e.getKey()));
            g.writeStringField("identityHash", String.format("%08x", r.identityHash(e.getKey())));
            g.writeNumberField("blockedCount", m.blockedCount);
            g.writeNumberField("blockedNs", m.blockedNs);
            g.writeNumberField("maxBlockedNs", m.maxBlockedNs);
            g.writeNumberField("waitedCount", m.waitedCount);
            g.writeNumberField("waitedNs", m.waitedNs);
            m.stacks.write(g);
            g.writeEndObject();
        }
        g.writeEndArray();

        g.writeArrayFieldStart("deadlocks");
        for (Deadlocks.Deadlock d : Deadlocks.find(r)) {
            g.writeStartObject();
            g.writeStringField("description", d.describe(r));
            g.writeArrayFieldStart("threads");
            for (int i = 0; i < d.threads().size(); i++) {
                RecordedThread t = d.threads().get(i);
                MonitorState w = d.waits().get(i);
                g.writeStartObject();
                g.writeNumberField("ring", t.ringId());
                g.writeStringField("name", t.label());
                g.writeNumberField("monitor", w.object());
                g.writeStringField("monitorClass", w.object() != 0 ? className(r, w.object()) : "");
                g.writeNumberField("stack", lastEnterStack(t));
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();

        g.writeObjectFieldStart("criticalPath");
        g.writeStringField("endThread", path.endThread() == null ? "" : path.endThread().label());
        g.writeNumberField("lengthNs", path.lengthNs());
        g.writeObjectFieldStart("nsByState");
        for (Map.Entry<ThreadStates.State, Long> e : path.nsByState().entrySet()) {
            g.writeNumberField(e.getKey().name(), e.getValue());
        }
        g.writeEndObject();
        List<CriticalPath.Segment> segs = path.segments();
        g.writeNumberField("segmentCount", segs.size());
        g.writeArrayFieldStart("segments");
        for (CriticalPath.Segment s : segs.subList(0, Math.min(MAX_SEGMENTS, segs.size()))) {
            g.writeStartObject();
            g.writeStringField("thread", s.thread().label());
            g.writeNumberField("ring", s.thread().ringId());
            g.writeStringField("state", s.state().name());
            g.writeNumberField("startNs", s.startNs() - startNs);
            g.writeNumberField("durationNs", s.durationNs());
            g.writeNumberField("monitor", s.monitor());
            g.writeStringField("monitorClass", s.monitor() != 0 ? className(r, s.monitor()) : "");
            g.writeNumberField("stack", s.interval() == null || s.interval().begin() == null ? 0
                    : s.interval().begin().stackId());
            g.writeStringField("via", s.via() == null ? "" : s.via().kind().toString());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void stats(JsonGenerator g, String name, MonitorStatistics.Stats s) throws IOException {
        g.writeObjectFieldStart(name);
        g.writeNumberField("count", s.count());
        g.writeNumberField("totalNs", s.totalNs());
        g.writeNumberField("avgNs", s.avgNs());
        g.writeNumberField("maxNs", s.maxNs());
        g.writeEndObject();
    }

    private static void callers(JsonGenerator g, Recording r, String field, Interval.Kind kind,
                                List<MonitorStatistics.CallerRow> rows, Map<String, StackTally> stacks)
            throws IOException {
        g.writeArrayFieldStart(field);
        for (MonitorStatistics.CallerRow c : rows) {
            g.writeStartObject();
            g.writeStringField("caller", c.caller());
            g.writeNumberField("count", c.stats().count());
            g.writeNumberField("totalNs", c.stats().totalNs());
            g.writeNumberField("avgNs", c.stats().avgNs());
            g.writeNumberField("maxNs", c.stats().maxNs());
            g.writeNumberField("monitors", c.monitors());
            g.writeNumberField("threads", c.threads());
            stacks.getOrDefault(kind + "|" + c.className() + "|" + c.caller(), new StackTally()).write(g);
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static String className(Recording r, long monitor) {
        String c = r.objectClassName(monitor);
        return c.isEmpty() ? MonitorStatistics.UNKNOWN_CLASS : c;
    }

    static String stateAtSnapshot(Recording r, RecordedThread t) {
        if (t.isEnded()) {
            return "ended";
        }
        return r.monitorState(t.ringId())
                .map(m -> m.state() == SnapshotFormat.MSTATE_BLOCKED ? "blocked" : "waiting").orElse("alive");
    }

    private static int lastEnterStack(RecordedThread t) {
        List<Event> es = t.events();
        for (int i = es.size() - 1; i >= 0; i--) {
            if (es.get(i).type() == EventType.MONITOR_ENTER) {
                return es.get(i).stackId();
            }
        }
        return 0;
    }

    private static String instant(long epochNs) {
        return Instant.ofEpochSecond(0, epochNs).toString();
    }
}
