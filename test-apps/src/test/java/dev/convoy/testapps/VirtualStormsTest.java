package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The virtual-thread storms reach their own ground truth (JDK 21+), and say so on an older JDK. */
@Timeout(60)
class VirtualStormsTest {

    private static void assumeVirtualThreads() {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21+: skipped on " + Runtime.version());
    }

    @Test
    void monitorStormBlocksEveryThreadOnce() throws InterruptedException {
        assumeVirtualThreads();
        VirtualStorm.Result r = VirtualMonitorStorm.create(200).run();
        assertTrue(r.ok(), r.summary());
        assertEquals(200, r.acquired());
        for (int i = 0; i < 200; i++) {
            assertTrue(r.enterAt().get(i) <= r.observedAt() && r.acquiredAt().get(i) >= r.releasedAt(), r.summary());
        }
        assertEquals(-1, r.maxMemoryInUse(), "no Convoy in this JVM");
    }

    @Test
    void lockStormParksEveryThread() throws InterruptedException {
        assumeVirtualThreads();
        VirtualStorm.Result r = VirtualLockStorm.create(200).run();
        assertTrue(r.ok(), r.summary());
        assertEquals(200, r.acquired());
    }

    @Test
    void blockOnceRunsItsBatches() throws InterruptedException {
        assumeVirtualThreads();
        VirtualBlockOnce.Result r = VirtualBlockOnce.create(2_500).run();
        assertTrue(r.ok(), r.summary());
        assertEquals(3, r.batchStart().size());
        assertEquals(2_500, r.threadIds().stream().distinct().count());
    }

    @Test
    void theySaySoOnAJdkWithoutVirtualThreads() {
        assumeTrue(Runtime.version().feature() < 21, "this JDK has virtual threads");
        for (Scenario s : new Scenario[] {VirtualMonitorStorm.create(1), VirtualLockStorm.create(1),
            VirtualBlockOnce.create(1)}) {
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, s::run);
            assertTrue(e.getMessage().contains("JDK 21"), e.getMessage());
        }
    }
}
