package dev.convoy.agent.http;

import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.convoy.analysis.ContentionIndex;
import dev.convoy.analysis.CriticalPath;
import dev.convoy.analysis.Deadlocks;
import dev.convoy.analysis.Blockers;
import dev.convoy.analysis.IntervalCursor;
import dev.convoy.analysis.MonitorStatistics;
import dev.convoy.analysis.HoldTimes;
import dev.convoy.analysis.OwnerSamples;
import dev.convoy.analysis.ThreadStates;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;

/**
 * The summary the page shows, as JSON: the records written and lost, threads with their states
 * (UNKNOWN: the time of their lost records) and lost records, monitor statistics per thread, per
 * class (with caller methods) and per monitor, deadlocks, the longest blocks with their owner's side,
 * the critical path.
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

    /** The first {@value #TOP_STACKS} stacks of a row, as {@code stacks: [{id, count, ns}]}. */
    private static void stacks(JsonGenerator g, List<MonitorStatistics.StackCount> stacks) throws IOException {
        g.writeArrayFieldStart("stacks");
        for (MonitorStatistics.StackCount c : stacks.subList(0, Math.min(TOP_STACKS, stacks.size()))) {
            g.writeStartObject();
            g.writeNumberField("id", c.stackId());
            g.writeNumberField("count", c.count());
            g.writeNumberField("ns", c.totalNs());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /** Long blocks listed with their owner's side. */
    static final int MAX_LONG_BLOCKS = 50;

    /**
     * The blocks with an owner's side (OWNER_SAMPLE), longest first, at most {@value #MAX_LONG_BLOCKS}:
     * the blocked thread, its lock and stack, and the owner: its name, state, what it was on, the
     * frame holding the lock (exact or the outermost of several), its stack, and who held what it
     * was blocked on ({@code onHeldBy}, "" when nobody known).
     */
    private static void longBlocks(JsonGenerator g, Recording r, ContentionIndex x) throws IOException {
        OwnerSamples os = x.ownerSamples();
        List<OwnerSamples.Sample> all = new java.util.ArrayList<>(os.all());
        all.sort(java.util.Comparator.comparingLong((OwnerSamples.Sample s) -> -blockedNs(x, s))
                .thenComparingLong(s -> x.intervals(s.ring()).select(s.interval()).startNs()));
        g.writeNumberField("longBlockCount", all.size());
        g.writeArrayFieldStart("longBlocks");
        for (OwnerSamples.Sample s : all.subList(0, Math.min(MAX_LONG_BLOCKS, all.size()))) {
            IntervalCursor iv = x.intervals(s.ring()).select(s.interval());
            g.writeStartObject();
            g.writeStringField("thread", s.blocked().label());
            g.writeNumberField("ring", s.blocked().ringId());
            g.writeNumberField("startNs", iv.startNs() - r.startMonotonicNs());
            g.writeNumberField("blockedNs", blockedNs(x, s));
            g.writeBooleanField("open", iv.isOpen());
            g.writeNumberField("monitor", s.monitor());
            g.writeStringField("monitorClass", className(r, s.monitor(), s.lock()));
            g.writeBooleanField("lock", s.lock());
            g.writeNumberField("stack", s.blocked().stackId(iv.beginRecord()));
            g.writeStringField("owner", s.owner() != null ? s.owner().label() : s.ownerName());
            g.writeStringField("ownerState", s.state().label());
            g.writeNumberField("ownerOn", s.state().onSomething() ? s.on() : 0);
            g.writeStringField("ownerOnClass", s.state().onSomething() && s.on() != 0
                    ? className(r, s.on(), s.state() == OwnerSamples.State.PARKED) : "");
            List<OwnerSamples.Link> chain = os.chain(s, 1);
            g.writeStringField("onHeldBy", !chain.isEmpty() && chain.get(0).holder() != null
                    ? chain.get(0).holder().label() : "");
            g.writeBooleanField("deadlock", !chain.isEmpty() && chain.get(0).deadlock());
            dev.convoy.model.Frame f = s.holdingFrame(r);
            g.writeStringField("frame", f == null ? "" : r.describe(f));
            g.writeBooleanField("frameExact", s.frameExact());
            g.writeNumberField("ownerStack", s.stackId());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static long blockedNs(ContentionIndex x, OwnerSamples.Sample s) {
        return x.ownerSamples().blockedNs(s);
    }

    static void write(JsonGenerator g, Recording r) throws IOException {
        write(g, r, ContentionIndex.of(r));
    }

    /** The summary of a recording whose contention index is already built. */
    static void write(JsonGenerator g, Recording r, ContentionIndex x) throws IOException {
        write(g, r, x, r);
    }

    /**
     * The summary of {@code r}, a window of the history {@code full} ({@link dev.convoy.model.Window#cut}),
     * or all of it when {@code r == full}: {@code window} says which ({@code whole}, {@code fromNs} and
     * {@code toNs} since the history's start, {@code historyNs}, the records of each).
     */
    static void write(JsonGenerator g, Recording r, ContentionIndex x, Recording full) throws IOException {
        long snapshotNs = r.snapshotMonotonicNs();
        long startNs = r.startMonotonicNs();
        MonitorStatistics stats = MonitorStatistics.of(r);
        ThreadStates states = ThreadStates.of(x);
        CriticalPath path = CriticalPath.of(x);

        g.writeStartObject();
        g.writeNumberField("pid", r.pid());
        g.writeStringField("mainClass", r.mainClass());
        g.writeStringField("startTime", instant(r.toEpochNs(startNs)));
        g.writeStringField("endTime", instant(r.toEpochNs(snapshotNs)));
        g.writeNumberField("durationNs", snapshotNs - startNs);
        g.writeObjectFieldStart("window");
        g.writeBooleanField("whole", r == full);
        g.writeNumberField("fromNs", startNs - full.startMonotonicNs());
        g.writeNumberField("toNs", snapshotNs - full.startMonotonicNs());
        g.writeNumberField("historyNs", full.snapshotMonotonicNs() - full.startMonotonicNs());
        g.writeNumberField("records", dev.convoy.agent.AnalysisBudget.records(r));
        g.writeNumberField("historyRecords", r == full ? dev.convoy.agent.AnalysisBudget.records(r)
                : dev.convoy.agent.AnalysisBudget.records(full));
        g.writeEndObject();
        g.writeObjectFieldStart("records");
        g.writeNumberField("written", r.recordsWritten());
        g.writeNumberField("overwritten", r.recordsOverwritten());
        g.writeNumberField("aged", r.recordsAged());
        g.writeNumberField("dropped", Math.max(0, r.recordsDropped()));
        g.writeNumberField("torn", Math.max(0, r.recordsTorn()));
        g.writeNumberField("threadsWithLosses", r.threadsWithLosses().size());
        g.writeNumberField("historyFromNs", r.historyFromNs() < 0 ? -1 : r.historyFromNs() - startNs);
        g.writeStringField("summary", r.lossSummary());
        g.writeEndObject();

        g.writeStringField("idleRules", r.idleRules().source());
        g.writeArrayFieldStart("threads");
        for (MonitorStatistics.ThreadRow row : stats.threads()) {
            RecordedThread t = row.thread();
            g.writeStartObject();
            g.writeNumberField("ring", t.ringId());
            g.writeNumberField("javaThreadId", t.javaThreadId());
            g.writeStringField("name", t.label());
            g.writeBooleanField("virtual", t.isVirtual());
            g.writeStringField("group", t.group());
            g.writeStringField("state", stateAtSnapshot(r, t));
            g.writeNumberField("events", t.eventCount());
            g.writeNumberField("blockedCount", row.blockedCount());
            g.writeNumberField("blockedNs", row.blockedNs());
            g.writeNumberField("waitedCount", row.waitedCount());
            g.writeNumberField("waitedNs", row.waitedNs());
            g.writeNumberField("idleCount", row.idleCount());
            g.writeNumberField("idleNs", row.idleNs());
            g.writeNumberField("lostRecords", t.lostRecords());
            g.writeNumberField("completeFromNs", t.completeFromNs() - startNs);
            Map<ThreadStates.State, Long> byState = new LinkedHashMap<>();
            for (ThreadStates.Span s : states.of(t)) {
                byState.merge(s.state(), s.durationNs(), Long::sum);
            }
            g.writeObjectFieldStart("nsByState");
            for (Map.Entry<ThreadStates.State, Long> e : byState.entrySet()) {
                g.writeNumberField(e.getKey().name(), e.getValue());
            }
            g.writeEndObject();
            stacks(g, stats.threadStacks(t));
            g.writeEndObject();
        }
        g.writeEndArray();

        g.writeArrayFieldStart("classes");
        for (MonitorStatistics.ClassRow c : stats.classes()) {
            g.writeStartObject();
            g.writeStringField("className", c.className());
            stats(g, "blocked", c.blocked());
            stats(g, "waited", c.waited());
            stats(g, "idle", c.idle());
            callers(g, stats, "blockCallers", true, stats.blockCallers(c.className()));
            callers(g, stats, "waitCallers", false, stats.waitCallers(c.className()));
            callers(g, stats, "idleCallers", false, stats.idleCallers(c.className()));
            g.writeEndObject();
        }
        g.writeEndArray();

        Map<Long, HoldTimes.Row> holds = new java.util.HashMap<>();
        for (HoldTimes.Row h : HoldTimes.of(x).rows()) {
            holds.putIfAbsent(h.monitor(), h);
        }
        g.writeArrayFieldStart("monitors");
        for (MonitorStatistics.MonitorRow m : stats.monitors()) {
            g.writeStartObject();
            g.writeNumberField("id", m.monitor());
            g.writeStringField("className", m.className());
            g.writeStringField("identityHash", String.format("%08x", r.identityHash(m.monitor())));
            g.writeNumberField("blockedCount", m.blocked().count());
            g.writeNumberField("blockedNs", m.blocked().totalNs());
            g.writeNumberField("maxBlockedNs", m.blocked().maxNs());
            g.writeNumberField("waitedCount", m.waited().count());
            g.writeNumberField("waitedNs", m.waited().totalNs());
            g.writeNumberField("idleCount", m.idle().count());
            g.writeNumberField("idleNs", m.idle().totalNs());
            HoldTimes.Row h = holds.get(m.monitor());
            g.writeNumberField("holdCount", h == null ? 0 : h.count());
            g.writeNumberField("holdNs", h == null ? 0 : h.totalNs());
            g.writeNumberField("medianHoldNs", h == null ? 0 : h.medianNs());
            g.writeNumberField("maxHoldNs", h == null ? 0 : h.maxNs());
            stacks(g, stats.monitorStacks(m.monitor()));
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
                g.writeStringField("monitorClass", w.object() != 0 ? className(r, w.object(), d.parked(i)) : "");
                g.writeNumberField("stack", lastEnterStack(t, d.parked(i)));
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();

        longBlocks(g, r, x);

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
            g.writeStringField("monitorClass", s.monitor() != 0
                    ? className(r, s.monitor(), s.interval() != null && s.interval().isPark()) : "");
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

    private static void callers(JsonGenerator g, MonitorStatistics stats, String field, boolean blocks,
                                List<MonitorStatistics.CallerRow> rows) throws IOException {
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
            stacks(g, stats.callerStacks(c, blocks));
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /** A monitor's class, or a park blocker's lock class ({@link Blockers#className}). */
    private static String className(Recording r, long monitor, boolean park) {
        String c = Blockers.className(r, monitor, park);
        return c.isEmpty() ? MonitorStatistics.UNKNOWN_CLASS : c;
    }

    static String stateAtSnapshot(Recording r, RecordedThread t) {
        if (t.isEnded()) {
            return "ended";
        }
        return r.monitorState(t.ringId())
                .map(m -> m.state() == SnapshotFormat.MSTATE_BLOCKED ? "blocked"
                        : m.state() == SnapshotFormat.MSTATE_PARKED ? "parked" : "waiting").orElse("alive");
    }

    /** The stack of the thread's last MONITOR_ENTER, or of its last PARK for a thread parked on a lock. */
    private static int lastEnterStack(RecordedThread t, boolean parked) {
        EventType type = parked ? EventType.PARK : EventType.MONITOR_ENTER;
        List<Event> es = t.events();
        for (int i = es.size() - 1; i >= 0; i--) {
            if (es.get(i).type() == type) {
                return es.get(i).stackId();
            }
        }
        return 0;
    }

    private static String instant(long epochNs) {
        return Instant.ofEpochSecond(0, epochNs).toString();
    }
}
