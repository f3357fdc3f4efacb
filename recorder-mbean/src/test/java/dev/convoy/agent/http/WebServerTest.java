package dev.convoy.agent.http;

import static dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_ENTER;
import static dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_ENTERED;
import static dev.convoy.snapshot.SnapshotFormat.EVENT_THREAD_START;
import static dev.convoy.snapshot.SnapshotFormat.MSTATE_BLOCKED;
import static dev.convoy.snapshot.SnapshotFormat.OBJ_PLAIN;
import static dev.convoy.snapshot.SnapshotFormat.OBJ_THREAD;
import static dev.convoy.snapshot.SnapshotFormat.RING_ENDED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.testing.RecordingBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.convoy.model.Frame;
import dev.convoy.model.LineEntry;
import dev.convoy.model.MethodInfo;

/**
 * The web view's HTTP API with a real client, in process, offline over a hand-built snapshot
 * file: a deadlock (main and worker-1) and one finished contended enter. Only 127.0.0.1.
 */
class WebServerTest {

    static final long T0 = 5_000_000_000L;
    static final long C_THREAD = 101, C_WORKER = 102, C_LOCK = 103;
    static final long M_RUN = 0x7F00_0000_1000L;
    static final int S_RUN = 2;
    static final long O_MAIN = 1001, O_W1 = 1002, O_W2 = 1003, L1 = 2001, L2 = 2002;
    static final String TOKEN = "t0ken-For-Tests";

    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient CLIENT = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @TempDir
    Path dir;
    Path file;
    byte[] bytes;
    WebServer server;

    static long t(long us) {
        return T0 + us * 1000;
    }

    static byte[] snapshot() {
        return builder().toBytes();
    }

    /** {@link #snapshot()} with a GC ring holding one pause, from 2 to 3 ms. */
    static byte[] snapshotWithGc() {
        RecordingBuilder b = builder();
        b.thread(9, -1, 0, "GC").flags(dev.convoy.snapshot.SnapshotFormat.RING_SYSTEM).span(T0, 0).group("", "")
                .event(t(2_000), dev.convoy.snapshot.SnapshotFormat.EVENT_GC_START, 0, 0, 0)
                .event(t(3_000), dev.convoy.snapshot.SnapshotFormat.EVENT_GC_FINISH, 0, 0, 0);
        return b.toBytes();
    }

    static RecordingBuilder builder() {
        RecordingBuilder b = new RecordingBuilder()
                .info("pid", "4242")
                .info("agent.version", "0.0.9")
                .info("options", "recording=on,stackdepth=64")
                .info("start.monotonic.ns", Long.toString(T0))
                .info("start.epoch.ns", "1700000000000000000")
                .info("snapshot.monotonic.ns", Long.toString(t(10_000)))
                .clazz(C_THREAD, "Ljava/lang/Thread;", "Thread.java")
                .clazz(C_WORKER, "Lcom/example/Worker;", "Worker.java")
                .clazz(C_LOCK, "Lcom/example/Lock;", "Lock.java")
                .method(MethodInfo.of(M_RUN, C_WORKER, "run", "()V", new LineEntry(0, 10), new LineEntry(12, 14)))
                .stack(S_RUN, false, new Frame(M_RUN, 12))
                .object(O_MAIN, 0x10000000, OBJ_THREAD, C_THREAD)
                .object(O_W1, 0x10000001, OBJ_THREAD, C_THREAD)
                .object(O_W2, 0x10000002, OBJ_THREAD, C_THREAD)
                .object(L1, 0xAAAA0001, OBJ_PLAIN, C_LOCK)
                .object(L2, 0xAAAA0002, OBJ_PLAIN, C_LOCK);
        b.thread(1, 1, O_MAIN, "main").span(T0, 0)
                .event(T0, EVENT_THREAD_START, 0, O_MAIN, 1)
                .event(t(300), EVENT_MONITOR_ENTER, S_RUN, L2, 0);
        b.thread(2, 12, O_W1, "worker-1").span(t(50), 0)
                .event(t(50), EVENT_THREAD_START, 0, O_W1, 12)
                .event(t(310), EVENT_MONITOR_ENTER, S_RUN, L1, 0);
        b.thread(3, 13, O_W2, "worker-2").span(t(60), t(900)).flags(RING_ENDED)
                .event(t(60), EVENT_THREAD_START, 0, O_W2, 13)
                .event(t(100), EVENT_MONITOR_ENTER, S_RUN, L1, 0)
                .event(t(250), EVENT_MONITOR_ENTERED, S_RUN, L1, 0);
        b.monitor(1, MSTATE_BLOCKED, L2, 0xAAAA0002, 12);
        b.monitor(2, MSTATE_BLOCKED, L1, 0xAAAA0001, 1);
        return b;
    }

    @BeforeEach
    void start() throws IOException {
        bytes = snapshot();
        file = dir.resolve("saved run.cvysnap");
        Files.write(file, bytes);
        server = WebServer.start(new FileSource(file), "127.0.0.1", 0, null);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    HttpResponse<byte[]> send(String method, String path, Map<String, String> headers) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(server.url()).resolve(path))
                .method(method, HttpRequest.BodyPublishers.noBody());
        headers.forEach(r::header);
        return CLIENT.send(r.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    HttpResponse<byte[]> get(String path) throws Exception {
        return send("GET", path, Map.of());
    }

    static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    static JsonNode json(HttpResponse<byte[]> r) throws IOException {
        return JSON.readTree(r.body());
    }

    static void assertError(HttpResponse<byte[]> r, int status, String message) throws IOException {
        assertEquals(status, r.statusCode(), () -> text(r));
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
        assertEquals(message, json(r).get("error").asText());
    }

    @Test
    void urlIsLoopbackWithTheChosenPort() {
        assertTrue(server.port() > 0);
        assertEquals("http://127.0.0.1:" + server.port() + "/", server.url());
        assertFalse(server.tokenRequired());
    }

    @Test
    void statusOfASavedSnapshot() throws Exception {
        HttpResponse<byte[]> r = get("/api/status");
        assertEquals(200, r.statusCode());
        JsonNode s = json(r);
        assertEquals("offline", s.get("mode").asText());
        assertEquals("saved run.cvysnap", s.get("file").asText());
        assertFalse(s.get("recording").asBoolean());
        assertEquals(4242, s.get("pid").asLong());
        assertEquals("recording=on,stackdepth=64", s.get("options").asText());
        assertEquals(3, s.get("counters").get("threadsRecorded").asLong());
        assertEquals("0.0.9", s.get("version").asText(), "the version that recorded the file, as its options");
        assertEquals("saved_run", s.get("dumpName").asText());
        assertEquals("https://ui.perfetto.dev", s.get("perfetto").asText(), "the real Perfetto by default");
    }

    @Test
    void perfettoUrlIsOnlyReplacedByAWellFormedOneForTests() throws Exception {
        assertEquals(WebServer.PERFETTO, WebServer.perfettoUrl(null));
        assertEquals(WebServer.PERFETTO, WebServer.perfettoUrl(""));
        assertEquals("http://127.0.0.1:8123/perfetto.html", WebServer.perfettoUrl("http://127.0.0.1:8123/perfetto.html"));
        for (String bad : List.of("javascript:alert(1)", "file:///etc/passwd", "/relative", "http://", "ui.perfetto.dev",
                "https://user@ui.perfetto.dev", "https://ui.perfetto.dev/#frag", "http://[bad")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WebServer.perfettoUrl(bad),
                    bad);
            assertEquals("system property convoy.test.perfettoUrl must be an http(s) URL with a host (a test's stub "
                    + "Perfetto page), got '" + bad + "'", e.getMessage());
        }
        server.close();
        server = WebServer.start(new FileSource(file), "127.0.0.1", 0, null, "http://127.0.0.1:9/stub.html");
        assertEquals("http://127.0.0.1:9/stub.html", json(get("/api/status")).get("perfetto").asText());
    }

    @Test
    void snapshotSummaryHasThreadsMonitorsCallersDeadlocksAndCriticalPath() throws Exception {
        HttpResponse<byte[]> r = get("/api/snapshot");
        assertEquals(200, r.statusCode(), () -> text(r));
        JsonNode s = json(r);
        assertEquals(4242, s.get("pid").asLong());

        JsonNode threads = s.get("threads");
        assertEquals(3, threads.size());
        assertEquals("main", threads.get(0).get("name").asText());
        assertEquals("blocked", threads.get(0).get("state").asText());
        assertEquals("ended", threads.get(2).get("state").asText());
        assertEquals(1, threads.get(2).get("blockedCount").asLong());
        assertEquals(150_000, threads.get(2).get("blockedNs").asLong());
        assertEquals(S_RUN, threads.get(2).get("stacks").get(0).get("id").asInt());
        assertTrue(threads.get(2).get("nsByState").has("RUNNING"));

        JsonNode monitors = s.get("monitors");
        JsonNode l1 = null;
        for (JsonNode m : monitors) {
            if (m.get("id").asLong() == L1) {
                l1 = m;
            }
        }
        assertTrue(l1 != null, monitors::toString);
        assertEquals("com.example.Lock", l1.get("className").asText());
        assertEquals("aaaa0001", l1.get("identityHash").asText());
        assertEquals(2, l1.get("blockedCount").asLong()); // worker-2's finished enter, worker-1's open one
        assertEquals(S_RUN, l1.get("stacks").get(0).get("id").asInt());

        JsonNode cls = s.get("classes").get(0);
        assertEquals("com.example.Lock", cls.get("className").asText());
        assertEquals(3, cls.get("blocked").get("count").asLong());
        JsonNode caller = cls.get("blockCallers").get(0);
        assertEquals("com.example.Worker.run", caller.get("caller").asText());
        assertEquals(3, caller.get("count").asLong());
        assertEquals(2, caller.get("monitors").asLong());
        assertEquals(3, caller.get("threads").asLong());
        assertEquals(S_RUN, caller.get("stacks").get(0).get("id").asInt());

        JsonNode deadlocks = s.get("deadlocks");
        assertEquals(1, deadlocks.size());
        assertTrue(deadlocks.get(0).get("description").asText().contains("main blocked on com.example.Lock#2002"),
                deadlocks::toString);
        assertEquals(S_RUN, deadlocks.get(0).get("threads").get(0).get("stack").asInt());

        JsonNode path = s.get("criticalPath");
        assertTrue(path.has("lengthNs") && path.has("segments") && path.has("nsByState"), path::toString);
    }

    /**
     * What was lost, in the status counters and the summary: totals, and per thread its lost
     * records, from when its history is complete and its UNKNOWN time (not RUNNING).
     */
    @Test
    void statusAndSummarySayWhatWasLost() throws Exception {
        JsonNode none = json(get("/api/snapshot")).get("records");
        assertEquals("Records: 7 written, nothing lost.", none.get("summary").asText());
        assertEquals(0, json(get("/api/status")).get("counters").get("eventsAgedOut").asLong());

        server.close();
        Path lost = dir.resolve("lost.cvysnap");
        Files.write(lost, dev.convoy.testing.Fixtures.losses(dev.convoy.testing.Fixtures.base()).toBytes());
        server = WebServer.start(new FileSource(lost), "127.0.0.1", 0, null, null);
        JsonNode counters = json(get("/api/status")).get("counters");
        assertEquals(1500, counters.get("eventsRecorded").asLong());
        assertEquals(700, counters.get("eventsOverwritten").asLong());
        assertEquals(100, counters.get("eventsAgedOut").asLong());
        assertEquals(2, counters.get("threadsWithLostRecords").asLong());
        JsonNode s = json(get("/api/snapshot"));
        JsonNode records = s.get("records");
        assertEquals(700, records.get("overwritten").asLong());
        assertEquals(100, records.get("aged").asLong());
        assertEquals(2, records.get("threadsWithLosses").asLong());
        assertEquals(200_000, records.get("historyFromNs").asLong());
        assertTrue(records.get("summary").asText().startsWith("Records: 1500 written, 800 lost"), records::toString);
        JsonNode early = null;
        for (JsonNode t : s.get("threads")) {
            if (t.get("name").asText().equals("lost-early")) {
                early = t;
            }
        }
        assertEquals(300, early.get("lostRecords").asLong());
        assertEquals(400_000, early.get("completeFromNs").asLong());
        assertEquals(390_000, early.get("nsByState").get("UNKNOWN").asLong());
        assertEquals(10_000_000 - 400_000 - 30_000, early.get("nsByState").get("RUNNING").asLong(),
                "running only after its history is complete, less its block");
    }

    @Test
    void stacksAreFramesAsText() throws Exception {
        HttpResponse<byte[]> r = get("/api/stacks/" + S_RUN);
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        assertEquals("at com.example.Worker.run(Worker.java:14)\n", text(r));
        assertError(get("/api/stacks/999"), 404, "no stack 999 in the current snapshot");
        assertError(get("/api/stacks/abc"), 400, "stack id must be a positive whole number, got 'abc'");
        assertError(get("/api/stacks/99999999999"), 400,
                "stack id must be a positive whole number, got '99999999999'");
    }

    @ParameterizedTest
    @CsvSource({
        "chrome, saved_run.json, application/json",
        "tptp, saved_run.trcxml, application/xml",
        "csv-meta, saved_run.meta.csv, text/csv",
        "csv-events, saved_run.events.csv, text/csv",
        "csv-events-ext, saved_run.events-ext.csv, text/csv",
        "csv-losses, saved_run.losses.csv, text/csv",
        "snapshot, saved_run.cvysnap, application/octet-stream",
        "pprof, saved_run.pb.gz, application/octet-stream",
    })
    void downloadsInEveryFormat(String format, String name, String type) throws Exception {
        try (var before = Files.list(dir)) {
            long files = before.count();
            HttpResponse<byte[]> r = get("/api/download?format=" + format);
            assertEquals(200, r.statusCode(), () -> text(r));
            assertEquals("attachment; filename=\"" + name + "\"", r.headers().firstValue("Content-Disposition").orElse(""));
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith(type));
            assertTrue(r.body().length > 0);
            switch (format) {
                case "snapshot" -> assertArrayEquals(bytes, r.body());
                case "chrome" -> assertTrue(json(r).has("traceEvents"));
                case "tptp" -> assertTrue(text(r).startsWith("<?xml"), text(r));
                case "pprof" -> assertEquals(19_540_000,
                        dev.convoy.testing.PprofCheck.read(r.body()).total("delay", "state", "blocked"));
                default -> assertTrue(text(r).contains(","));
            }
            try (var after = Files.list(dir)) {
                assertEquals(files, after.count(), "no file written");
            }
        }
    }

    @Test
    void unknownFormatListsTheAllowedOnes() throws Exception {
        assertError(get("/api/download?format=pdf"), 400,
                "unknown format 'pdf'; allowed: chrome, tptp, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof");
        assertError(get("/api/download"), 400,
                "unknown format (none given); allowed: chrome, tptp, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof");
        assertError(get("/api/report?format=html"), 400, "unknown report format 'html'; allowed: text, markdown");
        // A control character ends no name: refused, shown escaped.
        assertError(get("/api/download?format=chrome%00"), 400, "unknown format 'chrome\\u0000'; allowed: chrome, tptp, "
                + "csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof");
        assertError(get("/api/download?format=%09chrome"), 400, "unknown format '\\u0009chrome'; allowed: chrome, tptp, "
                + "csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof");
        assertError(get("/api/report?format=text%00"), 400, "unknown report format 'text\\u0000'; allowed: text, markdown");
        assertEquals(200, get("/api/download?format=%20chrome").statusCode(), "spaces around a name are no part of it");
    }

    /**
     * HTTP/1.1 requires exactly one Host header (RFC 9112, 3.2): none, an empty one or two is a bad
     * request on every path, also with the host in the request line; the server refuses it before
     * the web view's handler.
     */
    @Test
    void anHttp11RequestWithoutOneHostHeaderIsRefused() throws Exception {
        String port = ":" + server.port();
        for (String path : List.of("/", "/api/status", "/api/download?format=chrome", "/api/snapshot")) {
            for (String request : List.of("GET " + path + " HTTP/1.1\r\nConnection: close\r\n\r\n",
                    "GET http://127.0.0.1" + port + path + " HTTP/1.1\r\nConnection: close\r\n\r\n",
                    "GET " + path + " HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n",
                    "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1" + port + "\r\nHost: 127.0.0.1" + port
                            + "\r\nConnection: close\r\n\r\n")) {
                String response = raw(request);
                assertTrue(response.startsWith("HTTP/1.1 400 "), () -> request + "\n" + response);
            }
        }
        assertTrue(rawGet("/api/status", "127.0.0.1:" + server.port()).startsWith("HTTP/1.1 200"));
        // HTTP/1.0 has no Host requirement.
        assertTrue(raw("GET /api/status HTTP/1.0\r\n\r\n").startsWith("HTTP/1.1 200"));
    }

    @Test
    void reportInTextAndMarkdown() throws Exception {
        HttpResponse<byte[]> text = get("/api/report?format=text");
        assertEquals(200, text.statusCode());
        assertTrue(text(text).startsWith("Convoy contention report\n"), text(text));
        assertTrue(text(text).contains("Deadlock"), text(text));
        HttpResponse<byte[]> md = get("/api/report?format=markdown");
        assertEquals(200, md.statusCode());
        assertTrue(md.headers().firstValue("Content-Type").orElse("").startsWith("text/markdown"));
        assertTrue(text(md).startsWith("# Convoy contention report\n"), text(md));
        assertEquals(text(text), text(get("/api/report")), "text by default");
    }

    @Test
    void recordingControlsAreRefusedOffline() throws Exception {
        assertError(send("POST", "/api/recording?on=false", Map.of()), 409, FileSource.OFFLINE);
        assertError(send("POST", "/api/contanalysis?on=true", Map.of()), 409, FileSource.OFFLINE);
    }

    @Test
    void badRequestsGetClearAnswers() throws Exception {
        assertError(get("/nope"), 404, "no such page or endpoint: /nope");
        assertError(get("/api/nope"), 404, "no such page or endpoint: /api/nope");
        HttpResponse<byte[]> wrong = get("/api/recording?on=true");
        assertError(wrong, 405, "method GET not allowed here; use POST");
        assertEquals("POST", wrong.headers().firstValue("Allow").orElse(""));
        assertError(send("POST", "/api/status", Map.of()), 405, "method POST not allowed here; use GET");
        assertError(send("DELETE", "/api/snapshot", Map.of()), 405, "method DELETE not allowed here; use GET");
        assertError(send("POST", "/api/recording?on=maybe", Map.of()), 400,
                "parameter 'on' must be true or false, got 'maybe'");
        assertError(send("POST", "/api/recording", Map.of()), 400, "parameter 'on' must be true or false, got nothing");
        assertError(get("/api/download?format=" + "x".repeat(2000)), 414,
                "request URI too long: path and query may have at most 1024 characters each");
        assertError(get("/api/status?junk=" + "y".repeat(1100)), 414,
                "request URI too long: path and query may have at most 1024 characters each");
        assertError(get("/api/stacks/" + "9".repeat(1100)), 414,
                "request URI too long: path and query may have at most 1024 characters each");
        assertError(send("POST", "/api/recording?on=" + "t".repeat(1100), Map.of()), 414,
                "request URI too long: path and query may have at most 1024 characters each");
        String longFormat = "x".repeat(1000); // within the limit: an unknown format, named
        assertError(get("/api/download?format=" + longFormat), 400,
                "unknown format '" + longFormat + "'; allowed: chrome, tptp, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof");
    }

    @Test
    void hugeRequestsAreRefusedByTheServerBeforeTheyReachTheHandler() throws Exception {
        // Beyond Jetty's own limits (8 KiB of request line or headers): 414 and 431, answered by Jetty.
        HttpResponse<byte[]> longLine = get("/api/status?junk=" + "z".repeat(10_000));
        assertEquals(414, longLine.statusCode(), () -> text(longLine));
        HttpResponse<byte[]> bigHeader = send("GET", "/api/status", Map.of("X-Junk", "h".repeat(10_000)));
        assertEquals(431, bigHeader.statusCode(), () -> text(bigHeader));
        assertEquals(200, get("/api/status").statusCode(), "the server still answers");
    }

    @Test
    void crossOriginPostsAndForeignHostsAreRefused() throws Exception {
        assertError(send("POST", "/api/recording?on=false", Map.of("Origin", "http://evil.example")), 403,
                "cross-origin request refused (Origin http://evil.example)");
        String raw = rawGet("/api/status", "evil.example:" + server.port());
        assertTrue(raw.startsWith("HTTP/1.1 403"), raw);
        assertTrue(raw.contains("Host 'evil.example' is not a loopback name; open the page at 127.0.0.1"), raw);
        assertTrue(rawGet("/api/status", "localhost:" + server.port()).startsWith("HTTP/1.1 200"));
    }

    @Test
    void crossSiteGetsOfHeavyEndpointsAreRefused() throws Exception {
        for (String path : List.of("/api/snapshot", "/api/download?format=chrome", "/api/report?format=text",
                "/api/stacks/1", "/api/flame")) {
            assertError(send("GET", path, Map.of("Sec-Fetch-Site", "cross-site")), 403,
                    "cross-site request refused (Sec-Fetch-Site cross-site); open the page of this server instead");
            assertError(send("GET", path, Map.of("Sec-Fetch-Site", "same-site")), 403,
                    "cross-site request refused (Sec-Fetch-Site same-site); open the page of this server instead");
            assertError(send("GET", path, Map.of("Origin", "http://evil.example")), 403,
                    "cross-origin request refused (Origin http://evil.example)");
        }
        assertEquals(200, send("GET", "/api/snapshot", Map.of("Sec-Fetch-Site", "same-origin")).statusCode());
        assertEquals(200, send("GET", "/api/download?format=tptp", Map.of("Sec-Fetch-Site", "none")).statusCode(),
                "an address typed by the user");
        assertEquals(200, send("GET", "/api/report?format=text",
                Map.of("Origin", "http://127.0.0.1:" + server.port())).statusCode());
        assertEquals(200, send("GET", "/api/status", Map.of("Sec-Fetch-Site", "cross-site")).statusCode(),
                "the status is cheap and changes nothing");
        assertError(send("POST", "/api/recording?on=false", Map.of("Sec-Fetch-Site", "cross-site")), 403,
                "cross-site request refused (Sec-Fetch-Site cross-site); open the page of this server instead");
    }

    /** A GET with a Host header HttpClient would not send, over a socket to 127.0.0.1. */
    private String rawGet(String path, String host) throws IOException {
        return raw("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
    }

    /** A request as given, over a socket to 127.0.0.1: the whole response. */
    private String raw(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void pageIsServedWithoutAnythingFromTheInternet() throws Exception {
        HttpResponse<byte[]> page = get("/");
        assertEquals(200, page.statusCode());
        assertTrue(page.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
        assertTrue(page.headers().firstValue("Content-Security-Policy").orElse("").contains("default-src 'self'"));
        String html = text(page);
        assertTrue(html.contains("<script src=\"app.js\"></script>") && html.contains("href=\"app.css\""));
        for (String id : List.of("toggle-recording", "toggle-contanalysis", "open-perfetto", "monitors", "callers",
                "threads", "deadlocks", "critical", "dl-chrome", "dl-tptp", "dl-csv-meta", "dl-csv-events", "dl-jfr",
                "dl-snapshot")) {
            assertTrue(html.contains("id=\"" + id + "\""), id);
        }
        String js = text(get("/app.js"));
        assertTrue(js.contains("postMessage('PING', origin)")
                && js.contains("perfetto: { buffer: buffer, title: title, fileName: fileName }"), js);
        for (String res : List.of(html, js, text(get("/app.css")))) {
            // No resource is fetched from anywhere but this server (Perfetto is only opened, on click).
            assertFalse(res.matches("(?s).*(src|href)=\"https?:.*"), res);
            assertEquals(1, res.split("https://", -1).length - (res.contains("https://ui.perfetto.dev") ? res.split(
                    "https://ui.perfetto.dev", -1).length - 1 : 0), "only ui.perfetto.dev is named");
        }
    }

    @Test
    void flameGraphDataAndScriptsAreServedFromTheJar() throws Exception {
        // main blocked on L2 300 us .. snapshot (10,000 us), worker-1 on L1 310 us .. snapshot,
        // worker-2 on L1 100 .. 250 us: all of class Lock in Worker.run.
        HttpResponse<byte[]> flame = get("/api/flame");
        assertEquals(200, flame.statusCode(), () -> text(flame));
        JsonNode j = JSON.readTree(flame.body());
        assertEquals("[\"blocked\",\"com.example.Lock\",\"com.example.Worker.run\"]", j.path("frames").toString());
        assertEquals("[[19540000,0,1,2]]", j.path("stacks").toString());
        assertEquals(19_540_000, j.path("totalNs").asLong());
        for (Map.Entry<String, String> a : Map.of("/d3.min.js", dev.convoy.export.FlameGraph.D3,
                "/d3-flamegraph.min.js", dev.convoy.export.FlameGraph.RENDERER,
                "/d3-flamegraph.css", dev.convoy.export.FlameGraph.RENDERER_CSS,
                "/flame.js", dev.convoy.export.FlameGraph.SCRIPT, "/flame.css", dev.convoy.export.FlameGraph.CSS)
                .entrySet()) {
            HttpResponse<byte[]> r = get(a.getKey());
            assertEquals(200, r.statusCode(), a.getKey());
            assertArrayEquals(dev.convoy.export.FlameGraph.resource(a.getValue()), r.body(), a.getKey());
            assertTrue(r.headers().firstValue("Content-Type").orElse("")
                    .startsWith(a.getKey().endsWith(".js") ? "text/javascript" : "text/css"), a.getKey());
        }
        assertTrue(text(get("/flame-view.js")).contains("fetch('/api/flame'"));
        String html = text(get("/"));
        for (String s : List.of("<script src=\"d3.min.js\">", "<script src=\"flame.js\">", "id=\"flame\"",
                "id=\"dl-flamegraph\"", "id=\"dl-collapsed\"")) {
            assertTrue(html.contains(s), s);
        }
        for (dev.convoy.export.Output o : dev.convoy.export.Output.values()) {
            assertTrue(html.contains("id=\"dl-" + o.id() + "\" data-format=\"" + o.id() + "\" download>"),
                    "the page downloads every output: " + o.id());
        }
        HttpResponse<byte[]> page = get("/api/download?format=flamegraph");
        assertEquals("text/html; charset=utf-8", page.headers().firstValue("Content-Type").orElse(""));
        assertTrue(text(page).contains("19540000"), "the data in the downloaded page");
        assertEquals("blocked;com.example.Lock;com.example.Worker.run 19540000\n",
                text(get("/api/download?format=collapsed")));
    }

    @Test
    void tokenIsRequiredOnEveryRequestWhenConfigured() throws Exception {
        server.close();
        server = WebServer.start(new FileSource(file), "127.0.0.1", 0, TOKEN);
        assertTrue(server.tokenRequired());
        String msg = "missing or wrong access token: send header X-Convoy-Token or parameter ?token=";
        assertError(get("/api/status"), 401, msg);
        assertError(get("/"), 401, msg);
        assertError(get("/api/status?token=wrong-token"), 401, msg);
        assertError(send("GET", "/api/status", Map.of("X-Convoy-Token", "wrong-token")), 401, msg);
        assertError(get("/api/nope"), 401, msg); // nothing about the server is told without the token
        assertError(send("GET", "/api/status", Map.of("X-Convoy-Token", TOKEN + "x".repeat(300))), 401, msg);
        assertError(get("/api/status?token=" + TOKEN.substring(1)), 401, msg);
        assertError(send("POST", "/api/recording?on=false", Map.of()), 401, msg); // before the 409 of offline
        assertEquals(200, get("/api/status?token=" + TOKEN).statusCode());
        assertEquals(200, send("GET", "/api/status", Map.of("X-Convoy-Token", TOKEN)).statusCode());
        assertEquals(200, get("/?token=" + TOKEN).statusCode());
        assertEquals(200, get("/api/download?format=chrome&token=" + TOKEN).statusCode());
    }

    @Test
    void publicBindWithoutTokenIsRefusedBeforeBinding() {
        // Checked without binding anything but loopback: the rule, not a public socket.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> WebServer.checkAccess("0.0.0.0", null));
        assertEquals("the web view binds 0.0.0.0, which is not a loopback address: an access token is required "
                + "(option httptoken)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> WebServer.checkAccess("10.1.2.3", ""));
        assertThrows(IllegalArgumentException.class, () -> WebServer.start(null, "10.1.2.3", 0, null));
        WebServer.checkAccess("10.1.2.3", TOKEN);
        WebServer.checkAccess("127.0.0.1", null);
        WebServer.checkAccess("localhost", null);
    }

    @Test
    void viewArguments() {
        assertEquals(new ViewMain.Args(Path.of("a.cvysnap"), 0), ViewMain.Args.parse("a.cvysnap"));
        assertEquals(new ViewMain.Args(Path.of("a.cvysnap"), 8123), ViewMain.Args.parse("a.cvysnap", "--port", "8123"));
        assertEquals(new ViewMain.Args(Path.of("a.cvysnap"), 8123), ViewMain.Args.parse("--port", "8123", "a.cvysnap"));
        assertEquals("no snapshot file given",
                assertThrows(IllegalArgumentException.class, () -> ViewMain.Args.parse()).getMessage());
        assertEquals("--port needs a number from 0 (any free port) to 65535, got '99999'",
                assertThrows(IllegalArgumentException.class, () -> ViewMain.Args.parse("a", "--port", "99999"))
                        .getMessage());
        assertEquals("unknown option '--host'",
                assertThrows(IllegalArgumentException.class, () -> ViewMain.Args.parse("a", "--host", "x"))
                        .getMessage());
        assertEquals("unexpected argument 'b'",
                assertThrows(IllegalArgumentException.class, () -> ViewMain.Args.parse("a", "b")).getMessage());
    }
}
