package dev.convoy.testapps;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Long blocks whose owners are known, with the frame and line where each owner holds its lock,
 * for the owner's side of a block (agent option {@code ownerstacks}):
 * <ol>
 * <li>a chain of monitors: {@code ledger-keeper} holds the {@link Ledger} asleep for
 *     {@value #HOLD_MS} ms in {@link Ledger#hold} (line {@code holdLine}); {@code restocker}
 *     takes the {@link Inventory} in {@link Inventory#restock} and, at line {@code restockLine},
 *     calls the ledger's synchronized {@link Ledger#record}, which blocks; {@code buyer} then
 *     blocks on the inventory. So buyer waits for
 *     restocker, itself blocked on the ledger, held by ledger-keeper, sleeping;</li>
 * <li>a {@code ReentrantLock}: {@code lock-keeper} holds it asleep for {@value #LOCK_MS} ms;
 *     {@code lock-waiter} parks acquiring it;</li>
 * <li>a static synchronized method: {@code auditor-0} sleeps {@value #AUDIT_MS} ms in
 *     {@link Registry#audit} (line {@code auditLine}), holding the class {@link Registry};
 *     {@code auditor-1} blocks entering it.</li>
 * </ol>
 * The summary line gives the lines (read from the running code, so they are right after any
 * edit) and how long each blocked thread waited.
 */
public final class OwnerSide implements Scenario {

    public static final String NAME = "owner-side";
    public static final String BUYER = "buyer";
    public static final String RESTOCKER = "restocker";
    public static final String KEEPER = "ledger-keeper";
    public static final String LOCK_WAITER = "lock-waiter";
    public static final String LOCK_KEEPER = "lock-keeper";
    public static final String AUDITOR = "auditor-";
    public static final int HOLD_MS = 400;
    public static final int LOCK_MS = 300;
    public static final int AUDIT_MS = 250;

    static volatile int restockLine;
    static volatile int holdLine;
    static volatile int auditLine;

    /** The second monitor of the chain. */
    public static final class Ledger {
        long entries;

        void hold(CountDownLatch held) throws InterruptedException {
            synchronized (this) {
                held.countDown();
                holdLine = here(); Thread.sleep(HOLD_MS);
                entries++;
            }
        }

        synchronized void record() {
            entries++;
        }
    }

    /** The first monitor of the chain. */
    public static final class Inventory {
        long stock;

        void restock(Ledger ledger, CountDownLatch held) {
            synchronized (this) {
                held.countDown();
                restockLine = here(); ledger.record();
                stock++;
            }
        }
    }

    /** A class whose static synchronized method holds the class itself. */
    public static final class Registry {
        static long audits;

        static synchronized void audit(CountDownLatch in) throws InterruptedException {
            in.countDown();
            if (in.getCount() == 0 && audits == 0) {
                auditLine = here(); Thread.sleep(AUDIT_MS);
            }
            audits++;
        }
    }

    public record Result(int restockLine, int holdLine, int auditLine, long buyerWaitedMs, long lockWaitedMs,
                         long auditorWaitedMs) implements ScenarioResult {
        @Override
        public boolean ok() {
            return restockLine > 0 && holdLine > 0 && auditLine > 0 && buyerWaitedMs > 0 && lockWaitedMs > 0
                    && auditorWaitedMs > 0;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "restockLine", restockLine, "holdLine", holdLine, "auditLine",
                    auditLine, "buyerWaitedMs", buyerWaitedMs, "lockWaitedMs", lockWaitedMs, "auditorWaitedMs",
                    auditorWaitedMs);
        }
    }

    public static OwnerSide create() {
        return new OwnerSide();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() throws InterruptedException {
        long buyer = monitorChain();
        long lock = reentrantLock();
        long auditor = staticSynchronized();
        return new Result(restockLine, holdLine, auditLine, buyer, lock, auditor);
    }

    /** The chain of monitors; how long buyer waited, in ms. */
    private static long monitorChain() throws InterruptedException {
        Ledger ledger = new Ledger();
        Inventory inventory = new Inventory();
        CountDownLatch ledgerHeld = new CountDownLatch(1);
        CountDownLatch inventoryHeld = new CountDownLatch(1);
        long[] waited = new long[1];
        Threads.Failures failures = new Threads.Failures();
        Thread keeper = Threads.start(KEEPER, failures, () -> ledger.hold(ledgerHeld));
        Thread restocker = Threads.start(RESTOCKER, failures, () -> {
            await(ledgerHeld);
            inventory.restock(ledger, inventoryHeld);
        });
        Threads.awaitBlockedOn(restocker, ledger);
        Thread buyer = Threads.start(BUYER, failures, () -> {
            await(inventoryHeld);
            long t0 = System.nanoTime();
            synchronized (inventory) {
                inventory.stock--;
            }
            waited[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        });
        finish(List.of(keeper, restocker, buyer), failures);
        return waited[0];
    }

    /** The ReentrantLock; how long lock-waiter waited, in ms. */
    private static long reentrantLock() throws InterruptedException {
        ReentrantLock lock = new ReentrantLock();
        CountDownLatch held = new CountDownLatch(1);
        long[] waited = new long[1];
        Threads.Failures failures = new Threads.Failures();
        Thread keeper = Threads.start(LOCK_KEEPER, failures, () -> {
            lock.lock();
            try {
                held.countDown();
                Thread.sleep(LOCK_MS);
            } finally {
                lock.unlock();
            }
        });
        Thread waiter = Threads.start(LOCK_WAITER, failures, () -> {
            await(held);
            long t0 = System.nanoTime();
            lock.lock();
            lock.unlock();
            waited[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        });
        finish(List.of(keeper, waiter), failures);
        return waited[0];
    }

    /** The static synchronized method; how long the second auditor waited, in ms. */
    private static long staticSynchronized() throws InterruptedException {
        CountDownLatch in = new CountDownLatch(1);
        long[] waited = new long[1];
        Threads.Failures failures = new Threads.Failures();
        Thread first = Threads.start(AUDITOR + 0, failures, () -> Registry.audit(in));
        Thread second = Threads.start(AUDITOR + 1, failures, () -> {
            await(in);
            long t0 = System.nanoTime();
            Registry.audit(new CountDownLatch(0));
            waited[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        });
        finish(List.of(first, second), failures);
        return waited[0];
    }

    /** The line of the caller of this method. */
    static int here() {
        return StackWalker.getInstance().walk(s -> s.skip(1).findFirst().orElseThrow().getLineNumber());
    }

    private static void await(CountDownLatch l) throws InterruptedException {
        if (!l.await(Threads.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("timed out waiting for " + l);
        }
    }

    private static void finish(List<Thread> threads, Threads.Failures failures) {
        Threads.awaitTermination(threads);
        failures.check();
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "OwnerSide", () -> {
            Cli.maxArgs(args, 0);
            return create();
        }));
    }
}
