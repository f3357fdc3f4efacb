package dev.convoy.analysis;

import static dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_ENTER;
import static dev.convoy.snapshot.SnapshotFormat.EVENT_THREAD_START;
import static dev.convoy.snapshot.SnapshotFormat.MSTATE_BLOCKED;
import static dev.convoy.snapshot.SnapshotFormat.MSTATE_WAITING;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.testing.RecordingBuilder;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.report.ContentionReport;

class DeadlocksTest {

    private static Recording read(RecordingBuilder b) throws Exception {
        return SnapshotReader.read(b.toBytes());
    }

    @Test
    void twoThreadCycleIsReportedOnceFromTheLowestRing() throws Exception {
        Recording r = read(deadlock(base()));
        List<Deadlocks.Deadlock> found = Deadlocks.find(r);
        assertEquals(1, found.size());
        Deadlocks.Deadlock d = found.get(0);
        assertEquals(List.of("main", "worker-1"), d.threads().stream().map(RecordedThread::name).toList());
        assertEquals(List.of(M2, M1), d.waits().stream().map(MonitorState::object).toList());
        assertEquals("main blocked on com.example.Lock#" + M2 + " owned by worker-1; worker-1 blocked on "
                + "java.lang.Object#" + M1 + " owned by main", d.describe(r));
    }

    /** An unnamed thread (a virtual thread has no name unless given one) is shown by its Java id. */
    @Test
    void anUnnamedThreadIsShownByItsJavaId() throws Exception {
        RecordingBuilder b = base();
        b.thread(R_MAIN, 1, O_MAIN, "main").span(T0, 0)
                .event(T0, EVENT_THREAD_START, 0, O_MAIN, 1)
                .event(t(300), EVENT_MONITOR_ENTER, S_RUN, M2, 0);
        b.thread(R_W1, 12, O_W1, "").span(t(50), 0)
                .event(t(310), EVENT_MONITOR_ENTER, S_INIT, M1, 0);
        b.monitor(R_MAIN, MSTATE_BLOCKED, M2, 0xAAAA0002, 12);
        b.monitor(R_W1, MSTATE_BLOCKED, M1, 0xAAAA0001, 1);
        Recording r = read(b);
        Deadlocks.Deadlock d = Deadlocks.find(r).get(0);
        assertEquals("main blocked on com.example.Lock#" + M2 + " owned by thread 12; thread 12 blocked on "
                + "java.lang.Object#" + M1 + " owned by main", d.describe(r));
        String report = ContentionReport.of(r).render(ContentionReport.Style.TEXT);
        assertTrue(report.contains("thread 12 is blocked on"), report);
    }

    @Test
    void aChainThatEndsInARunningOwnerIsNoDeadlock() throws Exception {
        RecordingBuilder b = base();
        b.thread(R_MAIN, 1, O_MAIN, "main").span(T0, 0)
                .event(T0, EVENT_THREAD_START, 0, O_MAIN, 1)
                .event(t(300), EVENT_MONITOR_ENTER, S_RUN, M2, 0);
        b.thread(R_W1, 12, O_W1, "worker-1").span(t(50), 0)
                .event(t(50), EVENT_THREAD_START, 0, O_W1, 12)
                .event(t(310), EVENT_MONITOR_ENTER, S_INIT, M1, 0);
        b.thread(R_WAITER, 13, O_WAITER, "runner").span(t(20), 0).event(t(20), EVENT_THREAD_START, 0, O_WAITER, 13);
        b.monitor(R_MAIN, MSTATE_BLOCKED, M2, 0xAAAA0002, 12);   // main -> worker-1
        b.monitor(R_W1, MSTATE_BLOCKED, M1, 0xAAAA0001, 13);     // worker-1 -> runner, who runs
        b.monitor(R_WAITER, MSTATE_WAITING, M3, 0xAAAA0003, -1); // waiting is not blocking
        assertEquals(List.of(), Deadlocks.find(read(b)));
    }

    @Test
    void aThreeThreadCycleBehindABlockedBystanderIsFound() throws Exception {
        RecordingBuilder b = base();
        long[][] threads = {{R_H1, 21, O_H1}, {R_H2, 22, O_H2}, {R_H3, 23, O_H3}, {R_VICTIM, 24, O_VICTIM}};
        for (long[] t : threads) {
            b.thread(t[0], t[1], t[2], "t" + t[1]).span(t(10), 0).event(t(10), EVENT_THREAD_START, 0, t[2], t[1]);
        }
        b.monitor(R_VICTIM, MSTATE_BLOCKED, M4, 0xAAAA0004, 22); // bystander -> cycle
        b.monitor(R_H1, MSTATE_BLOCKED, M1, 0xAAAA0001, 22);
        b.monitor(R_H2, MSTATE_BLOCKED, M2, 0xAAAA0002, 23);
        b.monitor(R_H3, MSTATE_BLOCKED, M3, 0xAAAA0003, 21);
        Recording r = read(b);
        List<Deadlocks.Deadlock> found = Deadlocks.find(r);
        assertEquals(1, found.size(), found::toString);
        assertEquals(List.of("t21", "t22", "t23"),
                found.get(0).threads().stream().map(RecordedThread::name).toList());
    }

    /**
     * The owner has no ring (a convoy- thread, or a holder refused a ring under the memory
     * cap): the walk ends there, with no one-thread "cycle" of the blocked thread.
     */
    @Test
    void anOwnerWithoutARingIsNoDeadlock() throws Exception {
        RecordingBuilder b = base();
        b.thread(R_MAIN, 1, O_MAIN, "main").span(T0, 0)
                .event(T0, EVENT_THREAD_START, 0, O_MAIN, 1)
                .event(t(300), EVENT_MONITOR_ENTER, S_RUN, M2, 0);
        b.thread(R_W1, 12, O_W1, "worker-1").span(t(50), 0)
                .event(t(50), EVENT_THREAD_START, 0, O_W1, 12)
                .event(t(310), EVENT_MONITOR_ENTER, S_INIT, M1, 0);
        b.monitor(R_MAIN, MSTATE_BLOCKED, M2, 0xAAAA0002, 12); // main -> worker-1
        b.monitor(R_W1, MSTATE_BLOCKED, M1, 0xAAAA0001, 99);  // worker-1 -> thread 99: no ring
        Recording r = read(b);
        assertEquals(List.of(), Deadlocks.find(r));
        String report = ContentionReport.of(r).render(ContentionReport.Style.TEXT);
        assertTrue(!report.contains("Deadlock 1 ("), report);
    }

    /** A monitor entry naming a ring the threads section does not have is ignored, not a crash. */
    @Test
    void aMonitorEntryOfAnUnknownRingIsIgnored() throws Exception {
        RecordingBuilder b = deadlock(base());
        b.monitor(777, MSTATE_BLOCKED, M3, 0xAAAA0003, 99); // ring 777 -> thread 99, neither recorded
        Recording r = read(b);
        List<Deadlocks.Deadlock> found = Deadlocks.find(r);
        assertEquals(1, found.size(), "the real cycle is still found");
        assertEquals(List.of("main", "worker-1"), found.get(0).threads().stream().map(RecordedThread::name).toList());
        for (ContentionReport.Style style : ContentionReport.Style.values()) {
            ContentionReport.of(r).render(style);
        }
    }
}
