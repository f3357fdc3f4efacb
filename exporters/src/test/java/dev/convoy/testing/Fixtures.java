package dev.convoy.testing;

import static dev.convoy.snapshot.SnapshotFormat.*;

import dev.convoy.model.Frame;
import dev.convoy.model.LineEntry;
import dev.convoy.model.MethodInfo;
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
    public static RecordingBuilder base() {
        RecordingBuilder b = new RecordingBuilder()
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
    public static RecordingBuilder deadlock(RecordingBuilder b) {
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
    public static RecordingBuilder waitNotify(RecordingBuilder b) {
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
    public static RecordingBuilder handoffChain(RecordingBuilder b) {
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
    public static RecordingBuilder gc(RecordingBuilder b) {
        b.thread(R_GC, -1, 0, "GC").flags(RING_SYSTEM).span(T0, 0).group("", "")
                .event(t(700), EVENT_GC_START, 0, 0, 0)
                .event(t(750), EVENT_GC_FINISH, 0, 0, 0)
                .event(t(800), EVENT_GC_START, 0, 0, 0)
                .event(t(820), EVENT_GC_FINISH, 0, 0, 0);
        return b;
    }

    /**
     * A late ring that lost its oldest records (5 overwritten, no SECTION_LOSSES entry: the loss
     * is the one a reader makes of the counter, from the recording start to its first record at
     * 200): it starts with an ENTERED and a WAITED whose begins were overwritten, then blocks on
     * M5 once, and holds a record of unknown type 40. All of it before the other scenarios' facts
     * (from 300), so that its loss leaves their inferences alone.
     */
    public static RecordingBuilder overwritten(RecordingBuilder b) {
        b.thread(R_VICTIM, 30, O_VICTIM, "victim").flags(RING_LATE).span(t(1), 0)
                .counters(10, 5, 2, 1).capacity(5)
                .event(t(200), EVENT_MONITOR_ENTERED, 0, M5, 0)
                .event(t(210), EVENT_MONITOR_WAITED, FLAG_TIMED_OUT, 0, M5, 0, 0)
                .event(t(220), EVENT_MONITOR_ENTER, S_RUN, M5, 0)
                .event(t(225), 40, 0, 0, M5, 1234, 5678)
                .event(t(230), EVENT_MONITOR_ENTERED, 0, M5, 0);
        return b;
    }

    // contention analysis scenario
    public static final long C_QUEUE = 104;
    public static final long O_P = 1101, O_C1 = 1102, O_C2 = 1103, O_C3 = 1104, O_C4 = 1105, O_S = 1106, O_W = 1107;
    public static final long Q = 2101, L2 = 2102;
    public static final long R_P = 140, R_C1 = 141, R_C2 = 142, R_C3 = 143, R_C4 = 144, R_S = 145, R_W = 146;
    public static final long TID_P = 40, TID_C1 = 41, TID_C2 = 42, TID_C3 = 43, TID_C4 = 44, TID_S = 45, TID_W = 46;

    /**
     * Contention analysis (events 16..24), times in us after T0:
     * <ul>
     * <li>start chain: main starts producer (10 -> 15), consumers c1..c4 (20..50 -> 25..55)
     *     and waiter (60 -> 65); producer starts sleeper (850 -> 860);</li>
     * <li>queue Q: c1..c4 wait at 100, 110, 120, 130; producer notify at 200 wakes c2
     *     (210); notifyAll at 300 wakes c1 (310), c3 (320), c4 (330); c2 blocks on Q
     *     340..360 held by c4; c1 waits 400..500 and its wake binds to the producer's notify
     *     at 505 (recorded after the wake); producer blocks 550..570, c1 releases Q by
     *     waiting at 560 (still waiting at the snapshot); c3 waits with timeout 50 ms at
     *     600 and times out at 650;</li>
     * <li>interrupt: waiter waits on L2 at 700; main notifies L2 at 750 and interrupts the
     *     waiter at 800 (it was waiting); its wait ends at 810, InterruptedException at 815;
     *     it ends at 820;</li>
     * <li>sleeper sleeps 1 ms 900..1900, ends at 2000;</li>
     * <li>join chain: producer joins sleeper 1100..2002 (inner wait 1101..2001), ends at
     *     2100; main joins producer 1000..2102 (inner wait 1001..2101), ends at 3000.</li>
     * </ul>
     */
    public static RecordingBuilder contention(RecordingBuilder b) {
        b.clazz(C_QUEUE, "Lcom/example/Queue;", "Queue.java");
        long[] objs = {O_P, O_C1, O_C2, O_C3, O_C4, O_S, O_W};
        for (int i = 0; i < objs.length; i++) {
            b.object(objs[i], 0x2000_0000 + i, OBJ_THREAD, C_THREAD);
        }
        b.object(Q, 0xBBBB0001, OBJ_PLAIN, C_QUEUE).object(L2, 0xBBBB0002, OBJ_PLAIN, C_LOCK);
        b.thread(R_MAIN, 1, O_MAIN, "main").span(T0, t(3000)).flags(RING_ENDED)
                .event(T0, EVENT_THREAD_START, 0, O_MAIN, 1)
                .event(t(10), EVENT_START_CALL, 0, S_RUN, O_P, 0, TID_P)
                .event(t(20), EVENT_START_CALL, 0, S_RUN, O_C1, 0, TID_C1)
                .event(t(30), EVENT_START_CALL, 0, S_RUN, O_C2, 0, TID_C2)
                .event(t(40), EVENT_START_CALL, 0, S_RUN, O_C3, 0, TID_C3)
                .event(t(50), EVENT_START_CALL, 0, S_RUN, O_C4, 0, TID_C4)
                .event(t(60), EVENT_START_CALL, 0, S_RUN, O_W, 0, TID_W)
                .event(t(750), EVENT_NOTIFY, S_RUN, L2, 0)
                .event(t(800), EVENT_INTERRUPT_CALL, 0, S_RUN, O_W, 1, TID_W)
                .event(t(1000), EVENT_JOIN, 0, S_RUN, O_P, 0, TID_P)
                .event(t(1001), EVENT_MONITOR_WAIT, S_WAIT, O_P, 0)
                .event(t(2101), EVENT_MONITOR_WAITED, 0, 0, O_P, 0, 0)
                .event(t(2102), EVENT_JOINED, 0, 0, O_P, 0, TID_P)
                .event(t(3000), EVENT_THREAD_END, 0, O_MAIN, 1);
        b.thread(R_P, TID_P, O_P, "producer").span(t(15), t(2100)).flags(RING_ENDED)
                .event(t(15), EVENT_THREAD_START, 0, O_P, TID_P)
                .event(t(200), EVENT_NOTIFY, S_RUN, Q, 0)
                .event(t(300), EVENT_NOTIFY_ALL, S_RUN, Q, 0)
                .event(t(505), EVENT_NOTIFY, S_RUN, Q, 0)
                .event(t(550), EVENT_MONITOR_ENTER, S_RUN, Q, 0)
                .event(t(570), EVENT_MONITOR_ENTERED, 0, Q, 0)
                .event(t(850), EVENT_START_CALL, 0, S_RUN, O_S, 0, TID_S)
                .event(t(1100), EVENT_JOIN, 0, S_RUN, O_S, 0, TID_S)
                .event(t(1101), EVENT_MONITOR_WAIT, S_WAIT, O_S, 0)
                .event(t(2001), EVENT_MONITOR_WAITED, 0, 0, O_S, 0, 0)
                .event(t(2002), EVENT_JOINED, 0, 0, O_S, 0, TID_S)
                .event(t(2100), EVENT_THREAD_END, 0, O_P, TID_P);
        b.thread(R_C1, TID_C1, O_C1, "c1").span(t(25), 0)
                .event(t(25), EVENT_THREAD_START, 0, O_C1, TID_C1)
                .event(t(100), EVENT_MONITOR_WAIT, S_WAIT, Q, 0)
                .event(t(310), EVENT_MONITOR_WAITED, 0, 0, Q, 0, 0)
                .event(t(400), EVENT_MONITOR_WAIT, S_WAIT, Q, 0)
                .event(t(500), EVENT_MONITOR_WAITED, 0, 0, Q, 0, 0)
                .event(t(560), EVENT_MONITOR_WAIT, S_WAIT, Q, 0);
        b.thread(R_C2, TID_C2, O_C2, "c2").span(t(35), 0)
                .event(t(35), EVENT_THREAD_START, 0, O_C2, TID_C2)
                .event(t(110), EVENT_MONITOR_WAIT, S_WAIT, Q, 0)
                .event(t(210), EVENT_MONITOR_WAITED, 0, 0, Q, 0, 0)
                .event(t(340), EVENT_MONITOR_ENTER, S_INIT, Q, 0)
                .event(t(360), EVENT_MONITOR_ENTERED, 0, Q, 0);
        b.thread(R_C3, TID_C3, O_C3, "c3").span(t(45), 0)
                .event(t(45), EVENT_THREAD_START, 0, O_C3, TID_C3)
                .event(t(120), EVENT_MONITOR_WAIT, S_WAIT, Q, 0)
                .event(t(320), EVENT_MONITOR_WAITED, 0, 0, Q, 0, 0)
                .event(t(600), EVENT_MONITOR_WAIT, S_GONE, Q, 50)
                .event(t(650), EVENT_MONITOR_WAITED, FLAG_TIMED_OUT, 0, Q, 0, 0);
        b.thread(R_C4, TID_C4, O_C4, "c4").span(t(55), 0)
                .event(t(55), EVENT_THREAD_START, 0, O_C4, TID_C4)
                .event(t(130), EVENT_MONITOR_WAIT, S_WAIT, Q, 0)
                .event(t(330), EVENT_MONITOR_WAITED, 0, 0, Q, 0, 0);
        b.thread(R_S, TID_S, O_S, "sleeper").span(t(860), t(2000)).flags(RING_ENDED)
                .event(t(860), EVENT_THREAD_START, 0, O_S, TID_S)
                .event(t(900), EVENT_SLEEP, S_RUN, 0, 1)
                .event(t(1900), EVENT_SLEPT, 0, 0, 0)
                .event(t(2000), EVENT_THREAD_END, 0, O_S, TID_S);
        b.thread(R_W, TID_W, O_W, "waiter").span(t(65), t(820)).flags(RING_ENDED)
                .event(t(65), EVENT_THREAD_START, 0, O_W, TID_W)
                .event(t(700), EVENT_MONITOR_WAIT, S_WAIT, L2, 0)
                .event(t(810), EVENT_MONITOR_WAITED, 0, 0, L2, 0, 0)
                .event(t(815), EVENT_THREAD_INTERRUPTED, S_RUN, 0, 0)
                .event(t(820), EVENT_THREAD_END, 0, O_W, TID_W);
        b.monitor(R_C1, MSTATE_WAITING, Q, 0xBBBB0001, -1);
        return b;
    }

    // parks (LockSupport.park*, snapshot format 1.2)
    public static final long C_RL_SYNC = 110, C_COND = 111, C_LOCK_SUPPORT = 112;
    public static final long M_PARK = 0x7F00_0000_5000L;
    public static final int S_PARK = 10;
    public static final long RL1 = 3001, RL2 = 3002, COND = 3003;
    public static final long O_HOLDER = 1201, O_ACQ = 1202, O_CONS = 1203;
    public static final long R_HOLDER = 150, R_ACQ = 151, R_CONS = 152;
    public static final long TID_HOLDER = 50, TID_ACQ = 51, TID_CONS = 52;
    /** The user-facing class of RL1 and RL2 (ReentrantLock$NonfairSync's outer class). */
    public static final String REENTRANT_LOCK = "java.util.concurrent.locks.ReentrantLock";
    public static final String CONDITION_OBJECT = "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject";

    /** The classes, objects, method and stack of the park scenarios (RL1, RL2: ReentrantLock syncs; COND a condition). */
    public static RecordingBuilder parkBase(RecordingBuilder b) {
        b.clazz(C_RL_SYNC, "Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;", "ReentrantLock.java")
                .clazz(C_COND, "Ljava/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject;",
                        "AbstractQueuedSynchronizer.java")
                .clazz(C_LOCK_SUPPORT, "Ljava/util/concurrent/locks/LockSupport;", "LockSupport.java")
                .method(new MethodInfo(M_PARK, C_LOCK_SUPPORT, "park", "(Ljava/lang/Object;)V", false, List.of()))
                .stack(S_PARK, false, new Frame(M_PARK, 7), new Frame(M_RUN, 12))
                .object(RL1, 0xCCCC0001, OBJ_PLAIN, C_RL_SYNC)
                .object(RL2, 0xCCCC0002, OBJ_PLAIN, C_RL_SYNC)
                .object(COND, 0xCCCC0003, OBJ_PLAIN, C_COND);
        long[] objs = {O_HOLDER, O_ACQ, O_CONS};
        for (int i = 0; i < objs.length; i++) {
            b.object(objs[i], 0x3000_0000 + i, OBJ_THREAD, C_THREAD);
        }
        return b;
    }

    /**
     * Parks, times in us after T0 (holder unparks everyone):
     * <ul>
     * <li>acquirer parks to acquire RL1 (FLAG_LOCK, owner holder) 100..200; holder unparks it
     *     at 180;</li>
     * <li>consumer parks on COND 300..360, unparked at 350; parks on COND with a 1 ms timeout
     *     400..1400 and times out; holder unparks it at 1500, before its park 1600..1601 (the
     *     permit makes it return at once);</li>
     * <li>acquirer parks without a blocker 1990..2050, unparked at 2000 and again at 2010 (the
     *     second finds it unparked); parks on COND 2100..2200, interrupted (an unpark at 2150
     *     is not its wake);</li>
     * <li>consumer parks to acquire RL1 (owner holder) at 3000, still parked at the snapshot
     *     (MSTATE_PARKED, owner holder, who is running: no deadlock).</li>
     * </ul>
     */
    public static RecordingBuilder parks(RecordingBuilder b) {
        parkBase(b);
        b.thread(R_HOLDER, TID_HOLDER, O_HOLDER, "holder").span(t(10), 0)
                .event(t(10), EVENT_THREAD_START, 0, O_HOLDER, TID_HOLDER)
                .event(t(180), EVENT_UNPARK, 0, 0, O_ACQ, 0, TID_ACQ)
                .event(t(350), EVENT_UNPARK, 0, 0, O_CONS, 0, TID_CONS)
                .event(t(1500), EVENT_UNPARK, 0, 0, O_CONS, 0, TID_CONS)
                .event(t(2000), EVENT_UNPARK, 0, 0, O_ACQ, 0, TID_ACQ)
                .event(t(2010), EVENT_UNPARK, 0, 0, O_ACQ, 0, TID_ACQ)
                .event(t(2150), EVENT_UNPARK, 0, 0, O_ACQ, 0, TID_ACQ);
        b.thread(R_ACQ, TID_ACQ, O_ACQ, "acquirer").span(t(11), 0)
                .event(t(11), EVENT_THREAD_START, 0, O_ACQ, TID_ACQ)
                .event(t(100), EVENT_PARK, FLAG_LOCK, S_PARK, RL1, 0, TID_HOLDER)
                .event(t(200), EVENT_PARKED, 0, 0, RL1, 0, 0)
                .event(t(1990), EVENT_PARK, 0, S_PARK, 0, 0, -1)
                .event(t(2050), EVENT_PARKED, 0, 0, 0, 0, 0)
                .event(t(2100), EVENT_PARK, 0, S_PARK, COND, 0, -1)
                .event(t(2200), EVENT_PARKED, FLAG_INTERRUPTED, 0, COND, 0, 0);
        b.thread(R_CONS, TID_CONS, O_CONS, "consumer").span(t(12), 0)
                .event(t(12), EVENT_THREAD_START, 0, O_CONS, TID_CONS)
                .event(t(300), EVENT_PARK, 0, S_PARK, COND, 0, -1)
                .event(t(360), EVENT_PARKED, 0, 0, COND, 0, 0)
                .event(t(400), EVENT_PARK, 0, S_PARK, COND, 1_000_000, -1)
                .event(t(1400), EVENT_PARKED, FLAG_TIMED_OUT, 0, COND, 0, 0)
                .event(t(1600), EVENT_PARK, 0, S_PARK, COND, 0, -1)
                .event(t(1601), EVENT_PARKED, 0, 0, COND, 0, 0)
                .event(t(3000), EVENT_PARK, FLAG_LOCK, S_PARK, RL1, 0, TID_HOLDER);
        b.monitor(R_CONS, MSTATE_PARKED, RL1, 0xCCCC0001, TID_HOLDER);
        return b;
    }

    /**
     * Two ReentrantLocks deadlocked: holder holds RL1 and parks to acquire RL2 at 500;
     * acquirer holds RL2 and parks to acquire RL1 at 510. Both MSTATE_PARKED.
     */
    public static RecordingBuilder parkDeadlock(RecordingBuilder b) {
        parkBase(b);
        b.thread(R_HOLDER, TID_HOLDER, O_HOLDER, "holder").span(t(10), 0)
                .event(t(10), EVENT_THREAD_START, 0, O_HOLDER, TID_HOLDER)
                .event(t(500), EVENT_PARK, FLAG_LOCK, S_PARK, RL2, 0, TID_ACQ);
        b.thread(R_ACQ, TID_ACQ, O_ACQ, "acquirer").span(t(11), 0)
                .event(t(11), EVENT_THREAD_START, 0, O_ACQ, TID_ACQ)
                .event(t(510), EVENT_PARK, FLAG_LOCK, S_PARK, RL1, 0, TID_HOLDER);
        b.monitor(R_HOLDER, MSTATE_PARKED, RL2, 0xCCCC0002, TID_ACQ);
        b.monitor(R_ACQ, MSTATE_PARKED, RL1, 0xCCCC0001, TID_HOLDER);
        return b;
    }

    /**
     * A mixed deadlock: holder holds monitor M2 and parks to acquire RL1 at 500; acquirer holds
     * RL1 and blocks entering M2 at 510 (MSTATE_BLOCKED, owner holder).
     */
    public static RecordingBuilder mixedDeadlock(RecordingBuilder b) {
        parkBase(b);
        b.thread(R_HOLDER, TID_HOLDER, O_HOLDER, "holder").span(t(10), 0)
                .event(t(10), EVENT_THREAD_START, 0, O_HOLDER, TID_HOLDER)
                .event(t(500), EVENT_PARK, FLAG_LOCK, S_PARK, RL1, 0, TID_ACQ);
        b.thread(R_ACQ, TID_ACQ, O_ACQ, "acquirer").span(t(11), 0)
                .event(t(11), EVENT_THREAD_START, 0, O_ACQ, TID_ACQ)
                .event(t(510), EVENT_MONITOR_ENTER, S_RUN, M2, 0);
        b.monitor(R_HOLDER, MSTATE_PARKED, RL1, 0xCCCC0001, TID_ACQ);
        b.monitor(R_ACQ, MSTATE_BLOCKED, M2, 0xAAAA0002, TID_HOLDER);
        return b;
    }

    // losses (snapshot format 1.5)
    public static final long O_LE = 1301, O_LW = 1302, O_LN = 1303, O_LP = 1304, O_LB = 1305;
    public static final long LQ = 3101, LM = 3102, LH = 3103, LI = 3104;
    public static final long R_LE = 160, R_LW = 161, R_LN = 162, R_LP = 163, R_LB = 164;
    public static final long TID_LE = 60, TID_LW = 61, TID_LN = 62, TID_LP = 63, TID_LB = 64;

    /**
     * Records lost (SECTION_LOSSES), times in us after T0; without the losses every fact below
     * would give a state, an owner or an arrow:
     * <ul>
     * <li>lost-early (from 10): its first records aged out of the history (10..200, 100 records),
     *     it notifies LM at 200, then its ring overwrote 200 records (200..400); its first record
     *     kept after them is the MONITOR_WAITED on LQ at 400 (its wait was lost). It blocks on LH
     *     450..480 (owner and releaser recorded by the VM: blocked);</li>
     * <li>waiter (from 15): waits on LQ 100..300 (notified: not timed out) and calls notifyAll on
     *     LQ itself at 320. The notifier's notifyAll that woke it was lost: the wake is bound to
     *     nothing (not to its own later notifyAll);</li>
     * <li>notifier (from 20): blocks on LM at 140, unparks parker at 150; its ring overwrote 500
     *     records 150..350; its first record kept after them is the MONITOR_ENTERED on LM at 350
     *     (the block is cut at 150), then it calls notifyAll on LQ at 360;</li>
     * <li>parker (from 25): gets LH after contention 40..45 and LI 48..52 (owners unknown), parks
     *     120..330 (not bound to the unpark at 150: the unpark that woke it may be lost);</li>
     * <li>blocked (from 30): blocks on LH 200..380 (the VM recorded parker as the owner at the
     *     enter and as the releaser), then on LI 390..395 (its owner and releaser would be
     *     inferred from parker's ENTERED at 52, across the notifier's loss: unknown).</li>
     * </ul>
     * INFO: 700 records overwritten, 100 aged, the history complete from 200.
     */
    public static RecordingBuilder losses(RecordingBuilder b) {
        long[] objs = {O_LE, O_LW, O_LN, O_LP, O_LB};
        for (int i = 0; i < objs.length; i++) {
            b.object(objs[i], 0x4000_0000 + i, OBJ_THREAD, C_THREAD);
        }
        b.object(LQ, 0xDDDD0001, OBJ_PLAIN, C_OBJECT).object(LM, 0xDDDD0002, OBJ_PLAIN, C_LOCK)
                .object(LH, 0xDDDD0003, OBJ_PLAIN, C_LOCK).object(LI, 0xDDDD0004, OBJ_PLAIN, C_LOCK);
        b.info("records.written", "1500").info("records.overwritten", "700").info("records.aged", "100")
                .info("history", "memory maxsize=1048576 maxage=0 chunks=3 bytes=1000000")
                .info("history.from.ns", Long.toString(t(200)));
        b.thread(R_LE, TID_LE, O_LE, "lost-early").span(t(10), 0)
                .loss(LOSS_AGED, t(10), t(200), 100)
                .event(t(200), EVENT_NOTIFY, S_RUN, LM, 0)
                .loss(LOSS_OVERWRITTEN, t(200), t(400), 200)
                .event(t(400), EVENT_MONITOR_WAITED, 0, 0, LQ, 0, 0)
                .event(t(450), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, LH, 0, TID_LB)
                .event(t(480), EVENT_MONITOR_ENTERED, FLAG_RELEASER, 0, LH, TID_LB, 0);
        b.thread(R_LW, TID_LW, O_LW, "waiter").span(t(15), 0)
                .event(t(15), EVENT_THREAD_START, 0, O_LW, TID_LW)
                .event(t(100), EVENT_MONITOR_WAIT, S_WAIT, LQ, 0)
                .event(t(300), EVENT_MONITOR_WAITED, 0, 0, LQ, 0, 0)
                .event(t(320), EVENT_NOTIFY_ALL, S_RUN, LQ, 0);
        b.thread(R_LN, TID_LN, O_LN, "notifier").span(t(20), 0)
                .event(t(20), EVENT_THREAD_START, 0, O_LN, TID_LN)
                .event(t(140), EVENT_MONITOR_ENTER, S_RUN, LM, 0)
                .event(t(150), EVENT_UNPARK, 0, 0, O_LP, 0, TID_LP)
                .loss(LOSS_OVERWRITTEN, t(150), t(350), 500)
                .event(t(350), EVENT_MONITOR_ENTERED, 0, LM, 0)
                .event(t(360), EVENT_NOTIFY_ALL, S_RUN, LQ, 0);
        b.thread(R_LP, TID_LP, O_LP, "parker").span(t(25), 0)
                .event(t(25), EVENT_THREAD_START, 0, O_LP, TID_LP)
                .event(t(40), EVENT_MONITOR_ENTER, S_RUN, LH, 0)
                .event(t(45), EVENT_MONITOR_ENTERED, 0, LH, 0)
                .event(t(48), EVENT_MONITOR_ENTER, S_RUN, LI, 0)
                .event(t(52), EVENT_MONITOR_ENTERED, 0, LI, 0)
                .event(t(120), EVENT_PARK, 0, S_RUN, 0, 0, -1)
                .event(t(330), EVENT_PARKED, 0, 0, 0, 0, 0);
        b.thread(R_LB, TID_LB, O_LB, "blocked").span(t(30), 0)
                .event(t(30), EVENT_THREAD_START, 0, O_LB, TID_LB)
                .event(t(200), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, LH, 0, TID_LP)
                .event(t(380), EVENT_MONITOR_ENTERED, FLAG_RELEASER, 0, LH, TID_LP, 0)
                .event(t(390), EVENT_MONITOR_ENTER, S_RUN, LI, 0)
                .event(t(395), EVENT_MONITOR_ENTERED, 0, LI, 0);
        return b;
    }

    /** Every scenario in one snapshot. */
    public static RecordingBuilder all() {
        return overwritten(gc(handoffChain(waitNotify(deadlock(base())))));
    }
}
