package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A chain of joins: {@code main} starts {@code join-0}; {@code join-i} starts {@code join-(i+1)}
 * and then {@code join()}s it; the tail {@code join-(N-1)} waits (park-based latch) until
 * {@code run()} has seen every other chain thread WAITING in its join, then ends. The chain then
 * unwinds, so threads end in the order {@code join-(N-1), ..., join-0}.
 *
 * <p>{@code Thread.join()} on a platform thread is {@code Thread.wait(0)} on the joined
 * {@code java.lang.Thread} (JDK 17 and 25), woken by the {@code notifyAll} of thread exit. So a
 * recording holds exactly {@code N-1} untimed waits (one per {@code join-i}, {@code i < N-1}) on
 * monitors of class {@code java.lang.Thread}, each ending with {@code timed_out=false}
 * (more only on a spurious wake-up). {@code main} itself never joins.
 *
 * <p>Threads: {@code join-0 .. join-(N-1)}. Monitor class: {@code java.lang.Thread}.
 */
public final class JoinChain implements Scenario {

    public static final String NAME = "join-chain";
    public static final String THREAD_PREFIX = "join-";
    public static final int DEFAULT_LENGTH = 5;

    /**
     * @param startOrder       names in the order the threads were started ({@code join-0} first)
     * @param terminationOrder names in the order the threads finished ({@code join-(N-1)} first)
     * @param joinsObserved    chain threads seen WAITING in {@code join()} on their successor
     *                         before the tail was released; always {@code length - 1}
     */
    public record Result(int length, List<String> startOrder, List<String> terminationOrder,
                         int joinsObserved) implements ScenarioResult {

        /** {@code join-(N-1), ..., join-0}. */
        public List<String> expectedTerminationOrder() {
            List<String> expected = new ArrayList<>();
            for (int i = length - 1; i >= 0; i--) {
                expected.add(THREAD_PREFIX + i);
            }
            return expected;
        }

        @Override
        public boolean ok() {
            return terminationOrder.equals(expectedTerminationOrder()) && joinsObserved == length - 1;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "length", length, "startOrder", startOrder,
                    "terminationOrder", terminationOrder, "joinsObserved", joinsObserved,
                    "lock", Thread.class.getName());
        }
    }

    private final int length;

    private JoinChain(int length) {
        if (length < 1) {
            throw new IllegalArgumentException("length must be >= 1");
        }
        this.length = length;
    }

    public static JoinChain create(int length) {
        return new JoinChain(length);
    }

    public static JoinChain create() {
        return create(DEFAULT_LENGTH);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        AtomicReferenceArray<Thread> threads = new AtomicReferenceArray<>(length);
        Queue<String> started = new ConcurrentLinkedQueue<>();
        Queue<String> finished = new ConcurrentLinkedQueue<>();
        CountDownLatch releaseTail = new CountDownLatch(1);
        Threads.Failures failures = new Threads.Failures();
        startLink(0, threads, started, finished, releaseTail, failures);

        int joinsObserved = 0;
        for (int i = 0; i < length - 1; i++) {
            int index = i;
            Threads.require(() -> threads.get(index) != null && threads.get(index + 1) != null
                            && Threads.isWaitingOn(threads.get(index), threads.get(index + 1)),
                    THREAD_PREFIX + i + " WAITING in join() of " + THREAD_PREFIX + (i + 1));
            joinsObserved++;
        }
        Threads.require(() -> threads.get(length - 1) != null, THREAD_PREFIX + (length - 1) + " to start");
        releaseTail.countDown();

        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < length; i++) {
            all.add(threads.get(i));
        }
        Threads.awaitTermination(all);
        failures.check();
        return new Result(length, List.copyOf(started), List.copyOf(finished), joinsObserved);
    }

    private void startLink(int i, AtomicReferenceArray<Thread> threads, Queue<String> started,
                           Queue<String> finished, CountDownLatch releaseTail, Threads.Failures failures) {
        String name = THREAD_PREFIX + i;
        started.add(name); // recorded before start(), so the start order is exact
        Thread t = Threads.start(name, failures, () -> {
            try {
                if (i + 1 < length) {
                    startLink(i + 1, threads, started, finished, releaseTail, failures);
                    threads.get(i + 1).join();
                } else if (!releaseTail.await(Threads.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("tail was never released");
                }
            } finally {
                finished.add(Thread.currentThread().getName());
            }
        });
        threads.set(i, t);
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "JoinChain [length=" + DEFAULT_LENGTH + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "length", DEFAULT_LENGTH, 1));
        }));
    }
}
