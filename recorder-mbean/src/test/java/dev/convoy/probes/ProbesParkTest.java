package dev.convoy.probes;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.AbstractQueuedLongSynchronizer;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Java part of the park path: FLAG_LOCK and parkUntil's timeout. */
@Timeout(60)
class ProbesParkTest {

    /** The blocker a thread running {@code body} parks on (read with LockSupport.getBlocker). */
    private static Object blockerOf(Runnable body, Runnable release) throws InterruptedException {
        Thread t = new Thread(body);
        t.setDaemon(true);
        t.start();
        Object b;
        while ((b = LockSupport.getBlocker(t)) == null) {
            Thread.onSpinWait();
        }
        release.run();
        t.join();
        return b;
    }

    @Test
    void lockFlagMarksLocksNotLatchesOrConditions() throws InterruptedException {
        ReentrantLock lock = new ReentrantLock();
        lock.lock();
        Object sync = blockerOf(() -> {
            lock.lock();
            lock.unlock();
        }, lock::unlock);
        assertEquals(4, Probes.lockFlag(sync));
        Semaphore sem = new Semaphore(0);
        assertEquals(4, Probes.lockFlag(blockerOf(sem::acquireUninterruptibly, sem::release)));
        CountDownLatch latch = new CountDownLatch(1);
        assertEquals(0, Probes.lockFlag(blockerOf(() -> {
            try {
                latch.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, latch::countDown)));
        assertEquals(4, Probes.lockFlag(new AbstractQueuedSynchronizer() { }));
        assertEquals(4, Probes.lockFlag(new AbstractQueuedLongSynchronizer() { }));
        assertEquals(0, Probes.lockFlag(new ReentrantLock().newCondition()));
        assertEquals(0, Probes.lockFlag(null));
        assertEquals(0, Probes.lockFlag("x"));
    }

    @Test
    void untilNanosIsTheRemainingTimeAtLeastOneSaturated() {
        assertEquals(5_000_000, Probes.untilNanos(105, 100));
        assertEquals(1, Probes.untilNanos(100, 100));
        assertEquals(1, Probes.untilNanos(0, 100));
        assertEquals(Long.MAX_VALUE, Probes.untilNanos(Long.MAX_VALUE, 0));
        assertEquals(Long.MAX_VALUE, Probes.untilNanos(Long.MAX_VALUE, -5));
        assertEquals(1, Probes.untilNanos(Long.MIN_VALUE, 5));
    }
}
