package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * One {@link HandoffLock} passed along a chain of threads in a fixed order, each hand-off
 * contended. {@code run()} (on the calling thread) takes the lock, starts {@code handoff-0}, waits
 * until it is BLOCKED on the lock and releases it. Each {@code handoff-i}, once it owns the lock,
 * appends its name to the acquisition order, starts {@code handoff-(i+1)}, waits until that
 * thread is BLOCKED on the lock, and releases it. The successor is the only thread contending,
 * so the lock is handed over in exactly the order {@code handoff-0 .. handoff-(N-1)}.
 *
 * <p>A recording therefore holds exactly one MonitorContendedEnter/Entered pair per chain thread,
 * in name order (the caller's own first acquisition is uncontended), and no other contention on
 * the lock.
 *
 * <p>Threads: {@code handoff-0 .. handoff-(N-1)}. Monitor class: {@code dev.convoy.testapps.HandoffChain$HandoffLock}.
 */
public final class HandoffChain implements Scenario {

    public static final String NAME = "handoff-chain";
    public static final String THREAD_PREFIX = "handoff-";
    public static final int DEFAULT_THREADS = 6;

    /** The monitor handed along the chain; fields guarded by it. */
    public static final class HandoffLock {
        final List<String> acquisitionOrder = new ArrayList<>();
        int contendedHandoffs;
    }

    /**
     * @param acquisitionOrder  thread names in the order they acquired the lock
     * @param contendedHandoffs hand-offs where the next thread was seen BLOCKED on the lock before
     *                          the holder released it (including the caller's hand-off to handoff-0)
     */
    public record Result(int threads, List<String> acquisitionOrder, int contendedHandoffs,
                         String lockClassName) implements ScenarioResult {

        /** {@code handoff-0 .. handoff-(N-1)}. */
        public List<String> expectedOrder() {
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                expected.add(THREAD_PREFIX + i);
            }
            return expected;
        }

        @Override
        public boolean ok() {
            return acquisitionOrder.equals(expectedOrder()) && contendedHandoffs == threads;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "threads", threads, "acquisitionOrder", acquisitionOrder,
                    "contendedHandoffs", contendedHandoffs, "lock", lockClassName);
        }
    }

    private final int threads;

    private HandoffChain(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1");
        }
        this.threads = threads;
    }

    public static HandoffChain create(int threads) {
        return new HandoffChain(threads);
    }

    public static HandoffChain create() {
        return create(DEFAULT_THREADS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() throws InterruptedException {
        HandoffLock lock = new HandoffLock();
        AtomicReferenceArray<Thread> chain = new AtomicReferenceArray<>(threads);
        CountDownLatch done = new CountDownLatch(threads);
        Threads.Failures failures = new Threads.Failures();
        synchronized (lock) {
            Thread first = startLink(0, lock, chain, done, failures);
            Threads.awaitBlockedOn(first, lock);
            lock.contendedHandoffs++;
        }
        // park-based latch: adds no monitor events; then make sure every thread has ended
        if (!done.await(Threads.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            failures.check();
            throw new IllegalStateException("timed out waiting for the hand-off chain to finish");
        }
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            all.add(chain.get(i));
        }
        Threads.awaitTermination(all);
        failures.check();
        synchronized (lock) {
            return new Result(threads, List.copyOf(lock.acquisitionOrder), lock.contendedHandoffs,
                    HandoffLock.class.getName());
        }
    }

    private Thread startLink(int i, HandoffLock lock, AtomicReferenceArray<Thread> chain,
                             CountDownLatch done, Threads.Failures failures) {
        Thread t = Threads.start(THREAD_PREFIX + i, failures, () -> {
            try {
                synchronized (lock) {
                    lock.acquisitionOrder.add(Thread.currentThread().getName());
                    if (i + 1 < threads) {
                        Thread next = startLink(i + 1, lock, chain, done, failures);
                        Threads.awaitBlockedOn(next, lock);
                        lock.contendedHandoffs++;
                    }
                }
            } finally {
                done.countDown();
            }
        });
        chain.set(i, t);
        return t;
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "HandoffChain [threads=" + DEFAULT_THREADS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 1));
        }));
    }
}
