package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.testapps.VirtualBlockOnce;
import dev.convoy.testapps.VirtualLockStorm;
import dev.convoy.testapps.VirtualMonitorStorm;
import dev.convoy.testapps.VirtualThreadParks;

/**
 * Virtual threads at scale, under the default options ({@code buffer=64k}, {@code memory=64m}):
 * 10,000 contending on a {@code synchronized} block, 10,000 on a {@code ReentrantLock}, 100,000
 * short-lived ones blocking once. For every virtual thread of the app its blocks are recorded,
 * each within the bounds the app took itself ({@link VirtualBlocks}), its ring flagged
 * RING_VIRTUAL; nothing is dropped; and the recorder's memory, sampled by the app from the MBean
 * while it ran, never passed the cap. Skipped on JDKs without virtual threads (before 21).
 */
class VirtualThreadsIT {

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    private static void assumeVirtualThreads(Jdks.Jdk jdk) throws java.io.IOException {
        jdk.assumePresent();
        assumeTrue(jdk.feature() >= 21, () -> jdk + " has no virtual threads (JDK 21 and later): skipped");
    }

    private Recording everyThreadRecorded(Jdks.Jdk jdk, String mainClass, String name, int threads,
                                          BiFunction<Recording, String, VirtualBlocks.Check> check) throws Exception {
        assumeVirtualThreads(jdk);
        ChildJvm.Result res = ChildJvm.run(jdk, work, ChildJvm.dumping(""), mainClass, Integer.toString(threads))
                .assertSucceeded();
        String out = res.stdout();
        assertTrue(out.startsWith(name + " OK "), () -> out.substring(0, Math.min(out.length(), 2000)));
        long cap = Recordings.field(out, "memoryCap");
        long max = Recordings.field(out, "maxMemoryInUse");
        assertEquals(64L << 20, cap);
        assertTrue(Recordings.field(out, "memorySamples") > 0, "the app sampled the MBean");
        assertTrue(max > 0 && max <= cap, () -> "memory in use at most the cap: " + max + " of " + cap);
        Recording r = res.recording();
        VirtualBlocks.Check c = check.apply(r, out);
        assertEquals(threads, c.right(), c::toString);
        assertEquals(0, r.infoLong("records.dropped", -1), () -> "nothing dropped: " + r.info());
        Map<Long, RecordedThread> byId = new HashMap<>();
        r.threads().forEach(t -> byId.put(t.javaThreadId(), t));
        for (long id : Recordings.longs(out, "threadIds")) {
            RecordedThread t = byId.get(id);
            assertTrue(t != null && t.isVirtual(), () -> id + " recorded and flagged RING_VIRTUAL: " + t);
            startedAndEnded(t);
        }
        assertTrue(Recordings.thread(r, "main").capacity() > 1000, "platform threads keep whole rings");
        assertTrue(!Recordings.thread(r, "main").isVirtual());
        return r;
    }

    /**
     * With vthreadevents=on (the default): the virtual thread's ring holds its whole life, its
     * THREAD_START (from VirtualThreadStart) first and its THREAD_END (VirtualThreadEnd) last,
     * the ring flagged ended and not late, the start and end times those of the two records.
     */
    static void startedAndEnded(RecordedThread t) {
        assertEquals(0, t.overwritten(), t::toString);
        assertTrue(t.eventCount() >= 2, t::toString);
        assertEquals(EventType.THREAD_START, t.type(0), t::toString);
        assertEquals(EventType.THREAD_END, t.type(t.eventCount() - 1), t::toString);
        assertEquals(t.javaThreadId(), t.arg(0), t::toString);
        assertTrue(t.isEnded() && !t.isLate(), t::toString);
        assertTrue(t.startNs() <= t.ts(0) && t.endNs() >= t.ts(t.eventCount() - 1), t::toString);
    }

    /**
     * With vthreadevents=off the blocks are recorded all the same (the storage does not depend on
     * the events), but virtual threads have no start or end: their rings are made at their first
     * event (RING_LATE) and never flagged ended.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void withoutTheEventsBlocksAreRecordedWithoutStartAndEnd(Jdks.Jdk jdk) throws Exception {
        assumeVirtualThreads(jdk);
        ChildJvm.Result res = ChildJvm.run(jdk, work, ChildJvm.dumping("vthreadevents=off"),
                VirtualMonitorStorm.class.getName(), "2000").assertSucceeded();
        String out = res.stdout();
        Recording r = res.recording();
        VirtualBlocks.Check c = VirtualBlocks.monitorStorm(r, out);
        assertEquals(2000, c.right(), c::toString);
        for (long id : Recordings.longs(out, "threadIds")) {
            RecordedThread t = Recordings.threadById(r, id);
            assertTrue(t.isVirtual() && t.isLate() && !t.isEnded(), t::toString);
            assertTrue(t.events().stream().noneMatch(e -> e.type() == EventType.THREAD_START
                    || e.type() == EventType.THREAD_END), t::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void tenThousandOnASynchronizedBlock(Jdks.Jdk jdk) throws Exception {
        Recording r = everyThreadRecorded(jdk, VirtualMonitorStorm.class.getName(), VirtualMonitorStorm.NAME,
                10_000, VirtualBlocks::monitorStorm);
        // Each block's MONITOR_ENTERED names the carrier the virtual thread resumed on: one of the
        // scheduler's platform threads, recorded from their ThreadStart.
        Map<Long, RecordedThread> platform = new HashMap<>();
        r.threads().stream().filter(t -> !t.isVirtual() && !t.isSystem()).forEach(t -> platform.put(t.javaThreadId(), t));
        for (RecordedThread t : r.threads()) {
            if (!t.isVirtual()) {
                continue;
            }
            for (int i = 0; i < t.eventCount(); i++) {
                if (t.type(i) == EventType.MONITOR_ENTERED) {
                    RecordedThread carrier = platform.get(t.arg2(i));
                    int at = i;
                    assertTrue(carrier != null && carrier.name().startsWith("ForkJoinPool-"),
                            () -> t.label() + "'s ENTERED names carrier " + t.arg2(at) + ": " + carrier);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void tenThousandOnAReentrantLock(Jdks.Jdk jdk) throws Exception {
        everyThreadRecorded(jdk, VirtualLockStorm.class.getName(), VirtualLockStorm.NAME, 10_000,
                VirtualBlocks::lockStorm);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aHundredThousandShortLivedBlockingOnce(Jdks.Jdk jdk) throws Exception {
        everyThreadRecorded(jdk, VirtualBlockOnce.class.getName(), VirtualBlockOnce.NAME, 100_000,
                VirtualBlocks::blockOnce);
    }

    /**
     * A virtual thread that records more than its first ring holds: the ring grows to at least
     * {@code buffer} (4k: 84 records), and the recorder moves its records into the history before
     * they are overwritten. Every record written is either kept or counted in a listed loss, and
     * those kept are in order.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aVirtualThreadsRingGrowsAndTheHistoryKeepsWhatItWrote(Jdks.Jdk jdk) throws Exception {
        assumeVirtualThreads(jdk);
        ChildJvm.Result res = ChildJvm.run(jdk, work, ChildJvm.dumping("buffer=4k"),
                VirtualThreadParks.class.getName(), "20", "30").assertSucceeded();
        assertTrue(res.stdout().contains(VirtualThreadParks.NAME + " OK "), res.stdout());
        Recording r = res.recording();
        for (long id : Recordings.longs(res.stdout(), "threadIds")) {
            RecordedThread t = Recordings.threadById(r, id);
            assertTrue(t.isVirtual(), t::toString);
            // from 4 records to the buffer's 84 by doubling, and beyond if the recorder gave it a spare
            assertTrue(t.capacity() >= 84, () -> t + " grew to at least the buffer's capacity");
            assertTrue(t.written() > 84, () -> t + " wrote more than a 4k ring holds");
            assertEquals(0, t.torn(), t::toString);
            assertEquals(t.written(), t.overwritten() + t.eventCount(), () -> t + ": each record kept or lost");
            assertEquals(t.overwritten(), t.lostRecords(), () -> t + ": every loss is listed");
            for (int i = 1; i < t.eventCount(); i++) {
                assertTrue(t.ts(i - 1) <= t.ts(i), t::toString);
            }
        }
    }
}
