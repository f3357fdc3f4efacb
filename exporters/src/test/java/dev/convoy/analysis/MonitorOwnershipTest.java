package dev.convoy.analysis;

import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import java.util.List;
import org.junit.jupiter.api.Test;

class MonitorOwnershipTest {

    final Recording r = read(Fixtures.all().toBytes());
    final MonitorOwnership mo = MonitorOwnership.of(r);

    static Recording read(byte[] b) {
        try {
            return SnapshotReader.read(b);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    Event enter(long ring, int nth) {
        return r.threadByRingId(ring).orElseThrow().events().stream()
                .filter(e -> e.type() == EventType.MONITOR_ENTER).skip(nth).findFirst().orElseThrow();
    }

    String owner(long ring, int nth) {
        return mo.ownerAt(enter(ring, nth)).map(RecordedThread::name).orElse("unknown");
    }

    @Test
    void deadlockOwnersComeFromSectionMonitors() {
        assertEquals("worker-1", owner(R_MAIN, 0));
        assertEquals("main", owner(R_W1, 0));
        assertEquals(12, mo.ownerJavaThreadId(enter(R_MAIN, 0)));
    }

    @Test
    void deadlockWithoutSectionMonitorsIsUnknown() {
        Recording noMonitors = read(stripMonitors());
        assertTrue(noMonitors.monitors().isEmpty());
        MonitorOwnership m = MonitorOwnership.of(noMonitors);
        for (Event e : noMonitors.events()) {
            if (e.type() == EventType.MONITOR_ENTER) {
                assertTrue(m.ownerAt(e).isEmpty(), "no proof for " + e);
            }
        }
    }

    private static byte[] stripMonitors() {
        Recording full = Fixtures.deadlock(Fixtures.base()).build();
        return dev.convoy.snapshot.SnapshotWriter.write(new Recording(1, 0, full.info(), full.threads(), full.stacks(),
                full.methods(), full.classes(), full.objects(), List.of()));
    }

    @Test
    void handoffChainOwnersFollowTheLastProvenHolder() {
        assertEquals("unknown", owner(R_H1, 0), "nobody proven to hold M4 before t=900");
        assertEquals("h1", owner(R_H2, 0));
        assertEquals("h1", owner(R_H3, 0));
        assertEquals("h2", owner(R_H1, 1), "h2 got M4 at 1200, before h1's second enter at 1250");
    }

    @Test
    void handoffsPairReleaseAndAcquisition() {
        List<String> chain = mo.handoffs().stream()
                .filter(h -> h.monitor() == M4)
                .map(h -> h.from().name() + "->" + h.to().name() + "@" + (h.acquireNs() - T0) / 1000)
                .toList();
        assertEquals(List.of("h1->h2@1200", "h2->h3@1300", "h3->h1@1400"), chain);
        for (MonitorOwnership.Handoff h : mo.handoffs()) {
            assertTrue(h.releaseNs() <= h.acquireNs());
        }
    }

    @Test
    void waitReleasesTheMonitor() {
        // w holds M after a contended enter, waits; x blocks during the wait: owner unknown
        // (w released by waiting), handoff from w at its wait time.
        var b = Fixtures.base();
        b.thread(1, 1, O_MAIN, "w")
                .event(t(10), SnapshotFormat.EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(20), SnapshotFormat.EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(40), SnapshotFormat.EVENT_MONITOR_WAIT, S_WAIT, M1, 0);
        b.thread(2, 2, O_W1, "x")
                .event(t(30), SnapshotFormat.EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(50), SnapshotFormat.EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(60), SnapshotFormat.EVENT_MONITOR_ENTERED, 0, M1, 0);
        Recording rec = read(b.toBytes());
        MonitorOwnership m = MonitorOwnership.of(rec);
        List<Event> enters = rec.threadByRingId(2).orElseThrow().events().stream()
                .filter(e -> e.type() == EventType.MONITOR_ENTER).toList();
        assertEquals("w", m.ownerAt(enters.get(0)).orElseThrow().name());
        assertTrue(m.ownerAt(enters.get(1)).isEmpty(), "w's wait at 40 released M1 before the enter at 50");
        assertEquals(1, m.handoffs().size());
        assertEquals(t(40), m.handoffs().get(0).releaseNs());
        assertEquals("w", m.handoffs().get(0).from().name());
    }

    @Test
    void stillBlockedEnterTakesTheOwnerFromSectionMonitors() {
        // y is still blocked in its enter at 30: rule 1 gives o, the owner SECTION_MONITORS lists.
        // o's own enter at 5 came after y's ENTERED at 4: rule 2 gives y.
        var b = Fixtures.base();
        b.thread(1, 1, O_MAIN, "o")
                .event(t(5), SnapshotFormat.EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(10), SnapshotFormat.EVENT_MONITOR_ENTERED, 0, M1, 0);
        b.thread(2, 2, O_W1, "y")
                .event(t(3), SnapshotFormat.EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(4), SnapshotFormat.EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(30), SnapshotFormat.EVENT_MONITOR_ENTER, S_RUN, M1, 0);
        b.monitor(2, SnapshotFormat.MSTATE_BLOCKED, M1, 0xAAAA0001, 1);
        Recording rec = read(b.toBytes());
        MonitorOwnership m = MonitorOwnership.of(rec);
        List<Event> yEnters = rec.threadByRingId(2).orElseThrow().events().stream()
                .filter(e -> e.type() == EventType.MONITOR_ENTER).toList();
        assertEquals("o", m.ownerAt(yEnters.get(1)).orElseThrow().name());
        Event oEnter = rec.threadByRingId(1).orElseThrow().events().get(0);
        assertEquals("y", m.ownerAt(oEnter).orElseThrow().name(), "y entered at 4, before o's enter at 5");
    }

    @Test
    void noOwnerInSectionMonitorsFallsBackToTheLastProvenHolder() {
        var b = Fixtures.base();
        b.thread(1, 1, O_MAIN, "o")
                .event(t(5), SnapshotFormat.EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(10), SnapshotFormat.EVENT_MONITOR_ENTERED, 0, M1, 0);
        b.thread(2, 2, O_W1, "y").event(t(30), SnapshotFormat.EVENT_MONITOR_ENTER, S_RUN, M1, 0);
        b.monitor(2, SnapshotFormat.MSTATE_BLOCKED, M1, 0xAAAA0001, -1);
        Recording rec = read(b.toBytes());
        Event yEnter = rec.threadByRingId(2).orElseThrow().events().get(0);
        assertEquals("o", MonitorOwnership.of(rec).ownerAt(yEnter).orElseThrow().name());
    }

    @Test
    void overwrittenRingNeverCrashesAndOwnsNothing() {
        Event e = enter(R_VICTIM, 0);
        assertTrue(mo.ownerAt(e).isEmpty(), "the victim itself is the last holder of M5");
    }

    @Test
    void intervalsPairBeginsAndEnds() {
        List<Interval> all = Intervals.of(r);
        List<Interval> waits = all.stream().filter(i -> i.kind() == Interval.Kind.WAITING).toList();
        assertEquals(2, waits.size());
        assertEquals(t(400), waits.get(0).startNs());
        assertEquals(t(500), waits.get(0).endNs());
        assertFalse(waits.get(0).timedOut());
        assertEquals(0, waits.get(0).timeoutMs());
        assertTrue(waits.get(1).timedOut());
        assertEquals(50, waits.get(1).timeoutMs());

        List<Interval> gcs = all.stream().filter(i -> i.kind() == Interval.Kind.GC).toList();
        assertEquals(List.of(50_000L, 20_000L), gcs.stream().map(Interval::durationNs).toList());

        List<Interval> blocked = all.stream().filter(i -> i.kind() == Interval.Kind.BLOCKED).toList();
        // deadlock 2 (open), chain 4, victim 1 (its unpaired ENTERED/WAITED are ignored)
        assertEquals(7, blocked.size());
        Interval mainBlocked = blocked.stream().filter(i -> i.thread().ringId() == R_MAIN).findFirst().orElseThrow();
        assertTrue(mainBlocked.isOpen());
        assertEquals(SNAP, mainBlocked.endNs());
        Interval victim = blocked.stream().filter(i -> i.thread().ringId() == R_VICTIM).findFirst().orElseThrow();
        assertEquals(t(220), victim.startNs());
        assertEquals(t(230), victim.endNs());
        assertTrue(all.stream().noneMatch(i -> i.kind() == Interval.Kind.WAITING && i.thread().ringId() == R_VICTIM));
    }
}
