package dev.convoy.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import dev.convoy.cli.Report;
import dev.convoy.cli.Convert;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.snapshot.SnapshotWriter;
import dev.convoy.testing.SyntheticRecordings;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * convert and report in a JVM whose heap is too small for the analysis: a one-line message
 * that says what to do (no stack trace), exit code 1, and nothing written at the destination.
 * And the report keeps no object per interval or interaction: a million events fit in a heap
 * of {@value #MILLION_HEAP} (the report that kept them needed about 400 MB).
 */
class OutOfMemoryMessageTest {
    static final String MILLION_HEAP = "-Xmx160m";

    @TempDir
    Path dir;
    Path snap;

    @BeforeEach
    void snapshot() throws IOException {
        snap = dir.resolve("300k.cvysnap");
        try (OutputStream os = Files.newOutputStream(snap)) {
            SnapshotWriter.write(SyntheticRecordings.synthetic(300_000, 20, 50, 1).build(), os);
        }
    }

    record Result(int code, String out) {
    }

    Result child(String heap, Class<?> main, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                heap, "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(2, TimeUnit.MINUTES));
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    void assertClearFailure(Result r, String command) throws IOException {
        assertEquals(Convert.EXIT_ERROR, r.code(), r.out());
        assertTrue(r.out().startsWith("convoy: " + command + ": " + snap + ": not enough memory for the analysis of "),
                r.out());
        assertTrue(r.out().contains("JDK_JAVA_OPTIONS=-Xmx"), r.out());
        assertFalse(r.out().contains("Exception") || r.out().contains("\tat "), r.out());
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(snap), files.toList(), "nothing written next to the input");
        }
    }

    @Test
    void reportSaysHowToGiveItMoreHeap() throws Exception {
        assertClearFailure(child("-Xmx12m", Report.class, snap.toString(), "-o", dir.resolve("r.txt").toString()),
                "report");
    }

    @Test
    void theReportOfAMillionEventsFitsABoundedHeap() throws Exception {
        Path big = dir.resolve("1m.cvysnap");
        try (OutputStream os = Files.newOutputStream(big)) {
            SnapshotWriter.write(SyntheticRecordings.synthetic(1_000_000, 20, 50, 1).build(), os);
        }
        Path out = dir.resolve("1m.txt");
        Result r = child(MILLION_HEAP, Report.class, big.toString(), "-o", out.toString());
        assertEquals(Convert.EXIT_OK, r.code(), r.out());
        assertTrue(Files.readString(out).contains("Most contended monitors"), Files.readString(out));
    }

    @Test
    void convertSaysHowToGiveItMoreHeap() throws Exception {
        assertClearFailure(child("-Xmx8m", Convert.class, snap.toString(), "--format", "chrome", "-o",
                dir.resolve("t.json").toString()), "convert");
    }
}
