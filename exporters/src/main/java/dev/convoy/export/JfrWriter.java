package dev.convoy.export;

import dev.convoy.analysis.ContentionIndex;
import dev.convoy.analysis.InteractionTable;
import dev.convoy.analysis.Interactions;
import dev.convoy.analysis.IntervalTable;
import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.analysis.PathTable;
import dev.convoy.model.ClassInfo;
import dev.convoy.model.EventType;
import dev.convoy.model.Frame;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.ObjectInfo;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.StackTrace;
import java.io.IOException;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmc.flightrecorder.writer.api.Type;
import org.openjdk.jmc.flightrecorder.writer.api.TypeStructureBuilder;
import org.openjdk.jmc.flightrecorder.writer.api.TypedFieldBuilder;
import org.openjdk.jmc.flightrecorder.writer.api.TypedValue;
import org.openjdk.jmc.flightrecorder.writer.api.TypedValueBuilder;
import org.openjdk.jmc.flightrecorder.writer.api.Types;
import org.openjdk.jmc.flightrecorder.writer.api.Types.Builtin;
import org.openjdk.jmc.flightrecorder.writer.api.Types.JDK;

/**
 * A JFR recording (one chunk) of a Convoy recording, written with JDK Mission Control's JFR
 * writer ({@code org.openjdk.jmc:flightrecorder.writer}), in the JDK's own event types and
 * field names so that JMC, the JDK's {@code jfr} tool and {@code jdk.jfr.consumer} read it
 * without knowing Convoy ({@code docs/formats.md}, "JFR").
 *
 * <p>One JFR event per interval of {@link ContentionIndex} (a begin record and its end):
 * {@code jdk.JavaMonitorEnter}, {@code jdk.JavaMonitorWait}, {@code jdk.ThreadPark},
 * {@code jdk.ThreadSleep}, {@code dev.convoy.ThreadJoin}, {@code jdk.GarbageCollection};
 * {@code jdk.ThreadStart} and {@code jdk.ThreadEnd} per ring (the threads the CSV event log
 * gives ThreadStarted and ThreadEnded); {@code dev.convoy.Notify} and {@code dev.convoy.Unpark}
 * per call; {@code dev.convoy.Interaction} per interaction of contention analysis and
 * {@code dev.convoy.CriticalPath} per segment of the critical path. An interval still open at
 * snapshot time ends at the snapshot and has {@code unfinished = true}. A previous owner is
 * {@code previousOwner} only where exact; an inferred one is Convoy's {@code inferredOwner}.
 *
 * <p>Every field of every value is written, missing ones as null: the library leaves a field
 * that was not put out of the bytes ({@code Run#value}). Event fields come in the JDK's order
 * (startTime, duration, eventThread, stackTrace), which the JDK's parser relies on, and stack
 * frames are inline (no constant pool), as the JDK writes them.
 *
 * <p>Times: one tick is one nanosecond; ticks are the monotonic time since recording start
 * plus {@link #TICKS_BASE}, and the chunk's start is the recording's start (INFO
 * {@code start.epoch.ns}), so a reader's wall clock equals {@link Recording#toEpochNs}.
 *
 * <p>The writer keeps the whole chunk in memory until it is closed (the library's design) and
 * allocates a 32 KiB buffer per event ({@code docs/performance.md}, "JFR"); this class keeps
 * the contention analysis and one value per thread, stack, class and method.
 */
public final class JfrWriter {

    /** The tick of the recording's start: the ticks of a time {@code ts} are {@code ts - start + TICKS_BASE}. */
    public static final long TICKS_BASE = 1_000_000_000_000L;

    private static final String ANNOTATION = "java.lang.annotation.Annotation";

    /** Writes the recording as a JFR file to a stream, which is not closed. */
    public void write(Recording r, OutputStream out) throws IOException {
        long start = r.startMonotonicNs();
        long duration = Math.max(1, r.snapshotMonotonicNs() - start);
        OutputStream unclosed = new java.io.FilterOutputStream(out) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void close() throws IOException {
                out.flush(); // the caller owns the stream
            }
        };
        org.openjdk.jmc.flightrecorder.writer.api.Recording jfr =
                org.openjdk.jmc.flightrecorder.writer.api.Recordings.newRecording(unclosed,
                        s -> s.withTimestamp(r.startEpochNs()).withStartTicks(TICKS_BASE).withDuration(duration));
        try {
            new Run(r, jfr, start).write();
        } finally {
            jfr.close();
        }
    }

    /** One conversion: the registered types and the values kept per thread, stack, class and method. */
    private static final class Run {
        final Recording r;
        final org.openjdk.jmc.flightrecorder.writer.api.Recording jfr;
        final long start;
        final ContentionIndex x;
        final InteractionTable in;
        final List<RecordedThread> threads;

        final Type tThread;
        final Type tThreadGroup;
        final Type tClass;
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

        final TypedValue[] threadValues;
        /** Platform threads' rings by Java id: virtual threads' carriers. */
        final Map<Long, Integer> carriers = new HashMap<>();
        /** Owners no ring has, by Java id. */
        final Map<Long, TypedValue> unringed = new HashMap<>();
        /** Per ring: the ring of the thread that started it, -1 if none is known. */
        final int[] parents;
        /** Per ring: the threads its notify calls woke, by the call's time. */
        final Map<Long, Integer>[] woken;
        final Map<Integer, TypedValue> stacks = new HashMap<>();
        final Map<Long, TypedValue> classes = new HashMap<>();
        final Map<Long, TypedValue> methods = new HashMap<>();
        final Map<String, TypedValue> symbols = new HashMap<>();
        final Map<String, TypedValue> packages = new HashMap<>();
        TypedValue nativeFrame;

        Run(Recording r, org.openjdk.jmc.flightrecorder.writer.api.Recording jfr, long start) {
            this.r = r;
            this.jfr = jfr;
            this.start = start;
            this.x = ContentionIndex.of(r);
            this.in = x.interactions();
            this.threads = r.threads();
            Types types = jfr.getTypes();
            Type name = annotation(types, JDK.ANNOTATION_NAME);
            Type label = annotation(types, JDK.ANNOTATION_LABEL);
            Type description = annotation(types, JDK.ANNOTATION_DESCRIPTION);
            types.getOrAdd(JDK.ANNOTATION_CONTENT_TYPE, ANNOTATION, b -> { });
            annotation(types, JDK.ANNOTATION_TIMESTAMP);
            annotation(types, JDK.ANNOTATION_TIMESPAN);
            annotation(types, JDK.ANNOTATION_UNSIGNED);
            annotation(types, JDK.ANNOTATION_CATEGORY);
            types.getOrAdd(JDK.TICKSPAN, b -> b.addField("tickSpan", Builtin.LONG));
            types.getOrAdd(JDK.TICKS, b -> b.addField("ticks", Builtin.LONG));
            tThreadGroup = types.getOrAdd(JDK.THREAD_GROUP,
                    b -> b.addField("parent", b.selfType()).addField("name", Builtin.STRING));
            // the JDK's java.lang.Thread fields, virtual included (JDK 21+)
            tThread = types.getOrAdd(JDK.THREAD, b -> b.addField("osName", Builtin.STRING)
                    .addField("osThreadId", Builtin.LONG).addField("javaName", Builtin.STRING)
                    .addField("javaThreadId", Builtin.LONG).addField("group", tThreadGroup)
                    .addField("virtual", Builtin.BOOLEAN));
            tSymbol = types.getOrAdd(JDK.SYMBOL, b -> b.addField("string", Builtin.STRING));
            Type loader = types.getOrAdd(JDK.CLASS_LOADER, b -> b.addField("type", JDK.CLASS).addField("name", tSymbol));
            Type module = types.getOrAdd(JDK.MODULE, b -> b.addField("name", tSymbol).addField("version", tSymbol)
                    .addField("location", tSymbol).addField("classLoader", loader));
            tPackage = types.getOrAdd(JDK.PACKAGE, b -> b.addField("name", tSymbol).addField("module", module)
                    .addField("exported", Builtin.BOOLEAN));
            tClass = types.getOrAdd(JDK.CLASS, b -> b.addField("classLoader", loader).addField("name", tSymbol)
                    .addField("package", tPackage).addField("modifiers", Builtin.INT)
                    .addField("hidden", Builtin.BOOLEAN));
            tMethod = types.getOrAdd(JDK.METHOD, b -> b.addField("type", tClass).addField("name", tSymbol)
                    .addField("descriptor", tSymbol).addField("modifiers", Builtin.INT)
                    .addField("hidden", Builtin.BOOLEAN));
            tFrameType = types.getOrAdd(JDK.FRAME_TYPE, b -> b.addField("description", Builtin.STRING));
            // frames are inline in their stack trace, as the JDK writes them (no constant pool)
            tFrame = types.getOrAdd(JDK.STACK_FRAME.getTypeName(), false, b -> b.addField("method", tMethod)
                    .addField("lineNumber", Builtin.INT).addField("bytecodeIndex", Builtin.INT)
                    .addField("type", tFrameType));
            tStack = types.getOrAdd(JDK.STACK_TRACE, b -> b.addField("truncated", Builtin.BOOLEAN)
                    .addField("frames", tFrame, TypedFieldBuilder::asArray));

            monitorEnter = event("jdk.JavaMonitorEnter", "Java Monitor Blocked", name, label, description,
                    "Waiting to enter a monitor (Convoy: a contended synchronized enter)", b -> {
                        carrierField(b, label, description);
                        b.addField("monitorClass", tClass, f -> f.addAnnotation(label, "Monitor Class"));
                        b.addField("previousOwner", tThread, f -> f.addAnnotation(label, "Previous Monitor Owner"));
                        b.addField("address", Builtin.LONG, f -> f.addAnnotation(label, "Monitor Address"));
                        b.addField("inferredOwner", tThread, f -> f.addAnnotation(label, "Inferred Owner")
                                .addAnnotation(description, "Convoy: the owner inferred when the VM did not record it"));
                        b.addField("unfinished", Builtin.BOOLEAN, f -> f.addAnnotation(label, "Unfinished"));
                    });
            monitorWait = event("jdk.JavaMonitorWait", "Java Monitor Wait", name, label, description,
                    "Waiting on a monitor (Object.wait)", b -> {
                        carrierField(b, label, description);
                        b.addField("monitorClass", tClass, f -> f.addAnnotation(label, "Monitor Class"));
                        b.addField("notifier", tThread, f -> f.addAnnotation(label, "Notifier Thread"));
                        b.addField("timeout", Builtin.LONG, f -> f.addAnnotation(label, "Timeout")
                                .addAnnotation(JDK.ANNOTATION_TIMESPAN, "MILLISECONDS"));
                        b.addField("timedOut", Builtin.BOOLEAN, f -> f.addAnnotation(label, "Timed Out"));
                        b.addField("address", Builtin.LONG, f -> f.addAnnotation(label, "Monitor Address"));
                        b.addField("unfinished", Builtin.BOOLEAN, f -> f.addAnnotation(label, "Unfinished"));
                    });
            threadPark = event("jdk.ThreadPark", "Java Thread Park", name, label, description,
                    "LockSupport.park", b -> {
                        carrierField(b, label, description);
                        b.addField("parkedClass", tClass, f -> f.addAnnotation(label, "Class Parked On"));
                        b.addField("timeout", Builtin.LONG, f -> f.addAnnotation(label, "Park Timeout")
                                .addAnnotation(JDK.ANNOTATION_TIMESPAN, "NANOSECONDS"));
                        b.addField("until", Builtin.LONG, f -> f.addAnnotation(label, "Park Until")
                                .addAnnotation(JDK.ANNOTATION_TIMESTAMP, "MILLISECONDS_SINCE_EPOCH"));
                        b.addField("address", Builtin.LONG, f -> f.addAnnotation(label, "Address of Object Parked"));
                        b.addField("lock", Builtin.BOOLEAN, f -> f.addAnnotation(label, "Lock Acquisition"));
                        b.addField("lockOwner", tThread, f -> f.addAnnotation(label, "Lock Owner"));
                        b.addField("timedOut", Builtin.BOOLEAN, f -> f.addAnnotation(label, "Timed Out"));
                        b.addField("interrupted", Builtin.BOOLEAN, f -> f.addAnnotation(label, "Interrupted"));
                        b.addField("unfinished", Builtin.BOOLEAN, f -> f.addAnnotation(label, "Unfinished"));
                    });
            threadSleep = event("jdk.ThreadSleep", "Java Thread Sleep", name, label, description, "Thread.sleep", b -> {
                        carrierField(b, label, description);
                b.addField("time", Builtin.LONG, f -> f.addAnnotation(label, "Sleep Time")
                        .addAnnotation(JDK.ANNOTATION_TIMESPAN, "MILLISECONDS"));
                b.addField("interrupted", Builtin.BOOLEAN, f -> f.addAnnotation(label, "Interrupted"));
                b.addField("unfinished", Builtin.BOOLEAN, f -> f.addAnnotation(label, "Unfinished"));
            });
            threadJoin = event("dev.convoy.ThreadJoin", "Thread Join", name, label, description, "Thread.join", b -> {
                        carrierField(b, label, description);
                b.addField("joinedThread", tThread, f -> f.addAnnotation(label, "Joined Thread"));
                b.addField("timeout", Builtin.LONG, f -> f.addAnnotation(label, "Timeout")
                        .addAnnotation(JDK.ANNOTATION_TIMESPAN, "MILLISECONDS"));
                b.addField("interrupted", Builtin.BOOLEAN, f -> f.addAnnotation(label, "Interrupted"));
                b.addField("unfinished", Builtin.BOOLEAN, f -> f.addAnnotation(label, "Unfinished"));
            });
            gc = event("jdk.GarbageCollection", "Garbage Collection", name, label, description,
                    "A garbage collection pause (Convoy: JVMTI GarbageCollectionStart to Finish)", b -> {
                        b.addField("gcId", Builtin.INT, f -> f.addAnnotation(label, "GC Identifier"));
                        b.addField("name", Builtin.STRING, f -> f.addAnnotation(label, "Name"));
                        b.addField("cause", Builtin.STRING, f -> f.addAnnotation(label, "Cause"));
                        b.addField("sumOfPauses", Builtin.LONG, f -> f.addAnnotation(label, "Sum of Pauses")
                                .addAnnotation(JDK.ANNOTATION_TIMESPAN, "NANOSECONDS"));
                        b.addField("longestPause", Builtin.LONG, f -> f.addAnnotation(label, "Longest Pause")
                                .addAnnotation(JDK.ANNOTATION_TIMESPAN, "NANOSECONDS"));
                        b.addField("unfinished", Builtin.BOOLEAN, f -> f.addAnnotation(label, "Unfinished"));
                    });
            criticalPath = event("dev.convoy.CriticalPath", "Critical Path Segment", name, label, description,
                    "One segment of the critical path (contention analysis): what the thread that held up the "
                            + "path's end was doing", b -> {
                        b.addField("state", Builtin.STRING, f -> f.addAnnotation(label, "State"));
                        b.addField("monitorClass", tClass, f -> f.addAnnotation(label, "Monitor Class"));
                        b.addField("address", Builtin.LONG, f -> f.addAnnotation(label, "Monitor Address"));
                        b.addField("via", Builtin.STRING, f -> f.addAnnotation(label, "Reached Through")
                                .addAnnotation(description, "The kind of the interaction the walk followed back"));
                    });
            threadStart = event("jdk.ThreadStart", "Java Thread Start", name, label, description, "A thread started", b -> {
                b.addField("thread", tThread, f -> f.addAnnotation(label, "New Java Thread"));
                b.addField("parentThread", tThread, f -> f.addAnnotation(label, "Parent Java Thread"));
            });
            threadEnd = event("jdk.ThreadEnd", "Java Thread End", name, label, description, "A thread ended", b -> {
                b.addField("thread", tThread, f -> f.addAnnotation(label, "Java Thread"));
            });
            notify = event("dev.convoy.Notify", "Notify", name, label, description, "Object.notify or notifyAll", b -> {
                b.addField("monitorClass", tClass, f -> f.addAnnotation(label, "Monitor Class"));
                b.addField("address", Builtin.LONG, f -> f.addAnnotation(label, "Monitor Address"));
                b.addField("all", Builtin.BOOLEAN, f -> f.addAnnotation(label, "notifyAll"));
                b.addField("woken", Builtin.INT, f -> f.addAnnotation(label, "Threads Woken"));
            });
            unpark = event("dev.convoy.Unpark", "Unpark", name, label, description, "LockSupport.unpark", b -> {
                b.addField("target", tThread, f -> f.addAnnotation(label, "Unparked Thread"));
            });
            interaction = event("dev.convoy.Interaction", "Interaction", name, label, description,
                    "One thread making another run (contention analysis): from its act (startTime) to the other "
                            + "thread running (startTime + duration)", b -> {
                        b.addField("kind", Builtin.STRING, f -> f.addAnnotation(label, "Kind"));
                        b.addField("target", tThread, f -> f.addAnnotation(label, "Thread Made To Run"));
                        b.addField("monitorClass", tClass, f -> f.addAnnotation(label, "Monitor Class"));
                        b.addField("address", Builtin.LONG, f -> f.addAnnotation(label, "Monitor Address"));
                    });

            parents = new int[threads.size()];
            java.util.Arrays.fill(parents, -1);
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
            threadValues = new TypedValue[threads.size()];
            for (int k = 0; k < threadValues.length; k++) {
                threadValues[k] = threadValue(threads.get(k));
            }
        }

        /**
         * A value of a type with every field given: the writer leaves a field that was not put
         * out of the bytes, which no reader can parse, so each missing field is written as null
         * (a constant or struct), 0, false or an empty string.
         */
        static TypedValue value(Type type, java.util.function.Consumer<TypedValueBuilder> fields) {
            return type.asValue(b -> {
                fields.accept(b);
                Map<String, ?> given = b.build();
                for (org.openjdk.jmc.flightrecorder.writer.api.TypedField f : type.getFields()) {
                    if (given.containsKey(f.getName())) {
                        continue;
                    }
                    Type ft = f.getType();
                    if (f.isArray()) {
                        b.putField(f.getName(), new TypedValue[0]);
                    } else if (!ft.isBuiltin()) {
                        b.putField(f.getName(), ft.nullValue());
                    } else {
                        switch (Builtin.ofType(ft)) {
                            case BOOLEAN -> b.putField(f.getName(), false);
                            case STRING -> b.putField(f.getName(), (String) null);
                            case INT -> b.putField(f.getName(), 0);
                            case BYTE -> b.putField(f.getName(), (byte) 0);
                            case SHORT -> b.putField(f.getName(), (short) 0);
                            case CHAR -> b.putField(f.getName(), (char) 0);
                            case FLOAT -> b.putField(f.getName(), 0f);
                            case DOUBLE -> b.putField(f.getName(), 0d);
                            default -> b.putField(f.getName(), 0L);
                        }
                    }
                }
            });
        }

        /** Convoy's field {@code carrier}: the platform thread a virtual thread resumed on. */
        private void carrierField(TypeStructureBuilder b, Type label, Type description) {
            b.addField("carrier", tThread, f -> f.addAnnotation(label, "Carrier Thread")
                    .addAnnotation(description, "Convoy: the carrier a virtual thread resumed on"));
        }

        private static Type annotation(Types types, JDK which) {
            return types.getOrAdd(which, ANNOTATION, b -> b.addField("value", Builtin.STRING));
        }

        /** An event type: startTime, duration, eventThread, stackTrace, then its own fields. */
        private Type event(String id, String labelText, Type name, Type label, Type description, String text,
                           java.util.function.Consumer<TypeStructureBuilder> fields) {
            // the JDK's order: its parser takes the first field as the start and the second as the duration
            return jfr.registerType(id, "jdk.jfr.Event", b -> {
                b.addAnnotation(name, id).addAnnotation(label, labelText).addAnnotation(description, text);
                b.addField("startTime", Builtin.LONG, f -> f.addAnnotation(label, "Start Time")
                        .addAnnotation(JDK.ANNOTATION_TIMESTAMP, "TICKS"));
                b.addField("duration", Builtin.LONG, f -> f.addAnnotation(label, "Duration")
                        .addAnnotation(JDK.ANNOTATION_TIMESPAN, "TICKS"));
                b.addField("eventThread", tThread, f -> f.addAnnotation(label, "Event Thread"));
                b.addField("stackTrace", tStack, f -> f.addAnnotation(label, "Stack Trace"));
                fields.accept(b);
            });
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
                        TypedValue th = threadValues[k];
                        jfr.writeEvent(value(threadEnd, b -> b.putField("startTime", ticks(t.endNs()))
                                .putField("eventThread", th).putField("thread", th)));
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
        }

        void segment(PathTable path, int sg) {
            long ts = path.startNs(sg);
            long dur = Math.max(0, path.endNs(sg) - ts);
            int ring = path.ring(sg);
            String state = path.state(sg).name();
            long mon = path.monitor(sg);
            boolean onMonitor = path.state(sg) != dev.convoy.analysis.ThreadStates.State.JOINING;
            int via = path.via(sg);
            jfr.writeEvent(value(criticalPath, b -> {
                b.putField("startTime", ticks(ts)).putField("duration", dur).putField("eventThread", threadValues[ring])
                        .putField("state", state);
                if (onMonitor) {
                    monitor(b, "monitorClass", mon);
                }
                if (via >= 0) {
                    b.putField("via", in.kind(via).name());
                }
            }));
        }

        void threadStart(int k, RecordedThread t) {
            TypedValue th = threadValues[k];
            TypedValue p = parents[k] >= 0 ? threadValues[parents[k]] : null;
            jfr.writeEvent(value(threadStart, b -> {
                b.putField("startTime", ticks(t.startNs())).putField("eventThread", th).putField("thread", th);
                if (p != null) {
                    b.putField("parentThread", p);
                }
            }));
        }

        /** The calls of a ring that are instants: notify, notifyAll, unpark. */
        void calls(int k, RecordedThread t) {
            for (int i = 0; i < t.eventCount(); i++) {
                EventType type = t.type(i);
                if (type == EventType.NOTIFY || type == EventType.NOTIFY_ALL) {
                    long mon = t.obj(i);
                    int stackId = t.stackId(i);
                    long ts = t.ts(i);
                    boolean all = type == EventType.NOTIFY_ALL;
                    int woken = wokenBy(k, t, i);
                    jfr.writeEvent(value(notify, b -> {
                        common(b, k, ts, 0, stackId);
                        monitor(b, "monitorClass", mon);
                        b.putField("all", all).putField("woken", woken);
                    }));
                } else if (type == EventType.UNPARK) {
                    RecordedThread target = r.threadByObject(t.obj(i)).orElse(null);
                    int stackId = t.stackId(i);
                    long ts = t.ts(i);
                    jfr.writeEvent(value(unpark, b -> {
                        common(b, k, ts, 0, stackId);
                        if (target != null) {
                            b.putField("target", threadValues[x.ring(target)]);
                        }
                    }));
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
            long mon = in.monitor(id);
            jfr.writeEvent(value(interaction, b -> {
                b.putField("startTime", ticks(fromNs)).putField("duration", dur);
                if (from >= 0) {
                    b.putField("eventThread", threadValues[from]);
                }
                if (to >= 0) {
                    b.putField("target", threadValues[to]);
                }
                b.putField("kind", kind.name());
                if (kind == Interactions.Kind.HANDOFF || kind == Interactions.Kind.NOTIFY
                        || kind == Interactions.Kind.NOTIFY_ALL) {
                    monitor(b, "monitorClass", mon);
                }
            }));
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
            long arg = begin >= 0 ? t.arg(begin) : 0;
            long mon = g.monitor(iv);
            if (kind == IntervalTable.GC) {
                int gcId = iv;
                jfr.writeEvent(value(gc, b -> b.putField("startTime", ticks(ts)).putField("duration", dur)
                        .putField("gcId", gcId).putField("name", "unknown").putField("cause", "unknown")
                        .putField("sumOfPauses", dur).putField("longestPause", dur).putField("unfinished", open)));
                return;
            }
            if (g.isPark(iv)) {
                boolean lock = kind == IntervalTable.BLOCKED;
                TypedValue owner = lock ? ownerValue(in.ownerRing(k, iv), t.arg2(begin)) : null;
                jfr.writeEvent(value(threadPark, b -> {
                    common(b, k, ts, dur, stackId, carrier);
                    monitor(b, "parkedClass", mon);
                    b.putField("timeout", arg).putField("until", Long.MIN_VALUE).putField("lock", lock)
                            .putField("timedOut", !open && g.timedOut(iv))
                            .putField("interrupted", !open && g.parkInterrupted(iv)).putField("unfinished", open);
                    if (owner != null) {
                        b.putField("lockOwner", owner);
                    }
                }));
                return;
            }
            switch (kind) {
                case IntervalTable.BLOCKED -> {
                    MonitorOwnership.Source src = in.ownerSource(k, iv);
                    boolean exact = src != null && src.exact();
                    TypedValue owner = ownerValue(in.ownerRing(k, iv), src == null ? 0 : in.ownerJavaId(k, iv));
                    jfr.writeEvent(value(monitorEnter, b -> {
                        common(b, k, ts, dur, stackId, carrier);
                        monitor(b, "monitorClass", mon);
                        if (owner != null) {
                            b.putField(exact ? "previousOwner" : "inferredOwner", owner);
                        }
                        b.putField("unfinished", open);
                    }));
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
                    int n = notifier;
                    jfr.writeEvent(value(monitorWait, b -> {
                        common(b, k, ts, dur, stackId, carrier);
                        monitor(b, "monitorClass", mon);
                        if (n >= 0) {
                            b.putField("notifier", threadValues[n]);
                        }
                        b.putField("timeout", arg).putField("timedOut", !open && g.timedOut(iv))
                                .putField("unfinished", open);
                    }));
                }
                case IntervalTable.SLEEPING -> jfr.writeEvent(value(threadSleep, b -> {
                    common(b, k, ts, dur, stackId, carrier);
                    b.putField("time", arg).putField("interrupted", !open && g.interrupted(iv))
                            .putField("unfinished", open);
                }));
                case IntervalTable.JOINING -> {
                    RecordedThread joined = r.threadByObject(mon).orElse(null);
                    jfr.writeEvent(value(threadJoin, b -> {
                        common(b, k, ts, dur, stackId, carrier);
                        if (joined != null) {
                            b.putField("joinedThread", threadValues[x.ring(joined)]);
                        }
                        b.putField("timeout", arg).putField("interrupted", !open && g.interrupted(iv))
                                .putField("unfinished", open);
                    }));
                }
                default -> {
                }
            }
        }

        /**
         * An owner: its ring's thread, else (a thread no ring has) a thread with only its Java
         * id, named "thread ID"; null for none (id -1) or unknown (0).
         */
        TypedValue ownerValue(int ring, long javaId) {
            if (ring >= 0) {
                return threadValues[ring];
            }
            if (javaId <= 0) {
                return null;
            }
            return unringed.computeIfAbsent(javaId, id -> value(tThread, b -> b.putField("javaName", "thread " + id)
                    .putField("osName", "thread " + id).putField("javaThreadId", id)));
        }

        /** The platform thread's ring a virtual thread resumed on: the record ending its interval names it (arg2). */
        int carrier(RecordedThread t, int end) {
            long id = end >= 0 ? t.arg2(end) : 0;
            Integer k = id > 0 ? carriers.get(id) : null;
            return k == null ? -1 : k;
        }

        void common(TypedValueBuilder b, int k, long ts, long dur, int stackId, int carrier) {
            common(b, k, ts, dur, stackId);
            if (carrier >= 0) {
                b.putField("carrier", threadValues[carrier]);
            }
        }

        void common(TypedValueBuilder b, int k, long ts, long dur,
                    int stackId) {
            b.putField("startTime", ticks(ts)).putField("duration", dur).putField("eventThread", threadValues[k]);
            TypedValue st = stack(stackId);
            if (st != null) {
                    b.putField("stackTrace", st);
                }
        }

        /** A monitor's class into {@code field} and its identity hash into {@code address}. */
        void monitor(TypedValueBuilder b, String field, long mon) {
            ObjectInfo o = mon == 0 ? null : r.objects().get(mon);
            if (o == null) {
                return;
            }
            TypedValue c = classValue(o.classId());
            if (c != null) {
                b.putField(field, c);
            }
            b.putField("address", o.identityHash() & 0xFFFF_FFFFL);
        }

        TypedValue threadValue(RecordedThread t) {
            String group = t.group();
            String parent = t.parentGroup();
            TypedValue g = group == null || group.isEmpty() ? null : value(tThreadGroup, b -> {
                b.putField("name", group);
                if (parent != null && !parent.isEmpty()) {
                    b.putField("parent", value(tThreadGroup, p -> p.putField("name", parent)));
                }
            });
            String name = Text.wellFormed(t.displayName());
            return value(tThread, b -> {
                b.putField("osName", name).putField("javaName", name)
                        .putField("javaThreadId", t.javaThreadId())
                        .putField("osThreadId", t.isVirtual() ? 0 : t.ringId())
                        .putField("virtual", t.isVirtual());
                if (g != null) {
                    b.putField("group", g);
                }
            });
        }

        TypedValue symbol(String s) {
            return symbols.computeIfAbsent(s, v -> value(tSymbol, b -> b.putField("string", v)));
        }

        TypedValue classValue(long classId) {
            if (classes.containsKey(classId)) {
                return classes.get(classId);
            }
            ClassInfo c = r.classes().get(classId);
            TypedValue v = null;
            if (c != null && !c.signature().isEmpty()) {
                String internal = internalName(c.signature());
                int slash = internal.lastIndexOf('/');
                TypedValue pkg = slash < 0 ? null : packages.computeIfAbsent(internal.substring(0, slash),
                        p -> value(tPackage, b -> b.putField("name", symbol(p)).putField("exported", true)));
                v = value(tClass, b -> {
                    b.putField("name", symbol(internal)).putField("modifiers", 0).putField("hidden", false);
                    if (pkg != null) {
                    b.putField("package", pkg);
                }
                });
            }
            classes.put(classId, v);
            return v;
        }

        /** {@code Ljava/lang/Object;} to {@code java/lang/Object} (JFR's class names); an array's signature stays. */
        static String internalName(String sig) {
            return sig.length() > 2 && sig.charAt(0) == 'L' && sig.endsWith(";")
                    ? Text.wellFormed(sig.substring(1, sig.length() - 1)) : Text.wellFormed(sig);
        }

        TypedValue methodValue(long methodId) {
            return methods.computeIfAbsent(methodId, id -> {
                MethodInfo m = r.methods().get(id);
                if (m == null) {
                    return value(tMethod, b -> b.putField("name", symbol("<unknown method 0x" + Long.toHexString(id) + ">"))
                            .putField("descriptor", symbol("")).putField("modifiers", 0).putField("hidden", false));
                }
                TypedValue c = classValue(m.classId());
                return value(tMethod, b -> {
                    if (c != null) {
                    b.putField("type", c);
                }
                    b.putField("name", symbol(Text.wellFormed(m.name())))
                            .putField("descriptor", symbol(Text.wellFormed(m.signature())))
                            .putField("modifiers", 0).putField("hidden", false);
                });
            });
        }

        TypedValue stack(int stackId) {
            if (stackId == 0) {
                return null;
            }
            return stacks.computeIfAbsent(stackId, id -> {
                StackTrace st = r.stacks().get(id);
                if (st == null) {
                    return null;
                }
                TypedValue[] frames = new TypedValue[st.frames().size()];
                for (int i = 0; i < frames.length; i++) {
                    Frame f = st.frames().get(i);
                    MethodInfo m = r.methods().get(f.methodId());
                    TypedValue method = methodValue(f.methodId());
                    boolean isNative = f.location() < 0;
                    int line = m == null ? -1 : m.lineFor(f.location());
                    int bci = isNative ? -1 : (int) Math.min(Integer.MAX_VALUE, f.location());
                    TypedValue type = isNative ? nativeType() : null;
                    frames[i] = value(tFrame, b -> {
                        b.putField("method", method).putField("lineNumber", line).putField("bytecodeIndex", bci);
                        if (type != null) {
                    b.putField("type", type);
                }
                    });
                }
                return value(tStack, b -> b.putField("truncated", st.truncated()).putField("frames", frames));
            });
        }

        TypedValue nativeType() {
            if (nativeFrame == null) {
                nativeFrame = value(tFrameType, b -> b.putField("description", "Native"));
            }
            return nativeFrame;
        }
    }
}
