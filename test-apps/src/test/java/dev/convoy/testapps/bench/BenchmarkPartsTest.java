package dev.convoy.testapps.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The pure parts of the benchmark harness; nothing here runs the ping-pong or depends on timing. */
class BenchmarkPartsTest {

    // --- PINGPONG line -------------------------------------------------------------------------

    @Test
    void pingPongLineRoundTripsThroughFormatAndParse() {
        PingPongLine line = new PingPongLine(200_000, 50_000, 1_216_613_795L);
        assertEquals("PINGPONG roundtrips=200000 warmup=50000 nanos=1216613795 ns_per_roundtrip=6083.1",
                line.format());
        assertEquals(line, PingPongLine.parse(line.format()));
        assertEquals(6083.068975, line.nsPerRoundtrip(), 1e-9);
    }

    @Test
    void pingPongLineToleratesOrderExtraKeysAndMissingWarmup() {
        PingPongLine line = PingPongLine.parse("  PINGPONG nanos=1000 extra=x roundtrips=10  ");
        assertEquals(10, line.roundtrips());
        assertEquals(0, line.warmup());
        assertEquals(1000, line.nanos());
        assertEquals(100.0, line.nsPerRoundtrip());
    }

    @Test
    void pingPongLineRejectsMalformedLines() {
        assertThrows(IllegalArgumentException.class, () -> PingPongLine.parse("PONG roundtrips=1 nanos=1"));
        assertThrows(IllegalArgumentException.class, () -> PingPongLine.parse("PINGPONG roundtrips=1"));
        assertThrows(IllegalArgumentException.class, () -> PingPongLine.parse("PINGPONG roundtrips=x nanos=1"));
        assertThrows(IllegalArgumentException.class, () -> PingPongLine.parse("PINGPONG roundtrips=0 nanos=1"));
        assertThrows(IllegalArgumentException.class, () -> PingPongLine.parse("PINGPONG roundtrips nanos=1"));
    }

    @Test
    void findPicksThePingPongLineAmongAgentNoise() {
        List<String> out = List.of("WARNING: A restricted method in java.lang.System has been called",
                "[convoy] recording", "PINGPONGX roundtrips=1 nanos=1",
                "PINGPONG roundtrips=4 warmup=0 nanos=40 ns_per_roundtrip=10.0", "trailing");
        assertEquals(new PingPongLine(4, 0, 40), PingPongLine.find(out).orElseThrow());
        assertTrue(PingPongLine.find(List.of("nothing here")).isEmpty());
    }

    // --- median and spread ---------------------------------------------------------------------

    @Test
    void statsOfAnOddCountTakesTheMiddleValue() {
        Stats s = Stats.of(List.of(9.0, 1.0, 5.0, 3.0, 7.0));
        assertEquals(5, s.n());
        assertEquals(5.0, s.median());
        assertEquals(1.0, s.min());
        assertEquals(9.0, s.max());
        assertEquals(8.0, s.spread());
        assertEquals(160.0, s.spreadPercent(), 1e-9);
    }

    @Test
    void statsOfAnEvenCountAveragesTheMiddlePair() {
        Stats s = Stats.of(List.of(4.0, 1.0, 3.0, 2.0));
        assertEquals(2.5, s.median());
        assertEquals(1.0, s.min());
        assertEquals(4.0, s.max());
    }

    @Test
    void statsOfOneValue() {
        Stats s = Stats.of(List.of(42.0));
        assertEquals(42.0, s.median());
        assertEquals(0.0, s.spread());
    }

    @Test
    void statsRejectsEmptyAndNonFinite() {
        assertThrows(IllegalArgumentException.class, () -> Stats.of(List.of()));
        assertThrows(IllegalArgumentException.class, () -> Stats.of(List.of(1.0, Double.NaN)));
    }

    // --- table ---------------------------------------------------------------------------------

    private static List<Report.ConfigResult> sample() {
        return List.of(
                new Report.ConfigResult(BenchConfig.NO_AGENT, List.of(5000.0, 5100.0, 4900.0)),
                new Report.ConfigResult(BenchConfig.FLOOR, List.of(5200.0, 5000.0, 5400.0)),
                new Report.ConfigResult(BenchConfig.NO_STACKS, List.of(5600.0, 5500.0, 5800.0)),
                new Report.ConfigResult(BenchConfig.DEFAULT, List.of(9200.0, 9000.0, 9400.0)));
    }

    @Test
    void perEventCostIsTheMedianDifferenceOverTheEventCount() {
        Stats floor = Stats.of(List.of(5200.0, 5000.0, 5400.0));
        Stats config = Stats.of(List.of(5600.0, 5500.0, 5800.0));
        assertEquals(100.0, Report.perEventAbove(config, floor, 4));
        assertEquals(-100.0, Report.perEventAbove(floor, config, 4));
    }

    @Test
    void tableRendersOneRowPerConfigurationWithCostsAndTargets() {
        String table = Report.table(sample(), 4);
        String[] lines = table.split("\n");
        assertEquals(6, lines.length);
        assertTrue(lines[0].startsWith("| Configuration | Agent options | Median ns/round trip |"));
        assertEquals("|---|---|---:|---:|---:|---:|---:|---:|---|", lines[1]);
        assertEquals("| no agent | (no -javaagent) | 5000 | 4900 | 5100 | 200 (4.0 %) | — | — | — |", lines[2]);
        assertEquals("| empty callbacks (JVMTI floor) | `bench.callbacks=empty` | 5200 | 5000 | 5400 | 400 (7.7 %) "
                + "| — | 50.0 | — |", lines[3]);
        // (5600 - 5200) / 4 = 100 above the floor: exactly at the 100 ns target, which counts as met
        assertEquals("| Convoy, no stacks | `stackdepth=0` | 5600 | 5500 | 5800 | 300 (5.4 %) "
                + "| 100.0 | 150.0 | ≤ 100 ns: **met** |", lines[4]);
        // (9200 - 5200) / 4 = 1000
        assertEquals("| Convoy default (stack depth 64) | (defaults) | 9200 | 9000 | 9400 | 400 (4.3 %) "
                + "| 1000.0 | 1050.0 | ≤ 1 µs: **met** |", lines[5]);
    }

    @Test
    void tableSaysNotMetAboveTheTarget() {
        List<Report.ConfigResult> rs = List.of(
                new Report.ConfigResult(BenchConfig.FLOOR, List.of(1000.0)),
                new Report.ConfigResult(BenchConfig.NO_STACKS, List.of(1404.0)));
        String table = Report.table(rs, 4);
        assertTrue(table.contains("| 101.0 | — | ≤ 100 ns: **not met** |"), table);
    }

    @Test
    void sectionCarriesTheEnvironmentTableAndRawRuns() {
        Report.Environment env = new Report.Environment("2025-01-01 00:00 UTC", "openjdk version \"17\"",
                "nproc 2, AMD EPYC", 3, 1000, 10, "`taskset -c 0`", "-Xms256m", "java -cp x Runner");
        String s = Report.section(env, sample(), 4);
        assertTrue(s.contains("- Date: 2025-01-01 00:00 UTC\n"), s);
        assertTrue(s.contains("- JDK: openjdk version \"17\"\n"), s);
        assertTrue(s.contains("- Machine: nproc 2, AMD EPYC\n"), s);
        assertTrue(s.contains("3 per configuration"), s);
        assertTrue(s.contains("1000 measured round trips after 10 warm-up round trips; 4 monitor events"), s);
        assertTrue(s.contains(Report.table(sample(), 4)), s);
        assertTrue(s.contains("- no agent: 5000, 5100, 4900\n"), s);
    }

    // --- marker replacement --------------------------------------------------------------------

    @Test
    void replaceSwapsOnlyTheTextBetweenTheMarkers() {
        String doc = "# Perf\n\nintro\n<!-- pingpong:begin -->\nold\ntable\n<!-- pingpong:end -->\n\noutro\n";
        String out = Markers.replace(doc, "pingpong", "new\n");
        assertEquals("# Perf\n\nintro\n<!-- pingpong:begin -->\nnew\n<!-- pingpong:end -->\n\noutro\n", out);
        assertEquals(out, Markers.replace(out, "pingpong", "new"), "idempotent");
    }

    @Test
    void replaceLeavesOtherMarkerPairsAlone() {
        String doc = "<!-- pingpong:begin -->\na\n<!-- pingpong:end -->\n"
                + "<!-- pingpong-jdk25:begin -->\nb\n<!-- pingpong-jdk25:end -->\n";
        String out = Markers.replace(doc, "pingpong-jdk25", "c");
        assertEquals("<!-- pingpong:begin -->\na\n<!-- pingpong:end -->\n"
                + "<!-- pingpong-jdk25:begin -->\nc\n<!-- pingpong-jdk25:end -->\n", out);
    }

    @Test
    void replaceAppendsTheSectionWhenTheMarkersAreAbsent() {
        assertEquals("text\n\n<!-- pingpong:begin -->\nx\n<!-- pingpong:end -->\n",
                Markers.replace("text", "pingpong", "x"));
        assertEquals("<!-- pingpong:begin -->\nx\n<!-- pingpong:end -->\n", Markers.replace("", "pingpong", "x"));
    }

    @Test
    void replaceRefusesBrokenMarkers() {
        assertThrows(IllegalArgumentException.class,
                () -> Markers.replace("<!-- pingpong:begin -->\nx\n", "pingpong", "y"));
        assertThrows(IllegalArgumentException.class,
                () -> Markers.replace("x\n<!-- pingpong:end -->\n", "pingpong", "y"));
        assertThrows(IllegalArgumentException.class,
                () -> Markers.replace("<!-- pingpong:end -->\n<!-- pingpong:begin -->\n", "pingpong", "y"));
        assertThrows(IllegalArgumentException.class, () -> Markers.replace(
                "<!-- pingpong:begin -->\n<!-- pingpong:end -->\n<!-- pingpong:begin -->\n<!-- pingpong:end -->\n",
                "pingpong", "y"));
    }

    @Test
    void theResultFilesTheLauncherWritesByDefaultHaveTheirMarkers() throws IOException {
        // ./convoy bench and ./convoy bench suite replace these sections (docs/bench/, the launcher's defaults)
        Path bench = Paths.get("..", "docs", "bench");
        assertMarkers(bench.resolve("pingpong.md"), "pingpong-jdk17", "pingpong-jdk25");
        assertMarkers(bench.resolve("suite-jdk17.md"), "suite-jdk17");
        assertMarkers(bench.resolve("suite-jdk25.md"), "suite-jdk25");
        assertTrue(Files.isRegularFile(bench.resolve("suite-jdk17.png")));
        assertTrue(Files.isRegularFile(bench.resolve("suite-jdk25.png")));
    }

    private static void assertMarkers(Path file, String... names) throws IOException {
        String doc = Files.readString(file, StandardCharsets.UTF_8);
        for (String name : names) {
            String out = Markers.replace(doc, name, "x");
            assertTrue(out.contains(Markers.begin(name) + "\nx\n" + Markers.end(name)), file + ": " + name);
            assertEquals(doc.length() - doc.indexOf(Markers.end(name)), out.length() - out.indexOf(Markers.end(name)),
                    file + ": the text after " + Markers.end(name) + " is kept");
        }
    }

    // --- runner helpers ------------------------------------------------------------------------

    @Test
    void childCommandHasIdenticalFlagsAndOnlyTheAgentDiffers() {
        List<String> none = BenchmarkRunner.childCommand(List.of("taskset", "-c", "0"), "/j/bin/java",
                BenchConfig.NO_AGENT.javaagentArg("a.jar"), "cp", 100, 10);
        assertEquals(List.of("taskset", "-c", "0", "/j/bin/java", "-Xms256m", "-Xmx256m", "-XX:+UseSerialGC",
                "-cp", "cp", "dev.convoy.testapps.bench.PingPong", "--roundtrips", "100", "--warmup", "10"), none);
        List<String> floor = BenchmarkRunner.childCommand(List.of(), "java",
                BenchConfig.FLOOR.javaagentArg("a.jar"), "cp", 100, 10);
        assertTrue(floor.contains("-javaagent:a.jar=bench.callbacks=empty"), floor.toString());
        assertEquals("-javaagent:a.jar", BenchConfig.DEFAULT.javaagentArg("a.jar"));
        assertEquals("-javaagent:a.jar=stackdepth=0", BenchConfig.NO_STACKS.javaagentArg("a.jar"));
    }

    @Test
    void parseOptionsAppliesDefaultsAndRejectsNonsense() {
        BenchmarkRunner.Options o = BenchmarkRunner.parse(new String[] {"--agent", "a.jar", "--runs", "3"});
        assertEquals("a.jar", o.agent());
        assertEquals(3, o.runs());
        assertEquals(PingPong.DEFAULT_ROUNDTRIPS, o.roundtrips());
        assertEquals("pingpong", o.marker());
        assertEquals(null, o.out());
        assertFalse(o.timing());
        assertTrue(BenchmarkRunner.parse(new String[] {"--agent", "a.jar", "--timing"}).timing());
        assertThrows(IllegalArgumentException.class, () -> BenchmarkRunner.parse(new String[] {"--runs", "3"}));
        assertThrows(IllegalArgumentException.class,
                () -> BenchmarkRunner.parse(new String[] {"--agent", "a", "--runs", "0"}));
        assertThrows(IllegalArgumentException.class,
                () -> BenchmarkRunner.parse(new String[] {"--agent", "a", "--bogus", "1"}));
        assertThrows(IllegalArgumentException.class,
                () -> BenchmarkRunner.parse(new String[] {"--agent", "a", "--marker", "a b"}));
    }

    @Test
    void onlyTheTimingConfigurationDumpsItsTiming() {
        assertTrue(BenchConfig.TIMING.timed());
        assertEquals("-javaagent:a.jar=bench.timing=on", BenchConfig.TIMING.javaagentArg("a.jar"));
        for (BenchConfig c : BenchConfig.ALL) {
            assertFalse(c.timed(), c.label());
        }
        assertFalse(BenchConfig.ALL.contains(BenchConfig.TIMING), "run only with --timing");
        assertFalse(new BenchConfig("x", BenchConfig.Kind.RECORDER, "bench.timing=off", Double.NaN).timed());
    }

    @Test
    void versionTextAndModelName() {
        assertEquals("openjdk version \"25\" 2025-09-16 LTS; OpenJDK Runtime Environment Temurin-25+36",
                BenchmarkRunner.versionText(List.of("Picked up JAVA_TOOL_OPTIONS: -Xss1m",
                        "openjdk version \"25\" 2025-09-16 LTS", "OpenJDK Runtime Environment Temurin-25+36",
                        "OpenJDK 64-Bit Server VM")));
        assertEquals("AMD EPYC 7B13", BenchmarkRunner.modelName(List.of("processor\t: 0",
                "vendor_id\t: AuthenticAMD", "model name\t: AMD EPYC 7B13", "model name\t: other")));
        assertEquals("unknown CPU", BenchmarkRunner.modelName(List.of("processor\t: 0")));
        assertFalse(BenchmarkRunner.JVM_FLAGS.contains("-Xint"));
    }
}
