package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.testapps.ReentrantLockStorm;

/**
 * Convoy's parks against JFR's: the ReentrantLock storm runs with Convoy and a JFR recording of
 * {@code jdk.ThreadPark} at threshold 0 (every park, stacks off) in the same JVM; the JFR file is
 * read with the child JDK's own {@code jfr print}.
 *
 * <p><b>Agrees</b> means: for every storm thread, the number of Convoy PARK records equals the
 * number of JFR {@code jdk.ThreadPark} events, exactly. Why exact: JFR writes one ThreadPark per
 * {@code Unsafe.park} call whose duration reaches the threshold, and at 0 every call does; a
 * storm thread is a platform thread that parks only through {@code LockSupport.park(blocker)}
 * (AQS acquire), which calls {@code Unsafe.park} exactly once per call on JDK 17 and 25, and
 * Convoy records one PARK per such call. The differences that exist in general are excluded here
 * by construction, and named: a threshold above 0 (JFR drops short parks; Convoy records all);
 * {@code parkNanos} with a timeout of 0 or less (neither parks nor is recorded by either);
 * {@code Unsafe.park} called directly, not through LockSupport (JFR only); parks of virtual
 * threads (JFR reports a pinned virtual thread's park on its carrier, and an unpinned one not as
 * ThreadPark; Convoy records it on the virtual thread); Convoy records lost to a full ring
 * (checked: none are); threads of JFR or Convoy themselves (not compared).
 */
class ParkJfrIT {

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void convoyRecordsEveryParkJfrRecords(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path jfc = JfrSettings.everyEvent(work, "parks", "jdk.ThreadPark");
        ChildJvm.Result res = ChildJvm.runWith(jdk, work,
                List.of("-Dconvoy.tmpdir=" + work.resolve("lib"),
                        "-XX:StartFlightRecording=filename=parks.jfr,dumponexit=true,settings=" + jfc),
                ChildJvm.dumping("buffer=4m,memory=256m"), ReentrantLockStorm.class.getName(), "4", "4000")
                .assertSucceeded();
        assertTrue(res.stdout().contains(" OK "), res.stdout());
        Recording r = res.recording();
        Map<String, Long> convoy = new TreeMap<>();
        for (RecordedThread t : r.threads()) {
            if (t.name().startsWith(ReentrantLockStorm.THREAD_PREFIX)) {
                assertEquals(0, t.overwritten(), () -> t.name() + " lost records");
                convoy.put(t.name() + "#" + t.javaThreadId(),
                        t.events().stream().filter(e -> e.type() == EventType.PARK).count());
            }
        }
        Map<String, Long> jfr = jfrParks(jdk, res.dumpDir().resolve("parks.jfr"));
        assertEquals(4, convoy.size(), convoy::toString);
        assertTrue(convoy.values().stream().mapToLong(Long::longValue).sum() > 4, () -> "a storm: " + convoy);
        assertEquals(convoy, jfr, "PARK records per storm thread (Convoy) and jdk.ThreadPark events (JFR)");
        System.out.println("[ParkJfrIT] " + jdk + ": parks per thread, Convoy " + convoy + ", JFR " + jfr);
    }

    /** Per storm thread ({@code name#javaThreadId}), its jdk.ThreadPark events, from {@code jfr print}. */
    private Map<String, Long> jfrParks(Jdks.Jdk jdk, Path file) throws Exception {
        Path out = work.resolve("jfr-print.txt");
        Process p = new ProcessBuilder(jdk.home().resolve("bin/jfr").toString(), "print", "--events", "jdk.ThreadPark",
                file.toString()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "jfr print finished");
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), text);
        Map<String, Long> counts = new TreeMap<>();
        Matcher m = Pattern.compile("eventThread = \"(" + Pattern.quote(ReentrantLockStorm.THREAD_PREFIX)
                + "\\d+)\" \\(javaThreadId = (\\d+)\\)").matcher(text);
        while (m.find()) {
            counts.merge(m.group(1) + "#" + m.group(2), 1L, Long::sum);
        }
        return counts;
    }
}
