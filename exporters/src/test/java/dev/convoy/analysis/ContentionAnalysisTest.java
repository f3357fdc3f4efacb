package dev.convoy.analysis;

import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.analysis.CriticalPath.Segment;
import dev.convoy.analysis.Interactions.Interaction;
import dev.convoy.analysis.Interactions.Kind;
import dev.convoy.analysis.MonitorStatistics.CallerRow;
import dev.convoy.analysis.MonitorStatistics.ClassRow;
import dev.convoy.analysis.MonitorStatistics.Stats;
import dev.convoy.analysis.MonitorStatistics.ThreadRow;
import dev.convoy.analysis.ThreadStates.Span;
import dev.convoy.analysis.ThreadStates.State;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Exact facts of {@link Fixtures#contention}: interactions, states, statistics, critical path. */
class ContentionAnalysisTest {

    final Recording r = read(Fixtures.contention(Fixtures.base()).toBytes());

    static Recording read(byte[] b) {
        try {
            return SnapshotReader.read(b);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    RecordedThread ring(long id) {
        return r.threadByRingId(id).orElseThrow();
    }

    /** "KIND from@us -> to@us obj", times in us after T0. */
    static String fmt(Interaction i) {
        return i.kind() + " " + i.from().name() + "@" + us(i.fromNs()) + " -> " + i.to().name() + "@" + us(i.toNs())
                + " " + i.monitor();
    }

    static long us(long ns) {
        return (ns - T0) / 1000;
    }

    /** "STATE start..end [monitor]" in us. */
    static String fmt(Span s) {
        return s.state() + " " + us(s.startNs()) + ".." + us(s.endNs()) + (s.monitor() != 0 ? " " + s.monitor() : "");
    }

    static String fmt(Segment s) {
        return s.thread().name() + " " + s.state() + " " + us(s.startNs()) + ".." + us(s.endNs())
                + (s.monitor() != 0 ? " " + s.monitor() : "")
                + (s.via() != null ? " via " + s.via().kind() + " from " + s.via().from().name() : "");
    }

    List<String> states(long ring) {
        return ThreadStates.of(r).of(ring(ring)).stream().map(ContentionAnalysisTest::fmt).toList();
    }

    @Test
    void readerKeepsTheNewEventTypes() {
        assertEquals(EventType.START_CALL, ring(R_MAIN).events().get(1).type());
        assertEquals(O_P, ring(R_MAIN).events().get(1).obj());
        assertEquals(TID_P, ring(R_MAIN).events().get(1).arg2());
        assertEquals(List.of(EventType.THREAD_START, EventType.SLEEP, EventType.SLEPT, EventType.THREAD_END),
                ring(R_S).events().stream().map(e -> e.type()).toList());
        assertEquals(EventType.INTERRUPT_CALL, EventType.of(17));
        assertEquals(EventType.THREAD_INTERRUPTED, EventType.of(24));
        assertEquals(EventType.PARK, EventType.of(25));
        assertEquals(EventType.UNPARK, EventType.of(27));
        assertEquals(EventType.OWNER_SAMPLE, EventType.of(28));
        assertEquals(EventType.UNKNOWN, EventType.of(29), "29..63 are reserved");
        for (EventType t : EventType.values()) {
            if (t != EventType.UNKNOWN) {
                assertEquals(t, EventType.of(t.code()));
            }
        }
    }

    @Test
    void joinWaitsAreJoinsNotObjectWaits() {
        List<Interval> main = Intervals.of(r, ring(R_MAIN), SNAP);
        assertEquals(1, main.size());
        Interval join = main.get(0);
        assertEquals(Interval.Kind.JOINING, join.kind());
        assertEquals(O_P, join.monitor());
        assertEquals(t(1000), join.startNs());
        assertEquals(t(2102), join.endNs());
        assertEquals(2, Intervals.joinWaits(ring(R_MAIN)).size());
        assertEquals(4, Intervals.joinWaits(r).size());
        assertTrue(Intervals.of(r).stream().noneMatch(i -> i.kind() == Interval.Kind.WAITING
                && (i.monitor() == O_P || i.monitor() == O_S)));
        Interval sleep = Intervals.of(r, ring(R_S), SNAP).get(0);
        assertEquals(Interval.Kind.SLEEPING, sleep.kind());
        assertEquals(1, sleep.timeoutMs());
        assertEquals(1_000_000, sleep.durationNs());
        assertFalse(sleep.interrupted());
    }

    @Test
    void everyInteraction() {
        Interactions in = Interactions.of(r);
        List<String> all = in.all().stream().map(ContentionAnalysisTest::fmt).toList();
        assertEquals(List.of(
                "START main@10 -> producer@15 " + O_P,
                "START main@20 -> c1@25 " + O_C1,
                "START main@30 -> c2@35 " + O_C2,
                "START main@40 -> c3@45 " + O_C3,
                "START main@50 -> c4@55 " + O_C4,
                "START main@60 -> waiter@65 " + O_W,
                "NOTIFY producer@200 -> c2@210 " + Q,
                "NOTIFY_ALL producer@300 -> c1@310 " + Q,
                "NOTIFY_ALL producer@300 -> c3@320 " + Q,
                "NOTIFY_ALL producer@300 -> c4@330 " + Q,
                "HANDOFF c4@360 -> c2@360 " + Q,
                "NOTIFY producer@505 -> c1@500 " + Q,
                "HANDOFF c1@560 -> producer@570 " + Q,
                "TIMEOUT c3@650 -> c3@650 " + Q,
                "INTERRUPT main@800 -> waiter@810 " + O_W,
                "START producer@850 -> sleeper@860 " + O_S,
                "JOIN_END sleeper@2000 -> producer@2002 " + O_S,
                "JOIN_END producer@2100 -> main@2102 " + O_P), all);

        // the interaction's events and ended intervals
        Interaction interrupt = in.of(Kind.INTERRUPT).get(0);
        assertEquals(EventType.INTERRUPT_CALL, interrupt.cause().type());
        assertEquals(EventType.MONITOR_WAITED, interrupt.effect().type());
        assertEquals(Interval.Kind.WAITING, interrupt.ended().kind());
        assertEquals(L2, interrupt.ended().monitor());
        Interaction start = in.startOf(ring(R_S)).orElseThrow();
        assertEquals(EventType.THREAD_START, start.effect().type());
        assertNull(start.ended());
        Interaction join = in.of(Kind.JOIN_END).get(1);
        assertEquals(EventType.THREAD_END, join.cause().type());
        assertEquals(EventType.JOINED, join.effect().type());
        assertEquals(Interval.Kind.JOINING, join.ended().kind());
        assertSame(join, in.endedBy(join.ended()).orElseThrow());
        assertTrue(in.startOf(ring(R_MAIN)).isEmpty(), "main has no recorded starter");
    }

    @Test
    void notifyBinding() {
        List<Interactions.Notification> n = Interactions.of(r).notifications();
        assertEquals(4, n.size());
        List<String> woke = new ArrayList<>();
        for (Interactions.Notification x : n) {
            woke.add(us(x.call().ts()) + (x.isNotifyAll() ? " notifyAll" : " notify") + " "
                    + x.woke().stream().map(i -> i.to().name()).toList());
        }
        assertEquals(List.of(
                "200 notify [c2]",            // the first unbound notify after c2's wait began
                "300 notifyAll [c1, c3, c4]", // no unbound notify left: the last notifyAll wakes three
                "505 notify [c1]",            // c1 woke at 500 before any eligible notify: kept, bound here
                "750 notify []"),             // the waiter's wait ended by the interrupt, not by this notify
                woke);
    }

    @Test
    void stateSequences() {
        assertEquals(List.of("RUNNING 0..1000", "JOINING 1000..2102 " + O_P, "RUNNING 2102..3000",
                "DEAD 3000..10000"), states(R_MAIN));
        assertEquals(List.of("RUNNING 15..550", "BLOCKED 550..570 " + Q, "RUNNING 570..1100",
                "JOINING 1100..2002 " + O_S, "RUNNING 2002..2100", "DEAD 2100..10000"), states(R_P));
        assertEquals(List.of("RUNNING 25..100", "WAITING 100..310 " + Q, "RUNNING 310..400",
                "WAITING 400..500 " + Q, "RUNNING 500..560", "WAITING 560..10000 " + Q), states(R_C1));
        assertEquals(List.of("RUNNING 35..110", "WAITING 110..210 " + Q, "RUNNING 210..340",
                "BLOCKED 340..360 " + Q, "RUNNING 360..10000"), states(R_C2));
        assertEquals(List.of("RUNNING 45..120", "WAITING 120..320 " + Q, "RUNNING 320..600",
                "WAITING 600..650 " + Q, "RUNNING 650..10000"), states(R_C3));
        assertEquals(List.of("RUNNING 55..130", "WAITING 130..330 " + Q, "RUNNING 330..10000"), states(R_C4));
        assertEquals(List.of("RUNNING 860..900", "SLEEPING 900..1900", "RUNNING 1900..2000", "DEAD 2000..10000"),
                states(R_S));
        assertEquals(List.of("RUNNING 65..700", "WAITING 700..810 " + L2, "RUNNING 810..820", "DEAD 820..10000"),
                states(R_W));
        ThreadStates ts = ThreadStates.of(r);
        assertEquals(State.SLEEPING, ts.at(ring(R_S), t(1000)).orElseThrow().state());
        assertEquals(State.DEAD, ts.at(ring(R_S), SNAP).orElseThrow().state());
        assertTrue(ts.at(ring(R_S), t(100)).isEmpty(), "before its start");
    }

    @Test
    void deadlockedThreadsStayDeadlockedToTheSnapshot() {
        Recording d = read(Fixtures.deadlock(Fixtures.base()).toBytes());
        ThreadStates ts = ThreadStates.of(d);
        assertEquals(List.of("RUNNING 0..300", "DEADLOCKED 300..10000 " + M2),
                ts.of(d.threadByRingId(R_MAIN).orElseThrow()).stream().map(ContentionAnalysisTest::fmt).toList());
        assertEquals(List.of("RUNNING 50..310", "DEADLOCKED 310..10000 " + M1),
                ts.of(d.threadByRingId(R_W1).orElseThrow()).stream().map(ContentionAnalysisTest::fmt).toList());
    }

    @Test
    void joinWithANestedContendedEnterShowsTheInnermostState() {
        var b = Fixtures.base();
        b.thread(R_MAIN, 1, O_MAIN, "main").span(T0, 0)
                .event(t(100), dev.convoy.snapshot.SnapshotFormat.EVENT_JOIN, 0, S_RUN, O_W1, 0, 12)
                .event(t(110), dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_ENTER, S_RUN, O_W1, 0)
                .event(t(120), dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_ENTERED, 0, O_W1, 0)
                .event(t(130), dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_WAIT, S_WAIT, O_W1, 0)
                .event(t(140), dev.convoy.snapshot.SnapshotFormat.EVENT_THREAD_INTERRUPTED, S_RUN, 0, 0)
                .event(t(150), dev.convoy.snapshot.SnapshotFormat.EVENT_SLEEP, S_RUN, 0, 5)
                .event(t(151), dev.convoy.snapshot.SnapshotFormat.EVENT_THREAD_INTERRUPTED, S_RUN, 0, 0)
                .event(t(152), dev.convoy.snapshot.SnapshotFormat.EVENT_SLEPT, 0, 0, 0);
        Recording n = read(b.toBytes());
        RecordedThread main = n.threadByRingId(R_MAIN).orElseThrow();
        assertEquals(List.of("RUNNING 0..100", "JOINING 100..110 " + O_W1, "BLOCKED 110..120 " + O_W1,
                "JOINING 120..140 " + O_W1, "RUNNING 140..150", "SLEEPING 150..151", "RUNNING 151..10000"),
                ThreadStates.of(n).of(main).stream().map(ContentionAnalysisTest::fmt).toList());
        List<Interval> in = Intervals.of(r, main, SNAP);
        assertTrue(in.get(0).interrupted(), "the join ended by InterruptedException");
        assertTrue(in.get(2).interrupted(), "the sleep ended by InterruptedException");
        assertEquals(1, Intervals.joinWaits(main).size(), "the join's wait, ended before its WAITED");
    }

    @Test
    void monitorStatistics() {
        MonitorStatistics ms = MonitorStatistics.of(r);
        List<String> threads = ms.threads().stream().map(t -> t.thread().name() + " " + t.blockedCount() + "/"
                + t.blockedNs() / 1000 + " " + t.waitedCount() + "/" + t.waitedNs() / 1000).toList();
        assertEquals(List.of("main 0/0 0/0", "producer 1/20 0/0", "c1 0/0 3/9750", "c2 1/20 1/100",
                "c3 0/0 2/250", "c4 0/0 1/200", "sleeper 0/0 0/0", "waiter 0/0 1/110"), threads);

        List<ClassRow> classes = ms.classes();
        assertEquals(List.of("com.example.Queue", "com.example.Lock"), classes.stream().map(ClassRow::className).toList());
        Stats qb = classes.get(0).blocked();
        assertEquals(new Stats(2, 40_000, 20_000, 20_000, List.of(0L, 0L, 2L, 0L, 0L, 0L, 0L, 0L)), qb);
        assertEquals(20_000, qb.avgNs());
        Stats qw = classes.get(0).waited();
        assertEquals(new Stats(7, 10_300_000, 50_000, 9_440_000, List.of(0L, 0L, 1L, 5L, 1L, 0L, 0L, 0L)), qw);
        assertEquals(1_471_428, qw.avgNs());
        assertEquals(Stats.EMPTY, classes.get(1).blocked());
        assertEquals(new Stats(1, 110_000, 110_000, 110_000, List.of(0L, 0L, 0L, 1L, 0L, 0L, 0L, 0L)),
                classes.get(1).waited());

        List<CallerRow> blocks = ms.blockCallers("com.example.Queue");
        assertEquals(List.of("com.example.Worker.<init> 20 1 1", "com.example.Worker.run 20 1 1"),
                blocks.stream().map(c -> c.caller() + " " + c.stats().totalNs() / 1000 + " " + c.monitors() + " "
                        + c.threads()).toList());
        List<CallerRow> waits = ms.waitCallers("com.example.Queue");
        assertEquals(List.of("com.example.Worker.run 6 10250 1 4", "<unknown method 0x7f0000004000> 1 50 1 1"),
                waits.stream().map(c -> c.caller() + " " + c.stats().count() + " " + c.stats().totalNs() / 1000 + " "
                        + c.monitors() + " " + c.threads()).toList());
        assertEquals(List.of(), ms.blockCallers("com.example.Nothing"));

        MonitorStatistics sel = MonitorStatistics.of(r, List.of(ring(R_C2), ring(R_P)));
        assertEquals(List.of("producer", "c2"), sel.threads().stream().map(t -> t.thread().name()).toList());
        assertEquals(new Stats(1, 100_000, 100_000, 100_000, List.of(0L, 0L, 0L, 1L, 0L, 0L, 0L, 0L)),
                sel.classes().get(0).waited(), "only c2's wait");
        assertEquals(8, MonitorStatistics.BUCKET_NAMES.size());
        assertEquals(0, MonitorStatistics.bucket(999));
        assertEquals(7, MonitorStatistics.bucket(1_000_000_000));
    }

    @Test
    void criticalPath() {
        CriticalPath cp = CriticalPath.of(r);
        assertEquals("main", cp.endThread().name());
        assertEquals(t(3000), cp.endNs());
        assertEquals(T0, cp.startNs());
        assertEquals(3_000_000, cp.lengthNs());
        assertEquals(List.of(
                "main RUNNING 0..10",
                "producer STARTING 10..15 via START from main",
                "producer RUNNING 15..300",
                "c1 WAITING 300..310 " + Q + " via NOTIFY_ALL from producer",
                "c1 RUNNING 310..400",
                "c1 WAITING 400..500 " + Q,
                "c1 RUNNING 500..560",
                "producer BLOCKED 560..570 " + Q + " via HANDOFF from c1",
                "producer RUNNING 570..850",
                "sleeper STARTING 850..860 via START from producer",
                "sleeper RUNNING 860..900",
                "sleeper SLEEPING 900..1900",
                "sleeper RUNNING 1900..2000",
                "producer JOINING 2000..2002 " + O_S + " via JOIN_END from sleeper",
                "producer RUNNING 2002..2100",
                "main JOINING 2100..2102 " + O_P + " via JOIN_END from producer",
                "main RUNNING 2102..3000"), cp.segments().stream().map(ContentionAnalysisTest::fmt).toList());
        long sum = 0;
        for (int i = 0; i < cp.segments().size(); i++) {
            sum += cp.segments().get(i).durationNs();
            if (i > 0) {
                assertEquals(cp.segments().get(i - 1).endNs(), cp.segments().get(i).startNs(), "contiguous");
            }
        }
        assertEquals(cp.lengthNs(), sum);
        assertEquals(Map.of(State.RUNNING, 1_861_000L, State.STARTING, 15_000L, State.WAITING, 110_000L,
                State.BLOCKED, 10_000L, State.SLEEPING, 1_000_000L, State.JOINING, 4_000L), cp.nsByState());
        assertEquals(Map.of(Q, 110_000L), cp.waitingNsByMonitor());
        assertEquals(Map.of(Q, 10_000L), cp.blockedNsByMonitor());
        assertEquals(8, cp.waits().size(), "2 starting, 2 waiting, 1 blocked, 1 sleeping, 2 joining");
        List<String> on = cp.intervals().stream().map(i -> i.thread().name() + " " + i.kind() + " "
                + us(i.startNs()) + ".." + us(i.endNs())).toList();
        assertEquals(List.of("c1 WAITING 100..310", "c1 WAITING 400..500", "producer BLOCKED 550..570",
                "sleeper SLEEPING 900..1900", "producer JOINING 1100..2002", "main JOINING 1000..2102"), on);
    }

    @Test
    void criticalPathWithoutEndedThreadsEndsAtTheSnapshot() {
        Recording d = read(Fixtures.deadlock(Fixtures.base()).toBytes());
        CriticalPath cp = CriticalPath.of(d);
        assertEquals("worker-1", cp.endThread().name(), "the latest record");
        assertEquals(SNAP, cp.endNs());
        assertEquals(List.of("worker-1 RUNNING 50..310", "worker-1 DEADLOCKED 310..10000 " + M1),
                cp.segments().stream().map(ContentionAnalysisTest::fmt).toList());
        assertEquals(t(50), cp.startNs());
        assertEquals(Map.of(M1, SNAP - t(310)), cp.blockedNsByMonitor());
    }
}
