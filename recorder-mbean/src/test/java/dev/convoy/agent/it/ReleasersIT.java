package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import dev.convoy.testapps.ReleaseChain;

/**
 * The releaser of a monitor read from the VM (option {@code releasers}): recorded on a
 * MONITOR_ENTERED (FLAG_RELEASER) only while a JFR recording enables {@code jdk.JavaMonitorEnter},
 * whoever started it, never otherwise, and never stale: {@link ReleaseChain} knows the releaser
 * of every contended acquisition, and every releaser marked exact must be it, also while JFR
 * recordings start and stop every few milliseconds (the VM's word is then left unwritten by
 * releases made while the event was off). How the releasers compare with JFR's own
 * {@code previousOwner} is {@link OwnersJfrIT}'s.
 */
class ReleasersIT {

    private static final String CHAIN_LOCK = ReleaseChain.ChainLock.class.getName();

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    record Run(Recording recording, String stdout, String stderr) { }

    private Run run(Jdks.Jdk jdk, String options, List<String> jvmArgs, String main, String... args) throws Exception {
        jdk.assumePresent();
        List<String> all = new ArrayList<>(List.of("-Dconvoy.tmpdir=" + work.resolve("lib")));
        all.addAll(jvmArgs);
        ChildJvm.Result res = ChildJvm.runWith(jdk, work, Map.of(), ChildJvm.testAppsClasspath(), all,
                ChildJvm.dumping("buffer=4m,memory=256m" + options), main, args).assertSucceeded();
        return new Run(res.recording(), res.stdout(), res.stderr());
    }

    private Run storm(Jdks.Jdk jdk, String options, String... jvmArgs) throws Exception {
        return run(jdk, options, List.of(jvmArgs), LockStorm.class.getName(), "16", "200000");
    }

    /** ReleaseChain with 3 threads, {@code handoffs} hand-offs and JFR {@code jfr} (off, on, flip). */
    private Run chain(Jdks.Jdk jdk, String options, String jfr, int handoffs, int flips, String... jvmArgs)
            throws Exception {
        Run r = run(jdk, options, List.of(jvmArgs), ReleaseChain.class.getName(), "3", "" + handoffs, jfr, "" + flips);
        assertTrue(summary(r).startsWith(ReleaseChain.NAME + " OK"), r.stdout());
        return r;
    }

    /** The chain's first summary line (the JVM may print lines of its own before it). */
    private static String summary(Run r) {
        return r.stdout().lines().filter(l -> l.startsWith(ReleaseChain.NAME + " ") && l.contains(" threads="))
                .findFirst().orElse("");
    }

    private static List<Event> entered(Recording r) {
        return r.events().stream().filter(e -> e.type() == EventType.MONITOR_ENTERED).toList();
    }

    private static List<Event> withReleaser(Recording r) {
        return entered(r).stream().filter(ReleasersIT::exact).toList();
    }

    private static boolean exact(Event e) {
        return (e.flags() & SnapshotFormat.FLAG_RELEASER) != 0;
    }

    /** Enters of the chain compared with the program's own record: how many, how many exact. */
    record Truth(int acquisitions, int exact, List<String> wrong) { }

    /**
     * Pairs each chain thread's MONITOR_ENTERED on the chain lock with its acquisitions, in order
     * (every acquisition of the chain is contended), and checks each releaser marked exact against
     * the thread that really let the lock go.
     */
    private static Truth truth(Run run) {
        Recording r = run.recording();
        Map<String, List<Long>> releasers = new HashMap<>();
        for (String line : run.stdout().lines().toList()) {
            if (line.startsWith(ReleaseChain.NAME + " OK thread=")) {
                String name = line.replaceFirst(".* thread=(\\S+) .*", "$1");
                List<Long> ids = new ArrayList<>();
                for (String id : line.replaceFirst(".* releasers=", "").split(",")) {
                    ids.add(Long.parseLong(id.trim()));
                }
                releasers.put(name, ids);
            }
        }
        assertEquals(3, releasers.size(), run.stdout());
        int acquisitions = 0;
        int exact = 0;
        List<String> wrong = new ArrayList<>();
        for (RecordedThread t : r.threads()) {
            List<Long> truth = releasers.get(t.name());
            if (truth == null) {
                continue;
            }
            assertEquals(0, t.overwritten(), () -> t.name() + " lost records");
            assertEquals(0, t.dropped(), () -> t.name() + " dropped records");
            List<Event> es = t.events().stream().filter(e -> e.type() == EventType.MONITOR_ENTERED
                    && r.objectClassName(e.obj()).equals(CHAIN_LOCK)).toList();
            assertEquals(truth.size(), es.size(), () -> t.name() + ": every acquisition of the chain is contended");
            for (int i = 0; i < es.size(); i++) {
                Event e = es.get(i);
                acquisitions++;
                if (!exact(e)) {
                    continue;
                }
                exact++;
                if (e.arg() != truth.get(i) || e.arg() == t.javaThreadId()) {
                    wrong.add(t.name() + " acquisition " + i + ": exact releaser " + e.arg() + ", released by "
                            + truth.get(i));
                }
            }
        }
        return new Truth(acquisitions, exact, wrong);
    }

    /** Nearly every hand-off names its releaser, and each is the thread that let the lock go. */
    private static void readOnNearlyEveryEnter(Run run) {
        assertEquals("vm", run.recording().info().get("monitor.releasers"));
        Truth t = truth(run);
        System.out.println("[ReleasersIT] " + run.recording().info().get("jvm.version") + ": " + t.exact() + " of "
                + t.acquisitions() + " hand-offs name their releaser");
        assertEquals(List.of(), t.wrong());
        assertTrue(t.acquisitions() >= 500, "hand-offs: " + t.acquisitions());
        assertTrue(t.exact() * 100L >= t.acquisitions() * 90L, t.exact() + " of " + t.acquisitions());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.convoy.agent.it.Jdks#withCollectors")
    void aJfrRecordingOfMonitorEntersArmsTheRead(Jdks.Jdk jdk, String gc) throws Exception {
        // The JDK's default settings enable jdk.JavaMonitorEnter (threshold 20 ms).
        readOnNearlyEveryEnter(chain(jdk, ",releasers=vm", "off", 1000, 0, gc,
                "-XX:StartFlightRecording=filename=" + work.resolve("user.jfr")));
    }

    /**
     * With releasers=jfr the recorder starts its JFR recording in the background: the application's
     * start does not wait for JFR (the chain waits for it, to have hand-offs after it), the
     * hand-offs before it are inferred (not marked), and from the first exact one on nearly every
     * hand-off names its releaser, each the thread that let go.
     * JFR writes nothing (its threshold is out of reach).
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.convoy.agent.it.Jdks#withCollectors")
    void releasersJfrAreExactOnceJfrHasStartedAndJfrWritesNothing(Jdks.Jdk jdk, String gc) throws Exception {
        Run run = chain(jdk, ",releasers=jfr", "await", 1000, 0, gc);
        try (var files = Files.walk(work)) {
            assertEquals(List.of(), files.filter(p -> p.toString().endsWith(".jfr")).toList());
        }
        assertEquals("vm", run.recording().info().get("monitor.releasers"));
        Truth t = truth(run);
        assertEquals(List.of(), t.wrong());
        List<Event> chain = entered(run.recording()).stream()
                .filter(e -> CHAIN_LOCK.equals(run.recording().objectClassName(e.obj())))
                .sorted(java.util.Comparator.comparingLong(Event::ts)).toList();
        int first = 0;
        while (first < chain.size() && !exact(chain.get(first))) {
            first++;
        }
        int before = first;
        List<Event> after = chain.subList(Math.min(first, chain.size()), chain.size());
        long exactAfter = after.stream().filter(ReleasersIT::exact).count();
        System.out.println("[ReleasersIT] " + jdk + " " + gc + " releasers=jfr: " + first + " hand-offs before JFR had started, then "
                + exactAfter + " of " + after.size() + " exact");
        assertTrue(after.size() >= 500, () -> "JFR started after " + before + " of " + chain.size() + " hand-offs");
        assertTrue(exactAfter * 100L >= after.size() * 90L, exactAfter + " of " + after.size());
        // with exact releasers, the chain lock's holds are proven: each acquisition's
        // hold ends at the next hand-off, whose releaser is the holder
        dev.convoy.analysis.HoldTimes.Row holds = dev.convoy.analysis.HoldTimes.of(
                dev.convoy.analysis.ContentionIndex.of(run.recording())).rows().stream()
                .filter(row -> CHAIN_LOCK.equals(run.recording().objectClassName(row.monitor()))).findFirst()
                .orElseThrow();
        System.out.println("[ReleasersIT] " + jdk + " " + gc + " releasers=jfr: " + holds.count() + " of "
                + holds.acquisitions() + " holds of the chain lock proven");
        assertTrue(holds.count() * 100L >= after.size() * 85L, () -> holds.count() + " proven holds for "
                + after.size() + " exact hand-offs: " + holds);
    }

    /**
     * A program that ends at once ends while the recorder's JFR recording is still starting: JFR's
     * shutdown hook then calls the recorder's listener with JFR's lock held, and neither may wait
     * for the other (a JVM that never exits is the failure).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aProgramThatEndsAtOnceEndsWhileJfrStarts(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        for (int i = 0; i < 4; i++) {
            ChildJvm.Result run = ChildJvm.run(jdk, work, "releasers=jfr", dev.convoy.testapps.Scenarios.class.getName(),
                    "--list")
                    .assertSucceeded();
            assertFalse(run.stderr().contains("releasers"), run.stderr());
        }
    }

    /**
     * Recordings of jdk.JavaMonitorEnter started and stopped every few milliseconds by the program
     * itself: a release made while the event was off leaves the VM's word unwritten, so a read
     * after the next start would name an earlier releaser. Every releaser still marked exact is
     * the thread that let the lock go; the others are left to the analysis.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void releasersStayExactWhileRecordingsStartAndStop(Jdks.Jdk jdk) throws Exception {
        Run run = chain(jdk, ",releasers=vm", "flip", 2000, 150);
        assertEquals("vm", run.recording().info().get("monitor.releasers"));
        Truth t = truth(run);
        String flips = summary(run).replaceFirst(".* flips=(\\d+).*", "$1");
        System.out.println("[ReleasersIT] " + jdk + " recordings flipping: " + t.exact() + " of " + t.acquisitions()
                + " hand-offs name their releaser, " + flips + " recordings started and stopped");
        assertEquals(List.of(), t.wrong(), () -> t.wrong().size() + " of " + t.exact() + " exact releasers are not"
                + " the thread that let the lock go");
        assertTrue(Integer.parseInt(flips) >= 150, run.stdout());
        assertTrue(t.exact() > 0, "no releaser read while recordings ran");
    }

    /**
     * In a storm the VM's word is often stale (compiled code leaves a monitor with a successor
     * without writing it): no releaser marked exact may name the entering thread itself, and each
     * is a thread of the recording.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void noExactReleaserInAStormIsTheEnteringThread(Jdks.Jdk jdk) throws Exception {
        Recording r = storm(jdk, "", "-XX:StartFlightRecording=filename=" + work.resolve("user.jfr")).recording();
        assertEquals("vm", r.info().get("monitor.releasers"));
        List<Event> named = withReleaser(r);
        System.out.println("[ReleasersIT] " + jdk + " storm: " + named.size() + " of " + entered(r).size()
                + " MONITOR_ENTERED name their releaser");
        assertTrue(entered(r).size() >= 10, "too few contended enters: " + entered(r).size());
        Set<Long> ids = r.threads().stream().map(RecordedThread::javaThreadId).collect(Collectors.toSet());
        for (Event e : named) {
            assertTrue(e.arg() != e.thread().javaThreadId(), () -> e.thread().name() + " at " + e.ts()
                    + ": the exact releaser is the entering thread itself");
            assertTrue(e.arg() > 0 && ids.contains(e.arg()), () -> e.thread().name() + " at " + e.ts()
                    + ": releaser " + e.arg() + " is no thread of the recording " + ids);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void releasersVmWithoutAJfrRecordingReadNothing(Jdks.Jdk jdk) throws Exception {
        Run run = storm(jdk, ",releasers=vm");
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
