package dev.convoy.schema;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

class TptpValidatorTest {

    static final String HEAD = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><TRACE>"
            + "<node nodeId=\"n\" hostname=\"h\" ipaddress=\"1\" timezone=\"0\" time=\"1.000000000\"/>"
            + "<processCreate processId=\"p\" pid=\"1\" nodeIdRef=\"n\" time=\"1.000000000\"/>"
            + "<agentCreate agentId=\"a\" processIdRef=\"p\" agentName=\"c\" agentType=\"t\" agentParameters=\"\" version=\"1\" time=\"1.000000000\"/>"
            + "<traceStart traceId=\"t\" agentIdRef=\"a\" time=\"1.000000000\"/>";
    static final String TAIL = "<traceEnd time=\"2.000000000\"/><agentDestroy agentIdRef=\"a\" time=\"2.000000000\"/></TRACE>";
    static final String BODY = "<threadStart threadId=\"7\" time=\"1.100000000\" threadName=\"w\" groupName=\"g\" parentName=\"s\"/>"
            + "<classDef name=\"L\" sourceName=\"L.java\" classId=\"3\" time=\"1.100000000\"/>"
            + "<methodDef name=\"run\" signature=\"()V\" methodId=\"99\" classIdRef=\"3\"/>"
            + "<objAlloc objId=\"5\" classIdRef=\"3\" time=\"1.200000000\"/>"
            + "<monContendedEnter threadIdRef=\"7\" time=\"1.200000000\" objIdRef=\"5\" threadOwner=\"0\">"
            + "<annotation name=\"frame\" value=\"99:4\"/></monContendedEnter>";

    @Test
    void acceptsAValidTrace() {
        Document doc = TptpValidator.validate(HEAD + BODY + TAIL, "ok");
        assertEquals(11, TptpValidator.elements(doc.getDocumentElement()).size());
        assertNotNull(TptpValidator.dtd());
    }

    @Test
    void reportsEveryProblem() {
        String bad = HEAD + BODY.replace("objIdRef=\"5\"", "objIdRef=\"6\"").replace("99:4", "98:4")
                .replace("time=\"1.100000000\" threadName", "time=\"1.1\" threadName") + TAIL;
        List<String> p = assertThrows(FormatViolation.class, () -> TptpValidator.validate(bad, "bad")).problems();
        assertEquals(3, p.size(), p.toString());
        assertTrue(p.get(0).contains("9 fraction digits"), p.toString());
        assertTrue(p.get(1).contains("objIdRef=6"), p.toString());
        assertTrue(p.get(2).contains("method 98"), p.toString());
    }

    @Test
    void aContendedEnterMayStartWithAnOwnerAnnotation() {
        String owner = HEAD + BODY.replace("threadOwner=\"0\">", "threadOwner=\"0\"><annotation name=\"owner\" value=\"none\"/>")
                + TAIL;
        assertEquals(11, TptpValidator.elements(TptpValidator.validate(owner, "owner").getDocumentElement()).size());
        List<String> p = assertThrows(FormatViolation.class, () -> TptpValidator.validate(owner.replace("\"none\"",
                "\"sure\""), "bad")).problems();
        assertTrue(p.stream().anyMatch(s -> s.contains("owner annotation value 'sure'")), p.toString());
        String second = HEAD + BODY.replace("</monContendedEnter>", "<annotation name=\"owner\" value=\"exact\"/></monContendedEnter>")
                + TAIL;
        p = assertThrows(FormatViolation.class, () -> TptpValidator.validate(second, "late")).problems();
        assertTrue(p.stream().anyMatch(s -> s.contains("is not a frame")), "only as the first child: " + p);
    }

    @Test
    void theDtdIsEnforced() {
        List<String> p = assertThrows(FormatViolation.class, () -> TptpValidator.validate(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><TRACE><traceEnd time=\"1.000000000\"/></TRACE>", "x")).problems();
        assertTrue(p.stream().anyMatch(s -> s.startsWith("error")), p.toString());
        assertTrue(assertThrows(FormatViolation.class, () -> TptpValidator.validate(
                "<?xml version=\"1.0\"?><!DOCTYPE TRACE SYSTEM \"convoy-trace.dtd\">" + HEAD.substring(HEAD.indexOf("<TRACE>")) + TAIL, "d"))
                .problems().stream().anyMatch(s -> s.contains("DOCTYPE")));
        assertTrue(assertThrows(FormatViolation.class, () -> TptpValidator.validate(HEAD, "cut"))
                .problems().stream().anyMatch(s -> s.contains("not well-formed")));
    }
}
