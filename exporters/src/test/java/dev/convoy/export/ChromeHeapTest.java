package dev.convoy.export;

import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.snapshot.SnapshotWriter;
import dev.convoy.testing.RecordingBuilder;
import dev.convoy.testing.SyntheticRecordings;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Chrome conversion of a 1M-event synthetic recording (the benchmark's generator) runs
 * in a JVM with a 96 MiB heap: the streaming writer keeps no object per event. The same
 * conversion by {@link ReferenceChromeTraceWriter} (an object per event and per interval,
 * a sorted list of all output) runs out of memory under the same bound, so the bound
 * tells the two apart.
 */
class ChromeHeapTest {
    static final String HEAP = "-Xmx96m";

    @TempDir
    Path dir;

    @Test
    void streamingWriterFitsABoundedHeapTheReferenceDoesNot() throws Exception {
        Path snap = dir.resolve("1m.cvysnap");
        RecordingBuilder b = SyntheticRecordings.synthetic(1_000_000, 20, 50, 1);
        try (OutputStream os = Files.newOutputStream(snap)) {
            SnapshotWriter.write(b.build(), os);
        }
        Result streamed = child(snap, "stream");
        assertEquals(0, streamed.code, streamed.out);
        assertTrue(streamed.out.contains("written"), streamed.out);
        Result reference = child(snap, "reference");
        assertNotEquals(0, reference.code, reference.out);
        assertTrue(reference.out.contains("OutOfMemoryError"), reference.out);
    }

    record Result(int code, String out) {
    }

    Result child(Path snap, String writer) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, HEAP, "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                Child.class.getName(), snap.toString(), writer).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES));
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** Reads a snapshot (memory-mapped, as ./convoy convert does) and writes its Chrome trace to nowhere. */
    static final class Child {
        public static void main(String[] args) throws IOException {
            var r = SnapshotReader.read(Path.of(args[0]));
            CountingSink sink = new CountingSink();
            if (args[1].equals("stream")) {
                new ChromeTraceWriter().write(r, sink);
            } else {
                new ReferenceChromeTraceWriter().write(r, sink);
            }
            System.out.println("written " + sink.bytes + " bytes of " + List.of(args));
        }
    }

    static final class CountingSink extends OutputStream {
        long bytes;

        @Override
        public void write(int b) {
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes += len;
        }
    }
}
