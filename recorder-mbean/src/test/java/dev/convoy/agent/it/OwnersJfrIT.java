package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.testing.OwnerConsistency;
import dev.convoy.testapps.LockStorm;
import dev.convoy.testapps.bench.suite.Workloads;

/**
 * Convoy's handoffs against JFR's {@code previousOwner}: the program runs with Convoy and a JFR
 * recording of {@code jdk.JavaMonitorEnter} at threshold 0 in the same JVM; the JFR file is read
 * with the child JDK's own {@code jfr print --json}.
 *
 * <p>Both tools see the same contended enters: HotSpot posts JVMTI MonitorContendedEnter and
 * commits JFR's JavaMonitorEnter (at threshold 0, every one) on the same slow path, once per
 * enter, so the n-th enter of a thread in one is the n-th in the other; the test checks that the
 * counts per thread are equal before it pairs them. JFR's {@code previousOwner} is the last
 * thread that let the monitor go before the enter completed, written by the VM at every exit;
 * Convoy's handoff source is the last thread known to hold the monitor before its
 * MONITOR_ENTERED ({@link MonitorOwnership#handoffs()}).
 *
 * <p>They can differ, and the test says by how much: JVMTI reports no release and no acquisition
 * that did not block (a thread that takes the monitor by spinning, or between a release and the
 * blocked thread's wake-up), so a thread that held the monitor last without ever blocking on it
 * is invisible to Convoy and its releaser is inferred (the VM itself keeps {@code previousOwner}
 * only while JFR records JavaMonitorEnter). Measured: about 90 % agreement on H2 on JDK 17 and 25,
 * where the releasers inferred before exact owners agreed on 25 to 36 %; the bar below holds the
 * gain without depending on how often threads happen to barge in a run.
 */
class OwnersJfrIT {

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    record Enter(long javaThreadId, Instant start, long previousOwner) { }

    record Result(int enters, int compared, int agree, List<String> disagreements) { }

    /** Compares the enters of the threads named {@code prefix}... (JFR records nothing on its own threads). */
    private Result compare(Jdks.Jdk jdk, String prefix, String classpath, String main, String... args)
            throws Exception {
        jdk.assumePresent();
        Path jfc = JfrSettings.everyEvent(work, "enters", "jdk.JavaMonitorEnter");
        ChildJvm.Result res = ChildJvm.runWith(jdk, work, Map.of(), classpath,
                List.of("-Dconvoy.tmpdir=" + work.resolve("lib"),
                        "-XX:StartFlightRecording=filename=enters.jfr,dumponexit=true,settings=" + jfc),
                ChildJvm.dumping("buffer=4m,memory=256m"), main, args).assertSucceeded();
        Recording r = res.recording();
        OwnerConsistency.Result consistency = OwnerConsistency.check(r);
        assertEquals(List.of(), consistency.inferred(), consistency::toString);
        Map<Long, List<Enter>> jfr = jfrEnters(jdk, res.dumpDir().resolve("enters.jfr"));

        // Convoy's handoff source per enter (thread, enter time).
        Map<String, Long> sources = new HashMap<>();
        for (MonitorOwnership.Handoff h : MonitorOwnership.of(r).handoffs()) {
            if (h.from() != null) {
                sources.put(h.to().ringId() + "@" + h.blocked().startNs(), h.from().javaThreadId());
            }
        }
        int enters = 0;
        int compared = 0;
        int agree = 0;
        List<String> bad = new ArrayList<>();
        for (RecordedThread t : r.threads()) {
            List<Event> convoy = t.events().stream().filter(e -> e.type() == EventType.MONITOR_ENTER).toList();
            if (convoy.isEmpty() || !t.name().startsWith(prefix)) {
                continue;
            }
            assertEquals(0, t.overwritten(), () -> t.name() + " lost records");
            List<Enter> theirs = jfr.getOrDefault(t.javaThreadId(), List.of());
            assertEquals(convoy.size(), theirs.size(),
                    () -> t.name() + ": Convoy and JFR saw different numbers of contended enters");
            enters += convoy.size();
            for (int i = 0; i < convoy.size(); i++) {
                Event e = convoy.get(i);
                Enter j = theirs.get(i);
                if (j.previousOwner() <= 0) {
                    continue; // JFR names none (the owner was not known to it either)
                }
                compared++;
                Long source = sources.get(t.ringId() + "@" + e.ts());
                if (source != null && source == j.previousOwner()) {
                    agree++;
                } else if (bad.size() < 20) {
                    bad.add(t.name() + " enter " + i + ": Convoy " + source + ", JFR " + j.previousOwner());
                }
            }
        }
        return new Result(enters, compared, agree, bad);
    }

    /** Per Java thread id, its jdk.JavaMonitorEnter events by start time. */
    private Map<Long, List<Enter>> jfrEnters(Jdks.Jdk jdk, Path file) throws Exception {
        Path out = work.resolve("jfr-print.json");
        Process p = new ProcessBuilder(jdk.home().resolve("bin/jfr").toString(), "print", "--json", "--events",
                "jdk.JavaMonitorEnter", file.toString()).redirectErrorStream(false).redirectOutput(out.toFile())
                .redirectError(work.resolve("jfr-print.err").toFile()).start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "jfr print finished");
        assertEquals(0, p.exitValue(), () -> readQuietly(work.resolve("jfr-print.err")));
        JsonNode events = new ObjectMapper().readTree(out.toFile()).path("recording").path("events");
        Map<Long, List<Enter>> byThread = new HashMap<>();
        for (JsonNode ev : events) {
            JsonNode v = ev.path("values");
            long tid = v.path("eventThread").path("javaThreadId").asLong(0);
            JsonNode prev = v.path("previousOwner");
            long previous = prev.isObject() ? prev.path("javaThreadId").asLong(0) : 0;
            byThread.computeIfAbsent(tid, k -> new ArrayList<>())
                    .add(new Enter(tid, Instant.parse(v.path("startTime").asText()), previous));
        }
        byThread.values().forEach(l -> l.sort(Comparator.comparing(Enter::start)));
        return byThread;
    }

    private static String readQuietly(Path p) {
        try {
            return Files.readString(p);
        } catch (Exception e) {
            return e.toString();
        }
    }

    private static void check(Jdks.Jdk jdk, String app, Result res, int minPercent) {
        System.out.println("[OwnersJfrIT] " + jdk + " " + app + ": " + res.agree() + " of " + res.compared()
                + " handoff sources equal JFR's previousOwner (" + res.enters() + " contended enters)");
        assertTrue(res.compared() >= 10, () -> app + ": too few enters to compare: " + res);
        assertTrue(res.agree() * 100L >= res.compared() * (long) minPercent, () -> app + ": " + res.agree() + " of "
                + res.compared() + " handoff sources equal JFR's previousOwner:\n"
                + String.join("\n", res.disagreements()));
    }

    /**
     * The storm's few dozen enters, half of them in the herd released at its start, where how many
     * threads barge in between depends on the scheduling: seen from 59 % (machine at load 7) to
     * 90 %, against 25 to 36 % for releasers inferred without exact owners. The bar is below the
     * lowest seen and above what inference reaches.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void lockStormHandoffsAreJfrsPreviousOwners(Jdks.Jdk jdk) throws Exception {
        check(jdk, "lock storm", compare(jdk, "storm-", ChildJvm.testAppsClasspath(), LockStorm.class.getName(),
                "16", "200000"), 45);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void h2HandoffsAreJfrsPreviousOwners(Jdks.Jdk jdk) throws Exception {
        String cp = ChildJvm.testAppsClasspath() + File.pathSeparator
                + Paths.get(org.h2.Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        check(jdk, "H2", compare(jdk, "h2-client-", cp, Workloads.class.getName(), "h2", "clients=8", "warmup=1", "seconds=3"), 75);
    }
}
