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
}
