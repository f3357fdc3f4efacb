package dev.convoy.bcifixtures;

import java.util.ArrayList;
import java.util.List;

/**
 * Every probed call site once, in ordinary code: {@link #run()} exercises them and returns
 * what happened, so the same result is expected before and after instrumentation.
 */
public final class CallSites {

    /** Rewritten call sites in this class (javac output, counted by hand). */
    public static final int PROBED_CALL_SITES = 18;

    private static final class Lock {
        boolean done;
    }

    public static List<String> run() throws Exception {
        List<String> log = new ArrayList<>();
        Lock lock = new Lock();

        // Thread.start, join() on a Thread, join(long) and join(long,int) on a Worker (subclass owner)
        Thread waiter = new Thread(() -> {
            synchronized (lock) {
                while (!lock.done) {
                    try {
                        lock.wait(); // Object.wait()
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "fixture-waiter");
        waiter.start();
        Worker w = new Worker("fixture-worker");
        w.start();
        w.join(10_000L);
        w.join(10_000L, 1);
        log.add("worker ran=" + w.ran);

        while (waiter.getState() != Thread.State.WAITING) {
            Thread.sleep(1);                         // Thread.sleep(long)
        }
        synchronized (lock) {
            lock.done = true;
            lock.notifyAll();                        // Object.notifyAll()
            lock.notify();                           // Object.notify()
        }
        waiter.join();
        log.add("waiter done");

        synchronized (lock) {
            lock.wait(1);                            // Object.wait(long)
            lock.wait(1, 1);                         // Object.wait(long,int)
        }
        Thread.sleep(1, 1);                          // Thread.sleep(long,int)
        Worker.sleep(1);                             // Thread.sleep via a subclass owner

        // interrupt() of a sleeping thread: InterruptedException through the probe
        Thread sleeper = new Thread(() -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().setName("fixture-sleeper-interrupted");
            }
        }, "fixture-sleeper");
        sleeper.start();
        while (sleeper.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }
        sleeper.interrupt();
        sleeper.join();
        log.add(sleeper.getName());

        // A static sleep hidden by a subclass is not Thread's: left alone.
        int before = HidingThread.sleeps;
        HidingThread.sleep(1);
        SubWorker.sleep(1);
        log.add("hidden sleeps=" + (HidingThread.sleeps - before));

        // notify on an unowned monitor still throws IllegalMonitorStateException.
        try {
            lock.notify();
            log.add("no exception");
        } catch (IllegalMonitorStateException e) {
            log.add("IllegalMonitorStateException");
        }
        return log;
    }
}
