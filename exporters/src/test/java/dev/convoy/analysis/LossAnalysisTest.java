package dev.convoy.analysis;

import static dev.convoy.analysis.ContentionAnalysisTest.fmt;
import static dev.convoy.analysis.ContentionAnalysisTest.us;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.analysis.Interactions.Interaction;
import dev.convoy.analysis.Interactions.Kind;
import dev.convoy.analysis.MonitorStatistics.ThreadRow;
import dev.convoy.analysis.ThreadStates.Span;
import dev.convoy.analysis.ThreadStates.State;
import dev.convoy.model.Event;
import dev.convoy.model.Loss;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.testing.Arrows;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.RecordingBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The analysis of {@link Fixtures#losses}: a thread's time in a loss of its records is UNKNOWN
 * (never RUNNING, never counted), no interval crosses a loss, and nothing is bound across one
 * (no notifier, unpark, inferred releaser or inferred owner), while the exact facts stay.
 */
class LossAnalysisTest {

    final Recording r = ContentionAnalysisTest.read(Fixtures.losses(Fixtures.base()).toBytes());

    RecordedThread ring(long id) {
        return r.threadByRingId(id).orElseThrow();
    }

    List<String> states(long ring) {
        return ThreadStates.of(r).of(ring(ring)).stream().map(ContentionAnalysisTest::fmt).toList();
    }

    List<String> intervals(long ring) {
        return Intervals.of(r, ring(ring), r.snapshotMonotonicNs()).stream()
                .map(i -> i.kind() + " " + us(i.startNs()) + ".." + us(i.endNs()) + (i.cut() ? " cut" : "")
                        + (i.isOpen() ? " open" : ""))
                .toList();
    }

    @Test
    void timeInALossIsUnknownNeverRunning() {
        long snap = us(SNAP);
        assertEquals(List.of("UNKNOWN 10..400", "RUNNING 400..450", "BLOCKED 450..480 " + LH, "RUNNING 480.." + snap),
                states(R_LE), "its first records lost: unknown from its start, not running");
        assertEquals(List.of("RUNNING 20..140", "BLOCKED 140..150 " + LM, "UNKNOWN 150..350", "RUNNING 350.." + snap),
                states(R_LN), "blocked until its records were lost, then unknown, not blocked nor running");
        assertEquals(List.of("RUNNING 15..100", "WAITING 100..300 " + LQ, "RUNNING 300.." + snap), states(R_LW));
        for (RecordedThread t : r.javaThreads()) {
            for (Span s : ThreadStates.of(r).of(t)) {
                for (Loss l : t.losses()) {
                    if (s.state() != State.UNKNOWN && s.endNs() > s.startNs()) {
                        assertFalse(l.overlaps(s.startNs(), s.endNs()), t.name() + ": " + s + " in " + l);
                    }
                }
            }
        }
    }

    @Test
    void noIntervalCrossesALoss() {
        assertEquals(List.of("BLOCKED 140..150 cut"), intervals(R_LN),
                "the enter before the loss is cut where it began; the ENTERED after it ends nothing");
        assertEquals(List.of("BLOCKED 450..480"), intervals(R_LE), "the MONITOR_WAITED after the loss ends nothing");
        Interval cut = Intervals.of(r, ring(R_LN), SNAP).get(0);
        assertTrue(cut.cut());
        assertFalse(cut.isOpen(), "cut, not open at the snapshot");
        assertNull(cut.end());
        for (Interval in : Intervals.of(r)) {
            for (Loss l : in.thread().losses()) {
                assertFalse(l.overlaps(in.startNs(), in.endNs()), in + " crosses " + l);
            }
        }
        ThreadRow notifier = MonitorStatistics.of(r).threads().stream().filter(t -> t.thread().ringId() == R_LN)
                .findFirst().orElseThrow();
        assertEquals(1, notifier.blockedCount());
        assertEquals(10_000, notifier.blockedNs(), "the cut block counts up to the loss, not into it");
    }

    @Test
    void nothingIsBoundAcrossALoss() {
        Interactions in = Interactions.of(r);
        assertEquals(List.of("HANDOFF parker@380 -> blocked@380 " + LH, "HANDOFF blocked@480 -> lost-early@480 " + LH),
                in.all().stream().map(ContentionAnalysisTest::fmt).toList(),
                "only the releasers the VM recorded; no notify, unpark or inferred handoff across the losses");
        assertTrue(in.all().stream().allMatch(Interaction::exact));
        Interactions.Notification own = in.notifications().stream()
                .filter(n -> n.call().thread() == ring(R_LW)).findFirst().orElseThrow();
        assertEquals(List.of(), own.woke(), "the waiter's own later notifyAll does not wake it");
        assertTrue(in.notifications().stream().allMatch(n -> n.woke().isEmpty()));
        assertTrue(in.of(Kind.UNPARK).isEmpty(), "the unpark at 150 may not be the one that woke the park at 330");

        MonitorOwnership mo = MonitorOwnership.of(r);
        Event enterLh = ring(R_LB).events().get(1);
        assertEquals(MonitorOwnership.Source.RECORDED, mo.owner(enterLh).orElseThrow().source(), "exact owners stay");
        assertSame(ring(R_LP), mo.ownerAt(enterLh).orElseThrow());
        Event enterLi = ring(R_LB).events().get(3);
        assertEquals(LI, enterLi.obj());
        assertTrue(mo.owner(enterLi).isEmpty(), "parker's hold of LI at 52 says nothing across the loss at 150..350");
        assertTrue(mo.handoffs().stream().noneMatch(h -> h.monitor() == LI));
        Arrows.check(r);
    }

    @Test
    void withoutTheLossesTheSameFactsWouldBeBound() {
        // the control: the same records with nothing lost bind what the losses leave unbound
        RecordingBuilder b = Fixtures.base();
        Fixtures.losses(b);
        Recording whole = withoutLosses(b.build());
        Interactions in = Interactions.of(whole);
        List<String> all = in.all().stream().map(ContentionAnalysisTest::fmt).toList();
        assertTrue(all.contains("UNPARK notifier@150 -> parker@330 0"), all::toString);
        assertTrue(all.contains("HANDOFF parker@395 -> blocked@395 " + LI), all::toString);
        assertTrue(all.contains("NOTIFY_ALL notifier@360 -> waiter@300 " + LQ),
                all + ": a notifyAll after the wake (rule 3), never the waiter's own at 320");
        assertEquals("RUNNING", ThreadStates.of(whole).at(whole.threadByRingId(R_LE).orElseThrow(), t(100))
                .orElseThrow().state().name());
    }

    /** The recording with every ring's losses and overwritten counter dropped. */
    static Recording withoutLosses(Recording r) {
        List<RecordedThread> threads = r.threads().stream().map(t -> new RecordedThread(t.ringId(), t.javaThreadId(),
                t.threadObject(), t.flags(), t.startNs(), t.endNs(), t.written(), 0, t.dropped(), t.torn(), t.name(),
                t.group(), t.parentGroup(), t.capacity(), t.events())).toList();
        return new Recording(r.versionMajor(), r.versionMinor(), r.info(), threads, r.stacks(), r.methods(),
                r.classes(), r.objects(), r.monitors());
    }

    @Test
    void theCriticalPathStopsAtALoss() {
        RecordingBuilder b = Fixtures.base();
        b.thread(R_MAIN, 1, O_MAIN, "main").span(T0, 0)
                .event(T0, SnapshotFormat.EVENT_THREAD_START, 0, O_MAIN, 1)
                .loss(SnapshotFormat.LOSS_OVERWRITTEN, T0, t(500), 40)
                .event(t(500), SnapshotFormat.EVENT_MONITOR_ENTER, 0, M1, 0)
                .event(t(600), SnapshotFormat.EVENT_MONITOR_ENTERED, 0, M1, 0);
        Recording rec = b.build();
        CriticalPath p = CriticalPath.of(rec);
        assertTrue(p.stoppedAtLoss());
        assertEquals(t(500), p.startNs(), "from where main's history is complete");
        assertTrue(p.segments().stream().noneMatch(s -> s.state() == State.UNKNOWN || s.startNs() < t(500)));
    }

    @Test
    void anExactReleaserStaysAndLetGoAtTheAcquisitionWhenItsReleaseIsNotKnown() {
        // h holds M1 (ENTERED at 100) and lets it go by waiting on it at 150; its records 150..300
        // are lost (it may have held M1 again in them); e blocks on M1 400..500 and the VM recorded h
        // as the releaser (FLAG_RELEASER): the releaser stays, its release is not known before 500
        RecordingBuilder b = Fixtures.base();
        b.thread(1, 1, O_MAIN, "h").span(T0, 0)
                .event(t(50), SnapshotFormat.EVENT_MONITOR_ENTER, 0, M1, 0)
                .event(t(100), SnapshotFormat.EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(150), SnapshotFormat.EVENT_MONITOR_WAIT, 0, M1, 0)
                .loss(SnapshotFormat.LOSS_OVERWRITTEN, t(150), t(300), 7)
                .event(t(300), SnapshotFormat.EVENT_NOTIFY, 0, M3, 0);
        b.thread(3, 3, O_WAITER, "e").span(T0, 0)
                .event(t(400), SnapshotFormat.EVENT_MONITOR_ENTER, 0, M1, 0)
                .event(t(500), SnapshotFormat.EVENT_MONITOR_ENTERED, SnapshotFormat.FLAG_RELEASER, 0, M1, 1, 0);
        Recording rec = b.build();
        assertEquals(List.of("HANDOFF h@500 -> e@500 " + M1),
                Interactions.of(rec).of(Kind.HANDOFF).stream().map(ContentionAnalysisTest::fmt).toList());
        assertEquals(List.of("HANDOFF h@150 -> e@500 " + M1), Interactions.of(withoutLosses(rec)).of(Kind.HANDOFF)
                .stream().map(ContentionAnalysisTest::fmt).toList(), "the control: released when it began to wait");
        Arrows.check(rec);
    }

    @Test
    void aLossOfAnyThreadLeavesTheInferredOwnerAndReleaserUnknown() {
        // h holds M1 from 100 (ENTERED); x has a loss 200..300; e blocks on M1 400..500: without the
        // loss, h would be the owner at the enter (last holder) and the releaser
        RecordingBuilder c = Fixtures.base();
        c.thread(1, 1, O_MAIN, "h").span(T0, 0)
                .event(t(50), SnapshotFormat.EVENT_MONITOR_ENTER, 0, M1, 0)
                .event(t(100), SnapshotFormat.EVENT_MONITOR_ENTERED, 0, M1, 0);
        c.thread(2, 2, O_W1, "x").span(T0, 0)
                .event(t(200), SnapshotFormat.EVENT_NOTIFY, 0, M3, 0)
                .loss(SnapshotFormat.LOSS_AGED, t(200), t(300), 7)
                .event(t(300), SnapshotFormat.EVENT_NOTIFY, 0, M3, 0);
        c.thread(3, 3, O_WAITER, "e").span(T0, 0)
                .event(t(400), SnapshotFormat.EVENT_MONITOR_ENTER, 0, M1, 0)
                .event(t(500), SnapshotFormat.EVENT_MONITOR_ENTERED, 0, M1, 0);
        Recording rc = c.build();
        Event enter = rc.threadByRingId(3).orElseThrow().events().get(0);
        assertTrue(MonitorOwnership.of(rc).owner(enter).isEmpty());
        assertTrue(Interactions.of(rc).of(Kind.HANDOFF).isEmpty());
        Recording whole = withoutLosses(rc);
        Event enter2 = whole.threadByRingId(3).orElseThrow().events().get(0);
        assertEquals(MonitorOwnership.Source.LAST_HOLDER, MonitorOwnership.of(whole).owner(enter2).orElseThrow().source());
        assertTrue(Interactions.of(whole).of(Kind.HANDOFF).stream().anyMatch(i -> i.from().name().equals("h")),
                "the control: bound without the loss");
    }

    /** The fixtures, and the real recordings of the fuzz seeds (recorded from the test apps). */
    static List<Recording> fixturesAndRealRecordings() throws Exception {
        List<Recording> out = new java.util.ArrayList<>();
        for (RecordingBuilder b : List.of(Fixtures.all(), Fixtures.contention(Fixtures.base()),
                Fixtures.parks(Fixtures.base()), Fixtures.parkDeadlock(Fixtures.base()),
                Fixtures.mixedDeadlock(Fixtures.base()), Fixtures.losses(Fixtures.base()))) {
            out.add(dev.convoy.snapshot.SnapshotReader.read(b.toBytes()));
        }
        java.net.URL dir = LossAnalysisTest.class.getResource("/dev/convoy/fuzz/SnapshotFuzzTestInputs");
        try (var files = java.nio.file.Files.list(java.nio.file.Path.of(dir.toURI()))) {
            for (java.nio.file.Path f : files.filter(java.nio.file.Files::isRegularFile).sorted().toList()) {
                out.add(dev.convoy.snapshot.SnapshotReader.read(f));
            }
        }
        return out;
    }

    @Test
    void noArrowOfAFixtureOrARealRecordingGoesToItselfBackwardsOrAcrossALoss() throws Exception {
        int arrows = 0;
        int recordings = 0;
        for (Recording rec : fixturesAndRealRecordings()) {
            arrows += Arrows.check(rec);
            recordings++;
        }
        assertTrue(recordings >= 14 && arrows >= 25, recordings + " recordings, " + arrows + " arrows");
    }

    @Test
    void aDeadlockEdgeNeedsTheOwnersNewestRecordToBeItsNewest() {
        // a blocks on M1 at 300 (the JVM reports b as its owner at the snapshot); b blocks on M2 at 400
        // with the VM's owner a: a, blocked since 300, still owns M2: a deadlock, unless a's records
        // after 300 were lost (a may have gone on and released M2)
        for (boolean lost : new boolean[] {false, true}) {
            RecordingBuilder b = Fixtures.base();
            RecordingBuilder.ThreadBuilder a = b.thread(1, 1, O_MAIN, "a").span(T0, 0)
                    .event(t(300), SnapshotFormat.EVENT_MONITOR_ENTER, 0, S_RUN, M1, 0, 0);
            if (lost) {
                a.loss(SnapshotFormat.LOSS_OVERWRITTEN, t(300), SNAP, 3);
            }
            b.thread(2, 2, O_W1, "b").span(T0, 0)
                    .event(t(400), SnapshotFormat.EVENT_MONITOR_ENTER, SnapshotFormat.FLAG_OWNER, S_RUN, M2, 0, 1);
            b.monitor(1, SnapshotFormat.MSTATE_BLOCKED, M1, 0xAAAA0001, 2);
            assertEquals(lost ? 0 : 1, Deadlocks.find(b.build()).size(), lost ? "a's records lost" : "the control");
        }
    }
}
