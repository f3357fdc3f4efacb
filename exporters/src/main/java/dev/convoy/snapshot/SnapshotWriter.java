package dev.convoy.snapshot;

import static dev.convoy.snapshot.SnapshotFormat.*;

import dev.convoy.model.ClassInfo;
import dev.convoy.model.Event;
import dev.convoy.model.Frame;
import dev.convoy.model.LineEntry;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.MonitorState;
import dev.convoy.model.ObjectInfo;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.StackTrace;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * Encodes a {@link Recording} in the binary snapshot format, version 1.1, sections in
 * the order of the spec. {@link #write(Recording)} of what {@link SnapshotReader} read
 * gives equivalent bytes (unknown sections are not kept). The {@link Builder} assembles
 * recordings by hand, for tests and tools.
 */
public final class SnapshotWriter {
    private SnapshotWriter() {
    }

    /** The snapshot bytes of a recording, version {@code VERSION_MAJOR.VERSION_MINOR}. */
    public static byte[] write(Recording r) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            write(r, VERSION_MAJOR, VERSION_MINOR, List.of(), bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // not thrown by a ByteArrayOutputStream
        }
        return bytes.toByteArray();
    }

    /**
     * Streams the snapshot of a recording to {@code out} (not closed) without building it in
     * memory: each section is encoded twice, once for its length and CRC32, once to write it.
     */
    public static void write(Recording r, OutputStream out) throws IOException {
        write(r, VERSION_MAJOR, VERSION_MINOR, List.of(), out);
    }

    private interface Payload {
        void writeTo(Out o) throws IOException;
    }

    private static void write(Recording r, int major, int minor, List<RawSection> extra, OutputStream os)
            throws IOException {
        Out file = new Out(os);
        file.bytes(magic());
        file.u16(major);
        file.u16(minor);
        file.u32(0);

        section(file, SECTION_THREADS, t -> {
            t.u32(r.threads().size());
            for (RecordedThread th : r.threads()) {
                t.u64(th.ringId());
                t.u64(th.javaThreadId());
                t.u64(th.threadObject());
                t.u32(th.flags());
                t.u64(th.startNs());
                t.u64(th.endNs());
                t.u64(th.written());
                t.u64(th.overwritten());
                t.u64(th.dropped());
                t.u64(th.torn());
                t.str(th.name());
                t.str(th.group());
                t.str(th.parentGroup());
                t.u32(th.capacity());
                t.u32(th.events().size());
                for (Event e : th.events()) {
                    t.u64(e.ts());
                    t.u8(e.rawType());
                    t.u8(e.flags());
                    t.u16(0);
                    t.u32(e.stackId());
                    t.u64(e.obj());
                    t.u64(e.arg());
                    t.u64(e.arg2());
                }
            }
        });

        section(file, SECTION_INFO, p -> {
            p.u32(r.info().size());
            for (Map.Entry<String, String> e : r.info().entrySet()) {
                p.str(e.getKey());
                p.str(e.getValue());
            }
        });

        section(file, SECTION_STACKS, s -> {
            s.u32(r.stacks().size());
            for (StackTrace st : r.stacks().values()) {
                s.u32(st.id());
                s.u32(st.truncated() ? 1 : 0);
                s.u32(st.frames().size());
                for (Frame f : st.frames()) {
                    s.u64(f.methodId());
                    s.u64(f.location());
                }
            }
        });

        section(file, SECTION_METHODS, m -> {
            m.u32(r.methods().size());
            for (MethodInfo mi : r.methods().values()) {
                m.u64(mi.methodId());
                m.u64(mi.classId());
                m.str(mi.name());
                m.str(mi.signature());
                m.u32(mi.hasLineTable() ? mi.lineTable().size() : -1);
                for (LineEntry le : mi.lineTable()) {
                    m.u64(le.startLocation());
                    m.u32(le.lineNumber());
                }
            }
        });

        section(file, SECTION_CLASSES, c -> {
            c.u32(r.classes().size());
            for (ClassInfo ci : r.classes().values()) {
                c.u64(ci.classId());
                c.str(ci.signature());
                c.str(ci.sourceFile());
            }
        });

        section(file, SECTION_OBJECTS, o -> {
            o.u32(r.objects().size());
            for (ObjectInfo oi : r.objects().values()) {
                o.u64(oi.objectId());
                o.u32(oi.identityHash());
                o.u32(oi.kind());
                o.u64(oi.classId());
            }
        });

        if (!r.monitors().isEmpty()) {
            section(file, SECTION_MONITORS, mo -> {
                mo.u32(r.monitors().size());
                for (MonitorState ms : r.monitors()) {
                    mo.u64(ms.ringId());
                    mo.u32(ms.state());
                    mo.u64(ms.object());
                    mo.u32(ms.identityHash());
                    mo.u64(ms.ownerThreadId());
                }
            });
        }
        for (RawSection raw : extra) {
            section(file, raw.tag, x -> x.bytes(raw.payload));
        }
        section(file, SECTION_END, x -> {
        });
        file.flush();
    }

    private static void section(Out file, int tag, Payload payload) throws IOException {
        CRC32 crc = new CRC32();
        long[] length = new long[1];
        Out measure = new Out(new OutputStream() {
            @Override
            public void write(int b) {
                crc.update(b);
                length[0]++;
            }

            @Override
            public void write(byte[] b, int off, int len) {
                crc.update(b, off, len);
                length[0] += len;
            }
        });
        payload.writeTo(measure);
        measure.flush();
        file.u32(tag);
        file.u32((int) crc.getValue());
        file.u64(length[0]);
        payload.writeTo(file);
    }

    /** A new builder with no content. */
    public static Builder builder() {
        return new Builder();
    }

    private record RawSection(int tag, byte[] payload) {
    }

    /**
     * Assembles a recording piece by piece. Not thread-safe. Counters of a thread default
     * to {@code written = events}, nothing overwritten, dropped or torn, capacity = max(events, 1024).
     */
    public static final class Builder {
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

        private Builder() {
        }

        /** Version written in the header of {@link #toBytes()} (to test readers on other versions). */
        public Builder version(int major, int minor) {
            this.major = major;
            this.minor = minor;
            return this;
        }

        /** Adds or replaces an INFO entry. */
        public Builder info(String key, String value) {
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
        public Builder stack(int id, boolean truncated, Frame... frames) {
            stacks.put(id, new StackTrace(id, truncated, List.of(frames)));
            return this;
        }

        /** Adds a method. */
        public Builder method(MethodInfo m) {
            methods.put(m.methodId(), m);
            return this;
        }

        /** Adds a class. */
        public Builder clazz(long classId, String signature, String sourceFile) {
            classes.put(classId, new ClassInfo(classId, signature, sourceFile));
            return this;
        }

        /** Adds an object. */
        public Builder object(long objectId, int identityHash, int kind, long classId) {
            objects.put(objectId, new ObjectInfo(objectId, identityHash, kind, classId));
            return this;
        }

        /** Adds a SECTION_MONITORS entry (the section is written when there is at least one). */
        public Builder monitor(long ringId, int state, long object, int identityHash, long ownerThreadId) {
            monitors.add(new MonitorState(ringId, state, object, identityHash, ownerThreadId));
            return this;
        }

        /** Adds a raw section before END in {@link #toBytes()} (e.g. an unknown tag). */
        public Builder rawSection(int tag, byte[] payload) {
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

        /** {@link #build()} encoded, with the chosen version and raw sections. */
        public byte[] toBytes() {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try {
                write(build(), major, minor, extra, bytes);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return bytes.toByteArray();
        }
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
        private long overwritten;
        private long dropped;
        private long torn;
        private String group = "main";
        private String parentGroup = "system";
        private int capacity = -1;
        private final List<Event> events = new ArrayList<>();

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

        /** Appends a record without flags and arg2. */
        public ThreadBuilder event(long ts, int type, int stackId, long obj, long arg) {
            return event(ts, type, 0, stackId, obj, arg, 0);
        }

        RecordedThread build() {
            long w = written >= 0 ? written : events.size();
            int cap = capacity >= 0 ? capacity : Math.max(events.size(), 1024);
            return new RecordedThread(ringId, javaThreadId, threadObject, flags, startNs, endNs, w,
                    overwritten, dropped, torn, name, group, parentGroup, cap, events);
        }
    }

    /** Little-endian writer with its own buffer over a stream. */
    private static final class Out {
        private final OutputStream os;
        private final byte[] buf = new byte[1 << 15];
        private int n;

        Out(OutputStream os) {
            this.os = os;
        }

        private void room(int k) throws IOException {
            if (n + k > buf.length) {
                os.write(buf, 0, n);
                n = 0;
            }
        }

        void flush() throws IOException {
            if (n > 0) {
                os.write(buf, 0, n);
                n = 0;
            }
        }

        void u8(int v) throws IOException {
            room(1);
            buf[n++] = (byte) v;
        }

        void u16(int v) throws IOException {
            room(2);
            buf[n++] = (byte) v;
            buf[n++] = (byte) (v >>> 8);
        }

        void u32(long v) throws IOException {
            room(4);
            for (int i = 0; i < 4; i++) {
                buf[n++] = (byte) (v >>> (8 * i));
            }
        }

        void u64(long v) throws IOException {
            room(8);
            for (int i = 0; i < 8; i++) {
                buf[n++] = (byte) (v >>> (8 * i));
            }
        }

        void bytes(byte[] b) throws IOException {
            flush();
            os.write(b, 0, b.length);
        }

        void str(String s) throws IOException {
            byte[] b = ModifiedUtf8.encode(s);
            u32(b.length);
            bytes(b);
        }
    }
}
