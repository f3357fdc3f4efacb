package dev.convoy.snapshot;

/**
 * Constants of the Convoy binary snapshot format, version 1.5.
 *
 * <p>The single source of truth is {@code schema/snapshot-format.md}: every field here
 * has exactly the name and value of a row of one of its tables, and
 * {@code SnapshotFormatConsistencyTest} (module exporters) compares them, and the C header
 * {@code native-recorder/src/snapshot_format.h}, with the tables. Change the markdown first.
 */
public final class SnapshotFormat {
    private SnapshotFormat() {
    }

    /** Major version this reader understands; a file of another major version is rejected. */
    public static final int VERSION_MAJOR = 1;
    /** Minor version written; newer minor versions are accepted by the reader. */
    public static final int VERSION_MINOR = 7;

    /** Key/value pairs describing the recording (see "INFO keys"). */
    public static final int SECTION_INFO = 1;
    /** One entry per thread ring with its records. */
    public static final int SECTION_THREADS = 2;
    /** Deduplicated stack traces. */
    public static final int SECTION_STACKS = 3;
    /** Every method a stack refers to. */
    public static final int SECTION_METHODS = 4;
    /** Every class a method or an object refers to. */
    public static final int SECTION_CLASSES = 5;
    /** Every object the recorder tagged. */
    public static final int SECTION_OBJECTS = 6;
    /** Monitor state of live threads at snapshot time. */
    public static final int SECTION_MONITORS = 7;
    /** Records of a thread that are missing, per time range (1.5). */
    public static final int SECTION_LOSSES = 8;
    /** The whole run's blocks, waits and parks, per thread, object, stack and kind (1.5). */
    public static final int SECTION_TOTALS = 9;
    /** Records packed into a few bytes each, in runs of one ring (1.7). */
    public static final int SECTION_RECORDS = 10;
    /** Last section, empty payload. */
    public static final int SECTION_END = 255;

    /** obj = Thread object id, arg = Java thread id. */
    public static final int EVENT_THREAD_START = 1;
    /** obj = Thread object id, arg = Java thread id. */
    public static final int EVENT_THREAD_END = 2;
    /**
     * obj = monitor object id; has a stack. With {@link #FLAG_OWNER} (1.3), arg2 = the owner the
     * recorder read from the VM at the enter: its Java thread id, or -1 when the monitor had none.
     */
    public static final int EVENT_MONITOR_ENTER = 3;
    /**
     * obj = monitor object id. With {@link #FLAG_RELEASER} (1.4), arg = the Java thread id of the
     * thread that released the monitor before this thread acquired it, as the VM recorded it.
     */
    public static final int EVENT_MONITOR_ENTERED = 4;
    /** obj = monitor object id, arg = timeout in ms (0 = none); has a stack. */
    public static final int EVENT_MONITOR_WAIT = 5;
    /** obj = monitor object id, flags may hold {@link #FLAG_TIMED_OUT}. */
    public static final int EVENT_MONITOR_WAITED = 6;
    /** Garbage collection started (GC ring). */
    public static final int EVENT_GC_START = 7;
    /** Garbage collection finished (GC ring). */
    public static final int EVENT_GC_FINISH = 8;
    /** Instrumented {@code Thread.start} call site: obj = the Thread started, arg2 = its Java thread id. */
    public static final int EVENT_START_CALL = 16;
    /** Instrumented {@code Thread.interrupt}: obj = target, arg = 1 if it was waiting, arg2 = its id. */
    public static final int EVENT_INTERRUPT_CALL = 17;
    /** Instrumented {@code Object.notify}: obj = the monitor. */
    public static final int EVENT_NOTIFY = 18;
    /** Instrumented {@code Object.notifyAll}: obj = the monitor. */
    public static final int EVENT_NOTIFY_ALL = 19;
    /** {@code Thread.sleep} begins: arg = requested ms. */
    public static final int EVENT_SLEEP = 20;
    /** {@code Thread.sleep} ends. */
    public static final int EVENT_SLEPT = 21;
    /** {@code Thread.join} begins: obj = the joined Thread, arg = timeout ms (0 none), arg2 = its id. */
    public static final int EVENT_JOIN = 22;
    /** {@code Thread.join} ends: obj = the joined Thread, arg2 = its id. */
    public static final int EVENT_JOINED = 23;
    /** An InterruptedException from wait, sleep or join reached application code. */
    public static final int EVENT_THREAD_INTERRUPTED = 24;
    /**
     * {@code LockSupport.park*} begins: obj = the blocker's object id (0 none), arg = timeout ns
     * (0 none), arg2 = the Java id of the blocker's exclusive owner (-1 none); flags may hold
     * {@link #FLAG_LOCK}.
     */
    public static final int EVENT_PARK = 25;
    /** The park returns: obj = the blocker's object id; flags may hold {@link #FLAG_TIMED_OUT}, {@link #FLAG_INTERRUPTED}. */
    public static final int EVENT_PARKED = 26;
    /** {@code LockSupport.unpark(thread)}: obj = the target Thread's object id, arg2 = its Java id. */
    public static final int EVENT_UNPARK = 27;
    /** The owner's side of a long block, written by the recorder into the blocked thread's stream (1.6). */
    public static final int EVENT_OWNER_SAMPLE = 28;

    /** MONITOR_WAITED: the wait ended because its timeout elapsed. */
    public static final int FLAG_TIMED_OUT = 1;
    /** PARKED: the thread was interrupted when the park returned. */
    public static final int FLAG_INTERRUPTED = 2;
    /** PARK: the blocker is a lock being acquired (an AQS synchronizer other than a latch's). */
    public static final int FLAG_LOCK = 4;
    /** MONITOR_ENTER: arg2 holds the monitor's owner read from the VM at the enter (Java thread id, -1 none). */
    public static final int FLAG_OWNER = 8;
    /** MONITOR_ENTERED: arg holds the Java thread id of the releaser the VM recorded (its last exit before this acquisition). */
    public static final int FLAG_RELEASER = 16;
    /** OWNER_SAMPLE: the holding frame is the only frame of the owner's stack that can hold the monitor (1.6). */
    public static final int FLAG_FRAME_EXACT = 32;

    /** The thread has ended (its THREAD_END may have been overwritten). */
    public static final int RING_ENDED = 1;
    /** Not a Java thread: the GC ring (javaThreadId = -1, name "GC"). */
    public static final int RING_SYSTEM = 2;
    /** The recorder met this thread after it had started. */
    public static final int RING_LATE = 4;
    /** A virtual thread (JDK 21+). */
    public static final int RING_VIRTUAL = 8;
    /** Ring flag: a daemon thread (Thread.isDaemon when the recorder met it); the JVM does not wait for it to exit. */
    public static final int RING_DAEMON = 16;

    /** An ordinary object (e.g. a monitor). */
    public static final int OBJ_PLAIN = 0;
    /** A java.lang.Thread object. */
    public static final int OBJ_THREAD = 1;
    /** A java.lang.Class object. */
    public static final int OBJ_CLASS = 2;

    /** The thread is neither blocked nor waiting on a monitor. */
    public static final int MSTATE_RUNNING = 0;
    /** Blocked entering the object. */
    public static final int MSTATE_BLOCKED = 1;
    /** In Object.wait on the object. */
    public static final int MSTATE_WAITING = 2;
    /** Parked ({@code LockSupport.park*}) with the object as its blocker. */
    public static final int MSTATE_PARKED = 3;

    /** Bytes of one record in SECTION_THREADS. */
    public static final int RECORD_BYTES = 40;
    /** Bytes of the file header. */
    public static final int HEADER_BYTES = 16;
    /** Bytes before each section payload (tag, crc32, length). */
    public static final int SECTION_HEADER_BYTES = 16;

    private static final byte[] MAGIC = {'C', 'V', 'Y', 'S', 'N', 'A', 'P', 0};

    /** The 8 magic bytes at offset 0, {@code "CVYSNAP\0"} (a fresh copy). */
    public static byte[] magic() {
        return MAGIC.clone();
    }

    /** Loss: overwritten in the thread's ring before the recorder moved them into the history. */
    public static final int LOSS_OVERWRITTEN = 1;
    /** Loss: aged out of the history (maxsize, maxage). */
    public static final int LOSS_AGED = 2;

    /** Total: MONITOR_ENTER to its MONITOR_ENTERED. */
    /** OWNER_SAMPLE owner states (the top 4 bits of its aux), 1.6. */
    public static final int OSTATE_UNKNOWN = 0;
    public static final int OSTATE_RUNNING = 1;
    public static final int OSTATE_NATIVE = 2;
    public static final int OSTATE_BLOCKED = 3;
    public static final int OSTATE_WAITING = 4;
    public static final int OSTATE_PARKED = 5;
    public static final int OSTATE_SLEEPING = 6;
    /** OWNER_SAMPLE aux: the holding frame's index + 1 (0 = none) in these bits. */
    public static final int OWNER_DEPTH_MASK = 4095;
    /** OWNER_SAMPLE aux: the owner's state above this bit. */
    public static final int OWNER_STATE_SHIFT = 12;

    public static final int TOTAL_BLOCKED = 1;
    /** Total: MONITOR_WAIT to its MONITOR_WAITED. */
    public static final int TOTAL_WAITED = 2;
    /** Total: a PARK with FLAG_LOCK to its PARKED. */
    public static final int TOTAL_PARKED_LOCK = 3;
    /** Total: another PARK to its PARKED. */
    public static final int TOTAL_PARKED = 4;
}
