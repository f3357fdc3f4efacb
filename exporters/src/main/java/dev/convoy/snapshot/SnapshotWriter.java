package dev.convoy.snapshot;

import static dev.convoy.snapshot.SnapshotFormat.*;

import dev.convoy.model.ClassInfo;
import dev.convoy.model.Event;
import dev.convoy.model.Frame;
import dev.convoy.model.LineEntry;
import dev.convoy.model.Loss;
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
import java.util.Map;
import java.util.zip.CRC32;

/**
 * Encodes a {@link Recording} in the binary snapshot format, the version of
 * {@link SnapshotFormat}, sections in the order of the spec. {@link #write(Recording)} of what {@link SnapshotReader} read
 * gives equivalent bytes (unknown sections are not kept).
 */
public final class SnapshotWriter {
    private SnapshotWriter() {
    }

    /** The snapshot bytes of a recording, version {@code VERSION_MAJOR.VERSION_MINOR}. */
    public static byte[] write(Recording r) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            write(r, bytes);
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
        Out file = new Out(out);
        file.bytes(magic());
        file.u16(VERSION_MAJOR);
        file.u16(VERSION_MINOR);
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
                    t.u16(e.aux());
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
        // each ring id's losses once (a ring id is unique in a snapshot; of two, the first's)
        java.util.Map<Long, RecordedThread> lossRings = new java.util.LinkedHashMap<>();
        for (RecordedThread th : r.threads()) {
            lossRings.putIfAbsent(th.ringId(), th);
        }
        section(file, SECTION_LOSSES, l -> {
            long n = 0;
            for (RecordedThread th : lossRings.values()) {
                n += th.losses().size();
            }
            l.u32(n);
            for (RecordedThread th : lossRings.values()) {
                for (Loss loss : th.losses()) {
                    l.u64(th.ringId());
                    l.u32(loss.kind());
                    l.u64(loss.fromNs());
                    l.u64(loss.toNs());
                    l.u64(loss.records());
                }
            }
        });
        if (!r.totals().isEmpty()) {
            section(file, SECTION_TOTALS, t -> {
                t.u32(r.totals().size());
                for (dev.convoy.model.Total total : r.totals()) {
                    t.u64(total.ringId());
                    t.u32(total.kind());
                    t.u64(total.object());
                    t.u32(total.stackId());
                    t.u64(total.count());
                    t.u64(total.totalNs());
                    t.u64(total.maxNs());
                }
            });
        }
        section(file, SECTION_END, x -> {
        });
        file.flush();
    }

    private interface Payload {
        void writeTo(Out o) throws IOException;
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
