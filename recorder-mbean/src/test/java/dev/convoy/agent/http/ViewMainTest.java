package dev.convoy.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.convoy.testing.RecordingBuilder;

/**
 * What {@code ./convoy view} reads: a snapshot file or a repository folder, whole, or one line and
 * exit code 1 for a file that is not a snapshot, changed while it was read or is not there (as
 * {@code convert} and {@code report}).
 */
class ViewMainTest {

    @TempDir
    Path dir;

    private static ViewMain.Args args(Path p) {
        return ViewMain.Args.parse(p.toString());
    }

    @Test
    void aTruncatedFileIsOneLineAndExit1() throws Exception {
        byte[] whole = WebServerTest.snapshot();
        Path cut = dir.resolve("cut.cvysnap");
        Files.write(cut, Arrays.copyOf(whole, whole.length / 2));
        ViewMain.Failure f = assertThrows(ViewMain.Failure.class, () -> ViewMain.source(args(cut)));
        assertEquals(1, f.code);
        assertTrue(f.getMessage().startsWith(cut + ": "), f.getMessage());
        assertEquals(1, f.getMessage().lines().count(), f.getMessage());
        ViewMain.Failure missing = assertThrows(ViewMain.Failure.class,
                () -> ViewMain.source(args(dir.resolve("absent.cvysnap"))));
        assertEquals(1, missing.code);
        ViewMain.Failure empty = assertThrows(ViewMain.Failure.class, () -> ViewMain.source(args(dir)));
        assertEquals(1, empty.code, "a folder without chunks");
    }

    @Test
    void aRepositoryFolderIsViewedAsOneRecording() throws Exception {
        long s = 1_000_000_000L;
        for (int seq = 1; seq <= 2; seq++) {
            long first = seq * 10L;
            RecordingBuilder b = new RecordingBuilder().info("start.monotonic.ns", Long.toString(first * s))
                    .info("start.epoch.ns", Long.toString(1_700_000_000L * s + first * s))
                    .info("snapshot.monotonic.ns", Long.toString((first + 4) * s))
                    .info("chunk", "seq=" + seq + " first=" + first * s + " last=" + (first + 4) * s);
            RecordingBuilder.ThreadBuilder t = b.thread(1, 10, 0, "worker").span(s, 0);
            for (long x = first; x <= first + 4; x++) {
                t.event(x * s, dev.convoy.snapshot.SnapshotFormat.EVENT_SLEEP, 0, 0, 5);
            }
            Files.write(dir.resolve(String.format("chunk-%010d.cvysnap", seq)), b.toBytes());
        }
        FileSource source = ViewMain.source(args(dir));
        assertEquals(10, source.takeSnapshot().threads().get(0).events().size(), "both chunks' records");
    }

    /** The file cut and rewritten over and over while the view reads it: whole, or one line and exit 1. */
    @Test
    void aFileThatChangesWhileItIsReadIsWholeOrOneLine() throws Exception {
        RecordingBuilder b = WebServerTest.builder();
        RecordingBuilder.ThreadBuilder t = b.thread(900, 90, 0, "mover").span(WebServerTest.T0, 0);
        for (int i = 0; i < 100_000; i++) {
            t.event(WebServerTest.T0 + 2L * i, dev.convoy.snapshot.SnapshotFormat.EVENT_SLEEP, 0, 0, 1);
        }
        byte[] big = b.toBytes();
        Path in = dir.resolve("moving.cvysnap");
        Files.write(in, big);
        int whole = 0;
        try (dev.convoy.testing.FileChurn churn = dev.convoy.testing.FileChurn.start(in, big, 11)) {
            for (int i = 0; i < 20; i++) {
                try {
                    ViewMain.source(args(in));
                    whole++;
                } catch (ViewMain.Failure f) {
                    assertEquals(1, f.code, f.getMessage());
                    assertEquals(1, f.getMessage().lines().count(), f.getMessage());
                    assertTrue(f.getMessage().contains("moving.cvysnap"), f.getMessage());
                }
            }
        }
        System.out.println("view of a file cut and rewritten meanwhile: " + whole + " of 20 whole, the others refused");
    }
}
