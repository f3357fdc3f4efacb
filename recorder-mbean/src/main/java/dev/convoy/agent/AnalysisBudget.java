package dev.convoy.agent;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The application's heap that the recorder's own analyses may take inside its JVM: a snapshot's
 * summary, report, flame graph, timeline and every output but the binary snapshot build the
 * analysis of the snapshot's records on the heap (about {@value #BYTES_PER_RECORD} bytes a
 * record at most). One runs at a time; one whose estimate exceeds {@value #SHARE_PERCENT} % of
 * the heap free after the last collection is refused with an error that says what to do
 * instead (the binary snapshot is written from native memory and needs no analysis: convert it
 * outside the application). So the recorder never takes the heap the application needs, and an
 * {@link OutOfMemoryError} it could cause is avoided rather than caught.
 */
public final class AnalysisBudget {
    /** Heap an analysis takes per record, at most (the report of a million records needs about 140 MB). */
    public static final long BYTES_PER_RECORD = 200;
    /** The share of the free heap an analysis may take. */
    public static final int SHARE_PERCENT = 50;
    /** How long a request waits for the analysis before it, in seconds. */
    static final long WAIT_SECONDS = 60;

    private static final Semaphore ONE = new Semaphore(1, true);

    private AnalysisBudget() {
    }

    /** The refusal of an analysis that would not fit the heap (not of a busy one): its message says what to do. */
    public static final class TooLarge extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        TooLarge(String message) {
            super(message);
        }
    }

    /** A permit to analyse; {@link #close()} gives it back. */
    public static final class Permit implements AutoCloseable {
        private boolean open = true;

        private Permit() {
        }

        @Override
        public void close() {
            if (open) {
                open = false;
                ONE.release();
            }
        }
    }

    /**
     * Waits for the analysis before this one, then checks that this one fits the heap.
     *
     * @param what what the analysis is for, for the message ("the summary", "a chrome dump")
     * @throws IllegalStateException "busy" after {@value #WAIT_SECONDS} s of waiting, or {@link TooLarge}
     */
    public static Permit enter(Recording r, String what) {
        try {
            if (!ONE.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException(what + ": busy: another analysis of a snapshot has run for over "
                        + WAIT_SECONDS + " s; try again when it is done");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + ": interrupted while waiting for another analysis");
        }
        Permit p = new Permit();
        try {
            check(records(r), what);
            return p;
        } catch (RuntimeException e) {
            p.close();
            throw e;
        }
    }

    /** Records of a recording. */
    public static long records(Recording r) {
        long n = 0;
        for (RecordedThread t : r.threads()) {
            n += t.eventCount();
        }
        return n;
    }

    /**
     * Whether the analysis of {@code records} records fits the heap now (without waiting for a permit).
     *
     * @throws TooLarge when it would not fit the free heap
     */
    public static void check(long records, String what) {
        long need = records * BYTES_PER_RECORD;
        long max = Runtime.getRuntime().maxMemory();
        long free = max - liveHeap();
        if (need > free / 100 * SHARE_PERCENT) {
            throw new TooLarge(what + ": not enough heap for the analysis of " + records
                    + " records inside the application (about " + (need >> 20) + " MiB; " + Math.max(0, free >> 20)
                    + " MiB of " + (max >> 20) + " MiB free): dump format 'snapshot', written from native memory, "
                    + "and convert it outside the application (./convoy convert FILE --format F)");
        }
    }

    /** Heap in use after the last collection (what the application keeps), else in use now. */
    static long liveHeap() {
        long live = 0;
        boolean known = false;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() != MemoryType.HEAP || !pool.isValid()) {
                continue;
            }
            MemoryUsage after = pool.isCollectionUsageThresholdSupported() ? pool.getCollectionUsage() : null;
            if (after != null) {
                live += after.getUsed();
                known = true;
            } else {
                live += pool.getUsage().getUsed();
            }
        }
        return known ? live : Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
    }
}
