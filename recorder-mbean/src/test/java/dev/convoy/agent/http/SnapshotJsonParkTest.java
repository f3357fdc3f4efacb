package dev.convoy.agent.http;

import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.convoy.snapshot.SnapshotReader;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** Parks in the web view's JSON: through MonitorStatistics, nothing of its own but the names. */
class SnapshotJsonParkTest {

    static JsonNode json(dev.convoy.testing.RecordingBuilder b) throws Exception {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
            SnapshotJson.write(g, SnapshotReader.read(b.toBytes()));
        }
        return new ObjectMapper().readTree(w.toString());
    }

    @Test
    void parksShowAsBlocksAndWaitsOnTheirLockClass() throws Exception {
        JsonNode j = json(parks(base()));
        boolean lock = false;
        for (JsonNode c : j.path("classes")) {
            if (c.path("className").asText().equals(REENTRANT_LOCK)) {
                lock = true;
                assertEquals(2, c.path("blocked").path("count").asLong());
            }
        }
        assertTrue(lock, j.path("classes").toString());
        boolean parked = false;
        for (JsonNode t : j.path("threads")) {
            parked |= t.path("name").asText().equals("consumer") && t.path("state").asText().equals("parked");
        }
        assertTrue(parked, j.path("threads").toString());
        JsonNode d = json(parkDeadlock(base())).path("deadlocks");
        assertEquals(1, d.size());
        assertEquals(REENTRANT_LOCK, d.get(0).path("threads").get(0).path("monitorClass").asText());
        assertNotEquals(0, d.get(0).path("threads").get(0).path("stack").asLong(), "the PARK's stack");
    }
}
