package dev.convoy.testapps;

/**
 * One thread calls {@code InterruptLock.wait()} (no timeout) on a condition nobody will signal;
 * {@code run()} waits until it is WAITING on that monitor and then interrupts it. The wait ends
 * with {@link InterruptedException} (a MonitorWaited with {@code timed_out=false} and no notify).
 *
 * <p>Thread: {@code interrupt-waiter}. Monitor class: {@code dev.convoy.testapps.InterruptWaiter$InterruptLock}.
 */
public final class InterruptWaiter implements Scenario {

    public static final String NAME = "interrupt-waiter";
    public static final String THREAD_NAME = "interrupt-waiter";

    /** The waited-on monitor; fields guarded by it. */
    public static final class InterruptLock {
        boolean signalled; // never set
        int waitCalls;
        boolean gotInterruptedException;
    }

    /**
     * @param waitCalls number of {@code wait()} calls; 1 unless a spurious wake-up happened
     */
    public record Result(String threadName, boolean gotInterruptedException, int waitCalls,
                         String lockClassName) implements ScenarioResult {

        @Override
        public boolean ok() {
            return gotInterruptedException && waitCalls >= 1;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "thread", threadName,
                    "gotInterruptedException", gotInterruptedException, "waitCalls", waitCalls,
                    "lock", lockClassName);
        }
    }

    private InterruptWaiter() {
    }

    public static InterruptWaiter create() {
        return new InterruptWaiter();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        InterruptLock lock = new InterruptLock();
        Threads.Failures failures = new Threads.Failures();
        Thread waiter = Threads.start(THREAD_NAME, failures, () -> {
            synchronized (lock) {
                try {
                    while (!lock.signalled) {
                        lock.waitCalls++;
                        lock.wait();
                    }
                } catch (InterruptedException e) {
                    lock.gotInterruptedException = true;
                }
            }
        });
        Threads.awaitWaitingOn(waiter, lock);
        waiter.interrupt();
        Threads.awaitTermination(java.util.List.of(waiter));
        failures.check();
        synchronized (lock) {
            return new Result(waiter.getName(), lock.gotInterruptedException, lock.waitCalls,
                    InterruptLock.class.getName());
        }
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "InterruptWaiter", () -> {
            Cli.maxArgs(args, 0);
            return create();
        }));
    }
}
