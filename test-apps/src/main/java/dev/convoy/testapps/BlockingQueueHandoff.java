package dev.convoy.testapps;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A producer and a consumer on an {@link ArrayBlockingQueue} of capacity 2, in two deterministic
 * phases: the consumer starts first and parks in {@code take()} on the empty queue (its
 * {@code notEmpty} condition) before the producer exists; after its first item the consumer
 * stops until the producer, which puts on, is parked in {@code put()} on the full queue
 * ({@code notFull}). Then all {@code items} flow through. Parks on a condition wait, they do
 * not acquire a lock; the producer's puts unpark the consumer and vice versa.
 *
 * <p>Threads: {@code abq-producer}, {@code abq-consumer}. Blocker class of both phases:
 * {@code java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject}.
 */
public final class BlockingQueueHandoff implements Scenario {

    public static final String NAME = "abq-handoff";
    public static final String PRODUCER = "abq-producer";
    public static final String CONSUMER = "abq-consumer";
    public static final String CONDITION = "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject";
    public static final int DEFAULT_ITEMS = 1_000;

    /**
     * @param consumerParkedOnEmpty the consumer was seen parked in take() before the first put
     * @param producerParkedOnFull  the producer was seen parked in put() on the full queue
     * @param taken                 items the consumer took; equals {@code items}
     */
    public record Result(int items, int taken, long sum, boolean consumerParkedOnEmpty, boolean producerParkedOnFull,
                         List<String> threadNames, List<Long> threadIds) implements ScenarioResult {

        @Override
        public boolean ok() {
            return taken == items && sum == (long) items * (items + 1) / 2 && consumerParkedOnEmpty
                    && producerParkedOnFull;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "items", items, "taken", taken, "sum", sum,
                    "consumerParkedOnEmpty", consumerParkedOnEmpty, "producerParkedOnFull", producerParkedOnFull,
                    "threadNames", threadNames, "threadIds", threadIds);
        }
    }

    private final int items;

    private BlockingQueueHandoff(int items) {
        if (items < 4) {
            throw new IllegalArgumentException("items must be >= 4");
        }
        this.items = items;
    }

    public static BlockingQueueHandoff create(int items) {
        return new BlockingQueueHandoff(items);
    }

    public static BlockingQueueHandoff create() {
        return create(DEFAULT_ITEMS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() throws InterruptedException {
        ArrayBlockingQueue<Integer> queue = new ArrayBlockingQueue<>(2);
        CountDownLatch goOn = new CountDownLatch(1);
        int[] taken = {0};
        long[] sum = {0};
        Threads.Failures failures = new Threads.Failures();
        Thread consumer = Threads.start(CONSUMER, failures, () -> {
            for (int i = 0; i < items; i++) {
                int v = queue.take();
                taken[0]++;
                sum[0] += v;
                if (i == 0 && !goOn.await(Threads.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("never told to go on");
                }
            }
        });
        boolean parkedOnEmpty = Threads.await(() -> Threads.isParkedOn(consumer, CONDITION), Threads.TIMEOUT)
                && queue.isEmpty();
        Thread producer = Threads.start(PRODUCER, failures, () -> {
            for (int i = 1; i <= items; i++) {
                queue.put(i);
            }
        });
        boolean parkedOnFull = Threads.await(() -> queue.remainingCapacity() == 0
                && Threads.isParkedOn(producer, CONDITION), Threads.TIMEOUT);
        goOn.countDown();
        Threads.awaitTermination(List.of(consumer, producer));
        failures.check();
        return new Result(items, taken[0], sum[0], parkedOnEmpty, parkedOnFull, List.of(PRODUCER, CONSUMER),
                List.of(producer.getId(), consumer.getId()));
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "BlockingQueueHandoff [items=" + DEFAULT_ITEMS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "items", DEFAULT_ITEMS, 4));
        }));
    }
}
