package dev.convoy.analysis;

import dev.convoy.model.Event;
import dev.convoy.model.RecordedThread;

/**
 * A span of one thread: blocked entering a monitor, waiting in {@code Object.wait}, or a
 * GC pause (on the GC ring).
 *
 * @param kind    what the thread was doing
 * @param thread  the ring
 * @param monitor monitor object id, 0 for GC
 * @param startNs monotonic start (the begin event's ts)
 * @param endNs   monotonic end: the end event's ts, or the snapshot time (or the thread's
 *                end) when {@code end} is null
 * @param begin   MONITOR_ENTER, MONITOR_WAIT or GC_START
 * @param end     MONITOR_ENTERED, MONITOR_WAITED or GC_FINISH; null while still open at
 *                snapshot time
 */
public record Interval(Kind kind, RecordedThread thread, long monitor, long startNs, long endNs,
                       Event begin, Event end) {

    /** Kinds of intervals. */
    public enum Kind { BLOCKED, WAITING, GC }

    /** Still going on when the snapshot was taken. */
    public boolean isOpen() {
        return end == null;
    }

    /** WAITING ended by its timeout (FLAG_TIMED_OUT on MONITOR_WAITED). */
    public boolean timedOut() {
        return end != null && end.timedOut();
    }

    /** WAITING: the timeout passed to wait in ms, 0 = none; 0 for other kinds. */
    public long timeoutMs() {
        return kind == Kind.WAITING ? begin.arg() : 0;
    }

    /** {@code endNs - startNs}. */
    public long durationNs() {
        return endNs - startNs;
    }
}
