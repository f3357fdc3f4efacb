package dev.convoy.snapshot;

import static dev.convoy.snapshot.SnapshotFormat.*;

import dev.convoy.model.ClassInfo;
import dev.convoy.model.Frame;
import dev.convoy.model.LineEntry;
import dev.convoy.model.Loss;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.MonitorState;
import dev.convoy.model.ObjectInfo;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.StackTrace;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * Reads a binary snapshot ({@code schema/snapshot-format.md}) into a {@link Recording}.
 *
 * <p>Rejects, with a {@link SnapshotFormatException} naming the byte offset and the
 * reason: a wrong magic, an unknown major version (newer minor versions are accepted), a
 * section CRC mismatch, a section or a value running past its end, a file ending before
 * the END section, a known section appearing twice, malformed modified UTF-8, a loss
 * (SECTION_LOSSES) naming a ring SECTION_THREADS does not list, ending before it begins, of no
 * records, or out of time order or overlapping the previous loss of its ring, a run of packed
 * records (SECTION_RECORDS) naming a ring SECTION_THREADS does not list or whose bytes do not
 * hold exactly its records. Sections
 * of an unknown tag are skipped; records of an unknown event type are kept as
 * {@code EventType.UNKNOWN}. Bytes after the END section are ignored. Stateless and
 * thread-safe.
 */
public final class SnapshotReader {
    private SnapshotReader() {
    }

    /**
     * Reads a snapshot file without copying it onto the heap: a private copy of the file is
     * memory-mapped and the thread records stay in the mapping (the recording keeps it alive);
     * packed records (SECTION_RECORDS, a repository's chunk files) are decoded onto the heap.
     */
    public static Recording read(Path file) throws IOException {
        return read(file, null);
    }

    /** Called while the sections are checked, with bytes done and total (for progress reports). */
    @FunctionalInterface
    public interface Progress {
        void at(long done, long total);
    }

    /**
     * {@link #read(Path)}, reporting progress while the file is read and checked.
     *
     * <p>A mapping of a file that another process truncates faults (SIGBUS) when a page past the
     * new end is read: in compiled code that crashes the JVM. So the file is first copied, as its
     * size was when it was opened, into a folder of this process's own under
     * {@code java.io.tmpdir} (mode 0700), and the copy is mapped and deleted at once (the mapping
     * stays). A file that shrinks while it is copied is a format error; one that grows or is
     * replaced is read as it was when opened.
     */
    public static Recording read(Path file, Progress progress) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size > Integer.MAX_VALUE) {
                throw new IOException(file + ": snapshots of 2 GiB or more are not supported (" + size + " bytes)");
            }
            Path dir = java.nio.file.Files.createTempDirectory("convoy-read-",
                    java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                            java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
            Path copy = dir.resolve("snapshot");
            try {
                try (FileChannel out = FileChannel.open(copy, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                        StandardOpenOption.READ, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    long done = 0;
                    while (done < size) {
                        long n = ch.transferTo(done, size - done, out);
                        if (n <= 0) {
                            throw new SnapshotFormatException(done, "truncated: the file shrank to " + done
                                    + " bytes while it was read (it had " + size + ")");
                        }
                        done += n;
                    }
                    MappedByteBuffer map = out.map(FileChannel.MapMode.READ_ONLY, 0, size);
                    return read(map, progress);
                }
            } catch (SnapshotFormatException e) {
                throw e;
            } catch (IOException e) {
                throw new IOException("cannot make a private copy of " + file + " in " + dir.getParent() + ": "
                        + (e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null ? fs.getReason()
                                : e.getMessage()) + "; set -Djava.io.tmpdir=DIR to a directory with room", e);
            } finally {
                java.nio.file.Files.deleteIfExists(copy);
                java.nio.file.Files.deleteIfExists(dir);
            }
        }
    }

    /** Reads a snapshot from a stream until its end; does not close it. */
    public static Recording read(InputStream in) throws IOException {
        return read(in.readAllBytes());
    }

    /** Reads a snapshot held in memory (the thread records stay in {@code data}, which must not change). */
    public static Recording read(byte[] data) throws SnapshotFormatException {
        return read(ByteBuffer.wrap(data), null);
    }

    /**
     * Reads a snapshot held in a buffer, position 0 to its limit (a direct buffer keeps the records
     * off the heap); the recording keeps a view of it, whose bytes must not change.
     */
    public static Recording read(ByteBuffer data) throws SnapshotFormatException {
        return read(data.duplicate().position(0), null);
    }

    private static Recording read(ByteBuffer buf, Progress progress) throws SnapshotFormatException {
        ByteBuffer data = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int dataLength = data.limit();
        Cursor h = new Cursor(data, 0, dataLength, "file header");
        if (dataLength < HEADER_BYTES) {
            throw new SnapshotFormatException(dataLength,
                    "truncated: file header needs " + HEADER_BYTES + " bytes, file has " + dataLength);
        }
        byte[] magic = magic();
        byte[] head = new byte[magic.length];
        data.get(0, head);
        if (!Arrays.equals(head, magic)) {
            throw new SnapshotFormatException(0, "bad magic: not a Convoy snapshot (expected \"CVYSNAP\\0\")");
        }
        h.pos = magic.length;
        int major = h.u16();
        int minor = h.u16();
        if (major != VERSION_MAJOR) {
            throw new SnapshotFormatException(8, "unknown major version " + major + "." + minor
                    + " (this reader knows " + VERSION_MAJOR + ".x)");
        }
        h.u32(); // flags, 0 in 1.0; ignored so that a later minor version may use it

        Map<String, String> info = new LinkedHashMap<>();
        List<RecordedThread> threads = new ArrayList<>();
        Map<Integer, StackTrace> stacks = new LinkedHashMap<>();
        Map<Long, MethodInfo> methods = new LinkedHashMap<>();
        Map<Long, ClassInfo> classes = new LinkedHashMap<>();
        Map<Long, ObjectInfo> objects = new LinkedHashMap<>();
        List<MonitorState> monitors = new ArrayList<>();
        List<RawLoss> losses = new ArrayList<>();
        List<dev.convoy.model.Total> totals = new ArrayList<>();
        List<PackedRun> packed = new ArrayList<>();
        Set<Integer> seen = new HashSet<>();

        long pos = HEADER_BYTES;
        if (progress != null) {
            progress.at(pos, dataLength);
        }
        while (true) {
            if (pos == dataLength) {
                throw new SnapshotFormatException(pos, "truncated: file ends before the END section");
            }
            if (dataLength - pos < SECTION_HEADER_BYTES) {
                throw new SnapshotFormatException(pos, "truncated: section header needs "
                        + SECTION_HEADER_BYTES + " bytes, " + (dataLength - pos) + " left");
            }
            Cursor sh = new Cursor(data, (int) pos, dataLength, "section header");
            int tag = (int) sh.u32();
            long crc = sh.u32();
            long length = sh.u64();
            long payload = pos + SECTION_HEADER_BYTES;
            String name = sectionName(tag);
            if (length < 0 || length > dataLength - payload) {
                throw new SnapshotFormatException(pos, "truncated: " + name + " length " + Long.toUnsignedString(length)
                        + " runs past the end of the file (" + (dataLength - payload) + " bytes left)");
            }
            CRC32 c = new CRC32();
            for (long done = 0; done < length; ) {
                int chunk = (int) Math.min(length - done, 8 << 20);
                c.update(data.slice((int) (payload + done), chunk));
                done += chunk;
                if (progress != null) {
                    progress.at(payload + done, dataLength);
                }
            }
            if (c.getValue() != crc) {
                throw new SnapshotFormatException(pos, "corrupt: " + name + " CRC32 mismatch (stored 0x"
                        + Long.toHexString(crc) + ", computed 0x" + Long.toHexString(c.getValue()) + ")");
            }
            boolean known = tag >= SECTION_INFO && tag <= SECTION_RECORDS || tag == SECTION_END;
            if (known && !seen.add(tag)) {
                throw new SnapshotFormatException(pos, "corrupt: " + name + " appears twice");
            }
            if (tag == SECTION_END) {
                if (progress != null) {
                    progress.at(dataLength, dataLength);
                }
                break;
            }
            Cursor in = new Cursor(data, (int) payload, (int) (payload + length), name);
            switch (tag) {
                case SECTION_INFO -> readInfo(in, info);
                case SECTION_THREADS -> readThreads(in, threads);
                case SECTION_STACKS -> readStacks(in, stacks);
                case SECTION_METHODS -> readMethods(in, methods);
                case SECTION_CLASSES -> readClasses(in, classes);
                case SECTION_OBJECTS -> readObjects(in, objects);
                case SECTION_MONITORS -> readMonitors(in, monitors);
                case SECTION_LOSSES -> readLosses(in, losses);
                case SECTION_TOTALS -> readTotals(in, totals);
                case SECTION_RECORDS -> readPacked(in, packed);
                default -> in.pos = in.limit; // unknown tag: skipped
            }
            pos = payload + length;
        }
        if (!packed.isEmpty()) {
            threads = unpack(threads, packed);
        }
        if (!losses.isEmpty()) {
            threads = attach(threads, losses);
        }
        return new Recording(major, minor, info, threads, stacks, methods, classes, objects, monitors, buf, totals);
    }

    /** SECTION_TOTALS: entries of 48 bytes; a count of 0 or a total below its max is corrupt. */
    private static void readTotals(Cursor in, List<dev.convoy.model.Total> totals) throws SnapshotFormatException {
        long n = in.u32();
        for (long i = 0; i < n; i++) {
            long at = in.offset();
            long ring = in.u64();
            int kind = (int) in.u32();
            long obj = in.u64();
            int stack = (int) in.u32();
            long count = in.u64();
            long total = in.u64();
            long max = in.u64();
            if (count <= 0 || total < 0 || max < 0 || Long.compareUnsigned(max, total) > 0) {
                throw new SnapshotFormatException(at, "corrupt: SECTION_TOTALS entry " + i + " counts " + count
                        + " taking " + total + " ns, the longest " + max + " ns");
            }
            totals.add(new dev.convoy.model.Total(ring, kind, obj, stack, count, total, max));
        }
    }

    /** An empty list per ring of SECTION_THREADS, in its order: for the entries of a section that name rings. */
    private static <T> Map<Long, List<T>> perRing(List<RecordedThread> threads) {
        Map<Long, List<T>> byRing = new LinkedHashMap<>();
        for (RecordedThread t : threads) {
            byRing.put(t.ringId(), new ArrayList<>());
        }
        return byRing;
    }

    /** The list of {@code ring}; an entry of {@code section} (read at {@code offset}) naming a ring SECTION_THREADS does not list is corrupt. */
    private static <T> List<T> listOf(Map<Long, List<T>> byRing, long ring, long offset, String section)
            throws SnapshotFormatException {
        List<T> list = byRing.get(ring);
        if (list == null) {
            throw new SnapshotFormatException(offset, "corrupt: " + section + " names ring "
                    + Long.toUnsignedString(ring) + ", which SECTION_THREADS does not list");
        }
        return list;
    }

    /** One entry of SECTION_RECORDS: a run of packed records of a ring, and where it was read. */
    private record PackedRun(long ringId, int count, ByteBuffer bytes, long offset) {
    }

    /** SECTION_RECORDS: the runs, checked when they are unpacked. */
    private static void readPacked(Cursor in, List<PackedRun> runs) throws SnapshotFormatException {
        long n = in.count(16);
        for (long i = 0; i < n; i++) {
            long at = in.offset();
            long ring = in.u64();
            long count = in.u32();
            long length = in.u32();
            in.need(length);
            if (count == 0 || count > length / 7) {
                throw new SnapshotFormatException(at, "corrupt: SECTION_RECORDS run " + i + " of ring "
                        + Long.toUnsignedString(ring) + " has " + count + " records in " + length
                        + " bytes (a run has at least 1, of at least 7 bytes each)");
            }
            runs.add(new PackedRun(ring, (int) count, in.b.slice(in.pos, (int) length).order(ByteOrder.LITTLE_ENDIAN), at));
            in.pos += (int) length;
        }
    }

    /**
     * The rings with the records of their packed runs after their own, decoded into the 40-byte
     * encoding on the heap. Each run must name a ring of SECTION_THREADS and hold exactly its count.
     */
    private static List<RecordedThread> unpack(List<RecordedThread> threads, List<PackedRun> runs)
            throws SnapshotFormatException {
        Map<Long, List<PackedRun>> byRing = perRing(threads);
        for (PackedRun run : runs) {
            listOf(byRing, run.ringId(), run.offset(), "SECTION_RECORDS").add(run);
        }
        List<RecordedThread> out = new ArrayList<>(threads.size());
        for (RecordedThread t : threads) {
            List<PackedRun> mine = byRing.get(t.ringId());
            if (mine.isEmpty()) {
                out.add(t);
                continue;
            }
            long total = t.eventCount();
            for (PackedRun run : mine) {
                total += run.count();
            }
            if (total * RECORD_BYTES > Integer.MAX_VALUE - 8) {
                throw new SnapshotFormatException(mine.get(0).offset(), "too large: ring "
                        + Long.toUnsignedString(t.ringId()) + " holds " + total + " records, more than one buffer holds");
            }
            ByteBuffer records = ByteBuffer.allocate((int) total * RECORD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < t.eventCount(); i++) {
                t.copyRecord(i, records);
            }
            for (PackedRun run : mine) {
                unpackRun(run, records);
            }
            records.flip();
            out.add(RecordedThread.ofRecords(t.ringId(), t.javaThreadId(), t.threadObject(), t.flags(), t.startNs(),
                    t.endNs(), t.written(), t.overwritten(), t.dropped(), t.torn(), t.name(), t.group(),
                    t.parentGroup(), t.capacity(), records, (int) total));
        }
        return out;
    }

    /** Decodes one run (schema/snapshot-format.md, SECTION_RECORDS) into 40-byte records. */
    private static void unpackRun(PackedRun run, ByteBuffer out) throws SnapshotFormatException {
        ByteBuffer b = run.bytes();
        int[] pos = {0};
        long ts = 0;
        long obj = 0;
        for (int k = 0; k < run.count(); k++) {
            ts += unzigzag(varint(run, b, pos));
            if (b.limit() - pos[0] < 2) {
                throw malformed(run, k, "ends inside a record");
            }
            byte type = b.get(pos[0]);
            byte flags = b.get(pos[0] + 1);
            pos[0] += 2;
            long auxStack = varint(run, b, pos);
            obj += unzigzag(varint(run, b, pos));
            long arg = unzigzag(varint(run, b, pos));
            long arg2 = unzigzag(varint(run, b, pos));
            if (auxStack >>> 48 != 0) {
                throw malformed(run, k, "has a stack id over 32 bits");
            }
            out.putLong(ts).put(type).put(flags).putShort((short) auxStack).putInt((int) (auxStack >>> 16))
                    .putLong(obj).putLong(arg).putLong(arg2);
        }
        if (pos[0] != b.limit()) {
            throw malformed(run, run.count(), "has " + (b.limit() - pos[0]) + " bytes after its " + run.count() + " records");
        }
    }

    private static long varint(PackedRun run, ByteBuffer b, int[] pos) throws SnapshotFormatException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos[0] >= b.limit()) {
                throw malformed(run, -1, "ends inside a varint");
            }
            int x = b.get(pos[0]++);
            v |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                return v;
            }
        }
        throw malformed(run, -1, "holds a varint of more than 10 bytes");
    }

    private static long unzigzag(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    private static SnapshotFormatException malformed(PackedRun run, int record, String what) {
        return new SnapshotFormatException(run.offset(), "corrupt: SECTION_RECORDS run of ring "
                + Long.toUnsignedString(run.ringId()) + (record >= 0 ? " (record " + record + ")" : "") + " " + what
                + " (its " + run.count() + " records take exactly its " + run.bytes().limit() + " bytes)");
    }

    /** One entry of SECTION_LOSSES and the offset it was read at. */
    private record RawLoss(long ringId, Loss loss, long offset) {
    }

    private static void readLosses(Cursor in, List<RawLoss> losses) throws SnapshotFormatException {
        long n = in.count(36);
        for (long i = 0; i < n; i++) {
            long at = in.offset();
            long ring = in.u64();
            int kind = (int) in.u32();
            long from = in.u64();
            long to = in.u64();
            long records = in.u64();
            if (from > to) {
                throw new SnapshotFormatException(at, "corrupt: SECTION_LOSSES entry " + i + " of ring "
                        + Long.toUnsignedString(ring) + " ends (" + to + ") before it begins (" + from + ")");
            }
            if (records <= 0) {
                throw new SnapshotFormatException(at, "corrupt: SECTION_LOSSES entry " + i + " of ring "
                        + Long.toUnsignedString(ring) + " has " + Long.toUnsignedString(records)
                        + " records (a loss misses at least 1)");
            }
            losses.add(new RawLoss(ring, new Loss(kind, from, to, records), at));
        }
    }

    /**
     * The rings with the losses of SECTION_LOSSES: each must name a ring of SECTION_THREADS, and
     * the losses of one ring come in time order without overlapping.
     */
    private static List<RecordedThread> attach(List<RecordedThread> threads, List<RawLoss> losses)
            throws SnapshotFormatException {
        Map<Long, List<Loss>> byRing = perRing(threads);
        for (RawLoss raw : losses) {
            List<Loss> ring = listOf(byRing, raw.ringId(), raw.offset(), "SECTION_LOSSES");
            if (!ring.isEmpty()) {
                Loss prev = ring.get(ring.size() - 1);
                Loss l = raw.loss();
                if (l.fromNs() < prev.toNs()) {
                    throw new SnapshotFormatException(raw.offset(), "corrupt: SECTION_LOSSES: a loss of ring "
                            + Long.toUnsignedString(raw.ringId()) + " from " + l.fromNs() + " to " + l.toNs()
                            + (l.toNs() <= prev.fromNs() ? " comes after" : " overlaps") + " its loss from "
                            + prev.fromNs() + " to " + prev.toNs() + " (a ring's losses are in time order and do not overlap)");
                }
            }
            ring.add(raw.loss());
        }
        List<RecordedThread> out = new ArrayList<>(threads.size());
        for (RecordedThread t : threads) {
            List<Loss> l = byRing.get(t.ringId());
            out.add(l.isEmpty() ? t : t.withLosses(l));
        }
        return out;
    }

    private static void readInfo(Cursor in, Map<String, String> info) throws SnapshotFormatException {
        long n = in.count(8);
        for (long i = 0; i < n; i++) {
            info.put(in.str(), in.str());
        }
    }

    private static void readThreads(Cursor in, List<RecordedThread> threads) throws SnapshotFormatException {
        long n = in.count(8 * 9 + 4 + 3 * 4 + 8);
        for (long i = 0; i < n; i++) {
            long ringId = in.u64();
            long javaId = in.u64();
            long threadObj = in.u64();
            int flags = (int) in.u32();
            long start = in.u64();
            long end = in.u64();
            long written = in.u64();
            long overwritten = in.u64();
            long dropped = in.u64();
            long torn = in.u64();
            String name = in.str();
            String group = in.str();
            String parent = in.str();
            int capacity = (int) in.u32();
            long count = in.count(RECORD_BYTES);
            int bytes = (int) count * RECORD_BYTES;
            ByteBuffer records = in.b.slice(in.pos, bytes);
            in.pos += bytes; // records are decoded when read (RecordedThread.events())
            threads.add(RecordedThread.ofRecords(ringId, javaId, threadObj, flags, start, end, written,
                    overwritten, dropped, torn, name, group, parent, capacity, records, (int) count));
        }
    }

    private static void readStacks(Cursor in, Map<Integer, StackTrace> stacks) throws SnapshotFormatException {
        long n = in.count(12);
        for (long i = 0; i < n; i++) {
            int id = (int) in.u32();
            long flags = in.u32();
            long depth = in.count(16);
            List<Frame> frames = new ArrayList<>((int) depth);
            for (long d = 0; d < depth; d++) {
                frames.add(new Frame(in.u64(), in.u64()));
            }
            stacks.put(id, new StackTrace(id, (flags & 1) != 0, frames));
        }
    }

    private static void readMethods(Cursor in, Map<Long, MethodInfo> methods) throws SnapshotFormatException {
        long n = in.count(28);
        for (long i = 0; i < n; i++) {
            long id = in.u64();
            long classId = in.u64();
            String name = in.str();
            String sig = in.str();
            long at = in.offset();
            int lineCount = (int) in.u32();
            if (lineCount < -1) {
                throw new SnapshotFormatException(at, "corrupt: " + in.what + " lineCount " + lineCount);
            }
            List<LineEntry> lines = new ArrayList<>();
            if (lineCount > 0) {
                in.need((long) lineCount * 12);
                for (int l = 0; l < lineCount; l++) {
                    lines.add(new LineEntry(in.u64(), (int) in.u32()));
                }
            }
            methods.put(id, new MethodInfo(id, classId, name, sig, lineCount >= 0, lines));
        }
    }

    private static void readClasses(Cursor in, Map<Long, ClassInfo> classes) throws SnapshotFormatException {
        long n = in.count(16);
        for (long i = 0; i < n; i++) {
            long id = in.u64();
            classes.put(id, new ClassInfo(id, in.str(), in.str()));
        }
    }

    private static void readObjects(Cursor in, Map<Long, ObjectInfo> objects) throws SnapshotFormatException {
        long n = in.count(24);
        for (long i = 0; i < n; i++) {
            long id = in.u64();
            int hash = (int) in.u32();
            int kind = (int) in.u32();
            objects.put(id, new ObjectInfo(id, hash, kind, in.u64()));
        }
    }

    private static void readMonitors(Cursor in, List<MonitorState> monitors) throws SnapshotFormatException {
        long n = in.count(32);
        for (long i = 0; i < n; i++) {
            long ring = in.u64();
            int state = (int) in.u32();
            long obj = in.u64();
            int hash = (int) in.u32();
            monitors.add(new MonitorState(ring, state, obj, hash, in.u64()));
        }
    }

    static String sectionName(int tag) {
        return switch (tag) {
            case SECTION_INFO -> "SECTION_INFO";
            case SECTION_THREADS -> "SECTION_THREADS";
            case SECTION_STACKS -> "SECTION_STACKS";
            case SECTION_METHODS -> "SECTION_METHODS";
            case SECTION_CLASSES -> "SECTION_CLASSES";
            case SECTION_OBJECTS -> "SECTION_OBJECTS";
            case SECTION_MONITORS -> "SECTION_MONITORS";
            case SECTION_LOSSES -> "SECTION_LOSSES";
            case SECTION_TOTALS -> "SECTION_TOTALS";
            case SECTION_RECORDS -> "SECTION_RECORDS";
            case SECTION_END -> "SECTION_END";
            default -> "section with unknown tag " + Integer.toUnsignedString(tag);
        };
    }

    /** Little-endian reads bounded by a section's end; errors carry absolute offsets. */
    private static final class Cursor {
        final ByteBuffer b;
        final int limit;
        final String what;
        int pos;

        Cursor(ByteBuffer b, int pos, int limit, String what) {
            this.b = b;
            this.pos = pos;
            this.limit = limit;
            this.what = what;
        }

        long offset() {
            return pos;
        }

        void need(long n) throws SnapshotFormatException {
            if (n < 0 || n > limit - pos) {
                throw new SnapshotFormatException(pos, "truncated: " + what + " ends at offset " + limit
                        + " but " + n + " more bytes are needed");
            }
        }

        /** A u32 element count, checked against the bytes left at {@code minBytesEach}. */
        long count(int minBytesEach) throws SnapshotFormatException {
            long at = pos;
            long n = u32();
            if (n * minBytesEach > limit - pos) {
                throw new SnapshotFormatException(at, "truncated: " + what + " announces " + n
                        + " entries but only " + (limit - pos) + " bytes follow");
            }
            return n;
        }

        int u8() throws SnapshotFormatException {
            need(1);
            return b.get(pos++) & 0xFF;
        }

        int u16() throws SnapshotFormatException {
            need(2);
            int v = b.getShort(pos) & 0xFFFF;
            pos += 2;
            return v;
        }

        long u32() throws SnapshotFormatException {
            need(4);
            long v = b.getInt(pos) & 0xFFFF_FFFFL;
            pos += 4;
            return v;
        }

        long u64() throws SnapshotFormatException {
            need(8);
            long v = b.getLong(pos);
            pos += 8;
            return v;
        }

        String str() throws SnapshotFormatException {
            long at = pos;
            long len = u32();
            if (len > limit - pos) {
                throw new SnapshotFormatException(at, "truncated: " + what + " string of " + len
                        + " bytes runs past offset " + limit);
            }
            byte[] bytes = new byte[(int) len];
            b.get(pos, bytes);
            String s = ModifiedUtf8.decode(bytes, 0, (int) len, pos);
            pos += (int) len;
            return s;
        }
    }
}
