package dev.convoy.export;

import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.convoy.model.Recording;
import dev.convoy.schema.ChromeTraceChecker;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChromeTraceWriterTest {

    @TempDir
    Path dir;

    JsonNode export() throws Exception {
        Recording r = SnapshotReader.read(Fixtures.all().toBytes());
        Path out = dir.resolve("trace.json");
        assertEquals(List.of(out.toAbsolutePath()), Output.write(r, Set.of(Output.CHROME), out));
        ChromeTraceChecker.check(out); // the structural rules of schema/chrome-trace.md
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertTrue(text.startsWith("{\"traceEvents\":["), "traceEvents first, no BOM, compact");
        assertFalse(text.contains("\\uD8") || text.contains("\\ud8"), "no surrogate escapes");
        assertTrue(text.contains("\uD83D\uDE00"), "raw supplementary character");
        assertFalse(text.contains("\n"), "compact");
        return new ObjectMapper().readTree(text);
    }

    static List<JsonNode> list(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).toList();
    }

    @Test
    void tracksAndMetadata() throws Exception {
        JsonNode root = export();
        Iterator<String> keys = root.fieldNames();
        assertEquals("traceEvents", keys.next());
        assertEquals(String.valueOf(EPOCH0), root.path("metadata").path("start_epoch_ns").asText());
        assertEquals("2023-11-14T22:13:20.123456789Z", root.path("metadata").path("start_time").asText());
        List<JsonNode> ev = list(root.get("traceEvents"));
        for (JsonNode e : ev) {
            assertTrue(e.path("name").isTextual() && !e.path("name").asText().isEmpty(), e.toString());
            assertEquals(4242, e.path("pid").asLong());
            long tid = e.path("tid").asLong(-1);
            assertTrue(tid >= 0 && tid < (1L << 32), e.toString());
        }
        JsonNode proc = ev.stream().filter(e -> e.path("name").asText().equals("process_name")).findFirst().orElseThrow();
        assertEquals("java com.example.Main (pid 4242)", proc.path("args").path("name").asText());
        Map<Long, String> names = new HashMap<>();
        Map<Long, Integer> sort = new HashMap<>();
        for (JsonNode e : ev) {
            if (e.path("name").asText().equals("thread_name")) {
                names.put(e.get("tid").asLong(), e.path("args").path("name").asText());
                assertFalse(e.has("ts"));
            }
            if (e.path("name").asText().equals("thread_sort_index")) {
                sort.put(e.get("tid").asLong(), e.path("args").path("sort_index").asInt());
            }
        }
        assertEquals("main", names.get(1L));
        assertEquals(ODD_NAME.replace("\u0000", "\u0000"), names.get(13L));
        assertEquals("GC", names.get(ChromeTraceWriter.GC_TID));
        assertEquals(0, sort.get(1L), "main first");
        assertTrue(sort.get(20L) < sort.get(13L) && sort.get(13L) < sort.get(12L), "then by start time: " + sort);
    }

    @Test
    void slicesInstantsAndTimestamps() throws Exception {
        List<JsonNode> ev = list(export().get("traceEvents"));
        BigDecimal prev = BigDecimal.ZERO;
        for (JsonNode e : ev) {
            if (e.path("ph").asText().equals("M")) {
                continue;
            }
            BigDecimal ts = e.get("ts").decimalValue();
            assertTrue(ts.signum() >= 0 && ts.scale() <= 3, "ts " + ts);
            assertTrue(ts.compareTo(prev) >= 0, "sorted by ts");
            prev = ts;
            if (e.path("ph").asText().equals("I")) {
                assertEquals("t", e.path("s").asText());
            }
        }
        List<JsonNode> slices = ev.stream().filter(e -> e.path("ph").asText().equals("X")).toList();
        JsonNode mainBlocked = slices.stream().filter(e -> e.get("tid").asLong() == 1).findFirst().orElseThrow();
        assertEquals("blocked on com.example.Lock", mainBlocked.get("name").asText());
        assertEquals(new BigDecimal("300"), mainBlocked.get("ts").decimalValue());
        assertEquals(new BigDecimal("9700"), mainBlocked.get("dur").decimalValue(), "open until snapshot");
        assertEquals("worker-1", mainBlocked.path("args").path("owner").asText());
        assertEquals(12, mainBlocked.path("args").path("owner_tid").asLong());
        assertEquals(M2, mainBlocked.path("args").path("monitor_id").asLong());
        assertEquals("com.example.Worker.run(Worker, Inc.java:14)", mainBlocked.path("args").path("stack").get(0).asText());

        List<JsonNode> waits = slices.stream().filter(e -> e.get("tid").asLong() == 13).toList();
        assertEquals(2, waits.size());
        assertEquals("notified", waits.get(0).path("args").path("result").asText());
        assertEquals("timed out", waits.get(1).path("args").path("result").asText());
        assertEquals(50, waits.get(1).path("args").path("timeout_ms").asLong());
        assertEquals("java.lang.Object.wait(Native Method)", waits.get(0).path("args").path("stack").get(0).asText());

        List<JsonNode> gc = slices.stream().filter(e -> e.get("tid").asLong() == ChromeTraceWriter.GC_TID).toList();
        assertEquals(List.of(new BigDecimal("50"), new BigDecimal("20")), gc.stream().map(e -> e.get("dur").decimalValue()).toList());

        assertTrue(ev.stream().anyMatch(e -> e.path("name").asText().equals("thread end") && e.get("tid").asLong() == 20
                && e.get("ts").decimalValue().compareTo(new BigDecimal("5000")) == 0));
        assertTrue(ev.stream().noneMatch(e -> e.path("name").asText().equals("thread start") && e.get("tid").asLong() == 30),
                "late thread has no start instant");

        // proper nesting per track
        Map<Long, List<JsonNode>> byTid = new HashMap<>();
        for (JsonNode s : slices) {
            byTid.computeIfAbsent(s.get("tid").asLong(), k -> new ArrayList<>()).add(s);
        }
        for (List<JsonNode> track : byTid.values()) {
            for (JsonNode a : track) {
                for (JsonNode b : track) {
                    BigDecimal as = a.get("ts").decimalValue(), ae = as.add(a.get("dur").decimalValue());
                    BigDecimal bs = b.get("ts").decimalValue(), be = bs.add(b.get("dur").decimalValue());
                    boolean partial = as.compareTo(bs) < 0 && bs.compareTo(ae) < 0 && ae.compareTo(be) < 0;
                    assertFalse(partial, "partial overlap " + a + " / " + b);
                }
            }
        }
    }

    @Test
    void flowsFollowTheImporterRules() throws Exception {
        List<JsonNode> ev = list(export().get("traceEvents"));
        List<JsonNode> starts = ev.stream().filter(e -> e.path("ph").asText().equals("s")).toList();
        List<JsonNode> ends = ev.stream().filter(e -> e.path("ph").asText().equals("f")).toList();
        assertEquals(3, starts.size(), "h1->h2, h2->h3, h3->h1");
        Set<Long> ids = new HashSet<>();
        for (JsonNode s : starts) {
            assertTrue(s.get("id").isIntegralNumber());
            assertTrue(ids.add(s.get("id").asLong()), "unique id");
            JsonNode f = ends.stream().filter(x -> x.get("id").asLong() == s.get("id").asLong()).findFirst().orElseThrow();
            assertEquals(s.get("cat"), f.get("cat"));
            assertEquals(s.get("name"), f.get("name"));
            assertEquals("e", f.path("bp").asText());
            assertFalse(s.has("bp"));
            for (JsonNode flow : List.of(s, f)) {
                int at = ev.indexOf(flow);
                JsonNode instant = ev.get(at - 1);
                assertEquals("I", instant.get("ph").asText(), "written right after its instant");
                assertEquals(flow.get("ts"), instant.get("ts"));
                assertEquals(flow.get("tid"), instant.get("tid"));
                assertEquals(flow.get("cat"), instant.get("cat"));
            }
        }
        JsonNode first = starts.get(0);
        JsonNode firstEnd = ends.get(0);
        assertEquals(20, first.get("tid").asLong());
        assertEquals(21, firstEnd.get("tid").asLong());
        assertEquals(new BigDecimal("1200"), firstEnd.get("ts").decimalValue());
    }

    @Test
    void microsecondFormatting() {
        assertEquals("0", Text.micros(0));
        assertEquals("1.5", Text.micros(1500));
        assertEquals("0.001", Text.micros(1));
        assertEquals("1234567", Text.micros(1_234_567_000));
        assertEquals("1700000000.000000001", Text.seconds(1_700_000_000_000_000_001L));
        assertEquals("-0.000001000", Text.seconds(-1000));
    }
}
