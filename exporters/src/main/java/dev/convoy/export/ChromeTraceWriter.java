package dev.convoy.export;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import dev.convoy.analysis.ContentionIndex;
import dev.convoy.analysis.Interactions.Kind;
import dev.convoy.analysis.LongMap;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.Frame;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Chrome trace JSON (Perfetto, chrome://tracing, DevTools), following
 * {@code shared/formats/chrome-trace.md}; content in {@code docs/formats.md}.
 *
 * <p>Layout: {@code {"traceEvents":[...],"metadata":{...}}}, compact, UTF-8, raw non-ASCII.
 * One process (pid from INFO); one track per Java thread (tid = Java thread id) named by
 * {@code thread_name} and ordered by {@code thread_sort_index} (thread "main" first, then
 * by start); GC pauses on their own track {@link #GC_TID}; the critical path on
 * {@link #CRITICAL_TID}. {@code X} slices for the {@link dev.convoy.analysis.Intervals},
 * {@code I} thread-scoped instants for thread start and end and the instrumented calls,
 * v1 flows ({@code s} after a source instant, {@code f} with {@code bp:"e"} after a
 * destination instant) for handoffs and every other interaction but TIMEOUT.
 * Timestamps are microseconds since recording start with up to 3 decimals, clamped at 0.
 *
 * <p>Streamed: the analysis is a {@link ContentionIndex} (primitive arrays, nothing per
 * event); the events are written in time order while {@link Recording#events()} is read,
 * merged with the thread start/end marks, the arrows' sources and destinations (sorted
 * arrays of interaction ids) and the critical path's segments. A slice is written at its
 * start with the duration the index knows; per track a stack of open slice ends trims a
 * slice that would partially overlap its parent (only possible with lost data).
 */
public final class ChromeTraceWriter implements Exporter {
    /** Track id of GC pauses: fits in a signed 32-bit int, far above any Java thread id seen in practice. */
    public static final long GC_TID = 2_000_000_000L;
    /** Track id of the critical path: one slice per segment. */
    public static final long CRITICAL_TID = 1_999_999_999L;

    @Override
    public List<Path> export(Recording recording, Path out) throws IOException {
        return List.of(AtomicFiles.write(out, os -> write(recording, os)));
    }

    /** Writes the trace to a stream (not closed). */
    public void write(Recording r, OutputStream os) throws IOException {
        try (JsonGenerator g = factory().createGenerator(os, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            new Run(r, g).write();
        }
    }

    /** Raw UTF-8, and supplementary characters as 4-byte UTF-8: Perfetto rejects escaped surrogates. */
    private static JsonFactory factory() {
        return JsonFactory.builder().disable(JsonWriteFeature.ESCAPE_NON_ASCII)
                .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8).build();
    }

    private static SerializedString s(String v) {
        return new SerializedString(v);
    }

    private static final SerializedString NAME = s("name");
    private static final SerializedString CAT = s("cat");
    private static final SerializedString PH = s("ph");
    private static final SerializedString TS = s("ts");
    private static final SerializedString DUR = s("dur");
    private static final SerializedString PID = s("pid");
    private static final SerializedString TID = s("tid");
    private static final SerializedString ID = s("id");
    private static final SerializedString ARGS = s("args");
    private static final SerializedString SCOPE = s("s");
    private static final SerializedString BP = s("bp");
    private static final SerializedString STACK = s("stack");
    private static final SerializedString MONITOR = s("monitor");
    private static final SerializedString MONITOR_ID = s("monitor_id");
    private static final SerializedString CRITICAL = s("critical");
    private static final SerializedString RESULT = s("result");
    private static final SerializedString TIMEOUT_MS = s("timeout_ms");
    private static final SerializedString OWNER = s("owner");
    private static final SerializedString OWNER_TID = s("owner_tid");
    private static final SerializedString THREAD = s("thread");
    private static final SerializedString THREAD_TID = s("thread_tid");
    private static final SerializedString UNKNOWN = s("unknown");
    private static final SerializedString V_X = s("X");
    private static final SerializedString V_I = s("I");
    private static final SerializedString V_S = s("s");
    private static final SerializedString V_F = s("f");
    private static final SerializedString V_T = s("t");
    private static final SerializedString V_E = s("e");
    private static final SerializedString V_MONITOR = s("monitor");
    private static final SerializedString GC = s("GC");
    private static final SerializedString CAT_GC = s("gc");
    private static final SerializedString SLEEP = s("sleep");
    private static final SerializedString HANDOFF = s("handoff");
    private static final SerializedString THREAD_START = s("thread start");
    private static final SerializedString THREAD_END = s("thread end");
    private static final SerializedString CAT_THREAD = s("thread");
    private static final SerializedString CAT_NOTIFY = s("notify");
    private static final SerializedString CAT_INTERRUPT = s("interrupt");
    private static final SerializedString CAT_JOIN = s("join");
    private static final SerializedString START_CALL = s("Thread.start");
    private static final SerializedString INTERRUPT_CALL = s("Thread.interrupt");
    private static final SerializedString NOTIFY = s("notify");
    private static final SerializedString NOTIFY_ALL = s("notifyAll");
    private static final SerializedString INTERRUPTED = s("InterruptedException");
    private static final SerializedString RELEASED = s("monitor released");
    private static final SerializedString TERMINATED = s("terminated");
    private static final SerializedString HANDOFF_NAME = s("lock handoff");

    /** Category, flow name and destination instant name of each arrow kind. */
    private static final SerializedString[][] ARROWS = new SerializedString[Kind.values().length][];

    static {
        ARROWS[Kind.START.ordinal()] = new SerializedString[] {s("start"), s("starts thread"), s("started")};
        ARROWS[Kind.NOTIFY.ordinal()] = new SerializedString[] {s("notify"), s("notify"), s("notified")};
        ARROWS[Kind.NOTIFY_ALL.ordinal()] = new SerializedString[] {s("notify"), s("notifyAll"), s("notified")};
        ARROWS[Kind.INTERRUPT.ordinal()] = new SerializedString[] {s("interrupt"), s("interrupt"), s("woken by interrupt")};
        ARROWS[Kind.JOIN_END.ordinal()] = new SerializedString[] {s("join"), s("thread ended"), s("joined")};
        ARROWS[Kind.HANDOFF.ordinal()] = new SerializedString[] {HANDOFF, HANDOFF_NAME, s("monitor acquired")};
    }

    private static SerializedString[] arrow(Kind k) {
        return ARROWS[k.ordinal()];
    }

    private static final class Run {
        final Recording r;
        final JsonGenerator g;
        final long start;
        final long pid;
        final ContentionIndex x;
        final RecordedThread[] threads;
        final long[] tids;
        final SerializedString[] names;
        final LongMap<SerializedString> stacks = new LongMap<>();
        final LongMap<Names> monitorNames = new LongMap<>();
        final LongMap<long[]> open = new LongMap<>(); // per track: stack of open slice ends, [0] = depth
        final char[] num = new char[24];
        int starts;
        int interrupts;
        int notifies;

        Run(Recording r, JsonGenerator g) {
            this.r = r;
            this.g = g;
            this.start = r.startMonotonicNs();
            this.pid = r.pid();
            this.x = ContentionIndex.of(r);
            this.threads = r.threads().toArray(new RecordedThread[0]);
            this.tids = new long[threads.length];
            this.names = new SerializedString[threads.length];
            for (int k = 0; k < threads.length; k++) {
                tids[k] = tid(threads[k]);
                names[k] = s(Text.wellFormed(threads[k].name()));
            }
        }

        static long tid(RecordedThread t) {
            if (t.isSystem()) {
                return GC_TID;
            }
            long id = t.javaThreadId();
            return id >= 0 && id <= 0xFFFF_FFFFL && id != GC_TID ? id : GC_TID + 1 + t.ringId() % 1_000_000;
        }

        long tid(int ring) {
            return tids[ring];
        }

        void write() throws IOException {
            g.writeStartObject();
            g.writeArrayFieldStart("traceEvents");
            writeMetadataEvents();
            timeline();
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

        /**
         * Everything but metadata in time order: at equal times thread starts, then records,
         * arrow sources (handoff releases, ended threads), arrow destinations, critical-path
         * segments, thread ends.
         */
        void timeline() throws IOException {
            long[] startMarks = RingState.marks(r, t -> !t.isSystem() && !t.isLate(), RecordedThread::startNs);
            long[] endMarks = RingState.marks(r, t -> !t.isSystem() && t.isEnded() && t.endNs() != 0,
                    RecordedThread::endNs);
            int[] sources = x.sortedBy(true, id -> x.kind(id) == Kind.HANDOFF || x.kind(id) == Kind.JOIN_END);
            int[] dests = x.sortedBy(false, id -> true);
            int si = 0;
            int ei = 0;
            int so = 0;
            int de = 0;
            int sg = 0;
            Iterator<Event> it = r.events().iterator();
            Event e = it.hasNext() ? it.next() : null;
            while (true) {
                int pick = -1;
                long best = Long.MAX_VALUE;
                if (si < RingState.count(startMarks)) {
                    pick = 0;
                    best = RingState.ts(startMarks, si);
                }
                if (e != null && (pick < 0 || e.ts() < best)) {
                    pick = 1;
                    best = e.ts();
                }
                if (so < sources.length && (pick < 0 || x.fromNs(sources[so]) < best)) {
                    pick = 2;
                    best = x.fromNs(sources[so]);
                }
                if (de < dests.length && (pick < 0 || x.toNs(dests[de]) < best)) {
                    pick = 3;
                    best = x.toNs(dests[de]);
                }
                while (sg < x.segments() && x.segmentEndNs(sg) <= x.segmentStartNs(sg)) {
                    sg++;
                }
                if (sg < x.segments() && (pick < 0 || x.segmentStartNs(sg) < best)) {
                    pick = 4;
                    best = x.segmentStartNs(sg);
                }
                if (ei < RingState.count(endMarks) && (pick < 0 || RingState.ts(endMarks, ei) < best)) {
                    pick = 5;
                }
                switch (pick) {
                    case 0 -> {
                        RecordedThread t = threads[RingState.ring(startMarks, si)];
                        threadMark(THREAD_START, RingState.ring(startMarks, si++), t.startNs());
                    }
                    case 1 -> {
                        event(e);
                        e = it.hasNext() ? it.next() : null;
                    }
                    case 2 -> source(sources[so++]);
                    case 3 -> destination(dests[de++]);
                    case 4 -> segment(sg++);
                    case 5 -> {
                        RecordedThread t = threads[RingState.ring(endMarks, ei)];
                        threadMark(THREAD_END, RingState.ring(endMarks, ei++), t.endNs());
                    }
                    default -> {
                        return;
                    }
                }
            }
        }

        void threadMark(SerializedString name, int ring, long ns) throws IOException {
            begin(name, CAT_THREAD, V_I, tid(ring), ns);
            g.writeFieldName(ARGS);
            g.writeStartObject();
            g.writeFieldName(NAME);
            g.writeString(names[ring]);
            g.writeEndObject();
            g.writeEndObject();
        }

        void event(Event e) throws IOException {
            RecordedThread t = e.thread();
            int ring = x.ring(t);
            switch (e.type()) {
                case MONITOR_ENTER, MONITOR_WAIT, SLEEP, JOIN, GC_START -> {
                    int iv = x.intervalAt(ring, e.index());
                    if (iv >= 0) {
                        slice(ring, iv, e);
                    }
                }
                case START_CALL, INTERRUPT_CALL -> {
                    boolean isStart = e.type() == EventType.START_CALL;
                    int id = isStart ? x.startCall(starts++) : x.interruptCall(interrupts++);
                    if (t.isSystem()) {
                        return;
                    }
                    RecordedThread target = r.threadByObject(e.obj()).orElse(null);
                    SerializedString cat = arrow(isStart ? Kind.START : Kind.INTERRUPT)[0];
                    begin(isStart ? START_CALL : INTERRUPT_CALL, cat, V_I, tid(ring), e.ts());
                    g.writeFieldName(ARGS);
                    g.writeStartObject();
                    threadArgs(THREAD, THREAD_TID, target);
                    if (!isStart) {
                        g.writeBooleanField("target_waiting", e.arg() == 1);
                    }
                    stack(e.stackId());
                    g.writeEndObject();
                    g.writeEndObject();
                    if (id >= 0) {
                        flow(V_S, id, ring, e.ts());
                    }
                }
                case NOTIFY, NOTIFY_ALL -> {
                    int[] woke = x.notifyCall(notifies++);
                    if (t.isSystem()) {
                        return;
                    }
                    begin(e.type() == EventType.NOTIFY ? NOTIFY : NOTIFY_ALL, CAT_NOTIFY, V_I, tid(ring), e.ts());
                    g.writeFieldName(ARGS);
                    g.writeStartObject();
                    monitorArgs(e.obj());
                    g.writeArrayFieldStart("woke");
                    for (int id : woke) {
                        g.writeString(names[x.ring(x.to(id))]);
                    }
                    g.writeEndArray();
                    stack(e.stackId());
                    g.writeEndObject();
                    g.writeEndObject();
                    for (int id : woke) {
                        flow(V_S, id, ring, e.ts());
                    }
                }
                case THREAD_INTERRUPTED -> {
                    if (t.isSystem()) {
                        return;
                    }
                    begin(INTERRUPTED, CAT_INTERRUPT, V_I, tid(ring), e.ts());
                    g.writeFieldName(ARGS);
                    g.writeStartObject();
                    stack(e.stackId());
                    g.writeEndObject();
                    g.writeEndObject();
                }
                default -> {
                }
            }
        }

        /** The slice of an interval, written at its start. */
        void slice(int ring, int iv, Event beginEvent) throws IOException {
            int kind = x.kind(ring, iv);
            long mon = x.monitor(ring, iv);
            boolean open = x.isOpen(ring, iv);
            SerializedString name;
            SerializedString cat;
            switch (kind) {
                case ContentionIndex.GC -> {
                    name = GC;
                    cat = CAT_GC;
                }
                case ContentionIndex.BLOCKED -> {
                    name = names(mon).blocked();
                    cat = V_MONITOR;
                }
                case ContentionIndex.SLEEPING -> {
                    name = SLEEP;
                    cat = SLEEP;
                }
                case ContentionIndex.JOINING -> {
                    name = s(Text.wellFormed("join " + joinedName(mon)));
                    cat = CAT_JOIN;
                }
                default -> {
                    name = names(mon).waitOn();
                    cat = V_MONITOR;
                }
            }
            long tid = tid(ring);
            long ts = rel(x.startNs(ring, iv));
            long end = Math.max(ts, rel(x.endNs(ring, iv))); // reordered records can end an interval before it starts
            g.writeStartObject();
            g.writeFieldName(NAME);
            g.writeString(name);
            g.writeFieldName(CAT);
            g.writeString(cat);
            g.writeFieldName(PH);
            g.writeString(V_X);
            g.writeFieldName(TS);
            micros(ts);
            g.writeFieldName(DUR);
            micros(nest(tid, ts, end) - ts);
            g.writeFieldName(PID);
            g.writeNumber(pid);
            g.writeFieldName(TID);
            g.writeNumber(tid);
            if (kind == ContentionIndex.GC && !open) {
                g.writeEndObject();
                return;
            }
            g.writeFieldName(ARGS);
            g.writeStartObject();
            long timeout = kind == ContentionIndex.GC || kind == ContentionIndex.BLOCKED ? 0 : beginEvent.arg();
            switch (kind) {
                case ContentionIndex.GC -> g.writeBooleanField("open", true);
                case ContentionIndex.BLOCKED -> {
                    monitorArgs(mon);
                    stack(beginEvent.stackId());
                    RecordedThread owner = x.owner(ring, iv);
                    threadArgs(OWNER, OWNER_TID, owner);
                    if (open) {
                        g.writeFieldName(RESULT);
                        g.writeString("still blocked at snapshot");
                    }
                }
                case ContentionIndex.SLEEPING -> {
                    stack(beginEvent.stackId());
                    g.writeNumberField("requested_ms", timeout);
                    g.writeFieldName(RESULT);
                    g.writeString(open ? "still sleeping at snapshot" : x.interrupted(ring, iv) ? "interrupted" : "slept");
                }
                case ContentionIndex.JOINING -> {
                    RecordedThread joined = r.threadByObject(mon).orElse(null);
                    stack(beginEvent.stackId());
                    g.writeFieldName(THREAD);
                    g.writeString(Text.wellFormed(joinedName(mon)));
                    g.writeFieldName(THREAD_TID);
                    g.writeNumber(joined == null ? 0 : tid(x.ring(joined)));
                    g.writeFieldName(TIMEOUT_MS);
                    g.writeNumber(timeout);
                    g.writeFieldName(RESULT);
                    g.writeString(open ? "still joining at snapshot" : x.interrupted(ring, iv) ? "interrupted" : "joined");
                }
                default -> {
                    monitorArgs(mon);
                    stack(beginEvent.stackId());
                    g.writeFieldName(TIMEOUT_MS);
                    g.writeNumber(timeout);
                    g.writeFieldName(RESULT);
                    g.writeString(open ? "still waiting at snapshot" : x.timedOut(ring, iv) ? "timed out" : "notified");
                }
            }
            if (kind != ContentionIndex.GC && x.isOnPath(ring, iv)) {
                g.writeFieldName(CRITICAL);
                g.writeBoolean(true);
            }
            g.writeEndObject();
            g.writeEndObject();
        }

        /**
         * The end of a slice starting at {@code ts} on a track, trimmed to the end of the
         * innermost open slice if it would overlap it partially; the slice is then open.
         */
        long nest(long tid, long ts, long end) {
            long[] st = open.get(tid);
            if (st == null) {
                st = new long[9];
                open.put(tid, st);
            }
            int n = (int) st[0];
            while (n > 0 && st[n] <= ts) {
                n--;
            }
            if (n > 0 && end > st[n]) {
                end = st[n];
            }
            if (n + 1 == st.length) {
                st = java.util.Arrays.copyOf(st, 2 * st.length);
                open.put(tid, st);
            }
            st[++n] = end;
            st[0] = n;
            return end;
        }

        /** The source of a handoff ("monitor released") or of a join's end ("terminated"), and its s. */
        void source(int id) throws IOException {
            int ring = x.ring(x.from(id));
            if (x.kind(id) == Kind.HANDOFF) {
                begin(RELEASED, HANDOFF, V_I, tid(ring), x.fromNs(id));
                g.writeFieldName(ARGS);
                g.writeStartObject();
                monitorArgs(x.monitor(id));
                g.writeEndObject();
            } else {
                begin(TERMINATED, CAT_JOIN, V_I, tid(ring), x.fromNs(id));
                g.writeFieldName(ARGS);
                g.writeStartObject();
                g.writeFieldName("joiner");
                g.writeString(names[x.ring(x.to(id))]);
                g.writeEndObject();
            }
            g.writeEndObject();
            flow(V_S, id, ring, x.fromNs(id));
        }

        /** The destination instant of an arrow and its f. */
        void destination(int id) throws IOException {
            Kind k = x.kind(id);
            int ring = x.ring(x.to(id));
            SerializedString[] a = arrow(k);
            begin(a[2], a[0], V_I, tid(ring), x.toNs(id));
            g.writeFieldName(ARGS);
            g.writeStartObject();
            if (k != Kind.HANDOFF) {
                int from = x.ring(x.from(id));
                g.writeFieldName("by");
                g.writeString(names[from]);
                g.writeNumberField("by_tid", tid(from));
            }
            if (k == Kind.HANDOFF || k == Kind.NOTIFY || k == Kind.NOTIFY_ALL) {
                monitorArgs(x.monitor(id));
            }
            g.writeEndObject();
            g.writeEndObject();
            flow(V_F, id, ring, x.toNs(id));
        }

        void flow(SerializedString ph, int id, int ring, long ns) throws IOException {
            SerializedString[] a = arrow(x.kind(id));
            begin(a[1], a[0], ph, tid(ring), ns);
            g.writeFieldName(ID);
            g.writeNumber(id + 1L);
            if (ph == V_F) {
                g.writeFieldName(BP);
                g.writeString(V_E);
            }
            g.writeEndObject();
        }

        /** One slice of the critical path's track. */
        void segment(int s) throws IOException {
            RecordedThread t = x.segmentThread(s);
            long mon = x.segmentMonitor(s);
            String what = switch (x.segmentState(s)) {
                case RUNNING -> "running";
                case BLOCKED -> "blocked on " + className(mon).getValue();
                case DEADLOCKED -> "deadlocked on " + className(mon).getValue();
                case WAITING -> "wait on " + className(mon).getValue();
                case SLEEPING -> "sleep";
                case JOINING -> "join " + joinedName(mon);
                case STARTING -> "starting";
                case DEAD -> "dead";
            };
            long ts = rel(x.segmentStartNs(s));
            long end = Math.max(ts, rel(x.segmentEndNs(s)));
            g.writeStartObject();
            g.writeFieldName(NAME);
            g.writeString(Text.wellFormed(t.name() + ": " + what));
            g.writeFieldName(CAT);
            g.writeString("critical");
            g.writeFieldName(PH);
            g.writeString(V_X);
            g.writeFieldName(TS);
            micros(ts);
            g.writeFieldName(DUR);
            micros(nest(CRITICAL_TID, ts, end) - ts);
            g.writeFieldName(PID);
            g.writeNumber(pid);
            g.writeFieldName(TID);
            g.writeNumber(CRITICAL_TID);
            g.writeFieldName(ARGS);
            g.writeStartObject();
            g.writeFieldName(THREAD);
            g.writeString(names[x.ring(t)]);
            g.writeNumberField("tid", tid(x.ring(t)));
            g.writeStringField("state", x.segmentState(s).name().toLowerCase(Locale.ROOT));
            if (mon != 0) {
                g.writeFieldName(MONITOR_ID);
                g.writeNumber(mon);
            }
            int via = x.segmentVia(s);
            if (via >= 0) {
                g.writeFieldName("from");
                g.writeString(names[x.ring(x.from(via))]);
                g.writeStringField("via", x.kind(via).name().toLowerCase(Locale.ROOT));
            }
            g.writeEndObject();
            g.writeEndObject();
        }

        /** Opens an event object and writes name, cat, ph, ts, pid, tid (and s for an instant). */
        void begin(SerializedString name, SerializedString cat, SerializedString ph, long tid, long ns)
                throws IOException {
            g.writeStartObject();
            g.writeFieldName(NAME);
            g.writeString(name);
            g.writeFieldName(CAT);
            g.writeString(cat);
            g.writeFieldName(PH);
            g.writeString(ph);
            g.writeFieldName(TS);
            micros(rel(ns));
            g.writeFieldName(PID);
            g.writeNumber(pid);
            g.writeFieldName(TID);
            g.writeNumber(tid);
            if (ph == V_I) {
                g.writeFieldName(SCOPE);
                g.writeString(V_T);
            }
        }

        long rel(long ns) {
            return Math.max(0, ns - start);
        }

        /** ns (&ge; 0) as microseconds with at most 3 decimals, trailing zeros removed ({@link Text#micros}). */
        void micros(long ns) throws IOException {
            long whole = ns / 1000;
            int frac = (int) (ns % 1000);
            int at = num.length;
            if (frac != 0) {
                int digits = 3;
                while (frac % 10 == 0) {
                    frac /= 10;
                    digits--;
                }
                for (int i = 0; i < digits; i++) {
                    num[--at] = (char) ('0' + frac % 10);
                    frac /= 10;
                }
                num[--at] = '.';
            }
            do {
                num[--at] = (char) ('0' + whole % 10);
                whole /= 10;
            } while (whole > 0);
            g.writeNumber(num, at, num.length - at);
        }

        /** {@code "<name>":"<thread name>","<tid>":<tid>}, "unknown" and 0 for no thread. */
        void threadArgs(SerializedString nameField, SerializedString tidField, RecordedThread t) throws IOException {
            g.writeFieldName(nameField);
            g.writeString(t == null ? UNKNOWN : names[x.ring(t)]);
            g.writeFieldName(tidField);
            g.writeNumber(t == null ? 0 : tid(x.ring(t)));
        }

        void monitorArgs(long mon) throws IOException {
            g.writeFieldName(MONITOR);
            g.writeString(className(mon));
            g.writeFieldName(MONITOR_ID);
            g.writeNumber(mon);
        }

        /** {@code "stack":[frames]}, the array rendered once per stack id. */
        void stack(int stackId) throws IOException {
            SerializedString json = stacks.get(stackId);
            if (json == null) {
                StringWriter w = new StringWriter();
                try (JsonGenerator a = factory().createGenerator(w)) {
                    a.writeStartArray();
                    for (Frame fr : r.frames(stackId)) {
                        a.writeString(Text.wellFormed(r.describe(fr)));
                    }
                    a.writeEndArray();
                }
                json = new SerializedString(w.toString());
                stacks.put(stackId, json);
            }
            g.writeFieldName(STACK);
            g.writeRawValue(json);
        }

        /** A monitor's class name and its slices' names, made once per monitor. */
        record Names(SerializedString cls, SerializedString blocked, SerializedString waitOn) {
        }

        Names names(long obj) {
            Names n = monitorNames.get(obj);
            if (n == null) {
                String c = r.objectClassName(obj);
                String cls = Text.wellFormed(c.isEmpty() ? "object " + obj : c);
                n = new Names(s(cls), s("blocked on " + cls), s("wait on " + cls));
                monitorNames.put(obj, n);
            }
            return n;
        }

        SerializedString className(long obj) {
            return names(obj).cls();
        }

        String joinedName(long obj) {
            RecordedThread joined = r.threadByObject(obj).orElse(null);
            return joined == null ? "thread object " + obj : joined.name();
        }

        void writeMetadataEvents() throws IOException {
            String main = r.mainClass();
            meta("process_name", 0, "name", "java " + (main.isEmpty() ? "?" : main) + " (pid " + pid + ")");
            // One name per track; a thread met twice keeps the name of its latest ring.
            Map<Long, RecordedThread> tracks = new LinkedHashMap<>();
            Map<Long, Long> firstStart = new LinkedHashMap<>();
            boolean gc = false;
            for (RecordedThread t : threads) {
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
            boolean path = false;
            for (int s = 0; s < x.segments() && !path; s++) {
                path = x.segmentEndNs(s) > x.segmentStartNs(s);
            }
            if (path) {
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
            g.writeFieldName(key);
            if (value instanceof Integer i) {
                g.writeNumber(i);
            } else {
                g.writeString(Text.wellFormed((String) value));
            }
            g.writeEndObject();
            g.writeEndObject();
        }
    }
}
