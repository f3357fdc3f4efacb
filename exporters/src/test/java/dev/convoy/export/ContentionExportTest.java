package dev.convoy.export;

import static dev.convoy.testing.Fixtures.*;
import java.util.Set;
import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import dev.convoy.model.Recording;
import dev.convoy.schema.ChromeTraceChecker;
import dev.convoy.schema.CsvLogReader;
import dev.convoy.schema.CsvLogReader.EventLine;
import dev.convoy.schema.TptpValidator;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/** Every writer on {@link Fixtures#contention}, each output checked by its checker. */
class ContentionExportTest {

    @TempDir
    Path dir;

    final Recording r = read();

    static Recording read() {
        try {
            return SnapshotReader.read(Fixtures.contention(Fixtures.base()).toBytes());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static String hash(long i) {
        return String.format("%08X", 0x2000_0000 + i);
    }

    static final String MAIN = String.format("%08X", 0x1000_0000);

    @Test
    void tptp() throws Exception {
        Path out = dir.resolve("c.trcxml");
        Output.write(r, Set.of(Output.TPTP), out);
        Document doc = TptpValidator.validate(out);
        List<Element> all = TptpValidator.elements(doc.getDocumentElement());
        List<Element> starts = tag(all, "callStart");
        assertEquals(7, starts.size());
        assertEquals(String.valueOf(R_MAIN), starts.get(0).getAttribute("threadId"), "the calling thread's ring id");
        assertEquals(String.valueOf(O_P), starts.get(0).getAttribute("objIdRef"));
        assertEquals("1700000000.123466789", starts.get(0).getAttribute("time"));
        assertEquals(List.of(M_RUN + ":12"), TptpValidator.elements(starts.get(0)).stream()
                .map(a -> a.getAttribute("value")).toList());
        int objAlloc = indexOf(all, "objAlloc", "objId", String.valueOf(O_P));
        assertTrue(objAlloc < all.indexOf(starts.get(0)), "objAlloc before objIdRef");
        assertEquals(String.valueOf(R_P), starts.get(6).getAttribute("threadId"));
        assertEquals(String.valueOf(O_S), starts.get(6).getAttribute("objIdRef"));

        List<Element> notifies = tag(all, "callNotify");
        assertEquals(List.of("0", "1", "0", "0"), notifies.stream().map(e -> e.getAttribute("isNotifyAll")).toList());
        assertEquals(List.of(Q, Q, Q, L2).stream().map(String::valueOf).toList(),
                notifies.stream().map(e -> e.getAttribute("objIdRef")).toList());
        List<Element> interrupts = tag(all, "callInterrupt");
        assertEquals(1, interrupts.size());
        assertEquals(String.valueOf(O_W), interrupts.get(0).getAttribute("objIdRef"));
        List<Element> interrupted = tag(all, "threadInterrupted");
        assertEquals(1, interrupted.size());
        assertEquals(String.valueOf(R_W), interrupted.get(0).getAttribute("threadId"));

        List<Element> sleeps = tag(all, "monWait").stream().filter(e -> e.getAttribute("objIdRef").equals("-1")).toList();
        assertEquals(1, sleeps.size());
        assertEquals("1", sleeps.get(0).getAttribute("timeout"));
        List<Element> slept = tag(all, "monWaited").stream().filter(e -> e.getAttribute("objIdRef").equals("-1")).toList();
        assertEquals(1, slept.size());
        assertEquals("1", slept.get(0).getAttribute("isTimedOut"));
        // the join's waits stay monWait/monWaited on the Thread object: TPTP reads them as a join
        assertEquals(2, tag(all, "monWait").stream().filter(e -> e.getAttribute("objIdRef").equals(String.valueOf(O_P))
                || e.getAttribute("objIdRef").equals(String.valueOf(O_S))).count());
        Element timedOut = tag(all, "monWaited").stream().filter(e -> e.getAttribute("isTimedOut").equals("1")
                && e.getAttribute("objIdRef").equals(String.valueOf(Q))).findFirst().orElseThrow();
        assertEquals("50", timedOut.getAttribute("timeout"));
        Element joinWaited = tag(all, "monWaited").stream()
                .filter(e -> e.getAttribute("objIdRef").equals(String.valueOf(O_P))).findFirst().orElseThrow();
        assertEquals("0", joinWaited.getAttribute("timeout"), "a join's waited keeps its wait's timeout");
    }

    static List<Element> tag(List<Element> all, String tag) {
        return all.stream().filter(e -> e.getTagName().equals(tag)).toList();
    }

    static int indexOf(List<Element> all, String tag, String attr, String value) {
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).getTagName().equals(tag) && all.get(i).getAttribute(attr).equals(value)) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void csv() throws Exception {
        List<Path> files = Output.write(r, Output.select("csv"), dir.resolve("c.csv"));
        CsvLogReader.Logs logs = CsvLogReader.read(files.get(0), files.get(1));
        List<EventLine> ev = logs.events();
        Map<String, Long> counts = ev.stream().collect(Collectors.groupingBy(EventLine::name, Collectors.counting()));
        assertEquals(7L, counts.get("ThreadStart"));
        assertEquals(3L, counts.get("ObjectNotify"));
        assertEquals(1L, counts.get("ObjectNotifyAll"));
        assertEquals(2L, counts.get("ThreadJoin"));
        assertEquals(2L, counts.get("ThreadJoined"));
        assertEquals(1L, counts.get("ThreadSleep"));
        assertEquals(1L, counts.get("ThreadSlept"));
        assertEquals(8L, counts.get("ObjectWait"), "consumer and waiter waits; not the 2 inner waits of the joins");
        assertEquals(7L, counts.get("ObjectWaited"));
        EventLine start = ev.stream().filter(e -> e.name().equals("ThreadStart")).findFirst().orElseThrow();
        assertEquals(List.of(MAIN, hash(0)), start.fields());
        assertEquals(0.00001, start.ts(), 1e-12);
        assertEquals(1, start.frames().size());
        EventLine join = ev.stream().filter(e -> e.name().equals("ThreadJoin")).findFirst().orElseThrow();
        assertEquals(List.of(MAIN, hash(0)), join.fields(), "main joins producer");
        EventLine joined = ev.stream().filter(e -> e.name().equals("ThreadJoined")).findFirst().orElseThrow();
        assertEquals(List.of(hash(0), hash(5)), joined.fields(), "producer joined sleeper first");
        assertEquals(0, joined.frames().size());
        EventLine sleep = ev.stream().filter(e -> e.name().equals("ThreadSleep")).findFirst().orElseThrow();
        assertEquals(List.of(hash(5)), sleep.fields());
        EventLine notifyAll = ev.stream().filter(e -> e.name().equals("ObjectNotifyAll")).findFirst().orElseThrow();
        assertEquals(List.of(hash(0), "BBBB0001"), notifyAll.fields());
        assertTrue(ev.stream().noneMatch(e -> e.name().startsWith("ObjectWait") && e.fields().get(1).equals(hash(0))),
                "no ObjectWait on the joined Thread objects");
    }

    @Test
    void chrome() throws Exception {
        Path out = dir.resolve("c.json");
        Output.write(r, Set.of(Output.CHROME), out);
        List<JsonNode> ev = ChromeTraceChecker.check(out);
        List<JsonNode> starts = ev.stream().filter(e -> e.path("ph").asText().equals("s")).toList();
        Map<String, Long> byName = starts.stream().collect(Collectors.groupingBy(e -> e.path("cat").asText() + "/"
                + e.path("name").asText(), Collectors.counting()));
        assertEquals(Map.of("handoff/lock handoff", 2L, "start/starts thread", 7L, "notify/notify", 2L,
                "notify/notifyAll", 3L, "interrupt/interrupt", 1L, "join/thread ended", 2L), byName);
        assertEquals(17, starts.stream().map(e -> e.get("id").asLong()).distinct().count(), "unique ids");

        // notifyAll: one instant on the producer, three arrows to c1, c3, c4 at their wake
        JsonNode notifyAll = ev.stream().filter(e -> e.path("ph").asText().equals("I")
                && e.path("name").asText().equals("notifyAll")).findFirst().orElseThrow();
        assertEquals(TID_P, notifyAll.get("tid").asLong());
        assertEquals(new BigDecimal("300"), notifyAll.get("ts").decimalValue());
        assertEquals(List.of("c1", "c3", "c4"), list(notifyAll.path("args").path("woke")));
        List<JsonNode> notified = ev.stream().filter(e -> e.path("ph").asText().equals("f")
                && e.path("name").asText().equals("notifyAll")).toList();
        assertEquals(List.of(TID_C1, TID_C3, TID_C4), notified.stream().map(e -> e.get("tid").asLong()).toList());
        assertEquals(List.of(new BigDecimal("310"), new BigDecimal("320"), new BigDecimal("330")),
                notified.stream().map(e -> e.get("ts").decimalValue()).toList());
        JsonNode joinEnd = ev.stream().filter(e -> e.path("ph").asText().equals("f")
                && e.path("cat").asText().equals("join") && e.get("tid").asLong() == 1).findFirst().orElseThrow();
        assertEquals(new BigDecimal("2102"), joinEnd.get("ts").decimalValue());

        JsonNode sleep = slice(ev, TID_S, "sleep");
        assertEquals(new BigDecimal("900"), sleep.get("ts").decimalValue());
        assertEquals(new BigDecimal("1000"), sleep.get("dur").decimalValue());
        assertEquals("slept", sleep.path("args").path("result").asText());
        assertTrue(sleep.path("args").path("critical").asBoolean());
        JsonNode join = slice(ev, 1, "join producer");
        assertEquals(new BigDecimal("1102"), join.get("dur").decimalValue());
        assertTrue(join.path("args").path("critical").asBoolean());
        assertTrue(ev.stream().noneMatch(e -> e.path("name").asText().startsWith("wait on java.lang.Thread")),
                "the join's inner wait is no wait slice");
        assertFalse(slice(ev, TID_C2, "wait on com.example.Queue").path("args").has("critical"));
        assertEquals(6, ev.stream().filter(e -> e.path("ph").asText().equals("X")
                && e.path("args").path("critical").asBoolean()).count());
        for (String instant : List.of("Thread.start", "Thread.interrupt", "notify", "InterruptedException")) {
            assertTrue(ev.stream().anyMatch(e -> e.path("ph").asText().equals("I")
                    && e.path("name").asText().equals(instant)), instant);
        }

        List<JsonNode> critical = ev.stream().filter(e -> e.path("ph").asText().equals("X")
                && e.get("tid").asLong() == ChromeTraceWriter.CRITICAL_TID).toList();
        assertEquals(17, critical.size());
        assertEquals("main: running", critical.get(0).path("name").asText());
        assertEquals("c1: wait on com.example.Queue", critical.get(3).path("name").asText());
        assertEquals("notify_all", critical.get(3).path("args").path("via").asText());
        assertEquals("producer", critical.get(3).path("args").path("from").asText());
        BigDecimal total = critical.stream().map(e -> e.get("dur").decimalValue()).reduce(BigDecimal.ZERO, BigDecimal::add);
        assertEquals(0, new BigDecimal("3000").compareTo(total), "the path's length");
        assertTrue(ev.stream().anyMatch(e -> e.path("name").asText().equals("thread_name")
                && e.get("tid").asLong() == ChromeTraceWriter.CRITICAL_TID
                && e.path("args").path("name").asText().equals("critical path")));
    }

    static List<String> list(JsonNode array) {
        return java.util.stream.StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
    }

    static JsonNode slice(List<JsonNode> ev, long tid, String name) {
        return ev.stream().filter(e -> e.path("ph").asText().equals("X") && e.get("tid").asLong() == tid
                && e.path("name").asText().equals(name)).findFirst().orElseThrow(() -> new AssertionError(name));
    }
}
