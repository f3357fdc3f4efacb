package dev.convoy.model;

import dev.convoy.snapshot.SnapshotFormat;

/** The kind of a recorded event; {@link #UNKNOWN} for a type code this version does not know. */
public enum EventType {
    THREAD_START(SnapshotFormat.EVENT_THREAD_START),
    THREAD_END(SnapshotFormat.EVENT_THREAD_END),
    /** A contended enter; obj = monitor; with FLAG_OWNER, arg2 = the owner the VM had then (Java id, -1 none). */
    MONITOR_ENTER(SnapshotFormat.EVENT_MONITOR_ENTER),
    /** The contended enter got the monitor; obj = monitor; with FLAG_RELEASER, arg = the releaser the VM recorded (Java id). */
    MONITOR_ENTERED(SnapshotFormat.EVENT_MONITOR_ENTERED),
    MONITOR_WAIT(SnapshotFormat.EVENT_MONITOR_WAIT),
    MONITOR_WAITED(SnapshotFormat.EVENT_MONITOR_WAITED),
    GC_START(SnapshotFormat.EVENT_GC_START),
    GC_FINISH(SnapshotFormat.EVENT_GC_FINISH),
    /** Contention analysis: Thread.start called; obj = the Thread, arg2 = its Java id. */
    START_CALL(SnapshotFormat.EVENT_START_CALL),
    /** Contention analysis: Thread.interrupt called; obj = target Thread, arg = 1 if it was waiting, arg2 = its id. */
    INTERRUPT_CALL(SnapshotFormat.EVENT_INTERRUPT_CALL),
    /** Contention analysis: Object.notify called; obj = monitor. */
    NOTIFY(SnapshotFormat.EVENT_NOTIFY),
    /** Contention analysis: Object.notifyAll called; obj = monitor. */
    NOTIFY_ALL(SnapshotFormat.EVENT_NOTIFY_ALL),
    /** Contention analysis: Thread.sleep entered; arg = requested ms. */
    SLEEP(SnapshotFormat.EVENT_SLEEP),
    /** Contention analysis: Thread.sleep returned. */
    SLEPT(SnapshotFormat.EVENT_SLEPT),
    /** Contention analysis: Thread.join entered; obj = joined Thread, arg = timeout ms, arg2 = its id. */
    JOIN(SnapshotFormat.EVENT_JOIN),
    /** Contention analysis: Thread.join returned; obj = joined Thread, arg2 = its id. */
    JOINED(SnapshotFormat.EVENT_JOINED),
    /** Contention analysis: an InterruptedException reached application code. */
    THREAD_INTERRUPTED(SnapshotFormat.EVENT_THREAD_INTERRUPTED),
    /** LockSupport.park* begins; obj = blocker, arg = timeout ns, arg2 = exclusive owner's Java id, FLAG_LOCK. */
    PARK(SnapshotFormat.EVENT_PARK),
    /** The park returns; obj = blocker, FLAG_TIMED_OUT, FLAG_INTERRUPTED. */
    PARKED(SnapshotFormat.EVENT_PARKED),
    /** LockSupport.unpark(thread); obj = target Thread, arg2 = its Java id. */
    UNPARK(SnapshotFormat.EVENT_UNPARK),
    /**
     * The owner's side of a long block, written by the recorder into the blocked thread's stream (1.6):
     * obj = the monitor or lock, arg = the owner's Java id, arg2 = what the owner was itself blocked on,
     * waiting on or parked on (0 none), aux = its state and holding frame, FLAG_FRAME_EXACT, stack = its stack.
     */
    OWNER_SAMPLE(SnapshotFormat.EVENT_OWNER_SAMPLE),
    /** A type code not listed above (e.g. the reserved types 29..63). */
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
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNKNOWN;
    }

    private static final EventType[] BY_CODE = new EventType[256];

    static {
        java.util.Arrays.fill(BY_CODE, UNKNOWN);
        for (EventType t : values()) {
            if (t != UNKNOWN) {
                BY_CODE[t.code] = t;
            }
        }
    }
}
