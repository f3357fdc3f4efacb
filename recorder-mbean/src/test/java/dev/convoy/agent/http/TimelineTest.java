package dev.convoy.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.convoy.analysis.ContentionIndex;
import dev.convoy.analysis.CriticalPath;
import dev.convoy.analysis.Interactions;
import dev.convoy.analysis.SpanCursor;
import dev.convoy.analysis.ThreadStates;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.RecordingBuilder;
import dev.convoy.testing.SyntheticRecordings;

/**
 * {@link Timeline}, the answer of {@code /api/timeline}: against the analysis it reads
 * ({@link ThreadStates}, {@link CriticalPath}, {@link Interactions}) on the web view's test
 * snapshot and on synthetic recordings, its decimation bound, and its errors over HTTP.
 */
class TimelineTest {

    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    static Recording fixture() throws IOException {
        return SnapshotReader.read(WebServerTest.snapshot());
    }

    static JsonNode answer(Timeline t, Timeline.Query q) {
        return JSON.valueToTree(parse(bytes(t, q)));
    }

    static byte[] bytes(Timeline t, Timeline.Query q) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            t.write(g, q);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    static JsonNode parse(byte[] b) {
        try {
            return JSON.readTree(b);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<RecordedThread> javaThreads(Recording r) {
        return r.threads().stream().filter(t -> !t.isSystem()).toList();
    }

    /** Every span of a row lies in the window, in order, without overlap. */
    static void assertRowsInWindow(JsonNode a) {
        long from = a.get("from").asLong();
        long to = a.get("to").asLong();
        for (JsonNode row : a.get("rows")) {
            long last = from;
            for (JsonNode s : row.get("spans")) {
                assertTrue(s.get(0).asLong() >= last && s.get(1).asLong() > s.get(0).asLong()
                        && s.get(1).asLong() <= to, () -> row.get("name") + ": " + s + " after " + from);
                last = s.get(1).asLong();
            }
        }
    }

    @Test
    void wideEnoughEverySpanIsTheThreadStatesSpanWithItsStackAndMonitor() throws IOException {
        Recording r = fixture();
        Timeline t = Timeline.of(r);
        JsonNode a = answer(t, t.parse(null, null, "4000"));
        assertEquals(0, a.get("from").asLong());
        assertEquals(10_000_000, a.get("to").asLong(), "the whole recording: 10 ms");
        assertEquals(4000, a.get("width").asInt());
        List<String> states = new ArrayList<>();
        a.get("states").forEach(s -> states.add(s.asText()));
        List<String> names = new ArrayList<>();
        a.get("rows").forEach(row -> names.add(row.get("name").asText()));
        assertEquals(List.of("main", "worker-1", "worker-2"), names);
        assertEquals(0, a.get("mergedSpans").asLong(), "at 2.5 us a pixel nothing is merged");

        ThreadStates ts = ThreadStates.of(r);
        long origin = r.startMonotonicNs();
        int total = 0;
        for (int i = 0; i < names.size(); i++) {
            RecordedThread th = javaThreads(r).get(i);
            JsonNode spans = a.get("rows").get(i).get("spans");
            List<ThreadStates.Span> expected = ts.of(th).stream().filter(s -> s.endNs() > s.startNs()).toList();
            assertEquals(expected.size(), spans.size(), th.name() + ": " + spans);
            for (int k = 0; k < expected.size(); k++) {
                ThreadStates.Span e = expected.get(k);
                JsonNode s = spans.get(k);
                assertEquals(e.startNs() - origin, s.get(0).asLong());
                assertEquals(e.endNs() - origin, s.get(1).asLong());
                assertEquals(e.state().name(), states.get(s.get(2).asInt()));
                assertEquals(1, s.get(3).asInt());
                assertEquals(e.interval() == null ? 0 : e.interval().begin().stackId(), s.get(4).asInt());
                assertEquals(e.monitor(), s.get(5).asLong());
            }
            total += spans.size();
        }
        assertEquals(total, a.get("spanCount").asInt());
        // worker-2's one contended enter: 100 to 250 us, on com.example.Lock #2001, with its stack
        JsonNode w2 = a.get("rows").get(2).get("spans");
        JsonNode blocked = w2.get(1);
        assertEquals(List.of(100_000L, 250_000L, (long) ThreadStates.State.BLOCKED.ordinal(), 1L,
                (long) WebServerTest.S_RUN, WebServerTest.L1), List.of(blocked.get(0).asLong(), blocked.get(1).asLong(),
                blocked.get(2).asLong(), blocked.get(3).asLong(), blocked.get(4).asLong(), blocked.get(5).asLong()));
        assertEquals("com.example.Lock", a.get("monitors").get(Long.toString(WebServerTest.L1)).asText());
        assertEquals("DEADLOCKED", states.get(a.get("rows").get(0).get("spans").get(1).get(2).asInt()),
                "main is deadlocked from its enter at 300 us");
        assertRowsInWindow(a);
    }

    @Test
    void narrowSpansAreMergedIntoTheDominantStateAndCounted() throws IOException {
        Recording r = fixture();
        Timeline t = Timeline.of(r);
        // 10 px for 10 ms: worker-2's 60-100 us running, 150 us blocked and 250-900 us running are one pixel
        JsonNode a = answer(t, t.parse("0", "10000000", "10"));
        JsonNode w2 = a.get("rows").get(2).get("spans");
        JsonNode first = w2.get(0);
        assertEquals(60_000, first.get(0).asLong(), "from worker-2's start");
        assertTrue(first.get(3).asInt() >= 3, () -> "running, blocked, running merged: " + first);
        assertEquals("RUNNING", a.get("states").get(first.get(2).asInt()).asText(), "mostly running");
        assertEquals(0, first.get(4).asInt(), "a merged span has no stack");
        assertTrue(a.get("mergedSpans").asLong() >= 3);
        for (JsonNode row : a.get("rows")) {
            assertTrue(row.get("spans").size() <= 2 * 10 + 1);
        }
        assertRowsInWindow(a);

        // zoomed into 50-300 us at 250 px (1 us a pixel): the blocked span is back, alone
        JsonNode z = answer(t, t.parse("50000", "300000", "250"));
        JsonNode zs = z.get("rows").get(2).get("spans");
        assertEquals(3, zs.size(), zs::toString);
        assertEquals(100_000, zs.get(1).get(0).asLong());
        assertEquals(250_000, zs.get(1).get(1).asLong());
        assertEquals(60_000 > 50_000 ? 60_000 : 50_000, zs.get(0).get(0).asLong());
        assertEquals(300_000, zs.get(2).get(1).asLong(), "clipped at the window's end");
        assertRowsInWindow(z);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "5|5|100|parameter 'from' (5) must be less than 'to' (5)",
        "|1|0|parameter 'width' must be between 1 and 8192, got 0",
        "|1|9000|parameter 'width' must be between 1 and 8192, got 9000",
        "x|1|10|parameter 'from' must be a whole number of ns since the recording start, got 'x'",
        "-1|1|10|parameter 'from' must be between 0 and 9999999, got -1",
        "10000000||10|parameter 'from' must be between 0 and 9999999, got 10000000",
        "|0|10|parameter 'to' must be between 1 and 9223372036854775807, got 0",
        "|2|1.5|parameter 'width' must be a whole number of pixels, got '1.5'",
    })
    void badQueriesAreRefusedWithOneLine(String from, String to, String width, String message) throws IOException {
        Timeline t = Timeline.of(fixture());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.parse(from, to, width));
        assertEquals(message, e.getMessage());
    }

    @Test
    void aWindowPastTheEndEndsAtTheSnapshot() throws IOException {
        Timeline t = Timeline.of(fixture());
        assertEquals(new Timeline.Query(9_000_000, 10_000_000, 100), t.parse("9000000", "9223372036854775807", "100"));
        JsonNode a = answer(t, t.parse("9000000", "99000000", "100"));
        assertEquals(10_000_000, a.get("to").asLong());
        assertRowsInWindow(a);
    }

    @Test
    void theEndpointAnswersAndRefusesOverHttp() throws Exception {
        Path file = dir.resolve("run.cvysnap");
        Files.write(file, WebServerTest.snapshot());
        try (WebServer server = WebServer.start(new FileSource(file), "127.0.0.1", 0, null)) {
            HttpResponse<byte[]> ok = get(server, "api/timeline?from=50000&to=300000&width=250");
            assertEquals(200, ok.statusCode());
            assertEquals("application/json", ok.headers().firstValue("Content-Type").orElse(""));
            JsonNode a = JSON.readTree(ok.body());
            assertEquals(3, a.get("rows").size());
            assertEquals(50_000, a.get("from").asLong());
            HttpResponse<byte[]> bad = get(server, "api/timeline?width=wide");
            assertEquals(400, bad.statusCode());
            assertEquals("parameter 'width' must be a whole number of pixels, got 'wide'",
                    JSON.readTree(bad.body()).get("error").asText());
            assertEquals(405, WebServerTest.CLIENT.send(HttpRequest.newBuilder(URI.create(server.url() + "api/timeline"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding()).statusCode());
            HttpResponse<byte[]> js = get(server, "timeline.js");
            assertEquals(200, js.statusCode());
            assertTrue(js.headers().firstValue("Content-Type").orElse("").startsWith("text/javascript"));
        }
    }

    private static HttpResponse<byte[]> get(WebServer server, String path) throws Exception {
        return WebServerTest.CLIENT.send(HttpRequest.newBuilder(URI.create(server.url() + path)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    /** A wait its own timeout ended says so (7th element 1); a wait ended otherwise, and every other span, 0. */
    @Test
    void aSpanTheTimeoutEndedIsMarkedTimedOut() throws IOException {
        RecordingBuilder b = WebServerTest.builder();
        b.thread(4, 14, 0, "waiter").span(WebServerTest.t(20), 0)
                .event(WebServerTest.t(400), SnapshotFormat.EVENT_MONITOR_WAIT, WebServerTest.S_RUN, WebServerTest.L1, 100)
                .event(WebServerTest.t(500), SnapshotFormat.EVENT_MONITOR_WAITED, SnapshotFormat.FLAG_TIMED_OUT, 0,
                        WebServerTest.L1, 0, 0)
                .event(WebServerTest.t(600), SnapshotFormat.EVENT_MONITOR_WAIT, WebServerTest.S_RUN, WebServerTest.L1, 0)
                .event(WebServerTest.t(700), SnapshotFormat.EVENT_MONITOR_WAITED, WebServerTest.S_RUN, WebServerTest.L1, 0);
        Recording r = SnapshotReader.read(b.toBytes());
        Timeline t = Timeline.of(r);
        JsonNode a = answer(t, t.parse(null, null, "4000"));
        List<String> states = new ArrayList<>();
        a.get("states").forEach(x -> states.add(x.asText()));
        List<String> waits = new ArrayList<>();
        int marked = 0;
        for (JsonNode row : a.get("rows")) {
            for (JsonNode span : row.get("spans")) {
                assertEquals(9, span.size(), span::toString);
                assertEquals(0, span.get(8).asInt(), "no owner's side sampled");
                marked += span.get(6).asInt();
                if (row.get("name").asText().equals("waiter") && states.get(span.get(2).asInt()).equals("WAITING")) {
                    waits.add(span.get(0).asLong() + "-" + span.get(1).asLong() + ":" + span.get(6).asInt());
                }
            }
        }
        assertEquals(List.of("400000-500000:1", "600000-700000:0"), waits);
        assertEquals(1, marked, "only the wait the timeout ended");
    }

    /**
     * A thread's lost records ({@code Fixtures.losses}) are UNKNOWN spans, never RUNNING, each
     * with the records it lost (8th element) and the row's losses (kind, records) for the
     * tooltip; no arrow goes to its own thread, backwards or across a loss.
     */
    @Test
    void lostRecordsAreUnknownSpansWithTheirRecordsAndNoArrowCrossesThem() throws IOException {
        Recording r = SnapshotReader.read(Fixtures.losses(Fixtures.base()).toBytes());
        Timeline t = Timeline.of(r);
        JsonNode a = answer(t, t.parse(null, null, "8000"));
        List<String> states = new ArrayList<>();
        a.get("states").forEach(x -> states.add(x.asText()));
        Map<String, JsonNode> rows = new HashMap<>();
        a.get("rows").forEach(row -> rows.put(row.get("name").asText(), row));
        assertEquals(List.of("UNKNOWN 10000-400000 300", "RUNNING 400000-450000 0", "BLOCKED 450000-480000 0",
                "RUNNING 480000-10000000 0"), spans(rows.get("lost-early"), states),
                "its first records lost: unknown from its start, not running");
        assertEquals(List.of("RUNNING 20000-140000 0", "BLOCKED 140000-150000 0", "UNKNOWN 150000-350000 500",
                "RUNNING 350000-10000000 0"), spans(rows.get("notifier"), states));
        assertEquals("[[10000,200000,\"aged\",100],[200000,400000,\"overwritten\",200]]",
                rows.get("lost-early").get("losses").toString());
        assertEquals("[]", rows.get("waiter").get("losses").toString());
        for (JsonNode row : a.get("rows")) { // no other state in a loss
            for (JsonNode l : row.get("losses")) {
                for (JsonNode sp : row.get("spans")) {
                    boolean overlaps = sp.get(0).asLong() < l.get(1).asLong() && l.get(0).asLong() < sp.get(1).asLong();
                    assertTrue(!overlaps || states.get(sp.get(2).asInt()).equals("UNKNOWN"), sp + " in " + l);
                }
            }
        }
        assertEquals(2, a.get("arrows").size(), "the releasers the VM recorded, nothing across the losses");
        for (JsonNode arrow : a.get("arrows")) {
            assertTrue(arrow.get(1).asInt() != arrow.get(3).asInt(), "an arrow to its own thread: " + arrow);
            assertTrue(arrow.get(2).asLong() <= arrow.get(4).asLong(), "an arrow backwards: " + arrow);
        }
        // narrow: merged spans still count the records lost in them
        JsonNode n = answer(t, t.parse("0", "1000000", "2"));
        long lost = 0;
        for (JsonNode row : n.get("rows")) {
            for (JsonNode sp : row.get("spans")) {
                lost += sp.get(7).asLong();
            }
        }
        assertEquals(800, lost);
    }

    static List<String> spans(JsonNode row, List<String> states) {
        List<String> out = new ArrayList<>();
        for (JsonNode sp : row.get("spans")) {
            out.add(states.get(sp.get(2).asInt()) + " " + sp.get(0).asLong() + "-" + sp.get(1).asLong() + " "
                    + sp.get(7).asLong());
        }
        return out;
    }

    @Test
    void interactionsAndCriticalPathOfTheWindowAreTheAnalysis() throws IOException {
        Recording r = SyntheticRecordings.synthetic(40_000, 8, 3, 5).build();
        Timeline t = Timeline.of(r);
        long origin = r.startMonotonicNs();
        long from = t.durationNs() / 3;
        long to = from + t.durationNs() / 50;
        JsonNode a = answer(t, t.parse(Long.toString(from), Long.toString(to), "8000"));
        assertRowsInWindow(a);

        List<RecordedThread> rows = javaThreads(r);
        List<String> expected = new ArrayList<>();
        for (Interactions.Interaction i : Interactions.of(r).all()) {
            long f = i.fromNs() - origin;
            long e = i.toNs() - origin;
            if (i.kind() != Interactions.Kind.TIMEOUT && (f >= from && f <= to || e >= from && e <= to)) {
                expected.add(i.kind().ordinal() + "," + rows.indexOf(i.from()) + "," + f + "," + rows.indexOf(i.to())
                        + "," + e);
            }
        }
        assertFalse(expected.isEmpty(), "the window has interactions");
        assertTrue(expected.size() <= Timeline.MAX_ARROWS, "all of them are sent");
        List<String> got = new ArrayList<>();
        a.get("arrows").forEach(x -> got.add(x.get(0) + "," + x.get(1) + "," + x.get(2) + "," + x.get(3) + "," + x.get(4)));
        assertEquals(expected.size(), a.get("arrowCount").asInt());
        assertEquals(expected.stream().sorted().toList(), got.stream().sorted().toList());

        // each path segment sent is a segment of the critical path, clipped to the window
        List<String> path = new ArrayList<>();
        for (CriticalPath.Segment s : CriticalPath.of(r).segments()) {
            long sa = Math.max(s.startNs() - origin, from);
            long sb = Math.min(s.endNs() - origin, to);
            if (sb > sa) {
                path.add(rows.indexOf(s.thread()) + "," + sa + "," + sb + "," + s.state().ordinal());
            }
        }
        List<String> sent = new ArrayList<>();
        a.get("path").forEach(x -> sent.add(x.get(0) + "," + x.get(1) + "," + x.get(2) + "," + x.get(3)));
        assertFalse(sent.isEmpty(), "the path crosses the window");
        assertTrue(path.containsAll(sent), () -> sent + " not all in " + path);
        assertEquals(CriticalPath.of(r).lengthNs(), a.get("pathLengthNs").asLong());

        // over the whole recording there are more than are sent: those sent ended the longest intervals
        JsonNode whole = answer(t, t.parse(null, null, "1000"));
        assertTrue(whole.get("arrowCount").asInt() > Timeline.MAX_ARROWS, () -> whole.get("arrowCount").toString());
        java.util.Set<String> sentArrows = new java.util.HashSet<>();
        whole.get("arrows").forEach(x -> sentArrows.add(x.get(0) + "," + x.get(1) + "," + x.get(2) + "," + x.get(3)
                + "," + x.get(4)));
        assertEquals(Timeline.MAX_ARROWS, sentArrows.size());
        long shortestSent = Long.MAX_VALUE;
        long longestLeft = 0;
        for (Interactions.Interaction i : Interactions.of(r).all()) {
            long f = i.fromNs() - origin;
            long e = i.toNs() - origin;
            if (i.kind() == Interactions.Kind.TIMEOUT || !(f >= 0 && f <= t.durationNs() || e >= 0 && e <= t.durationNs())) {
                continue; // not in the window (the generator's ended threads record past the snapshot)
            }
            long lasted = i.ended() == null ? 0 : i.ended().durationNs();
            String key = i.kind().ordinal() + "," + rows.indexOf(i.from()) + "," + (i.fromNs() - origin) + ","
                    + rows.indexOf(i.to()) + "," + (i.toNs() - origin);
            if (sentArrows.contains(key)) {
                shortestSent = Math.min(shortestSent, lasted);
            } else {
                longestLeft = Math.max(longestLeft, lasted);
            }
        }
        assertTrue(shortestSent >= longestLeft, shortestSent + " < " + longestLeft);
        assertTrue(longestLeft > 0);
    }

    /** The GC ring's pauses, ns since the recording start, read from its records. */
    static List<long[]> gcPauses(Recording r) {
        List<long[]> pauses = new ArrayList<>();
        for (RecordedThread t : r.threads()) {
            long start = -1;
            for (dev.convoy.model.Event e : t.events()) {
                if (e.type() == dev.convoy.model.EventType.GC_START) {
                    start = e.ts();
                } else if (e.type() == dev.convoy.model.EventType.GC_FINISH && start >= 0) {
                    pauses.add(new long[] {start - r.startMonotonicNs(), e.ts() - r.startMonotonicNs()});
                    start = -1;
                }
            }
        }
        return pauses;
    }

    static List<List<Long>> gcOf(JsonNode a) {
        List<List<Long>> out = new ArrayList<>();
        a.get("gc").forEach(p -> out.add(List.of(p.get(0).asLong(), p.get(1).asLong())));
        return out;
    }

    @Test
    void gcPausesOfTheWindowAreSentThoseLessThanAPixelApartMerged() throws IOException {
        Recording r = SyntheticRecordings.synthetic(20_000, 10, 5, 1).build();
        List<long[]> pauses = gcPauses(r);
        assertTrue(pauses.size() >= 3, () -> pauses.size() + " pauses");
        Timeline t = Timeline.of(r);
        long duration = r.snapshotMonotonicNs() - r.startMonotonicNs();
        // every pause 5 ms from the next: at 1 us a pixel each is sent as it is
        JsonNode whole = answer(t, t.parse(null, null, Long.toString(Math.min(Timeline.MAX_WIDTH, duration / 1000))));
        List<List<Long>> expected = pauses.stream().filter(p -> p[0] <= duration).map(p -> List.of(p[0], p[1])).toList();
        assertEquals(expected, gcOf(whole));
        assertEquals(expected.size(), whole.get("gcCount").asInt());
        // two pixels: the pauses merge into at most three, from the first pause's start to the last one's end
        JsonNode narrow = answer(t, t.parse(null, null, "2"));
        List<List<Long>> merged = gcOf(narrow);
        assertTrue(merged.size() <= 3, merged::toString);
        assertEquals(expected.get(0).get(0), merged.get(0).get(0));
        assertEquals(expected.get(expected.size() - 1).get(1), merged.get(merged.size() - 1).get(1));
        assertEquals(expected.size(), narrow.get("gcCount").asInt(), "every pause counted once");
        // a window that starts inside the second pause and ends before the third: that pause only
        long from = (expected.get(1).get(0) + expected.get(1).get(1)) / 2;
        long to = expected.get(2).get(0) - 1;
        JsonNode part = answer(t, t.parse(Long.toString(from), Long.toString(to), "1000"));
        assertEquals(List.of(expected.get(1)), gcOf(part));
        // a recording without a GC ring: none
        assertEquals(List.of(), gcOf(answer(Timeline.of(fixture()), Timeline.of(fixture()).parse(null, null, "100"))));
    }

    @Test
    void aMillionEventsOf300ThreadsGiveAnAnswerBoundedByRowsTimesWidth() throws IOException {
        Recording r = SyntheticRecordings.synthetic(1_000_000, 300, 50, 1).build();
        assertTrue(r.threads().stream().mapToLong(RecordedThread::eventCount).sum() >= 990_000);
        Timeline t = Timeline.of(r);
        assertEquals(300, t.rows());
        // the thread states of the recording within start to snapshot (the generator's ended threads
        // record past the snapshot time)
        ContentionIndex x = ContentionIndex.of(r);
        long states = 0;
        for (int k = 0; k < x.rings(); k++) {
            SpanCursor st = x.spans(k);
            for (int s = 0; s < st.count(); s++) {
                long from = Math.max(st.select(s).startNs(), r.startMonotonicNs());
                states += Math.min(st.endNs(), r.snapshotMonotonicNs()) > from ? 1 : 0;
            }
        }
        long all = states;
        assertTrue(all > 300_000, () -> all + " states");
        for (int width : new int[] {1200, 200}) {
            byte[] b = bytes(t, t.parse(null, null, Integer.toString(width)));
            JsonNode a = parse(b);
            assertEquals(300, a.get("rows").size());
            long spans = a.get("spanCount").asLong();
            assertTrue(spans <= 300L * (2 * width + 1), () -> spans + " spans at " + width + " px");
            long counted = 0;
            for (JsonNode row : a.get("rows")) {
                assertTrue(row.get("spans").size() <= 2 * width + 1);
                for (JsonNode s : row.get("spans")) {
                    counted += s.get(3).asLong();
                }
            }
            assertEquals(all, counted, "every state sent or counted in a merged span, once");
            assertTrue(a.get("mergedSpans").asLong() > 0);
            assertEquals(Timeline.MAX_ARROWS, a.get("arrows").size());
            assertTrue(a.get("arrowCount").asInt() > Timeline.MAX_ARROWS, "chosen from many more");
            assertTrue(a.get("path").size() <= 2 * width + 1);
            // a span is at most "[12345678901,12345678901,6,123456,800,1000049,1]," (50 bytes), an arrow
            // "[7,299,12345678901,299,12345678901]," (37), a path segment "[299,12345678901,12345678901,7]," (32)
            long bound = spans * 50 + Timeline.MAX_ARROWS * 37L + (2 * width + 1) * 32L + 300 * 200 + 4096;
            assertTrue(b.length <= bound, () -> b.length + " bytes > " + bound);
            if (width == 200) {
                assertTrue(a.get("mergedSpans").asLong() > 4 * spans, () -> a.get("mergedSpans")
                        + " states merged into some of " + spans + " spans");
                assertTrue(b.length < 3_000_000, () -> b.length + " bytes");
            }
        }
    }
}
