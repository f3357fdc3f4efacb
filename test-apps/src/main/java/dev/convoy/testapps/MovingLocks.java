package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Monitors and park blockers that the collector moves while they are used: T threads, each
 * round r, wait 1 ms on a lock and park for 1 µs with the same lock as the blocker, then
 * allocate garbage; every {@code gcEvery} rounds thread 0 asks for a full collection. With
 * {@code L} shared locks, thread t uses lock {@code (t + r) % L} in round r: young collections
 * move the locks (they survive) and full ones compact them. With {@code L} = 0 each round's lock
 * is a new object that dies after the round, so a lock of a later round is allocated where an
 * earlier one lay before a collection. Used to check that a recorder names the right object for
 * every record however objects move and addresses are reused: the summary lists the shared
 * locks' identity hashes, and with fresh locks each thread's lock hashes in round order.
 *
 * <p>Threads: {@code moving-0 .. moving-(T-1)}. Monitor class:
 * {@code dev.convoy.testapps.MovingLocks$MovingLock}.
 */
public final class MovingLocks implements Scenario {

    public static final String NAME = "moving-locks";
    public static final String THREAD_PREFIX = "moving-";

    /** Monitor and blocker of every wait and park. */
    public static final class MovingLock {
    }

    /**
     * @param hashes   identity hashes of the shared locks (empty with fresh locks)
     * @param perRound with fresh locks, per thread the identity hashes of its locks in round order
     */
    public record Result(int threads, int rounds, List<Integer> hashes, List<List<Integer>> perRound, int waits,
                         int parks) implements ScenarioResult {

        @Override
        public boolean ok() {
            return waits == threads * rounds && parks == threads * rounds;
        }

        @Override
        public String summary() {
            StringBuilder sb = new StringBuilder(ScenarioResult.line(NAME, ok(), "threads", threads, "rounds", rounds,
                    "waits", waits, "parks", parks, "hashes", hashes.isEmpty() ? "none" : hashes));
            for (int t = 0; t < perRound.size(); t++) {
                sb.append('\n').append(ScenarioResult.line(NAME, ok(), "thread", THREAD_PREFIX + t, "hashes",
                        perRound.get(t)));
            }
            return sb.toString();
        }
    }

    private final int threads;
    private final int locks;
    private final int rounds;
    private final int gcEvery;
    /** Keeps the garbage of the last allocation reachable for a moment, so it is not optimized away. */
    static volatile Object sink;

    private MovingLocks(int threads, int locks, int rounds, int gcEvery) {
        if (threads < 1 || locks < 0 || rounds < 1 || gcEvery < 1) {
            throw new IllegalArgumentException("threads, rounds and gcEvery must be >= 1, locks >= 0");
        }
        this.threads = threads;
        this.locks = locks;
        this.rounds = rounds;
        this.gcEvery = gcEvery;
    }

    public static MovingLocks create(int threads, int locks, int rounds, int gcEvery) {
        return new MovingLocks(threads, locks, rounds, gcEvery);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() throws InterruptedException {
        MovingLock[] lock = new MovingLock[locks];
        List<Integer> hashes = new ArrayList<>();
        for (int i = 0; i < locks; i++) {
            lock[i] = new MovingLock();
            hashes.add(System.identityHashCode(lock[i]));
        }
        int[] waits = new int[threads];
        int[] parks = new int[threads];
        List<List<Integer>> perRound = new ArrayList<>();
        for (int t = 0; t < threads && locks == 0; t++) {
            perRound.add(new ArrayList<>());
        }
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            all.add(new Thread(() -> {
                for (int r = 0; r < rounds; r++) {
                    MovingLock l;
                    if (locks == 0) {
                        l = new MovingLock();
                        perRound.get(me).add(System.identityHashCode(l));
                    } else {
                        l = lock[(me + r) % locks];
                    }
                    synchronized (l) {
                        try {
                            l.wait(1);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                    waits[me]++;
                    LockSupport.parkNanos(l, 1_000);
                    parks[me]++;
                    for (int k = 0; k < 64; k++) {
                        sink = new byte[4096];
                    }
                    if (me == 0 && r % gcEvery == gcEvery - 1) {
                        System.gc();
                    }
                }
            }, THREAD_PREFIX + t));
        }
        all.forEach(Thread::start);
        for (Thread t : all) {
            t.join(Threads.TIMEOUT.toMillis());
            if (t.isAlive()) {
                throw new IllegalStateException(t.getName() + " did not finish");
            }
        }
        int w = 0;
        int p = 0;
        for (int t = 0; t < threads; t++) {
            w += waits[t];
            p += parks[t];
        }
        return new Result(threads, rounds, hashes, perRound, w, p);
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "MovingLocks [threads=4] [locks=6] [rounds=300] [gcEvery=25]", () -> {
            Cli.maxArgs(args, 4);
            return create(Cli.intArg(args, 0, "threads", 4, 1), Cli.intArg(args, 1, "locks", 6, 0),
                    Cli.intArg(args, 2, "rounds", 300, 1), Cli.intArg(args, 3, "gcEvery", 25, 1));
        }));
    }
}
