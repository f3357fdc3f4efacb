package dev.convoy.export;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.convoy.model.Recording;
import dev.convoy.schema.ChromeTraceChecker;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.RecordingBuilder;
import dev.convoy.testing.SyntheticRecordings;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The streaming {@link ChromeTraceWriter} against {@link ReferenceChromeTraceWriter} (the
 * writer before streaming, rendering the object views of the same analysis): the same
 * events, compared as a multiset after parsing (flow ids replaced by the pair of events they
 * join), on the hand-built fixtures and on random recordings with handoffs, notify/notifyAll,
 * joins, interrupts, starts, sleeps, lost records, late and ended threads, GC, and records
 * out of time order. This checks the streamed rendering and the views' materialization; the
 * analysis rules themselves are checked against expected results elsewhere
 * ({@code dev.convoy.analysis} tests, GroundTruthIT, ContentionAnalysisIT).
 */
class ChromeStreamingTest {

    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void fixtures() throws Exception {
        sameEvents(Fixtures.all());
        sameEvents(Fixtures.contention(Fixtures.base()));
        sameEvents(Fixtures.contention(Fixtures.deadlock(Fixtures.base())));
        sameEvents(Fixtures.parks(Fixtures.base()));
        sameEvents(Fixtures.parkDeadlock(Fixtures.base()));
        sameEvents(Fixtures.mixedDeadlock(Fixtures.base()));
        sameEvents(Fixtures.losses(Fixtures.base()));
    }

    /** The benchmark's workload on 3 monitors: thousands of notify calls per monitor. */
    @Test
    void notifyHeavySynthetic() throws Exception {
        sameEvents(SyntheticRecordings.synthetic(40_000, 8, 3, 5));
    }

    /**
     * Hundreds of notify and notifyAll calls nobody waits for (the index prunes such calls)
     * while one long wait, begun early, is open: its wake binds the first notify made after
     * it began, hundreds of calls back, not a later one.
     */
    @Test
    void longWaitBindsAnOldNotifyDespitePruning() throws Exception {
        RecordingBuilder b = Fixtures.base();
        long q = 6000;
        b.object(q, 0x4000_0000, OBJ_PLAIN, Fixtures.C_LOCK);
        b.thread(100, 1, 5000, "main").span(Fixtures.t(0), 0)
                .event(Fixtures.t(50), EVENT_MONITOR_WAIT, 0, Fixtures.S_WAIT, q, 0, 0)
                .event(Fixtures.t(5000), EVENT_MONITOR_WAITED, 0, 0, q, 0, 0);
        RecordingBuilder.ThreadBuilder n = b.thread(101, 51, 5001, "notifier").span(Fixtures.t(0), 0);
        for (int i = 0; i < 400; i++) {
            n.event(Fixtures.t(10 + 10L * i), i % 3 == 0 ? EVENT_NOTIFY_ALL : EVENT_NOTIFY, 0, Fixtures.S_RUN, q, 0, 0);
        }
        sameEvents(b);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new ChromeTraceWriter().write(SnapshotReader.read(b.toBytes()), out);
        JsonNode start = null;
        for (JsonNode ev : JSON.readTree(out.toByteArray()).get("traceEvents")) {
            if (ev.path("ph").asText().equals("s") && ev.path("cat").asText().equals("notify")) {
                assertNull(start, "one arrow");
                start = ev;
            }
        }
        assertNotNull(start);
        assertEquals("notify", start.path("name").asText(), "the call at 50 us is a notify");
        assertEquals(50, start.get("ts").asLong(), "the first call at or after the wait began");
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
            26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40})
    void randomRecordings(long seed) throws Exception {
        sameEvents(random(seed, false));
    }

    /**
     * Records out of time order within a ring (reordered data) still give a trace every
     * importer accepts, with the same events: an interval whose end is older than its begin
     * becomes a slice of duration 0.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void reorderedRecordsGiveAValidTrace(long seed) throws Exception {
        sameEvents(random(seed, true));
    }

    static void sameEvents(RecordingBuilder b) throws Exception {
        Recording r = SnapshotReader.read(b.toBytes());
        dev.convoy.testing.Arrows.check(r); // and the arrows of these recordings keep the rules
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        new ReferenceChromeTraceWriter().write(r, expected);
        ByteArrayOutputStream actual = new ByteArrayOutputStream();
        new ChromeTraceWriter().write(r, actual);
        ChromeTraceChecker.check(actual.toByteArray(), "streamed");
        JsonNode e = JSON.readTree(expected.toByteArray());
        JsonNode a = JSON.readTree(actual.toByteArray());
        assertEquals(canonical(e.get("metadata")), canonical(a.get("metadata")));
        assertEquals(events(e.get("traceEvents")), events(a.get("traceEvents")));
    }

    /** The events as sorted canonical strings; a flow's s and f become one entry without their id. */
    static List<String> events(JsonNode array) {
        List<String> out = new ArrayList<>();
        Map<Long, String[]> flows = new HashMap<>();
        for (JsonNode ev : array) {
            String ph = ev.path("ph").asText();
            if (ph.equals("s") || ph.equals("f")) {
                Map<String, Object> m = JSON.convertValue(ev, TreeMap.class);
                m.remove("id");
                flows.computeIfAbsent(ev.get("id").asLong(), k -> new String[2])[ph.equals("s") ? 0 : 1] =
                        canonical(JSON.valueToTree(m));
            } else {
                out.add(canonical(ev));
            }
        }
        for (String[] f : flows.values()) {
            out.add("flow " + f[0] + " -> " + f[1]);
        }
        out.sort(null);
        return out;
    }

    /** JSON with object keys sorted. */
    static String canonical(JsonNode n) {
        if (n.isObject()) {
            TreeMap<String, String> m = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                m.put(f.getKey(), canonical(f.getValue()));
            }
            return m.toString();
        }
        if (n.isArray()) {
            List<String> l = new ArrayList<>();
            n.forEach(x -> l.add(canonical(x)));
            return l.toString();
        }
        return n.isNumber() ? n.decimalValue().stripTrailingZeros().toPlainString() : n.toString();
    }

    /**
     * A random recording on the fixtures' classes and stacks; times on a 1 µs grid so that
     * rings tie; with {@code reorder}, about half the rings have two records out of time order.
     * About a third of the MONITOR_ENTERs have FLAG_OWNER, naming a random thread of the
     * recording, none (-1) or a thread it has no ring for (999): exact owners need not agree
     * with the other records. About a third of the MONITOR_ENTEREDs have FLAG_RELEASER, naming a
     * random thread of the recording (the entering thread included) or one it has no ring for
     * (998).
     */
    static RecordingBuilder random(long seed, boolean reorder) {
        SplittableRandom rnd = new SplittableRandom(seed);
        SplittableRandom owners = new SplittableRandom(~seed); // its own stream: the rest is as before FLAG_OWNER
        SplittableRandom releasers = new SplittableRandom(seed ^ 0x5DEE_CE66_DL); // and FLAG_RELEASER's
        SplittableRandom losses = new SplittableRandom(seed * 31 + 7); // and the losses'
        RecordingBuilder b = Fixtures.base();
        int threads = 3 + rnd.nextInt(6);
        int monitors = 1 + rnd.nextInt(4);
        for (int k = 0; k < threads; k++) {
            b.object(5000 + k, 0x3000_0000 + k, OBJ_THREAD, Fixtures.C_THREAD);
        }
        for (int m = 0; m < monitors; m++) {
            b.object(6000 + m, 0x4000_0000 + m, OBJ_PLAIN, Fixtures.C_LOCK);
        }
        int[] stacks = {0, Fixtures.S_WAIT, Fixtures.S_RUN, Fixtures.S_INIT, Fixtures.S_GONE};
        for (int k = 0; k < threads; k++) {
            long obj = 5000 + k;
            long jid = k == 0 ? 1 : 50 + k;
            boolean late = k > 0 && rnd.nextInt(6) == 0;
            boolean ended = rnd.nextInt(3) == 0;
            long t = Fixtures.T0 + 1000L * rnd.nextInt(100);
            long start = t;
            List<long[]> ev = new ArrayList<>();
            if (!late) {
                ev.add(new long[] {t, EVENT_THREAD_START, 0, 0, obj, 0, jid});
            }
            int ops = 5 + rnd.nextInt(30);
            for (int o = 0; o < ops; o++) {
                long mon = 6000 + rnd.nextInt(monitors);
                int other = rnd.nextInt(threads);
                long otherObj = 5000 + other;
                long otherJid = other == 0 ? 1 : 50 + other;
                int st = stacks[rnd.nextInt(stacks.length)];
                t += 1000L * (1 + rnd.nextInt(20));
                switch (rnd.nextInt(9)) {
                    case 0, 1 -> {
                        ev.add(new long[] {t, EVENT_MONITOR_ENTER, 0, st, mon, 0, 0});
                        t += 1000L * (1 + rnd.nextInt(30));
                        if (rnd.nextInt(12) != 0) {
                            ev.add(new long[] {t, EVENT_MONITOR_ENTERED, 0, 0, mon, 0, 0});
                        }
                    }
                    case 2 -> {
                        ev.add(new long[] {t, EVENT_MONITOR_WAIT, 0, st, mon, rnd.nextBoolean() ? 0 : 50, 0});
                        t += 1000L * (1 + rnd.nextInt(40));
                        ev.add(new long[] {t, EVENT_MONITOR_WAITED, rnd.nextInt(5) == 0 ? FLAG_TIMED_OUT : 0, 0, mon, 0,
                                0});
                        if (rnd.nextInt(8) == 0) {
                            t += 1000;
                            ev.add(new long[] {t, EVENT_THREAD_INTERRUPTED, 0, st, 0, 0, 0});
                        }
                    }
                    case 3 -> ev.add(new long[] {t, rnd.nextBoolean() ? EVENT_NOTIFY : EVENT_NOTIFY_ALL, 0, st, mon, 0,
                            0});
                    case 4 -> {
                        ev.add(new long[] {t, EVENT_SLEEP, 0, st, 0, 1 + rnd.nextInt(5), 0});
                        t += 1000L * (1 + rnd.nextInt(30));
                        ev.add(new long[] {t, rnd.nextInt(4) == 0 ? EVENT_THREAD_INTERRUPTED : EVENT_SLEPT, 0, 0, 0, 0, 0});
                    }
                    case 5 -> {
                        ev.add(new long[] {t, EVENT_JOIN, 0, st, otherObj, 0, otherJid});
                        t += 1000;
                        ev.add(new long[] {t, EVENT_MONITOR_WAIT, 0, Fixtures.S_WAIT, otherObj, 0, 0});
                        t += 1000L * (1 + rnd.nextInt(60));
                        ev.add(new long[] {t, EVENT_MONITOR_WAITED, 0, 0, otherObj, 0, 0});
                        t += 1000;
                        ev.add(new long[] {t, rnd.nextInt(5) == 0 ? EVENT_THREAD_INTERRUPTED : EVENT_JOINED, 0, 0,
                                otherObj, 0, otherJid});
                    }
                    case 6 -> ev.add(new long[] {t, EVENT_START_CALL, 0, st, otherObj, 0, otherJid});
                    case 7 -> ev.add(new long[] {t, EVENT_INTERRUPT_CALL, 0, st, otherObj, rnd.nextInt(2), otherJid});
                    default -> {
                        ev.add(new long[] {t, EVENT_MONITOR_ENTER, 0, st, mon, 0, 0});
                        ev.add(new long[] {t + 1000, EVENT_MONITOR_ENTERED, 0, 0, mon, 0, 0});
                        t += 1000;
                    }
                }
            }
            long end = ended ? t + 1000L * (1 + rnd.nextInt(5)) : 0;
            if (ended) {
                ev.add(new long[] {end, EVENT_THREAD_END, 0, 0, obj, 0, jid});
            }
            RecordingBuilder.ThreadBuilder tb = b.thread(100 + k, jid, obj, k == 0 ? "main" : "t" + k)
                    .span(start, end).flags((late ? RING_LATE : 0) | (ended ? RING_ENDED : 0));
            int drop = rnd.nextInt(4) == 0 ? rnd.nextInt(Math.max(1, ev.size() / 3)) : 0; // a wrapped ring
            if (reorder && ev.size() > 3 && rnd.nextBoolean()) {
                int i = 1 + rnd.nextInt(ev.size() - 2);
                long tmp = ev.get(i)[0];
                ev.get(i)[0] = ev.get(i + 1)[0];
                ev.get(i + 1)[0] = tmp;
            }
            // losses (SECTION_LOSSES): the wrapped ring's oldest records, and now and then a run in the middle
            List<long[]> kept = new ArrayList<>(ev.subList(drop, ev.size()));
            long lastTo = Long.MIN_VALUE;
            if (drop > 0 && !kept.isEmpty()) {
                long from = Math.min(late ? Fixtures.T0 : start, kept.get(0)[0]);
                tb.loss(LOSS_OVERWRITTEN, from, kept.get(0)[0], drop);
                lastTo = kept.get(0)[0];
            }
            if (kept.size() > 4 && losses.nextInt(3) == 0) {
                int i = 1 + losses.nextInt(kept.size() - 3);
                int run = 1 + losses.nextInt(Math.min(3, kept.size() - i - 1));
                long from = kept.get(i - 1)[0];
                long to = kept.get(i + run)[0];
                if (from >= lastTo && from <= to) {
                    kept.subList(i, i + run).clear();
                    tb.loss(losses.nextBoolean() ? LOSS_OVERWRITTEN : LOSS_AGED, from, to, run);
                }
            }
            for (long[] e : kept) {
                if (e[1] == EVENT_MONITOR_ENTER && owners.nextInt(3) == 0) {
                    int o = owners.nextInt(threads + 2);
                    e[2] = FLAG_OWNER;
                    e[6] = o == threads ? -1 : o == threads + 1 ? 999 : o == 0 ? 1 : 50 + o;
                }
                if (e[1] == EVENT_MONITOR_ENTERED && releasers.nextInt(3) == 0) {
                    int o = releasers.nextInt(threads + 1);
                    e[2] = FLAG_RELEASER;
                    e[5] = o == threads ? 998 : o == 0 ? 1 : 50 + o;
                }
                tb.event(e[0], (int) e[1], (int) e[2], (int) e[3], e[4], e[5], e[6]);
            }
            if (!ended && rnd.nextInt(4) == 0) {
                long mon = 6000 + rnd.nextInt(monitors);
                tb.event(t + 1000, EVENT_MONITOR_ENTER, 0, Fixtures.S_RUN, mon, 0, 0);
                b.monitor(100 + k, MSTATE_BLOCKED, mon, 0x4000_0000, rnd.nextBoolean() ? 1 : 50 + rnd.nextInt(threads));
            }
        }
        RecordingBuilder.ThreadBuilder gc = b.thread(99, -1, 0, "GC").flags(RING_SYSTEM).span(Fixtures.T0, 0);
        long t = Fixtures.T0;
        for (int i = 0; i < rnd.nextInt(4); i++) {
            t += 1000L * (1 + rnd.nextInt(200));
            gc.event(t, EVENT_GC_START, 0, 0, 0);
            t += 1000L * (1 + rnd.nextInt(20));
            gc.event(t, EVENT_GC_FINISH, 0, 0, 0);
        }
        return b;
    }
}
