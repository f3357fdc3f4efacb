package dev.convoy.testapps.bench.suite;

import dev.convoy.testapps.HandoffChain;
import dev.convoy.testapps.bench.suite.Workloads.ContendedLock;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The monitor workloads of {@link Workloads}, each with its ground truth: {@code contended}
 * (synchronized increments on one {@link ContendedLock}, against the JVM's own count of contended
 * enters) and {@code handoff} ({@link HandoffChain} repeated, exactly threads x rounds contended
 * enters on {@code HandoffChain$HandoffLock}).
 */
final class LockWorkloads {

    private LockWorkloads() {
    }

    static void contended(int threads, int iterations, int work, int yieldEvery,
                          Map<String, Object> out) throws InterruptedException {
        ContendedLock lock = new ContendedLock();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        AtomicLong blocked = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        long start;
        synchronized (lock) {
            for (int i = 0; i < threads; i++) {
                Thread t = new Thread(() -> {
                    for (int k = 0; k < iterations; k++) {
                        synchronized (lock) {
                            lock.counter++;
                            long x = lock.x + k;
                            for (int j = 0; j < work; j++) {
                                x = x * 6364136223846793005L + 1442695040888963407L;
                            }
                            lock.x = x;
                            if (yieldEvery > 0 && k % yieldEvery == 0) {
                                Thread.yield(); // give up the CPU while holding the lock: waiters block
                            }
                        }
                    }
                    ThreadInfo ti = mx.getThreadInfo(Thread.currentThread().getId());
                    blocked.addAndGet(ti.getBlockedCount());
                }, "contended-" + i);
                t.start();
                workers.add(t);
            }
            for (Thread t : workers) {
                awaitState(t, Thread.State.BLOCKED);
            }
            start = System.nanoTime();
        }
        for (Thread t : workers) {
            t.join();
        }
        long nanos = System.nanoTime() - start;
        long ops = (long) threads * iterations;
        synchronized (lock) {
            if (lock.counter != ops) {
                throw new IllegalStateException("counter " + lock.counter + " != " + ops);
            }
        }
        out.put("ops", ops);
        out.put("ns_per_op", (double) nanos / ops);
        out.put("truth_enter", blocked.get());
        out.put("lock", ContendedLock.class.getName());
    }

    private static void awaitState(Thread t, Thread.State s) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (t.getState() != s) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(t.getName() + " never reached " + s);
            }
            Thread.sleep(1);
        }
    }

    // --- hand-off chain --------------------------------------------------------------------------

    static void handoff(int threads, int rounds, Map<String, Object> out) throws InterruptedException {
        long start = System.nanoTime();
        long handoffs = 0;
        for (int r = 0; r < rounds; r++) {
            HandoffChain.Result res = HandoffChain.create(threads).run();
            if (!res.ok()) {
                throw new IllegalStateException("hand-off chain failed: " + res.summary());
            }
            handoffs += res.contendedHandoffs();
        }
        long nanos = System.nanoTime() - start;
        out.put("handoffs", handoffs);
        out.put("us_per_handoff", nanos / 1000.0 / handoffs);
        out.put("truth_enter", handoffs);
        out.put("lock", HandoffChain.HandoffLock.class.getName());
    }
}
