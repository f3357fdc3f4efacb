package dev.convoy.analysis;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.analysis.MonitorOwnership.Owner;
import dev.convoy.analysis.MonitorOwnership.Source;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.OwnerConsistency;
import dev.convoy.testing.RecordingBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The owner at MONITOR_ENTER (exact from FLAG_OWNER, else inferred only from threads that could
 * own the monitor) and the releaser of a handoff, rule by rule; every scenario also passes
 * {@link OwnerConsistency} with no impossible inferred owner or releaser.
 */
class OwnerRulesTest {

    /** Java ids of the threads a, b, c, t (rings 1..4). */
    static final long A = 11, B = 12, C = 13, T = 14;

    static RecordingBuilder.ThreadBuilder thread(RecordingBuilder b, int ring, long jid, long obj, String name) {
        return b.thread(ring, jid, obj, name).span(t(0), 0);
    }

    static Recording read(RecordingBuilder b) {
        try {
            Recording r = SnapshotReader.read(b.toBytes());
            OwnerConsistency.Result c = OwnerConsistency.check(r);
            assertEquals(List.of(), c.inferred(), c::toString);
            return r;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static Event enter(Recording r, long ring, int nth) {
        return r.threadByRingId(ring).orElseThrow().events().stream()
                .filter(e -> e.type() == EventType.MONITOR_ENTER).skip(nth).findFirst().orElseThrow();
    }

    static Owner owner(Recording r, long ring, int nth) {
        return MonitorOwnership.of(r).owner(enter(r, ring, nth)).orElse(null);
    }

    static String name(Owner o) {
        return o == null ? "unknown" : o.none() ? "none" : o.thread() == null ? "id " + o.javaThreadId() : o.thread().name();
    }

    /** A MONITOR_ENTER with FLAG_OWNER naming {@code owner} (-1 none). */
    static RecordingBuilder.ThreadBuilder exactEnter(RecordingBuilder.ThreadBuilder tb, long us, long monitor, long owner) {
        return tb.event(t(us), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, monitor, 0, owner);
    }

    @Test
    void exactOwnersComeFromFlagOwner() {
        RecordingBuilder b = Fixtures.base();
        thread(b, 1, A, O_MAIN, "a").event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(20), EVENT_MONITOR_ENTERED, 0, M1, 0);
        RecordingBuilder.ThreadBuilder tb = thread(b, 4, T, O_H1, "t");
        exactEnter(tb, 30, M2, B); // b holds M2: exact, though nothing else shows it
        tb.event(t(31), EVENT_MONITOR_ENTERED, 0, M2, 0);
        exactEnter(tb, 40, M1, -1); // a holds M1 (last proven), but the VM read no owner
        tb.event(t(41), EVENT_MONITOR_ENTERED, 0, M1, 0);
        exactEnter(tb, 50, M3, 777); // a thread the recording has no ring for
        tb.event(t(51), EVENT_MONITOR_ENTERED, 0, M3, 0);
        thread(b, 2, B, O_W1, "b");
        Recording r = read(b);
        MonitorOwnership mo = MonitorOwnership.of(r);

        Owner o = owner(r, 4, 0);
        assertEquals(new Owner(Source.RECORDED, r.threadByRingId(2).orElseThrow(), B), o);
        assertTrue(o.exact());
        assertEquals("exact", o.kind());
        Owner none = owner(r, 4, 1);
        assertEquals(Source.NONE, none.source());
        assertTrue(none.exact() && none.none());
        assertEquals("none", none.kind());
        assertTrue(mo.ownerAt(enter(r, 4, 1)).isEmpty());
        assertEquals(0, mo.ownerJavaThreadId(enter(r, 4, 1)));
        Owner idOnly = owner(r, 4, 2);
        assertEquals(new Owner(Source.RECORDED, null, 777), idOnly);
        assertTrue(mo.ownerAt(enter(r, 4, 2)).isEmpty(), "no ring for it");
        assertEquals(777, mo.ownerJavaThreadId(enter(r, 4, 2)));
        assertNull(owner(r, 1, 0), "nothing known of M1 before a's enter");

        ContentionIndex x = ContentionIndex.of(r);
        int ring = x.ring(r.threadByRingId(4).orElseThrow());
        IntervalCursor iv = x.intervals(ring);
        assertTrue(iv.select(0).ownerExact());
        assertEquals(B, iv.select(0).ownerJavaId());
        assertEquals(Source.NONE, iv.select(1).ownerSource());
        assertEquals(-1, iv.select(1).ownerJavaId());
        assertEquals(777, iv.select(2).ownerJavaId());
        assertNull(iv.select(2).owner());
        assertTrue(Intervals.of(r).stream().filter(i -> i.thread().ringId() == 4).allMatch(Interval::ownerExact));
        assertTrue(Intervals.of(r).stream().filter(i -> i.thread().ringId() == 1).noneMatch(Interval::ownerExact));
    }

    @Test
    void theExactOwnerWinsOverTheLastHolder() {
        RecordingBuilder b = Fixtures.base();
        thread(b, 1, A, O_MAIN, "a").event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(20), EVENT_MONITOR_ENTERED, 0, M1, 0);
        thread(b, 2, B, O_W1, "b");
        exactEnter(thread(b, 4, T, O_H1, "t"), 30, M1, B).event(t(40), EVENT_MONITOR_ENTERED, 0, M1, 0);
        Recording r = read(b);
        assertEquals("b", name(owner(r, 4, 0)), "a's ENTERED at 20 is older than the VM's word at 30");
    }

    @Test
    void anInferredOwnerHasNotEnded() {
        RecordingBuilder b = Fixtures.base();
        thread(b, 1, A, O_MAIN, "a").span(t(0), t(25)).flags(RING_ENDED)
                .event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(20), EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(25), EVENT_THREAD_END, 0, O_MAIN, A);
        thread(b, 2, B, O_W1, "b").span(t(0), t(26)).flags(RING_ENDED) // its THREAD_END was not kept
                .event(t(11), EVENT_MONITOR_ENTER, S_RUN, M2, 0)
                .event(t(21), EVENT_MONITOR_ENTERED, 0, M2, 0);
        thread(b, 4, T, O_H1, "t").event(t(30), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(35), EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(40), EVENT_MONITOR_ENTER, S_RUN, M2, 0)
                .event(t(45), EVENT_MONITOR_ENTERED, 0, M2, 0);
        Recording r = read(b);
        assertEquals("unknown", name(owner(r, 4, 0)), "a held M1 last, but ended at 25");
        assertEquals("unknown", name(owner(r, 4, 1)), "b held M2 last, but its ring ended at 26");
        assertTrue(MonitorOwnership.of(r).handoffs().stream().allMatch(h -> h.releaseNs() <= t(26)),
                "a thread lets go at its end at the latest: " + MonitorOwnership.of(r).handoffs());
    }

    /** The defect of the issue: a holder that contends for the monitor again no longer holds it. */
    @Test
    void anInferredOwnerIsNotBlockedOnTheMonitor() {
        RecordingBuilder b = Fixtures.base();
        thread(b, 1, A, O_MAIN, "a").event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(20), EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(50), EVENT_MONITOR_ENTER, S_RUN, M1, 0) // a let go (unrecorded) and blocks again
                .event(t(90), EVENT_MONITOR_ENTERED, 0, M1, 0);
        thread(b, 4, T, O_H1, "t").event(t(30), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(60), EVENT_MONITOR_ENTER, S_RUN, M1, 0) // its ENTERED at 30..60 was lost
                .event(t(70), EVENT_MONITOR_ENTERED, 0, M1, 0);
        Recording r = read(b);
        assertEquals("a", name(owner(r, 4, 0)), "a holds M1 at 30");
        assertEquals(Source.LAST_HOLDER, owner(r, 4, 0).source());
        assertEquals("unknown", name(owner(r, 4, 1)), "a is blocked on M1 since 50");
        MonitorOwnership.Handoff h = MonitorOwnership.of(r).handoffs().get(0);
        assertEquals("a", h.from().name());
        assertEquals("t", h.to().name());
        assertEquals(t(50), h.releaseNs(), "a let go before it blocked again at 50, not while blocked at 70");
        assertFalse(h.exact(), "a monitor's releaser is inferred");
        MonitorOwnership.Handoff back = MonitorOwnership.of(r).handoffs().get(1);
        assertEquals("t->a@90", back.from().name() + "->" + back.to().name() + "@" + (back.releaseNs() - T0) / 1000,
                "t, holding M1 since 70, is the last holder known when a gets it");
    }

    @Test
    void anInferredOwnerIsNotWaitingOnTheMonitor() {
        RecordingBuilder b = Fixtures.base();
        thread(b, 1, A, O_MAIN, "a").event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(20), EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(25), EVENT_MONITOR_WAIT, S_WAIT, M1, 0)
                .event(t(80), EVENT_MONITOR_WAITED, 0, 0, M1, 0, 0);
        thread(b, 4, T, O_H1, "t").event(t(30), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(40), EVENT_MONITOR_ENTERED, 0, M1, 0);
        Recording r = read(b);
        assertEquals("unknown", name(owner(r, 4, 0)), "a is waiting on M1 at 30");
        MonitorOwnership.Handoff h = MonitorOwnership.of(r).handoffs().get(0);
        assertEquals("a", h.from().name(), "released by its wait");
        assertEquals(t(25), h.releaseNs());
    }

    /** H2's Transaction monitors: the holders acquire uncontended and call wait(); their waits prove they held it. */
    @Test
    void aWaitAfterTheEnterProvesTheOwner() {
        RecordingBuilder b = Fixtures.base();
        thread(b, 1, A, O_MAIN, "a") // holds M1 since before the recording, uncontended
                .event(t(20), EVENT_MONITOR_WAIT, S_WAIT, M1, 0)
                .event(t(90), EVENT_MONITOR_WAITED, 0, 0, M1, 0, 0);
        thread(b, 4, T, O_H1, "t").event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(15), EVENT_MONITOR_ENTER, S_RUN, M2, 0) // lost ENTERED, another monitor
                .event(t(30), EVENT_MONITOR_ENTERED, 0, M2, 0)
                .event(t(40), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(50), EVENT_MONITOR_ENTERED, 0, M1, 0);
        Recording r = read(b);
        Owner o = owner(r, 4, 0);
        assertEquals("a", name(o), "a's wait at 20 proves it held M1; nothing acquired M1 between 10 and 20");
        assertEquals(Source.LATER_PROOF, o.source());
        assertFalse(o.exact());
        assertEquals("unknown", name(owner(r, 4, 2)), "a released M1 by waiting at 20");
        MonitorOwnership.Handoff h = MonitorOwnership.of(r).handoffs().stream().filter(x -> x.monitor() == M1)
                .findFirst().orElseThrow();
        assertEquals("a", h.from().name());
        assertEquals(t(20), h.releaseNs());
    }

    @Test
    void aWaitedProvesTheOwnerToo() {
        RecordingBuilder b = Fixtures.base();
        thread(b, 1, A, O_MAIN, "a").event(t(5), EVENT_MONITOR_WAIT, S_WAIT, M1, 0)
                .event(t(15), EVENT_MONITOR_WAITED, 0, 0, M1, 0, 0);
        thread(b, 4, T, O_H1, "t").event(t(20), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(30), EVENT_MONITOR_ENTERED, 0, M1, 0);
        Recording r = read(b);
        assertEquals("a", name(owner(r, 4, 0)));
        assertEquals(Source.LAST_HOLDER, owner(r, 4, 0).source());
    }

    @Test
    void laterProofsStopAtAnAcquisitionAndSkipThreadsBlockedAtTheEnter() {
        RecordingBuilder b = Fixtures.base();
        thread(b, 1, A, O_MAIN, "a").event(t(5), EVENT_MONITOR_ENTER, S_RUN, M1, 0) // ENTERED lost: blocked from 5
                .event(t(30), EVENT_MONITOR_WAIT, S_WAIT, M1, 0)
                .event(t(35), EVENT_MONITOR_WAITED, 0, 0, M1, 0, 0)
                .event(t(60), EVENT_MONITOR_WAIT, S_WAIT, M2, 0)
                .event(t(70), EVENT_MONITOR_WAITED, 0, 0, M2, 0, 0);
        thread(b, 2, B, O_W1, "b").event(t(45), EVENT_MONITOR_ENTER, S_RUN, M2, 0)
                .event(t(50), EVENT_MONITOR_ENTERED, 0, M2, 0);
        thread(b, 4, T, O_H1, "t").event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(40), EVENT_MONITOR_ENTER, S_RUN, M2, 0)
                .event(t(80), EVENT_MONITOR_ENTERED, 0, M2, 0);
        Recording r = read(b);
        assertEquals("unknown", name(owner(r, 4, 0)), "a waits on M1 at 30, but was blocked on M1 at 10");
        assertEquals("unknown", name(owner(r, 4, 1)), "b acquired M2 at 50, before a's wait at 60");
    }

    /** The blocked state that rules a later proof out may have ended before the proof (lost records). */
    @Test
    void aLaterProofSkipsAThreadBlockedAtTheEnterThoughNoLonger() {
        RecordingBuilder b = Fixtures.base();
        thread(b, 1, A, O_MAIN, "a").event(t(5), EVENT_MONITOR_ENTER, S_RUN, M1, 0) // ENTERED lost
                .event(t(12), EVENT_MONITOR_ENTER, S_RUN, M2, 0) // ends the blocked state on M1: 5..12
                .event(t(14), EVENT_MONITOR_ENTERED, 0, M2, 0)
                .event(t(20), EVENT_MONITOR_WAIT, S_WAIT, M1, 0)
                .event(t(30), EVENT_MONITOR_WAITED, 0, 0, M1, 0, 0);
        thread(b, 4, T, O_H1, "t").event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(11), EVENT_MONITOR_ENTER, S_RUN, M3, 0) // t's own state ends too
                .event(t(13), EVENT_MONITOR_ENTERED, 0, M3, 0)
                .event(t(16), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(40), EVENT_MONITOR_ENTERED, 0, M1, 0);
        Recording r = read(b);
        assertEquals("unknown", name(owner(r, 4, 0)), "a was blocked on M1 at 10 (5..12)");
        assertEquals("a", name(owner(r, 4, 2)), "at 16 a was not: its wait at 20 proves it");
        assertEquals(Source.LATER_PROOF, owner(r, 4, 2).source());
    }

    @Test
    void anExactOwnerAtALaterEnterProvesAnEarlierOne() {
        RecordingBuilder b = Fixtures.base();
        thread(b, 1, A, O_MAIN, "a");
        thread(b, 4, T, O_H1, "t").event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(40), EVENT_MONITOR_ENTERED, 0, M1, 0);
        exactEnter(thread(b, 2, B, O_W1, "b"), 20, M1, A).event(t(50), EVENT_MONITOR_ENTERED, 0, M1, 0);
        Recording r = read(b);
        Owner o = owner(r, 4, 0);
        assertEquals("a", name(o));
        assertEquals(Source.LATER_PROOF, o.source());
        assertEquals("exact", owner(r, 2, 0).kind());
        List<MonitorOwnership.Handoff> hs = MonitorOwnership.of(r).handoffs();
        assertEquals(List.of("a->t@40", "t->b@50"), hs.stream()
                .map(h -> h.from().name() + "->" + h.to().name() + "@" + (h.releaseNs() - T0) / 1000).toList());
    }

    @Test
    void theOwnerAtTheSnapshotIsInferredAndMustBeFreeAtTheEnter() {
        RecordingBuilder b = Fixtures.base();
        thread(b, 1, A, O_MAIN, "a").event(t(5), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(20), EVENT_MONITOR_ENTERED, 0, M1, 0); // blocked on M1 at t's enter, owns it at the snapshot
        thread(b, 2, B, O_W1, "b").event(t(2), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(3), EVENT_MONITOR_ENTERED, 0, M1, 0);
        thread(b, 3, C, O_WAITER, "c").event(t(30), EVENT_MONITOR_ENTER, S_RUN, M2, 0);
        thread(b, 4, T, O_H1, "t").event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(25), EVENT_MONITOR_ENTER, S_RUN, M2, 0);
        b.thread(5, 15, O_H2, "d").span(t(0), 0).event(t(1), EVENT_MONITOR_ENTER, S_RUN, M2, 0)
                .event(t(2), EVENT_MONITOR_ENTERED, 0, M2, 0);
        b.monitor(4, MSTATE_BLOCKED, M2, 0xAAAA0002, 15);
        b.monitor(3, MSTATE_BLOCKED, M2, 0xAAAA0002, 15);
        Recording r = read(b);
        assertEquals("b", name(owner(r, 4, 0)), "not a: t's first enter is not its unfinished one anyway");
        Owner atSnapshot = owner(r, 4, 1);
        assertEquals("d", name(atSnapshot));
        assertEquals(Source.AT_SNAPSHOT, atSnapshot.source());
        assertFalse(atSnapshot.exact(), "exact at the snapshot, inferred at the enter");
        assertEquals(Source.AT_SNAPSHOT, owner(r, 3, 0).source());

        // the owner SECTION_MONITORS lists was itself blocked on that monitor at the enter: the last holder instead
        RecordingBuilder b2 = Fixtures.base();
        thread(b2, 1, A, O_MAIN, "a").event(t(5), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(20), EVENT_MONITOR_ENTERED, 0, M1, 0);
        thread(b2, 2, B, O_W1, "b").event(t(2), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(3), EVENT_MONITOR_ENTERED, 0, M1, 0);
        thread(b2, 4, T, O_H1, "t").event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0);
        b2.monitor(4, MSTATE_BLOCKED, M1, 0xAAAA0001, A);
        Recording r2 = read(b2);
        assertEquals("b", name(owner(r2, 4, 0)), "a was blocked on M1 from 5 to 20");
        assertEquals(Source.LAST_HOLDER, owner(r2, 4, 0).source());
    }

    /** The releaser: the last holding fact before the ENTERED, exact owners at other threads' enters included. */
    @Test
    void handoffsFromExactFacts() {
        RecordingBuilder b = Fixtures.base();
        thread(b, 1, A, O_MAIN, "a");
        thread(b, 2, B, O_W1, "b");
        thread(b, 3, C, O_WAITER, "c").event(t(15), EVENT_MONITOR_ENTER, S_RUN, M3, 0)
                .event(t(22), EVENT_MONITOR_ENTERED, 0, M3, 0);
        RecordingBuilder.ThreadBuilder tb = thread(b, 4, T, O_H1, "t");
        exactEnter(tb, 10, M1, A).event(t(30), EVENT_MONITOR_ENTERED, 0, M1, 0); // d's enter at 20 names b: later
        exactEnter(tb, 40, M2, A).event(t(60), EVENT_MONITOR_ENTERED, 0, M2, 0); // only its own exact owner
        exactEnter(tb, 70, M3, C).event(t(90), EVENT_MONITOR_ENTERED, 0, M3, 0);
        b.thread(5, 15, O_H2, "d").span(t(0), 0)
                .event(t(20), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, B) // b holds M1 at 20: later than a at 10
                .event(t(35), EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(75), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M3, 0, -1) // M3 free at 75: c let go by then
                .event(t(95), EVENT_MONITOR_ENTERED, 0, M3, 0);
        Recording r = read(b);
        List<String> hs = MonitorOwnership.of(r).handoffs().stream()
                .map(h -> h.from().name() + "->" + h.to().name() + "@" + (h.releaseNs() - T0) / 1000 + (h.exact() ? "!" : ""))
                .toList();
        assertEquals(List.of("b->t@30", "t->d@35", "a->t@60", "c->t@75", "t->d@95"), hs);
    }

    /** A releaser is never blocked or waiting on the monitor at its release, even when an exact fact names it. */
    @Test
    void noHandoffFromAThreadBlockedOnTheMonitorAtItsRelease() {
        RecordingBuilder b = Fixtures.base();
        thread(b, 1, A, O_MAIN, "a").event(t(5), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(50), EVENT_MONITOR_ENTERED, 0, M1, 0); // its callback came late
        exactEnter(thread(b, 4, T, O_H1, "t"), 10, M1, A) // the VM already saw a as owner at 10
                .event(t(30), EVENT_MONITOR_ENTERED, 0, M1, 0);
        Recording r = read(b);
        Owner o = owner(r, 4, 0);
        assertEquals("a", name(o));
        assertTrue(o.exact());
        assertTrue(MonitorOwnership.of(r).handoffs().stream().noneMatch(h -> h.to().name().equals("t")),
                "a is blocked on M1 from 5 to 50 by its records: no arrow from it at 30");
        OwnerConsistency.Result c = OwnerConsistency.check(r);
        assertEquals(1, c.exact().size(), c::toString);
        assertEquals(OwnerConsistency.Reason.BLOCKED_ON_MONITOR, c.exact().get(0).reason());
        assertEquals(t(50) - t(10), c.exact().get(0).overlapNs(), "the callback's latency");
    }

    /**
     * Lost records can leave a blocked state open across a release: a's ENTER on M1 at 10 lost its
     * ENTERED, a waits on M1 at 20 (it held M1 then, so it let go at 20), and its next ENTER, at
     * 30, closes the blocked state 10..30 around that release. No arrow from a at 20.
     */
    @Test
    void noHandoffFromAReleaseInsideABlockedStateClosedLater() {
        RecordingBuilder b = Fixtures.base();
        thread(b, 1, A, O_MAIN, "a").event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(20), EVENT_MONITOR_WAIT, S_WAIT, M1, 0)
                .event(t(25), EVENT_MONITOR_WAITED, 0, 0, M1, 0, 0)
                .event(t(26), EVENT_MONITOR_WAIT, S_WAIT, M1, 0)
                .event(t(30), EVENT_MONITOR_ENTER, S_RUN, M2, 0);
        thread(b, 4, T, O_H1, "t").event(t(15), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(40), EVENT_MONITOR_ENTERED, 0, M1, 0);
        Recording r = read(b);
        assertEquals("unknown", name(owner(r, 4, 0)), "a was blocked on M1 at 15 by its records");
        assertEquals(List.of(), MonitorOwnership.of(r).handoffs(), "a let go at 26, inside its blocked state 10..30");
    }

    /** Deadlock edges from the exact owners at the blocked enters, where the owner provably still holds the monitor. */
    @Test
    void deadlockCycleThroughExactOwners() {
        // a holds M1 and blocks on M2 (held by b) at 300; b holds M2 and blocks on M1 (held by a) at 310
        RecordingBuilder b = Fixtures.base();
        exactEnter(thread(b, 1, A, O_MAIN, "a"), 300, M2, B);
        exactEnter(thread(b, 2, B, O_W1, "b"), 310, M1, A);
        b.monitor(1, MSTATE_BLOCKED, M2, 0xAAAA0002, B); // the JVM's word for a at the snapshot; b's entry is missing
        Recording r = read(b);
        List<Deadlocks.Deadlock> d = Deadlocks.find(r);
        assertEquals(1, d.size());
        assertEquals(List.of("a", "b"), d.get(0).threads().stream().map(t -> t.name()).toList());
        assertEquals(M1, d.get(0).waits().get(1).object(), "b's edge: the exact owner at its enter");
        assertEquals(A, d.get(0).waits().get(1).ownerThreadId());
        ContentionIndex x = ContentionIndex.of(r);
        assertTrue(x.intervals(x.ring(r.threadByRingId(2).orElseThrow())).select(0).isDeadlocked());
        assertEquals("a blocked on com.example.Lock#2002 owned by b; b blocked on java.lang.Object#2001 owned by a",
                d.get(0).describe(r));

        // without the JVM's word at the snapshot: a blocked first, b ran after and may have let M2 go
        RecordingBuilder b2 = Fixtures.base();
        exactEnter(thread(b2, 1, A, O_MAIN, "a"), 300, M2, B);
        exactEnter(thread(b2, 2, B, O_W1, "b"), 310, M1, A);
        assertEquals(List.of(), Deadlocks.find(read(b2)), "no cycle is proven");

        // three threads: c's edge is proven (a blocked before c's enter), b's is not (c blocked after b)
        RecordingBuilder b3 = Fixtures.base();
        exactEnter(thread(b3, 1, A, O_MAIN, "a"), 300, M2, B); // a -> b: the JVM says so at the snapshot
        exactEnter(thread(b3, 2, B, O_W1, "b"), 310, M3, C); // b -> c: c blocked later (320): not proven
        exactEnter(thread(b3, 3, C, O_WAITER, "c"), 320, M1, A); // c -> a: a blocked at 300 < 320: proven
        b3.monitor(1, MSTATE_BLOCKED, M2, 0xAAAA0002, B);
        assertEquals(List.of(), Deadlocks.find(read(b3)), "b's edge is not proven");
        b3.monitor(2, MSTATE_BLOCKED, M3, 0xAAAA0003, C);
        List<Deadlocks.Deadlock> three = Deadlocks.find(read(b3));
        assertEquals(1, three.size());
        assertEquals(3, three.get(0).threads().size());
    }
}
