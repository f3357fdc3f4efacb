package dev.convoy.testing;

import static dev.convoy.snapshot.SnapshotFormat.SECTION_HEADER_BYTES;
import static dev.convoy.snapshot.SnapshotFormat.VERSION_MAJOR;
import static dev.convoy.snapshot.SnapshotFormat.VERSION_MINOR;

import dev.convoy.model.ClassInfo;
import dev.convoy.model.Event;
import dev.convoy.model.Frame;
import dev.convoy.model.Loss;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.MonitorState;
import dev.convoy.model.ObjectInfo;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.StackTrace;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.snapshot.SnapshotWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * Assembles a recording piece by piece, for tests (exporters' and, through the exporters
 * test-jar, recorder-mbean's). Not thread-safe. Counters of a thread default to
 * {@code written = events + lost}, {@code overwritten = lost} (the records of its
 * {@link ThreadBuilder#loss losses}), nothing dropped or torn, capacity = max(events, 1024).
 */
public final class RecordingBuilder {
    private int major = VERSION_MAJOR;
    private int minor = VERSION_MINOR;
    private final Map<String, String> info = new LinkedHashMap<>();
    private final List<ThreadBuilder> threads = new ArrayList<>();
    private final Map<Integer, StackTrace> stacks = new LinkedHashMap<>();
    private final Map<Long, MethodInfo> methods = new LinkedHashMap<>();
    private final Map<Long, ClassInfo> classes = new LinkedHashMap<>();
    private final Map<Long, ObjectInfo> objects = new LinkedHashMap<>();
    private final List<MonitorState> monitors = new ArrayList<>();
    private final List<RawSection> extra = new ArrayList<>();

    private record RawSection(int tag, byte[] payload) {
    }

    /** A new builder with no content. */
    public RecordingBuilder() {
    }

    /** Version written in the header of {@link #toBytes()} (to test readers on other versions). */
    public RecordingBuilder version(int major, int minor) {
        this.major = major;
        this.minor = minor;
        return this;
    }

    /** Adds or replaces an INFO entry. */
    public RecordingBuilder info(String key, String value) {
        info.put(key, value);
        return this;
    }

    /** Starts a thread ring; add its events on the returned builder. */
    public ThreadBuilder thread(long ringId, long javaThreadId, long threadObject, String name) {
        ThreadBuilder t = new ThreadBuilder(ringId, javaThreadId, threadObject, name);
        threads.add(t);
        return t;
    }

    /** Adds a stack, top frame first. */
    public RecordingBuilder stack(int id, boolean truncated, Frame... frames) {
        stacks.put(id, new StackTrace(id, truncated, List.of(frames)));
        return this;
    }

    /** Adds a method. */
    public RecordingBuilder method(MethodInfo m) {
        methods.put(m.methodId(), m);
        return this;
    }

    /** Adds a class. */
    public RecordingBuilder clazz(long classId, String signature, String sourceFile) {
        classes.put(classId, new ClassInfo(classId, signature, sourceFile));
        return this;
    }

    /** Adds an object. */
    public RecordingBuilder object(long objectId, int identityHash, int kind, long classId) {
        objects.put(objectId, new ObjectInfo(objectId, identityHash, kind, classId));
        return this;
    }

    /** Adds a SECTION_MONITORS entry (the section is written when there is at least one). */
    public RecordingBuilder monitor(long ringId, int state, long object, int identityHash, long ownerThreadId) {
        monitors.add(new MonitorState(ringId, state, object, identityHash, ownerThreadId));
        return this;
    }

    /** Adds a raw section before END in {@link #toBytes()} (e.g. an unknown tag). */
    public RecordingBuilder rawSection(int tag, byte[] payload) {
        extra.add(new RawSection(tag, payload.clone()));
        return this;
    }

    /** The recording described so far. */
    public Recording build() {
        List<RecordedThread> ts = new ArrayList<>();
        for (ThreadBuilder t : threads) {
            ts.add(t.build());
        }
        return new Recording(major, minor, info, ts, stacks, methods, classes, objects, monitors);
    }

    /**
     * {@link #build()} encoded by {@link SnapshotWriter#write(Recording)}, then given the chosen
     * version in its header and the raw sections just before its END section (the last
     * {@link SnapshotFormat#SECTION_HEADER_BYTES}: END has an empty payload).
     */
    public byte[] toBytes() {
        byte[] written = SnapshotWriter.write(build());
        int rawBytes = 0;
        for (RawSection raw : extra) {
            rawBytes += SECTION_HEADER_BYTES + raw.payload.length;
        }
        int end = written.length - SECTION_HEADER_BYTES;
        ByteBuffer out = ByteBuffer.allocate(written.length + rawBytes).order(ByteOrder.LITTLE_ENDIAN);
        out.put(written, 0, end);
        for (RawSection raw : extra) {
            CRC32 crc = new CRC32();
            crc.update(raw.payload);
            out.putInt(raw.tag).putInt((int) crc.getValue()).putLong(raw.payload.length).put(raw.payload);
        }
        out.put(written, end, SECTION_HEADER_BYTES);
        int versionAt = SnapshotFormat.magic().length; // header: magic, u16 major, u16 minor, u32 reserved
        out.putShort(versionAt, (short) major).putShort(versionAt + 2, (short) minor);
        return out.array();
    }

    /** Builds one ring. */
    public static final class ThreadBuilder {
        private final long ringId;
        private final long javaThreadId;
        private final long threadObject;
        private final String name;
        private int flags;
        private long startNs;
        private long endNs;
        private long written = -1;
        private long overwritten = -1;
        private long dropped;
        private long torn;
        private String group = "main";
        private String parentGroup = "system";
        private int capacity = -1;
        private final List<Event> events = new ArrayList<>();
        private final List<Loss> losses = new ArrayList<>();

        private ThreadBuilder(long ringId, long javaThreadId, long threadObject, String name) {
            this.ringId = ringId;
            this.javaThreadId = javaThreadId;
            this.threadObject = threadObject;
            this.name = name;
        }

        /** {@code RING_*} bits. */
        public ThreadBuilder flags(int flags) {
            this.flags = flags;
            return this;
        }

        /** Start and end (0 = alive) in monotonic ns. */
        public ThreadBuilder span(long startNs, long endNs) {
            this.startNs = startNs;
            this.endNs = endNs;
            return this;
        }

        /** Ring counters. */
        public ThreadBuilder counters(long written, long overwritten, long dropped, long torn) {
            this.written = written;
            this.overwritten = overwritten;
            this.dropped = dropped;
            this.torn = torn;
            return this;
        }

        /** Thread group and its parent. */
        public ThreadBuilder group(String group, String parentGroup) {
            this.group = group;
            this.parentGroup = parentGroup;
            return this;
        }

        /** Ring capacity in records. */
        public ThreadBuilder capacity(int capacity) {
            this.capacity = capacity;
            return this;
        }

        /** Appends a record (append in time order). */
        public ThreadBuilder event(long ts, int type, int flags, int stackId, long obj, long arg, long arg2) {
            events.add(Event.of(ts, type, flags, stackId, obj, arg, arg2));
            return this;
        }

        /** Appends a record with its aux bits (the u16 after the flags: OWNER_SAMPLE's). */
        public ThreadBuilder event(long ts, int type, int flags, int aux, int stackId, long obj, long arg, long arg2) {
            events.add(Event.of(ts, type, flags, aux, stackId, obj, arg, arg2));
            return this;
        }

        /** Appends a loss (SECTION_LOSSES; append in time order): {@code records} missing from {@code fromNs} to {@code toNs}. */
        public ThreadBuilder loss(int kind, long fromNs, long toNs, long records) {
            losses.add(new Loss(kind, fromNs, toNs, records));
            return this;
        }

        /** Appends a record without flags and arg2. */
        public ThreadBuilder event(long ts, int type, int stackId, long obj, long arg) {
            return event(ts, type, 0, stackId, obj, arg, 0);
        }

        RecordedThread build() {
            long lost = 0;
            for (Loss l : losses) {
                lost += l.records();
            }
            long w = written >= 0 ? written : events.size() + lost;
            long o = overwritten >= 0 ? overwritten : lost;
            int cap = capacity >= 0 ? capacity : Math.max(events.size(), 1024);
            RecordedThread t = new RecordedThread(ringId, javaThreadId, threadObject, flags, startNs, endNs, w,
                    o, dropped, torn, name, group, parentGroup, cap, events);
            return losses.isEmpty() ? t : t.withLosses(losses);
        }
    }
}
