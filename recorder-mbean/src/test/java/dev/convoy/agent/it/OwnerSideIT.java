package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.convoy.agent.http.FileSource;
import dev.convoy.agent.http.WebServer;
import dev.convoy.analysis.ContentionIndex;
import dev.convoy.analysis.OwnerSamples;
import dev.convoy.analysis.OwnerSamples.State;
import dev.convoy.export.FlameStacks;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.report.ContentionReport;
import dev.convoy.schema.ChromeTraceChecker;
import dev.convoy.testapps.OwnerSide;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;

/**
 * The owner's side of long blocks (option {@code ownerstacks}, default 5 ms) on a real JVM, on
 * each JDK, against {@link OwnerSide}'s ground truth: buyer blocked on the inventory held by
 * restocker in {@code Inventory.restock} at {@code restockLine}, itself blocked on the ledger held
 * by ledger-keeper asleep in {@code Ledger.hold} at {@code holdLine}; lock-waiter parked on a
 * {@code ReentrantLock} held by lock-keeper, asleep (no holding frame: a lock keeps none);
 * auditor-1 blocked on the class {@code Registry} held by auditor-0 asleep in the static
 * synchronized {@code Registry.audit} at {@code auditLine}. Asserted in the recording, the report,
 * the Chrome trace, the flame graph's held view, JFR (the JDK's parser, its {@code jfr print} and
 * JMC's parser) and the web view's JSON; with {@code ownerstacks=off} nothing is sampled. The
 * lines come from the running test app; no assertion is on time.
 */
class OwnerSideIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String APP = OwnerSide.class.getName();

    @TempDir
    Path work;

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void theOwnersFrameLineStateAndChain(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result res = ChildJvm.run(jdk, work, "dumponexit=snapshot+chrome+jfr,dumpdir=.,dumpname=own", APP)
                .assertSucceeded();
        assertTrue(res.stdout().contains(" OK "), res.stdout());
        long restockLine = Recordings.field(res.stdout(), "restockLine");
        long holdLine = Recordings.field(res.stdout(), "holdLine");
        long auditLine = Recordings.field(res.stdout(), "auditLine");
        String restock = OwnerSide.Inventory.class.getName() + ".restock(OwnerSide.java:" + restockLine + ")";
        String hold = OwnerSide.Ledger.class.getName() + ".hold(OwnerSide.java:" + holdLine + ")";
        String audit = OwnerSide.Registry.class.getName() + ".audit(OwnerSide.java:" + auditLine + ")";
        Recording r = res.recording();
        String info = r.info().get("owners.samples");
        assertTrue(info.startsWith("threshold=5ms rate=20/s frames=bytecodes ") && info.contains(" failed=0 "), info);

        // the recording: one sample per block, each with its owner, state, frame
        ContentionIndex x = ContentionIndex.of(r);
        OwnerSamples os = x.ownerSamples();
        assertEquals(0, os.unattached(), "every sample in its block");
        OwnerSamples.Sample buyer = sampleOf(os, OwnerSide.BUYER);
        assertEquals(OwnerSide.RESTOCKER, buyer.ownerName());
        assertEquals(State.BLOCKED, buyer.state());
        assertEquals(OwnerSide.Ledger.class.getName(), r.objectClassName(buyer.on()));
        assertEquals(restock, r.describe(buyer.holdingFrame(r)));
        assertTrue(buyer.frameExact(), "restock is the only frame holding a monitor");
        OwnerSamples.Sample restocker = sampleOf(os, OwnerSide.RESTOCKER);
        assertEquals(OwnerSide.KEEPER, restocker.ownerName());
        assertEquals(State.SLEEPING, restocker.state());
        assertEquals(hold, r.describe(restocker.holdingFrame(r)));
        assertTrue(restocker.frameExact());
        OwnerSamples.Sample waiter = sampleOf(os, OwnerSide.LOCK_WAITER);
        assertTrue(waiter.lock());
        assertEquals(OwnerSide.LOCK_KEEPER, waiter.ownerName());
        assertEquals(State.SLEEPING, waiter.state());
        assertNull(waiter.holdingFrame(r), "a lock keeps no holding frame");
        assertTrue(r.frames(waiter.stackId()).stream().anyMatch(f -> r.describe(f).startsWith("java.lang.Thread.sleep")));
        OwnerSamples.Sample auditor = sampleOf(os, OwnerSide.AUDITOR + 1);
        assertEquals(OwnerSide.AUDITOR + 0, auditor.ownerName());
        assertEquals(audit, r.describe(auditor.holdingFrame(r)));
        assertTrue(auditor.frameExact(), "the static synchronized method of the class blocked on");

        // the chain: buyer -> restocker (blocked on the ledger) -> ledger-keeper (sleeping)
        List<OwnerSamples.Link> chain = os.chain(buyer, 4);
        assertEquals(List.of(OwnerSide.RESTOCKER, OwnerSide.KEEPER), chain.stream().map(l -> l.thread().name()).toList());
        assertEquals(OwnerSide.KEEPER, chain.get(0).holder().name());
        assertEquals(restocker, chain.get(0).sample());

        // the report
        String text = ContentionReport.of(r).text();
        String mon = "@[0-9a-f]+";
        assertTrue(Pattern.compile("  " + OwnerSide.BUYER + ": blocked [0-9.]+ ms on "
                + Pattern.quote(OwnerSide.Inventory.class.getName()) + mon + ", held by " + OwnerSide.RESTOCKER + " in "
                + Pattern.quote(restock) + ", itself blocked on " + Pattern.quote(OwnerSide.Ledger.class.getName()) + mon
                + ", held by " + OwnerSide.KEEPER + " in " + Pattern.quote(hold) + ", sleeping\n").matcher(text).find(),
                text);
        assertTrue(Pattern.compile("  " + OwnerSide.LOCK_WAITER + ": parked [0-9.]+ ms on "
                + "java.util.concurrent.locks.ReentrantLock" + mon + ", held by " + OwnerSide.LOCK_KEEPER + ", sleeping\n")
                .matcher(text).find(), text);

        // the Chrome trace: the owner's side on buyer's blocked slice
        List<JsonNode> chrome = ChromeTraceChecker.check(res.dumpDir().resolve("own.json"));
        JsonNode slice = blockedSlice(chrome, OwnerSide.BUYER);
        assertEquals(OwnerSide.RESTOCKER, slice.get("owner_sampled").asText(), slice.toString());
        assertEquals("blocked", slice.get("owner_state").asText());
        assertEquals(OwnerSide.Ledger.class.getName(), slice.get("owner_on").asText());
        assertEquals(restock, slice.get("owner_frame").asText());
        assertTrue(slice.get("owner_frame_exact").asBoolean());
        assertTrue(slice.get("owner_stack").toString().contains(restock), slice.toString());
        assertEquals("sleeping", blockedSlice(chrome, OwnerSide.RESTOCKER).get("owner_state").asText());

        // the flame graph's held view: the owners' stacks, the holding frame and its line marked
        String heldRestock = OwnerSide.Inventory.class.getName() + ".restock [holding, line " + restockLine + "]";
        String heldHold = OwnerSide.Ledger.class.getName() + ".hold [holding, line " + holdLine + "]";
        java.util.Set<String> held = FlameStacks.of(r).held().keySet();
        assertTrue(held.stream().anyMatch(l -> l.startsWith("held;" + OwnerSide.Inventory.class.getName() + ";")
                && l.contains(";" + heldRestock + ";")), held.toString());
        assertTrue(held.stream().anyMatch(l -> l.startsWith("held;" + OwnerSide.Ledger.class.getName() + ";")
                && l.contains(";" + heldHold + ";")), held.toString());

        // JFR: a dev.convoy.OwnerSample per sample, read by the JDK's parser, its jfr tool and JMC's parser
        Path jfr = res.dumpDir().resolve("own.jfr");
        List<RecordedEvent> samples = RecordingFile.readAllEvents(jfr).stream()
                .filter(e -> e.getEventType().getName().equals("dev.convoy.OwnerSample")).toList();
        assertEquals(os.all().size(), samples.size(), samples.toString());
        RecordedEvent jfrBuyer = samples.stream()
                .filter(e -> OwnerSide.BUYER.equals(e.getThread("blockedThread").getJavaName())).findFirst().orElseThrow();
        assertEquals(OwnerSide.RESTOCKER, jfrBuyer.getThread().getJavaName());
        assertEquals("blocked", jfrBuyer.getString("ownerState"));
        assertEquals(OwnerSide.Inventory.class.getName(), jfrBuyer.getClass("monitorClass").getName());
        assertEquals(OwnerSide.Ledger.class.getName(), jfrBuyer.getClass("ownerOnClass").getName());
        assertEquals(restock, jfrBuyer.getString("holdingFrame"));
        assertFalse(jfrBuyer.getBoolean("holdingFrameProbable"));
        assertTrue(jfrBuyer.getStackTrace().getFrames().stream().anyMatch(f -> f.getMethod().getName().equals("restock")
                && f.getLineNumber() == restockLine), "the owner's stack");
        String printed = JfrOutputIT.tool(jdk, "print", "--events", "dev.convoy.OwnerSample", jfr.toString());
        assertTrue(printed.contains("holdingFrame = \"" + restock + "\""), printed);
        assertTrue(printed.contains("holdingFrame = \"" + hold + "\""), printed);
        long jmc = 0;
        for (org.openjdk.jmc.common.item.IItemIterable it : JfrLoaderToolkit.loadEvents(jfr.toFile())
                .apply(org.openjdk.jmc.common.item.ItemFilters.type("dev.convoy.OwnerSample"))) {
            jmc += it.getItemCount();
        }
        assertEquals(samples.size(), jmc, "JMC's parser reads them");

        // the web view's JSON: the long blocks, both stacks, and the owner on the timeline's span
        JsonNode web;
        JsonNode timeline;
        try (WebServer server = WebServer.start(new FileSource(res.dumpDir().resolve("own.cvysnap")), "127.0.0.1", 0,
                null)) {
            web = JSON.readTree(get(server.url(), "api/snapshot"));
            timeline = JSON.readTree(get(server.url(), "api/timeline?from=0&to=" + web.get("durationNs").asLong()
                    + "&width=4000"));
        }
        JsonNode block = byThread(web.get("longBlocks"), OwnerSide.BUYER);
        assertEquals(OwnerSide.RESTOCKER, block.get("owner").asText(), block.toString());
        assertEquals(restock, block.get("frame").asText());
        assertEquals("blocked", block.get("ownerState").asText());
        assertEquals(OwnerSide.Ledger.class.getName(), block.get("ownerOnClass").asText());
        assertEquals(OwnerSide.KEEPER, block.get("onHeldBy").asText());
        assertTrue(block.get("stack").asInt() > 0 && block.get("ownerStack").asInt() > 0, block.toString());
        assertTrue(byThread(web.get("longBlocks"), OwnerSide.LOCK_WAITER).get("frame").asText().isEmpty());
        assertNotNull(timelineOwner(timeline, OwnerSide.BUYER), timeline.get("owners").toString());
        assertEquals(restock, timelineOwner(timeline, OwnerSide.BUYER).get("frame").asText());
    }

    @Test
    void offRecordsNone() throws Exception {
        Jdks.Jdk jdk = Jdks.all().findFirst().orElseThrow();
        jdk.assumePresent();
        ChildJvm.Result res = ChildJvm.run(jdk, work, ChildJvm.dumping("ownerstacks=off"), APP).assertSucceeded();
        Recording r = res.recording();
        assertEquals("off: option ownerstacks=off", r.info().get("owners.samples"));
        for (RecordedThread t : r.threads()) {
            assertFalse(t.events().stream().anyMatch(e -> e.type() == EventType.OWNER_SAMPLE), t.name());
        }
        assertFalse(ContentionReport.of(r).text().contains("owner's side"));
        assertTrue(Recordings.thread(r, OwnerSide.BUYER).events().stream()
                .anyMatch(e -> e.type() == EventType.MONITOR_ENTER), "the blocks are there, without samples");
    }

    private static OwnerSamples.Sample sampleOf(OwnerSamples os, String blocked) {
        List<OwnerSamples.Sample> s = os.all().stream().filter(x -> x.blocked().name().equals(blocked)).toList();
        assertEquals(1, s.size(), blocked + ": " + os.all());
        return s.get(0);
    }

    private static JsonNode blockedSlice(List<JsonNode> events, String thread) {
        long tid = -1;
        for (JsonNode e : events) {
            if ("M".equals(e.path("ph").asText()) && "thread_name".equals(e.path("name").asText())
                    && thread.equals(e.path("args").path("name").asText())) {
                tid = e.get("tid").asLong();
            }
        }
        for (JsonNode e : events) {
            if ("X".equals(e.path("ph").asText()) && e.path("tid").asLong() == tid
                    && e.path("name").asText().startsWith("blocked on") && e.path("args").has("owner_state")) {
                return e.get("args");
            }
        }
        throw new AssertionError("no blocked slice with an owner's side on " + thread);
    }

    private static JsonNode byThread(JsonNode blocks, String thread) {
        for (JsonNode b : blocks) {
            if (thread.equals(b.get("thread").asText())) {
                return b;
            }
        }
        throw new AssertionError("no long block of " + thread + " in " + blocks);
    }

    /** The owner's side of the timeline span of a thread that has one. */
    private static JsonNode timelineOwner(JsonNode timeline, String thread) {
        for (JsonNode row : timeline.get("rows")) {
            if (!thread.equals(row.get("name").asText())) {
                continue;
            }
            for (JsonNode s : row.get("spans")) {
                if (s.size() > 8 && s.get(8).asInt() > 0) {
                    return timeline.get("owners").get(s.get(8).asInt() - 1);
                }
            }
        }
        return null;
    }

    private static String get(String base, String path) throws Exception {
        HttpResponse<String> resp = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(base).resolve(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, resp.statusCode(), () -> path + ": " + resp.body());
        return resp.body();
    }
}
