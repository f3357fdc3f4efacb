package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.testing.OwnerConsistency;
import dev.convoy.testapps.Deadlock;
import dev.convoy.testapps.ExitUnderContention;
import dev.convoy.testapps.HandoffChain;
import dev.convoy.testapps.LockStorm;
import dev.convoy.testapps.ProducerConsumer;
import dev.convoy.testapps.bench.suite.Workloads;

/**
 * Exact monitor owners read from the JVM at MonitorContendedEnter, checked on real programs
 * on every JDK of {@link Jdks} against a test oracle: with {@code CONVOY_TEST_OWNER_ORACLE=1}
 * the recorder suspends every other thread at each contended enter, reads the owner again and
 * asks JVMTI {@code GetObjectMonitorUsage} (a VM operation) at that one instant, and stores
 * the oracle's answer in the enter's {@code arg} (-2 when the owner had changed since the
 * event, so that the recorded owner and the oracle's are not of one instant).
 */
class OwnersIT {

    private static final String OPTIONS = ChildJvm.dumping("buffer=1m,memory=256m");
    private static final Map<String, String> ORACLE = Map.of("CONVOY_TEST_OWNER_ORACLE", "1");
    private static final long UNSTABLE = -2;

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    private Recording run(Jdks.Jdk jdk, String gc, Map<String, String> env, String options, String classpath,
                          String main, String... args) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result res = ChildJvm.runWith(jdk, work, env, classpath,
                List.of("-Dconvoy.tmpdir=" + work.resolve("lib"), gc), options, main, args).assertSucceeded();
        return res.recording();
    }

    private static final String G1 = "-XX:+UseG1GC";

    private static List<Event> enters(Recording r) {
        return r.events().stream().filter(e -> e.type() == EventType.MONITOR_ENTER).toList();
    }

    private static boolean exact(Event e) {
        return (e.flags() & SnapshotFormat.FLAG_OWNER) != 0;
    }

    /** The mode the JDK's layout calls for: owner ids since JDK 24, pointers before. */
    private static String expectedMode(Recording r) {
        String version = r.info().getOrDefault("jvm.version", "");
        int feature = Integer.parseInt(version.replaceFirst("^(\\d+).*$", "$1"));
        return feature >= 24 ? "vm-thread-id" : "vm-pointer";
    }

    private static String h2Classpath() throws URISyntaxException {
        return ChildJvm.testAppsClasspath() + File.pathSeparator
                + Paths.get(org.h2.Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /**
     * Comparable enters: the oracle answered at the instant the recorded owner still held. The
     * owner compared is the one every format shows ({@link MonitorOwnership}): exact where the
     * recorder read it, inferred otherwise.
     */
    record Tally(String app, int enters, int compared, int inferred, List<String> disagreements) { }

    private static Tally tally(String app, Recording r) {
        // No format may show an impossible inferred owner or releaser.
        OwnerConsistency.Result consistency = OwnerConsistency.check(r);
        assertEquals(List.of(), consistency.inferred(), () -> app + ": " + consistency);
        MonitorOwnership ownership = MonitorOwnership.of(r);
        List<String> bad = new ArrayList<>();
        int compared = 0;
        int inferred = 0;
        List<Event> enters = enters(r);
        for (Event e : enters) {
            if (e.arg() == UNSTABLE || e.arg() == 0) {
                continue;
            }
            compared++;
            MonitorOwnership.Owner owner = ownership.owner(e).orElse(null);
            long shown = owner == null ? 0 : owner.javaThreadId();
            if (owner != null && !owner.exact()) {
                inferred++;
            }
            if (shown != e.arg()) {
                bad.add(app + ": " + e.thread().name() + " at " + e.ts() + " shows "
                        + (owner == null ? "no owner" : owner.kind() + " owner " + shown) + ", oracle " + e.arg());
            }
        }
        return new Tally(app, enters.size(), compared, inferred, bad);
    }

    /**
     * On G1 and on ZGC, whose references the recorder must decode to compare the monitor's object
     * with the event's (coloured, on JDK 25 in a form of their own): owners are exact on both.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.convoy.agent.it.Jdks#withCollectors")
    void theOwnerReadFromTheJvmIsTheOwnerJvmtiReports(Jdks.Jdk jdk, String gc) throws Exception {
        String apps = ChildJvm.testAppsClasspath();
        List<Tally> tallies = new ArrayList<>();
        Recording storm = run(jdk, gc, ORACLE, OPTIONS, apps, LockStorm.class.getName(), "16", "200000");
        assertEquals(expectedMode(storm), storm.info().get("monitor.owners"));
        assertTrue(storm.info().get("stacks.cache").startsWith("on "), () -> gc + ": " + storm.info().get("stacks.cache"));
        tallies.add(tally("lock storm", storm));
        tallies.add(tally("handoff chain", run(jdk, gc, ORACLE, OPTIONS, apps, HandoffChain.class.getName())));
        tallies.add(tally("producer/consumer", run(jdk, gc, ORACLE, OPTIONS, apps, ProducerConsumer.class.getName())));
        tallies.add(tally("exit under contention",
                run(jdk, gc, ORACLE, OPTIONS, apps, ExitUnderContention.class.getName())));
        Recording deadlock = run(jdk, gc, ORACLE, OPTIONS, apps, Deadlock.class.getName());
        tallies.add(tally("deadlock", deadlock));
        tallies.add(tally("H2", run(jdk, gc, ORACLE, OPTIONS, h2Classpath(), Workloads.class.getName(),
                "h2", "clients=8", "warmup=1", "seconds=3")));

        int compared = tallies.stream().mapToInt(Tally::compared).sum();
        List<String> bad = tallies.stream().flatMap(t -> t.disagreements().stream()).toList();
        String summary = tallies.stream().map(t -> t.app() + " " + t.compared() + "/" + t.enters()
                        + (t.inferred() > 0 ? " (" + t.inferred() + " inferred)" : "")).collect(Collectors.joining(", "));
        System.out.println(jdk + " " + gc + ": compared/enters " + summary + "; disagreements " + bad.size());
        // Every app where the owner kept the monitor across the check is compared; the storm
        // and H2 give dozens of such enters, the hand-off chain and the deadlock all of theirs.
        assertTrue(compared >= 30, () -> "too few enters to compare (compared/enters): " + summary);
        // The deadlock's own two enters, on its two locks (the JVM may add contended enters of its own, on its own
        // monitors, around them, on those threads too: a loaded machine showed a third).
        List<String> locks = List.of(Deadlock.LockA.class.getName(), Deadlock.LockB.class.getName());
        List<Event> deadlocked = enters(deadlock).stream()
                .filter(e -> e.thread().name().startsWith("deadlock-") && locks.contains(deadlock.objectClassName(e.obj())))
                .toList();
        assertEquals(2, deadlocked.size(), () -> "the deadlock's enters: " + deadlocked);
        assertTrue(deadlocked.stream().allMatch(e -> e.arg() != UNSTABLE && e.arg() != 0),
                () -> "both deadlocked enters must be comparable: " + summary);
        assertTrue(bad.size() * 100 <= compared, () -> bad.size() + " of " + compared
                + " comparable enters disagree with GetObjectMonitorUsage (" + summary + "):\n"
                + String.join("\n", bad));
    }

    /**
     * With owners=inferred every owner is the analysis's: none may be impossible, and how often
     * the inference equals the oracle is printed (the measure docs/analysis.md quotes).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void inferredOwnersAreNeverImpossibleAndTheirAgreementIsMeasured(Jdks.Jdk jdk) throws Exception {
        String options = ChildJvm.dumping("buffer=1m,memory=256m,owners=inferred");
        List<Tally> tallies = List.of(
                tally("lock storm", run(jdk, G1, ORACLE, options, ChildJvm.testAppsClasspath(),
                        LockStorm.class.getName(), "16", "200000")),
                tally("H2", run(jdk, G1, ORACLE, options, h2Classpath(), Workloads.class.getName(),
                        "h2", "clients=8", "warmup=1", "seconds=3")));
        for (Tally t : tallies) {
            assertTrue(t.compared() > 0, () -> t.app() + ": nothing to compare");
            assertEquals(t.compared(), t.inferred() + t.disagreements().stream()
                    .filter(d -> d.contains("shows no owner")).count(), () -> "with owners=inferred no owner is exact: " + t);
            long unknown = t.disagreements().stream().filter(d -> d.contains("shows no owner")).count();
            System.out.println(jdk + " owners=inferred " + t.app() + ": " + (t.compared() - t.disagreements().size())
                    + " of " + t.compared() + " comparable enters show the oracle's owner, " + unknown
                    + " show none (unknown), " + (t.disagreements().size() - unknown) + " another thread");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.convoy.agent.it.Jdks#withCollectors")
    void everyRecordedOwnerIsAnotherThreadOfTheRecording(Jdks.Jdk jdk, String gc) throws Exception {
        Recording r = run(jdk, gc, Map.of(), OPTIONS, ChildJvm.testAppsClasspath(), LockStorm.class.getName(),
                "16", "200000");
        Set<Long> ids = r.threads().stream().map(RecordedThread::javaThreadId).collect(Collectors.toSet());
        List<Event> enters = enters(r);
        assertFalse(enters.isEmpty(), "the storm recorded no contended enter");
        long exact = enters.stream().filter(OwnersIT::exact).count();
        // Owners are unknown only when the object moved during the read or the thread map
        // was busy: rare, never the rule.
        assertTrue(exact * 10 >= enters.size() * 9, () -> exact + " of " + enters.size() + " enters with an exact owner");
        for (Event e : enters) {
            if (exact(e) && e.arg2() != -1) {
                assertTrue(ids.contains(e.arg2()), () -> "owner " + e.arg2() + " is no recorded thread: " + e);
                assertTrue(e.arg2() != e.thread().javaThreadId(), () -> "a thread owns what it waits for: " + e);
            }
            assertEquals(0, e.arg(), "no oracle without the test switch");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void ownersInferredLeavesEveryEnterWithoutAnOwner(Jdks.Jdk jdk) throws Exception {
        Recording r = run(jdk, G1, Map.of(), ChildJvm.dumping("buffer=1m,owners=inferred"), ChildJvm.testAppsClasspath(),
                LockStorm.class.getName(), "8", "100000");
        assertEquals("inferred: off by option", r.info().get("monitor.owners"));
        assertTrue(r.info().get("options").contains("owners=inferred"), r.info().get("options"));
        List<Event> enters = enters(r);
        assertFalse(enters.isEmpty());
        assertTrue(enters.stream().noneMatch(OwnersIT::exact), "an exact owner with owners=inferred");
        assertTrue(enters.stream().allMatch(e -> e.arg2() == 0));
    }
}
