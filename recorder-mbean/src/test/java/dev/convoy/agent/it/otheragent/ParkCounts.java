package dev.convoy.agent.it.otheragent;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The counters {@link OtherAgent}'s rewrite of {@code LockSupport} increments: per thread, the
 * calls of {@code park()} and {@code park(Object)}. On the boot class path (the agent jar's
 * {@code Boot-Class-Path}), since {@code LockSupport} calls it. Takes no lock and never parks: a
 * thread's counter is found through a {@link ThreadLocal} and registered, once, in a lock-free
 * queue.
 */
public final class ParkCounts {

    /** Prefix of the line {@link #report()} returns. */
    public static final String REPORT = "OTHER-AGENT parks=";

    private static final ConcurrentLinkedQueue<Counter> ALL = new ConcurrentLinkedQueue<>();
    private static final ThreadLocal<Counter> MINE = new Mine();

    private ParkCounts() {
    }

    private static final class Counter {
        final long tid;
        long parks;

        Counter(long tid) {
            this.tid = tid;
        }
    }

    private static final class Mine extends ThreadLocal<Counter> {
        @Override
        protected Counter initialValue() {
            @SuppressWarnings("deprecation") // Thread.threadId() is JDK 19+
            Counter c = new Counter(Thread.currentThread().getId());
            ALL.add(c);
            return c;
        }
    }

    /** Called at the entry of {@code LockSupport.park()} and {@code park(Object)}. */
    public static void count() {
        MINE.get().parks++;
    }

    /** Loads and runs everything {@link #count} and {@link #report} use, before any park calls it. */
    public static void link() {
        count();
        MINE.get().parks--;
        report();
    }

    /** {@code OTHER-AGENT parks=TID:N,TID:N,...}, the threads that parked and their counts. */
    public static String report() {
        StringBuilder sb = new StringBuilder(REPORT);
        for (Counter c : ALL) {
            if (c.parks > 0) {
                sb.append(c.tid).append(':').append(c.parks).append(',');
            }
        }
        return sb.toString();
    }
}
