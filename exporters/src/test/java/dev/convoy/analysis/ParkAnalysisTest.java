package dev.convoy.analysis;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.analysis.Interactions.Interaction;
import dev.convoy.analysis.Interactions.Kind;
import dev.convoy.analysis.ThreadStates.State;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.report.ContentionReport;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.RecordingBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Parks (PARK, PARKED, UNPARK, MSTATE_PARKED) in the analysis: {@code docs/analysis.md}, "Parks". */
class ParkAnalysisTest {

    static Recording read(RecordingBuilder b) throws Exception {
        return SnapshotReader.read(b.toBytes());
    }

    static RecordedThread ring(Recording r, long ringId) {
        return r.threadByRingId(ringId).orElseThrow();
    }

    final Recording r = readParks();

    static Recording readParks() {
        try {
            return read(parks(base()));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aLockParkIsBlockedAnyOtherParkWaiting() {
        List<Interval> acq = Intervals.of(r, ring(r, R_ACQ), SNAP);
        assertEquals(3, acq.size());
        Interval lock = acq.get(0);
        assertEquals(Interval.Kind.BLOCKED, lock.kind());
        assertTrue(lock.isPark());
        assertTrue(lock.ownerExact());
        assertEquals(RL1, lock.monitor());
        assertEquals(t(100), lock.startNs());
        assertEquals(t(200), lock.endNs());
        Interval noBlocker = acq.get(1);
        assertEquals(Interval.Kind.WAITING, noBlocker.kind());
        assertEquals(0, noBlocker.monitor());
        Interval interrupted = acq.get(2);
        assertEquals(Interval.Kind.WAITING, interrupted.kind());
        assertTrue(interrupted.interrupted());
        assertFalse(interrupted.timedOut());

        List<Interval> cons = Intervals.of(r, ring(r, R_CONS), SNAP);
        assertEquals(4, cons.size());
        assertTrue(cons.get(1).timedOut());
        assertEquals(1, cons.get(1).timeoutMs());
        assertEquals(1_000_000, cons.get(1).timeoutNs());
        Interval open = cons.get(3);
        assertEquals(Interval.Kind.BLOCKED, open.kind());
        assertTrue(open.isOpen());
        assertEquals(SNAP, open.endNs());
    }

    @Test
    void threadStatesTreatParksLikeMonitors() {
        ThreadStates states = ThreadStates.of(r);
        assertEquals(State.BLOCKED, states.at(ring(r, R_ACQ), t(150)).orElseThrow().state());
        assertEquals(RL1, states.at(ring(r, R_ACQ), t(150)).orElseThrow().monitor());
        assertEquals(State.RUNNING, states.at(ring(r, R_ACQ), t(250)).orElseThrow().state());
        assertEquals(State.WAITING, states.at(ring(r, R_CONS), t(330)).orElseThrow().state());
        assertEquals(State.WAITING, states.at(ring(r, R_CONS), t(900)).orElseThrow().state());
        assertEquals(State.BLOCKED, states.at(ring(r, R_CONS), t(5000)).orElseThrow().state(),
                "parked on a lock held by a running thread: blocked, not deadlocked");
    }

    @Test
    void statisticsCountParksPerLockClassAndCaller() {
        MonitorStatistics s = MonitorStatistics.of(r);
        MonitorStatistics.ThreadRow acq = s.threads().stream().filter(row -> row.thread().ringId() == R_ACQ)
                .findFirst().orElseThrow();
        assertEquals(1, acq.blockedCount());
        assertEquals(100_000, acq.blockedNs());
        assertEquals(2, acq.waitedCount());
        assertEquals(60_000 + 100_000, acq.waitedNs());
        MonitorStatistics.ClassRow lock = s.classes().stream().filter(c -> c.className().equals(REENTRANT_LOCK))
                .findFirst().orElseThrow();
        assertEquals(2, lock.blocked().count(), "acquirer's park and consumer's open one");
        assertEquals(100_000 + (SNAP - t(3000)), lock.blocked().totalNs());
        MonitorStatistics.ClassRow cond = s.classes().stream().filter(c -> c.className().equals(CONDITION_OBJECT))
                .findFirst().orElseThrow();
        assertEquals(4, cond.waited().count());
        assertTrue(s.classes().stream().anyMatch(c -> c.className().equals(Blockers.NO_BLOCKER)));
        List<MonitorStatistics.CallerRow> callers = s.blockCallers(REENTRANT_LOCK);
        assertEquals(1, callers.size());
        assertEquals("com.example.Worker.run", callers.get(0).caller(), "LockSupport.park is a JDK frame");
        assertEquals(2, callers.get(0).threads());
        MonitorStatistics.MonitorRow rl1 = s.monitors().stream().filter(m -> m.monitor() == RL1).findFirst().orElseThrow();
        assertTrue(rl1.blocker());
        assertEquals(REENTRANT_LOCK, rl1.className());
    }

    @Test
    void theOwnerOfALockParkIsTheExactOneOfTheRecord() {
        ContentionIndex x = ContentionIndex.of(r);
        int acq = x.ring(ring(r, R_ACQ));
        IntervalCursor g = x.intervals(acq);
        assertTrue(g.select(0).ownerExact());
        assertEquals(ring(r, R_HOLDER), g.owner());
        assertTrue(g.isPark());
        assertFalse(g.select(1).ownerExact(), "a wait has no owner");
        assertEquals(-1, g.ownerRing());
    }

    @Test
    void unparksBindToTheParkedThatEndedThePark() {
        Interactions in = Interactions.of(r);
        List<Interaction> unparks = in.of(Kind.UNPARK);
        assertEquals(List.of(t(180), t(350), t(1500), t(2000)), unparks.stream().map(Interaction::fromNs).toList(),
                "the second unpark at 2010 finds the park unparked; the one at 2150 is not the interrupted park's wake");
        assertEquals(List.of(t(200), t(360), t(1601), t(2050)), unparks.stream().map(Interaction::toNs).toList());
        Interaction lock = unparks.get(0);
        assertEquals("holder", lock.from().name());
        assertEquals("acquirer", lock.to().name());
        assertEquals(RL1, lock.monitor());
        assertEquals(EVENT_UNPARK, lock.cause().rawType());
        assertEquals(EVENT_PARKED, lock.effect().rawType());
        assertEquals(lock, in.endedBy(lock.ended()).orElseThrow());
        Interaction early = unparks.get(2);
        assertTrue(early.fromNs() < early.ended().startNs(), "an unpark before the park: its permit ended it");
        // the timed-out park has its TIMEOUT, not an unpark
        Interval timed = Intervals.of(r, ring(r, R_CONS), SNAP).get(1);
        assertEquals(Kind.TIMEOUT, in.endedBy(timed).orElseThrow().kind());
    }

    @Test
    void aLockParksUnparkIsItsHandoff() {
        List<MonitorOwnership.Handoff> h = MonitorOwnership.of(r).handoffs();
        assertEquals(1, h.size());
        assertEquals("holder", h.get(0).from().name());
        assertEquals(t(180), h.get(0).releaseNs());
        assertEquals(t(200), h.get(0).acquireNs());
    }

    /** An UNPARK before the target's first park, a park whose PARK was lost, an unpark to itself. */
    @Test
    void unparkEdgeCases() throws Exception {
        RecordingBuilder b = parkBase(base());
        b.thread(R_HOLDER, TID_HOLDER, O_HOLDER, "holder").span(t(10), 0)
                .event(t(50), EVENT_UNPARK, 0, 0, O_ACQ, 0, TID_ACQ) // binds the PARKED at 60, whose PARK was lost
                .event(t(70), EVENT_UNPARK, 0, 0, O_HOLDER, 0, TID_HOLDER) // itself
                .event(t(80), EVENT_UNPARK, 0, 0, 0, 0, TID_ACQ) // by Java id: the park 90..120
                .event(t(500), EVENT_UNPARK, 0, 0, O_ACQ, 0, TID_ACQ); // no PARKED after it: nothing
        b.thread(R_ACQ, TID_ACQ, O_ACQ, "acquirer").flags(RING_LATE).span(t(11), 0)
                .event(t(60), EVENT_PARKED, 0, 0, COND, 0, 0)
                .event(t(90), EVENT_PARK, 0, S_PARK, COND, 0, -1)
                .event(t(120), EVENT_PARKED, 0, 0, COND, 0, 0)
                .event(t(400), EVENT_PARK, 0, S_PARK, COND, 0, -1);
        Recording rec = read(b);
        List<Interaction> unparks = Interactions.of(rec).of(Kind.UNPARK);
        assertEquals(1, unparks.size());
        assertEquals(t(80), unparks.get(0).fromNs());
        assertEquals(t(120), unparks.get(0).toNs());
    }

    @Test
    void theCriticalPathFollowsAnUnparkLikeANotify() throws Exception {
        RecordingBuilder b = parkBase(base());
        b.thread(R_HOLDER, TID_HOLDER, O_HOLDER, "holder").span(t(10), t(300)).flags(RING_ENDED)
                .event(t(150), EVENT_UNPARK, 0, 0, O_ACQ, 0, TID_ACQ)
                .event(t(300), EVENT_THREAD_END, 0, O_HOLDER, TID_HOLDER);
        b.thread(R_ACQ, TID_ACQ, O_ACQ, "acquirer").span(t(11), t(1000)).flags(RING_ENDED)
                .event(t(100), EVENT_PARK, FLAG_LOCK, S_PARK, RL1, 0, TID_HOLDER)
                .event(t(160), EVENT_PARKED, 0, 0, RL1, 0, 0)
                .event(t(1000), EVENT_THREAD_END, 0, O_ACQ, TID_ACQ);
        CriticalPath p = CriticalPath.of(read(b));
        CriticalPath.Segment blocked = p.segments().stream().filter(s -> s.state() == State.BLOCKED)
                .findFirst().orElseThrow();
        assertEquals(t(150), blocked.startNs(), "only the wake-up latency after the unpark");
        assertEquals(t(160), blocked.endNs());
        assertEquals(Kind.UNPARK, blocked.via().kind());
        assertEquals("holder", p.segments().get(p.segments().indexOf(blocked) - 1).thread().name());
    }

    @Test
    void twoReentrantLocksDeadlock() throws Exception {
        Recording rec = read(parkDeadlock(base()));
        List<Deadlocks.Deadlock> found = Deadlocks.find(rec);
        assertEquals(1, found.size());
        Deadlocks.Deadlock d = found.get(0);
        assertEquals(List.of("holder", "acquirer"), d.threads().stream().map(RecordedThread::name).toList());
        assertTrue(d.parked(0) && d.parked(1));
        assertEquals("holder parked on " + REENTRANT_LOCK + "#" + RL2 + " owned by acquirer; acquirer parked on "
                + REENTRANT_LOCK + "#" + RL1 + " owned by holder", d.describe(rec));
        ThreadStates st = ThreadStates.of(rec);
        assertEquals(State.DEADLOCKED, st.at(ring(rec, R_HOLDER), t(600)).orElseThrow().state());
        assertEquals(State.DEADLOCKED, st.at(ring(rec, R_ACQ), t(600)).orElseThrow().state());
        String report = ContentionReport.of(rec).text();
        assertTrue(report.contains("holder is parked on " + REENTRANT_LOCK + "@cccc0002, held by acquirer"), report);
        assertTrue(report.contains("at com.example.Worker.run"), report);
    }

    @Test
    void aMixedMonitorAndReentrantLockCycleDeadlocks() throws Exception {
        Recording rec = read(mixedDeadlock(base()));
        List<Deadlocks.Deadlock> found = Deadlocks.find(rec);
        assertEquals(1, found.size());
        Deadlocks.Deadlock d = found.get(0);
        assertEquals(List.of(MSTATE_PARKED, MSTATE_BLOCKED), d.waits().stream().map(MonitorState::state).toList());
        assertEquals(List.of(RL1, M2), d.waits().stream().map(MonitorState::object).toList());
        ThreadStates st = ThreadStates.of(rec);
        assertEquals(State.DEADLOCKED, st.at(ring(rec, R_HOLDER), t(600)).orElseThrow().state());
        assertEquals(State.DEADLOCKED, st.at(ring(rec, R_ACQ), t(600)).orElseThrow().state());
    }

    @Test
    void aParkedChainThroughAnOwnerWithoutARingIsNoDeadlock() throws Exception {
        RecordingBuilder b = parkBase(base());
        b.thread(R_HOLDER, TID_HOLDER, O_HOLDER, "holder").span(t(10), 0)
                .event(t(500), EVENT_PARK, FLAG_LOCK, S_PARK, RL2, 0, TID_ACQ);
        b.thread(R_ACQ, TID_ACQ, O_ACQ, "acquirer").span(t(11), 0)
                .event(t(510), EVENT_PARK, FLAG_LOCK, S_PARK, RL1, 0, 99);
        b.monitor(R_HOLDER, MSTATE_PARKED, RL2, 0xCCCC0002, TID_ACQ);
        b.monitor(R_ACQ, MSTATE_PARKED, RL1, 0xCCCC0001, 99); // thread 99 was not recorded
        assertEquals(List.of(), Deadlocks.find(read(b)));
    }

    /** A thread parked on a condition waits for no owner, even when the snapshot names one. */
    @Test
    void aParkThatIsNoLockAcquisitionIsNoEdge() throws Exception {
        RecordingBuilder b = parkBase(base());
        b.thread(R_HOLDER, TID_HOLDER, O_HOLDER, "holder").span(t(10), 0)
                .event(t(400), EVENT_PARK, FLAG_LOCK, S_PARK, RL2, 0, TID_ACQ) // an older lock park
                .event(t(450), EVENT_PARKED, 0, 0, RL2, 0, 0)
                .event(t(500), EVENT_PARK, 0, S_PARK, COND, 0, -1);
        b.thread(R_ACQ, TID_ACQ, O_ACQ, "acquirer").span(t(11), 0)
                .event(t(510), EVENT_PARK, FLAG_LOCK, S_PARK, RL1, 0, TID_HOLDER);
        b.monitor(R_HOLDER, MSTATE_PARKED, COND, 0xCCCC0003, TID_ACQ);
        b.monitor(R_ACQ, MSTATE_PARKED, RL1, 0xCCCC0001, TID_HOLDER);
        assertEquals(List.of(), Deadlocks.find(read(b)));
    }

    @Test
    void lockClassNames() {
        assertEquals(REENTRANT_LOCK, Blockers.lockClass("java.util.concurrent.locks.ReentrantLock$NonfairSync"));
        assertEquals("java.util.concurrent.locks.ReentrantReadWriteLock",
                Blockers.lockClass("java.util.concurrent.locks.ReentrantReadWriteLock$FairSync"));
        assertEquals("java.util.concurrent.Semaphore", Blockers.lockClass("java.util.concurrent.Semaphore$NonfairSync"));
        assertEquals("java.util.concurrent.CountDownLatch", Blockers.lockClass("java.util.concurrent.CountDownLatch$Sync"));
        assertEquals(CONDITION_OBJECT, Blockers.lockClass(CONDITION_OBJECT));
        assertEquals("com.example.Pool$Sync", Blockers.lockClass("com.example.Pool$Sync"), "only the JDK's synchronizers");
        assertEquals("", Blockers.lockClass(""));
    }
}
