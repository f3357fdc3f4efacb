package dev.convoy.export;

import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.convoy.model.Recording;
import dev.convoy.schema.ChromeTraceChecker;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Every output says what was lost ({@link Fixtures#losses}: lost-early's records 10..200 aged out
 * and 200..400 overwritten, the notifier's 150..350 overwritten): the Chrome trace draws each loss
 * as an "unknown (records lost)" slice, nothing else in it and no arrow across it; JFR has a
 * {@code dev.convoy.DataLoss} per loss; TPTP lists them as options; the flame graph page and the
 * trace's metadata give the totals.
 */
class LossOutputsTest {

    @TempDir
    Path dir;

    final Recording r = read(Fixtures.losses(Fixtures.base()).toBytes());

    static Recording read(byte[] b) {
        try {
            return SnapshotReader.read(b);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static double us(long ns) {
        return (ns - T0) / 1000.0;
    }

    @Test
    void chromeTraceDrawsEachLossAsUnknownAndNothingAcrossIt() throws Exception {
        Path out = dir.resolve("trace.json");
        Output.write(r, Set.of(Output.CHROME), out);
        ChromeTraceChecker.check(out);
        JsonNode root = new ObjectMapper().readTree(Files.readString(out, StandardCharsets.UTF_8));
        List<JsonNode> lost = new ArrayList<>();
        List<JsonNode> slices = new ArrayList<>();
        Map<Long, JsonNode[]> flows = new HashMap<>();
        for (JsonNode e : root.get("traceEvents")) {
            String ph = e.path("ph").asText();
            if (ph.equals("X") && e.path("cat").asText().equals("lost")) {
                lost.add(e);
            } else if (ph.equals("X") && e.path("tid").asLong() != ChromeTraceWriter.CRITICAL_TID) {
                slices.add(e);
            } else if (ph.equals("s") || ph.equals("f")) {
                flows.computeIfAbsent(e.get("id").asLong(), k -> new JsonNode[2])[ph.equals("s") ? 0 : 1] = e;
            }
        }
        List<String> got = lost.stream().map(e -> e.get("tid").asLong() + " " + e.get("name").asText() + " "
                + e.get("ts").asDouble() + "+" + e.get("dur").asDouble() + " " + e.at("/args/kind").asText() + " "
                + e.at("/args/records").asLong()).sorted().toList();
        assertEquals(List.of(
                TID_LE + " unknown (records lost) 10.0+190.0 aged 100",
                TID_LE + " unknown (records lost) 200.0+200.0 overwritten 200",
                TID_LN + " unknown (records lost) 150.0+200.0 overwritten 500"), got);
        for (JsonNode l : lost) { // nothing else of that thread in its unknown time
            double from = l.get("ts").asDouble();
            double to = from + l.get("dur").asDouble();
            for (JsonNode s : slices) {
                if (s.get("tid").asLong() == l.get("tid").asLong()) {
                    double a = s.get("ts").asDouble();
                    double b = a + s.get("dur").asDouble();
                    assertFalse(a < to && from < b && b > a, s + " overlaps " + l);
                }
            }
        }
        JsonNode cut = slices.stream().filter(s -> s.get("tid").asLong() == TID_LN).findFirst().orElseThrow();
        assertEquals("blocked on com.example.Lock", cut.get("name").asText());
        assertEquals(140.0, cut.get("ts").asDouble());
        assertEquals(10.0, cut.get("dur").asDouble(), "cut where the loss begins");
        assertEquals("records lost", cut.at("/args/result").asText());
        assertEquals(2, flows.size(), "the two handoffs the VM recorded; nothing bound across the losses");
        for (JsonNode[] f : flows.values()) {
            assertNotEquals(f[0].get("tid").asLong(), f[1].get("tid").asLong(), "an arrow to its own thread");
            assertTrue(f[0].get("ts").asDouble() <= f[1].get("ts").asDouble(), "an arrow backwards in time");
            for (JsonNode l : lost) { // (an arrow of no length spans no time)
                double from = l.get("ts").asDouble();
                double to = from + l.get("dur").asDouble();
                double a = f[0].get("ts").asDouble();
                double b = f[1].get("ts").asDouble();
                assertFalse(a < b && a < to && from < b, "an arrow across " + l);
            }
        }
        JsonNode meta = root.get("metadata");
        assertEquals(1500, meta.get("records_written").asLong());
        assertEquals(700, meta.get("records_lost_overwritten").asLong());
        assertEquals(100, meta.get("records_lost_aged").asLong());
        assertEquals(2, meta.get("threads_with_lost_records").asLong());
        assertTrue(meta.get("records_summary").asText().startsWith("Records: 1500 written, 800 lost"));
        assertEquals(String.valueOf(t(200)), meta.get("history.from.ns").asText());

        // nothing lost: no lost slice, and the metadata says so
        ByteArrayOutputStream none = new ByteArrayOutputStream();
        new ChromeTraceWriter().write(read(Fixtures.contention(Fixtures.base()).toBytes()), none);
        JsonNode n = new ObjectMapper().readTree(none.toByteArray());
        for (JsonNode e : n.get("traceEvents")) {
            assertNotEquals("lost", e.path("cat").asText());
        }
        assertEquals("Records: 54 written, nothing lost.", n.at("/metadata/records_summary").asText());
    }

    @Test
    void jfrHasADataLossPerLoss() throws Exception {
        Path out = dir.resolve("r.jfr");
        Output.write(r, Set.of(Output.JFR), out);
        List<String> losses = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(out)) {
            if (e.getEventType().getName().equals("dev.convoy.DataLoss")) {
                losses.add((e.getThread() == null ? "-" : e.getThread().getJavaName()) + " "
                        + (e.getStartTime().toEpochMilli() * 1_000_000 + e.getStartTime().getNano() % 1_000_000
                        - EPOCH0) / 1000 + "us+" + e.getDuration().toNanos() / 1000 + "us "
                        + e.getString("kind") + " " + e.getLong("records"));
                assertEquals("Data Loss", e.getEventType().getLabel());
                assertTrue(e.getEventType().getDescription().contains("unknown"));
            }
        }
        losses.sort(null);
        assertEquals(List.of("lost-early 10us+190us aged 100", "lost-early 200us+200us overwritten 200",
                "notifier 150us+200us overwritten 500"), losses);
        // records of threads the recording no longer holds: INFO's totals beyond the losses listed
        Recording more = read(Fixtures.losses(Fixtures.base()).info("records.overwritten", "750").toBytes());
        Path out2 = dir.resolve("more.jfr");
        Output.write(more, Set.of(Output.JFR), out2);
        List<String> without = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(out2)) {
            if (e.getEventType().getName().equals("dev.convoy.DataLoss") && e.getThread() == null) {
                without.add(e.getString("kind") + " " + e.getLong("records") + " " + e.getDuration().toNanos());
            }
        }
        assertEquals(List.of("overwritten 50 " + (SNAP - T0)), without);
    }

    @Test
    void tptpListsTheLossesAsOptionsAndStaysValid() throws Exception {
        Path out = dir.resolve("trace.trcxml");
        Output.write(r, Set.of(Output.TPTP), out);
        dev.convoy.schema.TptpValidator.validate(out);
        NodeList options = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(out.toFile())
                .getElementsByTagName("option");
        List<String> got = new ArrayList<>();
        for (int i = 0; i < options.getLength(); i++) {
            Element o = (Element) options.item(i);
            got.add(o.getAttribute("key") + "=" + o.getAttribute("value"));
        }
        assertEquals("TRACE_IDREFS=false", got.get(0));
        assertTrue(got.get(1).startsWith("convoy.records=Records: 1500 written, 800 lost"), got.get(1));
        assertEquals(List.of(
                "convoy.loss=threadId=" + R_LE + " kind=aged from=1700000000.123466789 to=1700000000.123656789 records=100",
                "convoy.loss=threadId=" + R_LE + " kind=overwritten from=1700000000.123656789 to=1700000000.123856789 "
                        + "records=200",
                "convoy.loss=threadId=" + R_LN + " kind=overwritten from=1700000000.123606789 to=1700000000.123806789 "
                        + "records=500"), got.subList(2, got.size()));
    }

    @Test
    void theFlameGraphPageSaysWhatWasLost() throws Exception {
        ByteArrayOutputStream page = new ByteArrayOutputStream();
        FlameGraph.write(r, page);
        String html = page.toString(StandardCharsets.UTF_8);
        assertTrue(html.contains("<p class=\"small\" id=\"convoy-records\">Records: 1500 written, 800 lost (700 "
                + "overwritten in the threads&#39; rings".replace("&#39;", "'")), html.substring(0, 2000));
        assertTrue(html.contains("The time of lost records is in no frame.</p>"));
        ByteArrayOutputStream none = new ByteArrayOutputStream();
        FlameGraph.write(read(Fixtures.contention(Fixtures.base()).toBytes()), none);
        assertTrue(none.toString(StandardCharsets.UTF_8).contains(">Records: 54 written, nothing lost.</p>"));
    }
}
