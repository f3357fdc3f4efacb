package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;

import dev.convoy.cli.Convert;
import dev.convoy.schema.ChromeTraceChecker;
import dev.convoy.schema.CsvLogReader;
import dev.convoy.schema.CsvSpecReader;
import dev.convoy.schema.TptpValidator;
import dev.convoy.testapps.Deadlock;
import dev.convoy.testapps.HandoffChain;
import dev.convoy.testapps.Scenarios;

/**
 * The real agent dumps every format on exit of the {@code demo} scenario mix, on every JDK
 * of {@link Jdks}; every file it wrote is checked with the format checkers of module
 * {@code schema} (what the tests of the writers check on fixtures, here on real output).
 */
class RealOutputIT {

    static final String DUMP_NAME = "real";
    static final String OPTIONS = "dumponexit=all,dumpdir=.,dumpname=" + DUMP_NAME;

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void everyDumpedFormatPassesItsChecker(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, OPTIONS, Scenarios.class.getName(), Scenarios.DEMO)
                .assertSucceeded();
        assertTrue(run.stdout().contains(Scenarios.FINAL_LINE_PREFIX + " OK"), run.stdout());
        Path dir = run.dumpDir();
        Set<String> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
        assertEquals(new TreeSet<>(Set.of("real.cvysnap", "real.json", "real.trcxml", "real.meta.csv",
                "real.events.csv", "real.events-ext.csv", "real.losses.csv", "real.jfr", "real.collapsed.txt",
                "real.html", "real.pb.gz")), files, () -> "dumped files\nstderr:\n" + run.stderr());

        // Folded stacks: every line STATE;CLASS;frames NS; deadlock-A's block on LockB in Deadlock's code;
        // the same lines as the offline conversion of the snapshot; the flame graph page embeds them
        List<String> folded = Files.readAllLines(dir.resolve("real.collapsed.txt"), StandardCharsets.UTF_8);
        assertFalse(folded.isEmpty(), "folded stacks");
        for (String line : folded) {
            assertTrue(line.matches("(blocked|waited);[^; ]+(;[^; ]+)+ [1-9][0-9]*"), line);
        }
        assertTrue(folded.stream().anyMatch(l -> l.startsWith("blocked;" + Deadlock.LockB.class.getName() + ";")
                && l.contains(";" + Deadlock.class.getName() + ".")), () -> String.join("\n", folded));
        ByteArrayOutputStream offline = new ByteArrayOutputStream();
        dev.convoy.export.Output.COLLAPSED.write(dev.convoy.snapshot.SnapshotReader.read(dir.resolve("real.cvysnap")),
                offline);
        assertEquals(String.join("\n", folded) + "\n", offline.toString(StandardCharsets.UTF_8),
                "the snapshot converted offline gives the dumped folded stacks");
        String page = Files.readString(dir.resolve("real.html"), StandardCharsets.UTF_8);
        assertTrue(page.contains("ConvoyFlame.mount") && page.contains("Deadlock$LockB"), "the flame graph page's data");

        // pprof: profile.proto's rules; the flame graph's time (parks and the deadlock's open blocks included)
        dev.convoy.testing.PprofCheck.Profile pprof = dev.convoy.testing.PprofCheck.read(dir.resolve("real.pb.gz"));
        assertEquals(dev.convoy.export.FlameStacks.of(dev.convoy.snapshot.SnapshotReader.read(dir.resolve("real.cvysnap")))
                .totalNs(), pprof.total("delay", null, null), "the profile's time is the flame graph's");
        assertTrue(pprof.samples().stream().anyMatch(s -> "park".equals(s.labels().get("kind"))
                && "blocked".equals(s.labels().get("state"))), "a lock's park, blocked");
        assertTrue(pprof.samples().stream().anyMatch(s -> Deadlock.THREAD_A.equals(s.labels().get("thread"))
                && Deadlock.LockB.class.getName().equals(s.labels().get("lock_class"))), "deadlock-A's open block");

        // TPTP: valid against the DTD, defined before referenced, times
        Document tptp = TptpValidator.validate(dir.resolve("real.trcxml"));
        assertTrue(TptpValidator.elements(tptp.getDocumentElement()).stream()
                .anyMatch(e -> e.getTagName().equals("monContendedEnter")), "a contended enter in the TPTP trace");

        // CSV: the logs parse with the specification's reader, every frame resolves to a meta line,
        // each thread that lost nothing has the lines of its records (CsvChecks)
        CsvSpecReader.Logs csv = CsvChecks.check(dir, DUMP_NAME, run.recording()).spec();
        assertTrue(csv.events().stream().anyMatch(e -> e.name().equals("MonitorContendedEnter") && !e.frames().isEmpty()),
                "a contended enter with a stack in the CSV event log");
        assertTrue(csv.events().stream().anyMatch(e -> e.name().equals("ThreadStarted")
                && CsvLogReader.unescape(e.fields().get(1)).equals(Deadlock.THREAD_A)), "deadlock-A started");

        // Chrome: the structural rules, then what the demo must show
        List<JsonNode> events = ChromeTraceChecker.check(dir.resolve("real.json"));
        checkChromeContent(events);
        checkArrows(events);
        // the analysis' arrows: none to its own thread, none backwards (but a notify recorded after the wake),
        // none bound across a loss of records (the demo's self arrows, backwards in time, when a notifyAll
        // whose notifier was overwritten was bound to the waiter's own later notifyAll)
        dev.convoy.testing.Arrows.check(dev.convoy.snapshot.SnapshotReader.read(dir.resolve("real.cvysnap")));

        // Offline conversion of the binary snapshot gives the same trace as the in-process dump
        Path converted = work.resolve("converted.json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Convert.run(new String[] {dir.resolve("real.cvysnap").toString(), "--format", "chrome",
                "-o", converted.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(Convert.EXIT_OK, code, () -> "convert: " + err.toString(StandardCharsets.UTF_8));
        assertArrayEquals(Files.readAllBytes(dir.resolve("real.json")), Files.readAllBytes(converted),
                "the converted snapshot equals the chrome trace dumped in-process");
    }

    /**
     * No flow arrow of the trace goes from a track to itself, and none backwards in time but a
     * notify's (a notify recorded after the wake it is bound to, docs/analysis.md's rule 3).
     */
    private static void checkArrows(List<JsonNode> events) {
        Map<Long, JsonNode> starts = new HashMap<>();
        for (JsonNode e : events) {
            if (e.path("ph").asText().equals("s")) {
                starts.put(e.get("id").asLong(), e);
            }
        }
        for (JsonNode f : events) {
            if (!f.path("ph").asText().equals("f")) {
                continue;
            }
            JsonNode s = starts.get(f.get("id").asLong());
            assertTrue(s != null, f::toString);
            assertTrue(s.path("tid").asLong() != f.path("tid").asLong(), () -> "an arrow to its own track: " + s + " " + f);
            assertTrue(s.path("ts").asDouble() <= f.path("ts").asDouble() || s.path("cat").asText().equals("notify"),
                    () -> "an arrow backwards in time: " + s + " " + f);
        }
    }

    /** A deadlock-A track with a slice blocked on LockB, and a lock handoff arrow between two handoff-N tracks. */
    private static void checkChromeContent(List<JsonNode> events) {
        Map<Long, String> trackNames = new HashMap<>();
        for (JsonNode e : events) {
            if (e.path("ph").asText().equals("M") && e.path("name").asText().equals("thread_name")) {
                trackNames.put(e.path("tid").asLong(), e.path("args").path("name").asText());
            }
        }
        assertEquals("deadlock-A", Deadlock.THREAD_A);
        List<Long> aTracks = trackNames.entrySet().stream().filter(t -> t.getValue().equals(Deadlock.THREAD_A))
                .map(Map.Entry::getKey).toList();
        assertEquals(1, aTracks.size(), () -> "one track named " + Deadlock.THREAD_A + ": " + trackNames);
        long a = aTracks.get(0);
        String lockB = Deadlock.LockB.class.getName();
        assertEquals("dev.convoy.testapps.Deadlock$LockB", lockB);
        List<JsonNode> aSlices = events.stream()
                .filter(e -> e.path("ph").asText().equals("X") && e.path("tid").asLong() == a).toList();
        assertTrue(aSlices.stream().anyMatch(e -> e.path("args").path("monitor").asText().equals(lockB)),
                () -> "a slice on " + Deadlock.THREAD_A + " whose args name " + lockB + ": " + aSlices);

        Map<Long, JsonNode> flowStarts = new HashMap<>();
        for (JsonNode e : events) {
            if (e.path("ph").asText().equals("s")) {
                flowStarts.put(e.get("id").asLong(), e);
            }
        }
        long handoffArrows = events.stream().filter(e -> e.path("ph").asText().equals("f")).filter(f -> {
            JsonNode s = flowStarts.get(f.get("id").asLong());
            if (s == null) {
                return false;
            }
            String from = trackNames.getOrDefault(s.path("tid").asLong(), "");
            String to = trackNames.getOrDefault(f.path("tid").asLong(), "");
            return from.matches(HandoffChain.THREAD_PREFIX + "\\d+") && to.matches(HandoffChain.THREAD_PREFIX + "\\d+")
                    && !from.equals(to);
        }).count();
        assertTrue(handoffArrows >= 1, () -> "a flow arrow between two different " + HandoffChain.THREAD_PREFIX
                + "N tracks; tracks: " + trackNames + ", flows: " + flowStarts.size());
        assertFalse(trackNames.isEmpty());
    }
}
