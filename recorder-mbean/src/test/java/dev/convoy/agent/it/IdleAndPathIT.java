package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.convoy.agent.http.FileSource;
import dev.convoy.agent.http.WebServer;
import dev.convoy.analysis.Chains;
import dev.convoy.analysis.CriticalPath;
import dev.convoy.analysis.Interactions;
import dev.convoy.analysis.MonitorStatistics;
import dev.convoy.analysis.ThreadStates.State;
import dev.convoy.cli.Report;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.report.ContentionReport;
import dev.convoy.schema.ChromeTraceChecker;
import dev.convoy.testapps.LockChain;
import dev.convoy.testapps.ServerShaped;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Contention first, on a real JVM: {@link ServerShaped} (clients waiting for a pool's handlers,
 * the handlers contending for one monitor and waiting for a slow consumer behind a bounded
 * queue, an idle {@code Cleaner} thread, main joining the clients) without contention analysis,
 * on each JDK. Asserted in the report, the web view's JSON, the Chrome trace and the folded
 * stacks: the idle waits (the pool between requests, the cleaner, the consumer on its empty
 * queue) are apart from the contention and ranked after it; main's {@code Thread.join} is a
 * join, and the critical path ends at main's end and follows the join into a client and on to
 * the slow consumer; the agent's {@code idlerules} reach its dumps and {@code --idle-rules}
 * the report; and {@link LockChain}'s chain of blocks (a monitor, then a lock) is reported with its
 * threads and locks. No assertion is on time.
 */
class IdleAndPathIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path work;

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void idleApartAndThePathOfTheWork(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path rules = work.resolve("agent.rules");
        Files.writeString(rules, "# the consumer's empty queue is contention for this run\n"
                + "contention thread " + ServerShaped.CONSUMER + "\n");
        ChildJvm.Result res = ChildJvm.run(jdk, work, "dumponexit=snapshot+chrome+collapsed,dumpdir=.,dumpname=srv,"
                + "idlerules=" + rules, ServerShaped.class.getName()).assertSucceeded();
        assertTrue(res.stdout().contains(" OK "), res.stdout());
        Path snap = res.dumpDir().resolve("srv.cvysnap");
        Recording r = res.recording();

        // the report: contention ranked, idle apart
        ContentionReport report = ContentionReport.of(r);
        List<MonitorStatistics.ThreadRow> top = report.topThreads();
        List<String> ranked = top.stream().map(t -> t.thread().name()).toList();
        int requestThreads = ServerShaped.DEFAULT_CLIENTS + ServerShaped.DEFAULT_HANDLERS;
        for (String n : ranked.subList(0, requestThreads)) {
            assertTrue(n.startsWith(ServerShaped.CLIENT_PREFIX) || n.startsWith(ServerShaped.HANDLER_PREFIX),
                    "the requests' threads rank first: " + ranked);
        }
        for (MonitorStatistics.ThreadRow t : top.subList(requestThreads, top.size())) {
            assertEquals(0, t.waitedNs(), "below them only a JDK thread's blocks, its waits idle: " + t);
        }
        List<String> idle = report.idleThreads().stream().map(i -> i.row().thread().name()).toList();
        assertTrue(idle.contains(ServerShaped.CLEANER), "the cleaner is idle: " + idle);
        assertTrue(idle.contains(ServerShaped.CONSUMER), "the consumer waits on an empty queue: " + idle);
        assertTrue(idle.stream().anyMatch(n -> n.startsWith(ServerShaped.HANDLER_PREFIX)),
                "handlers between requests are idle: " + idle);
        String text = report.text();
        assertTrue(text.contains("Idle threads (not contention)"), text);
        assertTrue(text.contains("idle frame java.util.concurrent.ThreadPoolExecutor.getTask"), text);
        for (ContentionReport.KeptWaiting k : report.keptWaiting()) {
            String who = k.row().thread().name();
            if (who.startsWith(ServerShaped.HANDLER_PREFIX)) {
                ContentionReport.Cause first = k.causes().get(0);
                assertEquals(ServerShaped.CONSUMER, first.by(), "a handler waited most for the slow consumer: " + text);
                assertEquals("unpark", first.how());
            } else if (who.startsWith(ServerShaped.CLIENT_PREFIX)) {
                assertTrue(k.causes().get(0).by().startsWith(ServerShaped.HANDLER_PREFIX), text);
            }
        }

        // the join without contanalysis, and the critical path of the work
        CriticalPath path = CriticalPath.of(r);
        RecordedThread main = Recordings.thread(r, "main");
        assertEquals(main, path.endThread(), "the path ends at main's end: " + path.segments());
        assertEquals(main.endNs(), path.endNs());
        assertTrue(path.segments().stream().anyMatch(s -> s.thread() == main && s.state() == State.JOINING
                && s.via() != null && s.via().kind() == Interactions.Kind.JOIN_END
                && s.via().from().name().startsWith(ServerShaped.CLIENT_PREFIX)),
                "main's join of a client is on the path, followed into the client: " + path.segments());
        assertTrue(path.segments().stream().anyMatch(s -> s.thread().name().equals(ServerShaped.CONSUMER)),
                "the path reaches the slow consumer: " + path.segments());
        assertTrue(path.segments().stream().noneMatch(s -> s.thread().name().equals(ServerShaped.CLEANER)));

        // the web view's JSON: idle apart per thread, contention first
        JsonNode web;
        try (WebServer server = WebServer.start(new FileSource(snap), "127.0.0.1", 0, null)) {
            web = JSON.readTree(get(server.url(), "api/snapshot"));
        }
        JsonNode cleaner = byName(web.get("threads"), ServerShaped.CLEANER);
        assertEquals(0, cleaner.get("waitedNs").asLong(), cleaner.toString());
        assertTrue(cleaner.get("idleNs").asLong() > 0, cleaner.toString());
        assertTrue(byName(web.get("threads"), ServerShaped.CLIENT_PREFIX + "0").get("waitedNs").asLong() > 0);
        assertEquals("built-in rules", web.get("idleRules").asText());

        // the Chrome trace, written by the agent with its idlerules: the consumer's waits are
        // contention there, the cleaner's idle, a client's wait for its Future contention
        List<JsonNode> chrome = ChromeTraceChecker.check(res.dumpDir().resolve("srv.json"));
        assertTrue(waitSlices(chrome, ServerShaped.CLEANER).stream().allMatch(a -> a.get("idle").asBoolean()),
                "the cleaner's waits are idle");
        List<JsonNode> consumer = waitSlices(chrome, ServerShaped.CONSUMER);
        assertFalse(consumer.isEmpty());
        assertTrue(consumer.stream().noneMatch(a -> a.get("idle").asBoolean()), "idlerules reached the dump: "
                + consumer);
        List<JsonNode> client = waitSlices(chrome, ServerShaped.CLIENT_PREFIX + "1");
        assertFalse(client.isEmpty());
        assertTrue(client.stream().noneMatch(a -> a.get("idle").asBoolean()));

        // the folded stacks: the cleaner's wait under idle, never under waited
        List<String> folded = Files.readAllLines(res.dumpDir().resolve("srv.collapsed.txt"));
        assertTrue(folded.stream().anyMatch(l -> l.startsWith("idle;") && l.contains("ReferenceQueue.remove")),
                String.join("\n", folded));
        assertTrue(folded.stream().noneMatch(l -> l.startsWith("waited;") && l.contains("ReferenceQueue.remove")));
        assertTrue(folded.stream().anyMatch(l -> l.startsWith("waited;") && l.contains("ServerShaped.handle")));

        // ./convoy report --idle-rules: the user's rules reclassify
        Path mine = work.resolve("mine.rules");
        Files.writeString(mine, "idle thread " + ServerShaped.CLIENT_PREFIX + "*\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Report.run(new String[] {snap.toString(), "--idle-rules", mine.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String custom = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        assertTrue(custom.contains("built-in rules and " + mine), custom);
        String waitedMost = custom.substring(custom.indexOf("Threads that waited most"), custom.indexOf("Who kept them"));
        assertFalse(waitedMost.contains(ServerShaped.CLIENT_PREFIX), "clients are idle by the user's rule:\n" + custom);
        assertTrue(custom.substring(custom.indexOf("Idle threads")).contains("idle thread client-*"), custom);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aChainOfBlocksIsReportedWithItsThreadsAndLocks(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result res = ChildJvm.run(jdk, work, ChildJvm.dumping(""), LockChain.class.getName(), "3")
                .assertSucceeded();
        assertTrue(res.stdout().contains(" OK "), res.stdout());
        Recording r = res.recording();
        List<Chains.Row> rows = Chains.of(r).rows();
        assertEquals(1, rows.size(), rows.toString());
        Chains.Row row = rows.get(0);
        assertEquals(List.of(LockChain.First.class.getName(), "java.util.concurrent.locks.ReentrantLock"), row.classes());
        assertEquals(3, row.count(), "one chain a round");
        assertEquals(List.of(LockChain.HEAD, LockChain.MIDDLE, LockChain.TAIL),
                row.longest().threads().stream().map(RecordedThread::name).toList());
        assertTrue(row.longest().exact(), "the VM's owner of First and the park's owner of the lock");
        for (Chains.Chain c : Chains.all(r)) {
            RecordedThread head = c.threads().get(0);
            assertTrue(c.startNs() >= head.startNs() && c.endNs() <= head.endNs(), c.toString());
        }
        String text = ContentionReport.of(r).text();
        assertTrue(text.contains("chain-head -> chain-middle -> chain-tail"), text);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aBadRulesFileStopsTheStartWithOneLine(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path rules = work.resolve("bad.rules");
        Files.writeString(rules, "idle frame ok.Fine.method\nidle stack foo\n");
        ChildJvm.Result res = ChildJvm.run(jdk, work, "idlerules=" + rules, ServerShaped.class.getName(), "1", "1", "1");
        assertEquals(2, res.exitCode(), res.stderr());
        assertTrue(res.stderr().contains(rules + " line 2: a rule matches a 'frame', 'thread' or 'group', not 'stack'"),
                res.stderr());
        assertFalse(res.stderr().contains("\tat "), res.stderr());
    }

    private static List<JsonNode> waitSlices(List<JsonNode> events, String thread) {
        long tid = -1;
        for (JsonNode e : events) {
            if ("M".equals(e.path("ph").asText()) && "thread_name".equals(e.path("name").asText())
                    && thread.equals(e.path("args").path("name").asText())) {
                tid = e.get("tid").asLong();
            }
        }
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : events) {
            String name = e.path("name").asText();
            if ("X".equals(e.path("ph").asText()) && e.path("tid").asLong() == tid && e.path("args").has("idle")
                    && (name.startsWith("wait on") || name.startsWith("parked"))) {
                out.add(e.get("args"));
            }
        }
        return out;
    }

    private static JsonNode byName(JsonNode threads, String name) {
        for (JsonNode t : threads) {
            if (name.equals(t.get("name").asText())) {
                return t;
            }
        }
        throw new AssertionError("no thread " + name + " in " + threads);
    }

    private static String get(String base, String path) throws Exception {
        HttpResponse<String> resp = HTTP.send(HttpRequest.newBuilder(URI.create(base).resolve(path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, resp.statusCode(), () -> path + ": " + resp.body());
        return resp.body();
    }
}
