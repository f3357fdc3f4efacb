package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * A thread blocked, at exit, on a monitor held by a thread the recorder has no ring for, so
 * that the snapshot taken on exit shows the block with an owner that is not in it. That is
 * no deadlock. Two ways to get such an owner:
 * <ul>
 * <li>{@code convoy}: the holder is named {@value #CONVOY_HOLDER}; Convoy records none of its
 *     own {@code convoy-} threads;</li>
 * <li>{@code cap N}: N parked threads take the recorder's memory first (run with a small
 *     {@code memory=}), so the holder, started last, is refused a ring.</li>
 * </ul>
 * The waiter ({@value #WAITER}) starts first so that it has a ring. Prints {@value #MARKER}
 * once the waiter is blocked, then returns from main (the dump on exit sees the block).
 */
public final class UnrecordedHolder {

    public static final String WAITER = "blocked-waiter";
    public static final String CONVOY_HOLDER = "convoy-app-holder";
    public static final String HOLDER = "late-holder";
    public static final String MARKER = "UnrecordedHolder: waiter blocked";

    /** The monitor of the block. */
    public static final class HeldLock {
    }

    private UnrecordedHolder() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "convoy";
        int fillers = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        if (!mode.equals("convoy") && !mode.equals("cap")) {
            System.err.println("usage: UnrecordedHolder convoy | cap N");
            System.exit(2);
        }
        HeldLock lock = new HeldLock();
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            running.countDown();
            await(go);
            synchronized (lock) {
                lock.hashCode();
            }
        }, WAITER);
        waiter.setDaemon(true);
        waiter.start();
        // The recorder gives a thread its ring at its ThreadStart, which runs on the new thread
        // before run(): once the waiter runs, it has its ring, whatever the fillers take after.
        await(running);
        List<Thread> parked = new ArrayList<>();
        for (int i = 0; i < fillers; i++) {
            Thread t = new Thread(LockSupport::park, "filler-" + i);
            t.setDaemon(true);
            t.start();
            parked.add(t);
        }
        Thread holder = new Thread(() -> {
            synchronized (lock) {
                held.countDown();
                LockSupport.park();
            }
        }, mode.equals("convoy") ? CONVOY_HOLDER : HOLDER);
        holder.setDaemon(true);
        holder.start();
        held.await();
        go.countDown();
        while (waiter.getState() != Thread.State.BLOCKED) {
            Thread.onSpinWait();
        }
        System.out.println(MARKER);
    }

    private static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
