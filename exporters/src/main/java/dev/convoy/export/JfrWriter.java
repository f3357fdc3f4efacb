package dev.convoy.export;

import dev.convoy.analysis.ContentionIndex;
import dev.convoy.analysis.InteractionTable;
import dev.convoy.analysis.Interactions;
import dev.convoy.analysis.IntervalTable;
import dev.convoy.analysis.LongMap;
import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.analysis.PathTable;
import dev.convoy.analysis.ThreadStates;
import dev.convoy.export.jfr.ChunkWriter;
import dev.convoy.export.jfr.Metadata;
import dev.convoy.export.jfr.Metadata.Field;
import dev.convoy.export.jfr.Metadata.Type;
import dev.convoy.export.jfr.ValueWriter;
import dev.convoy.model.ClassInfo;
import dev.convoy.model.EventType;
import dev.convoy.model.Frame;
import dev.convoy.model.Loss;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.ObjectInfo;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.StackTrace;
import dev.convoy.snapshot.SnapshotFormat;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A JFR recording (one chunk) of a Convoy recording, encoded by Convoy's own chunk writer
 * ({@link dev.convoy.export.jfr}), in the JDK's own event types and field names so that JMC,
 * the JDK's {@code jfr} tool and {@code jdk.jfr.consumer} read it without knowing Convoy
 * ({@code docs/formats.md}, "JFR").
 *
 * <p>One JFR event per interval of {@link ContentionIndex} (a begin record and its end):
 * {@code jdk.JavaMonitorEnter}, {@code jdk.JavaMonitorWait}, {@code jdk.ThreadPark},
 * {@code jdk.ThreadSleep}, {@code dev.convoy.ThreadJoin}, {@code jdk.GarbageCollection};
 * {@code jdk.ThreadStart} and {@code jdk.ThreadEnd} per ring (the threads the CSV event log
 * gives ThreadStarted and ThreadEnded); {@code dev.convoy.Notify} and {@code dev.convoy.Unpark}
 * per call; {@code dev.convoy.Interaction} per interaction of contention analysis and
 * {@code dev.convoy.CriticalPath} per segment of the critical path; {@code dev.convoy.DataLoss} per
 * loss of a thread's records (and for the records lost without a thread). An interval still open at
 * snapshot time ends at the snapshot and has {@code unfinished = true}. A previous owner is
 * {@code previousOwner} only where exact; an inferred one is Convoy's {@code inferredOwner}. The
 * releaser of a handoff is the {@code eventThread} of its {@code dev.convoy.Interaction}, whose
 * {@code exact} says whether the VM recorded it (FLAG_RELEASER) or it is inferred.
 *
 * <p>Every field of every value is written, in its type's order ({@link ValueWriter} checks
 * it), a missing one as null (key 0, or a null string), 0 or false. Event fields come in the
 * JDK's order (startTime, duration, eventThread, stackTrace), which the JDK's parser relies on,
 * and stack frames are inline in their stack trace, as the JDK writes them. Threads, thread
 * groups, stack traces, classes, packages, methods and symbols are constants, each written
 * once and referenced by key; the strings events repeat (GC name and cause, interaction kinds,
 * critical path states) are in the string pool.
 *
 * <p>Times: one tick is one nanosecond; ticks are the monotonic time since recording start
 * plus {@link #TICKS_BASE}, and the chunk's start is the recording's start (INFO
 * {@code start.epoch.ns}), so a reader's wall clock equals {@link Recording#toEpochNs}.
 *
 * <p>Memory: the events' bytes until the chunk is written (the stream need not be seekable, and
 * the header that comes first states their size), about 20 bytes per event; the contention
 * analysis; the constants' bytes and one key per thread, stack, class, method, symbol and
 * monitor ({@code docs/performance.md}, "JFR").
 */
public final class JfrWriter {

    /** The tick of the recording's start: the ticks of a time {@code ts} are {@code ts - start + TICKS_BASE}. */
    public static final long TICKS_BASE = 1_000_000_000_000L;

    /** Ticks per second: one tick is one nanosecond. */
    private static final long TICKS_PER_SECOND = 1_000_000_000L;

    /** Writes the recording as a JFR file to a stream, which is not closed. */
    public void write(Recording r, OutputStream out) throws IOException {
        long start = r.startMonotonicNs();
        long duration = Math.max(1, r.snapshotMonotonicNs() - start);
        Run run = new Run(r, start);
        run.write();
        run.chunk.write(out, r.startEpochNs(), duration, TICKS_BASE, TICKS_PER_SECOND);
        out.flush();
    }

    /** One conversion: the types, the chunk, and the keys of the constants written so far. */
    private static final class Run {
        final Recording r;
        final long start;
        final ContentionIndex x;
        final InteractionTable in;
        final List<RecordedThread> threads;

        final Metadata md = new Metadata();
        final Type name;
        final Type label;
        final Type description;
        final Type timestamp;
        final Type timespan;
        final Type tThread;
        final Type tThreadGroup;
        final Type tClass;
        final Type tLoader;
        final Type tModule;
        final Type tPackage;
        final Type tMethod;
        final Type tSymbol;
        final Type tFrame;
        final Type tFrameType;
        final Type tStack;

        final Type monitorEnter;
        final Type monitorWait;
        final Type threadPark;
        final Type threadSleep;
        final Type threadJoin;
        final Type gc;
        final Type threadStart;
        final Type threadEnd;
        final Type notify;
        final Type unpark;
        final Type interaction;
        final Type criticalPath;
        final Type dataLoss;

        final ChunkWriter chunk;

        /** Per ring: its thread's key. */
        final long[] threadKeys;
        /** Platform threads' rings by Java id: virtual threads' carriers. */
        final Map<Long, Integer> carriers = new HashMap<>();
        /** Owners no ring has, by Java id: their threads' keys. */
        final LongMap<Long> unringed = new LongMap<>();
        /** Per ring: the ring of the thread that started it, -1 if none is known. */
        final int[] parents;
        /** Per ring: the threads its notify calls woke, by the call's time. */
        final Map<Long, Integer>[] woken;
        /** Thread groups by (name, parent's name): their keys. */
        final Map<List<String>, Long> groups = new HashMap<>();
        /** Per stack id below {@link #DENSE_STACK_IDS}: its key plus one, 0 while not written (stack ids are small). */
        long[] stackKeys = new long[1024];
        /** Stack ids from {@link #DENSE_STACK_IDS} up to keys (0: no stack). */
        final LongMap<Long> stacks = new LongMap<>();
        /** Class ids to keys (0: not described). */
        final LongMap<Long> classes = new LongMap<>();
        final LongMap<Long> methods = new LongMap<>();
        final Map<String, Long> symbols = new HashMap<>();
        final Map<String, Long> packages = new HashMap<>();
        /** Monitor object ids to {class key, address}. */
        final LongMap<long[]> monitors = new LongMap<>();
        long nativeFrame;
        long unknownClass;
        long[] frameScratch = new long[64];

        Run(Recording r, long start) {
            this.r = r;
            this.start = start;
            this.x = ContentionIndex.of(r);
            this.in = x.interactions();
            this.threads = r.threads();
            name = annotation("jdk.jfr.Name");
            label = annotation("jdk.jfr.Label");
            description = annotation("jdk.jfr.Description");
            md.annotation("jdk.jfr.ContentType");
            timestamp = annotation("jdk.jfr.Timestamp");
            timespan = annotation("jdk.jfr.Timespan");
            annotation("jdk.jfr.Unsigned");
            annotation("jdk.jfr.Category");
            Type tString = md.stringType;
            Type tLong = md.longType;
            Type tInt = md.intType;
            Type tBoolean = md.booleanType;
            tThreadGroup = md.constant("jdk.types.ThreadGroup");
            tThreadGroup.field("parent", tThreadGroup);
            tThreadGroup.field("name", tString);
            // the JDK's java.lang.Thread fields, virtual included (JDK 21+)
            tThread = md.constant("java.lang.Thread");
            tThread.field("osName", tString);
            tThread.field("osThreadId", tLong);
            tThread.field("javaName", tString);
            tThread.field("javaThreadId", tLong);
            tThread.field("group", tThreadGroup);
            tThread.field("virtual", tBoolean);
            tSymbol = md.constant("jdk.types.Symbol");
            tSymbol.field("string", tString);
            tClass = md.constant("java.lang.Class");
            tLoader = md.constant("jdk.types.ClassLoader");
            tLoader.field("type", tClass);
            tLoader.field("name", tSymbol);
            tModule = md.constant("jdk.types.Module");
            tModule.field("name", tSymbol);
            tModule.field("version", tSymbol);
            tModule.field("location", tSymbol);
            tModule.field("classLoader", tLoader);
            tPackage = md.constant("jdk.types.Package");
            tPackage.field("name", tSymbol);
            tPackage.field("module", tModule);
            tPackage.field("exported", tBoolean);
            tClass.field("classLoader", tLoader);
            tClass.field("name", tSymbol);
            tClass.field("package", tPackage);
            tClass.field("modifiers", tInt);
            tClass.field("hidden", tBoolean);
            tMethod = md.constant("jdk.types.Method");
            tMethod.field("type", tClass);
            tMethod.field("name", tSymbol);
            tMethod.field("descriptor", tSymbol);
            tMethod.field("modifiers", tInt);
            tMethod.field("hidden", tBoolean);
            tFrameType = md.constant("jdk.types.FrameType");
            tFrameType.field("description", tString);
            // frames are inline in their stack trace, as the JDK writes them (no constant pool)
            tFrame = md.struct("jdk.types.StackFrame");
            tFrame.field("method", tMethod);
            tFrame.field("lineNumber", tInt);
            tFrame.field("bytecodeIndex", tInt);
            tFrame.field("type", tFrameType);
            tStack = md.constant("jdk.types.StackTrace");
            tStack.field("truncated", tBoolean);
            tStack.arrayField("frames", tFrame);

            monitorEnter = event("jdk.JavaMonitorEnter", "Java Monitor Blocked",
                    "Waiting to enter a monitor (Convoy: a contended synchronized enter)", e -> {
                        carrierField(e);
                        field(e, "monitorClass", tClass, "Monitor Class");
                        field(e, "previousOwner", tThread, "Previous Monitor Owner");
                        field(e, "address", tLong, "Monitor Address");
                        field(e, "inferredOwner", tThread, "Inferred Owner")
                                .annotate(description, "Convoy: the owner inferred when the VM did not record it");
                        field(e, "unfinished", tBoolean, "Unfinished");
                    });
            monitorWait = event("jdk.JavaMonitorWait", "Java Monitor Wait", "Waiting on a monitor (Object.wait)", e -> {
                carrierField(e);
                field(e, "monitorClass", tClass, "Monitor Class");
                field(e, "notifier", tThread, "Notifier Thread");
                field(e, "timeout", tLong, "Timeout").annotate(timespan, "MILLISECONDS");
                field(e, "timedOut", tBoolean, "Timed Out");
                field(e, "address", tLong, "Monitor Address");
                field(e, "unfinished", tBoolean, "Unfinished");
            });
            threadPark = event("jdk.ThreadPark", "Java Thread Park", "LockSupport.park", e -> {
                carrierField(e);
                field(e, "parkedClass", tClass, "Class Parked On");
                field(e, "timeout", tLong, "Park Timeout").annotate(timespan, "NANOSECONDS");
                field(e, "until", tLong, "Park Until").annotate(timestamp, "MILLISECONDS_SINCE_EPOCH");
                field(e, "address", tLong, "Address of Object Parked");
                field(e, "lock", tBoolean, "Lock Acquisition");
                field(e, "lockOwner", tThread, "Lock Owner");
                field(e, "timedOut", tBoolean, "Timed Out");
                field(e, "interrupted", tBoolean, "Interrupted");
                field(e, "unfinished", tBoolean, "Unfinished");
            });
            threadSleep = event("jdk.ThreadSleep", "Java Thread Sleep", "Thread.sleep", e -> {
                carrierField(e);
                field(e, "time", tLong, "Sleep Time").annotate(timespan, "MILLISECONDS");
                field(e, "interrupted", tBoolean, "Interrupted");
                field(e, "unfinished", tBoolean, "Unfinished");
            });
            threadJoin = event("dev.convoy.ThreadJoin", "Thread Join", "Thread.join", e -> {
                carrierField(e);
                field(e, "joinedThread", tThread, "Joined Thread");
                field(e, "timeout", tLong, "Timeout").annotate(timespan, "MILLISECONDS");
                field(e, "interrupted", tBoolean, "Interrupted");
                field(e, "unfinished", tBoolean, "Unfinished");
            });
            gc = event("jdk.GarbageCollection", "Garbage Collection",
                    "A garbage collection pause (Convoy: JVMTI GarbageCollectionStart to Finish)", e -> {
                        field(e, "gcId", tInt, "GC Identifier");
                        field(e, "name", tString, "Name");
                        field(e, "cause", tString, "Cause");
                        field(e, "sumOfPauses", tLong, "Sum of Pauses").annotate(timespan, "NANOSECONDS");
                        field(e, "longestPause", tLong, "Longest Pause").annotate(timespan, "NANOSECONDS");
                        field(e, "unfinished", tBoolean, "Unfinished");
                    });
            criticalPath = event("dev.convoy.CriticalPath", "Critical Path Segment",
                    "One segment of the critical path (contention analysis): what the thread that held up the "
                            + "path's end was doing", e -> {
                        field(e, "state", tString, "State");
                        field(e, "monitorClass", tClass, "Monitor Class");
                        field(e, "address", tLong, "Monitor Address");
                        field(e, "via", tString, "Reached Through")
                                .annotate(description, "The kind of the interaction the walk followed back");
                    });
            threadStart = event("jdk.ThreadStart", "Java Thread Start", "A thread started", e -> {
                field(e, "thread", tThread, "New Java Thread");
                field(e, "parentThread", tThread, "Parent Java Thread");
            });
            threadEnd = event("jdk.ThreadEnd", "Java Thread End", "A thread ended",
                    e -> field(e, "thread", tThread, "Java Thread"));
            notify = event("dev.convoy.Notify", "Notify", "Object.notify or notifyAll", e -> {
                field(e, "monitorClass", tClass, "Monitor Class");
                field(e, "address", tLong, "Monitor Address");
                field(e, "all", tBoolean, "notifyAll");
                field(e, "woken", tInt, "Threads Woken");
            });
            unpark = event("dev.convoy.Unpark", "Unpark", "LockSupport.unpark",
                    e -> field(e, "target", tThread, "Unparked Thread"));
            interaction = event("dev.convoy.Interaction", "Interaction",
                    "One thread making another run (contention analysis): from its act (startTime) to the other "
                            + "thread running (startTime + duration)", e -> {
                        field(e, "kind", tString, "Kind");
                        field(e, "target", tThread, "Thread Made To Run");
                        field(e, "monitorClass", tClass, "Monitor Class");
                        field(e, "address", tLong, "Monitor Address");
                        field(e, "exact", tBoolean, "Exact")
                                .annotate(description, "The thread that acted is recorded; false for a handoff whose "
                                        + "releaser is inferred");
                    });
            dataLoss = event("dev.convoy.DataLoss", "Data Loss",
                    "Records Convoy lost: of the thread (eventThread) from its last record before them (startTime) "
                            + "to its first record after them (startTime + duration), whose state then is unknown; "
                            + "without a thread, records of threads the recording no longer holds, or never recorded",
                    e -> {
                        field(e, "kind", tString, "Kind").annotate(description, "overwritten: by the thread's ring "
                                + "before the recorder kept them; aged: out of the history (maxsize, maxage); dropped: "
                                + "never recorded (their object could not be identified); torn: skipped by a snapshot");
                        field(e, "records", tLong, "Records Lost");
                    });
            chunk = new ChunkWriter(md);

            parents = new int[threads.size()];
            Arrays.fill(parents, -1);
            @SuppressWarnings("unchecked")
            Map<Long, Integer>[] w = new Map[threads.size()];
            woken = w;
            for (int id = 0; id < in.count(); id++) {
                Interactions.Kind kind = in.kind(id);
                int from = in.fromRing(id);
                if (kind == Interactions.Kind.START && in.toRing(id) >= 0 && parents[in.toRing(id)] < 0) {
                    parents[in.toRing(id)] = from;
                } else if ((kind == Interactions.Kind.NOTIFY || kind == Interactions.Kind.NOTIFY_ALL) && from >= 0) {
                    if (woken[from] == null) {
                        woken[from] = new HashMap<>();
                    }
                    woken[from].merge(in.fromNs(id), 1, Integer::sum);
                }
            }
            for (int k = 0; k < threads.size(); k++) {
                RecordedThread t = threads.get(k);
                if (!t.isSystem() && !t.isVirtual()) {
                    carriers.putIfAbsent(t.javaThreadId(), k);
                }
            }
            threadKeys = new long[threads.size()];
            for (int k = 0; k < threadKeys.length; k++) {
                threadKeys[k] = threadConstant(threads.get(k));
            }
        }

        private Type annotation(String annotationName) {
            Type t = md.annotation(annotationName);
            t.field("value", md.stringType);
            return t;
        }

        private Field field(Type owner, String fieldName, Type type, String labelText) {
            return owner.field(fieldName, type).annotate(label, labelText);
        }

        /** Convoy's field {@code carrier}: the platform thread a virtual thread resumed on. */
        private void carrierField(Type e) {
            field(e, "carrier", tThread, "Carrier Thread")
                    .annotate(description, "Convoy: the carrier a virtual thread resumed on");
        }

        /** An event type: startTime, duration, eventThread, stackTrace, then its own fields. */
        private Type event(String id, String labelText, String text, Consumer<Type> fields) {
            Type e = md.event(id);
            e.annotate(name, id).annotate(label, labelText).annotate(description, text);
            // the JDK's order: its parser takes the first field as the start and the second as the duration
            field(e, "startTime", md.longType, "Start Time").annotate(timestamp, "TICKS");
            field(e, "duration", md.longType, "Duration").annotate(timespan, "TICKS");
            field(e, "eventThread", tThread, "Event Thread");
            field(e, "stackTrace", tStack, "Stack Trace");
            fields.accept(e);
            return e;
        }

        long ticks(long ns) {
            return ns - start + TICKS_BASE;
        }

        void write() {
            for (int k = 0; k < threads.size(); k++) {
                RecordedThread t = threads.get(k);
                IntervalTable g = x.intervals(k);
                for (int iv = 0; iv < g.count(); iv++) {
                    interval(k, t, g, iv);
                }
                if (!t.isSystem()) {
                    calls(k, t);
                    if (!t.isLate()) {
                        threadStart(k, t);
                    }
                    if (t.isEnded() && t.endNs() != 0) {
                        long th = threadKeys[k];
                        chunk.event(threadEnd).putLong(ticks(t.endNs())).putLong(0).putKey(tThread, th)
                                .putKey(tStack, 0).putKey(tThread, th).end();
                    }
                }
            }
            for (int id = 0; id < in.count(); id++) {
                interaction(id);
            }
            PathTable path = x.path();
            for (int sg = 0; sg < path.count(); sg++) {
                segment(path, sg);
            }
            losses();
        }

        /**
         * A {@code dev.convoy.DataLoss} per loss of a thread's records, and, without a thread over the
         * whole recording, the records lost of threads the recording no longer holds (the INFO totals
         * beyond the losses listed), the records dropped and those torn.
         */
        void losses() {
            for (int k = 0; k < threads.size(); k++) {
                for (Loss l : threads.get(k).losses()) {
                    dataLoss(l.fromNs(), l.toNs(), threadKeys[k], l.kindName(), l.records());
                }
            }
            long from = r.startMonotonicNs();
            long to = r.snapshotMonotonicNs();
            dataLoss(from, to, 0, Loss.kindName(SnapshotFormat.LOSS_OVERWRITTEN),
                    r.recordsOverwritten() - r.lostRecords(SnapshotFormat.LOSS_OVERWRITTEN));
            dataLoss(from, to, 0, Loss.kindName(SnapshotFormat.LOSS_AGED),
                    r.recordsAged() - r.lostRecords(SnapshotFormat.LOSS_AGED));
            dataLoss(from, to, 0, "dropped", r.recordsDropped());
            dataLoss(from, to, 0, "torn", r.recordsTorn());
        }

        void dataLoss(long from, long to, long thread, String kind, long records) {
            if (records > 0) {
                chunk.event(dataLoss).putLong(ticks(from)).putLong(Math.max(0, to - from)).putKey(tThread, thread)
                        .putKey(tStack, 0).putPooledString(kind).putLong(records).end();
            }
        }

        void segment(PathTable path, int sg) {
            long ts = path.startNs(sg);
            long dur = Math.max(0, path.endNs(sg) - ts);
            int ring = path.ring(sg);
            boolean onMonitor = path.state(sg) != ThreadStates.State.JOINING;
            long[] m = onMonitor ? monitor(path.monitor(sg)) : NO_MONITOR;
            int via = path.via(sg);
            chunk.event(criticalPath).putLong(ticks(ts)).putLong(dur).putKey(tThread, threadKeys[ring])
                    .putKey(tStack, 0).putPooledString(path.state(sg).name()).putKey(tClass, m[0]).putLong(m[1])
                    .putPooledString(via >= 0 ? in.kind(via).name() : null).end();
        }

        void threadStart(int k, RecordedThread t) {
            long th = threadKeys[k];
            long p = parents[k] >= 0 ? threadKeys[parents[k]] : 0;
            chunk.event(threadStart).putLong(ticks(t.startNs())).putLong(0).putKey(tThread, th).putKey(tStack, 0)
                    .putKey(tThread, th).putKey(tThread, p).end();
        }

        /** The calls of a ring that are instants: notify, notifyAll, unpark. */
        void calls(int k, RecordedThread t) {
            for (int i = 0; i < t.eventCount(); i++) {
                EventType type = t.type(i);
                if (type == EventType.NOTIFY || type == EventType.NOTIFY_ALL) {
                    long[] m = monitor(t.obj(i));
                    common(chunk.event(notify), k, t.ts(i), 0, t.stackId(i))
                            .putKey(tClass, m[0]).putLong(m[1]).putBoolean(type == EventType.NOTIFY_ALL)
                            .putInt(wokenBy(k, t, i)).end();
                } else if (type == EventType.UNPARK) {
                    RecordedThread target = r.threadByObject(t.obj(i)).orElse(null);
                    common(chunk.event(unpark), k, t.ts(i), 0, t.stackId(i))
                            .putKey(tThread, target == null ? 0 : threadKeys[x.ring(target)]).end();
                }
            }
        }

        /** How many waits the NOTIFY/NOTIFY_ALL record i of ring k woke: the notify interactions from it. */
        int wokenBy(int k, RecordedThread t, int i) {
            Map<Long, Integer> m = woken[k];
            Integer n = m == null ? null : m.get(t.ts(i));
            return n == null ? 0 : n;
        }

        void interaction(int id) {
            Interactions.Kind kind = in.kind(id);
            int from = in.fromRing(id);
            int to = in.toRing(id);
            long fromNs = in.fromNs(id);
            long dur = Math.max(0, in.toNs(id) - fromNs);
            boolean onMonitor = kind == Interactions.Kind.HANDOFF || kind == Interactions.Kind.NOTIFY
                    || kind == Interactions.Kind.NOTIFY_ALL;
            long[] m = onMonitor ? monitor(in.monitor(id)) : NO_MONITOR;
            chunk.event(interaction).putLong(ticks(fromNs)).putLong(dur)
                    .putKey(tThread, from >= 0 ? threadKeys[from] : 0).putKey(tStack, 0)
                    .putPooledString(kind.name()).putKey(tThread, to >= 0 ? threadKeys[to] : 0)
                    .putKey(tClass, m[0]).putLong(m[1]).putBoolean(in.exact(id)).end();
        }

        void interval(int k, RecordedThread t, IntervalTable g, int iv) {
            int kind = g.kind(iv);
            if (t.isSystem() && kind != IntervalTable.GC) {
                return; // as the CSV event log: system threads' records are not written
            }
            long ts = g.startNs(iv);
            long dur = Math.max(0, g.endNs(iv) - ts);
            boolean open = g.isOpen(iv);
            int begin = g.begin(iv);
            int stackId = begin >= 0 ? t.stackId(begin) : 0;
            int carrier = open || !t.isVirtual() ? -1 : carrier(t, g.end(iv));
            long carrierKey = carrier >= 0 ? threadKeys[carrier] : 0;
            long arg = begin >= 0 ? t.arg(begin) : 0;
            long mon = g.monitor(iv);
            if (kind == IntervalTable.GC) {
                chunk.event(gc).putLong(ticks(ts)).putLong(dur).putKey(tThread, 0).putKey(tStack, 0)
                        .putInt(iv).putPooledString("unknown").putPooledString("unknown")
                        .putLong(dur).putLong(dur).putBoolean(open).end();
                return;
            }
            if (g.isPark(iv)) {
                boolean lock = kind == IntervalTable.BLOCKED;
                long owner = lock ? ownerKey(in.ownerRing(k, iv), t.arg2(begin)) : 0;
                long[] m = monitor(mon);
                common(chunk.event(threadPark), k, ts, dur, stackId).putKey(tThread, carrierKey)
                        .putKey(tClass, m[0]).putLong(arg).putLong(Long.MIN_VALUE).putLong(m[1]).putBoolean(lock)
                        .putKey(tThread, owner).putBoolean(!open && g.timedOut(iv))
                        .putBoolean(!open && g.parkInterrupted(iv)).putBoolean(open).end();
                return;
            }
            switch (kind) {
                case IntervalTable.BLOCKED -> {
                    MonitorOwnership.Source src = in.ownerSource(k, iv);
                    boolean exact = src != null && src.exact();
                    long owner = ownerKey(in.ownerRing(k, iv), src == null ? 0 : in.ownerJavaId(k, iv));
                    long[] m = monitor(mon);
                    common(chunk.event(monitorEnter), k, ts, dur, stackId).putKey(tThread, carrierKey)
                            .putKey(tClass, m[0]).putKey(tThread, exact ? owner : 0).putLong(m[1])
                            .putKey(tThread, exact ? 0 : owner).putBoolean(open).end();
                }
                case IntervalTable.WAITING -> {
                    int ender = open ? -1 : in.endedBy(k, iv);
                    int notifier = -1;
                    if (ender >= 0) {
                        Interactions.Kind ek = in.kind(ender);
                        if (ek == Interactions.Kind.NOTIFY || ek == Interactions.Kind.NOTIFY_ALL) {
                            notifier = in.fromRing(ender);
                        }
                    }
                    long[] m = monitor(mon);
                    common(chunk.event(monitorWait), k, ts, dur, stackId).putKey(tThread, carrierKey)
                            .putKey(tClass, m[0]).putKey(tThread, notifier >= 0 ? threadKeys[notifier] : 0)
                            .putLong(arg).putBoolean(!open && g.timedOut(iv)).putLong(m[1]).putBoolean(open).end();
                }
                case IntervalTable.SLEEPING -> common(chunk.event(threadSleep), k, ts, dur, stackId)
                        .putKey(tThread, carrierKey).putLong(arg).putBoolean(!open && g.interrupted(iv))
                        .putBoolean(open).end();
                case IntervalTable.JOINING -> {
                    RecordedThread joined = r.threadByObject(mon).orElse(null);
                    common(chunk.event(threadJoin), k, ts, dur, stackId).putKey(tThread, carrierKey)
                            .putKey(tThread, joined == null ? 0 : threadKeys[x.ring(joined)]).putLong(arg)
                            .putBoolean(!open && g.interrupted(iv)).putBoolean(open).end();
                }
                default -> {
                }
            }
        }

        /**
         * An owner's key: its ring's thread, else (a thread no ring has) a thread with only its
         * Java id, named "thread ID"; 0 for none (id -1) or unknown (0).
         */
        long ownerKey(int ring, long javaId) {
            if (ring >= 0) {
                return threadKeys[ring];
            }
            if (javaId <= 0) {
                return 0;
            }
            Long key = unringed.get(javaId);
            if (key == null) {
                String text = "thread " + javaId;
                key = chunk.constant(tThread).putString(text).putLong(0).putString(text).putLong(javaId)
                        .putKey(tThreadGroup, 0).putBoolean(false).end();
                unringed.put(javaId, key);
            }
            return key;
        }

        /** The platform thread's ring a virtual thread resumed on: the record ending its interval names it (arg2). */
        int carrier(RecordedThread t, int end) {
            long id = end >= 0 ? t.arg2(end) : 0;
            Integer k = id > 0 ? carriers.get(id) : null;
            return k == null ? -1 : k;
        }

        /** The fields every event begins with: startTime, duration, eventThread (ring k), stackTrace. */
        ValueWriter common(ValueWriter e, int k, long ts, long dur, int stackId) {
            return e.putLong(ticks(ts)).putLong(dur).putKey(tThread, threadKeys[k]).putKey(tStack, stackKey(stackId));
        }

        private static final long[] NO_MONITOR = {0, 0};

        /**
         * A monitor's class key and its identity hash as an unsigned number (the events' fields
         * {@code monitorClass}, {@code parkedClass} and {@code address}); both 0 when the
         * snapshot does not describe the object.
         */
        long[] monitor(long mon) {
            if (mon == 0) {
                return NO_MONITOR;
            }
            long[] m = monitors.get(mon);
            if (m == null) {
                ObjectInfo o = r.objects().get(mon);
                m = o == null ? NO_MONITOR : new long[] {classKey(o.classId()), o.identityHash() & 0xFFFF_FFFFL};
                monitors.put(mon, m);
            }
            return m;
        }

        long threadConstant(RecordedThread t) {
            long group = groupKey(t.group(), t.parentGroup());
            String threadName = Text.wellFormed(t.displayName());
            return chunk.constant(tThread).putString(threadName).putLong(t.isVirtual() ? 0 : t.ringId())
                    .putString(threadName).putLong(t.javaThreadId()).putKey(tThreadGroup, group)
                    .putBoolean(t.isVirtual()).end();
        }

        /** A thread group's key (0 for none), its parent a group of that name without a parent. */
        long groupKey(String group, String parent) {
            if (group == null || group.isEmpty()) {
                return 0;
            }
            String p = parent == null || parent.isEmpty() ? null : parent;
            List<String> key = Arrays.asList(group, p);
            Long k = groups.get(key);
            if (k == null) {
                long parentKey = groupKey(p, null);
                k = chunk.constant(tThreadGroup).putKey(tThreadGroup, parentKey).putString(group).end();
                groups.put(key, k);
            }
            return k;
        }

        long symbol(String s) {
            Long k = symbols.get(s);
            if (k == null) {
                k = chunk.constant(tSymbol).putString(s).end();
                symbols.put(s, k);
            }
            return k;
        }

        long packageKey(String p) {
            Long k = packages.get(p);
            if (k == null) {
                long nameKey = symbol(p);
                k = chunk.constant(tPackage).putKey(tSymbol, nameKey).putKey(tModule, 0).putBoolean(true).end();
                packages.put(p, k);
            }
            return k;
        }

        /** A class's key; 0 when the snapshot does not describe it or gives no signature. */
        long classKey(long classId) {
            Long k = classes.get(classId);
            if (k == null) {
                ClassInfo c = r.classes().get(classId);
                k = 0L;
                if (c != null && !c.signature().isEmpty()) {
                    String internal = internalName(c.signature());
                    int slash = internal.lastIndexOf('/');
                    long pkg = slash < 0 ? 0 : packageKey(internal.substring(0, slash));
                    long nameKey = symbol(internal);
                    k = chunk.constant(tClass).putKey(tLoader, 0).putKey(tSymbol, nameKey).putKey(tPackage, pkg)
                            .putInt(0).putBoolean(false).end();
                }
                classes.put(classId, k);
            }
            return k;
        }

        /** {@code Ljava/lang/Object;} to {@code java/lang/Object} (JFR's class names); an array's signature stays. */
        static String internalName(String sig) {
            return sig.length() > 2 && sig.charAt(0) == 'L' && sig.endsWith(";")
                    ? Text.wellFormed(sig.substring(1, sig.length() - 1)) : Text.wellFormed(sig);
        }

        long methodKey(long methodId) {
            Long k = methods.get(methodId);
            if (k == null) {
                MethodInfo m = r.methods().get(methodId);
                long type;
                long nameKey;
                long descriptor;
                if (m == null) {
                    type = 0;
                    nameKey = symbol("<unknown method 0x" + Long.toHexString(methodId) + ">");
                    descriptor = symbol("()V"); // a placeholder the JDK's jfr print can parse
                } else {
                    type = classKey(m.classId());
                    nameKey = symbol(Text.wellFormed(m.name()));
                    descriptor = symbol(Text.wellFormed(m.signature()));
                }
                if (type == 0) {
                    type = unknownClass(); // the JDK's jfr print fails on a method without a class
                }
                k = chunk.constant(tMethod).putKey(tClass, type).putKey(tSymbol, nameKey).putKey(tSymbol, descriptor)
                        .putInt(0).putBoolean(false).end();
                methods.put(methodId, k);
            }
            return k;
        }

        static final int DENSE_STACK_IDS = 1 << 22;

        /** A stack's key; 0 for none (stack id 0) or one the snapshot does not have. */
        long stackKey(int stackId) {
            if (stackId == 0) {
                return 0;
            }
            if (stackId > 0 && stackId < DENSE_STACK_IDS) {
                if (stackId >= stackKeys.length) {
                    stackKeys = Arrays.copyOf(stackKeys, Math.min(DENSE_STACK_IDS, Math.max(stackId + 1, 2 * stackKeys.length)));
                }
                long k = stackKeys[stackId];
                if (k == 0) {
                    k = stackConstantOf(stackId) + 1;
                    stackKeys[stackId] = k;
                }
                return k - 1;
            }
            Long k = stacks.get(stackId);
            if (k == null) {
                k = stackConstantOf(stackId);
                stacks.put(stackId, k);
            }
            return k;
        }

        long stackConstantOf(int stackId) {
            StackTrace st = r.stacks().get(stackId);
            return st == null ? 0 : stackConstant(st);
        }

        /** A stack trace constant, its frames inline: method, line, bytecode index, type (Native or null). */
        long stackConstant(StackTrace st) {
            List<Frame> frames = st.frames();
            int n = frames.size();
            if (frameScratch.length < 2 * n) {
                frameScratch = new long[2 * n];
            }
            for (int i = 0; i < n; i++) {
                Frame f = frames.get(i);
                frameScratch[2 * i] = methodKey(f.methodId());
                frameScratch[2 * i + 1] = f.location() < 0 ? nativeType() : 0;
            }
            ValueWriter v = chunk.constant(tStack).putBoolean(st.truncated()).putArray(tFrame, n);
            for (int i = 0; i < n; i++) {
                Frame f = frames.get(i);
                MethodInfo m = r.methods().get(f.methodId());
                boolean isNative = f.location() < 0;
                int line = m == null ? -1 : m.lineFor(f.location());
                int bci = isNative ? -1 : (int) Math.min(Integer.MAX_VALUE, f.location());
                v.putKey(tMethod, frameScratch[2 * i]).putInt(line).putInt(bci).putKey(tFrameType, frameScratch[2 * i + 1]);
            }
            return v.end();
        }

        /** The class {@code <unknown>}: the declaring class of a method whose class the snapshot does not describe. */
        long unknownClass() {
            if (unknownClass == 0) {
                long nameKey = symbol("<unknown>");
                unknownClass = chunk.constant(tClass).putKey(tLoader, 0).putKey(tSymbol, nameKey).putKey(tPackage, 0)
                        .putInt(0).putBoolean(false).end();
            }
            return unknownClass;
        }

        long nativeType() {
            if (nativeFrame == 0) {
                nativeFrame = chunk.constant(tFrameType).putString("Native").end();
            }
            return nativeFrame;
        }
    }
}
