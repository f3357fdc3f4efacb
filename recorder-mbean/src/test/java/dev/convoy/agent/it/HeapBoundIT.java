package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testapps.BigRecording;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.management.MBeanException;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The recorder never takes the heap the application needs: an app with a 128 MiB heap and
 * {@code -XX:+ExitOnOutOfMemoryError} records two million wait/notify round trips (more than the
 * default history keeps: the newest of them fill it, the rest age out, the largest recording the
 * default bounds allow), then a JMX client asks
 * for the summary, a chrome stream, the snapshot as a stream and as a dump, the web view serves
 * five downloads at once (chrome and pprof refused, the snapshot whole), its page's summary of the
 * whole history is refused but its overview served and a short window of it analysed, {@code ./convoy dump}
 * writes the snapshot and refuses chrome in one line, and the app exits
 * with {@code dumponexit=all}. The analyses that cannot fit are refused with a message that says
 * what to do; the snapshot, written from native memory, always comes out whole; the app lives
 * and exits 0 (an OutOfMemoryError would exit it with 3). The heap pools' peak over the
 * recorder's work is printed.
 */
class HeapBoundIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    private static String refusal(MBeanServerConnection c, String op, Object... args) {
        MBeanException e = assertThrows(MBeanException.class, () -> JmxIT.invoke(c, op, args));
        assertTrue(e.getCause() instanceof IllegalStateException, () -> "refused as " + e.getCause());
        return e.getCause().getMessage();
    }

    /** Resets the heap pools' peaks ({@code reset}), or sums them: bytes. */
    private static long heapPools(MBeanServerConnection c, boolean reset) throws Exception {
        long sum = 0;
        for (javax.management.ObjectName pool : c.queryNames(new javax.management.ObjectName(
                "java.lang:type=MemoryPool,name=*"), null)) {
            if (!"HEAP".equals(String.valueOf(c.getAttribute(pool, "Type")))) {
                continue;
            }
            if (reset) {
                c.invoke(pool, "resetPeakUsage", new Object[0], new String[0]);
            } else {
                javax.management.openmbean.CompositeData peak =
                        (javax.management.openmbean.CompositeData) c.getAttribute(pool, "PeakUsage");
                sum += (Long) peak.get("used");
            }
        }
        return sum;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aLargeRecordingInASmallHeapIsServedOrRefusedNeverOutOfMemory(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path dumps = Files.createDirectories(work.resolve("dumps"));
        RemoteJmx jmx = RemoteJmx.onFreePort();
        List<String> jvmArgs = new ArrayList<>(List.of("-Xmx128m", "-XX:+ExitOnOutOfMemoryError",
                "-javaagent:" + ChildJvm.agentJar() + "=dumpdir=" + dumps + ",dumponexit=all,dumpname=exit,http=127.0.0.1:0",
                "-Dconvoy.tmpdir=" + work.resolve("lib")));
        jvmArgs.addAll(jmx.jvmArgs());
        String out;
        try (RunningJvm app = RunningJvm.start(jdk, work, jvmArgs, BigRecording.class.getName(), "2000000")) {
            app.awaitLineStartingWith(BigRecording.MARKER);
            // from here on the app only waits: the heap's peak is the recorder's work
            try (JMXConnector connector = jmx.connect()) {
                heapPools(connector.getMBeanServerConnection(), true);
            }
            String base = WebViewIT.awaitUrl(app.stderr(), "the app");
            // the web view's downloads, several at once: the snapshot whole from native memory,
            // a chrome trace refused with the reason (503), never an OutOfMemoryError
            HttpClient http = HttpClient.newHttpClient();
            List<CompletableFuture<HttpResponse<byte[]>>> downloads = new ArrayList<>();
            for (String f : List.of("chrome", "snapshot", "chrome", "snapshot", "pprof")) {
                downloads.add(http.sendAsync(HttpRequest.newBuilder(URI.create(base + "api/download?format=" + f))
                        .GET().build(), HttpResponse.BodyHandlers.ofByteArray()));
            }
            for (int i = 0; i < downloads.size(); i++) {
                HttpResponse<byte[]> resp = downloads.get(i).get(120, TimeUnit.SECONDS);
                if (i % 2 == 1) {
                    assertEquals(200, resp.statusCode(), () -> new String(resp.body(), StandardCharsets.UTF_8));
                    assertTrue(SnapshotReader.read(resp.body()).threads().size() >= 2);
                } else {
                    String body = new String(resp.body(), StandardCharsets.UTF_8);
                    assertEquals(503, resp.statusCode(), body);
                    assertTrue(body.contains("not enough heap for the analysis of"), body);
                }
            }
            // the web view's page: the whole history too large to analyse, its overview served all the same,
            // and a short window of it analysed
            HttpResponse<byte[]> pageSummary = http.send(HttpRequest.newBuilder(URI.create(base + "api/snapshot")).GET()
                    .build(), HttpResponse.BodyHandlers.ofByteArray());
            JsonNode refused = JSON.readTree(pageSummary.body());
            assertEquals(503, pageSummary.statusCode(), refused::toString);
            assertTrue(refused.get("tooLarge").asBoolean(), refused::toString);
            assertTrue(refused.get("error").asText().contains("pick a shorter window"), refused::toString);
            JsonNode overview = JSON.readTree(http.send(HttpRequest.newBuilder(URI.create(base
                    + "api/overview?buckets=4000")).GET().build(), HttpResponse.BodyHandlers.ofByteArray()).body());
            assertTrue(overview.get("recordCount").asLong() > 500_000, overview.get("recordCount")::toString);
            int busy = 0;
            while (overview.get("records").get(busy).asLong() == 0) {
                busy++;
            }
            long d = overview.get("durationNs").asLong();
            String window = "api/window?from=" + busy * d / 4000 + "&to=" + (busy + 1) * d / 4000;
            HttpResponse<byte[]> picked = http.send(HttpRequest.newBuilder(URI.create(base + window))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, picked.statusCode(), () -> new String(picked.body(), StandardCharsets.UTF_8));
            long windowRecords = JSON.readTree(picked.body()).get("window").get("records").asLong();
            assertTrue(windowRecords > 0 && windowRecords < 100_000, () -> "records of the window: " + windowRecords);
            // ./convoy dump through the Attach API: the snapshot whole, a chrome trace refused in one line
            Path cliSnap = work.resolve("cli.cvysnap");
            AttachIT.Cli snap = AttachIT.convoy("dump", app.pid(), "--format", "snapshot", "-o", cliSnap);
            assertEquals(0, snap.code(), snap::toString);
            assertTrue(SnapshotReader.read(cliSnap).threads().size() >= 2);
            AttachIT.Cli chromeCli = AttachIT.convoy("dump", app.pid(), "--format", "chrome", "-o", work.resolve("cli.json"));
            assertEquals(1, chromeCli.code(), chromeCli::toString);
            assertTrue(chromeCli.err().contains("not enough heap for the analysis of"), chromeCli::toString);
            assertEquals(1, chromeCli.err().strip().lines().count(), chromeCli::toString);
            assertFalse(Files.exists(work.resolve("cli.json")), "nothing half-written");
            try (JMXConnector connector = jmx.connect()) {
                MBeanServerConnection c = connector.getMBeanServerConnection();
                String summary = refusal(c, "snapshot");
                assertTrue(summary.startsWith("snapshot(): not enough heap for the analysis of "), summary);
                assertTrue(summary.contains("dump format 'snapshot'"), summary);
                String chrome = refusal(c, "openStream", "chrome");
                assertTrue(chrome.startsWith("a chrome download: not enough heap"), chrome);

                long id = (Long) JmxIT.invoke(c, "openStream", "snapshot");
                ByteArrayOutputStream all = new ByteArrayOutputStream();
                for (byte[] chunk; (chunk = (byte[]) JmxIT.invoke(c, "readStream", id)) != null; ) {
                    all.write(chunk);
                }
                JmxIT.invoke(c, "closeStream", id);
                Recording r = SnapshotReader.read(all.toByteArray());
                long records = r.threads().stream().mapToLong(RecordedThread::eventCount).sum();
                assertTrue(records > 500_000, "the whole recording streamed: " + records);
                long everWritten = r.threads().stream().mapToLong(RecordedThread::written).sum();
                long lost = r.threads().stream().mapToLong(RecordedThread::lostRecords).sum();
                assertEquals(everWritten, records + lost, "every record written is in the stream or counted as lost");

                String[] written = (String[]) JmxIT.invoke(c, "dump", "snapshot", "live");
                assertEquals(1, written.length);
                assertTrue(SnapshotReader.read(Path.of(written[0])).threads().size() >= 2);
                // the largest recording the default bounds keep: the history full, its oldest aged out
                assertTrue(r.recordsAged() > 0, () -> "the default history is full: " + r.info().get("history"));
                long peak = heapPools(c, false);
                System.out.printf("[HeapBoundIT] %s: %,d records (%,d bytes of snapshot); the recorder's work "
                        + "(downloads, dumps, refusals) peaked at %.1f MiB of the 128 MiB heap%n", jdk, records,
                        all.size(), peak / 1048576.0);
                assertTrue(peak < 128L << 20, "heap peak " + peak);
            }
            assertEquals(0, app.finish(), "no OutOfMemoryError ended the app:\n" + app.output());
            out = app.output();
        }
        assertTrue(out.contains("exit.cvysnap"), out);
        assertTrue(out.contains("[convoy] dump on exit: ") && out.contains("not enough heap"), out);
        assertFalse(out.contains("OutOfMemoryError"), out);
        assertTrue(SnapshotReader.read(dumps.resolve("exit.cvysnap")).threads().size() >= 2);
    }
}
