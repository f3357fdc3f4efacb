package dev.convoy.agent;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.convoy.snapshot.SnapshotFormat;

/**
 * The interface against the JVM: every native method of Convoy, implemented by
 * {@code libconvoy.so} (native-recorder). Nothing else in Java calls native code.
 *
 * <p>Threading: every method may be called from any Java thread. {@link #start} must
 * complete before any other method is called and runs once per JVM. A native failure
 * arrives as an {@link IllegalStateException} carrying the native error message.
 */
public final class NativeRecorder {

    /**
     * The recorder's counters at one moment; all 0 before start.
     *
     * <p>The list is defined once, in native-recorder/src/counters.h; counters0 returns the
     * values in its order, which is the order of these components (CountersOrderTest checks
     * that the names and the order agree).
     *
     * @param recordsWritten     records written since start
     * @param recordsOverwritten records a ring overwrote before the drain moved them into the history
     * @param recordsAged        records that aged out of the history (options maxsize, maxage)
     * @param historyBytes       bytes of the history's chunks
     * @param recordsDropped     events that could not be recorded at all
     * @param threadsRecorded    threads with a ring now (live and recently ended)
     * @param threadsSeen        threads ever given a state
     * @param threadsEvicted     states freed to stay under the memory cap
     * @param memoryInUse        recorder memory in use, bytes
     * @param startEpochNs       when the recorder started, ns since 1970 UTC
     * @param stacksDropped      stacks not interned because the stack table was full
     * @param objectsDropped     objects not described because the object table was full
     * @param objectsInUse       entries of the object table in use
     * @param objectsCapacity    entries the object table has
     * @param stackFallbacks     stacks=async: captures that took GetStackTrace or were skipped
     *                           (why: INFO stacks.capture)
     */
    public record Counters(long recordsWritten, long recordsOverwritten, long recordsAged, long historyBytes,
                           long recordsDropped, long threadsRecorded,
                           long threadsSeen, long threadsEvicted, long memoryInUse, long startEpochNs,
                           long stacksDropped, long objectsDropped, long objectsInUse, long objectsCapacity,
                           long stackFallbacks) {
    }

    /** Number of counters: the components of {@link Counters}. */
    private static final int COUNTERS = Counters.class.getRecordComponents().length;

    /**
     * Threads blocked or waiting on a monitor, as the parallel arrays snapshot0 takes: for
     * entry i, the thread's Java id, its state (SnapshotFormat.MSTATE_BLOCKED or
     * MSTATE_WAITING), the identity hash of the monitor and the owner's thread id or -1.
     *
     * @throws IllegalArgumentException if the arrays differ in length
     */
    record MonitorStates(long[] threadIds, int[] states, int[] identityHashes, long[] ownerIds) {
        MonitorStates {
            if (states.length != threadIds.length || identityHashes.length != threadIds.length
                    || ownerIds.length != threadIds.length) {
                throw new IllegalArgumentException("monitor state arrays differ in length: threadIds "
                        + threadIds.length + ", states " + states.length + ", identityHashes "
                        + identityHashes.length + ", ownerIds " + ownerIds.length);
            }
        }
    }

    private static volatile boolean loaded;

    private NativeRecorder() {
    }

    /**
     * Loads {@code libconvoy.so} (see {@link NativeLibraryLoader}). Idempotent.
     *
     * @param inst the agent's instrumentation, used on JDK 24+ to load without a
     *             restricted-method warning; may be null
     *
     * @throws IllegalStateException if the library cannot be loaded; the message says why
     *         and what to do, earlier attempts are attached as suppressed exceptions
     */
    public static synchronized void load(java.lang.instrument.Instrumentation inst) {
        if (!loaded) {
            NativeLibraryLoader.load(inst);
            loaded = true;
        }
    }

    /**
     * The numbers {@code start0} hands to the native side, in this order: one slot each of
     * {@code cv_config} (native-recorder/src/agent.h, whose {@code CV_CONFIG_NUMBERS} list names
     * the same slots in the same order; {@code NativeConfigTest} holds them together). Each takes
     * its value from the parsed options.
     */
    enum NativeConfig {
        BUFFER_BYTES(AgentOptions::bufferBytes),
        MEMORY_CAP(AgentOptions::memoryCap),
        STACK_DEPTH(AgentOptions::stackDepth),
        RECORDING(o -> o.recording() ? 1 : 0),
        EMPTY_CALLBACKS(o -> o.emptyCallbacks() ? 1 : 0),
        VM_OWNERS(o -> o.vmOwners() ? 1 : 0),
        /** 0 not recorded, 1 recorded, 2 the capability only (JDK 21+; ignored before). */
        VTHREAD_EVENTS(AgentOptions::virtualThreadEvents),
        TIMING(o -> o.timing() ? 1 : 0),
        /** 1 AsyncGetCallTrace with GetStackTrace as fallback, 0 GetStackTrace (capture.h). */
        STACK_CAPTURE(AgentOptions::stackCapture),
        /** 1 on, 0 off by option, 2 off: the collector moves objects outside its pauses. */
        ID_CACHE(o -> o.idCache() ? (ConvoyAgent.collectsInPausesOnly() ? 1 : 2) : 0),
        STACK_CACHE(o -> o.stackCache() ? 1 : 0),
        HELD_REFS(o -> o.heldRefs() ? 1 : 0),
        HISTORY_BYTES(AgentOptions::historyBytes),
        HISTORY_AGE_NS(AgentOptions::historyAgeNs),
        OWNER_STACKS_NS(AgentOptions::ownerStacksNs),
        DISK_BYTES(AgentOptions::diskBytes);

        private final java.util.function.ToLongFunction<AgentOptions> value;

        NativeConfig(java.util.function.ToLongFunction<AgentOptions> value) {
            this.value = value;
        }

        /** Every slot's value for these options, in order. */
        static long[] of(AgentOptions options) {
            NativeConfig[] all = values();
            long[] out = new long[all.length];
            for (NativeConfig c : all) {
                out[c.ordinal()] = c.value.applyAsLong(options);
            }
            return out;
        }
    }

    /**
     * Starts the recorder: adds the JVMTI capabilities (live phase), allocates the tables
     * within the memory cap, registers the threads already running and enables the events.
     * Precondition: {@link #load()} succeeded; the options were validated.
     *
     * @param options    the parsed options: every number of {@link NativeConfig}, and the option
     *                   text in effect stored in snapshots (INFO {@code options})
     * @param repository an existing directory of this JVM's own the history's sealed chunks are
     *                   also written to as files ({@code chunk-N.cvysnap}), or null
     * @param version    Convoy's version ({@link ConvoyAgent#VERSION}), stored in snapshots
     *                   (INFO {@code agent.version}; at most 63 bytes)
     * @throws IllegalStateException if the recorder already runs or JVMTI refuses
     */
    public static void start(AgentOptions options, String repository, String version) {
        start0(NativeConfig.of(options), repository, options.effective(), version);
    }

    /**
     * Switches recording of monitor and GC events on or off; thread start and end keep
     * being tracked so that thread names stay known. Takes effect for events that begin
     * after the call.
     *
     * @throws IllegalStateException if the recorder is not started
     */
    public static void setRecording(boolean on) {
        setRecording0(on);
    }

    /**
     * Arms ({@code 1}) or disarms ({@code 0}) the read of monitor releasers from the VM, or
     * turns it off for good ({@code -1}): see native-recorder/src/owners.h. Arm only while a JFR
     * recording enables {@code jdk.JavaMonitorEnter}, the only time the VM keeps the value.
     *
     * @return 1 armed, 0 not armed, -1 not available on this JVM (INFO {@code monitor.releasers} says why)
     * @throws IllegalStateException if the recorder is not started
     */
    public static int setReleasers(int arm) {
        return setReleasers0(arm);
    }

    /**
     * Discards everything recorded so far: later snapshots hold only the events that follow
     * (and threads alive now or started later). Writers are not stopped; the counters keep
     * counting from the start.
     *
     * @throws IllegalStateException if the recorder is not started
     */
    public static void reset() {
        reset0();
    }

    /**
     * With the benchmark-only option {@code bench.timing=on}: times only the callbacks that begin from
     * now on (a measured phase after a warm-up); the snapshot's INFO {@code timing.*} keys then
     * cover them alone, and {@code timing.clock} says from when ({@code window_from_ns}).
     *
     * @throws IllegalStateException if the recorder is not started or timing is off
     */
    public static void restartTiming() {
        restartTiming0();
    }

    /**
     * Binds {@code record0(int type, Object obj, long arg)} of the instrumentation's Probes
     * class, which must be loaded by the boot class loader. Until this returns, the
     * Probes class must not call record0 (its early path).
     *
     * @throws IllegalStateException if the recorder is not started or binding fails
     */
    public static void bindProbes(Class<?> probes) {
        bindProbes0(probes);
    }

    /**
     * Defines a class in the bootstrap class loader from its class file bytes (JNI
     * DefineClass with no loader), so that every class loader delegating to the boot loader
     * sees it, without appending to the boot class path. Usable once {@link #load} succeeded.
     *
     * @param internalName e.g. {@code dev/convoy/probes/Probes}
     * @throws LinkageError as the JVM's DefineClass throws it (e.g. the class exists already)
     */
    public static Class<?> defineBootClass(String internalName, byte[] classFile) {
        return defineBootClass0(internalName, classFile);
    }

    /** Whether monitor and GC events are being recorded. */
    public static boolean isRecording() {
        return isRecording0();
    }

    /**
     * Copies every ring and table into one binary snapshot (schema/snapshot-format.md)
     * while the application runs: no application thread is stopped and writers never
     * wait. Records torn by a concurrent write are skipped and counted.
     *
     * @throws IllegalStateException if the recorder is not started or memory runs out
     */
    public static byte[] snapshot() {
        MonitorStates m = monitorStates();
        return snapshot0(m.threadIds(), m.states(), m.identityHashes(), m.ownerIds());
    }

    /**
     * Like {@link #snapshot()}, but the snapshot stays in native memory, off the Java heap: a
     * read-only direct buffer over it, whose memory is freed once the buffer (and every view of
     * it) is unreachable.
     *
     * @throws IllegalStateException if the recorder is not started or memory runs out
     */
    public static java.nio.ByteBuffer snapshotDirect() {
        MonitorStates m = monitorStates();
        java.nio.ByteBuffer b = snapshotDirect0(m.threadIds(), m.states(), m.identityHashes(), m.ownerIds());
        long address = addressOf0(b);
        FREE.register(b, () -> freeDirect0(address));
        return b;
    }

    /** Frees direct snapshots; its thread is Convoy's own, not recorded. */
    private static final java.lang.ref.Cleaner FREE = java.lang.ref.Cleaner.create(r -> {
        Thread t = new Thread(r, "convoy-snapshot-memory");
        t.setDaemon(true);
        return t;
    });

    /**
     * Threads blocked, waiting or parked now. ThreadMXBean.getThreadInfo without stack traces
     * runs without a safepoint. A WAITING or TIMED_WAITING thread with a lock is in
     * {@code Object.wait} (the lock is the monitor) or parked (the lock is its park blocker,
     * the owner the blocker's exclusive owner); ThreadInfo without stacks does not tell which,
     * so both are passed as MSTATE_WAITING and the encoder makes the entry MSTATE_PARKED when
     * the thread's newest record is a PARK on that object (a MONITOR_WAIT keeps it
     * MSTATE_WAITING), as schema/snapshot-format.md (SECTION_MONITORS) says.
     */
    static MonitorStates monitorStates() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        ThreadInfo[] infos = mx.getThreadInfo(mx.getAllThreadIds());
        long[] threadIds = new long[infos.length];
        int[] states = new int[infos.length];
        int[] hashes = new int[infos.length];
        long[] owners = new long[infos.length];
        int n = 0;
        for (ThreadInfo info : infos) {
            if (info == null || info.getLockInfo() == null) {
                continue;
            }
            Thread.State st = info.getThreadState();
            int state = st == Thread.State.BLOCKED ? SnapshotFormat.MSTATE_BLOCKED
                    : st == Thread.State.WAITING || st == Thread.State.TIMED_WAITING ? SnapshotFormat.MSTATE_WAITING
                    : SnapshotFormat.MSTATE_RUNNING;
            if (state == SnapshotFormat.MSTATE_RUNNING) {
                continue;
            }
            threadIds[n] = info.getThreadId();
            states[n] = state;
            hashes[n] = info.getLockInfo().getIdentityHashCode();
            owners[n] = info.getLockOwnerId();
            n++;
        }
        return new MonitorStates(Arrays.copyOf(threadIds, n), Arrays.copyOf(states, n), Arrays.copyOf(hashes, n),
                Arrays.copyOf(owners, n));
    }

    /**
     * Opens a directory and returns its descriptor: {@code name} itself when {@code parent}
     * is negative, else the one folder {@code name} inside the open directory {@code parent},
     * created when {@code create} and missing, and never through a symbolic link.
     *
     * @throws java.io.IOException naming the directory and the reason (a link, not a folder, ...)
     */
    public static int openDirectory(int parent, String name, boolean create) throws java.io.IOException {
        return openDirectory0(parent, name, create);
    }

    /** Closes a descriptor from {@link #openDirectory}. */
    public static void closeDirectory(int fd) {
        closeDirectory0(fd);
    }

    /** The current counters. */
    public static Counters counters() {
        return counters(counters0());
    }

    /** Counters that are all 0: those of a recorder that never started. */
    static Counters zeroCounters() {
        return counters(new long[COUNTERS]);
    }

    /**
     * The counters from counters0's values, in the order of counters.h, which is the order of
     * {@link Counters}' components.
     *
     * @throws IllegalStateException if the library returned another number of values (a
     *         library of another version)
     */
    static Counters counters(long[] c) {
        if (c.length != COUNTERS) {
            throw new IllegalStateException("the native library returned " + c.length + " counters, expected "
                    + COUNTERS + ": libconvoy.so does not match this NativeRecorder");
        }
        return new Counters(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13],
                c[14]);
    }

    /**
     * A live thread whose newest record begins a block, a wait or a park that has not ended, as
     * the recorder read it from the thread's ring (no VM call, no safepoint).
     *
     * @param javaThreadId the thread
     * @param type         SnapshotFormat.EVENT_MONITOR_ENTER, EVENT_MONITOR_WAIT or EVENT_PARK
     * @param flags        the record's flags (FLAG_OWNER, FLAG_LOCK)
     * @param object       the monitor's or blocker's object id
     * @param sinceNs      when it began, in the clock of {@link #nowNs()}
     * @param owner        for an enter with FLAG_OWNER and a park: the owner's Java thread id when it
     *                     began (-1 none); else 0, unknown
     */
    public record Stalled(long javaThreadId, int type, int flags, long object, long sinceNs, long owner) {
    }

    /** The threads stalled now ({@link Stalled}); empty when the recorder is not started. */
    public static List<Stalled> stalled() {
        long[] v = stalled0();
        List<Stalled> out = new ArrayList<>(v.length / 6);
        for (int i = 0; i + 5 < v.length; i += 6) {
            out.add(new Stalled(v[i], (int) v[i + 1], (int) v[i + 2], v[i + 3], v[i + 4], v[i + 5]));
        }
        return out;
    }

    /** The recorder's clock, the time of its records: monotonic ns. */
    public static long nowNs() {
        return nowNs0();
    }

    private static native long[] stalled0();

    private static native long nowNs0();

    private static native void start0(long[] config, String repository, String options, String version);

    private static native void setRecording0(boolean on);

    private static native boolean isRecording0();

    private static native int setReleasers0(int arm);

    private static native void reset0();

    private static native void restartTiming0();

    private static native void bindProbes0(Class<?> probes);

    private static native Class<?> defineBootClass0(String internalName, byte[] classFile);

    private static native byte[] snapshot0(long[] threadIds, int[] states, int[] identityHashes, long[] ownerIds);

    private static native java.nio.ByteBuffer snapshotDirect0(long[] threadIds, int[] states, int[] identityHashes,
                                                             long[] ownerIds);

    private static native void freeDirect0(long address);

    private static native long addressOf0(java.nio.ByteBuffer buffer);

    private static native long[] counters0();

    private static native int openDirectory0(int parent, String name, boolean create) throws java.io.IOException;

    private static native void closeDirectory0(int fd);
}
