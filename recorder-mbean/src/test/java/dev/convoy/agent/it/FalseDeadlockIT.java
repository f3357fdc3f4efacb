package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.analysis.Deadlocks;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.report.ContentionReport;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.testapps.UnrecordedHolder;

/**
 * A thread blocked on a monitor whose owner has no ring is no deadlock: real JVMs, with the
 * owner a {@code convoy-} thread (never recorded) or a thread refused a ring under the cap.
 */
class FalseDeadlockIT {

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    private static void assertNoDeadlockThroughAnUnrecordedOwner(Recording r, String holder) {
        RecordedThread waiter = r.javaThreads().stream().filter(t -> t.name().equals(UnrecordedHolder.WAITER))
                .findFirst().orElseThrow(() -> new AssertionError("the waiter has a ring: " + r.threads()));
        MonitorState block = r.monitorState(waiter.ringId()).orElseThrow(
                () -> new AssertionError("the waiter is blocked at the snapshot: " + r.monitors()));
        assertEquals(SnapshotFormat.MSTATE_BLOCKED, block.state());
        assertTrue(block.ownerThreadId() > 0, "the JVM names the owner: " + block);
        assertFalse(r.threads().stream().anyMatch(t -> t.name().equals(holder)), "the holder has no ring");
        assertEquals(List.of(), Deadlocks.find(r), "no deadlock");
        String report = ContentionReport.of(r).render(ContentionReport.Style.TEXT);
        assertFalse(report.contains("Deadlock 1 ("), report);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void anOwnerNamedConvoyIsNoDeadlock(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping(""), UnrecordedHolder.class.getName(), "convoy")
                .assertSucceeded();
        assertTrue(run.stdout().contains(UnrecordedHolder.MARKER), run.stdout());
        assertNoDeadlockThroughAnUnrecordedOwner(run.recording(), UnrecordedHolder.CONVOY_HOLDER);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void anOwnerRefusedARingUnderTheCapIsNoDeadlock(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping("buffer=16k,memory=1m"),
                UnrecordedHolder.class.getName(), "cap", "80").assertSucceeded();
        assertTrue(run.stdout().contains(UnrecordedHolder.MARKER), run.stdout());
        Recording r = run.recording();
        assertTrue(r.infoLong("records.dropped", 0) > 0, () -> "threads were refused a ring: " + r.info());
        assertNoDeadlockThroughAnUnrecordedOwner(r, UnrecordedHolder.HOLDER);
    }
}
