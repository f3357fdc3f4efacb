package dev.convoy.cli;

import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.export.TptpXmlWriterTest;
import dev.convoy.testing.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConvertTest {

    @TempDir
    Path dir;

    final byte[] snapshot = Fixtures.all().toBytes();

    List<String> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    record Run(int code, String out, String err) {
    }

    static Run convert(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Convert.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static Run report(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Report.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void convertWritesNextToTheInput() throws Exception {
        Path in = dir.resolve("app.cvysnap");
        Files.write(in, snapshot);
        Run chrome = convert(in.toString(), "--format", "chrome");
        assertEquals(0, chrome.code(), chrome.err());
        assertEquals(dir.resolve("app.json").toAbsolutePath() + System.lineSeparator(), chrome.out());
        Run csv = convert(in.toString(), "--format=csv");
        assertEquals(0, csv.code(), csv.err());
        Run tptp = convert(in.toString(), "--format", "tptp", "-o", dir.resolve("sub/x.trcxml").toString());
        assertEquals(0, tptp.code(), tptp.err());
        TptpXmlWriterTest.validate(dir.resolve("sub/x.trcxml"));
        Run ext = convert(in.toString(), "--format", "csv-ext");
        assertEquals(0, ext.code(), ext.err());
        assertEquals(List.of("app.cvysnap", "app.events-ext.csv", "app.events.csv", "app.json", "app.losses.csv",
                "app.meta.csv", "sub"), files());
    }

    @Test
    void convertRejectsCorruptInputNamingTheOffset() throws Exception {
        Path in = dir.resolve("bad.cvysnap");
        byte[] b = snapshot.clone();
        b[0] = 'X';
        Files.write(in, b);
        Run r = convert(in.toString(), "--format", "chrome");
        assertEquals(1, r.code());
        assertTrue(r.err().contains("offset 0: bad magic"), r.err());
        assertEquals(List.of("bad.cvysnap"), files());

        Files.write(in, java.util.Arrays.copyOf(snapshot, 100));
        Run t = convert(in.toString(), "--format", "tptp");
        assertEquals(1, t.code());
        assertTrue(t.err().matches("(?s).*offset \\d+: truncated.*"), t.err());
        assertEquals(List.of("bad.cvysnap"), files());
    }

    @Test
    void convertUsageErrors() {
        Run none = convert();
        assertEquals(2, none.code());
        assertTrue(none.err().startsWith("convoy: convert: no input file\nusage: ./convoy convert FILE --format F [-o OUT]"),
                none.err());
        assertTrue(none.err().replaceAll("\\s+", " ").contains("--format F, -f F chrome, tptp, csv, csv-ext, csv-meta, "
                + "csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof"), none.err());
        Run noFormat = convert("x");
        assertTrue(noFormat.err().startsWith("convoy: convert: --format is missing (chrome, tptp, "), noFormat.err());
        Run fmt = convert("x", "--format", "pdf");
        assertEquals(2, fmt.code());
        assertTrue(fmt.err().contains("allowed: chrome, tptp, csv, csv-ext, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, "
                + "snapshot, collapsed, flamegraph, pprof"), fmt.err());
        assertEquals(2, convert("x").code());
        assertEquals(2, convert("x", "--format").code());
        assertEquals(2, convert("x", "--bogus").code());
        Run missing = convert(dir.resolve("nope").toString(), "--format", "csv");
        assertEquals(1, missing.code());
        assertTrue(missing.err().contains("no such file"), missing.err());
    }

    @Test
    void aDirectoryOrAPipeIsRefusedBeforeAnyRead() throws Exception {
        Run d = convert(dir.toString(), "--format", "chrome", "-o", dir.resolve("x.json").toString());
        assertEquals(1, d.code());
        assertEquals("convoy: convert: " + dir + " is a directory, not a snapshot nor a repository folder "
                + "(chunk-NNNNNNNNNN.cvysnap files)", d.err().strip());
        Path fifo = dir.resolve("pipe");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mk.waitFor());
        Run f = convert(fifo.toString(), "--format", "chrome", "-o", dir.resolve("y.json").toString());
        assertEquals(1, f.code(), "refused, not hanging on the pipe");
        assertTrue(f.err().contains("is not a regular file"), f.err());
        assertEquals(List.of("pipe"), files());
    }

    @Test
    void anUnexpectedExceptionIsOneLineNamingTheFileAndItsStackWithDebug() {
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        PrintStream p = new PrintStream(err, true, StandardCharsets.UTF_8);
        Path in = dir.resolve("in.cvysnap");
        int code = Input.run("convert", in, false, p, () -> {
            throw new java.util.NoSuchElementException("no ring 7");
        });
        assertEquals(Convert.EXIT_ERROR, code);
        assertEquals("convoy: convert: " + in + ": internal error: java.util.NoSuchElementException: no ring 7 "
                + "(run with --debug for the stack trace, and please report it)", err.toString(StandardCharsets.UTF_8).strip());
        err.reset();
        Input.run("report", in, true, p, () -> {
            throw new IllegalStateException("boom");
        });
        String text = err.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("convoy: report: " + in + ": internal error: java.lang.IllegalStateException: boom\n"), text);
        assertTrue(text.contains("\tat dev.convoy.cli.ConvertTest"), "the stack follows with --debug: " + text);
        Run debug = convert(dir.resolve("none.cvysnap").toString(), "--format", "tptp", "--debug");
        assertEquals(1, debug.code());
        assertTrue(debug.err().contains("no such file"), debug.err());
    }

    @Test
    void aWindowConvertsExactlyTheRecordsOfItsTimes() throws Exception {
        Path in = dir.resolve("w.cvysnap");
        Files.write(in, snapshot);
        dev.convoy.model.Recording whole = dev.convoy.snapshot.SnapshotReader.read(in);
        long start = whole.startMonotonicNs();
        long end = whole.snapshotMonotonicNs();
        long fromMs = (end - start) / 3 / 1_000_000;
        long toMs = (end - start) / 4 / 1_000_000;
        Path out = dir.resolve("cut.cvysnap");
        Run r = convert(in.toString(), "--format", "snapshot", "-o", out.toString(), "--from", "-" + fromMs + "ms",
                "--to", "-" + toMs + "ms");
        assertEquals(0, r.code(), r.err());
        dev.convoy.model.Recording cut = dev.convoy.snapshot.SnapshotReader.read(out);
        long lo = end - fromMs * 1_000_000;
        long hi = end - toMs * 1_000_000;
        assertEquals(Long.toString(lo), cut.info().get("start.monotonic.ns"));
        assertEquals(Long.toString(hi), cut.info().get("snapshot.monotonic.ns"));
        long expected = 0;
        for (dev.convoy.model.RecordedThread t : whole.threads()) {
            List<Long> in0 = t.events().stream().map(dev.convoy.model.Event::ts).filter(ts -> ts >= lo && ts <= hi)
                    .toList();
            expected += in0.size();
            List<Long> got = cut.threads().stream().filter(x -> x.ringId() == t.ringId()).findFirst()
                    .map(x -> x.events().stream().map(dev.convoy.model.Event::ts).toList()).orElse(List.of());
            assertEquals(in0, got, t.name());
        }
        assertEquals(expected, cut.threads().stream().mapToLong(x -> x.events().size()).sum());
        Run bad = convert(in.toString(), "--format", "chrome", "--since", "5m", "--from", "-1s");
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("--since takes the last part"), bad.err());
    }

    @Test
    void aFileCutAndRewrittenWhileConvertOrReportReadsItEndsWholeOrInOneLine() throws Exception {
        // about 8 MB: 200,000 blocks of one thread
        dev.convoy.testing.RecordingBuilder b = Fixtures.base();
        dev.convoy.testing.RecordingBuilder.ThreadBuilder t = b.thread(900, 90, 0, "mover").span(Fixtures.T0, 0);
        for (int i = 0; i < 100_000; i++) {
            t.event(Fixtures.T0 + 2L * i, dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_ENTER, Fixtures.S_RUN,
                    Fixtures.M1, 0);
            t.event(Fixtures.T0 + 2L * i + 1, dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_ENTERED, 0, Fixtures.M1,
                    0);
        }
        byte[] big = b.toBytes();
        Path in = dir.resolve("moving.cvysnap");
        Files.write(in, big);
        int whole = 0;
        try (dev.convoy.testing.FileChurn churn = dev.convoy.testing.FileChurn.start(in, big, 7)) {
            for (int i = 0; i < 20; i++) {
                Path out = dir.resolve("moving-" + i + (i % 2 == 0 ? ".collapsed.txt" : ".report.txt"));
                Run r = i % 2 == 0 ? convert(in.toString(), "--format", "collapsed", "-o", out.toString())
                        : report(in.toString(), "-o", out.toString()); // report reads as convert does
                assertTrue(r.code() == 0 || r.code() == 1, r.toString());
                if (r.code() == 1) {
                    assertEquals(1, r.err().strip().lines().count(), r.err());
                    assertTrue(r.err().contains("moving.cvysnap"), r.err());
                    assertFalse(Files.exists(out), "nothing half-written");
                } else {
                    whole++;
                }
            }
        }
        System.out.println("convert and report of a file cut and rewritten meanwhile: " + whole + " of 20 whole, the others refused");
    }
}
