package dev.convoy.export;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.convoy.model.Frame;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.RecordingBuilder;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The folded stacks of blocked and waited time ({@code collapsed}) and the flame graph page ({@code flamegraph}). */
class FlameStacksTest {
    static final int S_RUN_LINE5 = 50; // Worker.run at another line than S_RUN: merges with it

    /** One thread with every case: merged lines, a truncated stack, no stack, an undescribed method, 0 ns, a sleep, an open block. */
    static Recording recording() throws Exception {
        RecordingBuilder b = Fixtures.base().stack(S_RUN_LINE5, false, new Frame(M_RUN, 5));
        b.thread(R_MAIN, 1, O_MAIN, "main").span(T0, 0)
                .event(t(100), EVENT_MONITOR_ENTER, S_RUN, M2, 0)
                .event(t(130), EVENT_MONITOR_ENTERED, 0, M2, 0)
                .event(t(200), EVENT_MONITOR_ENTER, S_RUN_LINE5, M4, 0)
                .event(t(210), EVENT_MONITOR_ENTERED, 0, M4, 0)
                .event(t(300), EVENT_MONITOR_ENTER, S_INIT, M1, 0)
                .event(t(301), EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(320), EVENT_SLEEP, S_RUN, 0, 10)
                .event(t(330), EVENT_SLEPT, 0, 0, 0)
                .event(t(350), EVENT_MONITOR_ENTER, S_WAIT, M1, 0)
                .event(t(350), EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(400), EVENT_MONITOR_WAIT, 0, M3, 0)
                .event(t(450), EVENT_MONITOR_WAITED, 0, M3, 0)
                .event(t(500), EVENT_MONITOR_ENTER, S_GONE, M5, 0);
        return SnapshotReader.read(b.toBytes());
    }

    static String collapsed(Recording r) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Output.COLLAPSED.write(r, out);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void foldedLinesAreStateClassFramesRootFirstAndNanoseconds() throws Exception {
        assertEquals("""
                blocked;com.example.Lock;com.example.Worker.run 40000
                blocked;java.lang.Object;<unknown_method_0x7f0000004000> 9500000
                blocked;java.lang.Object;[truncated];com.example.Worker.run;com.example.Worker.<init> 1000
                waited;java.lang.Object;[no_stack] 50000
                """, collapsed(recording()));
    }

    @Test
    void parksBlockOnTheirLockAndWaitOtherwise() throws Exception {
        Recording r = SnapshotReader.read(Fixtures.parks(Fixtures.base()).toBytes());
        Map<String, Long> folded = FlameStacks.of(r).folded();
        assertTrue(folded.keySet().stream().anyMatch(k -> k.startsWith("blocked;" + REENTRANT_LOCK + ";")), folded::toString);
        assertTrue(folded.keySet().stream().anyMatch(k -> k.startsWith("waited;")), folded::toString);
        assertTrue(folded.keySet().stream().noneMatch(k -> k.contains("NonfairSync")), folded::toString);
        long sum = 0;
        for (dev.convoy.analysis.MonitorStatistics.ClassRow c : dev.convoy.analysis.MonitorStatistics.of(r).classes()) {
            sum += c.blocked().totalNs() + c.waited().totalNs();
        }
        assertEquals(sum, FlameStacks.of(r).totalNs(), "the same time as the monitor statistics");
    }

    /** The same lambda in two runs: JVMTI spells a hidden class's name with ".0x" and another address. */
    static Recording lambdaRun(int lambdaNumber, String address) throws Exception {
        long cLambda = 0x0000_0001_0000_0077L;
        long mLambda = 0x7F00_0000_7000L;
        RecordingBuilder b = Fixtures.base()
                .clazz(cLambda, "Lcom/example/Worker$$Lambda$" + lambdaNumber + "." + address + ";", "")
                .method(new dev.convoy.model.MethodInfo(mLambda, cLambda, "run", "()V", false, List.of()))
                .stack(77, false, new Frame(M_RUN, 12), new Frame(mLambda, 1));
        b.thread(R_MAIN, 1, O_MAIN, "main").span(T0, 0)
                .event(t(100), EVENT_MONITOR_ENTER, 77, M2, 0)
                .event(t(130), EVENT_MONITOR_ENTERED, 0, M2, 0);
        return SnapshotReader.read(b.toBytes());
    }

    @Test
    void hiddenClassFramesAreNamedAlikeInEveryRun() throws Exception {
        String first = collapsed(lambdaRun(14, "0x0000000800c0b040"));
        assertEquals("blocked;com.example.Lock;com.example.Worker$$Lambda.run;com.example.Worker.run 30000\n", first);
        assertEquals(first, collapsed(lambdaRun(101, "0x00007f3a4c0e1c28")));
        assertEquals("p.Foo$$Lambda.run", FlameStacks.stableName("p.Foo$$Lambda$14/0x0000000800c0b040.run"));
        assertEquals("p.Foo$$Lambda.run", FlameStacks.stableName("p.Foo$$Lambda/0x0000000800c0b040.run"));
        assertEquals("java.lang.invoke.LambdaForm$MH.invoke",
                FlameStacks.stableName("java.lang.invoke.LambdaForm$MH/0x0000000800c04400.invoke"));
        // Nothing else changes: an ordinary $1, a method or class that merely contains 0x.
        assertEquals("p.C$1.m", FlameStacks.stableName("p.C$1.m"));
        assertEquals("p.Ox0x12.f0x1", FlameStacks.stableName("p.Ox0x12.f0x1"));
        assertEquals("<unknown_method_0x7f0000004000>", FlameStacks.stableName("<unknown_method_0x7f0000004000>"));
    }

    @Test
    void namesAreMadeSafeForFoldedLines() {
        assertEquals("a_b:c_d_e_f_", FlameStacks.escape("a b;c\nd\u2028e\tf\r"));
        assertEquals("_", FlameStacks.escape(""));
        assertEquals("pkg.C$1.m", FlameStacks.escape("pkg.C$1.m"));
    }

    @Test
    void emptyRecordingGivesNoLines() throws Exception {
        assertEquals("", collapsed(SnapshotReader.read(Fixtures.base().toBytes())));
    }

    @Test
    void jsonHoldsTheSameStacksAsFrameIndexes() throws Exception {
        Recording r = recording();
        FlameStacks s = FlameStacks.of(r);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (var g = new com.fasterxml.jackson.core.JsonFactory().createGenerator(out)) {
            s.writeJson(g);
        }
        JsonNode j = new ObjectMapper().readTree(out.toByteArray());
        assertEquals("ns", j.path("unit").asText());
        assertEquals(40000 + 9500000 + 1000 + 50000, j.path("totalNs").asLong());
        Map<String, Long> back = new LinkedHashMap<>();
        for (JsonNode st : j.path("stacks")) {
            List<String> names = new ArrayList<>();
            for (int i = 1; i < st.size(); i++) {
                names.add(j.path("frames").get(st.get(i).asInt()).asText());
            }
            back.put(String.join(";", names), st.get(0).asLong());
        }
        assertEquals(s.folded(), back);
    }

    static final Pattern DATA = Pattern.compile(
            "<script type=\"application/json\" id=\"convoy-flame-data\">(.*?)</script>", Pattern.DOTALL);

    @Test
    void pageEmbedsDataAndScriptsAndLoadsNothing() throws Exception {
        Recording r = recording();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Output.FLAMEGRAPH.write(r, out);
        String html = out.toString(StandardCharsets.UTF_8);
        Matcher m = DATA.matcher(html);
        assertTrue(m.find(), "the data element");
        JsonNode data = new ObjectMapper().readTree(m.group(1));
        assertEquals(FlameStacks.of(r).totalNs(), data.path("totalNs").asLong());
        assertFalse(m.group(1).contains("<"), "'<' escaped in the embedded JSON");
        assertTrue(data.path("frames").toString().contains("<unknown_method_0x7f0000004000>"));
        assertTrue(html.contains("<title>Convoy flame graph: com.example.Main (pid 4242)</title>"), html.substring(0, 300));
        assertTrue(html.contains("https://d3js.org v7.9.0"), "d3 inlined");
        assertTrue(html.contains("d3-flame-graph"), "d3-flame-graph inlined");
        assertTrue(html.contains("ConvoyFlame.mount"), "flame.js inlined and called");
        assertTrue(html.contains("ISC") || html.contains("Permission to use, copy, modify"), "d3's license");
        assertTrue(html.contains("Apache License"), "d3-flame-graph's license");
        String markup = html.replaceAll("(?s)<script[^>]*>.*?</script>", "<script></script>");
        assertFalse(Pattern.compile("(src|href)\\s*=", Pattern.CASE_INSENSITIVE).matcher(markup).find(),
                "no element loads a file: " + markup);
        assertEquals(5, html.split("<script", -1).length - 1, "data, d3, d3-flame-graph, flame.js, mount");
        assertEquals(5, html.split("</script>", -1).length - 1, "no script ends early");
    }

    @Test
    void bundledRendererIsTheReviewedOne() throws Exception {
        assertEquals("5f8d8bc7bf7f8329248d43c1e215431a88f77e17daa217f3c31b019b8b71b3f7", sha256(FlameGraph.RENDERER));
        assertEquals("16651f530d9b8de35bd9e46fa28e005932c608687d51ff26f64c87e146576b38", sha256(FlameGraph.RENDERER_CSS));
        assertTrue(new String(FlameGraph.resource(FlameGraph.D3), StandardCharsets.UTF_8)
                .startsWith("// https://d3js.org v" + FlameGraph.D3_VERSION), "the WebJar's version is D3_VERSION");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> FlameGraph.resource("/nope.js"));
        assertEquals("flame graph resource missing from the class path: /nope.js", e.getMessage());
    }

    static String sha256(String resource) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(FlameGraph.resource(resource)));
    }

    @Test
    void withRecordsAgedOutTheFramesCountTheWholeRunsTotals() throws Exception {
        Recording held = recording();
        java.util.Map<String, String> info = new java.util.LinkedHashMap<>(held.info());
        info.put("records.aged", "5000");
        List<dev.convoy.model.Total> totals = List.of(
                new dev.convoy.model.Total(R_MAIN, dev.convoy.snapshot.SnapshotFormat.TOTAL_BLOCKED, M2, S_RUN, 7,
                        700_000, 200_000),
                new dev.convoy.model.Total(R_MAIN, dev.convoy.snapshot.SnapshotFormat.TOTAL_BLOCKED, M4, S_RUN_LINE5, 1,
                        5_000, 5_000),
                new dev.convoy.model.Total(R_MAIN, dev.convoy.snapshot.SnapshotFormat.TOTAL_WAITED, M3, 0, 2, 90_000,
                        60_000));
        Recording r = new Recording(held.versionMajor(), held.versionMinor(), info, held.threads(), held.stacks(),
                held.methods(), held.classes(), held.objects(), held.monitors(), null, totals);
        assertTrue(FlameStacks.of(r).wholeRun());
        assertEquals("""
                blocked;com.example.Lock;com.example.Worker.run 705000
                waited;java.lang.Object;[no_stack] 90000
                """, collapsed(r), "the totals, not the intervals the history still holds");
        assertFalse(FlameStacks.of(held).wholeRun(), "nothing aged out: the intervals, open blocks included");
        ByteArrayOutputStream page = new ByteArrayOutputStream();
        Output.FLAMEGRAPH.write(r, page);
        assertTrue(page.toString(StandardCharsets.UTF_8).contains("aged-out records included"));
    }
}
