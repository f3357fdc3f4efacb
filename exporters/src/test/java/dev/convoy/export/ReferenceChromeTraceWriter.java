package dev.convoy.export;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import dev.convoy.analysis.CriticalPath;
import dev.convoy.analysis.Interactions;
import dev.convoy.analysis.Interactions.Interaction;
import dev.convoy.analysis.Interval;
import dev.convoy.analysis.Intervals;
import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.Frame;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Chrome trace writer as it was before it streamed, kept as the test oracle of
 * {@link ChromeTraceWriter}'s rendering: it builds every event as an object from the object
 * views ({@code Intervals}, {@code Interactions}, {@code CriticalPath}; the owner of a
 * blocked enter from {@code MonitorOwnership}), sorts them and writes them, where the
 * streamed writer reads the {@code ContentionIndex} arrays while merging the events in
 * time order. Both rest on the same analysis, so {@code ChromeStreamingTest} checks the
 * streamed rendering (call numbering, arrow ends, slice nesting and trimming, event order)
 * and the views' materialization (causes, effects, ended intervals, path membership), not
 * the analysis rules (those have tests with expected results of their own).
 * {@code ChromeHeapTest} shows the memory difference.
 */
final class ReferenceChromeTraceWriter {
    /** Track id of GC pauses: fits in a signed 32-bit int, far above any Java thread id seen in practice. */
    static final long GC_TID = ChromeTraceWriter.GC_TID;
    /** Track id of the critical path: one slice per segment. */
    static final long CRITICAL_TID = ChromeTraceWriter.CRITICAL_TID;

    private static final String HANDOFF = "handoff";
    private static final String HANDOFF_NAME = "lock handoff";

    /** Writes the trace to a stream (not closed). */
    public void write(Recording r, OutputStream os) throws IOException {
        // Raw UTF-8, and supplementary characters as 4-byte UTF-8: Perfetto rejects escaped surrogates.
        JsonFactory f = JsonFactory.builder().disable(JsonWriteFeature.ESCAPE_NON_ASCII)
                .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8).build();
        try (JsonGenerator g = f.createGenerator(os, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            new Run(r, g).write();
        }
    }

    /** One event before sorting. */
    private static final class Ev {
        String ph;
        String name;
        String cat;
        long tid;
        long ts;
        long dur = -1;
        long id;
        boolean bindEnclosing;
        Map<String, Object> args;
        /** Makes the args when the event is written (instead of {@link #args}: no map held per event). */
        java.util.function.Supplier<Map<String, Object>> lazyArgs;
        int seq;

        /** At equal ts, slices first (then longest first); instants and their flow ends keep insertion order. */
        int rank() {
            return ph.equals("X") ? 0 : 1;
        }
    }

    private static final class Run {
        final Recording r;
        final JsonGenerator g;
        final long start;
        final long pid;
        final List<Ev> events = new ArrayList<>();
        final MonitorOwnership owners;
        final Interactions interactions;
        final CriticalPath path;
        long flowId = 1;

        Run(Recording r, JsonGenerator g) {
            this.r = r;
            this.g = g;
            this.start = r.startMonotonicNs();
            this.pid = r.pid();
            this.owners = MonitorOwnership.of(r);
            this.byJavaId = dev.convoy.analysis.Blockers.threadsByJavaId(r);
            this.interactions = Interactions.of(r);
            this.path = CriticalPath.of(interactions);
        }

        long tid(RecordedThread t) {
            if (t.isSystem()) {
                return GC_TID;
            }
            long id = t.javaThreadId();
            return id >= 0 && id <= 0xFFFF_FFFFL && id != GC_TID ? id : GC_TID + 1 + t.ringId() % 1_000_000;
        }

        Ev add(String ph, String name, String cat, RecordedThread t, long ts) {
            return add(ph, name, cat, tid(t), ts);
        }

        Ev add(String ph, String name, String cat, long tid, long ts) {
            Ev e = new Ev();
            e.ph = ph;
            e.name = name;
            e.cat = cat;
            e.tid = tid;
            e.ts = Math.max(0, ts - start);
            e.seq = events.size();
            events.add(e);
            return e;
        }

        void write() throws IOException {
            collect();
            events.sort((a, b) -> a.ts != b.ts ? Long.compare(a.ts, b.ts)
                    : a.rank() != b.rank() ? Integer.compare(a.rank(), b.rank())
                    : a.dur != b.dur ? Long.compare(b.dur, a.dur) : Integer.compare(a.seq, b.seq));
            g.writeStartObject();
            g.writeArrayFieldStart("traceEvents");
            writeMetadataEvents();
            for (Ev e : events) {
                writeEvent(e);
            }
            g.writeEndArray();
            g.writeObjectFieldStart("metadata");
            long epoch = r.startEpochNs();
            g.writeStringField("start_time", Instant.ofEpochSecond(Math.floorDiv(epoch, 1_000_000_000L),
                    Math.floorMod(epoch, 1_000_000_000L)).toString());
            g.writeStringField("start_epoch_ns", Long.toString(epoch));
            g.writeStringField("snapshot_version", r.versionMajor() + "." + r.versionMinor());
            for (Map.Entry<String, String> i : r.info().entrySet()) {
                g.writeStringField(Text.wellFormed(i.getKey()), Text.wellFormed(i.getValue()));
            }
            g.writeNumberField("records_written", r.recordsWritten());
            g.writeNumberField("records_lost_overwritten", r.recordsOverwritten());
            g.writeNumberField("records_lost_aged", r.recordsAged());
            g.writeNumberField("records_dropped", Math.max(0, r.recordsDropped()));
            g.writeNumberField("records_torn", Math.max(0, r.recordsTorn()));
            g.writeNumberField("threads_with_lost_records", r.threadsWithLosses().size());
            g.writeStringField("records_summary", Text.wellFormed(r.lossSummary()));
            g.writeEndObject();
            g.writeEndObject();
        }

        void collect() {
            for (RecordedThread t : r.threads()) {
                if (t.isSystem()) {
                    continue;
                }
                if (!t.isLate()) {
                    add("I", "thread start", "thread", t, t.startNs()).args = Map.of("name", t.name());
                }
                if (t.isEnded() && t.endNs() != 0) {
                    add("I", "thread end", "thread", t, t.endNs()).args = Map.of("name", t.name());
                }
            }
            List<Ev> slices = new ArrayList<>();
            for (Interval in : Intervals.of(r)) {
                String name = in.isPark() ? (in.kind() == Interval.Kind.BLOCKED ? "blocked on " + blockerClass(in.monitor())
                        : in.monitor() == 0 ? "parked" : "parked on " + blockerClass(in.monitor())) : switch (in.kind()) {
                    case GC -> "GC";
                    case BLOCKED -> "blocked on " + className(in.monitor());
                    case SLEEPING -> "sleep";
                    case JOINING -> "join " + joinedName(in);
                    default -> "wait on " + className(in.monitor());
                };
                String cat = in.isPark() ? "park" : switch (in.kind()) {
                    case GC -> "gc";
                    case SLEEPING -> "sleep";
                    case JOINING -> "join";
                    default -> "monitor";
                };
                Ev e = add("X", name, cat, in.thread(), in.startNs());
                boolean critical = in.kind() != Interval.Kind.GC && path.isOnPath(in);
                e.lazyArgs = () -> sliceArgs(in, critical);
                // an end older than the begin (records out of time order): duration 0
                e.dur = Math.max(0, Math.max(0, in.endNs() - start) - e.ts);
                slices.add(e);
            }
            for (RecordedThread t : r.threads()) {
                for (dev.convoy.model.Loss l : t.losses()) {
                    Ev e = add("X", "unknown (records lost)", "lost", t, l.fromNs());
                    e.dur = Math.max(0, Math.max(0, l.toNs() - start) - e.ts);
                    Map<String, Object> a = new LinkedHashMap<>();
                    a.put("kind", l.kindName());
                    a.put("records", l.records());
                    e.args = a;
                    slices.add(e);
                }
            }
            criticalPath(slices);
            nest(slices);
            for (Interaction h : interactions.of(Interactions.Kind.HANDOFF)) {
                java.util.function.Supplier<Map<String, Object>> a = () -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("monitor", className(h.monitor()));
                    m.put("monitor_id", h.monitor());
                    return m;
                };
                add("I", "monitor released", HANDOFF, h.from(), h.fromNs()).lazyArgs = a;
                add("s", HANDOFF_NAME, HANDOFF, h.from(), h.fromNs()).id = flowId;
                add("I", "monitor acquired", HANDOFF, h.to(), h.toNs()).lazyArgs = () -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("by", h.from().name());
                    m.put("by_tid", tid(h.from()));
                    m.put("by_exact", h.exact());
                    m.putAll(a.get());
                    return m;
                };
                Ev fin = add("f", HANDOFF_NAME, HANDOFF, h.to(), h.toNs());
                fin.id = flowId;
                fin.bindEnclosing = true;
                flowId++;
            }
            calls();
        }

        String joinedName(Interval in) {
            RecordedThread joined = r.threadByObject(in.monitor()).orElse(null);
            return joined == null ? "thread object " + in.monitor() : joined.name();
        }

        /** The args of an interval's slice. */
        Map<String, Object> sliceArgs(Interval in, boolean critical) {
            Map<String, Object> a;
            if (in.isPark()) {
                a = new LinkedHashMap<>();
                if (in.monitor() != 0) {
                    a.put("monitor", blockerClass(in.monitor()));
                    a.put("monitor_id", in.monitor());
                }
                a.put("stack", stack(in.begin().stackId()));
                boolean lock = in.kind() == Interval.Kind.BLOCKED;
                if (lock) {
                    long id = in.begin().arg2();
                    RecordedThread owner = id >= 0 ? byJavaId.get(id) : null;
                    owner = owner == in.thread() ? null : owner;
                    a.put("owner", owner != null ? owner.name() : id >= 0 ? "thread " + id : "none");
                    a.put("owner_tid", owner != null ? tid(owner) : Math.max(0, id));
                    a.put("owner_exact", true);
                    ownerSide(in, a);
                }
                a.put("timeout_ns", in.timeoutNs());
                if (!lock) {
                    a.put("idle", r.idleRules().classifier(r).isIdle(in.thread(), in.begin().stackId()));
                }
                a.put("result", in.isOpen() ? (lock ? "still blocked at snapshot" : "still parked at snapshot")
                        : in.cut() ? "records lost" : in.timedOut() ? "timed out" : in.interrupted() ? "interrupted"
                        : "unparked");
                if (critical) {
                    a.put("critical", true);
                }
                return a;
            }
            switch (in.kind()) {
                case GC -> a = in.isOpen() ? Map.of("open", true) : in.cut() ? Map.of("result", "records lost") : Map.of();
                case BLOCKED -> {
                    a = monitorArgs(in);
                    MonitorOwnership.Owner owner = owners.owner(in.begin()).orElse(null);
                    a.put("owner", owner == null ? "unknown" : owner.none() ? "none"
                            : owner.thread() != null ? owner.thread().name() : "thread " + owner.javaThreadId());
                    a.put("owner_tid", owner == null || owner.none() ? 0
                            : owner.thread() != null ? tid(owner.thread()) : owner.javaThreadId());
                    if (owner != null) {
                        a.put("owner_exact", owner.exact());
                    }
                    ownerSide(in, a);
                    if (in.isOpen()) {
                        a.put("result", "still blocked at snapshot");
                    } else if (in.cut()) {
                        a.put("result", "records lost");
                    }
                }
                case SLEEPING -> {
                    a = stackArgs(in);
                    a.put("requested_ms", in.timeoutMs());
                    a.put("result", in.isOpen() ? "still sleeping at snapshot" : in.cut() ? "records lost"
                            : in.interrupted() ? "interrupted" : "slept");
                }
                case JOINING -> {
                    RecordedThread joined = r.threadByObject(in.monitor()).orElse(null);
                    a = stackArgs(in);
                    a.put("thread", joinedName(in));
                    a.put("thread_tid", joined == null ? 0 : tid(joined));
                    a.put("timeout_ms", in.timeoutMs());
                    a.put("result", in.isOpen() ? "still joining at snapshot" : in.cut() ? "records lost"
                            : in.interrupted() ? "interrupted" : "joined");
                }
                default -> {
                    a = monitorArgs(in);
                    a.put("timeout_ms", in.timeoutMs());
                    a.put("idle", r.idleRules().classifier(r).isIdle(in.thread(), in.begin().stackId()));
                    a.put("result", in.isOpen() ? "still waiting at snapshot" : in.cut() ? "records lost"
                            : in.timedOut() ? "timed out" : "notified");
                }
            }
            if (critical) {
                a = new LinkedHashMap<>(a);
                a.put("critical", true);
            }
            return a;
        }

        /**
         * The owner's side of a block: the OWNER_SAMPLE record right after its begin, on its
         * object, taken before it ended.
         */
        void ownerSide(Interval in, Map<String, Object> a) {
            RecordedThread t = in.thread();
            int i = in.begin().index() + 1;
            if (i >= t.eventCount() || t.type(i) != dev.convoy.model.EventType.OWNER_SAMPLE
                    || t.obj(i) != in.monitor() || t.ts(i) > in.endNs()) {
                return;
            }
            int aux = t.aux(i);
            long id = t.arg(i);
            RecordedThread owner = byJavaId.get(id);
            a.put("owner_sampled", owner != null ? owner.name() : "#" + id);
            String[] states = {"unknown", "running", "in native", "blocked", "waiting", "parked", "sleeping"};
            int state = aux >>> SnapshotFormat.OWNER_STATE_SHIFT;
            a.put("owner_state", state < states.length ? states[state] : "unknown");
            if (state >= 3 && state <= 5 && t.arg2(i) != 0) {
                a.put("owner_on", state == 5 ? blockerClass(t.arg2(i)) : className(t.arg2(i)));
            }
            int frame = (aux & SnapshotFormat.OWNER_DEPTH_MASK) - 1;
            List<dev.convoy.model.Frame> fs = r.frames(t.stackId(i));
            if (frame >= 0 && frame < fs.size()) {
                a.put("owner_frame", r.describe(fs.get(frame)));
                a.put("owner_frame_exact", (t.flags(i) & SnapshotFormat.FLAG_FRAME_EXACT) != 0);
            }
            if (t.stackId(i) != 0) {
                a.put("owner_stack", stack(t.stackId(i)));
            }
        }

        /** Category, flow name and destination instant name of each arrow kind. */
        static String[] arrow(Interactions.Kind k) {
            return switch (k) {
                case START -> new String[] {"start", "starts thread", "started"};
                case NOTIFY -> new String[] {"notify", "notify", "notified"};
                case NOTIFY_ALL -> new String[] {"notify", "notifyAll", "notified"};
                case INTERRUPT -> new String[] {"interrupt", "interrupt", "woken by interrupt"};
                case JOIN_END -> new String[] {"join", "thread ended", "joined"};
                case UNPARK -> new String[] {"unpark", "unpark", "unparked"};
                default -> null;
            };
        }

        /**
         * Instants for the instrumented calls (Thread.start, Thread.interrupt, notify,
         * notifyAll) and for THREAD_INTERRUPTED; an arrow from the call's instant (or the
         * ended thread's "terminated" instant) to an instant where the other thread ran.
         */
        void calls() {
            Map<Event, List<Interaction>> byCause = new java.util.HashMap<>();
            for (Interaction i : interactions.all()) {
                if (i.cause() != null && arrow(i.kind()) != null) {
                    byCause.computeIfAbsent(i.cause(), k -> new ArrayList<>()).add(i);
                }
            }
            for (Event e : r.events()) {
                String name;
                String cat;
                Map<String, Object> a = new LinkedHashMap<>();
                switch (e.type()) {
                    case START_CALL, INTERRUPT_CALL -> {
                        RecordedThread target = r.threadByObject(e.obj()).orElse(null);
                        name = e.type() == EventType.START_CALL ? "Thread.start" : "Thread.interrupt";
                        cat = e.type() == EventType.START_CALL ? "start" : "interrupt";
                        a.put("thread", target == null ? "unknown" : target.name());
                        a.put("thread_tid", target == null ? 0 : tid(target));
                        if (e.type() == EventType.INTERRUPT_CALL) {
                            a.put("target_waiting", e.arg() == 1);
                        }
                    }
                    case NOTIFY, NOTIFY_ALL -> {
                        name = e.type() == EventType.NOTIFY ? "notify" : "notifyAll";
                        cat = "notify";
                        a.put("monitor", className(e.obj()));
                        a.put("monitor_id", e.obj());
                    }
                    case THREAD_INTERRUPTED -> {
                        name = "InterruptedException";
                        cat = "interrupt";
                    }
                    case UNPARK -> {
                        List<Interaction> b = byCause.getOrDefault(e, List.of());
                        RecordedThread target = b.isEmpty() ? r.threadByObject(e.obj()).orElse(null) : b.get(0).to();
                        name = "LockSupport.unpark";
                        cat = "unpark";
                        a.put("thread", target == null ? "unknown" : target.name());
                        a.put("thread_tid", target == null ? 0 : tid(target));
                    }
                    default -> {
                        continue;
                    }
                }
                if (e.thread().isSystem()) {
                    continue;
                }
                List<Interaction> bound = byCause.getOrDefault(e, List.of());
                if (e.type() == EventType.NOTIFY || e.type() == EventType.NOTIFY_ALL) {
                    a.put("woke", bound.stream().map(i -> i.to().name()).toList());
                }
                if (e.type() != EventType.UNPARK) {
                    a.put("stack", stack(e.stackId()));
                }
                add("I", name, cat, e.thread(), e.ts()).args = a;
                for (Interaction i : bound) {
                    flowStart(i);
                }
            }
            for (Interaction i : interactions.of(Interactions.Kind.JOIN_END)) {
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("joiner", i.to().name());
                add("I", "terminated", "join", i.from(), i.fromNs()).args = a;
                flowStart(i);
            }
        }

        /** The s of an arrow right after its source instant, and the destination instant with its f. */
        void flowStart(Interaction i) {
            String[] k = arrow(i.kind());
            add("s", k[1], k[0], i.from(), i.fromNs()).id = flowId;
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("by", i.from().name());
            a.put("by_tid", tid(i.from()));
            if (i.kind() == Interactions.Kind.NOTIFY || i.kind() == Interactions.Kind.NOTIFY_ALL) {
                a.put("monitor", className(i.monitor()));
                a.put("monitor_id", i.monitor());
            } else if (i.kind() == Interactions.Kind.UNPARK && i.monitor() != 0) {
                a.put("monitor", blockerClass(i.monitor()));
                a.put("monitor_id", i.monitor());
            }
            add("I", k[2], k[0], i.to(), i.toNs()).args = a;
            Ev fin = add("f", k[1], k[0], i.to(), i.toNs());
            fin.id = flowId;
            fin.bindEnclosing = true;
            flowId++;
        }

        /** The critical path's own track: one slice per segment longer than 0. */
        void criticalPath(List<Ev> slices) {
            for (CriticalPath.Segment sg : path.segments()) {
                if (sg.durationNs() <= 0) {
                    continue;
                }
                boolean park = sg.interval() != null && sg.interval().isPark();
                String cls = park ? (sg.monitor() == 0 ? "" : blockerClass(sg.monitor())) : className(sg.monitor());
                String what = switch (sg.state()) {
                    case RUNNING -> "running";
                    case BLOCKED -> "blocked on " + cls;
                    case DEADLOCKED -> "deadlocked on " + cls;
                    case WAITING -> park ? (sg.monitor() == 0 ? "parked" : "parked on " + cls) : "wait on " + cls;
                    case SLEEPING -> "sleep";
                    case JOINING -> "join " + r.threadByObject(sg.monitor()).map(RecordedThread::name)
                            .orElse("thread object " + sg.monitor());
                    case STARTING -> "starting";
                    case DEAD -> "dead";
                    case UNKNOWN -> "unknown (records lost)";
                };
                Ev e = add("X", sg.thread().name() + ": " + what, "critical", CRITICAL_TID, sg.startNs());
                e.dur = Math.max(0, sg.endNs() - start) - e.ts;
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("thread", sg.thread().name());
                a.put("tid", tid(sg.thread()));
                a.put("state", sg.state().name().toLowerCase(java.util.Locale.ROOT));
                if (sg.monitor() != 0) {
                    a.put("monitor_id", sg.monitor());
                }
                if (sg.via() != null) {
                    a.put("from", sg.via().from().name());
                    a.put("via", sg.via().kind().name().toLowerCase(java.util.Locale.ROOT));
                }
                e.args = a;
                slices.add(e);
            }
        }

        /** Trims a slice that would partially overlap the previous one on its track (only possible with lost data). */
        void nest(List<Ev> slices) {
            Map<Long, List<Ev>> byTid = new TreeMap<>();
            for (Ev e : slices) {
                byTid.computeIfAbsent(e.tid, k -> new ArrayList<>()).add(e);
            }
            for (List<Ev> list : byTid.values()) {
                list.sort(Comparator.<Ev>comparingLong(e -> e.ts).thenComparingLong(e -> -e.dur));
                List<Ev> open = new ArrayList<>();
                for (Ev e : list) {
                    while (!open.isEmpty() && end(open.get(open.size() - 1)) <= e.ts) {
                        open.remove(open.size() - 1);
                    }
                    if (!open.isEmpty() && end(e) > end(open.get(open.size() - 1))) {
                        e.dur = end(open.get(open.size() - 1)) - e.ts;
                    }
                    open.add(e);
                }
            }
        }

        static long end(Ev e) {
            return e.ts + e.dur;
        }

        Map<String, Object> monitorArgs(Interval in) {
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("monitor", className(in.monitor()));
            a.put("monitor_id", in.monitor());
            a.put("stack", stack(in.begin().stackId()));
            return a;
        }

        Map<String, Object> stackArgs(Interval in) {
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("stack", stack(in.begin().stackId()));
            return a;
        }

        final Map<Integer, List<String>> stacks = new java.util.HashMap<>();

        /** The readable frames of a stack, made once per stack id (shared by every event with it). */
        List<String> stack(int stackId) {
            return stacks.computeIfAbsent(stackId, id -> {
                List<String> stack = new ArrayList<>();
                for (Frame fr : r.frames(id)) {
                    stack.add(Text.wellFormed(r.describe(fr)));
                }
                return List.copyOf(stack);
            });
        }

        final Map<Long, String> classNames = new java.util.HashMap<>();

        final Map<Long, RecordedThread> byJavaId;

        String blockerClass(long obj) {
            String c = dev.convoy.analysis.Blockers.className(r, obj);
            return c.isEmpty() ? "object " + obj : c;
        }

        String className(long obj) {
            return classNames.computeIfAbsent(obj, o -> {
                String c = r.objectClassName(o);
                return c.isEmpty() ? "object " + o : c;
            });
        }

        void writeMetadataEvents() throws IOException {
            String main = r.mainClass();
            meta("process_name", 0, "name", "java " + (main.isEmpty() ? "?" : main) + " (pid " + pid + ")");
            // One name per track; a thread met twice keeps the name of its latest ring.
            Map<Long, RecordedThread> tracks = new LinkedHashMap<>();
            Map<Long, Long> firstStart = new LinkedHashMap<>();
            boolean gc = false;
            for (RecordedThread t : r.threads()) {
                if (t.isSystem()) {
                    gc = true;
                    continue;
                }
                tracks.put(tid(t), t);
                firstStart.merge(tid(t), t.startNs(), Math::min);
            }
            List<Long> order = new ArrayList<>(tracks.keySet());
            order.sort(Comparator.<Long>comparingInt(tid -> tracks.get(tid).name().equals("main") ? 0 : 1)
                    .thenComparingLong(firstStart::get).thenComparingLong(tid -> tid));
            int index = 0;
            for (long tid : order) {
                String name = tracks.get(tid).name();
                meta("thread_name", tid, "name", name.isEmpty() ? "thread " + tid : name);
                meta("thread_sort_index", tid, "sort_index", index++);
            }
            if (gc) {
                meta("thread_name", GC_TID, "name", "GC");
                meta("thread_sort_index", GC_TID, "sort_index", index++);
            }
            if (path.segments().stream().anyMatch(sg -> sg.durationNs() > 0)) {
                meta("thread_name", CRITICAL_TID, "name", "critical path");
                meta("thread_sort_index", CRITICAL_TID, "sort_index", index);
            }
        }

        void meta(String name, long tid, String key, Object value) throws IOException {
            g.writeStartObject();
            g.writeStringField("name", name);
            g.writeStringField("ph", "M");
            g.writeNumberField("pid", pid);
            g.writeNumberField("tid", tid);
            g.writeObjectFieldStart("args");
            writeValue(key, value);
            g.writeEndObject();
            g.writeEndObject();
        }

        void writeEvent(Ev e) throws IOException {
            g.writeStartObject();
            g.writeStringField("name", Text.wellFormed(e.name));
            g.writeStringField("cat", e.cat);
            g.writeStringField("ph", e.ph);
            g.writeFieldName("ts");
            g.writeNumber(Text.micros(e.ts));
            if (e.dur >= 0) {
                g.writeFieldName("dur");
                g.writeNumber(Text.micros(e.dur));
            }
            g.writeNumberField("pid", pid);
            g.writeNumberField("tid", e.tid);
            if (e.ph.equals("I")) {
                g.writeStringField("s", "t");
            }
            if (e.id != 0) {
                g.writeNumberField("id", e.id);
            }
            if (e.bindEnclosing) {
                g.writeStringField("bp", "e");
            }
            Map<String, Object> args = e.args != null ? e.args : e.lazyArgs != null ? e.lazyArgs.get() : null;
            if (args != null && !args.isEmpty()) {
                g.writeObjectFieldStart("args");
                for (Map.Entry<String, Object> a : args.entrySet()) {
                    writeValue(a.getKey(), a.getValue());
                }
                g.writeEndObject();
            }
            g.writeEndObject();
        }

        void writeValue(String key, Object v) throws IOException {
            g.writeFieldName(key);
            if (v instanceof Number n) {
                g.writeNumber(n.longValue());
            } else if (v instanceof Boolean b) {
                g.writeBoolean(b);
            } else if (v instanceof List<?> list) {
                g.writeStartArray();
                for (Object o : list) {
                    g.writeString(Text.wellFormed(o instanceof String str ? str : String.valueOf(o)));
                }
                g.writeEndArray();
            } else {
                g.writeString(Text.wellFormed(v instanceof String str ? str : String.valueOf(v)));
            }
        }
    }
}
