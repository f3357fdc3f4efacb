package dev.convoy.model;

import dev.convoy.snapshot.SnapshotFormat;
import java.util.Objects;

/**
 * One 40-byte record of a thread ring.
 *
 * <p>The records of a ring are stored compactly by {@link RecordedThread} (40 bytes each,
 * in the snapshot's own encoding) and an {@code Event} is a view made on demand, so two
 * reads of the same record may give two objects. Equality therefore means "the same
 * record": events bound to a ring ({@link #index()} &ge; 0) are equal when they are the same
 * position of the same ring; events not bound to a ring position compare by value.
 * Use equality-based maps (not {@code IdentityHashMap}) to key data by event.
 *
 * <p>Accessors, named after the record's fields: {@code thread(), ts(), type(), rawType(),
 * flags(), stackId(), obj(), arg(), arg2()}.
 */
public final class Event {
    private final RecordedThread thread;
    private final int index;
    private final long ts;
    private final EventType type;
    private final int rawType;
    private final int flags;
    private final int aux;
    private final int stackId;
    private final long obj;
    private final long arg;
    private final long arg2;

    /**
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
    public Event(RecordedThread thread, long ts, EventType type, int rawType, int flags,
                 int stackId, long obj, long arg, long arg2) {
        this(thread, -1, ts, type, rawType, flags, 0, stackId, obj, arg, arg2);
    }

    Event(RecordedThread thread, int index, long ts, EventType type, int rawType, int flags, int aux,
          int stackId, long obj, long arg, long arg2) {
        this.thread = thread;
        this.index = thread == null ? -1 : index;
        this.ts = ts;
        this.type = type;
        this.rawType = rawType;
        this.flags = flags;
        this.aux = aux & 0xFFFF;
        this.stackId = stackId;
        this.obj = obj;
        this.arg = arg;
        this.arg2 = arg2;
    }

    /** A record not yet bound to a thread; {@link RecordedThread} binds it. */
    public static Event of(long ts, int rawType, int flags, int stackId, long obj, long arg, long arg2) {
        return new Event(null, ts, EventType.of(rawType), rawType, flags, stackId, obj, arg, arg2);
    }

    /** A record with its {@link #aux()} bits, not yet bound to a thread. */
    public static Event of(long ts, int rawType, int flags, int aux, int stackId, long obj, long arg, long arg2) {
        return new Event(null, -1, ts, EventType.of(rawType), rawType, flags, aux, stackId, obj, arg, arg2);
    }

    /** This event bound to another thread (not to a position of its ring). */
    public Event withThread(RecordedThread t) {
        return new Event(t, -1, ts, type, rawType, flags, aux, stackId, obj, arg, arg2);
    }

    /** The ring the record was found in. */
    public RecordedThread thread() { return thread; }
    /** Monotonic nanoseconds. */
    public long ts() { return ts; }
    /** Decoded type, {@link EventType#UNKNOWN} for unknown codes. */
    public EventType type() { return type; }
    /** The type byte as read. */
    public int rawType() { return rawType; }
    /** {@code FLAG_*} bits. */
    public int flags() { return flags; }
    /** The record's u16 after its flags: 0, but for OWNER_SAMPLE (its owner's state and holding frame). */
    public int aux() { return aux; }
    /** Stack id, 0 = none. */
    public int stackId() { return stackId; }
    /** Object id. */
    public long obj() { return obj; }
    /** First argument. */
    public long arg() { return arg; }
    /** Second argument. */
    public long arg2() { return arg2; }

    /** Position of the record in {@link #thread()}'s {@link RecordedThread#events()}, -1 if not bound to one. */
    public int index() { return index; }

    /** MONITOR_WAITED ended by timeout. */
    public boolean timedOut() {
        return (flags & SnapshotFormat.FLAG_TIMED_OUT) != 0;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Event e)) {
            return false;
        }
        if (index >= 0 || e.index >= 0) {
            return index == e.index && thread == e.thread;
        }
        return thread == e.thread && ts == e.ts && type == e.type && rawType == e.rawType && flags == e.flags
                && aux == e.aux && stackId == e.stackId && obj == e.obj && arg == e.arg && arg2 == e.arg2;
    }

    @Override
    public int hashCode() {
        if (index >= 0) {
            return System.identityHashCode(thread) * 31 + index;
        }
        return Objects.hash(System.identityHashCode(thread), ts, type, rawType, flags, aux, stackId, obj, arg, arg2);
    }

    @Override
    public String toString() {
        return "Event[" + type + (type == EventType.UNKNOWN ? "(" + rawType + ")" : "") + " ts=" + ts
                + " ring=" + (thread == null ? "-" : thread.ringId()) + " obj=" + obj + " arg=" + arg
                + " flags=" + flags + " stack=" + stackId + "]";
    }
}
