package dev.convoy.agent.it;

import static dev.convoy.agent.it.Recordings.thread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.testapps.BlockingQueueHandoff;
import dev.convoy.testapps.IdlePool;
import dev.convoy.testapps.LatchWait;
import dev.convoy.testapps.LockDeadlock;
import dev.convoy.testapps.MixedDeadlock;
import dev.convoy.testapps.ReadWriteWait;
import dev.convoy.testapps.ReentrantLockStorm;
import dev.convoy.testapps.SemaphoreWait;

/**
 * Parks as recorded: the park test apps run under the agent on every JDK of {@link Jdks},
 * with contention analysis off (parks do not need it) and, for some, on; the recorded PARK,
 * PARKED and UNPARK records and SECTION_MONITORS must state what each app knows about itself
 * (its summary line): the blocker's class, FLAG_LOCK, the exact exclusive owner, time-outs,
 * interrupts, who unparked whom, and the parked threads of a deadlock with their owners.
 * No assertion is on time.
 */
class ParkIT {

    /** Rings large enough that no app thread loses a record. */
    private static final String OFF = ChildJvm.dumping("buffer=1m,memory=256m");
    private static final String ON = ChildJvm.dumping("buffer=1m,memory=256m,contanalysis=on");

    private static final String CONDITION = BlockingQueueHandoff.CONDITION;

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    /** Every JDK, contention analysis off and on. */
    static Stream<Arguments> jdksAndModes() {
        return Jdks.all().flatMap(j -> Stream.of(Arguments.of(j, OFF), Arguments.of(j, ON)));
    }

    record Run(String stdout, Recording r) {
        long field(String key) {
            return Recordings.field(stdout, key);
        }

        List<Long> longs(String key) {
            return Recordings.longs(stdout, key);
        }

        RecordedThread thread(String name) {
            return Recordings.thread(r, name);
        }

        String cls(long obj) {
            return r.objectClassName(obj);
        }
    }

    private Run run(Jdks.Jdk jdk, String options, Class<?> app, String... args) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result res = ChildJvm.run(jdk, work, options, app.getName(), args).assertSucceeded();
        assertTrue(res.stdout().contains(" OK "), res.stdout());
        assertFalse(res.stderr().contains("parks are not recorded"), res.stderr());
        return new Run(res.stdout(), res.recording());
    }

    static List<Event> of(RecordedThread t, EventType type) {
        return t.events().stream().filter(e -> e.type() == type).toList();
    }

    static boolean has(Event e, int flag) {
        return (e.flags() & flag) != 0;
    }

    /**
     * The thread's parks come in PARK, PARKED pairs naming the same blocker, none nested, the
     * last PARK possibly unfinished when {@code parkedAtEnd}; no record was lost. Returns the PARKs.
     */
    static List<Event> pairs(RecordedThread t, boolean parkedAtEnd) {
        assertEquals(0, t.overwritten(), () -> t.name() + " lost records");
        List<Event> parks = new ArrayList<>();
        Event open = null;
        for (Event e : t.events()) {
            if (e.type() == EventType.PARK) {
                assertEquals(null, open, () -> t.name() + ": PARK inside a park: " + e);
                open = e;
                parks.add(e);
            } else if (e.type() == EventType.PARKED) {
                assertTrue(open != null, () -> t.name() + ": PARKED without PARK: " + e);
                assertEquals(open.obj(), e.obj(), () -> t.name() + ": PARKED of another blocker: " + e);
                assertTrue(open.ts() <= e.ts());
                assertEquals(0, e.stackId(), "PARKED has no stack");
                open = null;
            }
        }
        if (parkedAtEnd) {
            assertTrue(open != null, () -> t.name() + " is parked at the end: " + t.events());
        } else {
            assertEquals(null, open, () -> t.name() + " ended parked");
        }
        return parks;
    }

    /** Whether some thread recorded an UNPARK of the thread with this Java id. */
    private static boolean unparked(Recording r, long tid) {
        return r.threads().stream().flatMap(t -> t.events().stream())
                .anyMatch(e -> e.type() == EventType.UNPARK && e.arg2() == tid);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("jdksAndModes")
    void reentrantLockStorm(Jdks.Jdk jdk, String options) throws Exception {
        Run run = run(jdk, options, ReentrantLockStorm.class, "4", "500");
        checkStorm(run.r, run.stdout);
    }

    /**
     * The parks of one {@link ReentrantLockStorm} (its summary line): per storm thread,
     * PARK/PARKED pairs on the one lock, FLAG_LOCK, untimed, with a stack, owned by another
     * storm thread or main (main for the first park), unparked by someone; its UNPARKs target
     * storm threads. Returns the storm's thread ids.
     */
    static List<Long> checkStorm(Recording r, String summary) {
        List<Long> ids = Recordings.longs(summary, "threadIds");
        long main = Recordings.field(summary, "ownerAtStart");
        Set<Long> owners = new HashSet<>(ids);
        owners.add(main);
        owners.add(-1L);
        Set<Long> blockers = new HashSet<>();
        for (long id : ids) {
            RecordedThread t = Recordings.threadById(r, id);
            List<Event> parks = pairs(t, false);
            assertFalse(parks.isEmpty(), t.name());
            for (Event p : parks) {
                assertEquals(ReentrantLockStorm.BLOCKER, r.objectClassName(p.obj()), p::toString);
                assertTrue(has(p, SnapshotFormat.FLAG_LOCK), p::toString);
                assertEquals(0, p.arg(), "lock() parks without a timeout");
                assertNotEquals(0, p.stackId(), "PARK has a stack");
                assertTrue(owners.contains(p.arg2()), () -> "owner " + p.arg2() + " of " + p);
                assertNotEquals(id, p.arg2(), "a thread never parks on a lock it owns");
                blockers.add(p.obj());
            }
            assertEquals(main, parks.get(0).arg2(), () -> t.name() + "'s first park: main held the lock");
            assertTrue(unparked(r, id), () -> "someone unparked " + t.name());
            for (Event u : of(t, EventType.UNPARK)) {
                assertTrue(ids.contains(u.arg2()), () -> "a storm thread unparks storm threads: " + u);
                assertEquals(u.arg2(), r.threadByObject(u.obj()).orElseThrow().javaThreadId());
            }
        }
        assertEquals(1, blockers.size(), "one lock");
        return ids;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void blockingQueueHandoff(Jdks.Jdk jdk) throws Exception {
        Run run = run(jdk, OFF, BlockingQueueHandoff.class, "200");
        RecordedThread producer = run.thread(BlockingQueueHandoff.PRODUCER);
        RecordedThread consumer = run.thread(BlockingQueueHandoff.CONSUMER);
        List<Event> cParks = pairs(consumer, false);
        List<Event> pParks = pairs(producer, false);
        Event first = cParks.get(0);
        assertEquals(CONDITION, run.cls(first.obj()), "the consumer first parks in take() on notEmpty");
        Event notFull = pParks.stream().filter(p -> run.cls(p.obj()).equals(CONDITION)).findFirst().orElseThrow();
        assertNotEquals(first.obj(), notFull.obj(), "notEmpty and notFull are two conditions");
        for (Event p : concat(cParks, pParks)) {
            String cls = run.cls(p.obj());
            if (cls.equals(ReentrantLockStorm.BLOCKER)) { // the queue's lock
                assertTrue(has(p, SnapshotFormat.FLAG_LOCK), p::toString);
            } else { // a condition of the queue, or the app's latch (the consumer's pause)
                assertTrue(cls.equals(CONDITION) || cls.equals(LatchWait.BLOCKER), cls);
                assertFalse(has(p, SnapshotFormat.FLAG_LOCK), p::toString);
                assertEquals(-1, p.arg2(), "a condition or a latch has no owner");
            }
        }
        long producerId = producer.javaThreadId();
        long consumerId = consumer.javaThreadId();
        assertTrue(of(producer, EventType.UNPARK).stream().anyMatch(u -> u.arg2() == consumerId), "put unparks");
        assertTrue(of(consumer, EventType.UNPARK).stream().anyMatch(u -> u.arg2() == producerId), "take unparks");
    }

    private static List<Event> concat(List<Event> a, List<Event> b) {
        List<Event> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void readWriteLock(Jdks.Jdk jdk) throws Exception {
        Run run = run(jdk, OFF, ReadWriteWait.class, "3");
        Event writer = pairs(run.thread(ReadWriteWait.WRITER), false).get(0);
        assertEquals(ReadWriteWait.BLOCKER, run.cls(writer.obj()));
        assertTrue(has(writer, SnapshotFormat.FLAG_LOCK));
        assertEquals(-1, writer.arg2(), "held shared by the readers: no exclusive owner");
        Event reader = pairs(run.thread(ReadWriteWait.LATE_READER), false).get(0);
        assertEquals(writer.obj(), reader.obj(), "one lock");
        assertTrue(has(reader, SnapshotFormat.FLAG_LOCK));
        assertEquals(run.field("writerId"), reader.arg2(), "the writer owned the lock");
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("jdksAndModes")
    void semaphoreTimeoutAndInterrupt(Jdks.Jdk jdk, String options) throws Exception {
        Run run = run(jdk, options, SemaphoreWait.class, "50");
        List<Event> waiter = pairs(run.thread(SemaphoreWait.WAITER), false);
        for (Event p : waiter) {
            assertEquals(SemaphoreWait.BLOCKER, run.cls(p.obj()));
            assertTrue(has(p, SnapshotFormat.FLAG_LOCK), "a semaphore's acquire parks as a lock");
            assertEquals(-1, p.arg2(), "a semaphore has no exclusive owner");
            assertEquals(0, p.arg());
        }
        List<Event> waiterEnds = of(run.thread(SemaphoreWait.WAITER), EventType.PARKED);
        assertEquals(0, waiterEnds.get(waiterEnds.size() - 1).flags(), "unparked: neither timed out nor interrupted");

        RecordedThread timed = run.thread(SemaphoreWait.TIMED);
        List<Event> timedParks = pairs(timed, false);
        assertFalse(timedParks.isEmpty());
        for (Event p : timedParks) {
            assertTrue(p.arg() > 0 && p.arg() <= 50_000_000L, () -> "timeout ns of " + p);
        }
        List<Event> timedEnds = of(timed, EventType.PARKED);
        Event last = timedEnds.get(timedEnds.size() - 1);
        assertTrue(has(last, SnapshotFormat.FLAG_TIMED_OUT), last::toString);
        assertFalse(has(last, SnapshotFormat.FLAG_INTERRUPTED), last::toString);

        RecordedThread interrupted = run.thread(SemaphoreWait.INTERRUPTED);
        pairs(interrupted, false);
        List<Event> intEnds = of(interrupted, EventType.PARKED);
        Event end = intEnds.get(intEnds.size() - 1);
        assertTrue(has(end, SnapshotFormat.FLAG_INTERRUPTED), end::toString);
        assertFalse(has(end, SnapshotFormat.FLAG_TIMED_OUT), end::toString);
        assertTrue(intEnds.subList(0, intEnds.size() - 1).stream().noneMatch(e -> has(e, SnapshotFormat.FLAG_INTERRUPTED)),
                "only the last park saw the interrupt");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void countDownLatch(Jdks.Jdk jdk) throws Exception {
        Run run = run(jdk, OFF, LatchWait.class, "3");
        for (long id : run.longs("threadIds")) {
            RecordedThread t = Recordings.threadById(run.r, id);
            List<Event> parks = pairs(t, false);
            assertFalse(parks.isEmpty(), t.name());
            for (Event p : parks) {
                assertEquals(LatchWait.BLOCKER, run.cls(p.obj()));
                assertFalse(has(p, SnapshotFormat.FLAG_LOCK), "a latch's await waits, it does not lock");
                assertEquals(-1, p.arg2());
                assertTrue(p.arg() > 0, "await(timeout) parks with a timeout");
            }
            for (Event e : of(t, EventType.PARKED)) {
                assertFalse(has(e, SnapshotFormat.FLAG_TIMED_OUT), "released before the timeout");
            }
            assertTrue(unparked(run.r, id), () -> "someone unparked " + t.name());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void idlePoolWorkersAreParkedInTake(Jdks.Jdk jdk) throws Exception {
        Run run = run(jdk, OFF, IdlePool.class, "3");
        for (int i = 0; i < 3; i++) {
            RecordedThread w = run.thread(IdlePool.THREAD_PREFIX + i);
            List<Event> parks = pairs(w, true);
            Event last = parks.get(parks.size() - 1);
            assertEquals(IdlePool.BLOCKER, run.cls(last.obj()));
            assertFalse(has(last, SnapshotFormat.FLAG_LOCK), "take() waits on a condition");
            assertEquals(-1, last.arg2());
            MonitorState m = run.r.monitorState(w.ringId()).orElseThrow(() -> new AssertionError(w.name()
                    + " listed parked: " + run.r.monitors()));
            assertEquals(SnapshotFormat.MSTATE_PARKED, m.state());
            assertEquals(last.obj(), m.object());
            assertEquals(-1, m.ownerThreadId());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("jdksAndModes")
    void reentrantLockDeadlock(Jdks.Jdk jdk, String options) throws Exception {
        Run run = run(jdk, options, LockDeadlock.class);
        long a = run.field("aId");
        long b = run.field("bId");
        RecordedThread ta = run.thread(LockDeadlock.THREAD_A);
        RecordedThread tb = run.thread(LockDeadlock.THREAD_B);
        Event pa = last(pairs(ta, true));
        Event pb = last(pairs(tb, true));
        assertNotEquals(pa.obj(), pb.obj(), "two locks");
        for (Object[] c : new Object[][] {{ta, pa, b}, {tb, pb, a}}) {
            RecordedThread t = (RecordedThread) c[0];
            Event p = (Event) c[1];
            long owner = (Long) c[2];
            assertEquals(LockDeadlock.BLOCKER, run.cls(p.obj()));
            assertTrue(has(p, SnapshotFormat.FLAG_LOCK));
            assertEquals(owner, p.arg2(), () -> t.name() + " parked on the lock the other owns");
            MonitorState m = run.r.monitorState(t.ringId()).orElseThrow(() -> new AssertionError(t.name()
                    + " listed parked: " + run.r.monitors()));
            assertEquals(SnapshotFormat.MSTATE_PARKED, m.state());
            assertEquals(p.obj(), m.object());
            assertEquals(owner, m.ownerThreadId());
            assertEquals(run.r.identityHash(p.obj()), m.identityHash());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void mixedDeadlock(Jdks.Jdk jdk) throws Exception {
        Run run = run(jdk, OFF, MixedDeadlock.class);
        long a = run.field("aId");
        long b = run.field("bId");
        RecordedThread ta = run.thread(MixedDeadlock.THREAD_A);
        RecordedThread tb = run.thread(MixedDeadlock.THREAD_B);
        Event pa = last(pairs(ta, true));
        assertEquals(MixedDeadlock.BLOCKER, run.cls(pa.obj()));
        assertEquals(b, pa.arg2(), "B owns the lock");
        MonitorState ma = run.r.monitorState(ta.ringId()).orElseThrow();
        assertEquals(SnapshotFormat.MSTATE_PARKED, ma.state());
        assertEquals(pa.obj(), ma.object());
        assertEquals(b, ma.ownerThreadId());
        MonitorState mb = run.r.monitorState(tb.ringId()).orElseThrow();
        assertEquals(SnapshotFormat.MSTATE_BLOCKED, mb.state());
        assertEquals(MixedDeadlock.Monitor.class.getName(), run.cls(mb.object()));
        assertEquals(a, mb.ownerThreadId(), "A owns the monitor");
    }

    /**
     * Attach (agentmain): the hook is applied to a running JVM. The target (the Deadlock app,
     * holding until its stdin closes) keeps parking its main thread in
     * {@code LockSupport.parkNanos(10 ms)}, no blocker: after the attach those parks are
     * recorded, with their timeout, no owner and no FLAG_LOCK, each PARKED timed out.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void attachHooksARunningJvm(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        try (AttachIT.Target target = new AttachIT.Target(jdk, work)) {
            long pid = target.pid();
            AttachIT.convoy("attach", pid, "buffer=1m,memory=256m").ok();
            Path snap = work.resolve("attach.cvysnap");
            org.awaitility.Awaitility.await("main's parks recorded").atMost(java.time.Duration.ofSeconds(60))
                    .until(() -> {
                        java.nio.file.Files.deleteIfExists(snap);
                        AttachIT.convoy("dump", pid, "--format", "snapshot", "-o", snap).ok();
                        return of(thread(dev.convoy.snapshot.SnapshotReader.read(snap), "main"),
                                EventType.PARKED).size() >= 2;
                    });
            Recording r = dev.convoy.snapshot.SnapshotReader.read(snap);
            RecordedThread main = thread(r, "main");
            List<Event> parks = of(main, EventType.PARK);
            List<Event> ends = of(main, EventType.PARKED);
            assertTrue(parks.size() >= 2, main.events()::toString);
            for (Event p : parks) {
                assertEquals(0, p.obj(), "no blocker");
                assertEquals(-1, p.arg2(), "no owner");
                assertFalse(has(p, SnapshotFormat.FLAG_LOCK));
                assertEquals(10_000_000L, p.arg(), "parkNanos(10 ms)");
            }
            // Nobody unparks main: its parks end by their timeout (a spurious wake-up would not).
            assertTrue(ends.stream().anyMatch(e -> has(e, SnapshotFormat.FLAG_TIMED_OUT)), ends::toString);
            assertTrue(ends.stream().noneMatch(e -> has(e, SnapshotFormat.FLAG_INTERRUPTED)), ends::toString);
            assertEquals(0, target.exit(), target::toString);
        }
    }

    private static Event last(List<Event> es) {
        return es.get(es.size() - 1);
    }
}
