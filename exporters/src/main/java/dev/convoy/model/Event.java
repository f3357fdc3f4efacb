package dev.convoy.model;

import dev.convoy.snapshot.SnapshotFormat;

/**
 * One 40-byte record of a thread ring.
 *
 * @param thread  the ring the record was found in (null only in the template handed to
 *                {@link RecordedThread}'s constructor)
 * @param ts      monotonic nanoseconds
 * @param type    decoded type, {@link EventType#UNKNOWN} for unknown codes
 * @param rawType the type byte as read (kept for unknown types)
 * @param flags   {@code FLAG_*} bits
 * @param stackId stack id, 0 = none
 * @param obj     object id (see the event table of the format)
 * @param arg     first argument
 * @param arg2    second argument
 */
public record Event(RecordedThread thread, long ts, EventType type, int rawType, int flags,
                    int stackId, long obj, long arg, long arg2) {

    /** A record not yet bound to a thread; {@link RecordedThread} binds it. */
    public static Event of(long ts, int rawType, int flags, int stackId, long obj, long arg, long arg2) {
        return new Event(null, ts, EventType.of(rawType), rawType, flags, stackId, obj, arg, arg2);
    }

    /** This event bound to another thread. */
    public Event withThread(RecordedThread t) {
        return new Event(t, ts, type, rawType, flags, stackId, obj, arg, arg2);
    }

    /** MONITOR_WAITED ended by timeout. */
    public boolean timedOut() {
        return (flags & SnapshotFormat.FLAG_TIMED_OUT) != 0;
    }

    @Override
    public String toString() {
        return "Event[" + type + (type == EventType.UNKNOWN ? "(" + rawType + ")" : "") + " ts=" + ts
                + " ring=" + (thread == null ? "-" : thread.ringId()) + " obj=" + obj + " arg=" + arg
                + " flags=" + flags + " stack=" + stackId + "]";
    }
}
