package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.analysis.MonitorStatistics.ThreadRow;
import dev.convoy.model.Recording;
import dev.convoy.report.ContentionReport;
import dev.convoy.testapps.Deadlock;
import dev.convoy.testapps.LockStorm;
import dev.convoy.testapps.ProducerConsumer;
import dev.convoy.testapps.Scenarios;
import dev.convoy.testing.PprofCheck;

/**
 * The {@code pprof} output of a real recording: every scenario of the test apps ({@code Scenarios
 * all}: the lock storm's workers block on its monitor, producer/consumer's consumers wait on the
 * buffer, {@code java.util.concurrent} threads park, the deadlock's threads stay blocked) dumped
 * on exit by the agent as a profile and a snapshot, on every JDK of {@link Jdks}. The profile follows profile.proto ({@link PprofCheck}) and its
 * totals are the report's blocked and waited times, as decoded here and as {@code go tool pprof}
 * reads them (skipped, with a message, where Go is not installed). One recording per JDK serves
 * both tests.
 */
class PprofIT {

    @TempDir
    static Path work;

    private static final Map<String, ChildJvm.Result> RUNS = new HashMap<>();

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    /** The recording of {@code jdk}, made on first use. */
    private static synchronized ChildJvm.Result run(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = RUNS.get(jdk.label());
        if (run == null) {
            run = ChildJvm.run(jdk, work, "dumponexit=pprof+snapshot,dumpdir=.,dumpname=all",
                    Scenarios.class.getName(), Scenarios.ALL).assertSucceeded();
            RUNS.put(jdk.label(), run);
        }
        return run;
    }

    /** The report's blocks, blocked ns, waits and waited ns: its thread rows summed. */
    private static long[] reportTotals(Recording r) {
        long[] v = new long[4];
        for (ThreadRow t : ContentionReport.of(r).statistics().threads()) {
            v[0] += t.blockedCount();
            v[1] += t.blockedNs();
            v[2] += t.waitedCount();
            v[3] += t.waitedNs();
        }
        return v;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void theProfileHoldsTheReportsBlockedAndWaitedTimes(Jdks.Jdk jdk) throws Exception {
        ChildJvm.Result run = run(jdk);
        Recording r = run.recording();
        long[] report = reportTotals(r);
        assertTrue(run.stdout().contains(Scenarios.FINAL_LINE_PREFIX + " OK"), run.stdout());
        assertTrue(report[0] > 0 && report[2] > 0, () -> "blocked and waited: " + java.util.Arrays.toString(report));
        assertEquals(0, r.recordsAged(), "nothing aged out: the profile, as the report, counts the history's intervals");
        PprofCheck.Profile p = PprofCheck.read(run.dumpDir().resolve("all.pb.gz"));
        assertEquals(report[0], p.total("contentions", "state", "blocked"), "blocks");
        assertEquals(report[1], p.total("delay", "state", "blocked"), "blocked ns");
        assertEquals(report[2], p.total("contentions", "state", "waited"), "waits");
        assertEquals(report[3], p.total("delay", "state", "waited"), "waited ns");
        String buffer = ProducerConsumer.BufferLock.class.getName();
        assertTrue(p.samples().stream().anyMatch(s -> s.labels().get("thread").startsWith(ProducerConsumer.CONSUMER_PREFIX)
                && s.labels().get("lock_class").equals(buffer) && s.labels().get("state").equals("waited")
                && s.labels().get("kind").equals("monitor") && p.frames(s).contains("java.lang.Object.wait")),
                "a consumer's wait on the buffer, in Object.wait");
        String storm = LockStorm.StormLock.class.getName();
        assertTrue(p.samples().stream().anyMatch(s -> s.labels().get("thread").startsWith(LockStorm.THREAD_PREFIX)
                && s.labels().get("lock_class").equals(storm) && s.labels().get("state").equals("blocked")
                && p.frames(s).get(0).startsWith(LockStorm.class.getName() + ".")), "a storm worker's block, in LockStorm");
        assertTrue(p.samples().stream().anyMatch(s -> s.labels().get("thread").equals(Deadlock.THREAD_A)
                && s.labels().get("lock_class").equals(Deadlock.LockB.class.getName())
                && s.labels().get("state").equals("blocked")), "deadlock-A's block, open at the snapshot");
        assertTrue(p.samples().stream().anyMatch(s -> s.labels().get("kind").equals("park")), "java.util.concurrent parks");
        assertTrue(p.comments().contains(r.lossSummary()), p.comments()::toString);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void goToolPprofReadsTheReportsBlockedAndWaitedTimes(Jdks.Jdk jdk) throws Exception {
        Optional<Path> go = PprofCheck.go();
        Assumptions.assumeTrue(go.isPresent(), PprofCheck.NO_GO);
        ChildJvm.Result run = run(jdk);
        long[] report = reportTotals(run.recording());
        Path file = run.dumpDir().resolve("all.pb.gz");
        assertEquals(report[1] + report[3], PprofCheck.goTotal(go.get(), file, "delay", null), "blocked + waited ns");
        assertEquals(report[1], PprofCheck.goTotal(go.get(), file, "delay", "state=blocked"), "blocked ns");
        assertEquals(report[3], PprofCheck.goTotal(go.get(), file, "delay", "state=waited"), "waited ns");
        assertEquals(report[0] + report[2], PprofCheck.goTotal(go.get(), file, "contentions", null), "blocks + waits");
        assertEquals(report[0], PprofCheck.goTotal(go.get(), file, "contentions", "state=blocked"), "blocks");
    }
}
