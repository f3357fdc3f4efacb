package dev.convoy.export;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import dev.convoy.analysis.MonitorStatistics;
import dev.convoy.model.ClassInfo;
import dev.convoy.model.Frame;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.StackTrace;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

/**
 * The {@code pprof} output: blocked and waited time by stack as a gzip-compressed
 * {@code profile.proto} message (github.com/google/pprof, {@code proto/profile.proto}), the format
 * of {@code go tool pprof} and of the continuous profilers (Pyroscope, Parca, Polar Signals,
 * Datadog).
 *
 * <p>The profile follows Go's contention profiles (the block and mutex profiles): two sample
 * types, {@value #CONTENTIONS}/{@code count} (how many blocks or waits) and
 * {@value #DELAY}/{@code nanoseconds} (their time), the delay the default; period type
 * {@value #CONTENTIONS}/{@code count} with period 1 (every block and wait is counted, nothing is
 * sampled). So {@code go tool pprof}'s {@code -contentions}, {@code -total_delay} and
 * {@code -mean_delay} apply, and the profilers file it with Go's contention profiles. What the
 * time is sits in four string labels of each sample rather than in more sample types, so that
 * every reader's totals are the blocked plus waited time and one label filter
 * ({@code -tagfocus=state=blocked}, a Pyroscope or Parca label selector) picks a part:
 * <ul>
 * <li>{@value #STATE}: {@value #BLOCKED}, {@value #WAITED} or {@value #IDLE} (a park that acquires a
 *     lock is blocked, any other park waited; a wait the recording's idle rules call idle, nothing
 *     to do, is idle), as in the report and the flame graph;</li>
 * <li>{@value #KIND}: {@value #MONITOR} (a {@code synchronized} enter or an {@code Object.wait})
 *     or {@value #PARK} ({@code LockSupport.park}: {@code java.util.concurrent});</li>
 * <li>{@value #LOCK_CLASS}: the monitor's class, or the park's blocker's as the other outputs
 *     name it;</li>
 * <li>{@value #THREAD}: the thread's name ({@link RecordedThread#label()}).</li>
 * </ul>
 * The time is the one the folded stacks and the flame graph show ({@link ContentionTime}): every
 * blocked and waited interval of the history, or, when records aged out, the whole run's totals.
 * One sample per thread, state, kind, lock class and stack, its values summed; the stack is the
 * one of the event that began the block or wait, one location per method and line, leaf first; a
 * stack cut at the recorder's depth ends (at its root) in the function {@value FlameStacks#TRUNCATED},
 * an event without a stack is the one function {@value FlameStacks#NO_STACK}. Functions are named
 * {@code pkg.Class.method} as in the folded stacks (hidden classes alike in every run,
 * {@link FlameStacks#stableName}), with the JVM's name and descriptor as the system name and
 * {@code pkg/dirs/Source.java} as the file. The comments (string table) say what the recording
 * lost ({@link Recording#lossSummary()}) and where the time comes from.
 *
 * <p>Written with protobuf-java's {@link CodedOutputStream}, the field numbers of
 * {@code profile.proto} as constants here: eight small message types need no generated classes.
 */
final class PprofWriter {
    /** Sample type and period type of the count of blocks and waits (unit {@code count}). */
    public static final String CONTENTIONS = "contentions";
    /** Sample type of their time (unit {@code nanoseconds}); the default sample type. */
    public static final String DELAY = "delay";
    /** Label: the thread's name. */
    public static final String THREAD = "thread";
    /** Label: the class of the monitor or of the park's blocker. */
    public static final String LOCK_CLASS = "lock_class";
    /** Label: {@value #BLOCKED}, {@value #WAITED} or {@value #IDLE}. */
    public static final String STATE = "state";
    /** Label: {@value #MONITOR} or {@value #PARK}. */
    public static final String KIND = "kind";
    /** {@value #STATE}: blocked on a monitor's enter or a lock's park. */
    public static final String BLOCKED = "blocked";
    /** {@value #STATE}: waited in {@code Object.wait} or another park. */
    public static final String WAITED = "waited";
    /** {@value #STATE}: a wait with nothing to do ({@link dev.convoy.model.IdleRules}), not contention. */
    public static final String IDLE = "idle";
    /** {@value #KIND}: a {@code synchronized} enter or an {@code Object.wait}. */
    public static final String MONITOR = "monitor";
    /** {@value #KIND}: a {@code LockSupport.park}. */
    public static final String PARK = "park";

    // profile.proto's field numbers
    private static final int PROFILE_SAMPLE_TYPE = 1;
    private static final int PROFILE_SAMPLE = 2;
    private static final int PROFILE_MAPPING = 3;
    private static final int PROFILE_LOCATION = 4;
    private static final int PROFILE_FUNCTION = 5;
    private static final int PROFILE_STRING_TABLE = 6;
    private static final int PROFILE_TIME_NANOS = 9;
    private static final int PROFILE_DURATION_NANOS = 10;
    private static final int PROFILE_PERIOD_TYPE = 11;
    private static final int PROFILE_PERIOD = 12;
    private static final int PROFILE_COMMENT = 13;
    private static final int PROFILE_DEFAULT_SAMPLE_TYPE = 14;
    private static final int VALUE_TYPE_TYPE = 1;
    private static final int VALUE_TYPE_UNIT = 2;
    private static final int SAMPLE_LOCATION_ID = 1;
    private static final int SAMPLE_VALUE = 2;
    private static final int SAMPLE_LABEL = 3;
    private static final int LABEL_KEY = 1;
    private static final int LABEL_STR = 2;
    private static final int MAPPING_ID = 1;
    private static final int MAPPING_FILENAME = 5;
    private static final int MAPPING_HAS_FUNCTIONS = 7;
    private static final int MAPPING_HAS_FILENAMES = 8;
    private static final int MAPPING_HAS_LINE_NUMBERS = 9;
    private static final int LOCATION_ID = 1;
    private static final int LOCATION_MAPPING_ID = 2;
    private static final int LOCATION_LINE = 4;
    private static final int LINE_FUNCTION_ID = 1;
    private static final int LINE_LINE = 2;
    private static final int FUNCTION_ID = 1;
    private static final int FUNCTION_NAME = 2;
    private static final int FUNCTION_SYSTEM_NAME = 3;
    private static final int FUNCTION_FILENAME = 4;
    private static final int FUNCTION_START_LINE = 5;

    /** One sample's labels and stack. */
    private record Key(int thread, int cls, boolean blocked, boolean idle, boolean park, int stackId) {
    }

    private record Function(long name, long systemName, long filename, long startLine) {
    }

    private final Map<String, Integer> strings = new LinkedHashMap<>();
    private final List<Function> functions = new ArrayList<>();
    private final Map<Function, Integer> functionIds = new HashMap<>();
    private final List<long[]> locations = new ArrayList<>(); // {function id, line}
    private final Map<Long, Integer> locationIds = new HashMap<>(); // function id << 32 | line
    private final Map<Long, Integer> methodFunctions = new HashMap<>();

    /** Writes a recording's profile, gzip-compressed, to {@code out}, which is not closed. */
    public void write(Recording r, OutputStream out) throws IOException {
        strings.clear();
        functions.clear();
        functionIds.clear();
        locations.clear();
        locationIds.clear();
        methodFunctions.clear();
        string("");

        // Sum per thread name, class, state, kind and stack.
        Map<String, Integer> threadIndex = new HashMap<>();
        List<String> threadNames = new ArrayList<>();
        Map<Long, Integer> ringThread = new HashMap<>();
        Map<Key, long[]> sums = new HashMap<>();
        ContentionTime time = ContentionTime.read(r, (ringId, thread, cls, blocked, idle, park, stackId, count, ns) -> {
            int t = ringThread.computeIfAbsent(ringId, id -> threadIndex.computeIfAbsent(
                    thread != null ? thread.label() : "(thread no longer recorded, ring " + id + ")", k -> {
                        threadNames.add(k);
                        return threadNames.size() - 1;
                    }));
            long[] v = sums.computeIfAbsent(new Key(t, cls, blocked, idle, park, stackId), k -> new long[2]);
            v[0] += count;
            v[1] += ns;
        });
        List<Map.Entry<Key, long[]>> samples = new ArrayList<>(sums.entrySet());
        samples.sort(Map.Entry.comparingByKey(Comparator.comparing((Key k) -> threadNames.get(k.thread()))
                .thenComparing(k -> time.className(k.cls())).thenComparing(k -> !k.blocked())
                .thenComparing(Key::idle).thenComparing(Key::park).thenComparingInt(Key::stackId)));

        long contentions = string(CONTENTIONS);
        long count = string("count");
        long delay = string(DELAY);
        long nanoseconds = string("nanoseconds");
        long[] keys = {string(THREAD), string(LOCK_CLASS), string(STATE), string(KIND)};
        long[] states = {string(BLOCKED), string(WAITED), string(IDLE)};
        long[] kinds = {string(MONITOR), string(PARK)};
        Map<Integer, long[]> stacks = new HashMap<>();
        List<long[]> sampleLocations = new ArrayList<>(samples.size());
        List<long[]> sampleLabels = new ArrayList<>(samples.size());
        for (Map.Entry<Key, long[]> e : samples) {
            Key k = e.getKey();
            sampleLocations.add(stacks.computeIfAbsent(k.stackId(), id -> stack(r, id)));
            sampleLabels.add(new long[] {keys[0], string(threadNames.get(k.thread())), keys[1],
                string(time.className(k.cls())), keys[2], states[k.blocked() ? 0 : k.idle() ? 2 : 1], keys[3], kinds[k.park() ? 1 : 0]});
        }
        long mappingFile = string(r.mainClass().isEmpty() ? "java" : r.mainClass());
        long from = time.isWholeRun() ? ContentionTime.totalsInfo(r, "from", r.startMonotonicNs()) : r.startMonotonicNs();
        List<Long> comments = new ArrayList<>();
        for (String c : comments(r, time)) {
            comments.add(string(c));
        }

        // closing the gzip stream ends its deflater and flushes; the caller's stream stays open
        try (GZIPOutputStream gzip = new GZIPOutputStream(new FilterOutputStream(out) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void close() throws IOException {
                flush();
            }
        }, 1 << 16)) {
            CodedOutputStream o = CodedOutputStream.newInstance(gzip, 1 << 16);
            valueType(o, PROFILE_SAMPLE_TYPE, contentions, count);
            valueType(o, PROFILE_SAMPLE_TYPE, delay, nanoseconds);
            for (int i = 0; i < samples.size(); i++) {
                sample(o, sampleLocations.get(i), samples.get(i).getValue(), sampleLabels.get(i));
            }
            mapping(o, mappingFile);
            for (int i = 0; i < locations.size(); i++) {
                location(o, i + 1, locations.get(i));
            }
            for (int i = 0; i < functions.size(); i++) {
                function(o, i + 1, functions.get(i));
            }
            for (String s : strings.keySet()) {
                o.writeString(PROFILE_STRING_TABLE, s);
            }
            int64(o, PROFILE_TIME_NANOS, r.startEpochNs() == 0 ? 0 : r.toEpochNs(from));
            int64(o, PROFILE_DURATION_NANOS, Math.max(0, r.snapshotMonotonicNs() - from));
            valueType(o, PROFILE_PERIOD_TYPE, contentions, count);
            int64(o, PROFILE_PERIOD, 1);
            for (long c : comments) {
                o.writeInt64(PROFILE_COMMENT, c);
            }
            int64(o, PROFILE_DEFAULT_SAMPLE_TYPE, delay);
            o.flush();
        }
    }

    /** The profile's comments: what it is, what was lost, where the time comes from. */
    private static List<String> comments(Recording r, ContentionTime time) {
        List<String> c = new ArrayList<>();
        String main = r.mainClass().isEmpty() ? "unknown" : r.mainClass();
        String version = r.info().getOrDefault("agent.version", "");
        c.add("Convoy: blocked and waited time of " + main + " (pid " + r.pid() + ") by stack"
                + (version.isEmpty() ? "" : ", recorded by Convoy " + version)
                + "; labels thread, lock_class, state (blocked, waited, idle), kind (monitor, park).");
        c.add(r.lossSummary());
        if (time.isWholeRun()) {
            long dropped = ContentionTime.totalsInfo(r, "dropped", 0);
            c.add("Records aged out of the history: the samples count the whole run's blocks, waits and parks that "
                    + "ended (the recorder's totals), aged-out records included; those still open at the snapshot "
                    + "are not in them." + (dropped > 0 ? " " + dropped + " ends are not counted: the totals table "
                    + "was full." : ""));
        } else if (!r.threadsWithLosses().isEmpty()) {
            c.add("The time of lost records is in no sample.");
        }
        return c;
    }

    /** A stack's location ids, leaf first. */
    private long[] stack(Recording r, int stackId) {
        StackTrace s = r.stacks().get(stackId);
        if (s == null || s.frames().isEmpty()) {
            return new long[] {pseudoLocation(FlameStacks.NO_STACK)};
        }
        List<Frame> frames = s.frames();
        long[] ids = new long[frames.size() + (s.truncated() ? 1 : 0)];
        for (int i = 0; i < frames.size(); i++) {
            ids[i] = location(r, frames.get(i));
        }
        if (s.truncated()) {
            ids[frames.size()] = pseudoLocation(FlameStacks.TRUNCATED);
        }
        return ids;
    }

    private long pseudoLocation(String name) {
        long n = string(name);
        return location(function(new Function(n, n, 0, 0)), 0);
    }

    private long location(Recording r, Frame f) {
        MethodInfo m = r.methods().get(f.methodId());
        int function = methodFunctions.computeIfAbsent(f.methodId(), id -> function(function(r, f, m)));
        return location(function, m == null ? 0 : Math.max(0, m.lineFor(f.location())));
    }

    private int location(int function, int line) {
        return locationIds.computeIfAbsent(((long) function << 32) | line, k -> {
            locations.add(new long[] {function, line});
            return locations.size();
        });
    }

    private int function(Function f) {
        return functionIds.computeIfAbsent(f, k -> {
            functions.add(k);
            return functions.size();
        });
    }

    /** A method's function: {@code pkg.Class.method}, its JVM name with descriptor, its source file by package. */
    private Function function(Recording r, Frame f, MethodInfo m) {
        String name = MonitorStatistics.methodName(r, f);
        if (m == null) {
            long n = string(name);
            return new Function(n, n, 0, 0);
        }
        ClassInfo c = r.classes().get(m.classId());
        String file = "";
        if (c != null && !c.sourceFile().isEmpty()) {
            String cls = c.dottedName();
            int dot = cls.lastIndexOf('.');
            file = (dot < 0 ? "" : cls.substring(0, dot).replace('.', '/') + "/") + c.sourceFile();
        }
        return new Function(string(FlameStacks.stableName(name)), string(name + m.signature()), string(file),
                Math.max(0, m.firstLine()));
    }

    private long string(String s) {
        return strings.computeIfAbsent(s, k -> strings.size());
    }

    // Messages: the size of each is computed first, as the length of its field. Scalars that are 0
    // are left out, as proto3 does.

    private static int int64Size(int field, long v) {
        return v == 0 ? 0 : CodedOutputStream.computeInt64Size(field, v);
    }

    private static void int64(CodedOutputStream o, int field, long v) throws IOException {
        if (v != 0) {
            o.writeInt64(field, v);
        }
    }

    private static void lengthDelimited(CodedOutputStream o, int field, int size) throws IOException {
        o.writeTag(field, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        o.writeUInt32NoTag(size);
    }

    private static int embeddedSize(int field, int size) {
        return CodedOutputStream.computeTagSize(field) + CodedOutputStream.computeUInt32SizeNoTag(size) + size;
    }

    private static void valueType(CodedOutputStream o, int field, long type, long unit) throws IOException {
        lengthDelimited(o, field, int64Size(VALUE_TYPE_TYPE, type) + int64Size(VALUE_TYPE_UNIT, unit));
        int64(o, VALUE_TYPE_TYPE, type);
        int64(o, VALUE_TYPE_UNIT, unit);
    }

    private static int packedSize(long[] values) {
        int n = 0;
        for (long v : values) {
            n += CodedOutputStream.computeInt64SizeNoTag(v);
        }
        return n;
    }

    private static void packed(CodedOutputStream o, int field, long[] values, int size) throws IOException {
        lengthDelimited(o, field, size);
        for (long v : values) {
            o.writeInt64NoTag(v);
        }
    }

    /** A sample: its location ids (packed), its values (packed), its labels (key and str pairs). */
    private static void sample(CodedOutputStream o, long[] locations, long[] values, long[] labels) throws IOException {
        int locationsSize = packedSize(locations);
        int valuesSize = packedSize(values);
        int size = embeddedSize(SAMPLE_LOCATION_ID, locationsSize) + embeddedSize(SAMPLE_VALUE, valuesSize);
        for (int i = 0; i < labels.length; i += 2) {
            size += embeddedSize(SAMPLE_LABEL, int64Size(LABEL_KEY, labels[i]) + int64Size(LABEL_STR, labels[i + 1]));
        }
        lengthDelimited(o, PROFILE_SAMPLE, size);
        packed(o, SAMPLE_LOCATION_ID, locations, locationsSize);
        packed(o, SAMPLE_VALUE, values, valuesSize);
        for (int i = 0; i < labels.length; i += 2) {
            lengthDelimited(o, SAMPLE_LABEL, int64Size(LABEL_KEY, labels[i]) + int64Size(LABEL_STR, labels[i + 1]));
            int64(o, LABEL_KEY, labels[i]);
            int64(o, LABEL_STR, labels[i + 1]);
        }
    }

    /**
     * The one mapping, id 1, named after the main class: the JVM's code has no addresses, and its
     * functions, files and lines are given (so that no reader tries to symbolize it).
     */
    private static void mapping(CodedOutputStream o, long filename) throws IOException {
        int flags = CodedOutputStream.computeBoolSize(MAPPING_HAS_FUNCTIONS, true)
                + CodedOutputStream.computeBoolSize(MAPPING_HAS_FILENAMES, true)
                + CodedOutputStream.computeBoolSize(MAPPING_HAS_LINE_NUMBERS, true);
        lengthDelimited(o, PROFILE_MAPPING, int64Size(MAPPING_ID, 1) + int64Size(MAPPING_FILENAME, filename) + flags);
        int64(o, MAPPING_ID, 1);
        int64(o, MAPPING_FILENAME, filename);
        o.writeBool(MAPPING_HAS_FUNCTIONS, true);
        o.writeBool(MAPPING_HAS_FILENAMES, true);
        o.writeBool(MAPPING_HAS_LINE_NUMBERS, true);
    }

    /** A location of mapping 1 and no address: one line, its function and line number. */
    private static void location(CodedOutputStream o, long id, long[] functionLine) throws IOException {
        int lineSize = int64Size(LINE_FUNCTION_ID, functionLine[0]) + int64Size(LINE_LINE, functionLine[1]);
        lengthDelimited(o, PROFILE_LOCATION, int64Size(LOCATION_ID, id) + int64Size(LOCATION_MAPPING_ID, 1)
                + embeddedSize(LOCATION_LINE, lineSize));
        int64(o, LOCATION_ID, id);
        int64(o, LOCATION_MAPPING_ID, 1);
        lengthDelimited(o, LOCATION_LINE, lineSize);
        int64(o, LINE_FUNCTION_ID, functionLine[0]);
        int64(o, LINE_LINE, functionLine[1]);
    }

    private static void function(CodedOutputStream o, long id, Function f) throws IOException {
        lengthDelimited(o, PROFILE_FUNCTION, int64Size(FUNCTION_ID, id) + int64Size(FUNCTION_NAME, f.name())
                + int64Size(FUNCTION_SYSTEM_NAME, f.systemName()) + int64Size(FUNCTION_FILENAME, f.filename())
                + int64Size(FUNCTION_START_LINE, f.startLine()));
        int64(o, FUNCTION_ID, id);
        int64(o, FUNCTION_NAME, f.name());
        int64(o, FUNCTION_SYSTEM_NAME, f.systemName());
        int64(o, FUNCTION_FILENAME, f.filename());
        int64(o, FUNCTION_START_LINE, f.startLine());
    }
}
