package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The park scenarios (java.util.concurrent locks and queues) reach their own ground truth. */
@Timeout(60)
class ParkScenariosTest {

    @Test
    void reentrantLockStormCountsItsContention() {
        ReentrantLockStorm.Result r = ReentrantLockStorm.create(3, 500).run();
        assertEquals(1_500, r.counter());
        assertEquals(3, r.queuedAtStart());
        assertEquals(Thread.currentThread().getId(), r.ownerAtStart());
        assertEquals(List.of("rls-0", "rls-1", "rls-2"), r.threadNames());
        assertTrue(r.contended().stream().allMatch(c -> c >= 1 && c <= 500), r.summary());
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void blockingQueueHandoffParksOnEmptyAndFull() throws InterruptedException {
        BlockingQueueHandoff.Result r = BlockingQueueHandoff.create(50).run();
        assertTrue(r.consumerParkedOnEmpty());
        assertTrue(r.producerParkedOnFull());
        assertEquals(50, r.taken());
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void readWriteWaitParksTheWriterThenTheLateReader() {
        ReadWriteWait.Result r = ReadWriteWait.create(2).run();
        assertTrue(r.writerWaitedForReaders());
        assertTrue(r.lateReaderWaitedForWriter());
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void semaphoreWaitTimesOutAndIsInterrupted() {
        SemaphoreWait.Result r = SemaphoreWait.create(10).run();
        assertTrue(r.waiterAcquired());
        assertTrue(r.timedOut());
        assertTrue(r.interrupted());
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void latchWaitReleasesEveryWaiter() {
        LatchWait.Result r = LatchWait.create(2).run();
        assertEquals(2, r.parkedBeforeCountDown());
        assertEquals(2, r.released());
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void idlePoolWorkersParkInTake() {
        IdlePool.Result r = IdlePool.create(2).run();
        assertEquals(2, r.idleWorkers());
        assertEquals(List.of("pool-worker-0", "pool-worker-1"), r.threadNames());
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void lockDeadlockIsDetectedByTheJvm() {
        LockDeadlock.Result r = LockDeadlock.create().run();
        assertTrue(r.jvmDetected());
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void mixedDeadlockIsDetectedByTheJvm() {
        MixedDeadlock.Result r = MixedDeadlock.create().run();
        assertTrue(r.aParkedOnLock());
        assertTrue(r.bBlockedOnMonitor());
        assertTrue(r.jvmDetected());
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void badArgumentsAreUsageErrors() {
        assertEquals(Cli.USAGE, Cli.execute(new java.io.PrintStream(new java.io.ByteArrayOutputStream()),
                ReentrantLockStorm.NAME, "usage", () -> ReentrantLockStorm.create(0, 1)));
    }
}
