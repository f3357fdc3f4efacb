package dev.convoy.testapps;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server in miniature, with ground truth for the analysis of idle time and of what requests
 * waited for:
 * <ul>
 * <li>{@code client-0 .. client-(C-1)} each send R requests one after the other: submit a
 *     task to the handler pool and wait for its {@link Future} (a park, ended by the handler's
 *     unpark);</li>
 * <li>the pool's {@code handler-0 .. handler-(H-1)} serve a request by taking the
 *     {@link Inventory} monitor (contended among the handlers; held {@value #HOLD_MS} ms, asleep), then
 *     putting the order into a bounded queue of {@value #QUEUE} places: between requests they
 *     are idle in {@code ThreadPoolExecutor.getTask};</li>
 * <li>{@code slow-consumer} takes the orders and spends {@value #CONSUME_MS} ms on each, so the
 *     queue is full and the handlers wait in {@code put} for it (parks on the queue's
 *     {@code notFull}, ended by the consumer's unpark): the slow consumer is what the requests
 *     wait for; after the last order it is idle in {@code take};</li>
 * <li>{@code Cleaner-0} (a {@link Cleaner}'s thread, the JDK's housekeeping kind) is idle in
 *     {@code ReferenceQueue.remove} the whole run;</li>
 * <li>{@code main} starts them all, joins the clients ({@code Thread.join}), sleeps until the
 *     consumer has taken every order, and ends: the application's work ends at main's end.</li>
 * </ul>
 */
public final class ServerShaped implements Scenario {

    public static final String NAME = "server-shaped";
    public static final String CLIENT_PREFIX = "client-";
    public static final String HANDLER_PREFIX = "handler-";
    public static final String CONSUMER = "slow-consumer";
    public static final String CLEANER = "Cleaner-0";
    public static final int HOLD_MS = 1;
    public static final int CONSUME_MS = 4;
    public static final int QUEUE = 2;
    public static final int DEFAULT_CLIENTS = 4;
    public static final int DEFAULT_HANDLERS = 3;
    public static final int DEFAULT_REQUESTS = 25;

    /** The monitor every request takes. */
    public static final class Inventory {
        long stock;
    }

    public record Result(int clients, int handlers, int requests, int served, int consumed) implements ScenarioResult {
        @Override
        public boolean ok() {
            return served == clients * requests && consumed == served;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "clients", clients, "handlers", handlers, "requests", requests,
                    "served", served, "consumed", consumed);
        }
    }

    private final int clients;
    private final int handlers;
    private final int requests;

    private ServerShaped(int clients, int handlers, int requests) {
        this.clients = clients;
        this.handlers = handlers;
        this.requests = requests;
    }

    public static ServerShaped create(int clients, int handlers, int requests) {
        return new ServerShaped(clients, handlers, requests);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() throws InterruptedException {
        Cleaner cleaner = Cleaner.create(); // its thread idles in ReferenceQueue.remove
        Inventory inventory = new Inventory();
        BlockingQueue<Long> orders = new ArrayBlockingQueue<>(QUEUE);
        AtomicInteger consumed = new AtomicInteger();
        int total = clients * requests;
        Thread consumer = new Thread(() -> {
            try {
                while (true) {
                    orders.take();
                    Thread.sleep(CONSUME_MS);
                    consumed.incrementAndGet();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, CONSUMER);
        consumer.setDaemon(true);
        consumer.start();
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(handlers, r -> {
            Thread t = new Thread(r, HANDLER_PREFIX + n.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
        AtomicInteger served = new AtomicInteger();
        List<Thread> clientThreads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            Thread t = new Thread(() -> {
                try {
                    for (int i = 0; i < requests; i++) {
                        Future<?> f = pool.submit(() -> handle(inventory, orders, served));
                        f.get();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, CLIENT_PREFIX + c);
            clientThreads.add(t);
        }
        for (Thread t : clientThreads) {
            t.start();
        }
        for (Thread t : clientThreads) {
            t.join();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (consumed.get() < total && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        // the pool is left to the JVM's exit (its threads are daemons): a shutdown here would make
        // main's last wait its block on the pool's lock, not the join of the requests
        cleaner.register(new Object(), () -> { }); // keeps the cleaner reachable to here
        return new Result(clients, handlers, requests, served.get(), consumed.get());
    }

    private static Void handle(Inventory inventory, BlockingQueue<Long> orders, AtomicInteger served)
            throws InterruptedException {
        long order;
        synchronized (inventory) {
            Thread.sleep(HOLD_MS);
            order = ++inventory.stock;
        }
        orders.put(order);
        served.incrementAndGet();
        return null;
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "ServerShaped [clients=" + DEFAULT_CLIENTS + "] [handlers="
                + DEFAULT_HANDLERS + "] [requests=" + DEFAULT_REQUESTS + "]", () -> {
                    Cli.maxArgs(args, 3);
                    return create(Cli.intArg(args, 0, "clients", DEFAULT_CLIENTS, 1),
                            Cli.intArg(args, 1, "handlers", DEFAULT_HANDLERS, 1),
                            Cli.intArg(args, 2, "requests", DEFAULT_REQUESTS, 1));
                }));
    }
}
