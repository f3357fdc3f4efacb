package dev.convoy.export;

import static dev.convoy.snapshot.SnapshotFormat.*;
import dev.convoy.cli.Report;
import dev.convoy.cli.Convert;
import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import dev.convoy.model.Recording;
import dev.convoy.schema.ChromeTraceChecker;
import dev.convoy.schema.CsvLogReader;
import dev.convoy.schema.TptpValidator;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.snapshot.SnapshotWriter;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.RecordingBuilder;
import dev.convoy.testing.SyntheticRecordings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Edge cases through every writer and its independent checker: unusual thread names,
 * threads that never blocked, an empty recording, rings that wrapped. Each recording is
 * also converted from a snapshot file (the memory-mapped path of {@code convert}).
 */
class EdgeCaseExportTest {
    static final String[] ODD = {
        "comma, and more,", "quote \" and 'single'", "caf\u00e9 \u65e5\u672c\u8a9e \u0416", "emoji \uD83D\uDE00\uD83D\uDC4D",
        "new\nline\r\nand tab\t", "percent %2C literal", "<xml> & ampersand", ""
    };

    @TempDir
    Path dir;

    /** Writes the recording in every format (through a snapshot file and Convert) and checks each. */
    void allFormats(RecordingBuilder b, String base, List<String> names) throws Exception {
        Path snap = dir.resolve(base + ".cvysnap");
        Files.write(snap, b.toBytes());
        for (String f : List.of("chrome", "tptp", "csv")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int rc = Convert.run(new String[] {snap.toString(), "--format", f, "-o",
                    dir.resolve(Output.defaultName(base, Output.select(f))).toString()}, new PrintStream(out), new PrintStream(err));
            assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
            assertEquals("", err.toString(StandardCharsets.UTF_8), "no progress lines for a small input");
        }
        // Chrome
        List<JsonNode> events = ChromeTraceChecker.check(dir.resolve(base + ".json"));
        for (String n : names) {
            String expected = n.isEmpty() ? null : n;
            if (expected != null) {
                assertTrue(events.stream().anyMatch(e -> e.path("ph").asText().equals("M")
                        && e.path("name").asText().equals("thread_name")
                        && e.path("args").path("name").asText().equals(expected)), "chrome track named " + n);
            }
        }
        // TPTP
        Document doc = TptpValidator.validate(dir.resolve(base + ".trcxml"));
        assertEquals(List.of(), TptpValidator.checkDefinedBeforeReferenced(doc));
        NodeList starts = doc.getElementsByTagName("threadStart");
        for (String n : names) {
            boolean found = false;
            for (int i = 0; i < starts.getLength(); i++) {
                found |= ((Element) starts.item(i)).getAttribute("threadName").equals(n.replace("\r\n", "\n")
                        .replace("\r", "\n").replace("\t", " ").replace("\n", " "))
                        || ((Element) starts.item(i)).getAttribute("threadName").equals(n);
            }
            assertTrue(found || n.contains("\n") || n.contains("\t"), "tptp threadStart named " + n);
        }
        // CSV
        Path csv = dir.resolve(base + ".csv");
        CsvLogReader.Logs logs = CsvLogReader.read(CsvLogWriter.metaPath(csv), CsvLogWriter.eventsPath(csv));
        for (String n : names) {
            assertTrue(logs.events().stream().anyMatch(e -> e.name().equals("ThreadStarted")
                    && e.fields().stream().map(CsvLogReader::unescape).anyMatch(n::equals)), "csv ThreadStarted named " + n + ": " + logs.events());
        }
        // the snapshot reads back to the same records
        Recording orig = b.build();
        Recording back = SnapshotReader.read(snap);
        assertEquals(orig.events().size(), back.events().size());
    }

    @Test
    void unusualNames() throws Exception {
        RecordingBuilder b = Fixtures.base();
        for (int i = 0; i < ODD.length; i++) {
            long obj = 1001 + i % 7;
            b.thread(100 + i, 200 + i, obj, ODD[i]).span(Fixtures.t(i), 0).group("group, \"x\" \uD83D\uDE00", "")
                    .event(Fixtures.t(i), EVENT_THREAD_START, 0, obj, 200 + i)
                    .event(Fixtures.t(100 + i), EVENT_MONITOR_ENTER, Fixtures.S_RUN, Fixtures.M1, 0)
                    .event(Fixtures.t(200 + i), EVENT_MONITOR_ENTERED, 0, Fixtures.M1, 0);
        }
        allFormats(b, "odd", List.of(ODD));
    }

    @Test
    void threadsThatNeverBlocked() throws Exception {
        RecordingBuilder b = Fixtures.base();
        b.thread(1, 1, Fixtures.O_MAIN, "main").span(Fixtures.T0, 0)
                .event(Fixtures.T0, EVENT_THREAD_START, 0, Fixtures.O_MAIN, 1);
        b.thread(2, 12, Fixtures.O_W1, "idle").span(Fixtures.t(10), Fixtures.t(20)).flags(RING_ENDED);
        allFormats(b, "idle", List.of("main", "idle"));
        Path csv = dir.resolve("idle.csv");
        CsvLogReader.Logs logs = CsvLogReader.read(CsvLogWriter.metaPath(csv), CsvLogWriter.eventsPath(csv));
        assertTrue(logs.events().stream().noneMatch(e -> e.name().startsWith("Monitor")));
        assertTrue(logs.events().stream().anyMatch(e -> e.name().equals("ThreadEnded")));
    }

    @Test
    void emptyRecording() throws Exception {
        RecordingBuilder b = new RecordingBuilder();
        allFormats(b, "empty", List.of());
        List<JsonNode> events = ChromeTraceChecker.check(dir.resolve("empty.json"));
        assertTrue(events.stream().allMatch(e -> e.path("ph").asText().equals("M")), events.toString());
        Path csv = dir.resolve("empty.csv");
        assertEquals(0, Files.size(CsvLogWriter.eventsPath(csv)));
    }

    @Test
    void wrappedRings() throws Exception {
        RecordingBuilder b = Fixtures.base();
        // a late ring that wrapped: its oldest records (and its THREAD_START) were overwritten;
        // it starts inside a wait and a contended enter whose begins are lost
        RecordingBuilder.ThreadBuilder w = b.thread(7, 70, Fixtures.O_W1, "wrapped, ring").flags(RING_LATE)
                .span(Fixtures.t(1), 0).counters(1_000_000, 999_990, 3, 1).capacity(16);
        w.event(Fixtures.t(50), EVENT_MONITOR_WAITED, 0, 0, Fixtures.M3, 0, 0)
                .event(Fixtures.t(60), EVENT_MONITOR_ENTERED, 0, Fixtures.M1, 0);
        for (int i = 0; i < 4; i++) {
            w.event(Fixtures.t(100 + 10 * i), EVENT_MONITOR_ENTER, Fixtures.S_RUN, Fixtures.M2, 0)
                    .event(Fixtures.t(105 + 10 * i), EVENT_MONITOR_ENTERED, 0, Fixtures.M2, 0);
        }
        b.thread(8, 80, Fixtures.O_H1, "ended, wrapped").flags(RING_ENDED).span(Fixtures.t(2), Fixtures.t(500))
                .counters(50, 40, 0, 0).capacity(10)
                .event(Fixtures.t(150), EVENT_MONITOR_WAIT, Fixtures.S_WAIT, Fixtures.M3, 0)
                .event(Fixtures.t(400), EVENT_MONITOR_ENTERED, 0, Fixtures.M2, 0);
        allFormats(b, "wrapped", List.of());
        List<JsonNode> events = ChromeTraceChecker.check(dir.resolve("wrapped.json"));
        assertEquals(4, events.stream().filter(e -> e.path("name").asText().startsWith("blocked on")).count());
    }

    @Test
    void progressOnlyForLargeInputsAndTruncatedInputLeavesNothing() throws Exception {
        RecordingBuilder b = Fixtures.waitNotify(Fixtures.base());
        byte[] bytes = b.toBytes();
        Path snap = dir.resolve("p.cvysnap");
        Files.write(snap, bytes);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String old = System.getProperty("convoy.convert.progressBytes");
        // PROGRESS_THRESHOLD is read once; exercise the large path through a big synthetic file instead
        RecordingBuilder big = SyntheticRecordings.synthetic(2_000_000, 20, 50, 1);
        Path large = dir.resolve("large.cvysnap");
        try (var os = Files.newOutputStream(large)) {
            SnapshotWriter.write(big.build(), os);
        }
        assertTrue(Files.size(large) >= Convert.PROGRESS_THRESHOLD);
        assertEquals(0, Convert.run(new String[] {large.toString(), "--format", "csv"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err)));
        String lines = err.toString(StandardCharsets.UTF_8);
        assertTrue(lines.contains("reading 100%"), lines);
        assertTrue(lines.contains("done"), lines);
        assertNull(old);
        // the report too, on stderr, the report itself alone on stdout
        ByteArrayOutputStream reportErr = new ByteArrayOutputStream();
        ByteArrayOutputStream reportOut = new ByteArrayOutputStream();
        assertEquals(0, Report.run(new String[] {large.toString()}, new PrintStream(reportOut), new PrintStream(reportErr)));
        String rl = reportErr.toString(StandardCharsets.UTF_8);
        assertTrue(rl.startsWith("convoy: report: reading 0%") && rl.contains("convoy: report: reading 100%"), rl);
        assertTrue(rl.contains("events in 21 threads; analysing..."), rl);
        assertTrue(reportOut.toString(StandardCharsets.UTF_8).startsWith("Convoy contention report"),
                reportOut.toString(StandardCharsets.UTF_8));
        ByteArrayOutputStream smallErr = new ByteArrayOutputStream();
        assertEquals(0, Report.run(new String[] {snap.toString()}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(smallErr)));
        assertEquals("", smallErr.toString(StandardCharsets.UTF_8), "no progress lines for a small input");
        // truncated: error names the offset, nothing at the destination
        Path cut = dir.resolve("cut.cvysnap");
        Files.write(cut, java.util.Arrays.copyOf(bytes, bytes.length - 30));
        ByteArrayOutputStream e2 = new ByteArrayOutputStream();
        assertEquals(1, Convert.run(new String[] {cut.toString(), "--format", "chrome", "-o",
                dir.resolve("out/cut.json").toString()}, new PrintStream(new ByteArrayOutputStream()), new PrintStream(e2)));
        assertTrue(e2.toString(StandardCharsets.UTF_8).contains("offset"), e2.toString(StandardCharsets.UTF_8));
        assertFalse(Files.exists(dir.resolve("out/cut.json")));
        try (Stream<Path> s = Files.list(dir)) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().endsWith(".tmp")));
        }
    }
}
