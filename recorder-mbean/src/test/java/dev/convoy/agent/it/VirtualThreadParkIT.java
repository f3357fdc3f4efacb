package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.testapps.VirtualThreadParks;

/**
 * Parks of virtual threads (JDK 21+; skipped on older JDKs): a virtual thread parks through
 * {@code VirtualThread.park}, never {@code Unsafe.park} on its carrier, and the LockSupport hook
 * records it on the virtual thread's own ring. {@link VirtualThreadParks} (200 virtual threads,
 * 3 rounds) sees each of its parks happen; per virtual thread, Convoy's parks must be exactly
 * those: as many on the latch, on the fair lock and on the queue's condition as the app counted
 * and no other, the lock parks with {@code main} as exact owner and FLAG_LOCK, each park ended
 * by an UNPARK of that thread recorded between its PARK and PARKED (by {@code main} for the
 * queue, which puts the item). No assertion is on time.
 */
class VirtualThreadParkIT {

    private static final int THREADS = 200;
    private static final int ROUNDS = 3;

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    /** An UNPARK as the target sees it: when, and by which thread. */
    private record Unpark(long ts, long by) {
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void virtualThreadsParkOnALockAQueueAndALatch(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        assumeTrue(jdk.feature() >= 21, () -> jdk + " has no virtual threads (JDK 21 and later): skipped");
        ChildJvm.Result res = ChildJvm.run(jdk, work, ChildJvm.dumping("buffer=1m,memory=512m"),
                VirtualThreadParks.class.getName(), Integer.toString(THREADS), Integer.toString(ROUNDS))
                .assertSucceeded();
        String out = res.stdout();
        assertTrue(out.contains(VirtualThreadParks.NAME + " OK "), out);
        assertFalse(res.stderr().contains("parks are not recorded"), res.stderr());
        Recording r = res.recording();
        long main = Recordings.field(out, "mainId");
        List<Long> ids = Recordings.longs(out, "threadIds");
        List<Long> latchParks = Recordings.longs(out, "latchParks");
        List<Long> lockParks = Recordings.longs(out, "lockParks");
        List<Long> takeParks = Recordings.longs(out, "takeParks");
        assertEquals(THREADS, ids.size());
        assertEquals(0, Recordings.threadById(r, main).overwritten(), "main's unparks all kept");

        Map<Long, List<Unpark>> unparks = new HashMap<>();
        for (RecordedThread t : r.threads()) {
            for (Event e : ParkIT.of(t, EventType.UNPARK)) {
                unparks.computeIfAbsent(e.arg2(), k -> new ArrayList<>()).add(new Unpark(e.ts(), t.javaThreadId()));
            }
        }
        for (int i = 0; i < ids.size(); i++) {
            long id = ids.get(i);
            RecordedThread t = Recordings.threadById(r, id);
            assertEquals(VirtualThreadParks.THREAD_PREFIX + i, t.name());
            List<Event> parks = ParkIT.pairs(t, false);
            List<Event> ends = ParkIT.of(t, EventType.PARKED);
            assertEquals(parks.size(), ends.size());
            Map<String, Long> perBlocker = new HashMap<>();
            for (int k = 0; k < parks.size(); k++) {
                Event p = parks.get(k);
                Event end = ends.get(k);
                String cls = r.objectClassName(p.obj());
                perBlocker.merge(cls, 1L, Long::sum);
                assertEquals(0, p.arg(), () -> "untimed: " + p);
                assertNotEquals(0, p.stackId(), "PARK has a stack");
                assertEquals(0, end.flags() & (SnapshotFormat.FLAG_TIMED_OUT | SnapshotFormat.FLAG_INTERRUPTED),
                        end::toString);
                if (cls.equals(VirtualThreadParks.LOCK_BLOCKER)) {
                    assertTrue(ParkIT.has(p, SnapshotFormat.FLAG_LOCK), p::toString);
                    assertEquals(main, p.arg2(), () -> t.name() + " parked on the lock main held: " + p);
                } else {
                    assertFalse(ParkIT.has(p, SnapshotFormat.FLAG_LOCK), p::toString);
                    assertEquals(-1, p.arg2(), () -> "a latch or a condition has no owner: " + p);
                }
                List<Unpark> woke = unparks.getOrDefault(id, List.of()).stream()
                        .filter(u -> u.ts() > p.ts() && u.ts() < end.ts()).toList();
                assertFalse(woke.isEmpty(), () -> t.name() + ": no UNPARK between " + p + " and " + end);
                if (cls.equals(VirtualThreadParks.CONDITION)) {
                    assertTrue(woke.stream().anyMatch(u -> u.by() == main), () -> t.name()
                            + ": main's put woke the take: " + woke);
                }
            }
            assertEquals(Map.of(VirtualThreadParks.LATCH_BLOCKER, latchParks.get(i),
                    VirtualThreadParks.LOCK_BLOCKER, lockParks.get(i),
                    VirtualThreadParks.CONDITION, takeParks.get(i)), perBlocker,
                    () -> t.name() + ": Convoy's parks per blocker class against the parks the app saw");
        }
    }
}
