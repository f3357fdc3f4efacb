package dev.convoy.agent.jmx;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.InvalidAttributeValueException;
import javax.management.MBeanException;
import javax.management.MBeanInfo;
import javax.management.MBeanNotificationInfo;
import javax.management.MBeanOperationInfo;
import javax.management.Notification;
import javax.management.NotificationBroadcasterSupport;
import javax.management.ReflectionException;
import javax.management.openmbean.ArrayType;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.OpenDataException;
import javax.management.openmbean.OpenMBeanAttributeInfoSupport;
import javax.management.openmbean.OpenMBeanConstructorInfoSupport;
import javax.management.openmbean.OpenMBeanInfoSupport;
import javax.management.openmbean.OpenMBeanOperationInfoSupport;
import javax.management.openmbean.OpenMBeanParameterInfoSupport;
import javax.management.openmbean.OpenType;
import javax.management.openmbean.SimpleType;

import dev.convoy.agent.ConvoyAgent;
import dev.convoy.agent.DumpDirectory;
import dev.convoy.agent.NativeRecorder;
import dev.convoy.agent.RecorderSession;
import dev.convoy.report.ContentionReport;
import dev.convoy.analysis.Deadlocks;
import dev.convoy.export.Output;
import dev.convoy.model.Window;
import dev.convoy.model.Recording;

/**
 * The Convoy MBean, {@code dev.convoy:type=Recorder}: switch recording on and off, take
 * snapshots, write dumps, read them remotely, read the contention report. Open types only, with a description for
 * every attribute, operation and parameter, so JConsole and any JMX client without
 * Convoy's classes can use all of it. See {@link #describe()} for the full list.
 *
 * <p>{@code snapshot()} freezes what it summarised (in a {@link RecorderSession.View} of its
 * own): {@code dump}, {@code openStream} and {@code report} use that frozen snapshot, so that
 * the files of one dump, and a dump and the summary seen before it, agree; before the first
 * {@code snapshot()} and after {@code reset()} they take a fresh one.
 *
 * <p>A recorder that is off for good ({@link ConvoyAgent#offReason()}) keeps this MBean: its
 * {@code OffReason} says why, {@code Recording} is false, the counters are 0, and every
 * operation fails with "recorder off: why".
 *
 * <p>Notifications: {@value #DUMP_WRITTEN} after {@code dump} wrote its files (user data:
 * the paths), {@value #DEADLOCK} when a snapshot shows a monitor deadlock (message: the
 * cycle), {@value #DUMP_TRIGGERED} when a trigger of option {@code dumpon} wrote a dump (user data:
 * its path).
 */
public final class RecorderMBean extends NotificationBroadcasterSupport implements DynamicMBean {

    public static final String OBJECT_NAME = "dev.convoy:type=Recorder";
    public static final String DUMP_WRITTEN = "dev.convoy.dump.written";
    public static final String DEADLOCK = "dev.convoy.deadlock";
    public static final String DUMP_TRIGGERED = "dev.convoy.dump.triggered";

    private static final ArrayType<byte[]> BYTES = ArrayType.getPrimitiveArrayType(byte[].class);
    private static final ArrayType<String[]> STRINGS = stringArray();

    private final ConvoyAgent agent;
    private final RecorderSession session;
    private final RecorderSession.View view;
    private final DumpDirectory dumpDirectory;
    private final DumpStreams streams = new DumpStreams();
    private final AtomicLong sequence = new AtomicLong();
    private final MBeanInfo info;

    public RecorderMBean(ConvoyAgent agent) {
        super(new MBeanNotificationInfo(new String[] {DUMP_WRITTEN, DEADLOCK, DUMP_TRIGGERED},
                Notification.class.getName(), "dump written (user data: the paths); monitor deadlock seen in a "
                        + "snapshot (message: the cycle); dump written by a trigger of option dumpon (message: the "
                        + "reason, the file and what was seen; user data: the path)"));
        this.agent = agent;
        agent.triggers().addListener(d -> {
            Notification n = new Notification(DUMP_TRIGGERED, OBJECT_NAME, sequence.incrementAndGet(),
                    "Convoy dump on " + d.reason() + ": " + d.file() + " (" + d.detail() + ")");
            n.setUserData(d.file().toString());
            sendNotification(n);
        });
        this.session = agent.session();
        this.view = session.view();
        this.dumpDirectory = agent.dumpDirectory();
        this.info = describe();
    }

    private static ArrayType<String[]> stringArray() {
        try {
            return new ArrayType<>(1, SimpleType.STRING);
        } catch (OpenDataException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static OpenMBeanAttributeInfoSupport attr(String name, OpenType<?> type, boolean writable, String desc) {
        return new OpenMBeanAttributeInfoSupport(name, desc, type, true, writable, false);
    }

    private static OpenMBeanParameterInfoSupport param(String name, OpenType<?> type, String desc) {
        return new OpenMBeanParameterInfoSupport(name, desc, type);
    }

    private static OpenMBeanOperationInfoSupport op(String name, String desc, OpenType<?> returns, int impact,
                                                     OpenMBeanParameterInfoSupport... params) {
        return new OpenMBeanOperationInfoSupport(name, desc, params, returns, impact);
    }

    /** Every attribute, operation and parameter, with the descriptions JConsole shows. */
    private MBeanInfo describe() {
        String formats = Output.names();
        OpenMBeanAttributeInfoSupport[] attributes = {
            attr("Recording", SimpleType.BOOLEAN, true, "Whether monitor and GC events are being recorded"),
            attr("OffReason", SimpleType.STRING, false,
                    "Why the recorder is off for good in this JVM (its native library could not be loaded at the "
                    + "JVM's start; every operation then fails with 'recorder off: ...'); empty while it runs"),
            attr("ContentionAnalysis", SimpleType.BOOLEAN, true,
                    "Contention analysis: bytecode instrumentation of the application's call sites of "
                    + "Thread.start/interrupt/join/sleep and Object.notify/notifyAll/wait. Setting it retransforms "
                    + "the loaded classes that call them (costly in a big application)"),
            attr("Options", SimpleType.STRING, false, "Agent options in effect"),
            attr("BufferBytes", SimpleType.INTEGER, false, "Ring buffer size per thread, in bytes"),
            attr("StackDepth", SimpleType.INTEGER, false, "Frames captured per stack trace (0: none)"),
            attr("MemoryCapBytes", SimpleType.LONG, false, "Cap on all recorder memory, in bytes"),
            attr("DumpDirectory", SimpleType.STRING, false, "The only directory dump() writes into"),
            attr("EventsRecorded", SimpleType.LONG, false, "Records written since the agent started"),
            attr("EventsOverwritten", SimpleType.LONG, false,
                    "Records a thread's ring overwrote before the recorder moved them into the history"),
            attr("EventsAgedOut", SimpleType.LONG, false,
                    "Records that aged out of the history to keep it within maxsize and maxage"),
            attr("HistoryBytes", SimpleType.LONG, false, "Bytes of the history now"),
            attr("HistoryMaxBytes", SimpleType.LONG, false, "Bound of the history (option maxsize)"),
            attr("EventsDropped", SimpleType.LONG, false, "Events that could not be recorded at all"),
            attr("ThreadsRecorded", SimpleType.LONG, false, "Threads with a ring now (live and recently ended)"),
            attr("MemoryInUseBytes", SimpleType.LONG, false, "Recorder memory in use, in bytes"),
            attr("StacksDropped", SimpleType.LONG, false,
                    "Stack traces not kept because the stack table was full (their events have no stack)"),
            attr("StackFallbacks", SimpleType.LONG, false,
                    "With stacks=async: stack captures that took JVMTI GetStackTrace, or were skipped during a GC "
                    + "pause, because AsyncGetCallTrace could not vouch for the frames (why: the snapshot's INFO "
                    + "stacks.capture)"),
            attr("ObjectsDropped", SimpleType.LONG, false,
                    "Objects given no id because the object table was full (their records name no object)"),
            attr("ObjectsInUse", SimpleType.LONG, false,
                    "Entries of the object table in use by live objects (reading the counters frees those of collected objects)"),
            attr("ObjectTableCapacity", SimpleType.LONG, false, "Entries the object table has (1/16 of the memory cap)"),
            attr("RecordingStartTime", SimpleType.LONG, false, "When the agent started (ms since 1970 UTC)"),
            attr("Version", SimpleType.STRING, false, "Convoy version"),
            attr("InstrumentedClasses", SimpleType.LONG, false,
                    "Classes whose call sites contention analysis has rewritten, now"),
            attr("TransformFailures", SimpleType.LONG, false,
                    "Classes contention analysis failed to transform or retransform (they kept their bytes), "
                    + "plus failures to hook LockSupport (then parks are not recorded)"),
        };
        OpenMBeanOperationInfoSupport[] operations = {
            op("start", "Starts recording monitor and GC events", SimpleType.VOID, MBeanOperationInfo.ACTION),
            op("stop", "Stops recording; what was recorded stays", SimpleType.VOID, MBeanOperationInfo.ACTION),
            op("reset", "Discards everything recorded so far, and the frozen snapshot", SimpleType.VOID,
                    MBeanOperationInfo.ACTION),
            op("restartTiming", "Benchmark only, with the agent option bench.timing=on: times only the callbacks that "
                    + "begin from now on (after a warm-up); the snapshot's INFO timing keys then cover them alone",
                    SimpleType.VOID, MBeanOperationInfo.ACTION),
            op("snapshot", "Takes and freezes a snapshot; returns its summary: time range, counts by event type, "
                    + "threads, the most contended monitors, deadlocks", SnapshotSummary.SUMMARY,
                    MBeanOperationInfo.ACTION),
            op("dump", "Writes the frozen snapshot (a fresh one if none) in a format into the dump directory; "
                    + "returns the files written. Every format but snapshot is converted in this JVM (its CPU and "
                    + "heap); snapshot only copies the binary recording, to convert elsewhere with convoy convert",
                    STRINGS, MBeanOperationInfo.ACTION,
                    param("format", SimpleType.STRING, "one of " + formats),
                    param("path", SimpleType.STRING, "file name or relative path inside the dump directory "
                            + "(for csv and csv-ext, the base of NAME.meta.csv, NAME.events.csv or NAME.events-ext.csv, "
                            + "and NAME.losses.csv)")),
            op("dumpWindow", "Like dump, for a window of the recording's history: the last part ('10m', '90s', "
                    + "'2h') or FROM/TO, each a time as 2026-11-28T14:05:00Z, 2026-11-28T14:05, 14:05 (this JVM's "
                    + "time zone) or -10m (before the snapshot), either side empty for the recording's edge",
                    STRINGS, MBeanOperationInfo.ACTION,
                    param("format", SimpleType.STRING, "one of " + formats),
                    param("path", SimpleType.STRING, "file name or relative path inside the dump directory "
                            + "(for csv and csv-ext, the base of NAME.meta.csv, NAME.events.csv or NAME.events-ext.csv, "
                            + "and NAME.losses.csv)"),
                    param("window", SimpleType.STRING, "10m, or FROM/TO, e.g. 14:05/14:10 or -15m/-5m")),
            op("openStream", "Opens one dump file of the frozen snapshot (a fresh one if none) as a stream for "
                    + "readStream; returns its id",
                    SimpleType.LONG, MBeanOperationInfo.ACTION,
                    param("format", SimpleType.STRING, "one of " + Output.singleNames())),
            op("readStream", "The next chunk of an open stream (at most 256 KiB), or null at its end", BYTES,
                    MBeanOperationInfo.INFO, param("id", SimpleType.LONG, "id returned by openStream")),
            op("closeStream", "Closes a stream and frees its memory", SimpleType.VOID, MBeanOperationInfo.ACTION,
                    param("id", SimpleType.LONG, "id returned by openStream")),
            op("report", "The contention report of the frozen snapshot (a fresh one if none): the most contended "
                    + "monitors and their hottest call sites, the threads that waited most and on whom, deadlocks "
                    + "with stacks, the critical path", SimpleType.STRING, MBeanOperationInfo.ACTION,
                    param("format", SimpleType.STRING, "text or markdown")),
        };
        return new OpenMBeanInfoSupport(RecorderMBean.class.getName(),
                "Convoy: always-on recorder of JVM thread and monitor contention", attributes,
                new OpenMBeanConstructorInfoSupport[0], operations, getNotificationInfo());
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        return info;
    }

    @Override
    public Object getAttribute(String name) throws AttributeNotFoundException, MBeanException {
        NativeRecorder.Counters c = session.counters();
        return switch (String.valueOf(name)) {
            case "Recording" -> session.isRecording();
            case "OffReason" -> agent.offReason() != null ? agent.offReason() : "";
            case "ContentionAnalysis" -> agent.contentionAnalysis();
            case "Options" -> agent.options().effective();
            case "BufferBytes" -> agent.options().bufferBytes();
            case "StackDepth" -> agent.options().stackDepth();
            case "MemoryCapBytes" -> agent.options().memoryCap();
            case "DumpDirectory" -> dumpDirectory.path().toString();
            case "EventsRecorded" -> c.recordsWritten();
            case "EventsOverwritten" -> c.recordsOverwritten();
            case "EventsAgedOut" -> c.recordsAged();
            case "HistoryBytes" -> c.historyBytes();
            case "HistoryMaxBytes" -> agent.options().historyBytes();
            case "EventsDropped" -> c.recordsDropped();
            case "ThreadsRecorded" -> c.threadsRecorded();
            case "MemoryInUseBytes" -> c.memoryInUse();
            case "StacksDropped" -> c.stacksDropped();
            case "StackFallbacks" -> c.stackFallbacks();
            case "ObjectsDropped" -> c.objectsDropped();
            case "ObjectsInUse" -> c.objectsInUse();
            case "ObjectTableCapacity" -> c.objectsCapacity();
            case "RecordingStartTime" -> c.startEpochNs() / 1_000_000;
            case "Version" -> ConvoyAgent.VERSION;
            case "InstrumentedClasses" -> agent.instrumentedClasses();
            case "TransformFailures" -> agent.transformFailures();
            default -> throw new AttributeNotFoundException("no attribute '" + name + "'; attributes: "
                    + Stream.of(info.getAttributes()).map(a -> a.getName()).toList());
        };
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException, InvalidAttributeValueException,
            MBeanException {
        String name = attribute.getName();
        Object value = attribute.getValue();
        switch (String.valueOf(name)) {
            case "Recording" -> {
                if (!(value instanceof Boolean on)) {
                    throw new InvalidAttributeValueException("Recording takes a boolean, got " + value);
                }
                guard(() -> session.setRecording(on));
            }
            case "ContentionAnalysis" -> {
                if (!(value instanceof Boolean on)) {
                    throw new InvalidAttributeValueException("ContentionAnalysis takes a boolean, got " + value);
                }
                guard(() -> agent.setContentionAnalysis(on));
            }
            default -> {
                if (Stream.of(info.getAttributes()).anyMatch(a -> a.getName().equals(name))) {
                    throw new AttributeNotFoundException("attribute '" + name + "' is read-only");
                }
                throw new AttributeNotFoundException("no attribute '" + name + "'");
            }
        }
    }

    @Override
    public AttributeList getAttributes(String[] names) {
        AttributeList list = new AttributeList();
        for (String n : names) {
            try {
                list.add(new Attribute(n, getAttribute(n)));
            } catch (AttributeNotFoundException | MBeanException | RuntimeException e) {
                // JMX: attributes that cannot be read are left out of the list
            }
        }
        return list;
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        AttributeList set = new AttributeList();
        for (Attribute a : attributes.asList()) {
            try {
                setAttribute(a);
                set.add(a);
            } catch (AttributeNotFoundException | InvalidAttributeValueException | MBeanException
                     | RuntimeException e) {
                // JMX: attributes that cannot be set are left out of the result
            }
        }
        return set;
    }

    @Override
    public Object invoke(String action, Object[] params, String[] signature) throws MBeanException,
            ReflectionException {
        Object[] p = params == null ? new Object[0] : params;
        return switch (String.valueOf(action)) {
            case "start" -> run(0, p, () -> session.setRecording(true));
            case "stop" -> run(0, p, () -> session.setRecording(false));
            case "reset" -> run(0, p, session::reset);
            case "restartTiming" -> run(0, p, session::restartTiming);
            case "snapshot" -> call(0, p, this::snapshot);
            case "dump" -> call(2, p, () -> dump(string(p[0], "format"), string(p[1], "path")));
            case "dumpWindow" -> call(3, p, () -> dumpWindow(string(p[0], "format"), string(p[1], "path"),
                    string(p[2], "window")));
            case "openStream" -> call(1, p, () -> openStream(string(p[0], "format")));
            case "readStream" -> call(1, p, () -> streams.read(id(p[0])));
            case "closeStream" -> run(1, p, () -> streams.close(id(p[0])));
            case "report" -> call(1, p, () -> report(string(p[0], "format")));
            default -> throw new ReflectionException(new NoSuchMethodException(action),
                    "no operation '" + action + "'");
        };
    }

    @FunctionalInterface
    private interface Body<T> {
        T call() throws Exception;
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    /** Runs an operation; any failure reaches the client as an MBeanException with a JDK cause. */
    private static <T> T call(int arity, Object[] p, Body<T> body) throws MBeanException {
        if (p.length != arity) {
            IllegalArgumentException e = new IllegalArgumentException("expected " + arity + " parameters, got "
                    + p.length);
            throw new MBeanException(e, e.getMessage());
        }
        try {
            return body.call();
        } catch (IllegalArgumentException | IllegalStateException | IOException e) {
            throw new MBeanException(e, e.getMessage());
        } catch (Exception e) {
            // Only JDK exception types cross to clients that lack Convoy's classes.
            IllegalStateException plain = new IllegalStateException(e.toString());
            throw new MBeanException(plain, plain.getMessage());
        }
    }

    private static Object run(int arity, Object[] p, Action action) throws MBeanException {
        return call(arity, p, () -> {
            action.run();
            return null;
        });
    }

    private static void guard(Action action) throws MBeanException {
        run(0, new Object[0], action);
    }

    private static String string(Object o, String name) {
        if (!(o instanceof String s)) {
            throw new IllegalArgumentException("parameter '" + name + "' must be a string, got " + o);
        }
        return s;
    }

    private static long id(Object o) {
        if (!(o instanceof Long l)) {
            throw new IllegalArgumentException("parameter 'id' must be a long, got " + o);
        }
        return l;
    }

    /** Announces the deadlocks a snapshot shows; returns it. */
    private Recording announced(Recording r) {
        for (Deadlocks.Deadlock d : Deadlocks.find(r)) {
            Notification n = new Notification(DEADLOCK, OBJECT_NAME, sequence.incrementAndGet(),
                    "monitor deadlock: " + d.describe(r));
            sendNotification(n);
        }
        return r;
    }

    /** Freezes a snapshot, then makes its summary: a summary refused for the heap leaves it frozen. */
    private CompositeData snapshot() throws OpenDataException {
        Recording r = announced(view.freeze());
        try (var permit = dev.convoy.agent.AnalysisBudget.enter(r, "snapshot()")) {
            return SnapshotSummary.of(r);
        }
    }

    /** The snapshot frozen by snapshot(), or a fresh one (whose deadlocks are announced). */
    private Recording current() {
        Recording r = view.frozen();
        return r != null ? r : announced(session.take());
    }

    /** The contention report of the frozen snapshot, or of a fresh one. */
    private String report(String formatName) {
        ContentionReport.Style style = ContentionReport.Style.parse(formatName);
        Recording r = current();
        try (var permit = dev.convoy.agent.AnalysisBudget.enter(r, "report()")) {
            return ContentionReport.of(r).render(style);
        }
    }

    private String[] dump(String formatName, String path) throws IOException {
        dumpDirectory.check(path, Output.select(formatName)); // a bad path is named before the snapshot
        return dump(formatName, path, current());
    }

    /** dump of a window: {@code D} (the last D) or {@code FROM/TO} (see the operation's description). */
    private String[] dumpWindow(String formatName, String path, String window) throws IOException {
        // a bad format or path is named before the window is read
        dumpDirectory.check(path, Output.select(formatName));
        Recording r = current();
        String w = window.trim();
        int slash = w.indexOf('/');
        Window cut = slash < 0 ? Window.of(r, w, null, null)
                : Window.of(r, null, blankToNull(w.substring(0, slash)), blankToNull(w.substring(slash + 1)));
        return dump(formatName, path, cut.cut(r));
    }

    private static String blankToNull(String s) {
        return s.isBlank() ? null : s.trim();
    }

    private String[] dump(String formatName, String path, Recording recording) throws IOException {
        Set<Output> outputs = Output.select(formatName);
        List<Path> written = dumpDirectory.write(path, outputs, recording);
        String[] paths = written.stream().map(Path::toString).toArray(String[]::new);
        Notification n = new Notification(DUMP_WRITTEN, OBJECT_NAME, sequence.incrementAndGet(),
                "Convoy dump written: " + String.join(", ", paths));
        n.setUserData(paths);
        sendNotification(n);
        return paths;
    }

    private long openStream(String formatName) throws IOException {
        Output output = Output.one(formatName);
        return streams.open(dev.convoy.agent.OffHeapOutput.of(output, current()));
    }
}
