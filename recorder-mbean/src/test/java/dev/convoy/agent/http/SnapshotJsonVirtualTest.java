package dev.convoy.agent.http;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import dev.convoy.testing.RecordingBuilder;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The web view's JSON (the summary and the timeline) names virtual threads as such and flags them. */
class SnapshotJsonVirtualTest {

    @Test
    void virtualThreadsAreNamedAndFlagged() throws Exception {
        RecordingBuilder b = base();
        b.thread(R_MAIN, 1, O_MAIN, "main").span(T0, 0)
                .event(T0, EVENT_THREAD_START, 0, O_MAIN, 1);
        b.thread(300, 77, 0, "").span(t(10), 0).flags(RING_VIRTUAL)
                .event(t(100), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(400), EVENT_MONITOR_ENTERED, 0, M1, 0);
        JsonNode j = SnapshotJsonParkTest.json(b);
        Map<String, Boolean> virtual = new HashMap<>();
        for (JsonNode t : j.path("threads")) {
            virtual.put(t.path("name").asText(), t.path("virtual").asBoolean());
        }
        assertEquals(Boolean.TRUE, virtual.get("virtual thread 77"), j.path("threads").toString());
        assertEquals(Boolean.FALSE, virtual.get("main"), j.path("threads").toString());

        Timeline timeline = Timeline.of(b.build());
        JsonNode rows = TimelineTest.answer(timeline, timeline.parse(null, null, "500")).path("rows");
        assertEquals(2, rows.size(), rows::toString);
        assertEquals("main", rows.get(0).path("name").asText());
        assertFalse(rows.get(0).path("virtual").asBoolean());
        assertEquals("virtual thread 77", rows.get(1).path("name").asText());
        assertTrue(rows.get(1).path("virtual").asBoolean());
        assertEquals(77, rows.get(1).path("javaThreadId").asLong());
    }
}
