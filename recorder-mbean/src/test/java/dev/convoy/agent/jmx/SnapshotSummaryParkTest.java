package dev.convoy.agent.jmx;

import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import java.util.Arrays;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.junit.jupiter.api.Test;

/** Parks in the MBean summary: through MonitorStatistics, a lock park counts as a block, on its lock's class. */
class SnapshotSummaryParkTest {

    @Test
    void parksCountLikeMonitors() throws Exception {
        Recording r = SnapshotReader.read(parks(base()).toBytes());
        CompositeData s = SnapshotSummary.of(r);
        TabularData threads = (TabularData) s.get("threads");
        CompositeData acq = threads.values().stream().map(v -> (CompositeData) v)
                .filter(c -> c.get("name").equals("acquirer")).findFirst().orElseThrow();
        assertEquals(1L, acq.get("blockedCount"));
        assertEquals(2L, acq.get("waitCount"));
        CompositeData cons = threads.values().stream().map(v -> (CompositeData) v)
                .filter(c -> c.get("name").equals("consumer")).findFirst().orElseThrow();
        assertEquals("parked", cons.get("state"));
        TabularData top = (TabularData) s.get("mostContendedMonitors");
        CompositeData rl1 = top.values().stream().map(v -> (CompositeData) v)
                .filter(c -> c.get("monitorId").equals(RL1)).findFirst().orElseThrow();
        assertEquals(REENTRANT_LOCK, rl1.get("monitorClass"));
        assertEquals(2L, rl1.get("blockedCount"));
        assertEquals(0, ((String[]) s.get("deadlocks")).length);

        String[] deadlocks = (String[]) SnapshotSummary.of(SnapshotReader.read(parkDeadlock(base()).toBytes()))
                .get("deadlocks");
        assertEquals(1, deadlocks.length, Arrays.toString(deadlocks));
        assertTrue(deadlocks[0].contains("parked on " + REENTRANT_LOCK), deadlocks[0]);
    }
}
