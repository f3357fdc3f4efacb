package dev.convoy.snapshot;

import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.Loss;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.RecordingBuilder;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotReaderTest {

    final byte[] bytes = Fixtures.all().toBytes();

    @Test
    void readsEveryFactBack() throws Exception {
        Recording r = SnapshotReader.read(bytes);
        assertEquals(1, r.versionMajor());
        assertEquals(SnapshotFormat.VERSION_MINOR, r.versionMinor());
        assertEquals("4242", r.info().get("pid"));
        assertEquals("com.example.Main", r.mainClass());
        assertEquals(8, r.threads().size());
        assertEquals(7, r.javaThreads().size());

        RecordedThread waiter = r.threadByRingId(R_WAITER).orElseThrow();
        assertEquals(ODD_NAME, waiter.name(), "modified UTF-8 with NUL and a surrogate pair");
        assertEquals("workers, all", waiter.group());
        assertEquals("main", waiter.parentGroup());
        assertEquals(13, waiter.javaThreadId());
        assertEquals(O_WAITER, waiter.threadObject());
        assertEquals(5, waiter.events().size());
        Event waited = waiter.events().get(4);
        assertEquals(EventType.MONITOR_WAITED, waited.type());
        assertTrue(waited.timedOut());
        assertFalse(waiter.events().get(2).timedOut());
        assertEquals(50, waiter.events().get(3).arg());
        assertSame(waiter, waited.thread());

        RecordedThread victim = r.threadByRingId(R_VICTIM).orElseThrow();
        assertEquals(10, victim.written());
        assertEquals(5, victim.overwritten());
        assertEquals(2, victim.dropped());
        assertEquals(1, victim.torn());
        assertEquals(5, victim.capacity());
        assertTrue(victim.isLate());
        Event unknown = victim.events().get(3);
        assertEquals(EventType.UNKNOWN, unknown.type());
        assertEquals(40, unknown.rawType());
        assertEquals(1234, unknown.arg());
        assertEquals(5678, unknown.arg2());

        RecordedThread gc = r.threadByRingId(R_GC).orElseThrow();
        assertTrue(gc.isSystem());
        assertEquals(-1, gc.javaThreadId());
        assertTrue(r.threadByRingId(R_H1).orElseThrow().isEnded());
        assertEquals(t(5000), r.threadByRingId(R_H1).orElseThrow().endNs());
        assertTrue(r.threadByRingId(424242).isEmpty());

        assertEquals(List.of(new MonitorState(R_MAIN, SnapshotFormat.MSTATE_BLOCKED, M2, 0xAAAA0002, 12),
                new MonitorState(R_W1, SnapshotFormat.MSTATE_BLOCKED, M1, 0xAAAA0001, 1)), r.monitors());

        MethodInfo run = r.methods().get(M_RUN);
        assertEquals(10, run.lineFor(0));
        assertEquals(11, run.lineFor(7));
        assertEquals(14, run.lineFor(100));
        assertEquals(-1, run.lineFor(-1));
        MethodInfo wait = r.methods().get(M_WAIT);
        assertFalse(wait.hasLineTable());
        assertEquals(-1, wait.lineFor(3));
        assertTrue(r.stacks().get(S_INIT).truncated());
        assertFalse(r.stacks().get(S_RUN).truncated());

        assertEquals("java.lang.Object", r.classes().get(C_OBJECT).dottedName());
        assertEquals("int[][]", dev.convoy.model.ClassInfo.dotted("[[I"));
        assertEquals("java.lang.String[]", dev.convoy.model.ClassInfo.dotted("[Ljava/lang/String;"));
        assertEquals("com.example.Lock", r.objectClassName(M2));
        assertEquals(0xAAAA0002, r.identityHash(M2));
        assertEquals("com.example.Worker.run(Worker, Inc.java:11)", r.describe(new dev.convoy.model.Frame(M_RUN, 5)));
        assertEquals("java.lang.Object.wait(Native Method)", r.describe(new dev.convoy.model.Frame(M_WAIT, -1)));
        assertEquals("com.example.Lock", r.objectClassName(M4));

        assertEquals(EPOCH0 + 1_500_000, r.toEpochNs(t(1500)));
        assertEquals(T0, r.startMonotonicNs());
        assertEquals(SNAP, r.snapshotMonotonicNs());

        List<Event> merged = r.events();
        assertEquals(r.threads().stream().mapToInt(th -> th.events().size()).sum(), merged.size());
        for (int i = 1; i < merged.size(); i++) {
            assertTrue(merged.get(i - 1).ts() <= merged.get(i).ts(), "merged events sorted at " + i);
        }
    }

    @Test
    void writerRoundTripsByteForByte() throws Exception {
        assertArrayEquals(bytes, SnapshotWriter.write(SnapshotReader.read(bytes)));
    }

    @Test
    void readsFromPathAndStream(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("s.cvysnap");
        Files.write(f, bytes);
        assertEquals(8, SnapshotReader.read(f).threads().size());
        assertEquals(8, SnapshotReader.read(new ByteArrayInputStream(bytes)).threads().size());
    }

    @Test
    void stringsAreModifiedUtf8() {
        byte[] enc = ModifiedUtf8.encode("a\u0000\uD83D\uDE00");
        assertArrayEquals(new byte[] {'a', (byte) 0xC0, (byte) 0x80, (byte) 0xED, (byte) 0xA0, (byte) 0xBD,
                (byte) 0xED, (byte) 0xB8, (byte) 0x80}, enc);
    }

    @Test
    void skipsUnknownSectionsAndAcceptsNewerMinor() throws Exception {
        byte[] b = Fixtures.all().version(1, 7).rawSection(42, new byte[] {1, 2, 3}).toBytes();
        Recording r = SnapshotReader.read(b);
        assertEquals(7, r.versionMinor());
        assertEquals(8, r.threads().size());
    }

    @Test
    void rejectsBadMagic() {
        byte[] b = bytes.clone();
        b[2] = 'X';
        SnapshotFormatException e = assertThrows(SnapshotFormatException.class, () -> SnapshotReader.read(b));
        assertEquals(0, e.offset());
        assertTrue(e.getMessage().startsWith("offset 0: bad magic"), e.getMessage());
    }

    @Test
    void rejectsUnknownMajorVersion() {
        byte[] b = Fixtures.all().version(2, 0).toBytes();
        SnapshotFormatException e = assertThrows(SnapshotFormatException.class, () -> SnapshotReader.read(b));
        assertEquals(8, e.offset());
        assertTrue(e.getMessage().contains("offset 8: unknown major version 2.0"), e.getMessage());
    }

    @Test
    void rejectsFlippedPayloadByteByCrc() throws Exception {
        List<long[]> sections = sections(bytes);
        long[] threads = sections.stream().filter(s -> s[1] == SnapshotFormat.SECTION_THREADS).findFirst().orElseThrow();
        byte[] b = bytes.clone();
        b[(int) threads[0] + SnapshotFormat.SECTION_HEADER_BYTES + 30] ^= 0x10;
        SnapshotFormatException e = assertThrows(SnapshotFormatException.class, () -> SnapshotReader.read(b));
        assertEquals(threads[0], e.offset());
        assertTrue(e.getMessage().startsWith("offset " + threads[0] + ": corrupt: SECTION_THREADS CRC32 mismatch"),
                e.getMessage());
    }

    @Test
    void rejectsTruncationAnywhere() {
        List<long[]> sections = sections(bytes);
        long[] info = sections.stream().filter(s -> s[1] == SnapshotFormat.SECTION_INFO).findFirst().orElseThrow();
        long[] end = sections.get(sections.size() - 1);
        assertEquals(SnapshotFormat.SECTION_END, end[1]);

        SnapshotFormatException header = assertThrows(SnapshotFormatException.class,
                () -> SnapshotReader.read(java.util.Arrays.copyOf(bytes, 10)));
        assertEquals(10, header.offset());
        assertTrue(header.getMessage().contains("truncated: file header"), header.getMessage());

        int cut = (int) info[0] + SnapshotFormat.SECTION_HEADER_BYTES + 5; // inside the INFO payload
        SnapshotFormatException mid = assertThrows(SnapshotFormatException.class,
                () -> SnapshotReader.read(java.util.Arrays.copyOf(bytes, cut)));
        assertEquals(info[0], mid.offset());
        assertTrue(mid.getMessage().contains("SECTION_INFO length") && mid.getMessage().contains("past the end"),
                mid.getMessage());

        SnapshotFormatException noEnd = assertThrows(SnapshotFormatException.class,
                () -> SnapshotReader.read(java.util.Arrays.copyOf(bytes, (int) end[0])));
        assertEquals(end[0], noEnd.offset());
        assertTrue(noEnd.getMessage().contains("ends before the END section"), noEnd.getMessage());

        SnapshotFormatException halfHeader = assertThrows(SnapshotFormatException.class,
                () -> SnapshotReader.read(java.util.Arrays.copyOf(bytes, (int) end[0] + 3)));
        assertEquals(end[0], halfHeader.offset());
        assertTrue(halfHeader.getMessage().contains("truncated: section header"), halfHeader.getMessage());
    }

    @Test
    void rejectsCountsLargerThanThePayload() {
        // A THREADS section whose CRC is right but whose count promises more than it holds.
        byte[] payload = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(1000).array();
        byte[] b = new RecordingBuilder().rawSection(SnapshotFormat.SECTION_THREADS, payload).toBytes();
        // the builder always writes its own (empty) THREADS section first: the raw one is a duplicate
        SnapshotFormatException dup = assertThrows(SnapshotFormatException.class, () -> SnapshotReader.read(b));
        assertTrue(dup.getMessage().contains("SECTION_THREADS appears twice"), dup.getMessage());

        byte[] raw = new RecordingBuilder().toBytes();
        List<long[]> s = sections(raw);
        long threadsAt = s.stream().filter(x -> x[1] == SnapshotFormat.SECTION_THREADS).findFirst().orElseThrow()[0];
        byte[] patched = replaceSection(raw, threadsAt, payload);
        SnapshotFormatException e = assertThrows(SnapshotFormatException.class, () -> SnapshotReader.read(patched));
        assertEquals(threadsAt + SnapshotFormat.SECTION_HEADER_BYTES, e.offset());
        assertTrue(e.getMessage().contains("announces 1000 entries"), e.getMessage());
    }

    @Test
    void readsLossesPerRing() throws Exception {
        byte[] b = Fixtures.losses(Fixtures.base()).toBytes();
        Recording r = SnapshotReader.read(b);
        RecordedThread early = r.threadByRingId(R_LE).orElseThrow();
        assertEquals(List.of(new Loss(SnapshotFormat.LOSS_AGED, t(10), t(200), 100),
                new Loss(SnapshotFormat.LOSS_OVERWRITTEN, t(200), t(400), 200)), early.losses());
        assertEquals(t(400), early.completeFromNs());
        assertEquals(300, early.lostRecords());
        assertEquals(300, early.overwritten(), "overwritten is the sum of the ring's losses' records");
        RecordedThread notifier = r.threadByRingId(R_LN).orElseThrow();
        assertEquals(List.of(new Loss(SnapshotFormat.LOSS_OVERWRITTEN, t(150), t(350), 500)), notifier.losses());
        assertEquals(t(350), notifier.completeFromNs());
        assertNotNull(notifier.lossAt(t(200)));
        assertNull(notifier.lossAt(t(150)), "the record at fromNs is kept");
        RecordedThread waiter = r.threadByRingId(R_LW).orElseThrow();
        assertTrue(waiter.losses().isEmpty());
        assertEquals(waiter.startNs(), waiter.completeFromNs());
        assertThrows(UnsupportedOperationException.class, () -> early.losses().add(new Loss(1, 0, 1, 1)));

        assertEquals(700, r.recordsOverwritten());
        assertEquals(100, r.recordsAged());
        assertEquals(800, r.recordsLost());
        assertEquals(1500, r.recordsWritten());
        assertEquals(t(200), r.historyFromNs());
        assertTrue(r.hasLosses());
        assertTrue(r.anyLossOverlaps(t(100), t(300)));
        assertTrue(r.anyLossOverlaps(t(300), t(100)), "either order");
        assertFalse(r.anyLossOverlaps(t(400), t(500)), "touching the end of a loss is no overlap");
        assertFalse(r.anyLossOverlaps(t(0), t(10)));
        assertEquals(3, r.losses().size());

        assertArrayEquals(b, SnapshotWriter.write(r), "the writer writes SECTION_LOSSES back");
        assertFalse(SnapshotReader.read(Fixtures.contention(Fixtures.base()).toBytes()).hasLosses());
    }

    @Test
    void rejectsLossesThatContradictTheThreads() {
        byte[] raw = Fixtures.losses(Fixtures.base()).toBytes();
        long at = sections(raw).stream().filter(x -> x[1] == SnapshotFormat.SECTION_LOSSES).findFirst().orElseThrow()[0];
        long entry = at + SnapshotFormat.SECTION_HEADER_BYTES + 4;
        record Case(String reason, long[][] entries) {
        }
        List<Case> cases = List.of(
                new Case("names ring 4242, which SECTION_THREADS does not list",
                        new long[][] {{R_LW, 1, t(1), t(2), 1}, {4242, 1, t(1), t(2), 3}}),
                new Case("ends (" + t(1) + ") before it begins (" + t(2) + ")", new long[][] {{R_LW, 1, t(2), t(1), 1}}),
                new Case("has 0 records", new long[][] {{R_LW, 1, t(1), t(2), 0}}),
                new Case("has 18446744073709551615 records", new long[][] {{R_LW, 1, t(1), t(2), -1}}),
                new Case("overlaps its loss from " + t(1) + " to " + t(5),
                        new long[][] {{R_LW, 1, t(1), t(5), 1}, {R_LW, 2, t(4), t(9), 1}}),
                new Case("comes after its loss from " + t(6) + " to " + t(9),
                        new long[][] {{R_LW, 1, t(6), t(9), 1}, {R_LW, 2, t(1), t(2), 1}}));
        for (Case c : cases) {
            ByteBuffer p = ByteBuffer.allocate(4 + 36 * c.entries().length).order(ByteOrder.LITTLE_ENDIAN);
            p.putInt(c.entries().length);
            for (long[] e : c.entries()) {
                p.putLong(e[0]).putInt((int) e[1]).putLong(e[2]).putLong(e[3]).putLong(e[4]);
            }
            byte[] b = replaceSection(raw, at, p.array());
            SnapshotFormatException e = assertThrows(SnapshotFormatException.class, () -> SnapshotReader.read(b),
                    c.reason());
            assertTrue(e.getMessage().contains("corrupt: SECTION_LOSSES") && e.getMessage().contains(c.reason()),
                    e.getMessage());
            assertEquals(entry + 36L * (c.entries().length - 1), e.offset(), c.reason());
        }
        // the same ring's losses touching (a kept record between them) and another ring's overlapping: fine
        ByteBuffer p = ByteBuffer.allocate(4 + 36 * 3).order(ByteOrder.LITTLE_ENDIAN).putInt(3);
        p.putLong(R_LW).putInt(1).putLong(t(1)).putLong(t(5)).putLong(2);
        p.putLong(R_LW).putInt(7).putLong(t(5)).putLong(t(9)).putLong(1);
        p.putLong(R_LN).putInt(2).putLong(t(2)).putLong(t(8)).putLong(3);
        Recording r = assertDoesNotThrow(() -> SnapshotReader.read(replaceSection(raw, at, p.array())));
        RecordedThread w = r.threadByRingId(R_LW).orElseThrow();
        assertEquals(2, w.losses().size());
        assertEquals("kind 7", w.losses().get(1).kindName(), "a kind this reader does not know is still a loss");
        // a count larger than the payload
        byte[] big = ByteBuffer.allocate(4 + 36).order(ByteOrder.LITTLE_ENDIAN).putInt(2)
                .putLong(R_LW).putInt(1).putLong(t(1)).putLong(t(2)).putLong(1).array();
        SnapshotFormatException e = assertThrows(SnapshotFormatException.class,
                () -> SnapshotReader.read(replaceSection(raw, at, big)));
        assertTrue(e.getMessage().contains("SECTION_LOSSES announces 2 entries"), e.getMessage());
        // twice
        SnapshotFormatException twice = assertThrows(SnapshotFormatException.class,
                () -> SnapshotReader.read(Fixtures.losses(Fixtures.base()).rawSection(SnapshotFormat.SECTION_LOSSES,
                        new byte[4]).toBytes()));
        assertTrue(twice.getMessage().contains("SECTION_LOSSES appears twice"), twice.getMessage());
    }

    @Test
    void synthesizesTheLossesOfAFileBefore15() throws Exception {
        RecordingBuilder b = Fixtures.all().version(1, 4);
        b.thread(77, 77, 0, "empty").span(t(3000), 0).counters(9, 9, 0, 0);
        b.thread(78, 78, 0, "complete").span(t(3000), 0).event(t(3100), SnapshotFormat.EVENT_THREAD_START, 0, 0, 78);
        byte[] bytes = b.toBytes();
        long at = sections(bytes).stream().filter(x -> x[1] == SnapshotFormat.SECTION_LOSSES).findFirst().orElseThrow()[0];
        byte[] old = removeSection(bytes, at); // a file of 1.4 has no SECTION_LOSSES
        assertTrue(sections(old).stream().noneMatch(x -> x[1] == SnapshotFormat.SECTION_LOSSES));
        Recording r = SnapshotReader.read(old);
        assertEquals(4, r.versionMinor());
        RecordedThread victim = r.threadByRingId(R_VICTIM).orElseThrow();
        assertTrue(victim.isLate());
        assertEquals(List.of(new Loss(SnapshotFormat.LOSS_OVERWRITTEN, T0, t(200), 5)), victim.losses(),
                "a ring met late: from start.monotonic.ns to its first record kept");
        assertEquals(t(200), victim.completeFromNs());
        assertEquals(List.of(new Loss(SnapshotFormat.LOSS_OVERWRITTEN, t(3000), SNAP, 9)),
                r.threadByRingId(77).orElseThrow().losses(), "from its start to the snapshot: no record kept");
        assertTrue(r.threadByRingId(78).orElseThrow().losses().isEmpty());
        assertTrue(r.threadByRingId(R_MAIN).orElseThrow().losses().isEmpty());
        assertEquals(14, r.recordsOverwritten(), "no INFO records.overwritten: the sum of the losses");
        assertEquals(0, r.recordsAged());
        // the same recording made in memory, or read from 1.5 bytes, has the same losses
        assertEquals(victim.losses(), b.build().threadByRingId(R_VICTIM).orElseThrow().losses());
        assertEquals(victim.losses(), SnapshotReader.read(bytes).threadByRingId(R_VICTIM).orElseThrow().losses());
    }

    /** A packed record of SECTION_RECORDS (schema/snapshot-format.md), written here from the spec. */
    private static void packRecord(java.io.ByteArrayOutputStream out, RecordedThread t, int i, long prevTs, long prevObj) {
        varint(out, zigzag(t.ts(i) - prevTs));
        out.write(t.rawType(i));
        out.write(t.flags(i));
        varint(out, (long) t.aux(i) | (t.stackId(i) & 0xFFFF_FFFFL) << 16);
        varint(out, zigzag(t.obj(i) - prevObj));
        varint(out, zigzag(t.arg(i)));
        varint(out, zigzag(t.arg2(i)));
    }

    private static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    private static void varint(java.io.ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) (v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write((int) v);
    }

    /** SECTION_RECORDS' payload: per run {ring, first record, end}, each run the ring's records from first to end. */
    private static byte[] packedRuns(Recording r, long[][] runs) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        ByteBuffer n = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(runs.length);
        out.writeBytes(n.array());
        for (long[] run : runs) {
            RecordedThread t = r.threadByRingId(run[0]).orElseThrow();
            java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
            for (int i = (int) run[1]; i < run[2]; i++) {
                packRecord(body, t, i, i == run[1] ? 0 : t.ts(i - 1), i == run[1] ? 0 : t.obj(i - 1));
            }
            out.writeBytes(ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(run[0])
                    .putInt((int) (run[2] - run[1])).putInt(body.size()).array());
            out.writeBytes(body.toByteArray());
        }
        return out.toByteArray();
    }

    @Test
    void packedRecordsFollowTheRingsOwnInTheirRunsOrder() throws Exception {
        Recording r = SnapshotReader.read(Fixtures.contention(Fixtures.base()).toBytes());
        RecordedThread t = r.threads().stream().filter(x -> x.eventCount() >= 3).findFirst().orElseThrow();
        int n = t.eventCount();
        // The ring's records again, packed in two runs, and once more in a third after another ring's run.
        RecordedThread other = r.threads().stream().filter(x -> x != t && x.eventCount() > 0).findFirst().orElseThrow();
        byte[] packed = packedRuns(r, new long[][] {{t.ringId(), 0, 2}, {t.ringId(), 2, n},
                {other.ringId(), 0, other.eventCount()}, {t.ringId(), 0, n}});
        Recording p = SnapshotReader.read(Fixtures.contention(Fixtures.base())
                .rawSection(SnapshotFormat.SECTION_RECORDS, packed).toBytes());
        RecordedThread pt = p.threadByRingId(t.ringId()).orElseThrow();
        assertEquals(3 * n, pt.eventCount());
        for (int i = 0; i < 3 * n; i++) {
            int k = i % n;
            assertEquals(t.ts(k), pt.ts(i), "ts of " + i);
            assertEquals(t.rawType(k), pt.rawType(i));
            assertEquals(t.flags(k), pt.flags(i));
            assertEquals(t.aux(k), pt.aux(i));
            assertEquals(t.stackId(k), pt.stackId(i));
            assertEquals(t.obj(k), pt.obj(i));
            assertEquals(t.arg(k), pt.arg(i));
            assertEquals(t.arg2(k), pt.arg2(i));
        }
        assertEquals(2 * other.eventCount(), p.threadByRingId(other.ringId()).orElseThrow().eventCount());
        assertEquals(t.written(), pt.written(), "the counters are the THREADS entry's");
        assertEquals(t.name(), pt.name());
    }

    @Test
    void rejectsPackedRunsThatContradictTheThreadsOrTheirBytes() {
        RecordingBuilder base = Fixtures.contention(Fixtures.base());
        Recording r = assertDoesNotThrow(() -> SnapshotReader.read(base.toBytes()));
        RecordedThread t = r.threads().stream().filter(x -> x.eventCount() >= 2).findFirst().orElseThrow();
        byte[] good = packedRuns(r, new long[][] {{t.ringId(), 0, 2}});
        int bodyLength = ByteBuffer.wrap(good, 16, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        record Case(String reason, byte[] payload) {
        }
        byte[] unknownRing = good.clone();
        ByteBuffer.wrap(unknownRing).order(ByteOrder.LITTLE_ENDIAN).putLong(4, 4242);
        byte[] noRecords = good.clone();
        ByteBuffer.wrap(noRecords).order(ByteOrder.LITTLE_ENDIAN).putInt(12, 0);
        byte[] oneTooFew = good.clone();
        ByteBuffer.wrap(oneTooFew).order(ByteOrder.LITTLE_ENDIAN).putInt(12, 1);
        byte[] cutVarint = good.clone();
        cutVarint[cutVarint.length - 1] |= (byte) 0x80; // the last varint never ends
        byte[] longer = java.util.Arrays.copyOf(good, good.length + 1);
        ByteBuffer.wrap(longer).order(ByteOrder.LITTLE_ENDIAN).putInt(16, bodyLength + 1);
        List<Case> cases = List.of(
                new Case("names ring 4242, which SECTION_THREADS does not list", unknownRing),
                new Case("has 0 records", noRecords),
                new Case("bytes after its 1 records", oneTooFew),
                new Case("ends inside a varint", cutVarint),
                new Case("has 1 bytes after its 2 records", longer));
        for (Case c : cases) {
            SnapshotFormatException e = assertThrows(SnapshotFormatException.class,
                    () -> SnapshotReader.read(Fixtures.contention(Fixtures.base())
                            .rawSection(SnapshotFormat.SECTION_RECORDS, c.payload()).toBytes()), c.reason());
            assertTrue(e.getMessage().contains("corrupt: SECTION_RECORDS") && e.getMessage().contains(c.reason()),
                    e.getMessage());
        }
        byte[] huge = good.clone();
        ByteBuffer.wrap(huge).order(ByteOrder.LITTLE_ENDIAN).putInt(12, Integer.MAX_VALUE);
        SnapshotFormatException e = assertThrows(SnapshotFormatException.class,
                () -> SnapshotReader.read(Fixtures.contention(Fixtures.base())
                        .rawSection(SnapshotFormat.SECTION_RECORDS, huge).toBytes()));
        assertTrue(e.getMessage().contains("2147483647 records in " + bodyLength + " bytes"), e.getMessage());
    }

    /** Removes the section at {@code at}. */
    static byte[] removeSection(byte[] b, long at) {
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int len = (int) bb.getLong((int) at + 8);
        int rest = (int) at + SnapshotFormat.SECTION_HEADER_BYTES + len;
        byte[] out = new byte[b.length - (rest - (int) at)];
        System.arraycopy(b, 0, out, 0, (int) at);
        System.arraycopy(b, rest, out, (int) at, b.length - rest);
        return out;
    }

    /** (offset, tag, length) of each section. */
    static List<long[]> sections(byte[] b) {
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        List<long[]> out = new ArrayList<>();
        int pos = SnapshotFormat.HEADER_BYTES;
        while (pos < b.length) {
            int tag = bb.getInt(pos);
            long len = bb.getLong(pos + 8);
            out.add(new long[] {pos, tag, len});
            pos += SnapshotFormat.SECTION_HEADER_BYTES + (int) len;
        }
        return out;
    }

    /** Replaces the payload of the section at {@code at}, with a correct CRC. */
    static byte[] replaceSection(byte[] b, long at, byte[] payload) {
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int len = (int) bb.getLong((int) at + 8);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(payload);
        ByteBuffer out = ByteBuffer.allocate(b.length - len + payload.length).order(ByteOrder.LITTLE_ENDIAN);
        out.put(b, 0, (int) at);
        out.putInt(bb.getInt((int) at)).putInt((int) crc.getValue()).putLong(payload.length).put(payload);
        int rest = (int) at + SnapshotFormat.SECTION_HEADER_BYTES + len;
        out.put(b, rest, b.length - rest);
        return out.array();
    }

    @Test
    void aFileTruncatedOrReplacedAfterItWasReadLeavesTheRecordingWhole(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("s.cvysnap");
        java.nio.file.Files.write(f, bytes);
        dev.convoy.model.Recording r = SnapshotReader.read(f);
        long events = r.events().size();
        // A mapping of the file itself would fault (SIGBUS) on the pages cut off here.
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(f,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }
        long ts = 0;
        for (dev.convoy.model.RecordedThread t : r.threads()) {
            for (int i = 0; i < t.eventCount(); i++) {
                ts += t.ts(i);
            }
        }
        assertTrue(ts != 0);
        assertEquals(events, r.events().size());
        java.nio.file.Files.write(f, new byte[] {1, 2, 3});
        assertEquals(events, r.events().size(), "replaced: the recording reads its own copy");
        try (java.util.stream.Stream<Path> s = java.nio.file.Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().startsWith("convoy-read-")
                    && java.nio.file.Files.exists(p.resolve("snapshot"))), "the private copy is gone from the disk");
        }
    }
}
