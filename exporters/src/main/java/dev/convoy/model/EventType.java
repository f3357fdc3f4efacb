package dev.convoy.model;

import dev.convoy.snapshot.SnapshotFormat;

/** The kind of a recorded event; {@link #UNKNOWN} for a type code this version does not know. */
public enum EventType {
    THREAD_START(SnapshotFormat.EVENT_THREAD_START),
    THREAD_END(SnapshotFormat.EVENT_THREAD_END),
    MONITOR_ENTER(SnapshotFormat.EVENT_MONITOR_ENTER),
    MONITOR_ENTERED(SnapshotFormat.EVENT_MONITOR_ENTERED),
    MONITOR_WAIT(SnapshotFormat.EVENT_MONITOR_WAIT),
    MONITOR_WAITED(SnapshotFormat.EVENT_MONITOR_WAITED),
    GC_START(SnapshotFormat.EVENT_GC_START),
    GC_FINISH(SnapshotFormat.EVENT_GC_FINISH),
    /** A type code not listed above (e.g. the reserved instrumentation events 16..63). */
    UNKNOWN(-1);

    private final int code;

    EventType(int code) {
        this.code = code;
    }

    /** The {@code EVENT_*} code, or -1 for {@link #UNKNOWN}. */
    public int code() {
        return code;
    }

    /** The type for a record's type byte; never fails, unknown codes give {@link #UNKNOWN}. */
    public static EventType of(int code) {
        for (EventType t : values()) {
            if (t.code == code && t != UNKNOWN) {
                return t;
            }
        }
        return UNKNOWN;
    }
}
