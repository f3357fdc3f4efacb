package dev.convoy.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.convoy.analysis.OwnerDeadlockTest;
import dev.convoy.analysis.OwnerSamplesTest;
import dev.convoy.model.Recording;
import dev.convoy.testing.Fixtures;
import dev.convoy.snapshot.SnapshotReader;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;

/**
 * The owner's side in the flame graph's held view and in JFR, on {@link OwnerSamplesTest#chain()}:
 * buyer blocked 400 us on M1 held by restocker in Worker.run line 11 (exact), restocker blocked
 * 400 us on M2 held by keeper in Worker.run line 14 (probably).
 */
class HeldViewTest {

    @TempDir
    Path dir;

    @Test
    void theHeldViewWeighsTheOwnersStacksByTheTimeTheBlockedThreadsLost() throws Exception {
        FlameStacks f = FlameStacks.of(OwnerSamplesTest.chain());
        Map<String, Long> held = new TreeMap<>(f.held());
        assertEquals(Map.of(
                "held;java.lang.Object;com.example.Worker.run [holding, line 11];java.lang.Object.wait", 400_000L,
                "held;com.example.Lock;com.example.Worker.run [probably holding, line 14]", 400_000L), held);
        assertFalse(f.folded().keySet().stream().anyMatch(l -> l.startsWith("held;")), "not in the folded text");
        ByteArrayOutputStream collapsed = new ByteArrayOutputStream();
        f.writeCollapsed(collapsed);
        assertFalse(collapsed.toString().contains("held;"));

        // the page's JSON has them, state first, after the others
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(json)) {
            f.writeJson(g);
        }
        JsonNode data = new ObjectMapper().readTree(json.toByteArray());
        long heldNs = 0;
        for (JsonNode s : data.get("stacks")) {
            if (data.get("frames").get(s.get(1).asInt()).asText().equals("held")) {
                heldNs += s.get(0).asLong();
            }
        }
        assertEquals(800_000, heldNs);
        assertEquals(f.totalNs(), data.get("totalNs").asLong(), "the held view is not in the total");
    }

    @Test
    void noSamplesNoHeldView() throws Exception {
        assertTrue(FlameStacks.of(SnapshotReader.read(Fixtures.all().toBytes())).held().isEmpty());
    }

    @Test
    void jfrHasAnOwnerSampleEventPerSample() throws Exception {
        Recording r = OwnerSamplesTest.chain();
        Path jfr = dir.resolve("o.jfr");
        Output.write(r, Set.of(Output.JFR), jfr);
        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr).stream()
                .filter(e -> e.getEventType().getName().equals("dev.convoy.OwnerSample")).toList();
        assertEquals(2, events.size(), events.toString());
        RecordedEvent buyer = events.stream().filter(e -> e.getThread("blockedThread").getJavaName().equals("buyer"))
                .findFirst().orElseThrow();
        assertEquals("restocker", buyer.getThread().getJavaName());
        assertEquals("blocked", buyer.getString("ownerState"));
        assertEquals("java.lang.Object", buyer.getClass("monitorClass").getName());
        assertEquals("com.example.Lock", buyer.getClass("ownerOnClass").getName());
        assertEquals("com.example.Worker.run(Worker, Inc.java:11)", buyer.getString("holdingFrame"));
        assertFalse(buyer.getBoolean("holdingFrameProbable"));
        assertFalse(buyer.getBoolean("lock"));
        assertEquals(400_000, buyer.getDuration("blockedDuration").toNanos());
        List<RecordedFrame> frames = buyer.getStackTrace().getFrames();
        assertEquals("wait", frames.get(0).getMethod().getName());
        assertEquals(11, frames.get(1).getLineNumber(), "the owner's stack, where it holds the monitor");
        RecordedEvent restocker = events.stream()
                .filter(e -> e.getThread("blockedThread").getJavaName().equals("restocker")).findFirst().orElseThrow();
        assertEquals("keeper", restocker.getThread().getJavaName());
        assertEquals("sleeping", restocker.getString("ownerState"));
        assertNull(restocker.getClass("ownerOnClass"));
        assertTrue(restocker.getBoolean("holdingFrameProbable"));

        IItemCollection items = JfrLoaderToolkit.loadEvents(jfr.toFile());
        assertEquals(2, JfrJmcTest.jmcCounts(items).get("dev.convoy.OwnerSample"), "JMC's parser reads them");
    }

    @Test
    void aDeadlockHasBothSamplesInJfr() throws Exception {
        Path jfr = dir.resolve("d.jfr");
        Output.write(OwnerDeadlockTest.deadlock(), Set.of(Output.JFR), jfr);
        assertEquals(2, RecordingFile.readAllEvents(jfr).stream()
                .filter(e -> e.getEventType().getName().equals("dev.convoy.OwnerSample")).count());
    }
}
