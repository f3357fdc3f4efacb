package dev.convoy.analysis;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.snapshot.SnapshotFormat;

/**
 * A span of one thread: blocked entering a monitor, waiting in {@code Object.wait},
 * sleeping in {@code Thread.sleep}, waiting in {@code Thread.join}, parked in
 * {@code LockSupport.park*} (BLOCKED when the park acquires a lock, else WAITING;
 * {@link #isPark()}), or a GC pause (on the GC ring).
 *
 * @param kind    what the thread was doing
 * @param thread  the ring
 * @param monitor monitor object id for BLOCKED and WAITING (a park's blocker, 0 for none),
 *                the joined Thread object for JOINING, 0 for SLEEPING and GC
 * @param startNs monotonic start (the begin event's ts)
 * @param endNs   monotonic end: the end event's ts, or the snapshot time (or the thread's
 *                end) when {@code end} is null, or where a loss of the thread's records began
 *                when {@code cut}
 * @param begin   MONITOR_ENTER, MONITOR_WAIT, PARK, SLEEP, JOIN or GC_START
 * @param end     MONITOR_ENTERED, MONITOR_WAITED, PARKED, SLEPT, JOINED (SLEEPING and
 *                JOINING may also end at THREAD_INTERRUPTED) or GC_FINISH; null while still
 *                open at snapshot time, and when cut
 * @param cut     still open when a loss of the thread's records began ({@code RecordedThread.losses()}):
 *                it ends there, and how it ended is unknown
 */
public record Interval(Kind kind, RecordedThread thread, long monitor, long startNs, long endNs,
                       Event begin, Event end, boolean cut) {

    /** Kinds of intervals. */
    public enum Kind { BLOCKED, WAITING, SLEEPING, JOINING, GC }

    /** Still going on when the snapshot was taken. */
    public boolean isOpen() {
        return end == null && !cut;
    }

    /** WAITING (or a park) ended by its timeout (FLAG_TIMED_OUT on MONITOR_WAITED or PARKED). */
    public boolean timedOut() {
        return end != null && end.timedOut();
    }

    /**
     * SLEEPING or JOINING that ended with an InterruptedException (THREAD_INTERRUPTED); a
     * park whose PARKED has FLAG_INTERRUPTED.
     */
    public boolean interrupted() {
        return end != null && (end.type() == EventType.THREAD_INTERRUPTED
                || end.type() == EventType.PARKED && (end.flags() & SnapshotFormat.FLAG_INTERRUPTED) != 0);
    }

    /** A park ({@code LockSupport.park*}: PARK .. PARKED), BLOCKED or WAITING. */
    public boolean isPark() {
        return begin != null && begin.type() == EventType.PARK;
    }

    /**
     * Whether the owner at the start of a BLOCKED interval is exact: a park's (recorded by the
     * parking thread), or a monitor's whose MONITOR_ENTER has FLAG_OWNER (read from the VM; "no
     * owner" included; see {@link MonitorOwnership}); otherwise it is inferred or unknown.
     */
    public boolean ownerExact() {
        if (kind != Kind.BLOCKED || begin == null) {
            return false;
        }
        if (isPark()) {
            return true;
        }
        long id = begin.arg2();
        return begin.type() == EventType.MONITOR_ENTER && (begin.flags() & SnapshotFormat.FLAG_OWNER) != 0
                && id != 0 && (id < 0 || id != thread.javaThreadId());
    }

    /**
     * The timeout in ms, 0 = none: the one passed to wait (WAITING) or join (JOINING), the
     * requested sleep (SLEEPING), a park's timeout rounded up to whole ms; 0 for other kinds.
     */
    public long timeoutMs() {
        if (isPark()) {
            return (begin.arg() + 999_999) / 1_000_000;
        }
        return kind == Kind.WAITING || kind == Kind.SLEEPING || kind == Kind.JOINING ? begin.arg() : 0;
    }

    /** A park's timeout in ns (0 = none); {@link #timeoutMs} in ns for the other kinds. */
    public long timeoutNs() {
        return isPark() ? begin.arg() : timeoutMs() * 1_000_000;
    }

    /** {@code startNs <= ns < endNs}, or {@code ns == startNs} for an empty interval. */
    public boolean covers(long ns) {
        return startNs <= ns && (ns < endNs || ns == startNs);
    }

    /** {@code endNs - startNs}. */
    public long durationNs() {
        return endNs - startNs;
    }
}
