package dev.convoy.testapps.bench.suite;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The java.util.concurrent park workloads of {@link Workloads}: {@code rlpingpong} (two threads
 * pass a turn through a {@link ReentrantLock} and one {@link Condition} per side) and
 * {@code queuehandoff} (a producer and a consumer through an {@link ArrayBlockingQueue} of
 * capacity 1 or a {@link SynchronousQueue}). Every hand-off parks one side and unparks the other:
 * no monitor event.
 *
 * Both count their own parks: {@link ThreadInfo#getWaitedCount()} of both threads over the
 * measured phase (HotSpot counts every {@code Unsafe.park} call there, whether it blocks or
 * returns at once on a pending permit), printed as {@code parks_per_op}.
 */
final class ParkWorkloads {

    private ParkWorkloads() {
    }

    /**
     * Total {@link ThreadInfo#getWaitedCount()} of {@code ids}: on HotSpot, Object.wait calls plus
     * every {@code Unsafe.park} call (JavaThreadParkedState counts it before parking).
     */
    static long waitedCount(ThreadMXBean mx, long... ids) {
        long n = 0;
        for (ThreadInfo ti : mx.getThreadInfo(ids)) {
            if (ti == null) {
                throw new IllegalStateException("a thread of the workload ended early");
            }
            n += ti.getWaitedCount();
        }
        return n;
    }

    /** The parks of a measured phase: {@code parks} over {@code ops} operations. */
    static void putParks(Map<String, Object> out, long parks, long ops, long parksTotal) {
        out.put("parks", parks);
        out.put("parks_per_op", (double) parks / ops);
        out.put("parks_total", parksTotal);
    }

    /** The ReentrantLock ping-pong's shared state. */
    static final class RlPingPong {
        final ReentrantLock lock = new ReentrantLock();
        final Condition turnA = lock.newCondition();
        final Condition turnB = lock.newCondition();
        /** 0: A's turn, 1: B's; guarded by lock. */
        int turn;
        boolean done;
    }

    /**
     * PingPong's hand-off with a ReentrantLock instead of a monitor: A (the main thread) gives the
     * turn to B, signals B's condition and awaits its own; B does the same back. A round trip is
     * two awaits, each one park of the waiting thread, released by the other side's unlock (inside
     * its own await), which unparks it: 2 parks and 2 unparks per round trip when every await
     * blocks, as it does when both threads share one CPU. The loop allocates nothing; the parks
     * actually made are counted ({@link #waitedCount}), not assumed.
     */
    static void rlPingPong(int roundtrips, int warmup, Map<String, Object> out) throws InterruptedException {
        RlPingPong s = new RlPingPong();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Thread b = new Thread(() -> {
            s.lock.lock();
            try {
                while (true) {
                    while (s.turn != 1) {
                        s.turnB.awaitUninterruptibly();
                    }
                    if (s.done) {
                        return;
                    }
                    s.turn = 0;
                    s.turnA.signal();
                }
            } finally {
                s.lock.unlock();
            }
        }, "rlpingpong-b");
        b.setDaemon(true);
        b.start();
        long[] ids = {Thread.currentThread().getId(), b.getId()};
        long start = 0;
        long end;
        long before = 0;
        int total = warmup + roundtrips;
        s.lock.lock();
        try {
            for (int i = 0; i < total; i++) {
                if (i == warmup) {
                    before = waitedCount(mx, ids);
                    start = System.nanoTime();
                }
                s.turn = 1;
                s.turnB.signal();
                while (s.turn != 0) {
                    s.turnA.awaitUninterruptibly();
                }
            }
            end = System.nanoTime();
            long after = waitedCount(mx, ids);
            putParks(out, after - before, roundtrips, after);
            s.done = true;
            s.turn = 1;
            s.turnB.signal();
        } finally {
            s.lock.unlock();
        }
        b.join();
        out.put("roundtrips", roundtrips);
        out.put("warmup", warmup);
        out.put("ns_per_roundtrip", (double) (end - start) / roundtrips);
    }

    /**
     * A producer thread puts one preallocated token {@code warmup + items} times into a queue of
     * capacity 1 ({@code abq}, ArrayBlockingQueue: one ReentrantLock, conditions notFull and
     * notEmpty) or a SynchronousQueue ({@code sync}); the main thread takes them. Sharing one CPU,
     * each side parks once per item: the producer on the full queue, the consumer on the empty
     * one. Timed on the consumer from item {@code warmup} to the last; parks counted, not assumed.
     */
    static void queueHandoff(int items, int warmup, String kind, Map<String, Object> out) throws InterruptedException {
        BlockingQueue<Object> q = switch (kind) {
            case "abq" -> new ArrayBlockingQueue<>(1);
            case "sync" -> new SynchronousQueue<>();
            default -> throw new IllegalArgumentException("queue=abq|sync, not '" + kind + "'");
        };
        Object token = new Object();
        int total = warmup + items;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long[] producerWaited = new long[1];
        Thread producer = new Thread(() -> {
            try {
                for (int i = 0; i < total; i++) {
                    q.put(token);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            producerWaited[0] = waitedCount(mx, Thread.currentThread().getId()); // read before it ends
        }, "queuehandoff-producer");
        producer.setDaemon(true);
        producer.start();
        long[] ids = {Thread.currentThread().getId(), producer.getId()};
        long start = 0;
        long before = 0;
        for (int i = 0; i < total; i++) {
            if (i == warmup) {
                before = waitedCount(mx, ids);
                start = System.nanoTime();
            }
            if (q.take() != token) {
                throw new IllegalStateException("wrong item");
            }
        }
        long end = System.nanoTime();
        long consumerAfter = waitedCount(mx, ids[0]);
        producer.join();
        long after = consumerAfter + producerWaited[0];
        putParks(out, after - before, items, after);
        out.put("queue", kind);
        out.put("items", items);
        out.put("warmup", warmup);
        out.put("ns_per_handoff", (double) (end - start) / items);
    }
}
