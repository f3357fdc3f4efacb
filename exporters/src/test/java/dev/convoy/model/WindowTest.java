package dev.convoy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.RecordingBuilder;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class WindowTest {

    private static final long S = 1_000_000_000L;
    /** Monotonic 100 s is 2026-11-28T14:00:00Z. */
    private static final long EPOCH_MINUS_MONO = 1_795_874_400L * S - 100 * S;
    private static final ZoneId UTC = ZoneOffset.UTC;

    /** Two threads from 100 s to 200 s: waits every 10 s, a loss from 130 to 150 s on "a". */
    private static Recording recording() throws Exception {
        RecordingBuilder b = new RecordingBuilder()
                .info("start.monotonic.ns", Long.toString(100 * S))
                .info("start.epoch.ns", Long.toString(100 * S + EPOCH_MINUS_MONO))
                .info("snapshot.monotonic.ns", Long.toString(200 * S))
                .info("records.written", "30").info("records.overwritten", "7").info("records.aged", "0");
        RecordingBuilder.ThreadBuilder a = b.thread(1, 10, 0, "a").span(100 * S, 0);
        RecordingBuilder.ThreadBuilder c = b.thread(2, 11, 0, "c").span(100 * S, 160 * S);
        for (long t = 100; t <= 190; t += 10) {
            if (t < 130 || t >= 150) {
                a.event(t * S, SnapshotFormat.EVENT_MONITOR_WAIT, 0, 5, 0);
                a.event(t * S + 1, SnapshotFormat.EVENT_MONITOR_WAITED, 0, 5, 0);
            }
            if (t < 160) {
                c.event(t * S + 2, SnapshotFormat.EVENT_SLEEP, 0, 0, 10);
            }
        }
        a.loss(SnapshotFormat.LOSS_OVERWRITTEN, 120 * S + 1, 150 * S, 7);
        // through the reader: the window works on recordings as files give them
        return SnapshotReader.read(b.toBytes());
    }

    @Test
    void aWindowHoldsExactlyTheRecordsOfItsTimesAndTheLossesThatTouchIt() throws Exception {
        Recording r = recording();
        Window w = new Window(125 * S, 170 * S);
        Recording cut = w.cut(r);
        for (RecordedThread t : r.threads()) {
            List<Long> expected = t.events().stream().map(Event::ts).filter(ts -> ts >= w.fromNs() && ts <= w.toNs())
                    .toList();
            RecordedThread in = cut.threads().stream().filter(x -> x.ringId() == t.ringId()).findFirst().orElseThrow();
            assertEquals(expected, in.events().stream().map(Event::ts).toList(), t.name());
        }
        RecordedThread a = cut.threads().get(0);
        assertEquals(1, a.losses().size());
        assertEquals(7, a.lostRecords());
        assertEquals(a.events().size() + 7, a.written());
        assertEquals(Long.toString(125 * S), cut.info().get("start.monotonic.ns"));
        assertEquals(Long.toString(170 * S), cut.info().get("snapshot.monotonic.ns"));
        assertEquals(Long.toString(125 * S + EPOCH_MINUS_MONO), cut.info().get("start.epoch.ns"));
        assertEquals("7", cut.info().get("records.overwritten"));
        assertEquals("30", cut.info().get("window.of.records.written"));
        assertTrue(cut.info().get("window").startsWith("from=" + 125 * S + " to=" + 170 * S), cut.info().get("window"));
        Recording late = new Window(165 * S, 200 * S).cut(r);
        assertEquals(List.of("a"), late.threads().stream().map(RecordedThread::name).toList(),
                "a thread that ended before the window is not in it");
        assertTrue(late.threads().get(0).losses().isEmpty(), "a loss before the window is not in it");
    }

    @Test
    void sinceFromAndToAreReadInTheRecordingsClock() {
        long start = 100 * S;
        long end = 200 * S;
        assertEquals(new Window(190 * S, end), Window.parse("10s", null, null, start, end, EPOCH_MINUS_MONO, UTC));
        assertEquals(new Window(start, end), Window.parse("1h", null, null, start, end, EPOCH_MINUS_MONO, UTC),
                "clipped to the recording");
        assertEquals(new Window(130 * S, 160 * S), Window.parse(null, "2026-11-28T14:00:30Z",
                "2026-11-28T15:01:00+01:00", start, end, EPOCH_MINUS_MONO, UTC));
        assertEquals(new Window(130 * S, end), Window.parse(null, "14:00:30", null, start, end, EPOCH_MINUS_MONO, UTC));
        assertEquals(new Window(130 * S, 150 * S), Window.parse(null, "2026-11-28T14:00:30", "-50s", start, end,
                EPOCH_MINUS_MONO, UTC));
        assertEquals(new Window(start, 101 * S + 500_000_000L), Window.parse(null, null, "14:00:01.5", start, end,
                EPOCH_MINUS_MONO, UTC));
    }

    @Test
    void badWindowsAreRefusedWithWhatIsAllowed() {
        long start = 100 * S;
        long end = 200 * S;
        String e = assertThrows(IllegalArgumentException.class,
                () -> Window.parse("ten", null, null, start, end, EPOCH_MINUS_MONO, UTC)).getMessage();
        assertTrue(e.contains("not a duration") && e.contains("10m"), e);
        e = assertThrows(IllegalArgumentException.class,
                () -> Window.parse("10s", "14:00", null, start, end, EPOCH_MINUS_MONO, UTC)).getMessage();
        assertTrue(e.contains("--since"), e);
        e = assertThrows(IllegalArgumentException.class,
                () -> Window.parse(null, "yesterday", null, start, end, EPOCH_MINUS_MONO, UTC)).getMessage();
        assertTrue(e.contains("--from 'yesterday' is not a time"), e);
        e = assertThrows(IllegalArgumentException.class,
                () -> Window.parse(null, "2026-11-28T14:00:50Z", "2026-11-28T14:00:40Z", start, end, EPOCH_MINUS_MONO,
                        UTC)).getMessage();
        assertTrue(e.contains("ends before it begins"), e);
        e = assertThrows(IllegalArgumentException.class,
                () -> Window.parse(null, "2026-11-28T15:00:00Z", null, start, end, EPOCH_MINUS_MONO, UTC)).getMessage();
        assertTrue(e.contains("the recording runs from 2026-11-28T14:00 to 2026-11-28T14:01:40"), e);
    }
}
