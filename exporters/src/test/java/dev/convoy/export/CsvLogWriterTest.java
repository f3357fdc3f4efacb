package dev.convoy.export;

import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.model.Recording;
import dev.convoy.schema.CsvLogReader;
import dev.convoy.schema.CsvLogReader.EventLine;
import dev.convoy.schema.CsvLogReader.MethodLine;
import dev.convoy.schema.CsvSpecReader;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parses the CSV logs with {@link CsvSpecReader}, a reader written only from the JVMTI backend's
 * specification, and with {@link CsvLogReader}, a reader written only from schema/csv-log-format.md.
 */
class CsvLogWriterTest {

    static final Pattern HASH = CsvLogReader.HASH;

    @TempDir
    Path dir;

    @Test
    void writesBothLogsThatASpecReaderResolves() throws Exception {
        Recording r = SnapshotReader.read(Fixtures.all().toBytes());
        Path base = dir.resolve("run.csv");
        List<Path> written = Output.write(r, Output.select("csv"), base);
        assertEquals(List.of(dir.resolve("run.meta.csv").toAbsolutePath(), dir.resolve("run.events.csv").toAbsolutePath(),
                dir.resolve("run.losses.csv").toAbsolutePath()), written);
        CsvSpecReader.Logs spec = CsvSpecReader.read(written.get(0), written.get(1));

        Map<String, String> classes = new HashMap<>();
        Map<String, MethodLine> methods = CsvLogReader.readMeta(written.get(0), classes);
        assertEquals("Worker, Inc.java", classes.get("Lcom/example/Worker;"), "comma escaped and restored");
        assertEquals("", classes.get("Lcom/example/Lock;"));
        assertEquals(4, methods.size(), "3 described methods + 1 referenced by a stack only");
        MethodLine run = methods.get(CsvLogWriter.methodId(M_RUN));
        assertEquals("run", run.name());
        assertEquals("Lcom/example/Worker;", run.declaringClass());
        assertEquals(3, run.lines());
        assertEquals(-1, methods.get(CsvLogWriter.methodId(M_WAIT)).lines());
        assertEquals("00007F0000001000", CsvLogWriter.methodId(M_RUN));

        List<EventLine> ev = CsvLogReader.readEvents(written.get(1), methods);
        CsvLogReader.Logs both = CsvLogReader.read(written.get(0), written.get(1));
        assertEquals(methods, both.methods(), "both files read together as separately");
        assertEquals(ev.size(), both.events().size(), "both files read together as separately");
        assertEquals(ev.size(), spec.events().size(), "every line is the specification's");
        for (int i = 1; i < ev.size(); i++) {
            assertTrue(ev.get(i - 1).ts() <= ev.get(i).ts(), "time order");
        }
        for (EventLine e : ev) {
            for (int i = 0; i < e.fields().size(); i++) {
                if (!(e.name().equals("ThreadStarted") && i == 1)) {
                    assertTrue(HASH.matcher(e.fields().get(i)).matches(), e.name() + " field " + e.fields().get(i));
                }
            }
        }
        String mainHash = String.format("%08X", 0x1000_0000);
        String w1Hash = String.format("%08X", 0x1000_0001);
        EventLine mainEnter = ev.stream().filter(e -> e.name().equals("MonitorContendedEnter")
                && e.fields().get(0).equals(mainHash)).findFirst().orElseThrow();
        assertEquals(List.of(mainHash, "AAAA0002", w1Hash), mainEnter.fields());
        assertEquals(0.0003, mainEnter.ts(), 1e-12);
        assertEquals("C", mainEnter.frames().get(0)[1], "location 12 in hex");
        EventLine victimEnter = ev.stream().filter(e -> e.name().equals("MonitorContendedEnter")
                && e.fields().get(0).equals(String.format("%08X", 0x1000_0006))).findFirst().orElseThrow();
        assertEquals("00000000", victimEnter.fields().get(2), "unknown owner");

        List<EventLine> waits = ev.stream().filter(e -> e.name().startsWith("ObjectWait")).toList();
        assertEquals(List.of("ObjectWaited", "ObjectWait", "ObjectWaited", "ObjectWait", "ObjectWaited"),
                waits.stream().map(EventLine::name).toList(), "the victim's WAITED (its WAIT lost) first");
        assertEquals("-1", waits.get(1).frames().get(0)[1], "native frame");

        EventLine started = ev.stream().filter(e -> e.name().equals("ThreadStarted")
                && e.fields().get(0).equals(String.format("%08X", 0x1000_0002))).findFirst().orElseThrow();
        assertEquals(ODD_NAME, CsvLogReader.unescape(started.fields().get(1)));
        assertEquals(6, ev.stream().filter(e -> e.name().equals("ThreadStarted")).count(), "not for the late ring");
        assertEquals(1, ev.stream().filter(e -> e.name().equals("ThreadEnded")).count());
        assertTrue(ev.stream().anyMatch(e -> e.frames().stream().anyMatch(fr -> fr[0].equals(CsvLogWriter.methodId(M_GONE)))));
    }

    @Test
    void theExtensionSaysHowEachOwnerIsKnown() throws Exception {
        Recording r = SnapshotReader.read(Fixtures.all().toBytes());
        List<Path> written = Output.write(r, Output.select("csv-ext"), dir.resolve("run.csv"));
        assertEquals(List.of(dir.resolve("run.meta.csv").toAbsolutePath(),
                dir.resolve("run.events-ext.csv").toAbsolutePath(), dir.resolve("run.losses.csv").toAbsolutePath()),
                written);
        List<EventLine> ev = CsvLogReader.read(written.get(0), written.get(1)).events();
        String mainHash = String.format("%08X", 0x1000_0000);
        String w1Hash = String.format("%08X", 0x1000_0001);
        EventLine mainEnter = ev.stream().filter(e -> e.name().equals("MonitorContendedEnter")
                && e.fields().get(0).equals(mainHash)).findFirst().orElseThrow();
        EventLine mainOwner = ev.get(ev.indexOf(mainEnter) + 1);
        assertEquals("MonitorOwner", mainOwner.name());
        assertEquals(List.of(mainHash, "AAAA0002", w1Hash, "inferred"), mainOwner.fields(),
                "the owner SECTION_MONITORS lists at the snapshot: inferred at the enter");
        EventLine victimEnter = ev.stream().filter(e -> e.name().equals("MonitorContendedEnter")
                && e.fields().get(0).equals(String.format("%08X", 0x1000_0006))).findFirst().orElseThrow();
        assertNotEquals("MonitorOwner", ev.get(ev.indexOf(victimEnter) + 1).name(), "no MonitorOwner line when unknown");
        assertTrue(ev.stream().anyMatch(e -> e.name().equals("MonitorOwner")));
        List<Path> spec = Output.write(r, Output.select("csv"), dir.resolve("spec.csv"));
        assertEquals(CsvSpecReader.read(spec.get(0), spec.get(1)).events().size(),
                ev.stream().filter(e -> !CsvLogReader.EXTENSION.contains(e.name())).count(),
                "the specification's lines and Convoy's");
    }

    @Test
    void theLossesFileListsEveryLoss() throws Exception {
        Recording r = SnapshotReader.read(Fixtures.all().toBytes());
        assertTrue(r.hasLosses(), "the fixture lost records");
        CsvLogReader.Losses losses = CsvLogReader.readLosses(Output.write(r, Output.select("csv"),
                dir.resolve("l.csv")).get(2));
        assertEquals(r.recordsWritten(), losses.records().written());
        assertEquals(r.recordsOverwritten(), losses.records().overwritten());
        assertEquals(r.recordsAged(), losses.records().aged());
        assertEquals(r.losses().size(), losses.losses().stream().filter(l -> !l.thread().equals("00000000")).count());
        for (var e : r.losses()) {
            String thread = String.format("%08X", r.identityHash(e.getKey().threadObject()));
            assertTrue(losses.losses().stream().anyMatch(l -> l.thread().equals(thread)
                    && l.kind().equals(e.getValue().kindName()) && l.records() == e.getValue().records()
                    && CsvLogReader.unescape(l.threadName()).equals(e.getKey().displayName())), e::toString);
        }
    }

    @Test
    void pathRule() {
        assertEquals(Path.of("/x/a.meta.csv"), CsvLogWriter.metaPath(Path.of("/x/a.csv")));
        assertEquals(Path.of("/x/a.events.csv"), CsvLogWriter.eventsPath(Path.of("/x/a")));
        assertEquals(Path.of("/x/a.events-ext.csv"), CsvLogWriter.extendedEventsPath(Path.of("/x/a.csv")));
        assertEquals(Path.of("/x/a.losses.csv"), CsvLogWriter.lossesPath(Path.of("/x/a")));
        assertEquals("a%2Cb%25c%0A", CsvLogWriter.escape("a,b%c\n"));
    }
}
