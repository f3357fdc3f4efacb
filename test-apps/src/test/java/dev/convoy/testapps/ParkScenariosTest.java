package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
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
    void reentrantLockStormRunsOneStormPerStdinLine() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = ReentrantLockStorm.runPerLine(new BufferedReader(new StringReader("a\nb\n")),
                new PrintStream(out, true, StandardCharsets.UTF_8), 2, 100);
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(0, code, lines::toString);
        assertEquals(ReentrantLockStorm.READY, lines.get(0));
        assertEquals(3, lines.size(), lines::toString);
        assertTrue(lines.get(1).startsWith(ReentrantLockStorm.NAME + " OK "), lines::toString);
        assertTrue(lines.get(2).startsWith(ReentrantLockStorm.NAME + " OK "), lines::toString);
        assertNotEquals(lines.get(1).replaceAll(".*threadIds=(\\S+).*", "$1"),
                lines.get(2).replaceAll(".*threadIds=(\\S+).*", "$1"), "each storm on fresh threads");
    }

    @Test
    void virtualThreadParksSeesEveryPark() throws InterruptedException {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21+: skipped on " + Runtime.version());
        VirtualThreadParks.Result r = VirtualThreadParks.create(20, 2).run();
        assertEquals(40, r.acquired());
        assertEquals(40, r.taken());
        assertEquals(20, r.threadIds().size());
        assertTrue(r.lockParks().stream().allMatch(n -> n == 2), r.summary());
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void virtualThreadParksSaysSoOnAJdkWithoutVirtualThreads() {
        assumeTrue(Runtime.version().feature() < 21, "this JDK has virtual threads");
        UnsupportedOperationException e = assertThrows(
                UnsupportedOperationException.class, () -> VirtualThreadParks.create(1, 1).run());
        assertTrue(e.getMessage().contains("JDK 21"), e.getMessage());
    }

    @Test
    void badArgumentsAreUsageErrors() {
        assertEquals(Cli.USAGE, Cli.execute(new PrintStream(new ByteArrayOutputStream()),
                ReentrantLockStorm.NAME, "usage", () -> ReentrantLockStorm.create(0, 1)));
    }
}
