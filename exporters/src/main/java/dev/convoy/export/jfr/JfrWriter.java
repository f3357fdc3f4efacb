package dev.convoy.export.jfr;

import dev.convoy.analysis.ContentionIndex;
import dev.convoy.export.Text;
import dev.convoy.export.jfr.Metadata.Field;
import dev.convoy.export.jfr.Metadata.Type;
import dev.convoy.analysis.InteractionCursor;
import dev.convoy.analysis.Interval;
import dev.convoy.analysis.Interactions;
import dev.convoy.analysis.IntervalCursor;
import dev.convoy.analysis.LongMap;
import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.analysis.PathCursor;
import dev.convoy.analysis.ThreadStates;
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

/**
 * A JFR recording (one chunk) of a Convoy recording, encoded by Convoy's own chunk writer
 * ({@link dev.convoy.export.jfr}), in the JDK's own event types, declared as the recordings of
 * the recorded JDK declare them ({@link JdkTypes}, by {@link #recordedFeature}), so that JMC,
 * the JDK's {@code jfr} tool and {@code jdk.jfr.consumer} read and show it as they do the JDK's
 * own recordings ({@code docs/formats.md}, "JFR").
 *
 * <p>One JFR event per interval of {@link ContentionIndex} (a begin record and its end):
 * {@code jdk.JavaMonitorEnter}, {@code jdk.JavaMonitorWait}, {@code jdk.ThreadPark},
 * {@code jdk.ThreadSleep}, {@code dev.convoy.ThreadJoin}, {@code jdk.GarbageCollection};
 * {@code jdk.ThreadStart} and {@code jdk.ThreadEnd} per ring (the threads the CSV event log
 * gives ThreadStarted and ThreadEnded); {@code dev.convoy.Notify} and {@code dev.convoy.Unpark}
 * per call; {@code dev.convoy.Interaction} per interaction of contention analysis and
 * {@code dev.convoy.CriticalPath} per segment of the critical path; {@code dev.convoy.DataLoss} per
 * loss of a thread's records (and for the records lost without a thread); {@code dev.convoy.OwnerSample}
 * per sample of the owner's side of a long block ({@link dev.convoy.analysis.OwnerSamples}); and, first,
 * {@code jdk.ActiveSetting} per setting of each event type: what Convoy records (enabled,
 * threshold 0 ns). An interval still open at snapshot time ends at the snapshot and has
 * {@code unfinished = true}. {@code previousOwner} has the JDK's meaning, the thread that released
 * the monitor to the entering thread, where that releaser is exact (the VM recorded it,
 * FLAG_RELEASER: its HANDOFF interaction is exact), absent otherwise; the owner at the enter is
 * Convoy's {@code ownerAtEnter} with {@code ownerAtEnterKind} (exact, none or inferred). Every
 * releaser, exact or inferred, is the {@code eventThread} of a {@code dev.convoy.Interaction} of
 * kind HANDOFF, whose {@code exact} says which.
 *
 * <p>Every field of every value is written, in its type's order ({@link ValueWriter} checks
 * it), a missing one as null (key 0, or a null string), 0 or false. An event of a JDK type has
 * the JDK's fields in the JDK's order (startTime, [duration], [eventThread], [stackTrace] as the
 * type has them: the JDK's parser relies on the first two), then Convoy's; stack frames are
 * inline in their stack trace, as the JDK writes them. Threads, thread groups, stack traces,
 * classes, packages, methods, symbols and GC names and causes are constants, each written once
 * and referenced by key; the strings events repeat (interaction kinds, critical path states,
 * owner kinds) are in the string pool.
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

    /**
     * The feature release of the recorded JVM (17, 25, ...), whose recordings' declarations the
     * file follows ({@link JdkTypes}): from INFO {@code jvm.version} ({@code java.vm.version},
     * e.g. {@code 17.0.15+6} or {@code 25+36-LTS}), else 17; at least {@link JdkTypes#LATER_FORM}
     * when the recording has a virtual thread.
     */
    public static int recordedFeature(Recording r) {
        String v = r.info().getOrDefault("jvm.version", "");
        int n = 0;
        int i = 0;
        while (i < v.length() && i < 4 && Character.isDigit(v.charAt(i))) {
            n = n * 10 + v.charAt(i++) - '0';
        }
        int feature = i > 0 && n > 1 ? n : 17;
        for (RecordedThread t : r.threads()) {
            if (t.isVirtual()) {
                return Math.max(feature, JdkTypes.LATER_FORM); // a JVM with virtual threads declares them
            }
        }
        return feature;
    }

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
        final InteractionCursor in;
        final List<RecordedThread> threads;

        final JdkTypes jdk;
        final Metadata md;
        final Type description;
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
        final Type tGcName;
        final Type tGcCause;

        final Type monitorEnter;
        final Type monitorWait;
        final Type threadPark;
        final Type threadSleep;
        final Type threadJoin;
        final Type gc;
        final Type threadStart;
        final Type threadEnd;
        final Type activeSetting;
        final Type notify;
        final Type unpark;
        final Type interaction;
        final Type criticalPath;
        final Type dataLoss;
        final Type ownerSample;
        /** The event types whose settings the chunk states ({@code jdk.ActiveSetting}), in declaration order. */
        final List<Type> recorded = new java.util.ArrayList<>();

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
            jdk = new JdkTypes(recordedFeature(r));
            md = jdk.md;
            description = jdk.description;
            timespan = jdk.timespan;
            Type tString = md.stringType;
            Type tLong = md.longType;
            Type tInt = md.intType;
            Type tBoolean = md.booleanType;
            tThreadGroup = jdk.threadGroup;
            tThread = jdk.thread;
            tSymbol = jdk.symbol;
            tClass = jdk.clazz;
            tLoader = jdk.classLoader;
            tModule = jdk.module;
            tPackage = jdk.pkg;
            tMethod = jdk.method;
            tFrameType = jdk.frameType;
            tFrame = jdk.frame;
            tStack = jdk.stackTrace;
            tGcName = jdk.gcName;
            tGcCause = jdk.gcCause;

            // the JDK's types, their fields as the JDK declares them, then Convoy's
            monitorEnter = recorded(jdk.javaMonitorEnter());
            field(monitorEnter, "ownerAtEnter", tThread, "Owner at Enter", "Convoy: the thread that held the monitor "
                    + "when this thread blocked on it, exact or inferred (ownerAtEnterKind); absent when it had none "
                    + "or it is unknown. (previousOwner is the thread that released the monitor to this thread)");
            field(monitorEnter, "ownerAtEnterKind", tString, "Owner at Enter Kind", "Convoy: exact (the VM's owner "
                    + "at the enter), none (exactly none: the monitor had just been released), inferred (Convoy's "
                    + "analysis); absent when the owner is unknown");
            carrierField(monitorEnter);
            unfinishedField(monitorEnter);
            monitorWait = recorded(jdk.javaMonitorWait());
            carrierField(monitorWait);
            unfinishedField(monitorWait);
            threadPark = recorded(jdk.threadPark());
            field(threadPark, "lock", tBoolean, "Lock Acquisition",
                    "Convoy: the park acquires a java.util.concurrent lock (its blocker is a synchronizer other "
                            + "than a latch's)");
            field(threadPark, "lockOwner", tThread, "Lock Owner",
                    "Convoy: the lock's exclusive owner the parking thread read as it parked (exact); absent for "
                            + "none");
            field(threadPark, "timedOut", tBoolean, "Timed Out", "Convoy: the park ended by its timeout");
            field(threadPark, "interrupted", tBoolean, "Interrupted", "Convoy: the park ended by an interrupt");
            carrierField(threadPark);
            unfinishedField(threadPark);
            threadSleep = recorded(jdk.threadSleep());
            field(threadSleep, "interrupted", tBoolean, "Interrupted", "Convoy: the sleep ended by an interrupt");
            carrierField(threadSleep);
            unfinishedField(threadSleep);
            gc = recorded(jdk.garbageCollection());
            unfinishedField(gc);
            threadStart = recorded(jdk.threadStart());
            threadEnd = recorded(jdk.threadEnd());
            activeSetting = jdk.activeSetting();

            // Convoy's own types
            threadJoin = recorded(jdk.ownEvent("dev.convoy.ThreadJoin", "Thread Join",
                    "Waiting in Thread.join for a thread to end", true, "Convoy", "Java Application"));
            field(threadJoin, "joinedThread", tThread, "Joined Thread", "The thread waited for");
            field(threadJoin, "timeout", tLong, "Timeout", "The timeout asked for (0: none)")
                    .annotate(timespan, "MILLISECONDS");
            field(threadJoin, "interrupted", tBoolean, "Interrupted", "The join ended by an interrupt");
            carrierField(threadJoin);
            unfinishedField(threadJoin);
            notify = recorded(jdk.ownEvent("dev.convoy.Notify", "Notify", "Object.notify or Object.notifyAll", true,
                    "Convoy", "Java Application"));
            field(notify, "monitorClass", tClass, "Monitor Class", "Class of the object notified");
            monitorAddress(notify, "Monitor Address", "Identity hash code of the object notified");
            field(notify, "all", tBoolean, "notifyAll", "notifyAll (true) or notify (false)");
            field(notify, "woken", tInt, "Threads Woken", "How many waits the call ended (contention analysis)");
            unpark = recorded(jdk.ownEvent("dev.convoy.Unpark", "Unpark", "LockSupport.unpark", true,
                    "Convoy", "Java Application"));
            field(unpark, "target", tThread, "Unparked Thread", "The thread unparked");
            interaction = recorded(jdk.ownEvent("dev.convoy.Interaction", "Interaction",
                    "One thread making another run (contention analysis): from its act (startTime) to the other "
                            + "thread running (startTime + duration)", false, "Convoy", "Analysis"));
            field(interaction, "kind", tString, "Kind", "START, HANDOFF (a monitor released to a blocked thread), "
                    + "NOTIFY, NOTIFY_ALL, INTERRUPT, JOIN_END, TIMEOUT or UNPARK");
            field(interaction, "target", tThread, "Thread Made To Run", "The thread that ran because of it");
            field(interaction, "monitorClass", tClass, "Monitor Class", "Class of the monitor of a handoff or notify");
            monitorAddress(interaction, "Monitor Address", "Identity hash code of the monitor of a handoff or notify");
            field(interaction, "exact", tBoolean, "Exact", "The thread that acted is recorded; false for a handoff "
                    + "whose releaser is inferred");
            criticalPath = recorded(jdk.ownEvent("dev.convoy.CriticalPath", "Critical Path Segment",
                    "One segment of the critical path (contention analysis): what the thread that held up the "
                            + "path's end was doing", false, "Convoy", "Analysis"));
            field(criticalPath, "state", tString, "State", "RUNNING, BLOCKED, WAITING, SLEEPING, JOINING, "
                    + "DEADLOCKED, DEAD or STARTING");
            field(criticalPath, "monitorClass", tClass, "Monitor Class", "Class of the monitor of the segment");
            monitorAddress(criticalPath, "Monitor Address", "Identity hash code of the monitor of the segment");
            field(criticalPath, "via", tString, "Reached Through", "The kind of the interaction the walk followed "
                    + "back");
            dataLoss = recorded(jdk.ownEvent("dev.convoy.DataLoss", "Data Loss",
                    "Records Convoy lost: of the thread (eventThread) from its last record before them (startTime) "
                            + "to its first record after them (startTime + duration), whose state then is unknown; "
                            + "without a thread, records of threads the recording no longer holds, or never recorded",
                    false, "Convoy", "Recording"));
            field(dataLoss, "kind", tString, "Kind", "overwritten: by the thread's ring before the recorder kept "
                    + "them; aged: out of the history (maxsize, maxage); dropped: never recorded (their object "
                    + "could not be identified); torn: skipped by a snapshot");
            field(dataLoss, "records", tLong, "Records Lost", "How many records");
            ownerSample = recorded(jdk.ownEvent("dev.convoy.OwnerSample", "Owner Sample",
                    "The owner's side of a long block (agent option ownerstacks): the thread that held the lock "
                            + "(eventThread) and its stack (stackTrace) when another thread had been blocked on it "
                            + "longer than the threshold", true, "Convoy", "Java Application"));
            field(ownerSample, "blockedThread", tThread, "Blocked Thread", "The thread blocked on the lock");
            field(ownerSample, "monitorClass", tClass, "Monitor Class", "Class of the monitor or lock blocked on");
            monitorAddress(ownerSample, "Monitor Address", "Identity hash code of the monitor or lock blocked on");
            field(ownerSample, "lock", tBoolean, "Lock Acquisition", "The block is a park acquiring a "
                    + "java.util.concurrent lock (false: a monitor)");
            field(ownerSample, "blockedDuration", tLong, "Blocked Duration", "How long the blocked thread was "
                    + "blocked in all (to the snapshot when still blocked)").annotate(timespan, "NANOSECONDS");
            field(ownerSample, "ownerState", tString, "Owner State", "The owner's state at the sample: running, "
                    + "in native, blocked, waiting, parked, sleeping or unknown");
            field(ownerSample, "ownerOnClass", tClass, "Owner Blocked On Class", "Class of what the owner was "
                    + "itself blocked on, waiting on or parked on");
            ownerSample.field("ownerOnAddress", md.longType).annotate(jdk.unsigned).annotate(jdk.memoryAddress)
                    .annotate(jdk.label, "Owner Blocked On Address").annotate(description, "Identity hash code of "
                            + "what the owner was itself blocked on, waiting on or parked on");
            field(ownerSample, "holdingFrame", tString, "Holding Frame", "The frame of the owner's stack that "
                    + "holds the monitor, as a Java stack trace line; absent for a java.util.concurrent lock or "
                    + "when none is known");
            field(ownerSample, "holdingFrameProbable", tBoolean, "Holding Frame Probable", "Several frames of the "
                    + "stack could hold the monitor: the holding frame is the outermost of them");
            chunk = new ChunkWriter(md);

            parents = new int[threads.size()];
            Arrays.fill(parents, -1);
            @SuppressWarnings("unchecked")
            Map<Long, Integer>[] w = new Map[threads.size()];
            woken = w;
            for (int id = 0; id < in.count(); id++) {
                Interactions.Kind kind = in.select(id).kind();
                int from = in.select(id).fromRing();
                if (kind == Interactions.Kind.START && in.select(id).toRing() >= 0 && parents[in.select(id).toRing()] < 0) {
                    parents[in.select(id).toRing()] = from;
                } else if ((kind == Interactions.Kind.NOTIFY || kind == Interactions.Kind.NOTIFY_ALL) && from >= 0) {
                    if (woken[from] == null) {
                        woken[from] = new HashMap<>();
                    }
                    woken[from].merge(in.select(id).fromNs(), 1, Integer::sum);
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

        private Type recorded(Type e) {
            recorded.add(e);
            return e;
        }

        /** A field of Convoy's with its label and description. */
        private Field field(Type owner, String fieldName, Type type, String labelText, String text) {
            return jdk.labelled(owner, fieldName, type, labelText).annotate(description, text);
        }

        /** A monitor's identity hash, unsigned and in the JDK's content type of an address (shown in hex). */
        private void monitorAddress(Type e, String labelText, String text) {
            e.field("address", md.longType).annotate(jdk.unsigned).annotate(jdk.memoryAddress)
                    .annotate(jdk.label, labelText).annotate(description, text);
        }

        /** Convoy's field {@code carrier}: the platform thread a virtual thread resumed on. */
        private void carrierField(Type e) {
            field(e, "carrier", tThread, "Carrier Thread", "Convoy: the carrier a virtual thread resumed on (the "
                    + "record that ended the interval names it)");
        }

        /** Convoy's field {@code unfinished}: the interval was still open when the snapshot was taken. */
        private void unfinishedField(Type e) {
            field(e, "unfinished", md.booleanType, "Unfinished", "Convoy: still going on when the snapshot was taken "
                    + "(the duration ends at the snapshot)");
        }

        long ticks(long ns) {
            return ns - start + TICKS_BASE;
        }

        void write() {
            settings();
            for (int k = 0; k < threads.size(); k++) {
                RecordedThread t = threads.get(k);
                IntervalCursor g = x.intervals(k);
                for (int iv = 0; iv < g.count(); iv++) {
                    interval(k, t, g.select(iv));
                }
                if (!t.isSystem()) {
                    calls(k, t);
                    if (!t.isLate()) {
                        threadStart(k, t);
                    }
                    if (t.isEnded() && t.endNs() != 0) {
                        long th = threadKeys[k];
                        chunk.event(threadEnd).putLong(ticks(t.endNs())).putKey(tThread, th).putKey(tThread, th).end();
                    }
                }
            }
            for (int id = 0; id < in.count(); id++) {
                interaction(id);
            }
            for (dev.convoy.analysis.OwnerSamples.Sample s : x.ownerSamples().all()) {
                ownerSample(s);
            }
            PathCursor path = x.path();
            for (int sg = 0; sg < path.count(); sg++) {
                segment(path.select(sg));
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
                        .putPooledString(kind).putLong(records).end();
            }
        }

        void segment(PathCursor path) {
            long ts = path.startNs();
            long dur = Math.max(0, path.endNs() - ts);
            int ring = path.ring();
            boolean onMonitor = path.state() != ThreadStates.State.JOINING;
            long[] m = onMonitor ? monitor(path.monitor()) : NO_MONITOR;
            int via = path.via();
            chunk.event(criticalPath).putLong(ticks(ts)).putLong(dur).putKey(tThread, threadKeys[ring])
                    .putPooledString(path.state().name()).putKey(tClass, m[0]).putLong(m[1])
                    .putPooledString(via >= 0 ? in.select(via).kind().name() : null).end();
        }

        /**
         * A {@code dev.convoy.OwnerSample}: the owner as event thread with its stack, the blocked
         * thread, the lock, the owner's state and what it was itself on, the holding frame.
         */
        void ownerSample(dev.convoy.analysis.OwnerSamples.Sample s) {
            long[] m = monitor(s.monitor());
            long[] on = s.state().onSomething() && s.on() != 0 ? monitor(s.on()) : NO_MONITOR;
            long owner = ownerKey(s.owner() == null ? -1 : x.ring(s.owner()), s.ownerJavaId());
            Frame f = s.holdingFrame(r);
            chunk.event(ownerSample).putLong(ticks(s.ts())).putLong(0).putKey(tThread, owner)
                    .putKey(tStack, stackKey(s.stackId())).putKey(tThread, threadKeys[s.ring()])
                    .putKey(tClass, m[0]).putLong(m[1]).putBoolean(s.lock())
                    .putLong(Math.max(0, x.ownerSamples().blockedNs(s)))
                    .putPooledString(s.state().label()).putKey(tClass, on[0]).putLong(on[1])
                    .putPooledString(f == null ? null : r.describe(f)).putBoolean(f != null && !s.frameExact()).end();
        }

        void threadStart(int k, RecordedThread t) {
            long th = threadKeys[k];
            long p = parents[k] >= 0 ? threadKeys[parents[k]] : 0;
            chunk.event(threadStart).putLong(ticks(t.startNs())).putKey(tThread, th).putKey(tStack, 0)
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
            Interactions.Kind kind = in.select(id).kind();
            int from = in.select(id).fromRing();
            int to = in.select(id).toRing();
            long fromNs = in.select(id).fromNs();
            long dur = Math.max(0, in.select(id).toNs() - fromNs);
            boolean onMonitor = kind == Interactions.Kind.HANDOFF || kind == Interactions.Kind.NOTIFY
                    || kind == Interactions.Kind.NOTIFY_ALL;
            long[] m = onMonitor ? monitor(in.select(id).monitor()) : NO_MONITOR;
            chunk.event(interaction).putLong(ticks(fromNs)).putLong(dur)
                    .putKey(tThread, from >= 0 ? threadKeys[from] : 0)
                    .putPooledString(kind.name()).putKey(tThread, to >= 0 ? threadKeys[to] : 0)
                    .putKey(tClass, m[0]).putLong(m[1]).putBoolean(in.select(id).exact()).end();
        }

        void interval(int k, RecordedThread t, IntervalCursor g) {
            Interval.Kind kind = g.kind();
            if (t.isSystem() && kind != Interval.Kind.GC) {
                return; // as the CSV event log: system threads' records are not written
            }
            long ts = g.startNs();
            long dur = Math.max(0, g.endNs() - ts);
            boolean open = g.isOpen();
            int begin = g.beginRecord();
            int stackId = begin >= 0 ? t.stackId(begin) : 0;
            int carrier = open || !t.isVirtual() ? -1 : carrier(t, g.endRecord());
            long carrierKey = carrier >= 0 ? threadKeys[carrier] : 0;
            long arg = begin >= 0 ? t.arg(begin) : 0;
            long mon = g.monitor();
            if (kind == Interval.Kind.GC) {
                ValueWriter e = chunk.event(gc).putLong(ticks(ts)).putLong(dur);
                if (jdk.gcHasThread()) {
                    e.putKey(tThread, 0); // JVMTI does not say which thread collected
                }
                e.putInt(g.id()).putKey(tGcName, gcUnknown(tGcName)).putKey(tGcCause, gcUnknown(tGcCause))
                        .putLong(dur).putLong(dur).putBoolean(open).end();
                return;
            }
            if (g.isPark()) {
                boolean lock = kind == Interval.Kind.BLOCKED;
                long owner = lock ? ownerKey(g.ownerRing(), t.arg2(begin)) : 0;
                long[] m = monitor(mon);
                // no timeout and no deadline are Long.MIN_VALUE ("N/A"), as the JDK writes them
                common(chunk.event(threadPark), k, ts, dur, stackId)
                        .putKey(tClass, m[0]).putLong(arg > 0 ? arg : Long.MIN_VALUE).putLong(Long.MIN_VALUE).putLong(m[1]).putBoolean(lock)
                        .putKey(tThread, owner).putBoolean(!open && g.timedOut())
                        .putBoolean(!open && g.parkInterrupted()).putKey(tThread, carrierKey).putBoolean(open).end();
                return;
            }
            switch (kind) {
                case BLOCKED -> {
                    MonitorOwnership.Source src = g.ownerSource();
                    long owner = ownerKey(g.ownerRing(), src == null ? 0 : g.ownerJavaId());
                    String ownerKind = src == null ? null : src == MonitorOwnership.Source.NONE ? "none"
                            : src.exact() ? "exact" : "inferred";
                    int releaser = open ? -1 : exactReleaser(g);
                    long[] m = monitor(mon);
                    common(chunk.event(monitorEnter), k, ts, dur, stackId)
                            .putKey(tClass, m[0]).putKey(tThread, releaser >= 0 ? threadKeys[releaser] : 0).putLong(m[1])
                            .putKey(tThread, owner).putPooledString(ownerKind)
                            .putKey(tThread, carrierKey).putBoolean(open).end();
                }
                case WAITING -> {
                    int ender = open ? -1 : g.endedBy();
                    int notifier = -1;
                    if (ender >= 0) {
                        Interactions.Kind ek = in.select(ender).kind();
                        if (ek == Interactions.Kind.NOTIFY || ek == Interactions.Kind.NOTIFY_ALL) {
                            notifier = in.select(ender).fromRing();
                        }
                    }
                    long[] m = monitor(mon);
                    common(chunk.event(monitorWait), k, ts, dur, stackId)
                            .putKey(tClass, m[0]).putKey(tThread, notifier >= 0 ? threadKeys[notifier] : 0)
                            .putLong(arg).putBoolean(!open && g.timedOut()).putLong(m[1])
                            .putKey(tThread, carrierKey).putBoolean(open).end();
                }
                case SLEEPING -> common(chunk.event(threadSleep), k, ts, dur, stackId)
                        .putLong(jdk.sleepTimeInNanos() ? millisToNanos(arg) : arg)
                        .putBoolean(!open && g.interrupted()).putKey(tThread, carrierKey).putBoolean(open).end();
                case JOINING -> {
                    RecordedThread joined = r.threadByObject(mon).orElse(null);
                    if (t.rawType(begin) == dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_WAIT) {
                        // a join seen by its stack (no JOIN recorded): the wait on the Thread object,
                        // as the JDK records it; Convoy's join event is for recorded joins
                        long[] m = monitor(mon);
                        common(chunk.event(monitorWait), k, ts, dur, stackId)
                                .putKey(tClass, m[0]).putKey(tThread, 0).putLong(arg)
                                .putBoolean(!open && g.timedOut()).putLong(m[1])
                                .putKey(tThread, carrierKey).putBoolean(open).end();
                        return;
                    }
                    common(chunk.event(threadJoin), k, ts, dur, stackId)
                            .putKey(tThread, joined == null ? 0 : threadKeys[x.ring(joined)]).putLong(arg)
                            .putBoolean(!open && g.interrupted()).putKey(tThread, carrierKey).putBoolean(open).end();
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
                ValueWriter v = chunk.constant(tThread).putString(text).putLong(0).putString(text).putLong(javaId)
                        .putKey(tThreadGroup, 0);
                if (jdk.threadHasVirtual()) {
                    v.putBoolean(false);
                }
                key = v.end();
                unringed.put(javaId, key);
            }
            return key;
        }

        /**
         * The ring of the thread that released the monitor to the closed BLOCKED interval
         * {@code iv} of ring {@code k}, where the releaser is exact (its HANDOFF interaction is
         * exact: the VM recorded it, FLAG_RELEASER); -1 where it is inferred or unknown.
         */
        int exactReleaser(IntervalCursor g) {
            int id = g.endedBy();
            if (id < 0) {
                return -1;
            }
            InteractionCursor a = in.select(id);
            return a.kind() == Interactions.Kind.HANDOFF && a.exact() ? a.fromRing() : -1;
        }

        /** A sleep's milliseconds in nanoseconds (saturating). */
        static long millisToNanos(long ms) {
            return ms > Long.MAX_VALUE / 1_000_000 ? Long.MAX_VALUE : ms < Long.MIN_VALUE / 1_000_000 ? Long.MIN_VALUE
                    : ms * 1_000_000;
        }

        long gcUnknownName;
        long gcUnknownCause;

        /** The key of the GC name or cause {@code unknown} (JVMTI tells neither). */
        long gcUnknown(Type t) {
            if (t == tGcName) {
                if (gcUnknownName == 0) {
                    gcUnknownName = chunk.constant(tGcName).putString("unknown").end();
                }
                return gcUnknownName;
            }
            if (gcUnknownCause == 0) {
                gcUnknownCause = chunk.constant(tGcCause).putString("unknown").end();
            }
            return gcUnknownCause;
        }

        /**
         * A {@code jdk.ActiveSetting} per setting of every event type the chunk holds, at its start:
         * what Convoy records, as a JFR recording would state its settings. Every type is enabled;
         * a type with a duration has threshold {@code 0 ns} (Convoy records every contended enter,
         * wait, park, sleep and join, however short); a type with a stack trace has
         * {@code stackTrace} true (false when INFO {@code stack.depth} is 0).
         */
        void settings() {
            String stacks = "0".equals(r.info().get("stack.depth")) ? "false" : "true";
            long at = ticks(start);
            for (Type t : recorded) {
                for (String setting : t.settingNames()) {
                    String value = switch (setting) {
                        case "enabled" -> "true";
                        case "threshold" -> "0 ns";
                        case "stackTrace" -> t == threadStart ? "false" : stacks;
                        default -> throw new IllegalStateException(t + " has a setting " + setting);
                    };
                    ValueWriter e = chunk.event(activeSetting).putLong(at);
                    if (jdk.activeSettingHasThread()) {
                        e.putLong(0).putKey(tThread, 0).putKey(tStack, 0);
                    }
                    e.putLong(t.id()).putString(setting).putString(value).end();
                }
            }
        }

        /** The platform thread's ring a virtual thread resumed on: the record ending its interval names it (arg2). */
        int carrier(RecordedThread t, int end) {
            long id = end >= 0 ? t.arg2(end) : 0;
            Integer k = id > 0 ? carriers.get(id) : null;
            return k == null ? -1 : k;
        }

        /** The fields the JDK's events with a stack trace begin with: startTime, duration, eventThread (ring k), stackTrace. */
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
            ValueWriter v = chunk.constant(tThread).putString(threadName).putLong(t.isVirtual() ? 0 : t.ringId())
                    .putString(threadName).putLong(t.javaThreadId()).putKey(tThreadGroup, group);
            if (jdk.threadHasVirtual()) {
                v.putBoolean(t.isVirtual());
            }
            return v.end();
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
