package dev.convoy.export;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import dev.convoy.analysis.Interval;
import dev.convoy.analysis.Intervals;
import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.model.Frame;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
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
 * Chrome trace JSON (Perfetto, chrome://tracing, DevTools), following
 * {@code shared/formats/chrome-trace.md}.
 *
 * <p>Layout: {@code {"traceEvents":[...],"metadata":{...}}}, compact, UTF-8, raw non-ASCII.
 * One process (pid from INFO); one track per Java thread (tid = Java thread id) named by
 * {@code thread_name} and ordered by {@code thread_sort_index} (thread "main" first, then
 * by start); GC pauses on their own track {@link #GC_TID}. {@code X} slices for blocked
 * (cat {@code monitor}, name {@code "blocked on <class>"}) and waiting ({@code "wait on
 * <class>"}) intervals; {@code I} thread-scoped instants for thread start and end; lock
 * handoffs as v1 flows (cat {@code handoff}): an {@code s} on a 0-length {@code "monitor
 * released"} instant on the owner's track at the release moment, an {@code f} with
 * {@code bp:"e"} on a 0-length {@code "monitor acquired"} instant at the acquisition.
 * Timestamps are microseconds since recording start with up to 3 decimals, clamped at 0.
 */
public final class ChromeTraceWriter implements Exporter {
    /** Track id of GC pauses: fits in a signed 32-bit int, far above any Java thread id seen in practice. */
    public static final long GC_TID = 2_000_000_000L;

    private static final String HANDOFF = "handoff";
    private static final String HANDOFF_NAME = "lock handoff";

    @Override
    public List<Path> export(Recording recording, Path out) throws IOException {
        return List.of(AtomicFiles.write(out, os -> write(recording, os)));
    }

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

        Run(Recording r, JsonGenerator g) {
            this.r = r;
            this.g = g;
            this.start = r.startMonotonicNs();
            this.pid = r.pid();
            this.owners = MonitorOwnership.of(r);
        }

        long tid(RecordedThread t) {
            if (t.isSystem()) {
                return GC_TID;
            }
            long id = t.javaThreadId();
            return id >= 0 && id <= 0xFFFF_FFFFL && id != GC_TID ? id : GC_TID + 1 + t.ringId() % 1_000_000;
        }

        Ev add(String ph, String name, String cat, RecordedThread t, long ts) {
            Ev e = new Ev();
            e.ph = ph;
            e.name = name;
            e.cat = cat;
            e.tid = tid(t);
            e.ts = Math.max(0, ts - start);
            e.seq = events.size();
            events.add(e);
            return e;
        }

        void write() throws IOException {
            collect();
            events.sort(Comparator.<Ev>comparingLong(e -> e.ts).thenComparingInt(Ev::rank)
                    .thenComparingLong(e -> -e.dur).thenComparingInt(e -> e.seq));
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
                Ev e;
                switch (in.kind()) {
                    case GC -> {
                        e = add("X", "GC", "gc", in.thread(), in.startNs());
                        e.args = in.isOpen() ? Map.of("open", true) : Map.of();
                    }
                    case BLOCKED -> {
                        e = add("X", "blocked on " + className(in.monitor()), "monitor", in.thread(), in.startNs());
                        Map<String, Object> a = monitorArgs(in);
                        RecordedThread owner = owners.ownerAt(in.begin()).orElse(null);
                        a.put("owner", owner == null ? "unknown" : owner.name());
                        a.put("owner_tid", owner == null ? 0 : tid(owner));
                        if (in.isOpen()) {
                            a.put("result", "still blocked at snapshot");
                        }
                        e.args = a;
                    }
                    default -> {
                        e = add("X", "wait on " + className(in.monitor()), "monitor", in.thread(), in.startNs());
                        Map<String, Object> a = monitorArgs(in);
                        a.put("timeout_ms", in.timeoutMs());
                        a.put("result", in.isOpen() ? "still waiting at snapshot"
                                : in.timedOut() ? "timed out" : "notified");
                        e.args = a;
                    }
                }
                e.dur = Math.max(0, in.endNs() - start) - e.ts;
                slices.add(e);
            }
            nest(slices);
            long flowId = 1;
            for (MonitorOwnership.Handoff h : owners.handoffs()) {
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("monitor", className(h.monitor()));
                a.put("monitor_id", h.monitor());
                add("I", "monitor released", HANDOFF, h.from(), h.releaseNs()).args = a;
                add("s", HANDOFF_NAME, HANDOFF, h.from(), h.releaseNs()).id = flowId;
                add("I", "monitor acquired", HANDOFF, h.to(), h.acquireNs()).args = a;
                Ev fin = add("f", HANDOFF_NAME, HANDOFF, h.to(), h.acquireNs());
                fin.id = flowId;
                fin.bindEnclosing = true;
                flowId++;
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
            List<String> stack = new ArrayList<>();
            for (Frame fr : r.frames(in.begin().stackId())) {
                stack.add(r.describe(fr));
            }
            a.put("stack", stack);
            return a;
        }

        String className(long obj) {
            String c = r.objectClassName(obj);
            return c.isEmpty() ? "object " + obj : c;
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
                meta("thread_sort_index", GC_TID, "sort_index", index);
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
            if (e.args != null && !e.args.isEmpty()) {
                g.writeObjectFieldStart("args");
                for (Map.Entry<String, Object> a : e.args.entrySet()) {
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
                    g.writeString(Text.wellFormed(String.valueOf(o)));
                }
                g.writeEndArray();
            } else {
                g.writeString(Text.wellFormed(String.valueOf(v)));
            }
        }
    }
}
