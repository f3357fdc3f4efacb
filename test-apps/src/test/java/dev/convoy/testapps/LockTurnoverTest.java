package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class LockTurnoverTest {

    @Test
    @Timeout(60)
    void everyLockIsWaitedOnOnceInBatchesWithoutBlocking() {
        LockTurnover.Result r = LockTurnover.create(5_000, 1_000, -1).run();
        assertTrue(r.ok(), r.summary());
        assertEquals(5_000, r.waits());
        assertEquals(5, r.batches());
        assertEquals(-1, r.memoryCap(), "no agent in this JVM");
        assertEquals(0, r.samples());
        assertTrue(!Thread.currentThread().isInterrupted(), "the interrupt does not leak out");
    }

    @Test
    void rejectsZeroLocks() {
        assertThrows(IllegalArgumentException.class, () -> LockTurnover.create(0, 1, -1));
    }
}
