package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class LockStormTest {

    @Test
    void everyIncrementLandsAndEveryWorkerWasBlockedAtStart() {
        LockStorm.Result r = LockStorm.create(3, 5_000).run();
        assertEquals(15_000, r.counter());
        assertEquals(r.expectedCounter(), r.counter());
        assertEquals(3, r.blockedAtStart());
        assertEquals(List.of("storm-0", "storm-1", "storm-2"), r.threadNames());
        assertEquals("dev.convoy.testapps.LockStorm$StormLock", r.lockClassName());
        assertTrue(r.ok());
        assertTrue(r.summary().startsWith("lock-storm OK "), r.summary());
    }

    @Test
    void singleThreadSingleIterationStillContends() {
        LockStorm.Result r = LockStorm.create(1, 1).run();
        assertEquals(1, r.counter());
        assertEquals(1, r.blockedAtStart());
    }

    @Test
    void rejectsBadArguments() {
        assertThrows(IllegalArgumentException.class, () -> LockStorm.create(0, 10));
        assertThrows(IllegalArgumentException.class, () -> LockStorm.create(2, 0));
    }
}
