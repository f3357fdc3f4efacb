package dev.convoy.agent.it;

import static dev.convoy.agent.it.Recordings.thread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.Frame;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.testapps.Deadlock;
import dev.convoy.testapps.ExitWhileJoinLocked;
import dev.convoy.testapps.ProducerConsumer;
import dev.convoy.testapps.TimedWaits;

/**
 * The real agent on real test apps in fresh JVMs, on every JDK of {@link Jdks}: exact facts
 * about what was recorded.
 */
class RecorderIT {

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }


    private static List<Event> events(RecordedThread t, EventType type) {
        return t.events().stream().filter(e -> e.type() == type).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void deadlockShowsEachThreadEnteringTheMonitorTheOtherOwns(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping(null), Deadlock.class.getName())
                .assertSucceeded();
        assertTrue(run.stdout().contains(Deadlock.MARKER), run.stdout());
        Recording r = run.recording();
        MonitorOwnership owners = MonitorOwnership.of(r);
        RecordedThread a = thread(r, Deadlock.THREAD_A);
        RecordedThread b = thread(r, Deadlock.THREAD_B);

        for (RecordedThread[] pair : new RecordedThread[][] {{a, b}, {b, a}}) {
            RecordedThread self = pair[0];
            RecordedThread other = pair[1];
            String wanted = self == a ? Deadlock.LockB.class.getName() : Deadlock.LockA.class.getName();
            // one contended enter on the deadlock's locks (the thread may also have contended on a JDK
            // monitor while starting up, e.g. class initialisation: that is not the deadlock)
            List<Event> enters = events(self, EventType.MONITOR_ENTER).stream().filter(e -> List.of(
                    Deadlock.LockA.class.getName(), Deadlock.LockB.class.getName()).contains(r.objectClassName(e.obj())))
                    .toList();
            assertEquals(1, enters.size(), () -> self.name() + " events: " + self.events());
            Event enter = enters.get(0);
            assertEquals(wanted, r.objectClassName(enter.obj()));
            assertEquals(Optional.of(other.ringId()), owners.ownerAt(enter).map(RecordedThread::ringId),
                    () -> "owner of " + wanted + " when " + self.name() + " blocked");
            assertEquals(other.javaThreadId(), owners.ownerJavaThreadId(enter));
            assertTrue(events(self, EventType.MONITOR_ENTERED).stream().noneMatch(e -> e.obj() == enter.obj()),
                    "a deadlocked thread never enters the lock it is blocked on");

            List<Frame> frames = r.frames(enter.stackId());
            assertFalse(frames.isEmpty(), "the contended enter has a stack trace");
            Pattern appFrame = Pattern.compile("dev\\.convoy\\.testapps\\.Deadlock.*\\(Deadlock\\.java:\\d+\\)");
            assertTrue(frames.stream().map(r::describe).anyMatch(s -> appFrame.matcher(s).find()),
                    () -> "stack names the test app's method and line: " + frames.stream().map(r::describe).toList());

            MonitorState state = r.monitorState(self.ringId()).orElseThrow(
                    () -> new AssertionError("no snapshot-time monitor state for " + self.name()));
            assertEquals(enter.obj(), state.object(), "blocked on the monitor it tried to enter");
            assertEquals(other.javaThreadId(), state.ownerThreadId(), () -> "owner at snapshot time: " + state);
            assertEquals(r.identityHash(enter.obj()), state.identityHash());
        }
        assertNotEquals(a.javaThreadId(), b.javaThreadId());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void waitsAndWaitedsPairUpWithTheRightTimedOut(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recording r = ChildJvm.run(jdk, work, ChildJvm.dumping(null), TimedWaits.class.getName(), "40")
                .assertSucceeded().recording();
        assertWaitPairs(r, thread(r, TimedWaits.TIMEOUT_THREAD), TimedWaits.TimeoutLock.class.getName(), true, 40);
        assertWaitPairs(r, thread(r, TimedWaits.NOTIFIED_THREAD), TimedWaits.NotifyLock.class.getName(), false, -1);
    }

    /** Every WAIT is followed by a WAITED on the same object; the last one ends as expected. */
    private static void assertWaitPairs(Recording r, RecordedThread t, String lockClass, boolean lastTimedOut,
                                        long firstTimeoutMs) {
        List<Event> waits = t.events().stream()
                .filter(e -> e.type() == EventType.MONITOR_WAIT || e.type() == EventType.MONITOR_WAITED).toList();
        assertFalse(waits.isEmpty(), () -> t.name() + " recorded no waits: " + t.events());
        assertEquals(0, waits.size() % 2, () -> "unpaired waits: " + waits);
        for (int i = 0; i < waits.size(); i += 2) {
            Event wait = waits.get(i);
            Event waited = waits.get(i + 1);
            assertEquals(EventType.MONITOR_WAIT, wait.type());
            assertEquals(EventType.MONITOR_WAITED, waited.type());
            assertEquals(wait.obj(), waited.obj());
            assertEquals(lockClass, r.objectClassName(wait.obj()));
            assertTrue(waited.ts() >= wait.ts());
            assertTrue(wait.arg() > 0, "a timed wait records its timeout");
        }
        if (firstTimeoutMs > 0) {
            assertEquals(firstTimeoutMs, waits.get(0).arg(), "timeout of the first wait, in ms");
        }
        assertEquals(lastTimedOut, waits.get(waits.size() - 1).timedOut(), () -> t.name() + ": " + waits);
        if (!lastTimedOut) {
            assertTrue(waits.stream().filter(e -> e.type() == EventType.MONITOR_WAITED).noneMatch(Event::timedOut),
                    "the notified thread was never timed out");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void everyThreadHasStartAndEndWithItsName(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recording r = ChildJvm.run(jdk, work, ChildJvm.dumping(null), ProducerConsumer.class.getName(), "2", "2", "200")
                .assertSucceeded().recording();
        List<RecordedThread> app = r.threads().stream()
                .filter(t -> t.name().startsWith(ProducerConsumer.PRODUCER_PREFIX)
                        || t.name().startsWith(ProducerConsumer.CONSUMER_PREFIX)).toList();
        assertEquals(4, app.size(), () -> "threads: " + r.threads());
        for (RecordedThread t : app) {
            List<Event> ev = t.events();
            assertEquals(EventType.THREAD_START, ev.get(0).type(), () -> t + ": " + ev);
            assertEquals(EventType.THREAD_END, ev.get(ev.size() - 1).type(), () -> t + ": " + ev);
            assertTrue(t.isEnded());
            assertFalse(t.isLate(), "the agent saw it start");
            assertEquals(t.javaThreadId(), ev.get(0).arg(), "THREAD_START carries the Java thread id");
            assertEquals(t.threadObject(), ev.get(0).obj());
            assertTrue(r.isThreadObject(t.threadObject()));
            assertEquals("main", t.group());
            assertEquals("system", t.parentGroup());
            assertTrue(t.javaThreadId() > 0);
        }
        RecordedThread main = thread(r, "main");
        assertTrue(main.isLate(), "main ran before the agent started");
    }

    /**
     * A thread still posts events after its ThreadEnd (HotSpot: a contended enter on its own
     * Thread object, held here by main, to notify its joiners): they must not make a second,
     * late ring for the same thread (seen once in RecorderIT with ProducerConsumer).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aThreadThatPostsEventsAfterItsEndKeepsOneRing(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recording r = ChildJvm.run(jdk, work, ChildJvm.dumping(null), ExitWhileJoinLocked.class.getName(), "3")
                .assertSucceeded().recording();
        for (int i = 0; i < 3; i++) {
            String name = ExitWhileJoinLocked.THREAD_PREFIX + i;
            List<RecordedThread> rings = r.threads().stream().filter(t -> t.name().equals(name)).toList();
            assertEquals(1, rings.size(), () -> name + ": " + r.threads());
            RecordedThread t = rings.get(0);
            List<Event> ev = t.events();
            assertEquals(EventType.THREAD_START, ev.get(0).type(), () -> t + ": " + ev);
            assertEquals(EventType.THREAD_END, ev.get(ev.size() - 1).type(), () -> t + ": " + ev);
            assertFalse(t.isLate());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aTinyBufferLosesNothingTheHistoryCouldTakeAndCountsTheRest(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recording r = ChildJvm.run(jdk, work, ChildJvm.dumping("buffer=4k,memory=1m"),
                ProducerConsumer.class.getName(), "1", "1", "3000", "1").assertSucceeded().recording();
        RecordedThread consumer = thread(r, ProducerConsumer.CONSUMER_PREFIX + "0");
        assertTrue(consumer.written() > 3L * 85, () -> "far more events than a 4k ring (85 records) holds: " + consumer);
        assertEquals(consumer.written(), consumer.events().size() + consumer.lostRecords(),
                () -> "every record is kept or counted as lost: " + consumer.losses());
        assertEquals(consumer.overwritten(), consumer.lostRecords());
        Event last = consumer.events().get(consumer.events().size() - 1);
        assertEquals(EventType.THREAD_END, last.type(), "the newest record survives");
        assertTrue(consumer.events().stream().anyMatch(e -> e.type() == EventType.THREAD_START)
                || !consumer.losses().isEmpty() && consumer.losses().get(0).fromNs() <= consumer.startNs(),
                "the oldest record is kept, or counted as lost from the thread's start");
        for (int i = 1; i < consumer.events().size(); i++) {
            assertTrue(consumer.events().get(i).ts() >= consumer.events().get(i - 1).ts(), "oldest first");
        }
        long sumOverwritten = r.threads().stream().mapToLong(RecordedThread::overwritten).sum();
        assertEquals(r.infoLong("records.overwritten", -1) + r.infoLong("records.aged", -1), sumOverwritten,
                "INFO's totals are the sum of every thread's losses: " + r.info());
    }

    static List<org.junit.jupiter.params.provider.Arguments> jdksAndOptions() {
        return jdks().stream().flatMap(j -> java.util.stream.Stream.of("", "contanalysis=on")
                .map(o -> org.junit.jupiter.params.provider.Arguments.of(j, o))).toList();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("jdksAndOptions")
    void normalUsePrintsNoWarning(Jdks.Jdk jdk, String options) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping(options), TimedWaits.class.getName(), "5")
                .assertSucceeded();
        assertTrue(run.stderr().lines().allMatch(l -> l.startsWith("[convoy] wrote ")),
                () -> "nothing but the dump's own line: " + run.stderr());
        assertFalse(run.stderr().contains("WARNING"), () -> "stderr: " + run.stderr());
        assertFalse(run.stderr().contains("[convoy] warning"), () -> "stderr: " + run.stderr());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void unknownOptionStopsTheJvmBeforeTheApplicationRuns(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, "foo=1", TimedWaits.class.getName(), "5");
        assertEquals(2, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("unknown option 'foo'"), run.stderr());
        assertTrue(run.stderr().contains("options: recording, buffer, memory, maxsize, maxage, repository, diskmaxsize, stackdepth"),
                run.stderr());
        assertFalse(run.stdout().contains(TimedWaits.NAME), "the application never ran: " + run.stdout());
        assertFalse(run.stderr().contains("FATAL") || run.stderr().contains("hs_err"), run.stderr());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void malformedValueNamesTheOptionAndWhatIsAllowed(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, "buffer=12x", TimedWaits.class.getName(), "5");
        assertEquals(2, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("option 'buffer': '12x' is not a size"), run.stderr());
        assertTrue(run.stderr().contains("allowed 4k to 64m"), run.stderr());
        assertFalse(run.stdout().contains(TimedWaits.NAME), run.stdout());
    }
}
