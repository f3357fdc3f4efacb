package dev.convoy.testapps;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A bounded buffer guarded by {@code wait}/{@code notifyAll} on one {@link BufferLock}, with P
 * producers and C consumers moving K items.
 *
 * <p>Deterministic waits: the consumers are started first and {@code run()} waits until every
 * one of them is in {@code BufferLock.wait()} on the empty buffer before starting any producer.
 * So each consumer performs at least one untimed wait that ends by notification
 * ({@code timed_out=false}). The result reports the exact number of {@code wait()} calls made by
 * producers and consumers: each call is one MonitorWait/MonitorWaited pair in a recording.
 *
 * <p>Threads: {@code producer-0 .. producer-(P-1)}, {@code consumer-0 .. consumer-(C-1)}.
 * Monitor class: {@code dev.convoy.testapps.ProducerConsumer$BufferLock}.
 */
public final class ProducerConsumer implements Scenario {

    public static final String NAME = "producer-consumer";
    public static final String PRODUCER_PREFIX = "producer-";
    public static final String CONSUMER_PREFIX = "consumer-";
    public static final int DEFAULT_PRODUCERS = 2;
    public static final int DEFAULT_CONSUMERS = 2;
    public static final int DEFAULT_ITEMS = 2_000;
    public static final int DEFAULT_CAPACITY = 4;

    /** The buffer monitor; all fields are guarded by it. */
    public static final class BufferLock {
        final ArrayDeque<Integer> items = new ArrayDeque<>();
        int produced;
        int consumed;
        long producedSum;
        long consumedSum;
        int producerWaits;
        int consumerWaits;
    }

    /**
     * @param producerWaits   number of {@code wait()} calls made by producers (buffer full)
     * @param consumerWaits   number of {@code wait()} calls made by consumers (buffer empty);
     *                        at least {@code consumers}
     * @param consumedPerConsumer items taken by each consumer, indexed like {@code consumerNames}
     */
    public record Result(int producers, int consumers, int items, int capacity,
                         int produced, int consumed, long producedSum, long consumedSum,
                         int producerWaits, int consumerWaits, List<Integer> consumedPerConsumer,
                         List<String> producerNames, List<String> consumerNames,
                         String lockClassName) implements ScenarioResult {

        @Override
        public boolean ok() {
            return produced == items && consumed == items && producedSum == consumedSum
                    && consumerWaits >= consumers;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "producers", producers, "consumers", consumers,
                    "items", items, "capacity", capacity, "produced", produced, "consumed", consumed,
                    "producerWaits", producerWaits, "consumerWaits", consumerWaits,
                    "consumedPerConsumer", consumedPerConsumer,
                    "producerNames", producerNames, "consumerNames", consumerNames,
                    "lock", lockClassName);
        }
    }

    private final int producers;
    private final int consumers;
    private final int items;
    private final int capacity;

    private ProducerConsumer(int producers, int consumers, int items, int capacity) {
        if (producers < 1 || consumers < 1 || items < 1 || capacity < 1) {
            throw new IllegalArgumentException("producers, consumers, items and capacity must be >= 1");
        }
        this.producers = producers;
        this.consumers = consumers;
        this.items = items;
        this.capacity = capacity;
    }

    public static ProducerConsumer create(int producers, int consumers, int items, int capacity) {
        return new ProducerConsumer(producers, consumers, items, capacity);
    }

    public static ProducerConsumer create(int producers, int consumers, int items) {
        return create(producers, consumers, items, DEFAULT_CAPACITY);
    }

    public static ProducerConsumer create() {
        return create(DEFAULT_PRODUCERS, DEFAULT_CONSUMERS, DEFAULT_ITEMS, DEFAULT_CAPACITY);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        BufferLock buf = new BufferLock();
        Threads.Failures failures = new Threads.Failures();
        int[] perConsumer = new int[consumers];
        List<Thread> consumerThreads = new ArrayList<>();
        List<Thread> producerThreads = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
            int index = c;
            consumerThreads.add(Threads.start(CONSUMER_PREFIX + c, failures,
                    () -> perConsumer[index] = consume(buf)));
        }
        for (Thread c : consumerThreads) {
            Threads.awaitWaitingOn(c, buf);
        }
        for (int p = 0; p < producers; p++) {
            int share = items / producers + (p < items % producers ? 1 : 0);
            producerThreads.add(Threads.start(PRODUCER_PREFIX + p, failures, () -> produce(buf, share)));
        }
        List<Thread> all = new ArrayList<>(producerThreads);
        all.addAll(consumerThreads);
        Threads.awaitTermination(all);
        failures.check();
        synchronized (buf) {
            return new Result(producers, consumers, items, capacity, buf.produced, buf.consumed,
                    buf.producedSum, buf.consumedSum, buf.producerWaits, buf.consumerWaits,
                    Arrays.stream(perConsumer).boxed().toList(), Threads.names(producerThreads),
                    Threads.names(consumerThreads), BufferLock.class.getName());
        }
    }

    private void produce(BufferLock buf, int share) throws InterruptedException {
        for (int n = 0; n < share; n++) {
            synchronized (buf) {
                while (buf.items.size() >= capacity) {
                    buf.producerWaits++;
                    buf.wait();
                }
                int value = buf.produced++;
                buf.items.addLast(value);
                buf.producedSum += value;
                buf.notifyAll();
            }
        }
    }

    /** Returns the number of items this consumer took. */
    private int consume(BufferLock buf) throws InterruptedException {
        int taken = 0;
        while (true) {
            synchronized (buf) {
                while (buf.items.isEmpty() && buf.consumed < items) {
                    buf.consumerWaits++;
                    buf.wait();
                }
                if (buf.items.isEmpty()) {
                    return taken; // everything has been consumed
                }
                int value = buf.items.removeFirst();
                buf.consumed++;
                buf.consumedSum += value;
                buf.notifyAll(); // wakes producers waiting for space, and consumers at the end
            }
            taken++;
        }
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "ProducerConsumer [producers=" + DEFAULT_PRODUCERS
                + "] [consumers=" + DEFAULT_CONSUMERS + "] [items=" + DEFAULT_ITEMS
                + "] [capacity=" + DEFAULT_CAPACITY + "]", () -> {
                    Cli.maxArgs(args, 4);
                    return create(Cli.intArg(args, 0, "producers", DEFAULT_PRODUCERS, 1),
                            Cli.intArg(args, 1, "consumers", DEFAULT_CONSUMERS, 1),
                            Cli.intArg(args, 2, "items", DEFAULT_ITEMS, 1),
                            Cli.intArg(args, 3, "capacity", DEFAULT_CAPACITY, 1));
                }));
    }
}
