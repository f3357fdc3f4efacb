package dev.convoy.model;

import dev.convoy.snapshot.SnapshotFormat;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one snapshot holds: INFO, the thread rings with their events, the stack,
 * method, class and object tables and the monitor states at snapshot time.
 * Immutable; built by {@code SnapshotReader} or {@code SnapshotWriter.Builder}.
 */
public final class Recording {
    private final int versionMajor;
    private final int versionMinor;
    private final Map<String, String> info;
    private final List<RecordedThread> threads;
    private final Map<Integer, StackTrace> stacks;
    private final Map<Long, MethodInfo> methods;
    private final Map<Long, ClassInfo> classes;
    private final Map<Long, ObjectInfo> objects;
    private final List<MonitorState> monitors;
    private final Map<Long, RecordedThread> byRing = new LinkedHashMap<>();
    private List<Event> merged;

    /** Maps keep their iteration order (the file order when read). */
    public Recording(int versionMajor, int versionMinor, Map<String, String> info,
                     List<RecordedThread> threads, Map<Integer, StackTrace> stacks,
                     Map<Long, MethodInfo> methods, Map<Long, ClassInfo> classes,
                     Map<Long, ObjectInfo> objects, List<MonitorState> monitors) {
        this.versionMajor = versionMajor;
        this.versionMinor = versionMinor;
        this.info = Collections.unmodifiableMap(new LinkedHashMap<>(info));
        this.threads = List.copyOf(threads);
        this.stacks = Collections.unmodifiableMap(new LinkedHashMap<>(stacks));
        this.methods = Collections.unmodifiableMap(new LinkedHashMap<>(methods));
        this.classes = Collections.unmodifiableMap(new LinkedHashMap<>(classes));
        this.objects = Collections.unmodifiableMap(new LinkedHashMap<>(objects));
        this.monitors = List.copyOf(monitors);
        for (RecordedThread t : threads) {
            byRing.put(t.ringId(), t);
        }
    }

    /** Major format version of the file read. */
    public int versionMajor() { return versionMajor; }
    /** Minor format version of the file read. */
    public int versionMinor() { return versionMinor; }
    /** SECTION_INFO key/value pairs in file order. */
    public Map<String, String> info() { return info; }
    /** All rings in file order, the GC ring included. */
    public List<RecordedThread> threads() { return threads; }
    /** Stacks by stack id. */
    public Map<Integer, StackTrace> stacks() { return stacks; }
    /** Methods by jmethodID. */
    public Map<Long, MethodInfo> methods() { return methods; }
    /** Classes by class id. */
    public Map<Long, ClassInfo> classes() { return classes; }
    /** Objects by object id. */
    public Map<Long, ObjectInfo> objects() { return objects; }
    /** SECTION_MONITORS entries (empty when the section is absent). */
    public List<MonitorState> monitors() { return monitors; }

    /** The ring with this id. */
    public Optional<RecordedThread> threadByRingId(long ringId) {
        return Optional.ofNullable(byRing.get(ringId));
    }

    /** Rings of Java threads (not RING_SYSTEM). */
    public List<RecordedThread> javaThreads() {
        return threads.stream().filter(t -> !t.isSystem()).toList();
    }

    /** The monitor state of a ring, if SECTION_MONITORS lists it. */
    public Optional<MonitorState> monitorState(long ringId) {
        return monitors.stream().filter(m -> m.ringId() == ringId).findFirst();
    }

    /**
     * Events of all rings merged by timestamp. Ties keep ring order (file order) and,
     * within a ring, record order; this total order is the one the analysis uses.
     */
    public synchronized List<Event> events() {
        if (merged == null) {
            List<Event> all = new ArrayList<>();
            for (RecordedThread t : threads) {
                all.addAll(t.events());
            }
            all.sort(Comparator.comparingLong(Event::ts)); // stable: ties keep insertion order
            merged = List.copyOf(all);
        }
        return merged;
    }

    /** A numeric INFO value, or {@code dflt} when missing or not a number. */
    public long infoLong(String key, long dflt) {
        String v = info.get(key);
        if (v == null) {
            return dflt;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return dflt;
        }
    }

    /**
     * Monotonic ns at recording start: INFO {@code start.monotonic.ns}, else the earliest
     * ring start or event time, else 0.
     */
    public long startMonotonicNs() {
        long v = infoLong("start.monotonic.ns", Long.MIN_VALUE);
        if (v != Long.MIN_VALUE) {
            return v;
        }
        long min = Long.MAX_VALUE;
        for (RecordedThread t : threads) {
            min = Math.min(min, t.startNs());
            for (Event e : t.events()) {
                min = Math.min(min, e.ts());
            }
        }
        return min == Long.MAX_VALUE ? 0 : min;
    }

    /** Wall clock (ns since 1970 UTC) at recording start: INFO {@code start.epoch.ns}, else 0. */
    public long startEpochNs() {
        return infoLong("start.epoch.ns", 0);
    }

    /**
     * Monotonic ns when the snapshot was taken: INFO {@code snapshot.monotonic.ns}, else the
     * latest event, ring start or ring end time.
     */
    public long snapshotMonotonicNs() {
        long v = infoLong("snapshot.monotonic.ns", Long.MIN_VALUE);
        if (v != Long.MIN_VALUE) {
            return v;
        }
        long max = startMonotonicNs();
        for (RecordedThread t : threads) {
            max = Math.max(max, Math.max(t.startNs(), t.endNs()));
            for (Event e : t.events()) {
                max = Math.max(max, e.ts());
            }
        }
        return max;
    }

    /** Wall clock of a monotonic timestamp: {@code start.epoch.ns + (ts - start.monotonic.ns)}. */
    public long toEpochNs(long monotonicNs) {
        return startEpochNs() + (monotonicNs - startMonotonicNs());
    }

    /** Process id from INFO, 0 if missing. */
    public long pid() {
        return infoLong("pid", 0);
    }

    /** First word of INFO {@code java.command} (the main class or jar), "" if missing. */
    public String mainClass() {
        String cmd = info.getOrDefault("java.command", "").trim();
        int sp = cmd.indexOf(' ');
        return sp < 0 ? cmd : cmd.substring(0, sp);
    }

    /** Dotted class name of an object, "" when its object or class is not described. */
    public String objectClassName(long objectId) {
        ObjectInfo o = objects.get(objectId);
        if (o == null) {
            return "";
        }
        ClassInfo c = classes.get(o.classId());
        return c == null ? "" : c.dottedName();
    }

    /** Identity hash code of an object, 0 when the object is not described. */
    public int identityHash(long objectId) {
        ObjectInfo o = objects.get(objectId);
        return o == null ? 0 : o.identityHash();
    }

    /** Frames of a stack id; empty for 0 or an unknown id. */
    public List<Frame> frames(int stackId) {
        StackTrace s = stacks.get(stackId);
        return s == null ? List.of() : s.frames();
    }

    /**
     * A readable frame as in a Java stack trace: {@code pkg.Class.method(File.java:12)},
     * {@code (Native Method)}, {@code (File.java)} without a line, {@code (Unknown Source)}
     * without a source file; {@code <unknown method 0x...>} for an undescribed method.
     */
    public String describe(Frame f) {
        MethodInfo m = methods.get(f.methodId());
        if (m == null) {
            return "<unknown method 0x" + Long.toHexString(f.methodId()) + ">";
        }
        ClassInfo c = classes.get(m.classId());
        String cls = c == null || c.dottedName().isEmpty() ? "<unloaded>" : c.dottedName();
        String where;
        if (f.location() < 0) {
            where = "Native Method";
        } else {
            String src = c == null ? "" : c.sourceFile();
            int line = m.lineFor(f.location());
            where = src.isEmpty() ? "Unknown Source" : line >= 0 ? src + ":" + line : src;
        }
        return cls + "." + m.name() + "(" + where + ")";
    }

    /** The Thread object ids of OBJ_THREAD entries, mapped to their rings where one exists. */
    public Optional<RecordedThread> threadByObject(long threadObject) {
        if (threadObject == 0) {
            return Optional.empty();
        }
        return threads.stream().filter(t -> t.threadObject() == threadObject).findFirst();
    }

    /** True when the object is described as a java.lang.Thread (OBJ_THREAD). */
    public boolean isThreadObject(long objectId) {
        ObjectInfo o = objects.get(objectId);
        return o != null && o.kind() == SnapshotFormat.OBJ_THREAD;
    }
}
