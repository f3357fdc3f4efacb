package dev.convoy.export.jfr;

import dev.convoy.export.jfr.Metadata.Field;
import dev.convoy.export.jfr.Metadata.Type;

/**
 * The JDK's own declarations of the types a Convoy JFR file shares with the JDK's recordings, as
 * the recordings of the JDK that was recorded declare them: annotation types with their
 * meta-annotations ({@code jdk.jfr.Timespan} is itself {@code @ContentType}, which is what makes
 * {@code jfr print} write {@code 10.1 ms} and JMC read a duration), setting controls, the
 * constant types ({@code java.lang.Thread}, classes, methods, stack traces, ...) and the event
 * types {@code jdk.JavaMonitorEnter}, {@code jdk.JavaMonitorWait}, {@code jdk.ThreadPark},
 * {@code jdk.ThreadSleep}, {@code jdk.ThreadStart}, {@code jdk.ThreadEnd},
 * {@code jdk.GarbageCollection} and {@code jdk.ActiveSetting}: their settings, fields (in order,
 * each with its annotations in order) and annotations, element for element as in the metadata
 * event of a recording the JDK made ({@code docs/formats.md}, "JFR"). A writer adds its own fields
 * after the JDK's.
 *
 * <p>Two forms, by the feature release of the recorded JVM: that of JDK 17 to 20, and that of
 * JDK 21 and later ({@link #LATER_FORM}), which has {@code java.lang.Thread.virtual}, an
 * {@code eventThread} in {@code jdk.GarbageCollection}, {@code jdk.ThreadSleep} as a Java event
 * whose {@code time} is in nanoseconds (not milliseconds) and a {@code jdk.ActiveSetting}
 * without duration, thread and stack. The declarations were read from recordings of JDK 17 and
 * JDK 25; the tests compare them with the JDK's own recordings of the same programs.
 */
final class JdkTypes {

    /** The first feature release whose recordings declare the later form. */
    public static final int LATER_FORM = 21;

    public final Metadata md = new Metadata();
    /** The feature release of the recorded JVM (17, 25, ...). */
    public final int feature;
    private final boolean later;

    public final Type label;
    public final Type description;
    public final Type name;
    public final Type category;
    public final Type contentType;
    public final Type timestamp;
    public final Type timespan;
    public final Type unsigned;
    public final Type memoryAddress;
    public final Type relational;
    public final Type booleanFlag;
    public final Type javaMonitorAddress;
    public final Type gcIdRelation;

    public final Type enabled;
    public final Type threshold;
    public final Type stackTraceSetting;

    public final Type threadGroup;
    public final Type thread;
    public final Type symbol;
    public final Type clazz;
    public final Type classLoader;
    public final Type module;
    public final Type pkg;
    public final Type method;
    public final Type frameType;
    public final Type frame;
    public final Type stackTrace;
    public final Type gcName;
    public final Type gcCause;

    /** The JDK's declarations as the recordings of JDK {@code feature} (17, 21, 25, ...) write them. */
    public JdkTypes(int feature) {
        this.feature = feature;
        this.later = feature >= LATER_FORM;
        Type string = md.stringType;
        label = valued("jdk.jfr.Label");
        description = valued("jdk.jfr.Description");
        name = valued("jdk.jfr.Name");
        category = md.annotation("jdk.jfr.Category");
        category.arrayField("value", string);
        contentType = md.annotation("jdk.jfr.ContentType")
                .annotate(label, "Content Type").annotate(description, "Semantic meaning of a value");
        timestamp = valued("jdk.jfr.Timestamp").annotate(contentType)
                .annotate(label, "Timestamp").annotate(description, "A point in time");
        timespan = valued("jdk.jfr.Timespan").annotate(contentType)
                .annotate(label, "Timespan").annotate(description, "A duration, measured in nanoseconds by default");
        unsigned = md.annotation("jdk.jfr.Unsigned").annotate(contentType).annotate(label, "Unsigned Value")
                .annotate(description, "Value should be interpreted as unsigned data type");
        memoryAddress = md.annotation("jdk.jfr.MemoryAddress").annotate(contentType).annotate(label, "Memory Address")
                .annotate(description, "Represents a physical memory address");
        relational = md.annotation("jdk.jfr.Relational").annotate(label, "Relation");
        booleanFlag = md.annotation("jdk.jfr.BooleanFlag").annotate(contentType).annotate(label, "Flag");
        javaMonitorAddress = md.annotation("jdk.types.JavaMonitorAddress").annotate(relational);
        gcIdRelation = md.annotation("jdk.types.GcId").annotate(relational);

        enabled = md.settingControl("jdk.settings.Enabled").annotate(label, "Enabled")
                .annotate(description, "Record event").annotate(name, "jdk.settings.Enabled").annotate(booleanFlag);
        threshold = md.settingControl("jdk.settings.Threshold").annotate(label, "Threshold")
                .annotate(name, "jdk.settings.Threshold")
                .annotate(description, "Record event with duration above or equal to threshold")
                .annotate(timespan, "NANOSECONDS");
        stackTraceSetting = md.settingControl("jdk.settings.StackTrace").annotate(label, "Stack Trace")
                .annotate(name, "jdk.settings.StackTrace").annotate(description, "Record stack traces")
                .annotate(booleanFlag);

        threadGroup = md.constant("jdk.types.ThreadGroup");
        labelled(threadGroup, "parent", threadGroup, "Parent");
        labelled(threadGroup, "name", string, "Name");
        threadGroup.annotate(label, "Thread Group");
        thread = md.constant("java.lang.Thread");
        labelled(thread, "osName", string, "OS Thread Name");
        labelled(thread, "osThreadId", md.longType, "OS Thread Id");
        labelled(thread, "javaName", string, "Java Thread Name");
        labelled(thread, "javaThreadId", md.longType, "Java Thread Id");
        labelled(thread, "group", threadGroup, "Java Thread Group");
        if (later) {
            labelled(thread, "virtual", md.booleanType, "Virtual Thread");
        }
        thread.annotate(label, "Thread");
        symbol = md.constant("jdk.types.Symbol");
        labelled(symbol, "string", string, "String");
        symbol.annotate(label, "Symbol");
        clazz = md.constant("java.lang.Class");
        classLoader = md.constant("jdk.types.ClassLoader");
        module = md.constant("jdk.types.Module");
        pkg = md.constant("jdk.types.Package");
        labelled(clazz, "classLoader", classLoader, "Class Loader");
        labelled(clazz, "name", symbol, "Name");
        labelled(clazz, "package", pkg, "Package");
        labelled(clazz, "modifiers", md.intType, "Access Modifiers");
        labelled(clazz, "hidden", md.booleanType, "Hidden");
        clazz.annotate(label, "Java Class");
        labelled(classLoader, "type", clazz, "Type");
        labelled(classLoader, "name", symbol, "Name");
        classLoader.annotate(label, "Java Class Loader");
        labelled(module, "name", symbol, "Name");
        labelled(module, "version", symbol, "Version");
        labelled(module, "location", symbol, "Location");
        labelled(module, "classLoader", classLoader, "Class Loader");
        module.annotate(label, "Module");
        labelled(pkg, "name", symbol, "Name");
        labelled(pkg, "module", module, "Module");
        labelled(pkg, "exported", md.booleanType, "Exported");
        pkg.annotate(label, "Package");
        method = md.constant("jdk.types.Method");
        labelled(method, "type", clazz, "Type");
        labelled(method, "name", symbol, "Name");
        labelled(method, "descriptor", symbol, "Descriptor");
        labelled(method, "modifiers", md.intType, "Access Modifiers");
        labelled(method, "hidden", md.booleanType, "Hidden");
        method.annotate(label, "Java Method");
        frameType = md.constant("jdk.types.FrameType");
        labelled(frameType, "description", string, "Description");
        frameType.annotate(label, "Frame type");
        // frames are inline in their stack trace, as the JDK writes them (no constant pool)
        frame = md.struct("jdk.types.StackFrame");
        labelled(frame, "method", method, "Java Method");
        labelled(frame, "lineNumber", md.intType, "Line Number");
        labelled(frame, "bytecodeIndex", md.intType, "Bytecode Index");
        labelled(frame, "type", frameType, "Frame Type");
        stackTrace = md.constant("jdk.types.StackTrace");
        labelled(stackTrace, "truncated", md.booleanType, "Truncated");
        stackTrace.arrayField("frames", frame).annotate(label, "Stack Frames");
        stackTrace.annotate(label, "Stacktrace");
        gcName = md.constant("jdk.types.GCName");
        labelled(gcName, "name", string, "Name");
        gcName.annotate(label, "GC Name");
        gcCause = md.constant("jdk.types.GCCause");
        labelled(gcCause, "cause", string, "Cause");
        gcCause.annotate(label, "GC Cause");
    }

    /** Whether {@code java.lang.Thread} has the field {@code virtual} (JDK 21+). */
    public boolean threadHasVirtual() {
        return later;
    }

    /** Whether {@code jdk.ThreadSleep.time} is in nanoseconds (JDK 21+), else milliseconds. */
    public boolean sleepTimeInNanos() {
        return later;
    }

    /** Whether {@code jdk.GarbageCollection} has an {@code eventThread} (JDK 21+). */
    public boolean gcHasThread() {
        return later;
    }

    /** Whether {@code jdk.ActiveSetting} has a duration, an event thread and a stack trace (before JDK 21). */
    public boolean activeSettingHasThread() {
        return !later;
    }

    private Type valued(String annotationName) {
        Type t = md.annotation(annotationName);
        t.field("value", md.stringType);
        return t;
    }

    /** A field with its {@code @Label}. */
    public Field labelled(Type owner, String fieldName, Type type, String labelText) {
        return owner.field(fieldName, type).annotate(label, labelText);
    }

    /** The JDK's {@code startTime}: {@code @Label("Start Time") @Timestamp("TICKS")}. */
    public void startTime(Type e) {
        labelled(e, "startTime", md.longType, "Start Time").annotate(timestamp, "TICKS");
    }

    /** The JDK's {@code duration}: {@code @Label("Duration") @Timespan("TICKS")}. */
    public void duration(Type e) {
        labelled(e, "duration", md.longType, "Duration").annotate(timespan, "TICKS");
    }

    /** The JDK's {@code eventThread}. */
    public void eventThread(Type e) {
        labelled(e, "eventThread", thread, "Event Thread").annotate(description, "Thread in which event was committed in");
    }

    /** The JDK's {@code stackTrace}. */
    public void stackTrace(Type e) {
        labelled(e, "stackTrace", stackTrace, "Stack Trace")
                .annotate(description, "Stack Trace starting from the method the event was committed in");
    }

    /** The JDK's {@code address} of a Java monitor: unsigned, a memory address, related by {@code JavaMonitorAddress}. */
    private Field address(Type e, String labelText) {
        return e.field("address", md.longType).annotate(unsigned).annotate(memoryAddress).annotate(javaMonitorAddress)
                .annotate(label, labelText);
    }

    /** The settings of the JDK's events with a duration: threshold, stack trace, enabled. */
    private Type timedEvent(String typeName, String stackDefault) {
        return md.event(typeName).setting("threshold", threshold, "0 ns")
                .setting("stackTrace", stackTraceSetting, stackDefault).setting("enabled", enabled, "false");
    }

    /** A JDK event with startTime, duration, eventThread and stackTrace. */
    private Type timedWithStack(String typeName, String stackDefault) {
        Type e = timedEvent(typeName, stackDefault);
        startTime(e);
        duration(e);
        eventThread(e);
        stackTrace(e);
        return e;
    }

    /** {@code jdk.JavaMonitorEnter}: monitorClass, previousOwner, address. */
    public Type javaMonitorEnter() {
        Type e = timedWithStack("jdk.JavaMonitorEnter", "true");
        labelled(e, "monitorClass", clazz, "Monitor Class");
        labelled(e, "previousOwner", thread, "Previous Monitor Owner");
        address(e, "Monitor Address");
        return e.annotate(category, "Java Application").annotate(label, "Java Monitor Blocked");
    }

    /** {@code jdk.JavaMonitorWait}: monitorClass, notifier, timeout (ms), timedOut, address. */
    public Type javaMonitorWait() {
        Type e = timedWithStack("jdk.JavaMonitorWait", "true");
        labelled(e, "monitorClass", clazz, "Monitor Class").annotate(description, "Class of object waited on");
        labelled(e, "notifier", thread, "Notifier Thread").annotate(description, "Notifying Thread");
        e.field("timeout", md.longType).annotate(timespan, "MILLISECONDS").annotate(label, "Timeout")
                .annotate(description, "Maximum wait time");
        labelled(e, "timedOut", md.booleanType, "Timed Out").annotate(description, "Wait has been timed out");
        address(e, "Monitor Address").annotate(description, "Address of object waited on");
        return e.annotate(category, "Java Application").annotate(label, "Java Monitor Wait")
                .annotate(description, "Waiting on a Java monitor");
    }

    /** {@code jdk.ThreadPark}: parkedClass, timeout (ns), until (ms since the epoch), address. */
    public Type threadPark() {
        Type e = timedWithStack("jdk.ThreadPark", "true");
        labelled(e, "parkedClass", clazz, "Class Parked On");
        e.field("timeout", md.longType).annotate(timespan, "NANOSECONDS").annotate(label, "Park Timeout");
        e.field("until", md.longType).annotate(timestamp, "MILLISECONDS_SINCE_EPOCH").annotate(label, "Park Until");
        address(e, "Address of Object Parked");
        return e.annotate(category, "Java Application").annotate(label, "Java Thread Park");
    }

    /** {@code jdk.ThreadSleep}: time, in ms before JDK 21, in ns from JDK 21 ({@link #sleepTimeInNanos}). */
    public Type threadSleep() {
        if (!later) {
            Type e = timedWithStack("jdk.ThreadSleep", "true");
            e.field("time", md.longType).annotate(timespan, "MILLISECONDS").annotate(label, "Sleep Time");
            return e.annotate(category, "Java Application").annotate(label, "Java Thread Sleep");
        }
        Type e = timedWithStack("jdk.ThreadSleep", "false");
        labelled(e, "time", md.longType, "Sleep Time").annotate(timespan, "NANOSECONDS");
        return e.annotate(category, "Java Application").annotate(label, "Java Thread Sleep")
                .annotate(name, "jdk.ThreadSleep");
    }

    /** {@code jdk.ThreadStart}: no duration; thread, parentThread. */
    public Type threadStart() {
        Type e = md.event("jdk.ThreadStart").setting("stackTrace", stackTraceSetting, "true")
                .setting("enabled", enabled, "false");
        startTime(e);
        eventThread(e);
        stackTrace(e);
        labelled(e, "thread", thread, "New Java Thread");
        labelled(e, "parentThread", thread, "Parent Java Thread");
        return e.annotate(category, "Java Application").annotate(label, "Java Thread Start");
    }

    /** {@code jdk.ThreadEnd}: no duration, no stack trace; thread. */
    public Type threadEnd() {
        Type e = md.event("jdk.ThreadEnd").setting("enabled", enabled, "false");
        startTime(e);
        eventThread(e);
        labelled(e, "thread", thread, "Java Thread");
        return e.annotate(category, "Java Application").annotate(label, "Java Thread End");
    }

    /**
     * {@code jdk.GarbageCollection}: no stack trace, an eventThread from JDK 21
     * ({@link #gcHasThread}); gcId, name, cause, sumOfPauses, longestPause.
     */
    public Type garbageCollection() {
        Type e = md.event("jdk.GarbageCollection").setting("threshold", threshold, "0 ns")
                .setting("enabled", enabled, "false");
        startTime(e);
        duration(e);
        if (later) {
            eventThread(e);
        }
        e.field("gcId", md.intType).annotate(unsigned).annotate(gcIdRelation).annotate(label, "GC Identifier");
        labelled(e, "name", gcName, "Name").annotate(description, "The name of the Garbage Collector");
        labelled(e, "cause", gcCause, "Cause").annotate(description, "The reason for triggering this Garbage Collection");
        e.field("sumOfPauses", md.longType).annotate(unsigned).annotate(timespan, "TICKS").annotate(label, "Sum of Pauses")
                .annotate(description, "Sum of all the times in which Java execution was paused during the garbage "
                        + "collection");
        e.field("longestPause", md.longType).annotate(unsigned).annotate(timespan, "TICKS")
                .annotate(label, "Longest Pause").annotate(description, "Longest individual pause during the garbage "
                        + "collection");
        return e.annotate(category, "Java Virtual Machine", "GC", "Collector").annotate(label, "Garbage Collection")
                .annotate(description, "Garbage collection performed by the JVM");
    }

    /**
     * {@code jdk.ActiveSetting}: a setting in effect (id: the event type's id, name, value);
     * before JDK 21 with duration, eventThread and stackTrace ({@link #activeSettingHasThread}).
     */
    public Type activeSetting() {
        Type e = md.event("jdk.ActiveSetting");
        if (!later) {
            e.setting("threshold", threshold, "0 ns").setting("stackTrace", stackTraceSetting, "false");
        }
        e.setting("enabled", enabled, "false");
        startTime(e);
        if (!later) {
            duration(e);
            eventThread(e);
            stackTrace(e);
        }
        labelled(e, "id", md.longType, "Event Id");
        labelled(e, "name", md.stringType, "Setting Name");
        labelled(e, "value", md.stringType, "Setting Value");
        return e.annotate(name, "jdk.ActiveSetting").annotate(label, "Recording Setting")
                .annotate(category, "Flight Recorder");
    }

    /**
     * An event type of the writer's own, declared as the JDK declares an event type defined in
     * Java: its settings (threshold with a duration, stackTrace with a stack, enabled, all on),
     * startTime, [duration], eventThread, [stackTrace], then the fields the caller adds; annotated
     * {@code @Name}, {@code @Label}, {@code @Description} and {@code @Category}.
     */
    public Type ownEvent(String typeName, String labelText, String descriptionText, boolean withStack,
                         String... categories) {
        Type e = md.event(typeName);
        e.setting("threshold", threshold, "0 ns");
        if (withStack) {
            e.setting("stackTrace", stackTraceSetting, "true");
        }
        e.setting("enabled", enabled, "true");
        startTime(e);
        duration(e);
        eventThread(e);
        if (withStack) {
            stackTrace(e);
        }
        return e.annotate(name, typeName).annotate(label, labelText).annotate(description, descriptionText)
                .annotate(category, categories);
    }
}
