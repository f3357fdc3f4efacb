package dev.convoy.agent.it;

import static dev.convoy.agent.it.Recordings.thread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.Loss;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.testapps.LockStorm;
import dev.convoy.testapps.ThreadChurn;
import dev.convoy.testapps.bench.PingPong;

/**
 * The history: records leave the rings before the rings wrap, so a recording keeps what happened,
 * and what is lost anyway is counted exactly, per thread, with the times around it. Ground truth
 * comes from the test apps (round trips, increments, threads started).
 *
 * <p>Whether a busy machine lets the recorder's drain thread run in time is not under the test's
 * control: where records were lost, the test checks that every one of them is counted and placed
 * between the records kept around it, and that most were kept (a ring alone keeps the last 1,365
 * records of each thread: 0.2 % of a ping-pong thread's 600,000).
 */
class HistoryIT {

    private static final int ROUND_TRIPS = 300_000;

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    /** Every record of the thread is kept or counted in a loss, and each loss sits between kept records. */
    private static void assertAccounted(Recording r, RecordedThread t) {
        assertEquals(t.written(), t.events().size() + t.lostRecords(), () -> t.name() + ": written = kept + lost; "
                + t.losses());
        assertEquals(t.overwritten(), t.lostRecords(), () -> t.name() + ": overwritten is the sum of its losses");
        List<Event> events = t.events();
        for (Loss l : t.losses()) {
            assertTrue(l.records() > 0 && l.fromNs() <= l.toNs(), () -> t.name() + ": " + l);
            long before = events.stream().mapToLong(Event::ts).filter(ts -> ts <= l.fromNs()).max().orElse(-1);
            long after = events.stream().mapToLong(Event::ts).filter(ts -> ts >= l.toNs()).min().orElse(-1);
            assertTrue(events.stream().noneMatch(e -> e.ts() > l.fromNs() && e.ts() < l.toNs()),
                    () -> t.name() + ": no record kept inside the loss " + l);
            if (before >= 0 && l.kind() == SnapshotFormat.LOSS_OVERWRITTEN) {
                assertEquals(before, l.fromNs(), () -> t.name() + ": a loss starts at the record kept before it " + l);
            }
            if (after >= 0) {
                assertEquals(after, l.toNs(), () -> t.name() + ": a loss ends at the record kept after it " + l);
            }
        }
    }

    /**
     * Outside its losses, a thread's begin and end records alternate (WAIT, WAITED, WAIT, ...): two
     * kept records with no loss between them follow each other. Events not recorded at all (their
     * object could not be identified: counted as dropped, with no time) may break it, so a thread
     * that dropped any is not held to it.
     */
    private static void assertAlternates(RecordedThread t, EventType begin, EventType end) {
        if (t.dropped() > 0) {
            return;
        }
        EventType expected = null;
        long previous = Long.MIN_VALUE;
        for (Event e : t.events()) {
            if (e.type() != begin && e.type() != end) {
                continue;
            }
            long from = previous;
            boolean lossBetween = t.losses().stream().anyMatch(l -> l.toNs() >= from && l.fromNs() <= e.ts());
            if (expected != null && !lossBetween) {
                EventType want = expected;
                assertEquals(want, e.type(), () -> t.name() + " at " + e.ts() + ": " + begin + " and " + end
                        + " alternate outside losses");
            }
            expected = e.type() == begin ? end : begin;
            previous = e.ts();
        }
    }

    private static void assertMostKept(RecordedThread t, long truth) {
        assertTrue(t.events().size() * 2L > truth, () -> t.name() + " kept " + t.events().size() + " of " + truth
                + " records (lost " + t.lostRecords() + " in " + t.losses() + ")");
    }

    /** The recording of the ping-pong's {@link #ROUND_TRIPS} round trips, dumped on exit with {@code options} added. */
    private Recording pingPong(Jdks.Jdk jdk, String options) throws Exception {
        jdk.assumePresent();
        return ChildJvm.run(jdk, work, ChildJvm.dumping(options), PingPong.class.getName(), "--roundtrips",
                Integer.toString(ROUND_TRIPS), "--warmup", "0").assertSucceeded().recording();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aPingPongOfOnePointTwoMillionEventsIsKeptOrEveryLossCounted(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recording r = pingPong(jdk, null);
        RecordedThread b = thread(r, "pingpong-b");
        RecordedThread a = thread(r, "main");
        for (RecordedThread t : List.of(a, b)) {
            assertAccounted(r, t);
            assertAlternates(t, EventType.MONITOR_WAIT, EventType.MONITOR_WAITED);
            long waits = t.events().stream().filter(e -> e.type() == EventType.MONITOR_WAIT).count();
            long waiteds = t.events().stream().filter(e -> e.type() == EventType.MONITOR_WAITED).count();
            // each side waits at least once per round trip (more after a spurious wake-up); a loss hides
            // some waits, never adds any
            assertTrue(waits + waiteds + t.lostRecords() >= 2L * ROUND_TRIPS, () -> t.name() + ": kept " + waits
                    + " waits and " + waiteds + " wake-ups, lost " + t.lostRecords());
            if (t.lostRecords() == 0) {
                assertTrue(waits >= ROUND_TRIPS, () -> t.name() + ": nothing lost, so every wait is there: " + waits);
                assertTrue(waits - waiteds >= 0 && waits - waiteds <= 1, () -> t.name() + ": every wait but the last "
                        + "ended: " + waits + " waits, " + waiteds + " wake-ups");
            }
            assertMostKept(t, 2L * ROUND_TRIPS);
        }
        assertEquals(0, r.infoLong("records.aged", -1), "the default history holds 1.2 M records");
        String history = r.info().get("history");
        assertTrue(history != null && history.startsWith("memory maxsize=33554432 maxage=0 "), history);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aStormOfEightThreadsKeepsItsBlocksOrCountsEachLoss(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping(null), LockStorm.class.getName(), "8",
                "100000").assertSucceeded();
        Recording r = run.recording();
        long blocks = 0;
        for (int i = 0; i < 8; i++) {
            RecordedThread t = thread(r, LockStorm.THREAD_PREFIX + i);
            assertAccounted(r, t);
            assertAlternates(t, EventType.MONITOR_ENTER, EventType.MONITOR_ENTERED);
            blocks += t.events().stream().filter(e -> e.type() == EventType.MONITOR_ENTER).count();
            assertTrue(t.events().stream().anyMatch(e -> e.type() == EventType.THREAD_START)
                    || t.losses().stream().anyMatch(l -> l.fromNs() <= t.startNs()),
                    () -> t.name() + ": its start is kept, or lost and counted");
        }
        assertTrue(blocks >= 8, "every worker blocked at least once: " + blocks);
        long written = r.threads().stream().mapToLong(RecordedThread::written).sum();
        long kept = r.threads().stream().mapToLong(t -> t.events().size()).sum();
        long lost = r.threads().stream().mapToLong(RecordedThread::lostRecords).sum();
        assertEquals(written, kept + lost);
        assertEquals(lost, r.infoLong("records.overwritten", -1) + r.infoLong("records.aged", -1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aHistoryBoundWellBelowTheDataStaysUnderItAndCountsWhatAgedOut(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recording r = pingPong(jdk, "maxsize=1m");
        Map<String, String> fields = Set.of(r.info().get("history").split(" ")).stream().filter(s -> s.contains("="))
                .collect(Collectors.toMap(s -> s.substring(0, s.indexOf('=')), s -> s.substring(s.indexOf('=') + 1)));
        assertEquals("1048576", fields.get("maxsize"));
        assertTrue(Long.parseLong(fields.get("bytes")) <= 1 << 20, r.info().get("history"));
        long aged = r.infoLong("records.aged", -1);
        assertTrue(aged > 1_000_000, "1.2 M records do not fit in 1 MiB: aged " + aged);
        long from = r.infoLong("history.from.ns", 0);
        assertTrue(from > 0, "the time before which records may be missing is given");
        RecordedThread b = thread(r, "pingpong-b");
        assertAccounted(r, b);
        Loss front = b.losses().get(0);
        assertEquals(SnapshotFormat.LOSS_AGED, front.kind(), () -> "the oldest records aged out: " + b.losses());
        assertTrue(b.completeFromNs() >= from, "its history is complete only after the aged-out time");
        assertTrue(b.events().stream().allMatch(e -> e.ts() >= front.toNs()), "nothing kept before what aged out");
        long written = r.threads().stream().mapToLong(RecordedThread::written).sum();
        long kept = r.threads().stream().mapToLong(t -> t.events().size()).sum();
        long lost = r.threads().stream().mapToLong(RecordedThread::lostRecords).sum();
        assertEquals(written, kept + lost, "every record written is kept or counted as lost");
        assertTrue(lost >= aged, "the aged-out records are among the losses");
        // The whole run's totals still count every wait that ended, aged out or not: ground truth.
        long waited = r.totals().stream().filter(t -> t.ringId() == b.ringId()
                && t.kind() == SnapshotFormat.TOTAL_WAITED).mapToLong(dev.convoy.model.Total::count).sum();
        long keptWaits = b.events().stream().filter(e -> e.type() == EventType.MONITOR_WAITED).count();
        assertTrue(keptWaits < ROUND_TRIPS / 2, "most wake-ups aged out of the records: " + keptWaits);
        // Records overwritten before they were kept never reach the totals (each hides at most one
        // wake-up); in the aged-out front they are counted with the aged, so take them from INFO.
        long overwrittenLost = r.infoLong("records.overwritten", 0);
        assertTrue(waited + overwrittenLost >= ROUND_TRIPS - 1 && waited <= ROUND_TRIPS + 10,
                () -> "the totals count the whole run's " + ROUND_TRIPS + " wake-ups: " + waited + " (records lost "
                        + "before they were kept: " + overwrittenLost + ")");
        String report = dev.convoy.report.ContentionReport.of(r).text();
        assertTrue(report.contains("The whole run, aged-out records included"), report);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void theDumpOnExitHoldsTheLastExitWindowOfTheHistory(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recording r = pingPong(jdk, "exitwindow=1s");
        String window = r.info().get("window");
        assertNotNull(window, "the dump on exit says it is a window: " + r.info());
        long from = Long.parseLong(window.replaceAll(".*from=(\\d+).*", "$1"));
        long to = Long.parseLong(window.replaceAll(".*to=(\\d+).*", "$1"));
        assertEquals(1_000_000_000L, to - from, window);
        long kept = 0;
        for (RecordedThread t : r.threads()) {
            for (Event e : t.events()) {
                assertTrue(e.ts() >= from && e.ts() <= to, () -> t.name() + " has a record outside the window: " + e);
            }
            kept += t.events().size();
        }
        long whole = r.infoLong("window.of.records.written", -1);
        long keptInWindow = kept;
        assertTrue(keptInWindow > 0 && keptInWindow < whole, () -> "the window holds part of the history: "
                + keptInWindow + " of " + whole);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void threadsWhoseRingsWereFreedKeepTheirRecordsInTheHistory(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        int threads = 300;
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping("memory=1m,buffer=4k"),
                ThreadChurn.class.getName(), Integer.toString(threads)).assertSucceeded();
        Recording r = run.recording();
        assertTrue(r.infoLong("threads.evicted", 0) > 0, "the memory cap freed the rings of ended threads");
        List<RecordedThread> churn = r.threads().stream().filter(t -> t.name().startsWith(ThreadChurn.THREAD_PREFIX))
                .toList();
        assertEquals(threads, churn.size(), "every churned thread is in the recording, its ring freed or not");
        for (RecordedThread t : churn) {
            assertAccounted(r, t);
            if (t.lostRecords() == 0) {
                assertEquals(Set.of(EventType.THREAD_START, EventType.MONITOR_WAIT, EventType.MONITOR_WAITED,
                        EventType.THREAD_END), t.events().stream().map(Event::type).collect(Collectors.toSet()),
                        () -> t.name() + ": " + t.events());
            }
        }
    }
}
