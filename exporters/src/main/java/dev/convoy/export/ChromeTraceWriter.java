package dev.convoy.export;

import dev.convoy.analysis.Blockers;
import dev.convoy.analysis.Chains;
import dev.convoy.analysis.ContentionIndex;
import dev.convoy.analysis.InteractionCursor;
import dev.convoy.analysis.Interval;
import dev.convoy.analysis.IntervalCursor;
import dev.convoy.analysis.PathCursor;
import dev.convoy.analysis.Interactions.Kind;
import dev.convoy.analysis.LongMap;
import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.analysis.OwnerSamples;
import dev.convoy.model.EventType;
import dev.convoy.model.Frame;
import dev.convoy.model.Loss;
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
import java.util.Locale;
import java.util.Map;

/**
 * Chrome trace JSON (Perfetto, chrome://tracing, DevTools), following
 * {@code schema/chrome-trace.md}; content in {@code docs/formats.md}.
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
 * <p>Streamed: the analysis is a {@link ContentionIndex}, whose tables ({@link IntervalTable}
 * per ring, {@link InteractionTable}, {@link PathTable}) are primitive arrays, nothing per
 * event; the events are written in time order while the records are read in the order of
 * {@link Recording#events()} (through {@link Recording#cursor()}, no object per record),
 * merged with the thread start/end marks, the arrows' sources and destinations (sorted
 * arrays of interaction ids) and the critical path's segments. A slice is written at its
 * start with the duration the index knows; per track a stack of open slice ends trims a
 * slice that would partially overlap its parent (only possible with lost data).
 *
 * <p>Written as bytes through a {@link JsonSink}: each event is a few fragments encoded once
 * (its opening per kind and per monitor, pid and tid per thread, each stack's frames per
 * stack id) and formatted numbers; strings escaped by Jackson's encoder.
 */
final class ChromeTraceWriter {
    /** Track id of GC pauses: fits in a signed 32-bit int, far above any Java thread id seen in practice. */
    public static final long GC_TID = 2_000_000_000L;
    /** Track id of the critical path: one slice per segment. */
    public static final long CRITICAL_TID = 1_999_999_999L;

    /** Writes the trace to a stream (not closed). */
    public void write(Recording r, OutputStream os) throws IOException {
        JsonSink o = new JsonSink(os, 1 << 16);
        new Run(r, o).write();
        o.flush();
    }

    private static byte[] q(String v) {
        return JsonSink.quote(v);
    }

    private static byte[] k(String name) {
        return JsonSink.key(name);
    }

    private static byte[] a(String fragment) {
        return JsonSink.ascii(fragment);
    }

    private static final byte[] NAME = a("{\"name\":");
    private static final byte[] CAT = a(",\"cat\":");
    private static final byte[] PH_X = a(",\"ph\":\"X\",\"ts\":");
    private static final byte[] PH_I = a(",\"ph\":\"I\",\"ts\":");
    private static final byte[] PH_S = a(",\"ph\":\"s\",\"ts\":");
    private static final byte[] PH_F = a(",\"ph\":\"f\",\"ts\":");

    /** An event's opening up to its ts value: {@code {"name":N,"cat":C,"ph":P,"ts":}, made once. */
    private static byte[] head(byte[] name, byte[] cat, byte[] ph) {
        byte[] h = new byte[NAME.length + name.length + CAT.length + cat.length + ph.length];
        int at = 0;
        for (byte[] part : new byte[][] {NAME, name, CAT, cat, ph}) {
            System.arraycopy(part, 0, h, at, part.length);
            at += part.length;
        }
        return h;
    }

    private static final byte[] DUR = a(",\"dur\":");
    private static final byte[] SCOPE_T = a(",\"s\":\"t\"");
    private static final byte[] ID = a(",\"id\":");
    private static final byte[] BP_E = a(",\"bp\":\"e\"");
    private static final byte[] ARGS = a(",\"args\":");
    private static final byte[] STACK = k("stack");
    private static final byte[] MONITOR = k("monitor");
    private static final byte[] MONITOR_ID = k("monitor_id");
    private static final byte[] CRITICAL = k("critical");
    private static final byte[] RESULT = k("result");
    private static final byte[] TIMEOUT_MS = k("timeout_ms");
    private static final byte[] K_IDLE = k("idle");
    private static final byte[] REQUESTED_MS = k("requested_ms");
    private static final byte[] OWNER = k("owner");
    private static final byte[] OWNER_TID = k("owner_tid");
    private static final byte[] CARRIER = k("carrier");
    private static final byte[] CARRIER_TID = k("carrier_tid");
    private static final byte[] THREAD = k("thread");
    private static final byte[] THREAD_TID = k("thread_tid");
    private static final byte[] K_NAME = k("name");
    private static final byte[] K_TID = k("tid");
    private static final byte[] K_STATE = k("state");
    private static final byte[] K_FROM = k("from");
    private static final byte[] K_VIA = k("via");
    private static final byte[] K_BY = k("by");
    private static final byte[] K_BY_TID = k("by_tid");
    private static final byte[] K_JOINER = k("joiner");
    private static final byte[] K_WOKE = k("woke");
    private static final byte[] K_OPEN = k("open");
    private static final byte[] K_TARGET_WAITING = k("target_waiting");
    private static final byte[] UNKNOWN = q("unknown");
    private static final byte[] V_MONITOR = q("monitor");
    private static final byte[] GC = q("GC");
    private static final byte[] CAT_GC = q("gc");
    private static final byte[] SLEEP = q("sleep");
    private static final byte[] HANDOFF = q("handoff");
    private static final byte[] THREAD_START = q("thread start");
    private static final byte[] THREAD_END = q("thread end");
    private static final byte[] CAT_THREAD = q("thread");
    private static final byte[] CAT_NOTIFY = q("notify");
    private static final byte[] CAT_INTERRUPT = q("interrupt");
    private static final byte[] CAT_JOIN = q("join");
    private static final byte[] CAT_CRITICAL = q("critical");
    private static final byte[] START_CALL = q("Thread.start");
    private static final byte[] INTERRUPT_CALL = q("Thread.interrupt");
    private static final byte[] NOTIFY = q("notify");
    private static final byte[] NOTIFY_ALL = q("notifyAll");
    private static final byte[] INTERRUPTED = q("InterruptedException");
    private static final byte[] RELEASED = q("monitor released");
    private static final byte[] TERMINATED = q("terminated");
    private static final byte[] HANDOFF_NAME = q("lock handoff");
    private static final byte[] CAT_PARK = q("park");
    private static final byte[] CAT_UNPARK = q("unpark");
    private static final byte[] UNPARK_CALL = q("LockSupport.unpark");
    private static final byte[] OWNER_EXACT = k("owner_exact");
    private static final byte[] OWNER_SAMPLED = k("owner_sampled");
    private static final byte[] OWNER_STATE = k("owner_state");
    private static final byte[] OWNER_ON = k("owner_on");
    private static final byte[] OWNER_FRAME = k("owner_frame");
    private static final byte[] OWNER_FRAME_EXACT = k("owner_frame_exact");
    private static final byte[] OWNER_STACK = k("owner_stack");
    private static final byte[] OWNER_DEADLOCK = k("owner_deadlock");
    private static final byte[] K_BY_EXACT = k("by_exact");
    private static final byte[] TIMEOUT_NS = k("timeout_ns");
    private static final byte[] NONE = q("none");
    private static final byte[] H_PARKED_NO_BLOCKER = head(q("parked"), CAT_PARK, PH_X);

    /** Category, flow name and destination instant name of each arrow kind. */
    private static final byte[][][] ARROWS = new byte[Kind.values().length][][];

    static {
        ARROWS[Kind.START.ordinal()] = new byte[][] {q("start"), q("starts thread"), q("started")};
        ARROWS[Kind.NOTIFY.ordinal()] = new byte[][] {q("notify"), q("notify"), q("notified")};
        ARROWS[Kind.NOTIFY_ALL.ordinal()] = new byte[][] {q("notify"), q("notifyAll"), q("notified")};
        ARROWS[Kind.INTERRUPT.ordinal()] = new byte[][] {q("interrupt"), q("interrupt"), q("woken by interrupt")};
        ARROWS[Kind.JOIN_END.ordinal()] = new byte[][] {q("join"), q("thread ended"), q("joined")};
        ARROWS[Kind.HANDOFF.ordinal()] = new byte[][] {HANDOFF, HANDOFF_NAME, q("monitor acquired")};
        ARROWS[Kind.UNPARK.ordinal()] = new byte[][] {CAT_UNPARK, q("unpark"), q("unparked")};
    }

    private static final byte[] STILL_BLOCKED = q("still blocked at snapshot");
    private static final byte[] STILL_SLEEPING = q("still sleeping at snapshot");
    private static final byte[] STILL_JOINING = q("still joining at snapshot");
    private static final byte[] STILL_WAITING = q("still waiting at snapshot");
    private static final byte[] V_INTERRUPTED = q("interrupted");
    private static final byte[] SLEPT = q("slept");
    private static final byte[] JOINED = q("joined");
    private static final byte[] TIMED_OUT = q("timed out");
    private static final byte[] NOTIFIED = q("notified");
    private static final byte[] UNPARKED = q("unparked");
    private static final byte[] STILL_PARKED = q("still parked at snapshot");
    /** The result of a slice cut where a loss of its thread's records began. */
    private static final byte[] RECORDS_LOST = q("records lost");

    private static byte[][] arrow(Kind k) {
        return ARROWS[k.ordinal()];
    }

    private static final byte[] H_THREAD_START = head(THREAD_START, CAT_THREAD, PH_I);
    private static final byte[] H_THREAD_END = head(THREAD_END, CAT_THREAD, PH_I);
    private static final byte[] H_START_CALL = head(START_CALL, arrow(Kind.START)[0], PH_I);
    private static final byte[] H_INTERRUPT_CALL = head(INTERRUPT_CALL, arrow(Kind.INTERRUPT)[0], PH_I);
    private static final byte[] H_NOTIFY = head(NOTIFY, CAT_NOTIFY, PH_I);
    private static final byte[] H_NOTIFY_ALL = head(NOTIFY_ALL, CAT_NOTIFY, PH_I);
    private static final byte[] H_INTERRUPTED = head(INTERRUPTED, CAT_INTERRUPT, PH_I);
    private static final byte[] H_RELEASED = head(RELEASED, HANDOFF, PH_I);
    private static final byte[] H_TERMINATED = head(TERMINATED, CAT_JOIN, PH_I);
    private static final byte[] H_GC = head(GC, CAT_GC, PH_X);
    private static final byte[] H_SLEEP = head(SLEEP, SLEEP, PH_X);
    private static final byte[] H_UNPARK_CALL = head(UNPARK_CALL, CAT_UNPARK, PH_I);
    /** A loss of a thread's records: its state then is unknown, a slice distinct from every state's. */
    private static final byte[] H_LOST = head(q("unknown (records lost)"), q("lost"), PH_X);
    private static final byte[] K_KIND = k("kind");
    private static final byte[] K_RECORDS = k("records");
    /** Per arrow kind: the heads of its destination instant, its s and its f. */
    private static final byte[][][] ARROW_HEADS = new byte[Kind.values().length][][];

    static {
        for (Kind k : Kind.values()) {
            byte[][] a = ARROWS[k.ordinal()];
            if (a != null) {
                ARROW_HEADS[k.ordinal()] = new byte[][] {head(a[2], a[0], PH_I), head(a[1], a[0], PH_S),
                    head(a[1], a[0], PH_F)};
            }
        }
    }

    private static final class Run {
        final Recording r;
        final dev.convoy.model.IdleRules.Classifier idle;
        final JsonSink o;
        final long start;
        final long pid;
        final ContentionIndex x;
        final IntervalCursor[] intervals; // per ring
        final InteractionCursor in;
        final OwnerSamples samples;
        final PathCursor critical;
        final RecordedThread[] threads;
        final long[] tids;
        final byte[][] names; // per ring: its thread's name, quoted
        final byte[][] pidTid; // per ring: ,"pid":P,"tid":T
        final byte[] pidTidCritical;
        final LongMap<byte[]> stacks = new LongMap<>();
        final LongMap<Names> monitorNames = new LongMap<>();
        final LongMap<Names> blockerNames = new LongMap<>();
        final LongMap<long[]> open = new LongMap<>(); // per track: stack of open slice ends, [0] = depth
        int starts;
        int interrupts;
        int notifies;
        int unparks;

        /** Platform threads' rings by Java id: virtual threads' carriers. */
        final java.util.Map<Long, Integer> ringsByJavaId = new java.util.HashMap<>();

        Run(Recording r, JsonSink o) {
            this.r = r;
            this.idle = r.idleRules().classifier(r);
            this.o = o;
            this.start = r.startMonotonicNs();
            this.pid = r.pid();
            this.x = ContentionIndex.of(r);
            this.in = x.interactions();
            this.samples = x.ownerSamples();
            this.critical = x.path();
            this.threads = r.threads().toArray(new RecordedThread[0]);
            for (int k = 0; k < threads.length; k++) {
                if (!threads[k].isSystem() && !threads[k].isVirtual()) {
                    ringsByJavaId.putIfAbsent(threads[k].javaThreadId(), k);
                }
            }
            this.intervals = new IntervalCursor[threads.length];
            for (int k = 0; k < threads.length; k++) {
                intervals[k] = x.intervals(k);
            }
            this.tids = new long[threads.length];
            this.names = new byte[threads.length][];
            this.pidTid = new byte[threads.length][];
            for (int k = 0; k < threads.length; k++) {
                tids[k] = tid(threads[k]);
                names[k] = q(Text.wellFormed(threads[k].displayName()));
                pidTid[k] = pidTid(tids[k]);
            }
            pidTidCritical = pidTid(CRITICAL_TID);
        }

        byte[] pidTid(long tid) {
            return a(",\"pid\":" + pid + ",\"tid\":" + tid);
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
            o.raw(a("{\"traceEvents\":["));
            writeMetadataEvents();
            timeline();
            o.raw(a("],\"metadata\":")).open();
            long epoch = r.startEpochNs();
            o.key(k("start_time")).string(Instant.ofEpochSecond(Math.floorDiv(epoch, 1_000_000_000L),
                    Math.floorMod(epoch, 1_000_000_000L)).toString());
            o.key(k("start_epoch_ns")).string(Long.toString(epoch));
            o.key(k("snapshot_version")).string(r.versionMajor() + "." + r.versionMinor());
            for (Map.Entry<String, String> i : r.info().entrySet()) {
                o.key(k(Text.wellFormed(i.getKey()))).string(Text.wellFormed(i.getValue()));
            }
            lossTotals();
            o.ch('}').ch('}');
        }

        /**
         * Everything but metadata in time order: at equal times thread starts, then records,
         * losses of records, arrow sources (handoff releases, ended threads), arrow destinations,
         * critical-path segments, thread ends.
         */
        void timeline() throws IOException {
            long[] startMarks = ThreadMarks.marks(r, t -> !t.isSystem() && !t.isLate(), RecordedThread::startNs);
            long[] endMarks = ThreadMarks.marks(r, t -> !t.isSystem() && t.isEnded() && t.endNs() != 0,
                    RecordedThread::endNs);
            int[] sources = in.byFromNs(java.util.EnumSet.of(Kind.HANDOFF, Kind.JOIN_END));
            int[] dests = in.byToNs(java.util.EnumSet.allOf(Kind.class));
            List<int[]> losses = lossMarks();
            int li = 0;
            int si = 0;
            int ei = 0;
            int so = 0;
            int de = 0;
            int sg = 0;
            Recording.Cursor c = r.cursor();
            boolean more = c.next();
            while (true) {
                int pick = -1;
                long best = Long.MAX_VALUE;
                if (si < ThreadMarks.count(startMarks)) {
                    pick = 0;
                    best = ThreadMarks.ts(startMarks, si);
                }
                if (more && (pick < 0 || c.ts() < best)) {
                    pick = 1;
                    best = c.ts();
                }
                if (li < losses.size() && (pick < 0 || lossFrom(losses.get(li)) < best)) {
                    pick = 6;
                    best = lossFrom(losses.get(li));
                }
                if (so < sources.length && (pick < 0 || in.select(sources[so]).fromNs() < best)) {
                    pick = 2;
                    best = in.select(sources[so]).fromNs();
                }
                if (de < dests.length && (pick < 0 || in.select(dests[de]).toNs() < best)) {
                    pick = 3;
                    best = in.select(dests[de]).toNs();
                }
                while (sg < critical.count() && critical.select(sg).endNs() <= critical.select(sg).startNs()) {
                    sg++;
                }
                if (sg < critical.count() && (pick < 0 || critical.select(sg).startNs() < best)) {
                    pick = 4;
                    best = critical.select(sg).startNs();
                }
                if (ei < ThreadMarks.count(endMarks) && (pick < 0 || ThreadMarks.ts(endMarks, ei) < best)) {
                    pick = 5;
                }
                switch (pick) {
                    case 0 -> {
                        int ring = ThreadMarks.ring(startMarks, si++);
                        threadMark(H_THREAD_START, ring, threads[ring].startNs());
                    }
                    case 1 -> {
                        event(c.ring(), c.thread(), c.record());
                        more = c.next();
                    }
                    case 2 -> source(sources[so++]);
                    case 3 -> destination(dests[de++]);
                    case 4 -> segment(sg++);
                    case 5 -> {
                        int ring = ThreadMarks.ring(endMarks, ei++);
                        threadMark(H_THREAD_END, ring, threads[ring].endNs());
                    }
                    case 6 -> {
                        int[] m = losses.get(li++);
                        lossSlice(m[0], threads[m[0]].losses().get(m[1]));
                    }
                    default -> {
                        return;
                    }
                }
            }
        }

        /** The records written and lost (the totals every output gives), and the threads with lost records. */
        void lossTotals() throws IOException {
            o.key(k("records_written")).number(r.recordsWritten());
            o.key(k("records_lost_overwritten")).number(r.recordsOverwritten());
            o.key(k("records_lost_aged")).number(r.recordsAged());
            o.key(k("records_dropped")).number(Math.max(0, r.recordsDropped()));
            o.key(k("records_torn")).number(Math.max(0, r.recordsTorn()));
            o.key(k("threads_with_lost_records")).number(r.threadsWithLosses().size());
            o.key(k("records_summary")).string(Text.wellFormed(r.lossSummary()));
        }

        /** Every ring's losses {ring, loss index} by their start (ties: ring order, then loss order). */
        List<int[]> lossMarks() {
            List<int[]> marks = new ArrayList<>();
            for (int k = 0; k < threads.length; k++) {
                for (int l = 0; l < threads[k].losses().size(); l++) {
                    marks.add(new int[] {k, l});
                }
            }
            marks.sort(Comparator.comparingLong(m -> threads[m[0]].losses().get(m[1]).fromNs()));
            return marks;
        }

        /** The slice of a loss of a thread's records: "unknown (records lost)", args kind and records. */
        void lossSlice(int ring, Loss l) throws IOException {
            long ts = rel(l.fromNs());
            long end = Math.max(ts, rel(l.toNs()));
            o.element().raw(H_LOST).micros(ts).raw(DUR).micros(nest(tid(ring), ts, end) - ts).raw(pidTid[ring]);
            o.raw(ARGS).open().key(K_KIND).string(l.kindName()).key(K_RECORDS).number(l.records()).ch('}').ch('}');
        }

        long lossFrom(int[] mark) {
            return threads[mark[0]].losses().get(mark[1]).fromNs();
        }

        void threadMark(byte[] head, int ring, long ns) throws IOException {
            begin(head, ring, ns);
            o.raw(ARGS).open().key(K_NAME).raw(names[ring]).ch('}').ch('}');
        }

        /** Record {@code i} of ring {@code ring} ({@code t}); one small method per kind keeps the JIT's work small. */
        void event(int ring, RecordedThread t, int i) throws IOException {
            EventType type = t.type(i);
            switch (type) {
                case MONITOR_ENTER, MONITOR_WAIT, SLEEP, JOIN, GC_START, PARK -> {
                    if (intervals[ring].at(i)) {
                        slice(ring, intervals[ring], t, i);
                    }
                }
                case START_CALL -> call(ring, t, i, true);
                case INTERRUPT_CALL -> call(ring, t, i, false);
                case NOTIFY -> notifyCall(ring, t, i, H_NOTIFY);
                case NOTIFY_ALL -> notifyCall(ring, t, i, H_NOTIFY_ALL);
                case THREAD_INTERRUPTED -> interrupted(ring, t, i);
                case UNPARK -> unparkCall(ring, t, i);
                default -> {
                }
            }
        }

        /** A Thread.start or Thread.interrupt call, and its arrow's s. */
        void call(int ring, RecordedThread t, int i, boolean isStart) throws IOException {
            int id = isStart ? in.startCall(starts++) : in.interruptCall(interrupts++);
            if (t.isSystem()) {
                return;
            }
            RecordedThread target = r.threadByObject(t.obj(i)).orElse(null);
            begin(isStart ? H_START_CALL : H_INTERRUPT_CALL, ring, t.ts(i));
            o.raw(ARGS).open();
            threadArgs(THREAD, THREAD_TID, target == null ? -1 : x.ring(target));
            if (!isStart) {
                o.key(K_TARGET_WAITING).bool(t.arg(i) == 1);
            }
            stack(t.stackId(i));
            o.ch('}').ch('}');
            if (id >= 0) {
                flow(PH_S, id, ring, t.ts(i));
            }
        }

        /** A notify or notifyAll call, and an s for each thread it woke. */
        void notifyCall(int ring, RecordedThread t, int i, byte[] head) throws IOException {
            int[] woke = in.notifyCall(notifies++);
            if (t.isSystem()) {
                return;
            }
            begin(head, ring, t.ts(i));
            o.raw(ARGS).open();
            monitorArgs(t.obj(i));
            o.key(K_WOKE).ch('[');
            for (int w = 0; w < woke.length; w++) {
                if (w > 0) {
                    o.ch(',');
                }
                o.raw(names[in.select(woke[w]).toRing()]);
            }
            o.ch(']');
            stack(t.stackId(i));
            o.ch('}').ch('}');
            for (int id : woke) {
                flow(PH_S, id, ring, t.ts(i));
            }
        }

        /** A LockSupport.unpark call (no stack recorded), and its arrow's s when it woke a recorded park. */
        void unparkCall(int ring, RecordedThread t, int i) throws IOException {
            int id = in.unparkCall(unparks++);
            if (t.isSystem()) {
                return;
            }
            RecordedThread target = id >= 0 ? in.select(id).to() : r.threadByObject(t.obj(i)).orElse(null);
            begin(H_UNPARK_CALL, ring, t.ts(i));
            o.raw(ARGS).open();
            threadArgs(THREAD, THREAD_TID, target == null ? -1 : x.ring(target));
            o.ch('}').ch('}');
            if (id >= 0) {
                flow(PH_S, id, ring, t.ts(i));
            }
        }

        /** An InterruptedException thrown in the thread. */
        void interrupted(int ring, RecordedThread t, int i) throws IOException {
            if (t.isSystem()) {
                return;
            }
            begin(H_INTERRUPTED, ring, t.ts(i));
            o.raw(ARGS).open();
            stack(t.stackId(i));
            o.ch('}').ch('}');
        }

        /** The slice of an interval, written at its start (record {@code i} of {@code t}). */
        void slice(int ring, IntervalCursor iv, RecordedThread t, int i) throws IOException {
            Interval.Kind kind = iv.kind();
            long mon = iv.monitor();
            boolean park = iv.isPark();
            byte[] head = park ? (kind == Interval.Kind.BLOCKED ? blockerNames(mon).blocked()
                    : mon == 0 ? H_PARKED_NO_BLOCKER : blockerNames(mon).waitOn()) : switch (kind) {
                case GC -> H_GC;
                case BLOCKED -> names(mon).blocked();
                case SLEEPING -> H_SLEEP;
                case JOINING -> head(q(Text.wellFormed("join " + joinedName(mon))), CAT_JOIN, PH_X);
                default -> names(mon).waitOn();
            };
            long ts = rel(iv.startNs());
            long end = Math.max(ts, rel(iv.endNs())); // reordered records can end an interval before it starts
            o.element().raw(head).micros(ts)
                    .raw(DUR).micros(nest(tid(ring), ts, end) - ts).raw(pidTid[ring]);
            boolean open = iv.isOpen();
            if (kind == Interval.Kind.GC) {
                if (open) {
                    o.raw(ARGS).open().key(K_OPEN).bool(true).ch('}');
                } else if (iv.isCut()) {
                    o.raw(ARGS).open().key(RESULT).raw(RECORDS_LOST).ch('}');
                }
                o.ch('}');
                return;
            }
            o.raw(ARGS).open();
            if (park) {
                parkArgs(iv, t, i, mon, open, kind == Interval.Kind.BLOCKED);
            } else switch (kind) {
                case BLOCKED -> blockedArgs(iv, t, i, mon, open);
                case SLEEPING -> sleepArgs(iv, t, i, open);
                case JOINING -> joinArgs(iv, t, i, mon, open);
                default -> waitArgs(iv, t, i, mon, open);
            }
            if (t.isVirtual() && !open) {
                carrierArgs(t, iv.endRecord());
            }
            if (iv.isOnPath()) {
                o.key(CRITICAL).bool(true);
            }
            o.ch('}').ch('}');
        }

        /**
         * A virtual thread's slice: the carrier it resumed on, named by the record that ended the
         * slice (ENTERED, WAITED, PARKED; the spec's carrier), when it is known.
         */
        void carrierArgs(RecordedThread t, int end) throws IOException {
            if (end < 0 || end >= t.eventCount()) {
                return;
            }
            int type = t.rawType(end);
            if (type != SnapshotFormat.EVENT_MONITOR_ENTERED && type != SnapshotFormat.EVENT_MONITOR_WAITED
                    && type != SnapshotFormat.EVENT_PARKED) {
                return;
            }
            long carrier = t.arg2(end);
            if (carrier <= 0) {
                return;
            }
            Integer k = ringsByJavaId.get(carrier);
            if (k != null) {
                threadArgs(CARRIER, CARRIER_TID, k);
            } else {
                o.key(CARRIER).string("thread " + carrier);
                o.key(CARRIER_TID).number(carrier);
            }
        }

        /**
         * A monitor's blocked slice: its monitor, stack, the owner at the enter (its name and tid;
         * {@code thread <id>} and the id for an owner no ring has; "none" and 0 when the VM
         * recorded none; "unknown" and 0) with {@code owner_exact} true (recorded by the VM) or
         * false (inferred) when there is one.
         */
        void blockedArgs(IntervalCursor iv, RecordedThread t, int i, long mon, boolean open) throws IOException {
            monitorArgs(mon);
            stack(t.stackId(i));
            MonitorOwnership.Source src = iv.ownerSource();
            int owner = iv.ownerRing();
            if (src == null || owner >= 0) {
                threadArgs(OWNER, OWNER_TID, owner);
            } else if (src == MonitorOwnership.Source.NONE) {
                o.key(OWNER).raw(NONE);
                o.key(OWNER_TID).number(0);
            } else {
                long id = iv.ownerJavaId();
                o.key(OWNER).string("thread " + id);
                o.key(OWNER_TID).number(id);
            }
            if (src != null) {
                o.key(OWNER_EXACT).bool(src.exact());
            }
            ownerSide(iv);
            if (open) {
                o.key(RESULT).raw(STILL_BLOCKED);
            } else if (iv.isCut()) {
                o.key(RESULT).raw(RECORDS_LOST);
            }
        }

        /**
         * A park's args: its blocker, stack, for a lock acquisition the exclusive owner its PARK
         * names (exact: {@code owner_exact}; "none" when it had none), its timeout in ns and how
         * it ended.
         */
        void parkArgs(IntervalCursor iv, RecordedThread t, int i, long mon, boolean open, boolean lock)
                throws IOException {
            if (mon != 0) {
                o.key(MONITOR).raw(blockerNames(mon).cls());
                o.key(MONITOR_ID).number(mon);
            }
            stack(t.stackId(i));
            if (lock) {
                int owner = iv.ownerRing();
                long id = t.arg2(i);
                if (owner >= 0) {
                    threadArgs(OWNER, OWNER_TID, owner);
                } else if (id >= 0) {
                    o.key(OWNER).string("thread " + id);
                    o.key(OWNER_TID).number(id);
                } else {
                    o.key(OWNER).raw(NONE);
                    o.key(OWNER_TID).number(0);
                }
                o.key(OWNER_EXACT).bool(true);
                ownerSide(iv);
            }
            o.key(TIMEOUT_NS).number(t.arg(i));
            if (!lock) {
                o.key(K_IDLE).bool(idle.isIdle(t, t.stackId(i)));
            }
            o.key(RESULT).raw(open ? (lock ? STILL_BLOCKED : STILL_PARKED) : iv.isCut() ? RECORDS_LOST
                    : iv.timedOut() ? TIMED_OUT : iv.parkInterrupted() ? V_INTERRUPTED : UNPARKED);
        }

        /**
         * The owner's side of a block that has a sample (OWNER_SAMPLE, {@link OwnerSamples}): the
         * owner then (owner_sampled: it may differ from the owner at the enter), its state, what it
         * was itself on, the frame holding the lock and its stack; {@code owner_deadlock} true when
         * the chain of owners from it comes back to a thread already on it
         * ({@link OwnerSamples.Link#deadlock()}).
         */
        void ownerSide(IntervalCursor iv) throws IOException {
            OwnerSamples.Sample s = iv.ownerSample();
            if (s == null) {
                return;
            }
            o.key(OWNER_SAMPLED).string(Text.wellFormed(s.ownerName()));
            o.key(OWNER_STATE).string(s.state().label());
            if (s.state().onSomething() && s.on() != 0) {
                Names on = s.state() == OwnerSamples.State.PARKED ? blockerNames(s.on()) : names(s.on());
                o.key(OWNER_ON).string(on.name());
            }
            Frame f = s.holdingFrame(r);
            if (f != null) {
                o.key(OWNER_FRAME).string(Text.wellFormed(r.describe(f)));
                o.key(OWNER_FRAME_EXACT).bool(s.frameExact());
            }
            if (s.stackId() != 0) {
                o.key(OWNER_STACK).raw(stackJson(s.stackId()));
            }
            for (OwnerSamples.Link l : samples.chain(s, Chains.MAX_LENGTH)) {
                if (l.deadlock()) {
                    o.key(OWNER_DEADLOCK).bool(true);
                }
            }
        }

        void sleepArgs(IntervalCursor iv, RecordedThread t, int i, boolean open) throws IOException {
            stack(t.stackId(i));
            o.key(REQUESTED_MS).number(t.arg(i));
            o.key(RESULT).raw(open ? STILL_SLEEPING : iv.isCut() ? RECORDS_LOST
                    : iv.interrupted() ? V_INTERRUPTED : SLEPT);
        }

        void joinArgs(IntervalCursor iv, RecordedThread t, int i, long mon, boolean open) throws IOException {
            RecordedThread joined = r.threadByObject(mon).orElse(null);
            stack(t.stackId(i));
            o.key(THREAD).string(Text.wellFormed(joinedName(mon)));
            o.key(THREAD_TID).number(joined == null ? 0 : tid(x.ring(joined)));
            o.key(TIMEOUT_MS).number(t.arg(i));
            o.key(RESULT).raw(open ? STILL_JOINING : iv.isCut() ? RECORDS_LOST
                    : iv.interrupted() ? V_INTERRUPTED : JOINED);
        }

        void waitArgs(IntervalCursor iv, RecordedThread t, int i, long mon, boolean open) throws IOException {
            monitorArgs(mon);
            stack(t.stackId(i));
            o.key(TIMEOUT_MS).number(t.arg(i));
            o.key(K_IDLE).bool(idle.isIdle(t, t.stackId(i)));
            o.key(RESULT).raw(open ? STILL_WAITING : iv.isCut() ? RECORDS_LOST
                    : iv.timedOut() ? TIMED_OUT : NOTIFIED);
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
            InteractionCursor a = in.select(id);
            int ring = a.fromRing();
            long fromNs = a.fromNs();
            if (a.kind() == Kind.HANDOFF) {
                begin(H_RELEASED, ring, fromNs);
                o.raw(ARGS).open();
                monitorArgs(a.monitor());
            } else {
                begin(H_TERMINATED, ring, fromNs);
                o.raw(ARGS).open().key(K_JOINER).raw(names[a.toRing()]);
            }
            o.ch('}').ch('}');
            flow(PH_S, id, ring, fromNs);
        }

        /** The destination instant of an arrow and its f. */
        void destination(int id) throws IOException {
            InteractionCursor a = in.select(id);
            Kind k = a.kind();
            int ring = a.toRing();
            long toNs = a.toNs();
            long mon = a.monitor();
            begin(ARROW_HEADS[k.ordinal()][0], ring, toNs);
            o.raw(ARGS).open();
            int from = a.fromRing();
            o.key(K_BY).raw(names[from]);
            o.key(K_BY_TID).number(tid(from));
            if (k == Kind.HANDOFF) {
                o.key(K_BY_EXACT).bool(a.exact()); // recorded by the VM (FLAG_RELEASER) or inferred
            }
            if (k == Kind.HANDOFF || k == Kind.NOTIFY || k == Kind.NOTIFY_ALL) {
                monitorArgs(mon);
            } else if (k == Kind.UNPARK && mon != 0) {
                o.key(MONITOR).raw(blockerNames(mon).cls());
                o.key(MONITOR_ID).number(mon);
            }
            o.ch('}').ch('}');
            flow(PH_F, id, ring, toNs);
        }

        void flow(byte[] ph, int id, int ring, long ns) throws IOException {
            byte[][] heads = ARROW_HEADS[in.select(id).kind().ordinal()];
            o.element().raw(ph == PH_F ? heads[2] : heads[1]).micros(rel(ns)).raw(pidTid[ring]);
            o.raw(ID).number(id + 1L);
            if (ph == PH_F) {
                o.raw(BP_E);
            }
            o.ch('}');
        }

        /** One slice of the critical path's track. */
        void segment(int s) throws IOException {
            PathCursor c = critical.select(s);
            RecordedThread t = c.thread();
            long mon = c.monitor();
            boolean park = c.inPark();
            String cls = park ? (mon == 0 ? "" : blockerNames(mon).name()) : null;
            String what = switch (c.state()) {
                case RUNNING -> "running";
                case BLOCKED -> "blocked on " + (park ? cls : className(mon));
                case DEADLOCKED -> "deadlocked on " + (park ? cls : className(mon));
                case WAITING -> park ? (mon == 0 ? "parked" : "parked on " + cls) : "wait on " + className(mon);
                case SLEEPING -> "sleep";
                case JOINING -> "join " + joinedName(mon);
                case STARTING -> "starting";
                case DEAD -> "dead";
                case UNKNOWN -> "unknown (records lost)";
            };
            long ts = rel(c.startNs());
            long end = Math.max(ts, rel(c.endNs()));
            o.element().raw(head(q(Text.wellFormed(t.name() + ": " + what)), CAT_CRITICAL, PH_X)).micros(ts).raw(DUR).micros(nest(CRITICAL_TID, ts, end) - ts).raw(pidTidCritical);
            o.raw(ARGS).open();
            o.key(THREAD).raw(names[x.ring(t)]);
            o.key(K_TID).number(tid(x.ring(t)));
            o.key(K_STATE).string(c.state().name().toLowerCase(Locale.ROOT));
            if (mon != 0) {
                o.key(MONITOR_ID).number(mon);
            }
            int via = c.via();
            if (via >= 0) {
                InteractionCursor a = in.select(via);
                o.key(K_FROM).raw(names[a.fromRing()]);
                o.key(K_VIA).string(a.kind().name().toLowerCase(Locale.ROOT));
            }
            o.ch('}').ch('}');
        }

        /** Opens an instant ({@link #head}) and writes its ts, pid, tid and s. */
        void begin(byte[] head, int ring, long ns) throws IOException {
            o.element().raw(head).micros(rel(ns)).raw(pidTid[ring]).raw(SCOPE_T);
        }

        long rel(long ns) {
            return Math.max(0, ns - start);
        }

        /** {@code "<name>":"<thread name>","<tid>":<tid>} of a ring, "unknown" and 0 for none (-1). */
        void threadArgs(byte[] nameField, byte[] tidField, int ring) throws IOException {
            o.key(nameField).raw(ring < 0 ? UNKNOWN : names[ring]);
            o.key(tidField).number(ring < 0 ? 0 : tid(ring));
        }

        void monitorArgs(long mon) throws IOException {
            o.key(MONITOR).raw(names(mon).cls());
            o.key(MONITOR_ID).number(mon);
        }

        /** {@code "stack":[frames]}, the array rendered once per stack id. */
        void stack(int stackId) throws IOException {
            o.key(STACK).raw(stackJson(stackId));
        }

        /** A stack's frames as a JSON array, rendered once per stack id. */
        byte[] stackJson(int stackId) {
            byte[] json = stacks.get(stackId);
            if (json == null) {
                java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
                b.write('[');
                boolean first = true;
                for (Frame fr : r.frames(stackId)) {
                    if (!first) {
                        b.write(',');
                    }
                    first = false;
                    b.writeBytes(q(Text.wellFormed(r.describe(fr))));
                }
                b.write(']');
                json = b.toByteArray();
                stacks.put(stackId, json);
            }
            return json;
        }

        /** A monitor's class name, quoted, and the heads of its slices, made once per monitor. */
        record Names(String name, byte[] cls, byte[] blocked, byte[] waitOn) {
        }

        Names names(long obj) {
            Names n = monitorNames.get(obj);
            if (n == null) {
                String c = r.objectClassName(obj);
                String cls = Text.wellFormed(c.isEmpty() ? "object " + obj : c);
                n = new Names(cls, q(cls), head(q("blocked on " + cls), V_MONITOR, PH_X),
                        head(q("wait on " + cls), V_MONITOR, PH_X));
                monitorNames.put(obj, n);
            }
            return n;
        }

        String className(long obj) {
            return names(obj).name();
        }

        /** A park blocker's lock class ({@link Blockers#className}) and the heads of its slices (cat park). */
        Names blockerNames(long obj) {
            Names n = blockerNames.get(obj);
            if (n == null) {
                String c = Blockers.className(r, obj);
                String cls = Text.wellFormed(c.isEmpty() ? "object " + obj : c);
                n = new Names(cls, q(cls), head(q("blocked on " + cls), CAT_PARK, PH_X),
                        head(q("parked on " + cls), CAT_PARK, PH_X));
                blockerNames.put(obj, n);
            }
            return n;
        }

        String joinedName(long obj) {
            RecordedThread joined = r.threadByObject(obj).orElse(null);
            return joined == null ? "thread object " + obj : joined.displayName();
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
                String name = tracks.get(tid).displayName();
                meta("thread_name", tid, "name", name.isEmpty() ? "thread " + tid : name);
                meta("thread_sort_index", tid, "sort_index", index++);
            }
            if (gc) {
                meta("thread_name", GC_TID, "name", "GC");
                meta("thread_sort_index", GC_TID, "sort_index", index++);
            }
            boolean path = false;
            for (int s = 0; s < critical.count() && !path; s++) {
                path = critical.select(s).endNs() > critical.select(s).startNs();
            }
            if (path) {
                meta("thread_name", CRITICAL_TID, "name", "critical path");
                meta("thread_sort_index", CRITICAL_TID, "sort_index", index);
            }
        }

        void meta(String name, long tid, String key, Object value) throws IOException {
            o.element().raw(NAME).string(name).raw(a(",\"ph\":\"M\"")).raw(pidTid(tid)).raw(ARGS).open().key(k(key));
            if (value instanceof Integer i) {
                o.number(i);
            } else {
                o.string(Text.wellFormed((String) value));
            }
            o.ch('}').ch('}');
        }
    }
}
