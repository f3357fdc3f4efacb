package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;

/**
 * Thundering herd: N waiters {@code wait()} (untimed) on one {@link HerdLock} until a flag is set;
 * {@code run()} waits until every waiter is in {@code wait()}, then sets the flag and calls
 * {@code notifyAll()} exactly once, waking all of them at once (they then compete to re-acquire
 * the monitor).
 *
 * <p>Threads: {@code herd-0 .. herd-(N-1)}. Monitor class: {@code dev.convoy.testapps.NotifyAllHerd$HerdLock}.
 */
public final class NotifyAllHerd implements Scenario {

    public static final String NAME = "notify-all-herd";
    public static final String THREAD_PREFIX = "herd-";
    public static final int DEFAULT_WAITERS = 8;

    /** The monitor the herd waits on; fields guarded by it. */
    public static final class HerdLock {
        boolean released;
        int waitCalls;
        int woken;
    }

    /**
     * @param waitingBeforeNotify waiters observed in {@code wait()} before the single notifyAll
     * @param waitCalls           {@code wait()} calls in total ({@code == waiters} unless a spurious wake-up happened)
     * @param woken               waiters that left the wait loop after the notifyAll
     */
    public record Result(int waiters, int waitingBeforeNotify, int notifyAllCalls, int waitCalls,
                         int woken, List<String> threadNames, String lockClassName) implements ScenarioResult {

        @Override
        public boolean ok() {
            return waitingBeforeNotify == waiters && woken == waiters && waitCalls >= waiters
                    && notifyAllCalls == 1;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "waiters", waiters,
                    "waitingBeforeNotify", waitingBeforeNotify, "notifyAllCalls", notifyAllCalls,
                    "waitCalls", waitCalls, "woken", woken, "threadNames", threadNames,
                    "lock", lockClassName);
        }
    }

    private final int waiters;

    private NotifyAllHerd(int waiters) {
        if (waiters < 1) {
            throw new IllegalArgumentException("waiters must be >= 1");
        }
        this.waiters = waiters;
    }

    public static NotifyAllHerd create(int waiters) {
        return new NotifyAllHerd(waiters);
    }

    public static NotifyAllHerd create() {
        return create(DEFAULT_WAITERS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        HerdLock lock = new HerdLock();
        Threads.Failures failures = new Threads.Failures();
        List<Thread> herd = new ArrayList<>(waiters);
        for (int i = 0; i < waiters; i++) {
            herd.add(Threads.start(THREAD_PREFIX + i, failures, () -> {
                synchronized (lock) {
                    while (!lock.released) {
                        lock.waitCalls++;
                        lock.wait();
                    }
                    lock.woken++;
                }
            }));
        }
        int waiting = 0;
        for (Thread t : herd) {
            Threads.awaitWaitingOn(t, lock);
            waiting++;
        }
        synchronized (lock) {
            lock.released = true;
            lock.notifyAll();
        }
        Threads.awaitTermination(herd);
        failures.check();
        synchronized (lock) {
            return new Result(waiters, waiting, 1, lock.waitCalls, lock.woken,
                    Threads.names(herd), HerdLock.class.getName());
        }
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "NotifyAllHerd [waiters=" + DEFAULT_WAITERS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "waiters", DEFAULT_WAITERS, 1));
        }));
    }
}
