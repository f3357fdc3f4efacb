package dev.convoy.testapps;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A contention chain with ground truth, R rounds of: {@code chain-tail} takes the
 * {@link ReentrantLock} {@code second} and holds it {@value #HOLD_MS} ms; {@code chain-middle}
 * takes the monitor {@link First} and then blocks on {@code second} (a lock park, owner
 * chain-tail); {@code chain-head} blocks on {@link First} (owner chain-middle, itself blocked).
 * Each round is one chain chain-head -> chain-middle -> chain-tail on First, then ReentrantLock.
 */
public final class LockChain implements Scenario {

    public static final String NAME = "lock-chain";
    public static final String HEAD = "chain-head";
    public static final String MIDDLE = "chain-middle";
    public static final String TAIL = "chain-tail";
    public static final int HOLD_MS = 30;
    public static final int DEFAULT_ROUNDS = 3;

    /** The monitor the head blocks on. */
    public static final class First {
    }

    public record Result(int rounds, int done) implements ScenarioResult {
        @Override
        public boolean ok() {
            return done == rounds;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "rounds", rounds, "done", done);
        }
    }

    private final int rounds;

    private LockChain(int rounds) {
        this.rounds = rounds;
    }

    public static LockChain create(int rounds) {
        return new LockChain(rounds);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() throws InterruptedException {
        First first = new First();
        ReentrantLock second = new ReentrantLock();
        int done = 0;
        for (int i = 0; i < rounds; i++) {
            CountDownLatch tailHolds = new CountDownLatch(1);
            CountDownLatch middleHolds = new CountDownLatch(1);
            Thread tail = new Thread(() -> {
                second.lock();
                try {
                    tailHolds.countDown();
                    sleep(HOLD_MS);
                } finally {
                    second.unlock();
                }
            }, TAIL);
            Thread middle = new Thread(() -> {
                await(tailHolds);
                synchronized (first) {
                    middleHolds.countDown();
                    second.lock(); // blocks: the tail holds it
                    second.unlock();
                }
            }, MIDDLE);
            Thread head = new Thread(() -> {
                await(middleHolds);
                synchronized (first) { // blocks: the middle holds it, blocked itself
                    first.hashCode();
                }
            }, HEAD);
            tail.start();
            middle.start();
            head.start();
            tail.join();
            middle.join();
            head.join();
            done++;
        }
        return new Result(rounds, done);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "LockChain [rounds=" + DEFAULT_ROUNDS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "rounds", DEFAULT_ROUNDS, 1));
        }));
    }
}
