package dev.convoy.export;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import dev.convoy.model.Recording;
import dev.convoy.report.ContentionReport;
import dev.convoy.schema.ChromeTraceChecker;
import dev.convoy.schema.CsvLogReader;
import dev.convoy.schema.CsvLogReader.EventLine;
import dev.convoy.schema.TptpValidator;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.RecordingBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * Every format says whether the owner at a monitor's contended enter is exact or inferred
 * ({@code docs/formats.md}): t blocks five times, on M1 with the exact owner a, on M2 with
 * exactly no owner, on M3 with the exact owner 777 (a thread the recording has no ring for),
 * on M4 with the inferred owner a (a's ENTERED before), on M5 with no owner known. Its
 * acquisition of M4 is a handoff from a, inferred.
 */
class MonitorOwnerFormatsTest {

    @TempDir
    Path dir;

    static final long A = 11, T = 14;
    static final String A_HASH = String.format("%08X", 0x1000_0000);
    static final String T_HASH = String.format("%08X", 0x1000_0003);

    final Recording r = read();

    static Recording read() {
        RecordingBuilder b = Fixtures.base();
        b.thread(1, A, O_MAIN, "a").span(t(0), 0)
                .event(t(5), EVENT_MONITOR_ENTER, S_RUN, M4, 0)
                .event(t(6), EVENT_MONITOR_ENTERED, 0, M4, 0);
        b.thread(4, T, O_H1, "t").span(t(0), 0)
                .event(t(10), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, A)
                .event(t(11), EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(20), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M2, 0, -1)
                .event(t(21), EVENT_MONITOR_ENTERED, 0, M2, 0)
                .event(t(30), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M3, 0, 777)
                .event(t(31), EVENT_MONITOR_ENTERED, 0, M3, 0)
                .event(t(40), EVENT_MONITOR_ENTER, S_RUN, M4, 0)
                .event(t(50), EVENT_MONITOR_ENTERED, 0, M4, 0)
                .event(t(60), EVENT_MONITOR_ENTER, S_RUN, M5, 0)
                .event(t(61), EVENT_MONITOR_ENTERED, 0, M5, 0);
        try {
            return SnapshotReader.read(b.toBytes());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void chrome() throws Exception {
        Path out = dir.resolve("o.json");
        Output.write(r, Set.of(Output.CHROME), out);
        List<JsonNode> ev = ChromeTraceChecker.check(out);
        List<String> owners = new ArrayList<>();
        for (JsonNode e : ev) {
            if (e.path("cat").asText().equals("monitor") && e.path("tid").asLong() == T) {
                JsonNode a = e.path("args");
                owners.add(a.path("monitor_id").asLong() + " " + a.path("owner").asText() + " " + a.path("owner_tid").asLong()
                        + " " + (a.has("owner_exact") ? a.path("owner_exact").asBoolean() : "-"));
            }
        }
        assertEquals(List.of(M1 + " a " + A + " true", M2 + " none 0 true", M3 + " thread 777 777 true",
                M4 + " a " + A + " false", M5 + " unknown 0 -"), owners);
        JsonNode acquired = ev.stream().filter(e -> e.path("name").asText().equals("monitor acquired")
                && e.path("args").path("monitor_id").asLong() == M4).findFirst().orElseThrow();
        assertEquals("a", acquired.path("args").path("by").asText());
        assertEquals(A, acquired.path("args").path("by_tid").asLong());
        assertFalse(acquired.path("args").path("by_exact").asBoolean(true),
                "without FLAG_RELEASER a monitor's releaser is inferred");
    }

    @Test
    void tptp() throws Exception {
        Path out = dir.resolve("o.trcxml");
        Output.write(r, Set.of(Output.TPTP), out);
        Document doc = TptpValidator.validate(out);
        List<String> owners = new ArrayList<>();
        for (Element e : TptpValidator.elements(doc.getDocumentElement())) {
            if (e.getTagName().equals("monContendedEnter") && e.getAttribute("threadIdRef").equals("4")) {
                List<Element> children = TptpValidator.elements(e);
                Element first = children.get(0);
                owners.add(e.getAttribute("objIdRef") + " " + e.getAttribute("threadOwner") + " "
                        + (first.getAttribute("name").equals("owner") ? first.getAttribute("value") : "-"));
                assertEquals("frame", children.get(children.size() - 1).getAttribute("name"), "then the stack");
            }
        }
        assertEquals(List.of(M1 + " 1 exact", M2 + " 0 none", M3 + " 0 exact", M4 + " 1 inferred", M5 + " 0 -"), owners);
    }

    @Test
    void csvExtension() throws Exception {
        List<Path> files = Output.write(r, Output.select("csv-ext"), dir.resolve("o"));
        List<EventLine> ev = CsvLogReader.read(files.get(0), files.get(1)).events();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < ev.size(); i++) {
            EventLine e = ev.get(i);
            if (e.name().equals("MonitorContendedEnter") && e.fields().get(0).equals(T_HASH)) {
                EventLine next = ev.get(i + 1);
                lines.add(String.join(",", e.fields().subList(1, 3)) + " "
                        + (next.name().equals("MonitorOwner") ? String.join(",", next.fields()) : "-"));
            }
        }
        assertEquals(List.of(
                "AAAA0001," + A_HASH + " " + T_HASH + ",AAAA0001," + A_HASH + ",exact",
                "AAAA0002,00000000 " + T_HASH + ",AAAA0002,00000000,none",
                "AAAA0003,00000000 " + T_HASH + ",AAAA0003,00000000,exact",
                "AAAA0004," + A_HASH + " " + T_HASH + ",AAAA0004," + A_HASH + ",inferred",
                "AAAA0005,00000000 -"), lines);
    }

    @Test
    void report() {
        String text = ContentionReport.of(r).text();
        assertTrue(text.lines().anyMatch(l -> l.matches("\\s+t\\s+a\\s+lock held \\(inferred\\)\\s+2\\s+.*")), text);
    }
}
