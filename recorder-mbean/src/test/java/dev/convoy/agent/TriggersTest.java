package dev.convoy.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.convoy.snapshot.SnapshotFormat;

class TriggersTest {

    private static NativeRecorder.Stalled enter(long tid, long owner) {
        return new NativeRecorder.Stalled(tid, SnapshotFormat.EVENT_MONITOR_ENTER, SnapshotFormat.FLAG_OWNER, 1, 0, owner);
    }

    private static NativeRecorder.Stalled park(long tid, long owner, boolean lock) {
        return new NativeRecorder.Stalled(tid, SnapshotFormat.EVENT_PARK, lock ? SnapshotFormat.FLAG_LOCK : 0, 2, 0,
                owner);
    }

    @Test
    void aCycleOfThreadsBlockedOnWhatTheNextOwnsIsADeadlockCandidate() {
        assertEquals(List.of(Set.of(1L, 2L)), Triggers.cycles(List.of(enter(1, 2), enter(2, 1), enter(3, 1))),
                "thread 3 waits for the cycle but is not in it");
        assertEquals(List.of(Set.of(4L, 5L, 6L)), Triggers.cycles(List.of(enter(4, 5), park(5, 6, true), enter(6, 4))),
                "monitors and owned locks together");
        assertTrue(Triggers.cycles(List.of(enter(1, 2), park(2, 1, false))).isEmpty(),
                "a park that acquires no lock (a condition, a queue) waits for no owner");
        assertTrue(Triggers.cycles(List.of(enter(1, 2), enter(2, -1))).isEmpty(), "no owner, no cycle");
        assertTrue(Triggers.cycles(List.of(enter(1, 1))).isEmpty(), "an owner naming the thread itself is ignored");
    }

    @Test
    void onlyBlocksOnMonitorsAndLocksAreContended() {
        assertTrue(Triggers.contended(enter(1, 0)));
        assertTrue(Triggers.contended(park(1, 0, true)));
        assertFalse(Triggers.contended(park(1, 0, false)));
        assertFalse(Triggers.contended(new NativeRecorder.Stalled(1, SnapshotFormat.EVENT_MONITOR_WAIT, 0, 1, 0, 0)));
    }

    @Test
    void triggersAreParsedNamedAndRefused() {
        AgentOptions o = AgentOptions.parse("dumpon=deadlock+block:500ms+every:1h,dumpwindow=2m,dumpkeep=3");
        assertEquals(new Triggers.Spec(true, 500_000_000L, 3_600_000_000_000L), o.dumpOn());
        assertEquals(120_000_000_000L, o.dumpWindowNs());
        assertEquals(3, o.dumpKeep());
        assertTrue(o.effective().contains(",dumpon=deadlock+block:500ms+every:1h,dumpwindow=2m,dumpkeep=3,"),
                o.effective());
        assertTrue(AgentOptions.parse("").dumpOn().isEmpty());
        assertFalse(AgentOptions.parse("").effective().contains(",dumpon="));
        assertEquals(new Triggers.Spec(false, 2_000_000_000L, 0), AgentOptions.parse("dumpon=block:2s").dumpOn());
        for (String[] bad : new String[][] {
                {"dumpon=slow", "unknown trigger 'slow'"},
                {"dumpon=block", "'block' needs a duration"},
                {"dumpon=block:soon", "'soon' is not a duration"},
                {"dumpon=every:5s", "too often"},
                {"dumpon=deadlock:1s", "takes no value"},
                {"dumpwindow=0", "above 0"},
                {"dumpkeep=0", "out of range"},
                {"bench.callbacks=empty,dumpon=deadlock", "needs a recording"}}) {
            try {
                AgentOptions.parse(bad[0]);
                throw new AssertionError(bad[0] + " was accepted");
            } catch (AgentOptions.InvalidOptionException e) {
                assertTrue(e.getMessage().contains(bad[1]), bad[0] + ": " + e.getMessage());
            }
        }
    }
}
