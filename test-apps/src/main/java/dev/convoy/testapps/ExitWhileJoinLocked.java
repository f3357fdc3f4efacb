package dev.convoy.testapps;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * N threads, one after the other, each ending while {@code main} holds the monitor of its
 * Thread object: {@code main} takes the monitor, starts the thread, waits until its
 * {@code run()} is over and keeps the monitor {@link #HOLD_MS} more. On HotSpot a thread's
 * last exit step takes that monitor to notify its joiners, after the JVMTI ThreadEnd event:
 * each thread posts a contended enter after its end. Used to check that a recorder keeps one
 * ring per thread, ending with the thread's end.
 *
 * <p>Threads: {@code join-locked-0 .. join-locked-(N-1)}.
 */
public final class ExitWhileJoinLocked implements Scenario {

    public static final String NAME = "exit-while-join-locked";
    public static final String THREAD_PREFIX = "join-locked-";
    public static final int DEFAULT_THREADS = 3;
    public static final long HOLD_MS = 200;

    public record Result(int threads, int joined) implements ScenarioResult {

        @Override
        public boolean ok() {
            return joined == threads;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "threads", threads, "joined", joined);
        }
    }

    private final int threads;

    private ExitWhileJoinLocked(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1");
        }
        this.threads = threads;
    }

    public static ExitWhileJoinLocked create(int threads) {
        return new ExitWhileJoinLocked(threads);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() throws InterruptedException {
        int joined = 0;
        for (int i = 0; i < threads; i++) {
            CountDownLatch ran = new CountDownLatch(1);
            Thread t = new Thread(ran::countDown, THREAD_PREFIX + i);
            synchronized (t) {
                t.start();
                if (!ran.await(Threads.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException(t.getName() + " did not run");
                }
                Thread.sleep(HOLD_MS); // t is now past run(), in its exit, blocked on this monitor
            }
            t.join(Threads.TIMEOUT.toMillis());
            if (!t.isAlive()) {
                joined++;
            }
        }
        return new Result(threads, joined);
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "ExitWhileJoinLocked [threads=" + DEFAULT_THREADS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "threads", DEFAULT_THREADS, 1));
        }));
    }
}
