package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.convoy.model.Recording;
import dev.convoy.testapps.LockStorm;
import dev.convoy.testapps.ReentrantLockStorm;
import dev.convoy.testapps.Scenarios;
import dev.convoy.testapps.VirtualMonitorStorm;
import dev.convoy.testing.JfrCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;
import org.openjdk.jmc.flightrecorder.rules.IResult;
import org.openjdk.jmc.flightrecorder.rules.IRule;
import org.openjdk.jmc.flightrecorder.rules.RuleRegistry;
import org.openjdk.jmc.flightrecorder.rules.Severity;

/**
 * The JFR output of the real agent ({@code dumponexit=csv-ext+jfr+snapshot}) on real test apps,
 * on every JDK of {@link Jdks}: read with the JDK's {@code jdk.jfr.consumer}, every event is
 * the extended CSV event log's (kind, thread, start, duration, monitor, stack: {@link JfrCheck}), but for
 * the few threads whose identity hash another thread has too, which the CSV log cannot tell
 * apart; JMC's parser reads as many events per type; JMC's JavaBlocking rule gives a result; the JDK's
 * {@code jfr summary} and {@code jfr print --json} read the file. No assertion is on time.
 */
class JfrOutputIT {

    private static final String OPTIONS = "dumponexit=csv-ext+jfr+snapshot,dumpdir=.,dumpname=j,buffer=4m,memory=256m";

    @TempDir
    Path work;

    static Stream<Arguments> runs() {
        List<Arguments> a = new ArrayList<>();
        for (Jdks.Jdk jdk : Jdks.all().toList()) {
            a.add(Arguments.of(jdk, "monitor storm", LockStorm.class.getName(), new String[] {"8", "20000"}, 0));
            a.add(Arguments.of(jdk, "ReentrantLock storm", ReentrantLockStorm.class.getName(),
                    new String[] {"4", "4000"}, 0));
            a.add(Arguments.of(jdk, "scenario mix (wait/notify, deadlock, handoffs)", Scenarios.class.getName(),
                    new String[] {Scenarios.DEMO}, 0));
            a.add(Arguments.of(jdk, "virtual monitor storm", VirtualMonitorStorm.class.getName(),
                    new String[] {"2000"}, 21));
        }
        return a.stream();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("runs")
    void jfrHasEveryCsvEvent(Jdks.Jdk jdk, String label, String app, String[] args, int minFeature) throws Exception {
        jdk.assumePresent();
        assumeTrue(jdk.feature() >= minFeature, () -> label + " needs JDK " + minFeature);
        ChildJvm.Result run = ChildJvm.run(jdk, work, OPTIONS, app, args).assertSucceeded();
        Path dir = run.dumpDir();
        Path jfr = dir.resolve("j.jfr");
        Recording r = run.recording();

        // threads the CSV log cannot tell apart (the same identity hash) are left out of both
        Set<String> shared = JfrCheck.sharedHashThreads(dir.resolve("j.meta.csv"), dir.resolve("j.events-ext.csv"));
        assertTrue(shared.size() * 100 <= Math.max(100, r.threads().size()),
                () -> "at most 1 % of the threads share an identity hash: " + shared);
        List<String> csv = JfrCheck.csvLines(dir.resolve("j.meta.csv"), dir.resolve("j.events-ext.csv"));
        List<String> fromJfr = JfrCheck.jfrLines(jfr, r.startEpochNs(), shared);
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("MonitorContendedEnter ") || l.startsWith("ThreadPark ")),
                () -> "contention recorded: " + csv.size() + " lines");
        if (!csv.equals(fromJfr)) {
            Files.write(work.resolve("csv.txt"), csv);
            Files.write(work.resolve("jfr.txt"), fromJfr);
        }
        assertEquals(csv.size(), fromJfr.size(), "as many events in the JFR file as in the CSV event log");
        assertEquals(csv, fromJfr, "every event of the CSV event log, the same in the JFR file");

        Map<String, Integer> counts = JfrCheck.jfrCounts(jfr);
        IItemCollection items = JfrLoaderToolkit.loadEvents(jfr.toFile());
        Map<String, Integer> jmc = new TreeMap<>();
        for (IItemIterable it : items) {
            if (it.getItemCount() > 0) {
                jmc.merge(it.getType().getIdentifier(), (int) it.getItemCount(), Integer::sum);
            }
        }
        assertEquals(counts, jmc, "JMC's parser reads as many events per type as jdk.jfr.consumer");
        if (counts.getOrDefault("jdk.JavaMonitorEnter", 0) > 0) {
            IResult blocking = javaBlocking(items);
            assertNotEquals(Severity.NA, blocking.getSeverity(), blocking.getSummary());
        }

        String summary = tool(jdk, "summary", jfr.toString());
        assertTrue(summary.contains("jdk.JavaMonitorEnter") && summary.contains("jdk.ThreadStart"), summary);
        String json = tool(jdk, "print", "--json", jfr.toString());
        assertTrue(json.contains("\"jdk.ThreadStart\""), () -> json.substring(0, Math.min(2000, json.length())));
    }

    static IResult javaBlocking(IItemCollection items) throws Exception {
        for (IRule rule : RuleRegistry.getRules()) {
            if (rule.getId().equals("JavaBlocking")) {
                var f = rule.createEvaluation(items, org.openjdk.jmc.common.util.IPreferenceValueProvider.DEFAULT_VALUES,
                        null);
                f.run();
                return f.get();
            }
        }
        throw new AssertionError("JMC has no rule JavaBlocking");
    }

    /** The JDK's {@code jfr} tool; fails unless it exits 0 with nothing on stderr. */
    static String tool(Jdks.Jdk jdk, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(jdk.home().resolve("bin/jfr").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "jfr " + String.join(" ", args) + " ended");
        assertEquals(0, p.exitValue(), () -> "jfr " + String.join(" ", args) + ": " + err);
        assertEquals("", err.strip(), "jfr " + String.join(" ", args) + " stderr");
        return new String(out, StandardCharsets.UTF_8);
    }
}
