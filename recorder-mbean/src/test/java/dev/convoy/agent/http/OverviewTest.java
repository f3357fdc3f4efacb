package dev.convoy.agent.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;

import dev.convoy.analysis.MonitorStatistics;
import dev.convoy.model.Loss;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.Window;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;

/**
 * The overview of the whole history ({@link Overview}, {@code /api/overview}) and the window the
 * view shows ({@code /api/window}), in process over the snapshots of {@link WebServerTest} and
 * {@link Fixtures#losses}: the overview's blocks, waits and idle waits and their time are the
 * analysis's, its records and lost records the recording's; a window picked through the API is
 * what the summary, timeline, report, overview and downloads then describe, exactly the records
 * of {@link Window#cut}; bad parameters get a one-line 400.
 */
class OverviewTest {

    @TempDir
    Path dir;
    WebServer server;
    final WebServerTest http = new WebServerTest();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private void serve(byte[] snapshot) throws Exception {
        Path file = dir.resolve("saved run.cvysnap");
        Files.write(file, snapshot);
        server = WebServer.start(new FileSource(file), "127.0.0.1", 0, null);
        http.server = server;
    }

    private static JsonNode overview(Recording r, int buckets, Window w) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            Overview.of(r, buckets).write(g, w);
        }
        return WebServerTest.JSON.readTree(out.toByteArray());
    }

    private static long sum(JsonNode a) {
        long s = 0;
        for (JsonNode v : a) {
            s += v.asLong();
        }
        return s;
    }

    /** The overview's totals, bucket by bucket summed, against the analysis of the whole recording. */
    private static void assertAgrees(Recording r, int buckets) throws Exception {
        JsonNode o = overview(r, buckets, null);
        assertEquals(buckets, o.get("blocks").size());
        MonitorStatistics stats = MonitorStatistics.of(r);
        long bc = 0, bn = 0, wc = 0, wn = 0, ic = 0, in = 0;
        for (MonitorStatistics.ThreadRow t : stats.threads()) {
            bc += t.blockedCount();
            bn += t.blockedNs();
            wc += t.waitedCount();
            wn += t.waitedNs();
            ic += t.idleCount();
            in += t.idleNs();
        }
        assertEquals(bc, sum(o.get("blocks")), "blocks");
        assertEquals(bn, sum(o.get("blockedNs")), "blocked time");
        assertEquals(wc, sum(o.get("waits")), "waits");
        assertEquals(wn, sum(o.get("waitedNs")), "waited time");
        assertEquals(ic, sum(o.get("idleWaits")), "idle waits");
        assertEquals(in, sum(o.get("idleNs")), "idle time");
        long records = r.threads().stream().mapToLong(RecordedThread::eventCount).sum();
        assertEquals(records, sum(o.get("records")));
        assertEquals(records, o.get("recordCount").asLong());
        long lost = r.threads().stream().mapToLong(RecordedThread::lostRecords).sum();
        assertEquals(lost, sum(o.get("lostRecords")), "every lost record, in some bucket");
        long unknown = 0;
        for (RecordedThread t : r.javaThreads()) {
            for (Loss l : t.losses()) {
                unknown += Math.min(l.toNs(), r.snapshotMonotonicNs()) - Math.max(l.fromNs(), r.startMonotonicNs());
            }
        }
        assertEquals(unknown, sum(o.get("unknownNs")), "the threads' unknown time");
        assertTrue(o.get("window").get("whole").asBoolean());
        assertEquals(r.snapshotMonotonicNs() - r.startMonotonicNs(), o.get("durationNs").asLong());
        assertTrue(o.get("about").asText().contains("blockedNs"));
    }

    @Test
    void theOverviewCountsWhatTheAnalysisCounts() throws Exception {
        Recording deadlock = SnapshotReader.read(WebServerTest.snapshot());
        Recording losses = SnapshotReader.read(Fixtures.losses(Fixtures.base()).toBytes());
        for (int buckets : new int[] {1, 7, 300, Overview.MAX_BUCKETS}) {
            assertAgrees(deadlock, buckets);
            assertAgrees(losses, buckets);
        }
        // the deadlock's blocks, where they begin: worker-2 at 100 us, main at 300, worker-1 at 310 (of 10 ms)
        JsonNode o = overview(deadlock, 100, null);
        assertEquals(1, o.get("blocks").get(1).asLong());
        assertEquals(2, o.get("blocks").get(3).asLong());
        assertEquals(100_000, o.get("blockedNs").get(1).asLong(), "worker-2 from 100 to 250 us, main from 300 us");
        assertEquals(2 * 100_000, o.get("blockedNs").get(50).asLong(), "main and worker-1, still blocked");
        // the losses: lost-early's 100 aged records over 10 to 200 us and 200 overwritten over 200 to 400 us
        JsonNode l = overview(losses, 1, null);
        assertEquals(losses.recordsOverwritten(), l.get("overwritten").asLong());
        assertEquals(losses.recordsAged(), l.get("aged").asLong());
    }

    @Test
    void aWindowPickedThroughTheApiIsWhatEveryRouteDescribes() throws Exception {
        serve(WebServerTest.snapshot());
        Recording full = SnapshotReader.read(WebServerTest.snapshot());
        JsonNode whole = WebServerTest.json(http.get("/api/snapshot"));
        assertTrue(whole.get("window").get("whole").asBoolean());
        assertEquals(7, whole.get("window").get("records").asLong());
        assertEquals(10_000_000, whole.get("window").get("historyNs").asLong());

        // 200 us to 2 ms: worker-2's ENTERED at 250, main's ENTER at 300, worker-1's at 310
        var picked = http.send("POST", "/api/window?from=200000&to=2000000", Map.of());
        assertEquals(200, picked.statusCode(), () -> WebServerTest.text(picked));
        JsonNode w = WebServerTest.json(picked).get("window");
        assertFalse(w.get("whole").asBoolean());
        assertEquals(200_000, w.get("fromNs").asLong());
        assertEquals(2_000_000, w.get("toNs").asLong());
        assertEquals(3, w.get("records").asLong());
        assertEquals(7, w.get("historyRecords").asLong());
        assertEquals(1_800_000, WebServerTest.json(picked).get("durationNs").asLong());

        JsonNode o = WebServerTest.json(http.get("/api/overview?buckets=10"));
        assertFalse(o.get("window").get("whole").asBoolean());
        assertEquals(200_000, o.get("window").get("fromNs").asLong());
        assertEquals(7, o.get("recordCount").asLong(), "the overview is of the whole history still");
        assertEquals(1_800_000, WebServerTest.json(http.get("/api/timeline?width=100")).get("durationNs").asLong());
        String report = WebServerTest.text(http.get("/api/report"));
        assertTrue(report.startsWith("Window: 200.0 us to 2.000 ms since the history's start (18.0 % of its "
                + "10.000 ms; 3 of its 7 records)\n"), report);
        var download = http.get("/api/download?format=snapshot");
        assertEquals("attachment; filename=\"saved_run-window-0ms-2ms.cvysnap\"",
                download.headers().firstValue("Content-Disposition").orElse(""));
        Recording served = SnapshotReader.read(download.body());
        Recording cut = new Window(full.startMonotonicNs() + 200_000, full.startMonotonicNs() + 2_000_000).cut(full);
        assertSameRecords(cut, served);
        assertEquals(3, served.threads().stream().mapToLong(RecordedThread::eventCount).sum());

        // like every route that costs work, refused to a page of another site
        WebServerTest.assertError(http.send("POST", "/api/window", Map.of("Sec-Fetch-Site", "cross-site")), 403,
                "cross-site request refused (Sec-Fetch-Site cross-site); open the page of this server instead");
        WebServerTest.assertError(http.send("GET", "/api/overview", Map.of("Origin", "http://evil.example")), 403,
                "cross-origin request refused (Origin http://evil.example)");

        // the whole history again: by the button's request, and by a new snapshot
        assertTrue(WebServerTest.json(http.send("POST", "/api/window", Map.of())).get("window").get("whole").asBoolean());
        assertEquals(7, SnapshotReader.read(http.get("/api/download?format=snapshot").body()).threads().stream()
                .mapToLong(RecordedThread::eventCount).sum());
        http.send("POST", "/api/window?from=5000000", Map.of());
        assertEquals(5_000_000, WebServerTest.json(http.get("/api/timeline")).get("durationNs").asLong());
        assertTrue(WebServerTest.json(http.get("/api/snapshot")).get("window").get("whole").asBoolean());
        assertEquals(10_000_000, WebServerTest.json(http.get("/api/timeline")).get("durationNs").asLong());
    }

    /** The same rings with the same records, byte for byte. */
    static void assertSameRecords(Recording expected, Recording actual) {
        assertEquals(expected.threads().size(), actual.threads().size());
        for (int k = 0; k < expected.threads().size(); k++) {
            RecordedThread e = expected.threads().get(k);
            RecordedThread a = actual.threads().get(k);
            assertEquals(e.ringId(), a.ringId());
            assertEquals(e.eventCount(), a.eventCount(), e.name());
            assertEquals(e.losses(), a.losses(), e.name());
            assertArrayEquals(records(e), records(a), e.name());
        }
    }

    private static byte[] records(RecordedThread t) {
        ByteBuffer b = ByteBuffer.allocate(t.eventCount() * SnapshotFormat.RECORD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < t.eventCount(); i++) {
            t.copyRecord(i, b);
        }
        return b.array();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "POST|/api/window?from=abc|parameter 'from' must be a whole number of ns since the recording start, got 'abc'",
        "POST|/api/window?from=-5&to=9|parameter 'from' must be between 0 and 9999999, got -5",
        "POST|/api/window?from=10000000|parameter 'from' must be between 0 and 9999999, got 10000000",
        "POST|/api/window?from=9&to=9|parameter 'from' (9) must be less than 'to' (9)",
        "POST|/api/window?to=0|parameter 'to' must be between 1 and 9223372036854775807, got 0",
        "GET|/api/window?from=1&to=9|method GET not allowed here; use POST",
        "GET|/api/overview?buckets=0|parameter 'buckets' must be a whole number from 1 to 4000, got '0'",
        "GET|/api/overview?buckets=4001|parameter 'buckets' must be a whole number from 1 to 4000, got '4001'",
        "GET|/api/overview?buckets=many|parameter 'buckets' must be a whole number from 1 to 4000, got 'many'",
    })
    void badWindowsAndBucketsAreRefusedWithOneLine(String method, String path, String message) throws Exception {
        serve(WebServerTest.snapshot());
        var r = http.send(method, path, Map.of());
        WebServerTest.assertError(r, message.startsWith("method") ? 405 : 400, message);
        // and nothing changed: the view shows the whole history
        assertTrue(WebServerTest.json(http.get("/api/overview")).get("window").get("whole").asBoolean());
    }
}
