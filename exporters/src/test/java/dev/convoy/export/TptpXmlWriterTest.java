package dev.convoy.export;

import static dev.convoy.testing.Fixtures.*;
import java.util.Set;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.model.Recording;
import dev.convoy.schema.FormatViolation;
import dev.convoy.schema.TptpValidator;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

public class TptpXmlWriterTest {

    @TempDir
    Path dir;

    /**
     * Validates a produced file with {@link TptpValidator}: a validating parser against
     * schema/convoy-trace.dtd (any warning or error fails), "defined before referenced" and
     * the time format.
     */
    public static Document validate(Path file) throws Exception {
        return TptpValidator.validate(file);
    }

    static List<Element> elements(Element parent) {
        return TptpValidator.elements(parent);
    }

    static List<Element> byTag(Document doc, String tag) {
        return elements(doc.getDocumentElement()).stream().filter(e -> e.getTagName().equals(tag)).toList();
    }

    Document export(Recording r) throws Exception {
        Path out = dir.resolve("trace.trcxml");
        assertEquals(List.of(out.toAbsolutePath()), Output.write(r, Set.of(Output.TPTP), out));
        return validate(out);
    }

    @Test
    void fullRecordingIsValidAndComplete() throws Exception {
        Document doc = export(SnapshotReader.read(Fixtures.all().toBytes()));
        List<Element> all = elements(doc.getDocumentElement());
        assertEquals(List.of("node", "processCreate", "agentCreate", "traceStart", "option"),
                all.subList(0, 5).stream().map(Element::getTagName).toList());
        assertEquals("TRACE_IDREFS", all.get(4).getAttribute("key"));
        assertEquals("false", all.get(4).getAttribute("value"));
        assertEquals(all.get(0).getAttribute("nodeId"), all.get(1).getAttribute("nodeIdRef"));
        assertEquals(all.get(1).getAttribute("processId"), all.get(2).getAttribute("processIdRef"));
        assertEquals(all.get(2).getAttribute("agentId"), all.get(3).getAttribute("agentIdRef"));
        assertEquals("4242", all.get(1).getAttribute("pid"));
        assertEquals("1700000000.123456789", all.get(0).getAttribute("time"));
        assertEquals(List.of("traceEnd", "agentDestroy"),
                all.subList(all.size() - 2, all.size()).stream().map(Element::getTagName).toList());

        List<Element> starts = byTag(doc, "threadStart");
        assertEquals(7, starts.size(), "one per Java thread ring, none for GC");
        Element waiter = starts.stream().filter(e -> e.getAttribute("threadId").equals(String.valueOf(R_WAITER))).findFirst().orElseThrow();
        assertEquals("waiter, \uFFFDcaf\u00e9 \uD83D\uDE00", waiter.getAttribute("threadName"), "NUL is not XML");
        assertEquals("workers, all", waiter.getAttribute("groupName"));
        assertEquals(String.valueOf(O_WAITER), waiter.getAttribute("objIdRef"));

        List<Element> enters = byTag(doc, "monContendedEnter");
        assertEquals(7, enters.size());
        Element mainEnter = enters.stream().filter(e -> e.getAttribute("threadIdRef").equals("1")).findFirst().orElseThrow();
        assertEquals(String.valueOf(R_W1), mainEnter.getAttribute("threadOwner"));
        assertEquals(String.valueOf(M2), mainEnter.getAttribute("objIdRef"));
        assertEquals(List.of("owner=inferred", "frame=" + M_RUN + ":12"), elements(mainEnter).stream()
                .map(a -> a.getAttribute("name") + "=" + a.getAttribute("value")).toList(),
                "the owner SECTION_MONITORS lists at the snapshot is inferred at the enter; then the stack");
        Element victimEnter = enters.stream().filter(e -> e.getAttribute("threadIdRef").equals(String.valueOf(R_VICTIM))).findFirst().orElseThrow();
        assertEquals("0", victimEnter.getAttribute("threadOwner"), "unknown owner is 0");
        assertTrue(elements(victimEnter).stream().noneMatch(a -> a.getAttribute("name").equals("owner")),
                "an unknown owner has no owner annotation");

        List<Element> waited = byTag(doc, "monWaited");
        assertEquals(List.of("1", "0", "1"), waited.stream().map(e -> e.getAttribute("isTimedOut")).toList());
        assertEquals(List.of("", "0", "50"), waited.stream().map(e -> e.getAttribute("timeout")).toList(),
                "the victim's WAITED lost its WAIT: no timeout");
        assertEquals(List.of("0", "50"), byTag(doc, "monWait").stream().map(e -> e.getAttribute("timeout")).toList());

        assertEquals(2, byTag(doc, "gcStart").size());
        assertEquals(2, byTag(doc, "gcFinish").size());
        List<Element> ends = byTag(doc, "threadEnd");
        assertEquals(1, ends.size());
        assertEquals(String.valueOf(R_H1), ends.get(0).getAttribute("threadIdRef"));
        assertEquals("1700000000.128456789", ends.get(0).getAttribute("time"));

        assertTrue(byTag(doc, "methodDef").stream().anyMatch(m -> m.getAttribute("name").equals("-init-")
                && m.getAttribute("startLineNumber").equals("3")));
        assertTrue(byTag(doc, "classDef").stream().anyMatch(c -> c.getAttribute("name").equals("com.example.Lock")));
    }

    @Test
    void eachScenarioAloneIsValid() throws Exception {
        for (var scenario : List.of(Fixtures.deadlock(Fixtures.base()), Fixtures.waitNotify(Fixtures.base()),
                Fixtures.handoffChain(Fixtures.base()), Fixtures.gc(Fixtures.base()),
                Fixtures.overwritten(Fixtures.base()), Fixtures.base())) {
            export(SnapshotReader.read(scenario.toBytes()));
        }
    }

    @Test
    void validatorChecksTheCallElementsReferences() throws Exception {
        String head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><TRACE><node nodeId=\"n\" hostname=\"h\" ipaddress=\"i\""
                + " timezone=\"0\" time=\"1.000000000\"/><processCreate processId=\"p\" pid=\"1\" nodeIdRef=\"n\""
                + " time=\"1.000000000\"/><agentCreate agentId=\"a\" processIdRef=\"p\" agentName=\"convoy\""
                + " agentType=\"Profiler\" agentParameters=\"\" version=\"\" time=\"1.000000000\"/>"
                + "<traceStart traceId=\"t\" agentIdRef=\"a\" time=\"1.000000000\"/>";
        String tail = "<traceEnd time=\"1.000000000\"/><agentDestroy agentIdRef=\"a\" time=\"1.000000000\"/></TRACE>";
        Path bad = dir.resolve("calls.trcxml");
        Files.writeString(bad, head + "<callStart threadId=\"7\" time=\"1.000000000\" objIdRef=\"9\"/>"
                + "<callNotify threadId=\"7\" time=\"1.000000000\" objIdRef=\"9\" isNotifyAll=\"2\"/>" + tail);
        FormatViolation v = assertThrows(FormatViolation.class, () -> validate(bad));
        assertTrue(v.problems().stream().anyMatch(p -> p.contains("threadId=7 refers to no threadStart")), v.getMessage());
        assertTrue(v.problems().stream().anyMatch(p -> p.contains("objIdRef=9 refers to no objAlloc")), v.getMessage());
        assertTrue(v.problems().stream().anyMatch(p -> p.startsWith("error")), "isNotifyAll is 1|0: " + v.getMessage());
        Path sleep = dir.resolve("sleep.trcxml");
        Files.writeString(sleep, head + "<threadStart threadId=\"7\" time=\"1.000000000\" threadName=\"x\" groupName=\"\""
                + " parentName=\"\"/><monWait threadIdRef=\"7\" time=\"1.000000000\" objIdRef=\"-1\" timeout=\"5\"/>"
                + "<threadInterrupted threadId=\"7\" time=\"1.000000000\"/>" + tail);
        validate(sleep);
    }

    @Test
    void validatorRejectsWhatTheDtdDoesNotAllow() throws Exception {
        Path bad = dir.resolve("bad.trcxml");
        Files.writeString(bad, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><TRACE><traceEnd time=\"1.000000000\"/></TRACE>");
        FormatViolation v = assertThrows(FormatViolation.class, () -> validate(bad));
        assertTrue(v.problems().stream().anyMatch(p -> p.startsWith("error")), v.getMessage());
    }
}
