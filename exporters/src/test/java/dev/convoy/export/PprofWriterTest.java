package dev.convoy.export;

import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.analysis.MonitorStatistics;
import dev.convoy.analysis.MonitorStatistics.ThreadRow;
import dev.convoy.model.Recording;
import dev.convoy.model.Total;
import dev.convoy.report.ContentionReport;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.PprofCheck;
import dev.convoy.testing.PprofCheck.Profile;
import dev.convoy.testing.PprofCheck.Sample;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code pprof} output, decoded by {@link PprofCheck} from profile.proto's field numbers:
 * its rules hold, the samples carry Go's contention sample types and Convoy's labels, and its
 * totals are the report's blocked and waited times; {@code go tool pprof} reads it the same
 * (where Go is installed).
 */
class PprofWriterTest {

    @TempDir
    Path dir;

    static byte[] pprof(Recording r) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Output.PPROF.write(r, out);
        return out.toByteArray();
    }

    /** Samples as "labels | root;...;leaf" (frames {@code name:line}, no line when 0) to [contentions, delay], sorted. */
    static Map<String, List<Long>> samples(Profile p) {
        Map<String, List<Long>> out = new TreeMap<>();
        for (Sample s : p.samples()) {
            List<String> frames = new ArrayList<>();
            for (long id : s.locationIds()) {
                long[] line = p.locations().get(id).lines().get(0);
                frames.add(p.functions().get(line[0]).name() + (line[1] == 0 ? "" : ":" + line[1]));
            }
            Collections.reverse(frames);
            String key = s.labels().get("state") + " " + s.labels().get("kind") + " " + s.labels().get("lock_class")
                    + " " + s.labels().get("thread") + " | " + String.join(";", frames);
            assertNull(out.put(key, s.values()), key);
        }
        return out;
    }

    /** Synthetic recordings and the real ones the fuzz tests keep (recorded from the test apps). */
    static List<Recording> recordings() throws Exception {
        List<Recording> all = new ArrayList<>(List.of(FlameStacksTest.recording(),
                SnapshotReader.read(Fixtures.all().toBytes()),
                SnapshotReader.read(Fixtures.parks(Fixtures.base()).toBytes()),
                SnapshotReader.read(Fixtures.losses(Fixtures.base()).toBytes())));
        Path real = Path.of("src/test/resources/dev/convoy/fuzz/SnapshotFuzzTestInputs");
        try (Stream<Path> files = Files.list(real)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".cvysnap")).sorted().toList()) {
                all.add(SnapshotReader.read(f));
            }
        }
        return all;
    }

    @Test
    void theProfileFollowsProfileProtoAndGosContentionProfiles() throws Exception {
        Recording r = FlameStacksTest.recording();
        Profile p = PprofCheck.read(pprof(r));
        assertEquals(List.of(new PprofCheck.ValueType("contentions", "count"),
                new PprofCheck.ValueType("delay", "nanoseconds")), p.sampleTypes());
        assertEquals(new PprofCheck.ValueType("contentions", "count"), p.periodType());
        assertEquals(1, p.period(), "every block and wait counted, nothing sampled");
        assertEquals("delay", p.defaultSampleType());
        assertEquals(EPOCH0, p.timeNanos());
        assertEquals(SNAP - T0, p.durationNanos());
        assertEquals(List.of(new PprofCheck.Mapping(1, "com.example.Main", true, true, true)), p.mappings());
        assertTrue(p.locations().values().stream().allMatch(l -> l.mappingId() == 1 && l.lines().size() == 1));
        Map<String, List<Long>> expected = new TreeMap<>();
        expected.put("blocked monitor com.example.Lock main | com.example.Worker.run:11", List.of(1L, 10_000L));
        expected.put("blocked monitor com.example.Lock main | com.example.Worker.run:14", List.of(1L, 30_000L));
        // open at the snapshot: counts up to it
        expected.put("blocked monitor java.lang.Object main | <unknown method 0x7f0000004000>", List.of(1L, 9_500_000L));
        // cut at the recorder's depth: ends in [truncated] at its root
        expected.put("blocked monitor java.lang.Object main | [truncated];com.example.Worker.run:11;com.example.Worker.<init>:3",
                List.of(1L, 1_000L));
        // an enter of 0 ns still counts as a contention (the folded stacks leave out what weighs nothing)
        expected.put("blocked monitor java.lang.Object main | com.example.Worker.run:11;java.lang.Object.wait",
                List.of(1L, 0L));
        expected.put("waited monitor java.lang.Object main | [no_stack]", List.of(1L, 50_000L));
        assertEquals(expected, samples(p));

        // The two blocks on com.example.Lock from Worker.run at lines 14 and 11: two locations of one function.
        List<Sample> lock = p.samples().stream().filter(x -> x.labels().get("lock_class").equals("com.example.Lock")).toList();
        assertEquals(2, lock.size(), lock::toString);
        List<Long> lines = lock.stream().map(x -> p.locations().get(x.locationIds().get(0)).lines().get(0)[1]).sorted().toList();
        assertEquals(List.of(11L, 14L), lines);
        assertEquals(1, lock.stream().map(x -> p.locations().get(x.locationIds().get(0)).lines().get(0)[0])
                .distinct().count(), "one function");
        PprofCheck.Function run = p.functions().values().stream().filter(f -> f.name().equals("com.example.Worker.run"))
                .findFirst().orElseThrow();
        assertEquals("com.example.Worker.run()V", run.systemName());
        assertEquals("com/example/Worker, Inc.java", run.filename(), "the source file under its package's directories");
        assertEquals(10, run.startLine());
        assertEquals(1, p.functions().values().stream().filter(f -> f.name().equals("com.example.Worker.run")).count(),
                "one function per method");
        assertTrue(p.comments().contains(r.lossSummary()), p.comments()::toString);
        assertTrue(p.comments().get(0).startsWith("Convoy: blocked and waited time of com.example.Main (pid 4242)"),
                p.comments()::toString);
    }

    @Test
    void parksCarryTheirKindAndTheLocksClass() throws Exception {
        Recording r = SnapshotReader.read(Fixtures.parks(Fixtures.base()).toBytes());
        Profile p = PprofCheck.read(pprof(r));
        assertTrue(p.samples().stream().anyMatch(s -> s.labels().get("kind").equals("park")
                && s.labels().get("state").equals("blocked") && s.labels().get("lock_class").equals(REENTRANT_LOCK)),
                () -> samples(p).toString());
        assertTrue(p.samples().stream().anyMatch(s -> s.labels().get("kind").equals("park")
                && s.labels().get("state").equals("waited")), () -> samples(p).toString());
        assertTrue(p.samples().stream().noneMatch(s -> s.labels().get("lock_class").contains("NonfairSync")));
    }

    @Test
    void totalsAreTheReportsBlockedAndWaitedTimes() throws Exception {
        for (Recording r : recordings()) {
            Profile p = PprofCheck.read(pprof(r));
            long[] report = reportTotals(r);
            String what = r.mainClass() + " " + r.info().get("pid");
            assertFalse(ContentionTime.wholeRun(r), what);
            assertEquals(report[0], p.total("contentions", "state", "blocked"), "blocks of " + what);
            assertEquals(report[1], p.total("delay", "state", "blocked"), "blocked ns of " + what);
            assertEquals(report[2], p.total("contentions", "state", "waited"), "waits of " + what);
            assertEquals(report[3], p.total("delay", "state", "waited"), "waited ns of " + what);
            assertEquals(report[1] + report[3], FlameStacks.of(r).totalNs(), "the flame graph's time of " + what);
            for (Sample s : p.samples()) {
                assertEquals(List.of("kind", "lock_class", "state", "thread"), s.labels().keySet().stream().sorted().toList());
            }
        }
    }

    /** The report's blocks, blocked ns, waits and waited ns: its thread rows summed. */
    static long[] reportTotals(Recording r) {
        long[] v = new long[4];
        ContentionReport report = ContentionReport.of(r);
        for (ThreadRow t : report.statistics().threads()) {
            v[0] += t.blockedCount();
            v[1] += t.blockedNs();
            v[2] += t.waitedCount();
            v[3] += t.waitedNs();
        }
        assertEquals(report.blocks(), v[0]);
        assertEquals(report.waits(), v[2]);
        return v;
    }

    @Test
    void goToolPprofReadsTheSameTotals() throws Exception {
        Optional<Path> go = PprofCheck.go();
        Assumptions.assumeTrue(go.isPresent(), PprofCheck.NO_GO);
        int n = 0;
        for (Recording r : recordings()) {
            Path f = dir.resolve("p" + n++ + ".pb.gz");
            Output.write(r, java.util.EnumSet.of(Output.PPROF), f);
            long[] report = reportTotals(r);
            assertEquals(report[1] + report[3], PprofCheck.goTotal(go.get(), f, "delay", null), f::toString);
            assertEquals(report[1], PprofCheck.goTotal(go.get(), f, "delay", "state=blocked"), f::toString);
            assertEquals(report[3], PprofCheck.goTotal(go.get(), f, "delay", "state=waited"), f::toString);
            assertEquals(report[0] + report[2], PprofCheck.goTotal(go.get(), f, "contentions", null), f::toString);
        }
    }

    @Test
    void withRecordsAgedOutTheSamplesCountTheWholeRunsTotals() throws Exception {
        Recording held = FlameStacksTest.recording();
        Map<String, String> info = new LinkedHashMap<>(held.info());
        info.put("records.aged", "5000");
        info.put("totals", "from=" + t(50) + " entries=4 dropped=3");
        List<Total> totals = List.of(
                new Total(R_MAIN, SnapshotFormat.TOTAL_BLOCKED, M2, S_RUN, 7, 700_000, 200_000),
                new Total(R_MAIN, SnapshotFormat.TOTAL_WAITED, M3, 0, 2, 90_000, 60_000),
                new Total(R_MAIN, SnapshotFormat.TOTAL_WAITED, O_W1, S_WAIT, 1, 4_000, 4_000), // a join: left out
                new Total(99, SnapshotFormat.TOTAL_BLOCKED, M4, S_RUN, 3, 33_000, 20_000));
        Recording r = new Recording(held.versionMajor(), held.versionMinor(), info, held.threads(), held.stacks(),
                held.methods(), held.classes(), held.objects(), held.monitors(), null, totals);
        Profile p = PprofCheck.read(pprof(r));
        assertEquals(Map.of(
                "blocked monitor com.example.Lock main | com.example.Worker.run:14", List.of(7L, 700_000L),
                "blocked monitor com.example.Lock (thread no longer recorded, ring 99) | com.example.Worker.run:14",
                List.of(3L, 33_000L),
                "waited monitor java.lang.Object main | [no_stack]", List.of(2L, 90_000L)), samples(p));
        assertEquals(FlameStacks.of(r).totalNs(), p.total("delay", null, null), "the flame graph's time");
        assertEquals(SNAP - t(50), p.durationNanos(), "the totals count from their start");
        assertEquals(EPOCH0 + t(50) - T0, p.timeNanos());
        assertTrue(p.comments().stream().anyMatch(c -> c.startsWith("Records aged out of the history: the samples count "
                + "the whole run's blocks, waits and parks that ended") && c.endsWith("3 ends are not counted: the totals "
                + "table was full.")), p.comments()::toString);
        assertTrue(p.comments().contains(r.lossSummary()), p.comments()::toString);
    }

    @Test
    void lostRecordsAreNamedInTheComments() throws Exception {
        Recording r = SnapshotReader.read(Fixtures.losses(Fixtures.base()).toBytes());
        assertTrue(r.recordsAged() > 0 && r.recordsOverwritten() > 0);
        Profile p = PprofCheck.read(pprof(r));
        assertTrue(p.comments().contains(r.lossSummary()), p.comments()::toString);
        assertTrue(r.lossSummary().contains("100 aged out of the history") && r.lossSummary().contains("700 overwritten"),
                r.lossSummary());
        assertTrue(p.comments().contains("The time of lost records is in no sample."), p.comments()::toString);
    }

    @Test
    void anEmptyRecordingIsAProfileWithoutSamples() throws Exception {
        Profile p = PprofCheck.read(pprof(SnapshotReader.read(Fixtures.base().toBytes())));
        assertEquals(List.of(), p.samples());
        assertEquals(2, p.sampleTypes().size());
        assertTrue(p.comments().contains("Records: 0 written, nothing lost."), p.comments()::toString);
    }

    @Test
    void theStreamStaysOpenAndTheOutputIsRegistered() throws Exception {
        assertEquals(java.util.Set.of(Output.PPROF), Output.select("pprof"));
        assertEquals(".pb.gz", Output.PPROF.suffix());
        boolean[] closed = {false};
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        java.io.OutputStream out = new java.io.FilterOutputStream(bytes) {
            @Override
            public void close() {
                closed[0] = true;
            }
        };
        Output.PPROF.write(FlameStacksTest.recording(), out);
        assertFalse(closed[0], "the caller's stream is not closed");
        assertEquals(MonitorStatistics.of(FlameStacksTest.recording()).threads().stream()
                .mapToLong(t -> t.blockedNs() + t.waitedNs()).sum(),
                PprofCheck.read(bytes.toByteArray()).total("delay", null, null));
    }
}
