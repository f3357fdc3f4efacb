package dev.convoy.probes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The wrappers in a JVM where record0 is not bound (no agent): each performs the original
 * call with the same result and exceptions, and never reaches the native.
 */
@Timeout(60)
class ProbesEarlyPathTest {

    @Test
    void notBoundWithoutTheAgent() {
        assertFalse(Probes.isBound());
    }

    @Test
    void sleepReturnsAndRejectsWhatThreadSleepRejects() throws Exception {
        long t0 = System.nanoTime();
        Probes.sleep(1);
        Probes.sleep(1, 500);
        assertTrue(System.nanoTime() - t0 >= 1_000_000);
        assertThrows(IllegalArgumentException.class, () -> Probes.sleep(-1));
        assertThrows(IllegalArgumentException.class, () -> Probes.sleep(1, 1_000_000));
    }

    @Test
    void notifyNeedsTheMonitorLikeObjectNotify() throws Exception {
        Object monitor = new Object();
        synchronized (monitor) {
            Probes.notify(monitor);
            Probes.notifyAll(monitor);
            Probes.wait(monitor, 1);
            Probes.wait(monitor, 1, 1);
        }
        assertThrows(IllegalMonitorStateException.class, () -> Probes.notify(monitor));
        assertThrows(IllegalMonitorStateException.class, () -> Probes.notifyAll(monitor));
        assertThrows(IllegalMonitorStateException.class, () -> Probes.wait(monitor));
        assertThrows(NullPointerException.class, () -> Probes.notify(null));
    }

    @Test
    void startInterruptAndJoinBehaveLikeThreads() throws Exception {
        Object monitor = new Object();
        AtomicBoolean interrupted = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            synchronized (monitor) {
                try {
                    Probes.wait(monitor);
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
            }
        }, "probes-waiter");
        Probes.start(waiter);
        assertThrows(IllegalThreadStateException.class, () -> Probes.start(waiter));
        while (waiter.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        Probes.interrupt(waiter);
        Probes.join(waiter, 10_000);
        assertFalse(waiter.isAlive());
        assertTrue(interrupted.get(), "InterruptedException reached the waiter through Probes.wait");
        Probes.join(waiter);
        Probes.join(waiter, 1, 1);

        AtomicReference<Throwable> fromSleep = new AtomicReference<>();
        Thread sleeper = new Thread(() -> {
            try {
                Probes.sleep(60_000);
            } catch (Throwable e) {
                fromSleep.set(e);
            }
        });
        sleeper.start();
        Probes.interrupt(sleeper);
        Probes.join(sleeper);
        assertTrue(fromSleep.get() instanceof InterruptedException, String.valueOf(fromSleep.get()));

        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> Probes.sleep(10_000));
        assertFalse(Thread.interrupted(), "the interrupt status is cleared as by Thread.sleep");
    }

    @Test
    void durationOverloadsOnJdk19AndLater() throws Exception {
        assumeTrue(Runtime.version().feature() >= 19, "Thread.sleep(Duration) exists from JDK 19 on");
        Probes.sleep(Duration.ofMillis(1));
        Thread t = new Thread(() -> { });
        t.start();
        assertTrue(Probes.join(t, Duration.ofSeconds(10)));
        assertEquals(Thread.State.TERMINATED, t.getState());
    }
}
