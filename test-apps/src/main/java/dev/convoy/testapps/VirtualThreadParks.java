package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * N virtual threads (JDK 21 and later) that block, R rounds, on a {@link CountDownLatch}, on a
 * fair {@link ReentrantLock} and in {@link ArrayBlockingQueue#take()}: a virtual thread parks
 * through {@code VirtualThread.park}, its carrier never calls {@code Unsafe.park} for it.
 * {@code main} sees every park happen and counts it per thread, so that each park of the app is
 * known:
 *
 * <ol>
 *   <li>each virtual thread awaits the round's latch; {@code main} waits until all are parked on
 *       it ({@code CountDownLatch$Sync}), then counts down;</li>
 *   <li>{@code main} holds the lock (taken before the count-down); each thread calls
 *       {@code lock()} and parks on it ({@code ReentrantLock$FairSync}, owner {@code main});
 *       when all are parked, {@code main} unlocks and the lock passes from thread to thread in
 *       queue order (fair: nobody barges);</li>
 *   <li>each thread then calls {@code take()} on its own empty queue of capacity 1 and parks on
 *       the queue's {@code notEmpty} condition; once it is parked, {@code main} puts one item
 *       into its queue, and so wakes it. Nothing else takes the queue's lock meanwhile, so the
 *       thread never parks on it.</li>
 * </ol>
 *
 * <p>Every release waits until the threads it wakes are parked, so no unpark reaches a thread
 * that is not parked (it would leave a permit, and the thread's next park would return at once,
 * a park the app did not see): per thread and round exactly one park on the latch, one on the
 * lock and one on the condition, each ended by an unpark. The summary lists, per thread, the
 * parks {@code main} saw ({@code latchParks}, {@code lockParks}, {@code takeParks}).
 *
 * <p>Written against the JDK 17 API (virtual threads through reflection): on an older JDK it
 * fails with a message saying so. Threads: {@code vtp-0 .. vtp-(N-1)}, virtual.
 */
public final class VirtualThreadParks implements Scenario {

    public static final String NAME = "virtual-thread-parks";
    public static final String THREAD_PREFIX = "vtp-";
    public static final String LATCH_BLOCKER = LatchWait.BLOCKER;
    public static final String LOCK_BLOCKER = "java.util.concurrent.locks.ReentrantLock$FairSync";
    public static final String CONDITION = BlockingQueueHandoff.CONDITION;
    public static final int DEFAULT_THREADS = 200;
    public static final int DEFAULT_ROUNDS = 3;

    /**
     * @param mainId     Java thread id of {@code main}, the lock's owner while the threads park on it
     * @param threadIds  Java thread ids of the virtual threads, in name order
     * @param latchParks per thread, the parks on the latch {@code main} saw
     * @param lockParks  per thread, the parks on the lock {@code main} saw (the lock held by {@code main})
     * @param takeParks  per thread, the parks in {@code take()} {@code main} saw
     * @param acquired   lock acquisitions, all threads; equals {@code threads * rounds}
     * @param taken      items taken, all threads; equals {@code threads * rounds}
     */
    public record Result(int threads, int rounds, long mainId, List<Long> threadIds, List<Integer> latchParks,
                         List<Integer> lockParks, List<Integer> takeParks, long acquired, long taken)
            implements ScenarioResult {

        @Override
        public boolean ok() {
            long expected = (long) threads * rounds;
            return acquired == expected && taken == expected && threadIds.size() == threads
                    && latchParks.stream().allMatch(n -> n == rounds) && lockParks.stream().allMatch(n -> n == rounds)
                    && takeParks.stream().allMatch(n -> n == rounds);
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "threads", threads, "rounds", rounds, "mainId", mainId,
                    "acquired", acquired, "taken", taken, "threadIds", threadIds, "latchParks", latchParks,
                    "lockParks", lockParks, "takeParks", takeParks);
        }
    }

    private final int threads;
    private final int rounds;

    private VirtualThreadParks(int threads, int rounds) {
        if (threads < 1 || rounds < 1) {
            throw new IllegalArgumentException("threads and rounds must be >= 1");
        }
        this.threads = threads;
        this.rounds = rounds;
    }

    public static VirtualThreadParks create(int threads, int rounds) {
        return new VirtualThreadParks(threads, rounds);
    }

    public static VirtualThreadParks create() {
        return create(DEFAULT_THREADS, DEFAULT_ROUNDS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() throws InterruptedException {
        ReentrantLock lock = new ReentrantLock(true);
        List<CountDownLatch> go = new ArrayList<>();
        List<ArrayBlockingQueue<Integer>> queues = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            go.add(new CountDownLatch(1));
        }
        for (int i = 0; i < threads; i++) {
            queues.add(new ArrayBlockingQueue<>(1));
        }
        AtomicIntegerArray acquired = new AtomicIntegerArray(threads);
        AtomicIntegerArray taken = new AtomicIntegerArray(threads);
        Threads.Failures failures = new Threads.Failures();
        List<Thread> vts = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            int me = i;
            Thread t = VirtualThreadChurn.virtualThread(() -> {
                try {
                    for (int r = 0; r < rounds; r++) {
                        go.get(r).await();
                        lock.lock();
                        try {
                            acquired.incrementAndGet(me);
                        } finally {
                            lock.unlock();
                        }
                        queues.get(me).take();
                        taken.incrementAndGet(me);
                    }
                } catch (Throwable e) {
                    failures.add(THREAD_PREFIX + me, e);
                }
            });
            t.setName(THREAD_PREFIX + i);
            vts.add(t);
        }
        int[] latchParks = new int[threads];
        int[] lockParks = new int[threads];
        int[] takeParks = new int[threads];
        vts.forEach(Thread::start);
        for (int r = 0; r < rounds; r++) {
            int round = r;
            for (int i = 0; i < threads; i++) {
                Threads.awaitParkedOn(vts.get(i), LATCH_BLOCKER);
                latchParks[i]++;
            }
            lock.lock();
            try {
                go.get(r).countDown();
                for (int i = 0; i < threads; i++) {
                    Thread t = vts.get(i);
                    Threads.require(() -> lock.hasQueuedThread(t) && Threads.isParkedOn(t, LOCK_BLOCKER),
                            t.getName() + " parked in lock()");
                    lockParks[i]++;
                }
            } finally {
                lock.unlock();
            }
            for (int i = 0; i < threads; i++) {
                Thread t = vts.get(i);
                // Only getState and getBlocker: polling the queue (its size takes its lock) could
                // make the thread park on that lock as it enters take().
                Threads.awaitParkedOn(t, CONDITION);
                takeParks[i]++;
                queues.get(i).put(round);
            }
            for (int i = 0; i < threads; i++) {
                int me = i;
                Threads.require(() -> taken.get(me) == round + 1, vts.get(i).getName() + " took round " + round);
            }
        }
        Threads.awaitTermination(vts);
        failures.check();
        long acq = 0;
        long tk = 0;
        List<Integer> latch = new ArrayList<>();
        List<Integer> locked = new ArrayList<>();
        List<Integer> took = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            acq += acquired.get(i);
            tk += taken.get(i);
            latch.add(latchParks[i]);
            locked.add(lockParks[i]);
            took.add(takeParks[i]);
        }
        return new Result(threads, rounds, Thread.currentThread().getId(), vts.stream().map(Thread::getId).toList(),
                latch, locked, took, acq, tk);
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "VirtualThreadParks [threads=" + DEFAULT_THREADS + "] [rounds="
                + DEFAULT_ROUNDS + "]", () -> {
                    Cli.maxArgs(args, 2);
                    return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 1),
                            Cli.intArg(args, 1, "rounds", DEFAULT_ROUNDS, 1));
                }));
    }
}
