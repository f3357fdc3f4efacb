package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.convoy.analysis.Deadlocks;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.Window;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testapps.Deadlock;
import dev.convoy.testapps.Scenarios;

/**
 * The web view of the real agent jar: a child JVM started with {@code http=127.0.0.1:0}
 * (the URL parsed from its stderr line), and {@code ./convoy view}'s main class serving a
 * saved snapshot offline from the shaded jar. Traffic goes to 127.0.0.1 only.
 */
class WebViewIT {

    private static final Pattern URL = Pattern.compile("\\[convoy] web view at (http://127\\.0\\.0\\.1:[0-9]+/)");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    /** The web view's address, once the agent printed it on {@code stderr}. */
    static String awaitUrl(List<String> stderr, String what) {
        String[] url = new String[1];
        Awaitility.await("web view URL on stderr of " + what).atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20)).until(() -> {
                    for (String line : stderr) {
                        Matcher m = URL.matcher(line);
                        if (m.find()) {
                            url[0] = m.group(1);
                            return true;
                        }
                    }
                    return false;
                });
        return url[0];
    }

    private static HttpResponse<byte[]> send(String base, String method, String path) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(base).resolve(path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        return CLIENT.send(r, HttpResponse.BodyHandlers.ofByteArray());
    }

    private static JsonNode json(HttpResponse<byte[]> r) throws IOException {
        assertEquals(200, r.statusCode(), () -> new String(r.body(), StandardCharsets.UTF_8));
        return JSON.readTree(r.body());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void liveWebViewControlsRecordingAndServesTheDeadlock(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path dumps = Files.createDirectories(work.resolve("dumps"));
        List<String> jvmArgs = List.of(
                "-javaagent:" + ChildJvm.agentJar() + "=dumpdir=" + dumps + ",stackdepth=16,http=127.0.0.1:0",
                "-Dconvoy.tmpdir=" + work.resolve("lib"));
        try (RunningJvm app = RunningJvm.start(jdk, work, jvmArgs, Deadlock.class.getName(),
                "--hold-until-stdin-eof", "--hold-ms=60000")) {
            app.awaitLine(Deadlock.MARKER);
            String base = awaitUrl(app.stderr(), "the app");

            JsonNode status = json(send(base, "GET", "/api/status"));
            assertEquals("live", status.get("mode").asText());
            assertEquals(app.pid(), status.get("pid").asLong());
            assertTrue(status.get("recording").asBoolean());
            assertTrue(status.get("options").asText().contains("http=127.0.0.1:0"), status::toString);
            assertTrue(status.get("counters").get("eventsRecorded").asLong() > 0);

            assertFalse(json(send(base, "POST", "/api/recording?on=false")).get("recording").asBoolean());
            assertFalse(json(send(base, "GET", "/api/status")).get("recording").asBoolean());
            assertTrue(json(send(base, "POST", "/api/recording?on=true")).get("recording").asBoolean());
            assertTrue(json(send(base, "POST", "/api/contanalysis?on=true")).get("contentionAnalysis").asBoolean());
            assertFalse(json(send(base, "POST", "/api/contanalysis?on=false")).get("contentionAnalysis").asBoolean());

            JsonNode snap = json(send(base, "GET", "/api/snapshot"));
            JsonNode deadlocks = snap.get("deadlocks");
            assertEquals(1, deadlocks.size(), snap::toString);
            String cycle = deadlocks.get(0).get("description").asText();
            assertTrue(cycle.contains(Deadlock.THREAD_A) && cycle.contains(Deadlock.THREAD_B), cycle);
            int stack = deadlocks.get(0).get("threads").get(0).get("stack").asInt();
            assertTrue(stack > 0, deadlocks::toString);
            HttpResponse<byte[]> frames = send(base, "GET", "/api/stacks/" + stack);
            assertEquals(200, frames.statusCode());
            assertTrue(new String(frames.body(), StandardCharsets.UTF_8)
                    .contains("at " + Deadlock.class.getName() + ".lockBoth("), () -> new String(frames.body()));
            boolean threadsListed = false;
            for (JsonNode t : snap.get("threads")) {
                if (t.get("name").asText().equals(Deadlock.THREAD_A)) {
                    assertEquals("blocked", t.get("state").asText());
                    threadsListed = true;
                }
            }
            assertTrue(threadsListed, snap::toString);

            HttpResponse<byte[]> chrome = send(base, "GET", "/api/download?format=chrome");
            assertTrue(json(chrome).has("traceEvents"));
            HttpResponse<byte[]> bytes = send(base, "GET", "/api/download?format=snapshot");
            assertEquals(200, bytes.statusCode());
            Recording served = SnapshotReader.read(bytes.body());
            assertEquals(1, Deadlocks.find(served).size(), "the frozen snapshot, with its deadlock");
            // one version, the project's: on the page and in the recording it serves
            assertEquals(System.getProperty("convoy.project.version"), status.get("version").asText());
            assertEquals(status.get("version").asText(), served.info().get("agent.version"));
            // the web server's own threads (convoy-http-*), busy serving this test, are not recorded
            List<String> own = served.threads().stream().map(RecordedThread::name)
                    .filter(n -> n.startsWith("convoy-")).toList();
            assertEquals(List.of(), own, "Convoy's own threads in the recording");
            // the timeline of the frozen snapshot: a row per Java thread, the deadlocked ones ending so
            JsonNode timeline = json(send(base, "GET", "/api/timeline?width=800"));
            List<String> rows = new ArrayList<>();
            timeline.get("rows").forEach(row -> rows.add(row.get("name").asText()));
            assertEquals(served.threads().stream().filter(t -> !t.isSystem()).map(RecordedThread::label).toList(), rows);
            JsonNode a = timeline.get("rows").get(rows.indexOf(Deadlock.THREAD_A)).get("spans");
            assertEquals("DEADLOCKED", timeline.get("states").get(a.get(a.size() - 1).get(2).asInt()).asText(),
                    a::toString);
            assertEquals(400, send(base, "GET", "/api/timeline?from=9&to=3").statusCode());
            HttpResponse<byte[]> report = send(base, "GET", "/api/report?format=markdown");
            assertTrue(new String(report.body(), StandardCharsets.UTF_8).contains("\n## Deadlocks\n"));
            assertEquals(400, send(base, "GET", "/api/download?format=pdf").statusCode());
            assertEquals(405, send(base, "GET", "/api/recording?on=true").statusCode());
            assertEquals(200, send(base, "GET", "/").statusCode());

            try (var files = Files.list(dumps)) {
                assertEquals(0, files.count(), "the web view writes no file");
            }
            assertEquals(0, app.finish(), app::output);
            String err = String.join("\n", app.stderr());
            assertFalse(err.contains("SLF4J"), "no logging noise from the shaded Jetty:\n" + err);
        }
    }

    private static long sum(JsonNode array) {
        long s = 0;
        for (JsonNode v : array) {
            s += v.asLong();
        }
        return s;
    }

    private static long sum(JsonNode threads, String field) {
        long s = 0;
        for (JsonNode t : threads) {
            s += t.get(field).asLong();
        }
        return s;
    }

    /** A ring's records as the snapshot encodes them. */
    private static byte[] recordBytes(RecordedThread t) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(t.eventCount() * dev.convoy.snapshot.SnapshotFormat.RECORD_BYTES)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < t.eventCount(); i++) {
            t.copyRecord(i, b);
        }
        return b.array();
    }

    private static long records(Recording r) {
        return r.threads().stream().mapToLong(RecordedThread::eventCount).sum();
    }

    /**
     * The demo under the agent, held: the overview of its whole frozen history counts the blocks,
     * waits and idle waits (and their time) the summary counts and every record kept; a window
     * picked through the API is then what the summary, the timeline, the report and the downloads
     * describe: the binary snapshot downloaded holds exactly the records {@link Window#cut} keeps of
     * the whole history downloaded before; bad windows get a one-line 400.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void theOverviewCoversTheWholeHistoryAndAWindowOfItIsWhatTheViewDescribes(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        List<String> jvmArgs = List.of("-javaagent:" + ChildJvm.agentJar() + "=stackdepth=16,http=127.0.0.1:0",
                "-Dconvoy.tmpdir=" + work.resolve("lib"));
        try (RunningJvm app = RunningJvm.start(jdk, work, jvmArgs, Scenarios.class.getName(), Scenarios.DEMO,
                "--hold-until-stdin-eof", "--hold-ms=120000")) {
            app.awaitLineStartingWith(Scenarios.FINAL_LINE_PREFIX + " OK");
            String base = awaitUrl(app.stderr(), "the demo");
            JsonNode whole = json(send(base, "GET", "/api/snapshot"));
            assertTrue(whole.get("window").get("whole").asBoolean());
            Recording full = SnapshotReader.read(send(base, "GET", "/api/download?format=snapshot").body());

            JsonNode o = json(send(base, "GET", "/api/overview?buckets=250"));
            assertEquals(250, o.get("blocks").size());
            JsonNode threads = whole.get("threads");
            long blocks = sum(threads, "blockedCount");
            assertTrue(blocks > 0, "the demo blocks");
            assertEquals(blocks, sum(o.get("blocks")), "blocks over the buckets: the summary's");
            assertEquals(sum(threads, "blockedNs"), sum(o.get("blockedNs")), "blocked time");
            assertEquals(sum(threads, "waitedCount"), sum(o.get("waits")), "waits");
            assertEquals(sum(threads, "waitedNs"), sum(o.get("waitedNs")), "waited time");
            assertEquals(sum(threads, "idleCount"), sum(o.get("idleWaits")), "idle waits");
            assertEquals(records(full), sum(o.get("records")), "every record kept, in some bucket");
            assertEquals(records(full), o.get("recordCount").asLong());
            assertEquals(full.recordsOverwritten(), o.get("overwritten").asLong());
            assertEquals(full.threads().stream().mapToLong(RecordedThread::lostRecords).sum(),
                    sum(o.get("lostRecords")), "every lost record, in some bucket");
            long d = o.get("durationNs").asLong();
            assertEquals(full.snapshotMonotonicNs() - full.startMonotonicNs(), d);

            // the second quarter of the history
            long from = d / 4;
            long to = d / 2;
            JsonNode picked = json(send(base, "POST", "/api/window?from=" + from + "&to=" + to));
            JsonNode w = picked.get("window");
            assertFalse(w.get("whole").asBoolean());
            assertEquals(from, w.get("fromNs").asLong());
            assertEquals(to, w.get("toNs").asLong());
            assertEquals(to - from, picked.get("durationNs").asLong());
            Recording cut = new Window(full.startMonotonicNs() + from, full.startMonotonicNs() + to).cut(full);
            HttpResponse<byte[]> download = send(base, "GET", "/api/download?format=snapshot");
            assertTrue(download.headers().firstValue("Content-Disposition").orElse("").contains("-window-"));
            Recording served = SnapshotReader.read(download.body());
            assertEquals(records(cut), records(served));
            assertEquals(records(cut), w.get("records").asLong());
            assertEquals(records(full), w.get("historyRecords").asLong());
            assertEquals(cut.threads().size(), served.threads().size());
            for (int k = 0; k < cut.threads().size(); k++) {
                RecordedThread a = cut.threads().get(k);
                RecordedThread b = served.threads().get(k);
                assertEquals(a.ringId(), b.ringId());
                assertEquals(a.eventCount(), b.eventCount(), a.name());
                assertEquals(a.losses(), b.losses(), a.name());
                assertArrayEquals(recordBytes(a), recordBytes(b), a.name());
            }
            // the window's summary is the analysis of the cut
            long cutBlocks = dev.convoy.analysis.MonitorStatistics.of(cut).threads().stream()
                    .mapToLong(dev.convoy.analysis.MonitorStatistics.ThreadRow::blockedCount).sum();
            assertEquals(cutBlocks, sum(picked.get("threads"), "blockedCount"));
            JsonNode timeline = json(send(base, "GET", "/api/timeline?width=400"));
            assertEquals(to - from, timeline.get("durationNs").asLong());
            for (JsonNode row : timeline.get("rows")) {
                for (JsonNode span : row.get("spans")) {
                    assertTrue(span.get(0).asLong() >= 0 && span.get(1).asLong() <= to - from, span::toString);
                }
            }
            String report = new String(send(base, "GET", "/api/report").body(), StandardCharsets.UTF_8);
            assertTrue(report.startsWith("Window: "), report);
            JsonNode shown = json(send(base, "GET", "/api/overview")).get("window");
            assertEquals(from, shown.get("fromNs").asLong());

            HttpResponse<byte[]> bad = send(base, "POST", "/api/window?from=" + to + "&to=" + from);
            assertEquals(400, bad.statusCode());
            assertEquals("parameter 'from' (" + to + ") must be less than 'to' (" + from + ")",
                    JSON.readTree(bad.body()).get("error").asText());
            assertEquals(400, send(base, "POST", "/api/window?from=soon").statusCode());
            assertEquals(from, json(send(base, "GET", "/api/overview")).get("window").get("fromNs").asLong(),
                    "a refused window changes nothing");
            assertEquals(d, json(send(base, "POST", "/api/window")).get("durationNs").asLong(), "the whole again");
            assertEquals(records(full), records(SnapshotReader.read(
                    send(base, "GET", "/api/download?format=snapshot").body())));
            assertEquals(0, app.finish(), app::output);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void convoyViewServesASavedSnapshotOffline(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path dumps = Files.createDirectories(work.resolve("saved"));
        ChildJvm.Result recorded = ChildJvm.run(jdk, work, "dumponexit=snapshot,dumpname=saved,dumpdir=" + dumps,
                Deadlock.class.getName(), "--hold-ms=50").assertSucceeded();
        Path file = recorded.dumpDir().resolve("saved.cvysnap");
        if (!Files.exists(file)) {
            file = dumps.resolve("saved.cvysnap");
        }
        assertTrue(Files.isRegularFile(file), recorded::stderr);
        byte[] saved = Files.readAllBytes(file);

        List<String> cmd = new ArrayList<>(List.of(jdk.java().toString(), "-cp", ChildJvm.agentJar().toString(),
                "dev.convoy.agent.http.ViewMain", file.toString(), "--port", "0"));
        Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        List<String> stderr = new CopyOnWriteArrayList<>();
        Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    stderr.add(line);
                }
            } catch (IOException e) {
                stderr.add("<closed: " + e + ">");
            }
        }, "view-stderr");
        pump.setDaemon(true);
        pump.start();
        try {
            String base = awaitUrl(stderr, "convoy view");
            JsonNode status = json(send(base, "GET", "/api/status"));
            assertEquals("offline", status.get("mode").asText());
            assertEquals("saved.cvysnap", status.get("file").asText());
            HttpResponse<byte[]> refused = send(base, "POST", "/api/recording?on=false");
            assertEquals(409, refused.statusCode());
            assertEquals("this is a saved snapshot (offline view): recording cannot be controlled",
                    JSON.readTree(refused.body()).get("error").asText());
            JsonNode snap = json(send(base, "GET", "/api/snapshot"));
            assertTrue(snap.get("threads").size() > 0);
            HttpResponse<byte[]> download = send(base, "GET", "/api/download?format=snapshot");
            assertArrayEquals(saved, download.body());
            assertEquals("attachment; filename=\"saved.cvysnap\"",
                    download.headers().firstValue("Content-Disposition").orElse(""));
            assertTrue(String.valueOf(send(base, "GET", "/").statusCode()).equals("200"));
            assertFalse(String.join("\n", stderr).contains("SLF4J"), () -> String.join("\n", stderr));
        } finally {
            p.destroy();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }
}
