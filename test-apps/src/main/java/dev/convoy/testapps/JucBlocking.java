package dev.convoy.testapps;

/**
 * The demo's {@code java.util.concurrent} scenario: a {@link ReentrantLockStorm} (threads
 * parked acquiring a {@code ReentrantLock}, each woken by the releasing thread's unpark) then a
 * {@link BlockingQueueHandoff} (a producer and a consumer parked on the conditions of a full and
 * an empty {@code ArrayBlockingQueue}, unparking each other). In a recording: lock parks as
 * blocks with their exact owner, condition parks as waits, unpark arrows between the threads.
 *
 * <p>Threads: {@code rls-0 .. rls-(N-1)}, then {@code abq-producer}, {@code abq-consumer}.
 */
public final class JucBlocking implements Scenario {

    public static final String NAME = "juc-blocking";
    public static final int DEFAULT_THREADS = 4;
    public static final int DEFAULT_ITERATIONS = 2_000;
    public static final int DEFAULT_ITEMS = 1_000;

    /** Both parts' results; OK when both are. */
    public record Result(ReentrantLockStorm.Result storm, BlockingQueueHandoff.Result handoff)
            implements ScenarioResult {

        @Override
        public boolean ok() {
            return storm.ok() && handoff.ok();
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "lockThreads", storm.threads(), "iterations", storm.iterations(),
                    "counter", storm.counter(), "contended", storm.contended(), "items", handoff.items(),
                    "taken", handoff.taken(), "consumerParkedOnEmpty", handoff.consumerParkedOnEmpty(),
                    "producerParkedOnFull", handoff.producerParkedOnFull());
        }
    }

    private final ReentrantLockStorm storm;
    private final BlockingQueueHandoff handoff;

    private JucBlocking(int threads, int iterations, int items) {
        this.storm = ReentrantLockStorm.create(threads, iterations);
        this.handoff = BlockingQueueHandoff.create(items);
    }

    public static JucBlocking create(int threads, int iterations, int items) {
        return new JucBlocking(threads, iterations, items);
    }

    public static JucBlocking create() {
        return create(DEFAULT_THREADS, DEFAULT_ITERATIONS, DEFAULT_ITEMS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() throws InterruptedException {
        ReentrantLockStorm.Result s = storm.run();
        BlockingQueueHandoff.Result h = handoff.run();
        return new Result(s, h);
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "JucBlocking [threads=" + DEFAULT_THREADS + "] [iterations="
                + DEFAULT_ITERATIONS + "] [items=" + DEFAULT_ITEMS + "]", () -> {
                    Cli.maxArgs(args, 3);
                    return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 1),
                            Cli.intArg(args, 1, "iterations", DEFAULT_ITERATIONS, 1),
                            Cli.intArg(args, 2, "items", DEFAULT_ITEMS, 4));
                }));
    }
}
