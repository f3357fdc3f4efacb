package dev.convoy.testing;

import static dev.convoy.snapshot.SnapshotFormat.*;

import dev.convoy.model.Frame;
import dev.convoy.model.LineEntry;
import dev.convoy.model.MethodInfo;
import dev.convoy.snapshot.SnapshotWriter;
import java.util.List;

/**
 * Hand-built snapshots with known facts. Times are monotonic ns; recording starts at
 * {@link #T0}. Every scenario shares the classes, methods, stacks and objects below.
 */
public final class Fixtures {
    private Fixtures() {
    }

    public static final long T0 = 5_000_000_000L;
    public static final long EPOCH0 = 1_700_000_000_123_456_789L;
    public static final long SNAP = T0 + 10_000_000;

    // classes
    public static final long C_OBJECT = 100, C_THREAD = 101, C_WORKER = 102, C_LOCK = 103;
    // methods
    public static final long M_RUN = 0x7F00_0000_1000L, M_INIT = 0x7F00_0000_2000L, M_WAIT = 0x7F00_0000_3000L;
    public static final long M_GONE = 0x7F00_0000_4000L; // referenced by a stack, not described
    // stacks
    public static final int S_WAIT = 1, S_RUN = 2, S_INIT = 3, S_GONE = 4;
    // thread objects
    public static final long O_MAIN = 1001, O_W1 = 1002, O_WAITER = 1003, O_H1 = 1004, O_H2 = 1005,
            O_H3 = 1006, O_VICTIM = 1007;
    // monitors
    public static final long M1 = 2001, M2 = 2002, M3 = 2003, M4 = 2004, M5 = 2005;
    // rings
    public static final long R_MAIN = 1, R_W1 = 2, R_WAITER = 3, R_H1 = 5, R_H2 = 6, R_H3 = 7,
            R_VICTIM = 8, R_GC = 99;

    /** Thread name with a comma, a NUL, a non-ASCII and a supplementary character. */
    public static final String ODD_NAME = "waiter, \u0000caf\u00e9 \uD83D\uDE00";

    public static long t(long us) {
        return T0 + us * 1000;
    }

    /** Classes, methods, stacks, objects and INFO shared by all scenarios. */
    public static SnapshotWriter.Builder base() {
        SnapshotWriter.Builder b = SnapshotWriter.builder()
                .info("agent.version", "0.1.0")
                .info("pid", "4242")
                .info("java.command", "com.example.Main --fast")
                .info("start.monotonic.ns", Long.toString(T0))
                .info("start.epoch.ns", Long.toString(EPOCH0))
                .info("snapshot.monotonic.ns", Long.toString(SNAP))
                .info("snapshot.epoch.ns", Long.toString(EPOCH0 + SNAP - T0))
                .clazz(C_OBJECT, "Ljava/lang/Object;", "Object.java")
                .clazz(C_THREAD, "Ljava/lang/Thread;", "Thread.java")
                .clazz(C_WORKER, "Lcom/example/Worker;", "Worker, Inc.java")
                .clazz(C_LOCK, "Lcom/example/Lock;", "")
                .method(MethodInfo.of(M_RUN, C_WORKER, "run", "()V",
                        new LineEntry(0, 10), new LineEntry(5, 11), new LineEntry(12, 14)))
                .method(MethodInfo.of(M_INIT, C_WORKER, "<init>", "(J)V", new LineEntry(0, 3)))
                .method(new MethodInfo(M_WAIT, C_OBJECT, "wait", "(J)V", false, List.of()))
                .stack(S_WAIT, false, new Frame(M_WAIT, -1), new Frame(M_RUN, 5))
                .stack(S_RUN, false, new Frame(M_RUN, 12))
                .stack(S_INIT, true, new Frame(M_INIT, 0), new Frame(M_RUN, 7))
                .stack(S_GONE, false, new Frame(M_GONE, 3));
        long[] threads = {O_MAIN, O_W1, O_WAITER, O_H1, O_H2, O_H3, O_VICTIM};
        for (int i = 0; i < threads.length; i++) {
            b.object(threads[i], 0x1000_0000 + i, OBJ_THREAD, C_THREAD);
        }
        b.object(M1, 0xAAAA0001, OBJ_PLAIN, C_OBJECT)
                .object(M2, 0xAAAA0002, OBJ_PLAIN, C_LOCK)
                .object(M3, 0xAAAA0003, OBJ_PLAIN, C_OBJECT)
                .object(M4, 0xAAAA0004, OBJ_PLAIN, C_LOCK)
                .object(M5, 0xAAAA0005, OBJ_PLAIN, C_OBJECT);
        return b;
    }

    /**
     * Deadlock: main holds M1 (uncontended, unrecorded) and blocks on M2; worker-1 holds M2
     * and blocks on M1. SECTION_MONITORS lists both as blocked.
     */
    public static SnapshotWriter.Builder deadlock(SnapshotWriter.Builder b) {
        b.thread(R_MAIN, 1, O_MAIN, "main").span(T0, 0)
                .event(T0, EVENT_THREAD_START, 0, O_MAIN, 1)
                .event(t(300), EVENT_MONITOR_ENTER, S_RUN, M2, 0);
        b.thread(R_W1, 12, O_W1, "worker-1").span(t(50), 0)
                .event(t(50), EVENT_THREAD_START, 0, O_W1, 12)
                .event(t(310), EVENT_MONITOR_ENTER, S_INIT, M1, 0);
        b.monitor(R_MAIN, MSTATE_BLOCKED, M2, 0xAAAA0002, 12);
        b.monitor(R_W1, MSTATE_BLOCKED, M1, 0xAAAA0001, 1);
        return b;
    }

    /** Wait/notify: the waiter is notified once (timeout 0) and times out once (timeout 50 ms). */
    public static SnapshotWriter.Builder waitNotify(SnapshotWriter.Builder b) {
        b.thread(R_WAITER, 13, O_WAITER, ODD_NAME).span(t(20), 0).group("workers, all", "main")
                .event(t(20), EVENT_THREAD_START, 0, O_WAITER, 13)
                .event(t(400), EVENT_MONITOR_WAIT, S_WAIT, M3, 0)
                .event(t(500), EVENT_MONITOR_WAITED, 0, 0, M3, 0, 0)
                .event(t(600), EVENT_MONITOR_WAIT, S_WAIT, M3, 50)
                .event(t(650), EVENT_MONITOR_WAITED, FLAG_TIMED_OUT, 0, M3, 0, 0);
        return b;
    }

    /**
     * Handoff chain on M4: h1 gets M4 after contention (owner unknown), h2 and h3 block
     * while h1 holds it; h2 gets it, h1 blocks again while h2 holds it; h3 gets it, then h1.
     * h1 ends at t(5000).
     */
    public static SnapshotWriter.Builder handoffChain(SnapshotWriter.Builder b) {
        b.thread(R_H1, 20, O_H1, "h1").span(t(5), t(5000)).flags(RING_ENDED)
                .event(t(5), EVENT_THREAD_START, 0, O_H1, 20)
                .event(t(900), EVENT_MONITOR_ENTER, S_RUN, M4, 0)
                .event(t(1000), EVENT_MONITOR_ENTERED, 0, M4, 0)
                .event(t(1250), EVENT_MONITOR_ENTER, S_RUN, M4, 0)
                .event(t(1400), EVENT_MONITOR_ENTERED, 0, M4, 0)
                .event(t(5000), EVENT_THREAD_END, 0, O_H1, 20);
        b.thread(R_H2, 21, O_H2, "h2").span(t(6), 0)
                .event(t(6), EVENT_THREAD_START, 0, O_H2, 21)
                .event(t(1100), EVENT_MONITOR_ENTER, S_RUN, M4, 0)
                .event(t(1200), EVENT_MONITOR_ENTERED, 0, M4, 0);
        b.thread(R_H3, 22, O_H3, "h3").span(t(7), 0)
                .event(t(7), EVENT_THREAD_START, 0, O_H3, 22)
                .event(t(1150), EVENT_MONITOR_ENTER, S_GONE, M4, 0)
                .event(t(1300), EVENT_MONITOR_ENTERED, 0, M4, 0);
        return b;
    }

    /** GC ring with two pauses: [700, 750] and [800, 820] us. */
    public static SnapshotWriter.Builder gc(SnapshotWriter.Builder b) {
        b.thread(R_GC, -1, 0, "GC").flags(RING_SYSTEM).span(T0, 0).group("", "")
                .event(t(700), EVENT_GC_START, 0, 0, 0)
                .event(t(750), EVENT_GC_FINISH, 0, 0, 0)
                .event(t(800), EVENT_GC_START, 0, 0, 0)
                .event(t(820), EVENT_GC_FINISH, 0, 0, 0);
        return b;
    }

    /**
     * A late ring that lost its oldest records: it starts with an ENTERED and a WAITED whose
     * begins were overwritten, then blocks on M5 once, and holds a record of unknown type 17.
     */
    public static SnapshotWriter.Builder overwritten(SnapshotWriter.Builder b) {
        b.thread(R_VICTIM, 30, O_VICTIM, "victim").flags(RING_LATE).span(t(1), 0)
                .counters(10, 5, 2, 1).capacity(5)
                .event(t(2000), EVENT_MONITOR_ENTERED, 0, M5, 0)
                .event(t(2100), EVENT_MONITOR_WAITED, FLAG_TIMED_OUT, 0, M5, 0, 0)
                .event(t(2200), EVENT_MONITOR_ENTER, S_RUN, M5, 0)
                .event(t(2250), 17, 0, 0, M5, 1234, 5678)
                .event(t(2300), EVENT_MONITOR_ENTERED, 0, M5, 0);
        return b;
    }

    /** Every scenario in one snapshot. */
    public static SnapshotWriter.Builder all() {
        return overwritten(gc(handoffChain(waitNotify(deadlock(base())))));
    }
}
