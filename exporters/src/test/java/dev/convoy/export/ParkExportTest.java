package dev.convoy.export;

import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import dev.convoy.model.Recording;
import dev.convoy.report.ContentionReport;
import dev.convoy.schema.ChromeTraceChecker;
import dev.convoy.schema.CsvLogReader;
import dev.convoy.schema.CsvLogReader.EventLine;
import dev.convoy.schema.CsvSpecReader;
import dev.convoy.schema.TptpValidator;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/** Every writer on {@link Fixtures#parks}, each output checked by its checker ({@code docs/formats.md}). */
class ParkExportTest {

    @TempDir
    Path dir;

    final Recording r = read();

    static Recording read() {
        try {
            return SnapshotReader.read(Fixtures.parks(Fixtures.base()).toBytes());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static final String ACQ = String.format("%08X", 0x3000_0001);
    static final String HOLDER = String.format("%08X", 0x3000_0000);

    @Test
    void chrome() throws Exception {
        Path out = dir.resolve("p.json");
        Output.write(r, Set.of(Output.CHROME), out);
        List<JsonNode> ev = ChromeTraceChecker.check(out);
        List<JsonNode> slices = ev.stream().filter(e -> e.path("cat").asText().equals("park")).toList();
        assertEquals(7, slices.size());
        JsonNode lock = slices.stream().filter(e -> e.path("tid").asLong() == TID_ACQ
                && e.path("name").asText().startsWith("blocked on")).findFirst().orElseThrow();
        assertEquals("blocked on " + REENTRANT_LOCK, lock.path("name").asText());
        assertEquals(100, lock.path("ts").asLong());
        assertEquals(100, lock.path("dur").asLong());
        JsonNode args = lock.path("args");
        assertEquals("holder", args.path("owner").asText());
        assertEquals(TID_HOLDER, args.path("owner_tid").asLong());
        assertTrue(args.path("owner_exact").asBoolean());
        assertEquals(RL1, args.path("monitor_id").asLong());
        assertEquals("unparked", args.path("result").asText());
        assertTrue(args.path("stack").get(0).asText().startsWith("java.util.concurrent.locks.LockSupport.park("));
        assertTrue(slices.stream().anyMatch(e -> e.path("name").asText().equals("parked on " + CONDITION_OBJECT)
                && e.path("args").path("result").asText().equals("timed out")
                && e.path("args").path("timeout_ns").asLong() == 1_000_000));
        assertTrue(slices.stream().anyMatch(e -> e.path("name").asText().equals("parked")
                && e.path("args").path("monitor_id").isMissingNode()));
        assertTrue(slices.stream().anyMatch(e -> e.path("args").path("result").asText().equals("interrupted")));
        assertTrue(slices.stream().anyMatch(e -> e.path("args").path("result").asText().equals("still blocked at snapshot")));
        // the parks fixture has no monitor: no monitor slice (their owner_exact: MonitorOwnerFormatsTest)
        assertTrue(ev.stream().noneMatch(e -> e.path("cat").asText().equals("monitor")));

        List<JsonNode> calls = ev.stream().filter(e -> e.path("name").asText().equals("LockSupport.unpark")).toList();
        assertEquals(6, calls.size());
        List<JsonNode> arrows = ev.stream().filter(e -> e.path("ph").asText().equals("s")
                && e.path("cat").asText().equals("unpark")).toList();
        assertEquals(List.of(180L, 350L, 1500L, 2000L), arrows.stream().map(e -> e.path("ts").asLong()).toList());
        assertTrue(arrows.stream().allMatch(e -> e.path("tid").asLong() == TID_HOLDER));
        List<JsonNode> ends = ev.stream().filter(e -> e.path("ph").asText().equals("f")
                && e.path("cat").asText().equals("unpark")).toList();
        assertEquals(List.of(200L, 360L, 1601L, 2050L), ends.stream().map(e -> e.path("ts").asLong()).sorted().toList());
        JsonNode unparked = ev.stream().filter(e -> e.path("name").asText().equals("unparked")
                && e.path("ts").asLong() == 200).findFirst().orElseThrow();
        assertEquals("holder", unparked.path("args").path("by").asText());
        assertEquals(REENTRANT_LOCK, unparked.path("args").path("monitor").asText());
    }

    @Test
    void chromeDeadlockedParks() throws Exception {
        Recording d = SnapshotReader.read(Fixtures.parkDeadlock(Fixtures.base()).toBytes());
        Path out = dir.resolve("d.json");
        Output.write(d, Set.of(Output.CHROME), out);
        List<JsonNode> ev = ChromeTraceChecker.check(out);
        assertTrue(ev.stream().anyMatch(e -> e.path("name").asText().equals("holder: deadlocked on " + REENTRANT_LOCK)
                || e.path("name").asText().equals("acquirer: deadlocked on " + REENTRANT_LOCK)), ev.toString());
    }

    @Test
    void tptp() throws Exception {
        Path out = dir.resolve("p.trcxml");
        Output.write(r, Set.of(Output.TPTP), out);
        Document doc = TptpValidator.validate(out);
        List<Element> all = TptpValidator.elements(doc.getDocumentElement());
        List<Element> enters = tag(all, "monContendedEnter");
        assertEquals(2, enters.size(), "the two lock parks");
        assertEquals(String.valueOf(R_ACQ), enters.get(0).getAttribute("threadIdRef"));
        assertEquals(String.valueOf(RL1), enters.get(0).getAttribute("objIdRef"));
        assertEquals(String.valueOf(R_HOLDER), enters.get(0).getAttribute("threadOwner"), "exact, from the record");
        List<Element> children = TptpValidator.elements(enters.get(0));
        assertEquals(3, children.size(), "the owner annotation, then the park's stack");
        assertEquals("owner", children.get(0).getAttribute("name"));
        assertEquals("exact", children.get(0).getAttribute("value"), "a lock park's owner is exact");
        List<Element> entered = tag(all, "monContendedEntered");
        assertEquals(1, entered.size());
        List<Element> waits = tag(all, "monWait");
        assertEquals(4, waits.size(), "the parks on COND; the park without a blocker has no element");
        assertEquals(List.of("0", "1", "0", "0"), waits.stream().map(e -> e.getAttribute("timeout")).toList());
        List<Element> waited = tag(all, "monWaited");
        assertEquals(List.of("0", "1", "0", "0"), waited.stream().map(e -> e.getAttribute("isTimedOut")).toList());
        assertTrue(waited.stream().allMatch(e -> e.getAttribute("objIdRef").equals(String.valueOf(COND))));
    }

    static final String CONS = String.format("%08X", 0x3000_0002);

    @Test
    void csvWritesParksAsTheSpecificationsEnterAndWait() throws Exception {
        List<Path> files = Output.write(r, Output.select("csv"), dir.resolve("p.csv"));
        CsvSpecReader.Logs spec = CsvSpecReader.read(files.get(0), files.get(1));
        List<String> lines = spec.events().stream().filter(e -> !e.name().startsWith("Thread"))
                .map(e -> e.name() + " " + String.join(" ", e.fields()) + " frames=" + e.frames().size()).toList();
        assertEquals(List.of(
                "MonitorContendedEnter " + ACQ + " CCCC0001 " + HOLDER + " frames=2", // a lock's park, its exact owner
                "MonitorContendedEntered " + ACQ + " CCCC0001 frames=0",
                "ObjectWait " + CONS + " CCCC0003 frames=2", // a condition's park: a wait on the condition
                "ObjectWaited " + CONS + " CCCC0003 frames=0",
                "ObjectWait " + CONS + " CCCC0003 frames=2",
                "ObjectWaited " + CONS + " CCCC0003 frames=0",
                "ObjectWait " + CONS + " CCCC0003 frames=2",
                "ObjectWaited " + CONS + " CCCC0003 frames=0",
                // the park without a blocker (1990..2050) has no line
                "ObjectWait " + ACQ + " CCCC0003 frames=2",
                "ObjectWaited " + ACQ + " CCCC0003 frames=0",
                "MonitorContendedEnter " + CONS + " CCCC0001 " + HOLDER + " frames=2"), lines);
        assertEquals(3, spec.events().stream().filter(e -> e.name().equals("ThreadStarted")).count());
        assertEquals(new CsvLogReader.Records(r.recordsWritten(), 0, 0, 0, 0, 0),
                CsvLogReader.readLosses(files.get(2)).records(), "nothing lost, and the losses file says so");
    }

    @Test
    void csvExtensionSaysWhatTheSpecificationCannot() throws Exception {
        List<Path> spec = Output.write(r, Output.select("csv"), dir.resolve("p.csv"));
        List<Path> files = Output.write(r, Output.select("csv-ext"), dir.resolve("x.csv"));
        assertEquals(List.of("x.meta.csv", "x.events-ext.csv", "x.losses.csv"),
                files.stream().map(p -> p.getFileName().toString()).toList());
        CsvLogReader.Logs logs = CsvLogReader.read(files.get(0), files.get(1));
        List<EventLine> parks = logs.events().stream().filter(e -> e.name().equals("ThreadPark")).toList();
        assertEquals(7, parks.size());
        EventLine lock = parks.get(0);
        assertEquals(List.of(ACQ, "CCCC0001", HOLDER, "1", "0"), lock.fields());
        assertEquals(2, lock.frames().size());
        List<EventLine> ev = logs.events();
        int at = ev.indexOf(lock);
        assertEquals("MonitorOwner", ev.get(at - 1).name(), "after the enter it stands for and its owner's kind");
        assertEquals(List.of(ACQ, "CCCC0001", HOLDER, "exact"), ev.get(at - 1).fields());
        assertEquals("MonitorContendedEnter", ev.get(at - 2).name());
        assertEquals(List.of(CONS, "CCCC0003", "00000000", "0", "1000000"), parks.get(2).fields(), "its timeout, ns");
        assertEquals(List.of(ACQ, "00000000", "00000000", "0", "0"), parks.get(4).fields(), "no blocker, no owner");
        assertNotEquals(parks.get(4).ts(), ev.get(ev.indexOf(parks.get(4)) - 1).ts(), "alone: no line of the spec's");
        List<EventLine> parked = logs.events().stream().filter(e -> e.name().equals("ThreadParked")).toList();
        assertEquals(6, parked.size());
        assertEquals(List.of(ACQ, "CCCC0001", "0", "0"), parked.get(0).fields());
        assertEquals("MonitorContendedEntered", ev.get(ev.indexOf(parked.get(0)) - 1).name());
        assertEquals(List.of(CONS, "CCCC0003", "1", "0"), parked.get(2).fields(), "timed out");
        assertEquals(List.of(ACQ, "CCCC0003", "0", "1"), parked.get(5).fields(), "interrupted");
        List<EventLine> unparks = logs.events().stream().filter(e -> e.name().equals("ThreadUnpark")).toList();
        assertEquals(6, unparks.size());
        assertEquals(List.of(HOLDER, ACQ), unparks.get(0).fields());
        // without Convoy's lines, the extended log is the specification's, line for line
        assertEquals(Files.readAllLines(spec.get(1)), Files.readAllLines(files.get(1)).stream()
                .filter(l -> !CsvLogReader.EXTENSION.contains(l.split(",")[1])).toList());
        assertArrayEquals(Files.readAllBytes(spec.get(2)), Files.readAllBytes(files.get(2)), "the same losses file");
    }

    @Test
    void report() {
        String text = ContentionReport.of(r).text();
        assertTrue(text.contains(REENTRANT_LOCK), text);
        assertTrue(text.contains(CONDITION_OBJECT), text);
        assertTrue(text.lines().anyMatch(l -> l.contains("acquirer") && l.contains("holder") && l.contains("lock held")), text);
        assertTrue(text.lines().anyMatch(l -> l.contains("consumer") && l.contains("holder") && l.contains("unpark")), text);
        assertTrue(text.contains("Contention analysis events: none"), "parks are no contention analysis events");
        assertFalse(text.contains("NonfairSync"), text);
    }

    static List<Element> tag(List<Element> all, String name) {
        return all.stream().filter(e -> e.getTagName().equals(name)).toList();
    }
}
