package dev.convoy.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.model.Event;
import dev.convoy.model.Loss;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.testing.RecordingBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RepositoryTest {

    @TempDir
    Path dir;

    /** A chunk from `first` to `last` s: thread 1 ("worker", renamed "worker-2" in chunk 3) waits each second. */
    private void chunk(long seq, long first, long last, String name) throws IOException {
        long s = 1_000_000_000L;
        RecordingBuilder b = new RecordingBuilder().info("start.monotonic.ns", Long.toString(first * s))
                .info("start.epoch.ns", Long.toString(1_700_000_000L * s + first * s))
                .info("snapshot.monotonic.ns", Long.toString(last * s))
                .info("chunk", "seq=" + seq + " first=" + first * s + " last=" + last * s);
        RecordingBuilder.ThreadBuilder t = b.thread(1, 10, 0, name).span(s, 0);
        for (long x = first; x <= last; x++) {
            t.event(x * s, SnapshotFormat.EVENT_SLEEP, 0, 0, 5);
        }
        Files.write(dir.resolve(String.format("chunk-%010d.cvysnap", seq)), b.toBytes());
    }

    @Test
    void chunksReadTogetherInOrderWithAMissingOneAsUnknownTime() throws Exception {
        chunk(2, 10, 14, "worker");
        chunk(3, 15, 19, "worker");
        chunk(5, 25, 29, "worker-2");
        Files.writeString(dir.resolve("chunk-0000000006.cvysnap.tmp"), "half written");
        Files.writeString(dir.resolve("notes.txt"), "not a chunk");
        Recording r = Repository.read(dir);
        assertEquals(1, r.threads().size());
        RecordedThread t = r.threads().get(0);
        assertEquals("worker-2", t.name(), "identity from the newest chunk");
        long s = 1_000_000_000L;
        List<Long> ts = t.events().stream().map(Event::ts).toList();
        assertEquals(15, ts.size());
        assertEquals(10 * s, (long) ts.get(0));
        assertEquals(29 * s, (long) ts.get(14));
        assertEquals(List.of(new Loss(SnapshotFormat.LOSS_AGED, 19 * s, 25 * s, 1)), t.losses(),
                "the missing chunk 4 is unknown time");
        assertEquals("4", r.info().get("repository.missing"));
        assertEquals("chunks=3 first=2 last=5", r.info().get("repository"));
        assertEquals(Long.toString(10 * s), r.info().get("history.from.ns"), "chunk 1 aged out before");
        assertEquals(Long.toString(10 * s), r.info().get("start.monotonic.ns"));
        assertEquals(Long.toString(29 * s), r.info().get("snapshot.monotonic.ns"));
        assertEquals(null, r.info().get("chunk"));
        assertEquals(t.events().size() + t.lostRecords(), t.written());
    }

    @Test
    void aFolderWithoutChunksOrWithACorruptOneIsRefusedNamingIt() throws Exception {
        assertTrue(assertThrows(IOException.class, () -> Repository.read(dir)).getMessage().contains("holds no chunk"));
        chunk(1, 1, 2, "w");
        Files.write(dir.resolve("chunk-0000000002.cvysnap"), new byte[] {'C', 'V', 'Y'});
        String e = assertThrows(SnapshotFormatException.class, () -> Repository.read(dir)).getMessage();
        assertTrue(e.contains("chunk-0000000002.cvysnap"), e);
    }

    /** A chunk of the recorder as it writes them: INFO chunk.prior and chunk.recording.start.ns. */
    private RecordingBuilder chunkOf(long seq, long first, long last, String priors) {
        long s = 1_000_000_000L;
        return new RecordingBuilder().info("start.monotonic.ns", Long.toString(first * s))
                .info("start.epoch.ns", Long.toString(1_700_000_000L * s + first * s))
                .info("snapshot.monotonic.ns", Long.toString(last * s))
                .info("chunk", "seq=" + seq + " first=" + first * s + " last=" + last * s)
                .info("chunk.recording.start.ns", Long.toString(s)).info("chunk.prior", priors);
    }

    private static void sleeps(RecordingBuilder.ThreadBuilder t, long... seconds) {
        for (long x : seconds) {
            t.event(x * 1_000_000_000L, SnapshotFormat.EVENT_SLEEP, 0, 0, 5);
        }
    }

    private void save(long seq, RecordingBuilder b) throws IOException {
        Files.write(dir.resolve(String.format("chunk-%010d.cvysnap", seq)), b.toBytes());
    }

    @Test
    void recordsOfChunksAgedOutOrMissingAreCountedExactlyPerThreadAndTimeRange() throws Exception {
        long s = 1_000_000_000L;
        // chunks 1 and 2 aged out (they held 40 of worker's records), 5 is missing (7 of worker's, 2 of late's)
        RecordingBuilder c3 = chunkOf(3, 10, 14, "1=40");
        sleeps(c3.thread(1, 10, 0, "worker").span(s, 0), 10, 11, 12, 13, 14);
        save(3, c3);
        RecordingBuilder c4 = chunkOf(4, 15, 19, "1=45,2=0");
        sleeps(c4.thread(1, 10, 0, "worker").span(s, 0).loss(SnapshotFormat.LOSS_OVERWRITTEN, 16 * s, 17 * s, 3),
                15, 16, 17, 18, 19);
        sleeps(c4.thread(2, 11, 0, "late").span(12 * s, 0), 15, 16);
        save(4, c4);
        RecordingBuilder c6 = chunkOf(6, 25, 29, "1=60,2=4,3=100");
        sleeps(c6.thread(1, 10, 0, "worker").span(s, 0), 25, 26, 27, 28, 29);
        sleeps(c6.thread(2, 11, 0, "late").span(12 * s, 0), 27, 28);
        sleeps(c6.thread(3, 12, 0, "main").flags(SnapshotFormat.RING_LATE).span(s / 5, 0), 26, 27);
        save(6, c6);

        Recording r = Repository.read(dir);
        RecordedThread worker = r.threads().stream().filter(t -> t.ringId() == 1).findFirst().orElseThrow();
        assertEquals(List.of(new Loss(SnapshotFormat.LOSS_AGED, s, 10 * s, 40),
                new Loss(SnapshotFormat.LOSS_OVERWRITTEN, 16 * s, 17 * s, 3),
                new Loss(SnapshotFormat.LOSS_AGED, 19 * s, 25 * s, 7)), worker.losses(),
                "the aged front from the thread's start, the missing chunk from its newest record before");
        assertEquals(65, worker.written());
        assertEquals(50, worker.lostRecords());
        RecordedThread late = r.threads().stream().filter(t -> t.ringId() == 2).findFirst().orElseThrow();
        assertEquals(List.of(new Loss(SnapshotFormat.LOSS_AGED, 16 * s, 27 * s, 2)), late.losses(),
                "started after chunk 2: nothing aged in front of it");
        assertEquals(6, late.written());
        RecordedThread main = r.threads().stream().filter(t -> t.ringId() == 3).findFirst().orElseThrow();
        assertEquals(List.of(new Loss(SnapshotFormat.LOSS_AGED, s, 26 * s, 100)), main.losses(),
                "a thread older than the recording: from the recording's start");
        assertEquals(102, main.written());
        assertEquals("149", r.info().get("records.aged"));
        assertEquals("3", r.info().get("records.overwritten"));
        assertEquals("173", r.info().get("records.written"));
        assertEquals(Long.toString(s), r.info().get("start.monotonic.ns"), "the recording's start, not the oldest chunk's");
        assertEquals(Long.toString(10 * s), r.info().get("history.from.ns"));
        assertEquals("5", r.info().get("repository.missing"));
        assertEquals(null, r.info().get("chunk.prior"));
    }

    @Test
    void recordsOfThreadsNoLongerInTheFolderAreCountedFromTheChunksTotals() throws Exception {
        long s = 1_000_000_000L;
        // Ring 9 held 30 records in chunks 1 and 2 (aged out) and 4 in chunk 5 (missing), none in a kept chunk.
        RecordingBuilder c3 = chunkOf(3, 10, 14, "1=40").info("chunk.prior.total", "70");
        sleeps(c3.thread(1, 10, 0, "worker").span(s, 0), 10, 11, 12, 13, 14);
        save(3, c3);
        RecordingBuilder c4 = chunkOf(4, 15, 19, "1=45").info("chunk.prior.total", "75");
        sleeps(c4.thread(1, 10, 0, "worker").span(s, 0), 15, 16, 17, 18, 19);
        save(4, c4);
        RecordingBuilder c6 = chunkOf(6, 25, 29, "1=57").info("chunk.prior.total", "91");
        sleeps(c6.thread(1, 10, 0, "worker").span(s, 0), 25, 26, 27, 28, 29);
        save(6, c6);

        Recording r = Repository.read(dir);
        assertEquals(1, r.threads().size(), "ring 9 has no record left");
        assertEquals(47, r.threads().get(0).lostRecords(), "the worker's own: 40 in front, 7 in chunk 5");
        assertEquals(81, r.recordsAged(), "70 before chunk 3, and chunk 5's 11 (91 - 75 - 5)");
        assertEquals("81", r.info().get("records.aged"));
        assertEquals("96", r.info().get("records.written"), "the worker's 62 and ring 9's 34");
        assertTrue(r.lossSummary().contains("81 aged out of the history"), r.lossSummary());
        assertEquals(null, r.info().get("chunk.prior.total"));

        // Chunks written before chunk.prior.total existed: the threads' own losses only.
        RecordingBuilder old = chunkOf(3, 10, 14, "1=40");
        sleeps(old.thread(1, 10, 0, "worker").span(s, 0), 10, 11, 12, 13, 14);
        save(3, old);
        assertEquals(47, Repository.read(dir).recordsAged());
    }
}
