package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.testapps.LockStorm;

/**
 * The releaser of a monitor read from the VM (option {@code releasers}): recorded on a
 * MONITOR_ENTERED (FLAG_RELEASER) exactly while a JFR recording enables
 * {@code jdk.JavaMonitorEnter}, whoever started it, and never otherwise. How the releasers
 * compare with JFR's own {@code previousOwner} is {@link OwnersJfrIT}'s.
 */
class ReleasersIT {

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    record Run(Recording recording, String stderr) { }

    private Run storm(Jdks.Jdk jdk, String options, String... jvmArgs) throws Exception {
        jdk.assumePresent();
        List<String> args = new ArrayList<>(List.of("-Dconvoy.tmpdir=" + work.resolve("lib")));
        args.addAll(List.of(jvmArgs));
        ChildJvm.Result res = ChildJvm.runWith(jdk, work, java.util.Map.of(), ChildJvm.testAppsClasspath(), args,
                ChildJvm.dumping("buffer=1m,memory=256m" + options), LockStorm.class.getName(), "16", "200000")
                .assertSucceeded();
        return new Run(res.recording(), res.stderr());
    }

    private static List<Event> entered(Recording r) {
        return r.events().stream().filter(e -> e.type() == EventType.MONITOR_ENTERED).toList();
    }

    private static List<Event> withReleaser(Recording r) {
        return entered(r).stream().filter(e -> (e.flags() & SnapshotFormat.FLAG_RELEASER) != 0).toList();
    }

    /** Nearly every ENTERED names its releaser, and every releaser named is a thread of the recording. */
    private static void readOnNearlyEveryEnter(Recording r) {
        assertEquals("vm", r.info().get("monitor.releasers"));
        List<Event> entered = entered(r);
        List<Event> named = withReleaser(r);
        System.out.println("[ReleasersIT] " + r.info().get("jvm.version") + ": " + named.size() + " of "
                + entered.size() + " MONITOR_ENTERED name their releaser");
        assertTrue(entered.size() >= 10, "too few contended enters: " + entered.size());
        assertTrue(named.size() * 100L >= entered.size() * 90L, named.size() + " of " + entered.size());
        Set<Long> ids = r.threads().stream().map(RecordedThread::javaThreadId).collect(Collectors.toSet());
        for (Event e : named) {
            assertTrue(e.arg() > 0 && ids.contains(e.arg()), () -> e.thread().name() + " at " + e.ts()
                    + ": releaser " + e.arg() + " is no thread of the recording " + ids);
        }
        Set<String> releasers = named.stream().map(e -> r.threads().stream()
                .filter(t -> t.javaThreadId() == e.arg()).findFirst().orElseThrow().name()).collect(Collectors.toSet());
        assertTrue(releasers.stream().filter(n -> n.startsWith("storm-")).count() >= 8, releasers::toString);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.convoy.agent.it.Jdks#withCollectors")
    void aJfrRecordingOfMonitorEntersArmsTheRead(Jdks.Jdk jdk, String gc) throws Exception {
        // The JDK's default settings enable jdk.JavaMonitorEnter (threshold 20 ms).
        Run run = storm(jdk, "", gc, "-XX:StartFlightRecording=filename=" + work.resolve("user.jfr"));
        readOnNearlyEveryEnter(run.recording());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.convoy.agent.it.Jdks#withCollectors")
    void releasersJfrStartsARecordingThatWritesNothing(Jdks.Jdk jdk, String gc) throws Exception {
        Run run = storm(jdk, ",releasers=jfr", gc);
        readOnNearlyEveryEnter(run.recording());
        try (var files = Files.walk(work)) {
            assertEquals(List.of(), files.filter(p -> p.toString().endsWith(".jfr")).toList());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void withoutJfrNothingIsRead(Jdks.Jdk jdk) throws Exception {
        Run run = storm(jdk, "");
        assertEquals("vm", run.recording().info().get("monitor.releasers"));
        assertTrue(entered(run.recording()).size() >= 10);
        assertEquals(List.of(), withReleaser(run.recording()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void releasersInferredReadsNothingEvenUnderJfr(Jdks.Jdk jdk) throws Exception {
        Run run = storm(jdk, ",releasers=inferred", "-XX:StartFlightRecording=filename=" + work.resolve("user.jfr"));
        assertEquals("inferred: off by option", run.recording().info().get("monitor.releasers"));
        assertTrue(entered(run.recording()).size() >= 10);
        assertEquals(List.of(), withReleaser(run.recording()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void ownersInferredReadsNoReleaser(Jdks.Jdk jdk) throws Exception {
        Run run = storm(jdk, ",owners=inferred", "-XX:StartFlightRecording=filename=" + work.resolve("user.jfr"));
        assertTrue(run.recording().info().get("monitor.releasers").startsWith("inferred: "));
        assertEquals(List.of(), withReleaser(run.recording()));
    }
}
