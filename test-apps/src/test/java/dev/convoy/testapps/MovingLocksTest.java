package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class MovingLocksTest {

    @Test
    @Timeout(60)
    void everyThreadWaitsAndParksOnceARoundAndTheSummaryListsEveryLock() throws InterruptedException {
        MovingLocks.Result r = MovingLocks.create(3, 5, 40, 10).run();
        assertTrue(r.ok(), r.summary());
        assertEquals(120, r.waits());
        assertEquals(120, r.parks());
        assertEquals(5, r.hashes().size());
        assertTrue(r.summary().startsWith("moving-locks OK threads=3 rounds=40 waits=120 parks=120 hashes="),
                r.summary());
    }

    @Test
    @Timeout(60)
    void freshLocksAreListedPerThreadInRoundOrder() throws InterruptedException {
        MovingLocks.Result r = MovingLocks.create(2, 0, 30, 10).run();
        assertTrue(r.ok(), r.summary());
        assertEquals(0, r.hashes().size());
        assertEquals(2, r.perRound().size());
        assertEquals(30, r.perRound().get(0).size());
        assertEquals(3, r.summary().lines().count());
        assertTrue(r.summary().lines().skip(1).allMatch(l -> l.startsWith("moving-locks OK thread=moving-")),
                r.summary());
    }

    @Test
    void rejectsZeroThreads() {
        assertThrows(IllegalArgumentException.class, () -> MovingLocks.create(0, 1, 1, 1));
    }
}
