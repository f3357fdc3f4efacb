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
import dev.convoy.snapshot.SnapshotFormat;
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
 * enter, so the n-th enter of a thread in one is the n-th in the other; the test pairs them so
 * ({@link #pair}, which also handles the rare thread where one tool has one enter more). JFR's
 * {@code previousOwner} is the VM's {@code ObjectMonitor::_previous_owner_tid}, written at every
 * exit through the VM while JFR records the event; with that recording running, Convoy reads the
 * same word at MONITOR_ENTERED (option {@code releasers=vm}, the default) and the handoff's
 * releaser is that thread, exact ({@link MonitorOwnership#handoffs()}).
 *
 * <p>The VM's word is stale wherever the last release did not write it (compiled code's fast exit);
 * Convoy marks a releaser exact only where it can tell the word is current (a write since the
 * monitor was last seen held, by the thread seen holding it) and infers the others. So every
 * exact releaser must equal JFR's {@code previousOwner} (both read the same word at the same
 * acquisition), and none where JFR names the entering thread itself (a thread does not hand a
 * monitor to itself: the word is stale there). Inferred releasers are compared too, and printed:
 * where they differ, JFR's value may be the stale one.
 */
class OwnersJfrIT {

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    record Enter(long javaThreadId, Instant start, long previousOwner, java.time.Duration duration, String top) { }

    /**
     * @param compared      enters where JFR names another thread; {@code agree} of them with Convoy's source
     * @param exact         of those, where Convoy's releaser is exact; {@code wrongExact} of them differ
     */
    record Result(int enters, int compared, int agree, int stale, int exact, List<String> wrongExact,
                  List<String> disagreements) { }

    /** Compares the enters of the threads named {@code prefix}... (JFR records nothing on its own threads). */
    private Result compare(Jdks.Jdk jdk, String gc, String prefix, String classpath, String main, String... args)
            throws Exception {
        jdk.assumePresent();
        Path jfc = JfrSettings.everyEvent(work, "enters", "jdk.JavaMonitorEnter");
        ChildJvm.Result res = ChildJvm.runWith(jdk, work, Map.of(), classpath,
                List.of("-Dconvoy.tmpdir=" + work.resolve("lib"), gc,
                        "-XX:StartFlightRecording=filename=enters.jfr,dumponexit=true,settings=" + jfc),
                ChildJvm.dumping("buffer=4m,memory=256m"), main, args).assertSucceeded();
        Recording r = res.recording();
        assertEquals("vm", r.info().get("monitor.releasers"), () -> gc + ": " + r.info().get("monitor.releasers"));
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
        int oneSided = 0;
        int stale = 0;
        int exact = 0;
        List<String> wrongExact = new ArrayList<>();
        List<String> bad = new ArrayList<>();
        for (RecordedThread t : r.threads()) {
            List<Event> convoy = t.events().stream().filter(e -> e.type() == EventType.MONITOR_ENTER).toList();
            if (convoy.isEmpty() || !t.name().startsWith(prefix)) {
                continue;
            }
            assertEquals(0, t.overwritten(), () -> t.name() + " lost records");
            assertEquals(0, t.dropped(), () -> t.name() + " dropped records");
            List<Enter> theirs = jfr.getOrDefault(t.javaThreadId(), List.of());
            int[] pairs = pair(r, convoy, theirs);
            if (pairs == null) {
                throw new AssertionError(t.name() + ": Convoy and JFR saw different numbers of contended enters ("
                        + convoy.size() + " and " + theirs.size() + ")\n" + sideBySide(t, convoy, theirs));
            }
            if (convoy.size() != theirs.size()) {
                oneSided++;
                System.out.println("[OwnersJfrIT] " + t.name() + ": one enter seen by one tool only ("
                        + convoy.size() + " in Convoy, " + theirs.size() + " in JFR)\n" + sideBySide(t, convoy, theirs));
            }
            enters += convoy.size();
            for (int i = 0; i < convoy.size(); i++) {
                if (pairs[i] < 0) {
                    continue;
                }
                Event e = convoy.get(i);
                Enter j = theirs.get(pairs[i]);
                Event entered = enteredAfter(t, e);
                boolean exactHere = entered != null && (entered.flags() & SnapshotFormat.FLAG_RELEASER) != 0;
                if (exactHere && (entered.arg() != j.previousOwner() || entered.arg() == t.javaThreadId())) {
                    wrongExact.add(t.name() + " enter " + i + ": Convoy's exact releaser " + entered.arg() + ", JFR "
                            + j.previousOwner());
                }
                if (j.previousOwner() <= 0) {
                    continue; // JFR names none (the owner was not known to it either)
                }
                if (j.previousOwner() == t.javaThreadId()) {
                    stale++; // the VM's word is stale (see the class comment)
                    continue;
                }
                compared++;
                if (exactHere) {
                    exact++;
                }
                Long source = sources.get(t.ringId() + "@" + e.ts());
                if (source != null && source == j.previousOwner()) {
                    agree++;
                } else if (bad.size() < 20) {
                    bad.add(t.name() + " enter " + i + ": Convoy " + source + ", JFR " + j.previousOwner());
                }
            }
        }
        // At most one thread in a run with an enter one side did not see (see pair).
        assertTrue(oneSided <= 1, oneSided + " threads had an enter seen by one tool only");
        return new Result(enters, compared, agree, stale, exact, wrongExact, bad);
    }

    /** The MONITOR_ENTERED that ends the thread's MONITOR_ENTER {@code enter}, or null. */
    private static Event enteredAfter(RecordedThread t, Event enter) {
        List<Event> events = t.events();
        for (int k = enter.index() + 1; k < events.size(); k++) {
            Event e = events.get(k);
            if (e.type() == EventType.MONITOR_ENTERED) {
                return e;
            }
            if (e.type() == EventType.MONITOR_ENTER) {
                return null;
            }
        }
        return null;
    }

    /**
     * Pairs a thread's enters in the two tools: the n-th with the n-th when both saw as many.
     * Rarely (once in about fifteen H2 runs, on Temurin 25) one tool has one enter more on a
     * thread; the cause is not known. The extra enter is then found by its start time: leaving
     * it out, the other enters' JFR start minus Convoy start must be nearly constant (the two
     * clocks' offset), and the position that leaves the smallest spread around the median is
     * taken. Returns, per Convoy enter, the index of its JFR enter or -1; null when the counts
     * differ by more than one.
     */
    private static int[] pair(Recording r, List<Event> convoy, List<Enter> jfr) {
        long[] c = new long[convoy.size()];
        for (int i = 0; i < c.length; i++) {
            c[i] = r.toEpochNs(convoy.get(i).ts());
        }
        long[] j = new long[jfr.size()];
        for (int i = 0; i < j.length; i++) {
            Instant s = jfr.get(i).start();
            j[i] = s.getEpochSecond() * 1_000_000_000L + s.getNano();
        }
        return pair(c, j);
    }

    /** {@link #pair(Recording, List, List)} on the enters' start times, epoch ns. */
    static int[] pair(long[] c, long[] j) {
        int n = c.length;
        int m = j.length;
        int[] pairs = new int[n];
        if (n == m) {
            for (int i = 0; i < n; i++) {
                pairs[i] = i;
            }
            return pairs;
        }
        if (Math.abs(n - m) != 1) {
            return null;
        }
        boolean convoyLonger = n > m;
        int longer = Math.max(n, m);
        int best = -1;
        long bestSpread = Long.MAX_VALUE;
        for (int gap = 0; gap < longer; gap++) {
            long[] diffs = new long[longer - 1];
            for (int k = 0, x = 0; k < longer; k++) {
                if (k == gap) {
                    continue;
                }
                int other = k < gap ? k : k - 1;
                diffs[x++] = convoyLonger ? j[other] - c[k] : j[k] - c[other];
            }
            long[] sorted = diffs.clone();
            java.util.Arrays.sort(sorted);
            long median = sorted.length == 0 ? 0 : sorted[sorted.length / 2];
            long spread = 0;
            for (long d : diffs) {
                spread += Math.abs(d - median);
            }
            if (spread < bestSpread) {
                bestSpread = spread;
                best = gap;
            }
        }
        for (int i = 0; i < n; i++) {
            if (convoyLonger) {
                pairs[i] = i == best ? -1 : (i < best ? i : i - 1);
            } else {
                pairs[i] = i < best ? i : i + 1;
            }
        }
        return pairs;
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
                    .add(new Enter(tid, Instant.parse(v.path("startTime").asText()), previous,
                            java.time.Duration.parse(v.path("duration").asText("PT0S")), topFrames(v)));
        }
        byThread.values().forEach(l -> l.sort(Comparator.comparing(Enter::start)));
        return byThread;
    }

    private static String topFrames(JsonNode values) {
        List<String> frames = new ArrayList<>();
        for (JsonNode f : values.path("stackTrace").path("frames")) {
            if (frames.size() == 3) {
                break;
            }
            JsonNode m = f.path("method");
            frames.add(m.path("type").path("name").asText() + "." + m.path("name").asText() + ":" + f.path("lineNumber").asText());
        }
        return String.join(" < ", frames);
    }

    /** Both tools' enters of one thread, times from each one's first enter, to find the one seen by one side only. */
    private static String sideBySide(RecordedThread t, List<Event> convoy, List<Enter> jfr) {
        List<Event> events = t.events();
        StringBuilder sb = new StringBuilder("  ring: dropped " + t.dropped() + ", torn " + t.torn()
                + ", written " + t.written() + "\n  #   convoy(start ms, blocked us)      jfr(start ms, blocked us, top frames)\n");
        long c0 = convoy.isEmpty() ? 0 : convoy.get(0).ts();
        Instant j0 = jfr.isEmpty() ? Instant.EPOCH : jfr.get(0).start();
        for (int i = 0; i < Math.max(convoy.size(), jfr.size()); i++) {
            String c = "";
            if (i < convoy.size()) {
                Event e = convoy.get(i);
                long blocked = -1;
                for (int k = e.index() + 1; k < events.size(); k++) {
                    if (events.get(k).type() == EventType.MONITOR_ENTERED) {
                        blocked = (events.get(k).ts() - e.ts()) / 1000;
                        break;
                    }
                }
                c = String.format("%10.3f %10d", (e.ts() - c0) / 1e6, blocked);
            }
            String j = "";
            if (i < jfr.size()) {
                Enter x = jfr.get(i);
                j = String.format("%10.3f %10d  %s", java.time.Duration.between(j0, x.start()).toNanos() / 1e6,
                        x.duration().toNanos() / 1000, x.top());
            }
            sb.append(String.format("%4d %-28s %s%n", i, c, j));
        }
        return sb.toString();
    }

    private static String readQuietly(Path p) {
        try {
            return Files.readString(p);
        } catch (Exception e) {
            return e.toString();
        }
    }

    private static void check(Jdks.Jdk jdk, String gc, String app, Result res) {
        System.out.println("[OwnersJfrIT] " + jdk + " " + gc + " " + app + ": " + res.agree() + " of " + res.compared()
                + " handoff sources equal JFR's previousOwner, " + res.exact() + " of them exact ("
                + res.enters() + " contended enters; " + res.stale()
                + " where JFR names the entering thread itself, not compared)");
        assertTrue(res.compared() >= 10, () -> app + ": too few enters to compare: " + res);
        assertTrue(res.exact() > 0, () -> app + ": no exact releaser: " + res);
        assertEquals(List.of(), res.wrongExact(), () -> app + ": exact releasers that are not JFR's previousOwner");
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.convoy.agent.it.Jdks#withCollectors")
    void lockStormHandoffsAreJfrsPreviousOwners(Jdks.Jdk jdk, String gc) throws Exception {
        check(jdk, gc, "lock storm", compare(jdk, gc, "storm-", ChildJvm.testAppsClasspath(), LockStorm.class.getName(),
                "16", "200000"));
    }

    /** The pairing finds the enter one side lacks, whichever side, against a clock offset and jitter. */
    @org.junit.jupiter.api.Test
    void pairingFindsTheEnterOneToolLacks() {
        long[] convoy = new long[40];
        java.util.Random rnd = new java.util.Random(7);
        long t = 1_700_000_000_000_000_000L;
        for (int i = 0; i < convoy.length; i++) {
            t += 2_000 + rnd.nextInt(50_000);
            convoy[i] = t;
        }
        for (int missing : new int[] {0, 17, 39}) {
            long[] jfr = new long[convoy.length - 1];
            for (int i = 0, k = 0; i < convoy.length; i++) {
                if (i != missing) {
                    jfr[k++] = convoy[i] + 312_000 + rnd.nextInt(900);
                }
            }
            int[] pairs = pair(convoy, jfr);
            for (int i = 0; i < convoy.length; i++) {
                assertEquals(i == missing ? -1 : i < missing ? i : i - 1, pairs[i], "Convoy enter " + i);
            }
            int[] back = pair(jfr, convoy);
            for (int i = 0; i < jfr.length; i++) {
                assertEquals(i < missing ? i : i + 1, back[i], "JFR-side enter " + i);
            }
        }
        assertEquals(null, pair(new long[] {1, 2, 3}, new long[] {1}));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.convoy.agent.it.Jdks#withCollectors")
    void h2HandoffsAreJfrsPreviousOwners(Jdks.Jdk jdk, String gc) throws Exception {
        String cp = ChildJvm.testAppsClasspath() + File.pathSeparator
                + Paths.get(org.h2.Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        check(jdk, gc, "H2", compare(jdk, gc, "h2-client-", cp, Workloads.class.getName(), "h2", "clients=8", "warmup=1",
                "seconds=3"));
    }
}
