package dev.convoy.export;

import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormatException;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.snapshot.SnapshotWriter;
import dev.convoy.testing.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutputTest {

    @TempDir
    Path dir;

    final byte[] snapshot = Fixtures.all().toBytes();

    List<String> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void namesSelectOutputsAndListTheAllowedOnes() {
        assertEquals(EnumSet.of(Output.TPTP), Output.select("TpTp"));
        assertEquals(EnumSet.of(Output.CSV_META, Output.CSV_EVENTS, Output.CSV_LOSSES), Output.select(" csv "));
        assertEquals(EnumSet.of(Output.CSV_META, Output.CSV_EVENTS_EXT, Output.CSV_LOSSES), Output.select("CSV-Ext"));
        assertEquals(EnumSet.of(Output.CSV_EVENTS), Output.select("csv-events"));
        assertEquals(EnumSet.of(Output.CSV_EVENTS_EXT), Output.select("csv-events-ext"));
        assertEquals(EnumSet.of(Output.JFR), Output.select("JFR"));
        assertEquals(Output.JFR, Output.one("jfr"));
        assertEquals(".jfr", Output.JFR.suffix());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Output.select("jsonl"));
        assertEquals("unknown format 'jsonl'; allowed: chrome, tptp, csv, csv-ext, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof", e.getMessage());
        assertEquals("unknown format (none given); allowed: chrome, tptp, csv, csv-ext, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof",
                assertThrows(IllegalArgumentException.class, () -> Output.select(null)).getMessage());
    }

    /** A name with a control character (a URL's %00) is no format, not the format before it. */
    @Test
    void aNameWithAControlCharacterIsRefusedAndShownEscaped() {
        for (String bad : new String[] {"chrome\u0000", "chrome\u001f", "\tchrome", "jfr\n", "chr\u0000ome"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Output.one(bad));
            assertTrue(e.getMessage().startsWith("unknown format '"), e.getMessage());
            assertTrue(e.getMessage().endsWith("; allowed: chrome, tptp, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof"),
                    e.getMessage());
            assertTrue(e.getMessage().chars().noneMatch(Character::isISOControl), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> Output.select(bad));
            assertThrows(IllegalArgumentException.class, () -> dev.convoy.report.ContentionReport.Style.parse(bad));
        }
        assertEquals("unknown format 'chrome\\u0000'; allowed: chrome, tptp, csv-meta, csv-events, csv-events-ext, "
                + "csv-losses, jfr, snapshot, collapsed, flamegraph, pprof", assertThrows(IllegalArgumentException.class, () -> Output.one("chrome\u0000")).getMessage());
        assertEquals("unknown report format 'text\\u0000'; allowed: text, markdown", assertThrows(
                IllegalArgumentException.class, () -> dev.convoy.report.ContentionReport.Style.parse("text\u0000")).getMessage());
        assertEquals(Output.CHROME, Output.one(" Chrome "));
    }

    @Test
    void oneOutputPerStreamAndCsvIsThree() {
        assertEquals(Output.CSV_META, Output.one("CSV-META"));
        assertEquals("unknown format 'csv'; allowed: chrome, tptp, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof (csv is 3 files: "
                + "ask for csv-meta, csv-events, csv-losses one at a time)",
                assertThrows(IllegalArgumentException.class, () -> Output.one("csv")).getMessage());
        assertEquals("unknown format 'csv-ext'; allowed: chrome, tptp, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof (csv-ext is 3 files: "
                + "ask for csv-meta, csv-events-ext, csv-losses one at a time)",
                assertThrows(IllegalArgumentException.class, () -> Output.one("csv-ext")).getMessage());
        assertEquals("unknown format 'pdf'; allowed: chrome, tptp, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof",
                assertThrows(IllegalArgumentException.class, () -> Output.one("pdf")).getMessage());
    }

    @Test
    void suffixesMediaTypesAndJoinedNames() {
        assertEquals(List.of(".json", ".trcxml", ".meta.csv", ".events.csv", ".events-ext.csv", ".losses.csv", ".jfr",
                ".cvysnap", ".collapsed.txt", ".html", ".pb.gz"), Stream.of(Output.values()).map(Output::suffix).toList());
        assertEquals(List.of("application/json", "application/xml", "text/csv; charset=utf-8",
                "text/csv; charset=utf-8", "text/csv; charset=utf-8", "text/csv; charset=utf-8",
                "application/octet-stream", "application/octet-stream",
                "text/plain; charset=utf-8", "text/html; charset=utf-8", "application/octet-stream"),
                Stream.of(Output.values()).map(Output::mediaType).toList());
        assertEquals("chrome+csv", Output.join(EnumSet.of(Output.CHROME, Output.CSV_META, Output.CSV_EVENTS,
                Output.CSV_LOSSES)));
        assertEquals("chrome+csv-meta+csv-events", Output.join(EnumSet.of(Output.CHROME, Output.CSV_META,
                Output.CSV_EVENTS)));
        assertEquals("csv-ext+jfr", Output.join(EnumSet.of(Output.JFR, Output.CSV_META, Output.CSV_EVENTS_EXT,
                Output.CSV_LOSSES)));
        assertEquals("chrome+tptp+csv+csv-ext+jfr+snapshot+collapsed+flamegraph+pprof", Output.join(EnumSet.allOf(Output.class)));
        assertEquals("csv-events", Output.join(EnumSet.of(Output.CSV_EVENTS)));
        for (String names : List.of("csv+csv-ext", "csv-ext", "csv-meta+csv-events-ext", "csv+csv-events-ext")) {
            Set<Output> selected = EnumSet.noneOf(Output.class);
            for (String n : names.split("\\+")) {
                selected.addAll(Output.select(n));
            }
            assertEquals(names.equals("csv+csv-events-ext") ? "csv+csv-ext" : names, Output.join(selected));
        }
        assertEquals("", Output.join(EnumSet.noneOf(Output.class)));
    }

    @Test
    void oneOutputIsWrittenToThePathSeveralToItsBasePlusSuffixes() {
        Path p = Path.of("/d/x.csv");
        assertEquals(Map.of(Output.CSV_META, Path.of("/d/x.csv")), Output.files(EnumSet.of(Output.CSV_META), p));
        assertEquals(List.of(Path.of("/d/x.meta.csv"), Path.of("/d/x.events.csv"), Path.of("/d/x.losses.csv")),
                List.copyOf(Output.files(Output.select("csv"), p).values()));
        assertEquals(List.of(Path.of("/d/y.json"), Path.of("/d/y.trcxml")),
                List.copyOf(Output.files(EnumSet.of(Output.TPTP, Output.CHROME), Path.of("/d/y")).values()));
        assertEquals(List.of(EnumSet.of(Output.CHROME), Output.select("csv"), EnumSet.of(Output.SNAPSHOT)),
                Output.groups(EnumSet.of(Output.SNAPSHOT, Output.CSV_EVENTS, Output.CHROME, Output.CSV_META,
                        Output.CSV_LOSSES)));
        assertEquals(List.of(EnumSet.of(Output.CSV_META, Output.CSV_EVENTS, Output.CSV_EVENTS_EXT, Output.CSV_LOSSES)),
                Output.groups(EnumSet.allOf(Output.class)).subList(2, 3), "every CSV file selected, written together");
        assertEquals(List.of(EnumSet.of(Output.CSV_EVENTS)), Output.groups(EnumSet.of(Output.CSV_EVENTS)));
        assertEquals("base.json", Output.defaultName("base", EnumSet.of(Output.CHROME)));
        assertEquals("base", Output.defaultName("base", Output.select("csv")));
    }

    @Test
    void snapshotOutputWritesTheBytesReadAsIs() throws Exception {
        Path out = dir.resolve("copy.cvysnap");
        Output.write(SnapshotReader.read(snapshot), EnumSet.of(Output.SNAPSHOT), out);
        assertArrayEquals(snapshot, Files.readAllBytes(out));
        Path mapped = dir.resolve("copy2.cvysnap");
        Output.write(SnapshotReader.read(out), EnumSet.of(Output.SNAPSHOT), mapped);
        assertArrayEquals(snapshot, Files.readAllBytes(mapped), "from a memory-mapped file too");
    }

    @Test
    void snapshotOutputOfARecordingMadeInMemoryEncodesIt() throws Exception {
        Recording r = Fixtures.all().build();
        assertTrue(r.bytes().isEmpty());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Output.SNAPSHOT.write(r, out);
        assertArrayEquals(SnapshotWriter.write(r), out.toByteArray());
    }

    @Test
    void everyOutputFromBytes() throws Exception {
        Recording r = SnapshotReader.read(snapshot);
        for (Output o : Output.values()) {
            List<Path> written = Output.write(r, EnumSet.of(o), dir.resolve("out" + o.suffix()));
            assertEquals(List.of(dir.resolve("out" + o.suffix()).toAbsolutePath()), written);
            assertTrue(Files.size(written.get(0)) > 0, o.toString());
        }
        List<Path> csv = Output.write(r, Output.select("csv"), dir.resolve("pair"));
        assertEquals(List.of(dir.resolve("pair.meta.csv").toAbsolutePath(), dir.resolve("pair.events.csv").toAbsolutePath(),
                dir.resolve("pair.losses.csv").toAbsolutePath()), csv);
        assertArrayEquals(Files.readAllBytes(dir.resolve("out.meta.csv")), Files.readAllBytes(csv.get(0)));
        assertArrayEquals(Files.readAllBytes(dir.resolve("out.events.csv")), Files.readAllBytes(csv.get(1)));
        assertArrayEquals(Files.readAllBytes(dir.resolve("out.losses.csv")), Files.readAllBytes(csv.get(2)));
        assertTrue(files().stream().noneMatch(n -> n.endsWith(".tmp")));
    }

    @Test
    void failedWriteLeavesNothing() throws Exception {
        Path keep = dir.resolve("keep.json");
        Files.writeString(keep, "old");
        Map<Path, AtomicFiles.Content> group = new LinkedHashMap<>();
        group.put(dir.resolve("a.csv"), os -> os.write("complete".getBytes(StandardCharsets.UTF_8)));
        group.put(keep, os -> {
            os.write("half".getBytes(StandardCharsets.UTF_8));
            throw new IOException("disk full");
        });
        IOException e = assertThrows(IOException.class, () -> AtomicFiles.write(group));
        assertEquals("disk full", e.getMessage());
        assertEquals(List.of("keep.json"), files(), "no temp file, no first file of the group");
        assertEquals("old", Files.readString(keep), "destination untouched");
    }

    @Test
    void corruptBytesWriteNothing() {
        byte[] bad = snapshot.clone();
        bad[bad.length - 20] ^= 1;
        assertThrows(SnapshotFormatException.class,
                () -> Output.write(SnapshotReader.read(bad), EnumSet.of(Output.CHROME), dir.resolve("t.json")));
        assertFalse(Files.exists(dir.resolve("t.json")));
    }
}
