package dev.convoy.analysis;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.export.Output;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.RecordingBuilder;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The streaming writers' facts (CSV, TPTP) are the analysis' own: every begin {@link RecordFacts}
 * gives is the begin of the interval the index ends at that record, and its join waits are the
 * index's; no pair crosses a loss of the ring's records.
 */
class RecordFactsTest {

    static Recording read(RecordingBuilder b) throws Exception {
        return SnapshotReader.read(b.toBytes());
    }

    /** Per record, the begin RecordFacts gives and whether it is a join's wait. */
    static Map<Event, Event> begins(Recording r, Set<Event> inner) {
        Map<Event, Event> out = new HashMap<>();
        RecordFacts f = new RecordFacts(r);
        for (Event e : r.events()) {
            f.next(e);
            if (f.begin() != null) {
                out.put(e, f.begin());
            }
            if (f.innerJoinWait()) {
                inner.add(e);
            }
        }
        return out;
    }

    /** The built fixtures and the snapshots of real test-app runs (the fuzz tests' seeds). */
    static List<Recording> recordings() throws Exception {
        List<Recording> out = new ArrayList<>();
        out.add(read(Fixtures.losses(Fixtures.all())));
        out.add(read(Fixtures.contention(Fixtures.base())));
        out.add(read(Fixtures.parks(Fixtures.parkBase(Fixtures.base()))));
        out.add(read(acrossLosses()));
        try (Stream<Path> s = Files.walk(Path.of("src/test/resources/dev/convoy/fuzz/SnapshotFuzzTestInputs"))) {
            for (Path p : s.filter(f -> f.toString().endsWith(".cvysnap")).sorted().toList()) {
                out.add(SnapshotReader.read(Files.readAllBytes(p)));
            }
        }
        assertTrue(out.size() >= 8, "the fixtures are found");
        return out;
    }

    @Test
    void theBeginsAreTheIndexIntervalsBeginsInEveryFixture() throws Exception {
        int pairs = 0;
        int joins = 0;
        for (Recording r : recordings()) {
            pairs += sameAsTheIndex(r);
            Set<Event> joinWaits = new HashSet<>();
            for (RecordedThread t : r.threads()) {
                joinWaits.addAll(Intervals.joinWaits(t));
            }
            joins += joinWaits.size();
        }
        assertTrue(pairs > 20 && joins > 0, "the fixtures have waits, sleeps, parks and joins: " + pairs + ", " + joins);
    }

    /** Checks one recording; returns how many pairs it has. */
    static int sameAsTheIndex(Recording r) {
        Set<Event> inner = new HashSet<>();
        Map<Event, Event> got = begins(r, inner);
        ContentionIndex x = ContentionIndex.of(r);
        Map<Event, Event> expected = new HashMap<>();
        for (int k = 0; k < x.rings(); k++) {
            RecordedThread t = x.thread(k);
            IntervalCursor c = x.intervals(k);
            for (int iv = 0; iv < c.count(); iv++) {
                c.select(iv);
                if (c.endRecord() >= 0) {
                    Event end = t.event(c.endRecord());
                    if (end.type() == EventType.MONITOR_WAITED || end.type() == EventType.SLEPT
                            || end.type() == EventType.PARKED) {
                        expected.put(end, t.event(c.beginRecord()));
                    }
                }
            }
        }
        Set<Event> joinWaits = new HashSet<>();
        for (RecordedThread t : r.threads()) {
            Event wait = null;
            for (int i : IntervalTable.joinWaits(t)) { // a join's inner waits: each WAITED ends the WAIT before it
                Event e = t.event(i);
                if (e.type() == EventType.MONITOR_WAITED && wait != null && wait.obj() == e.obj()) {
                    expected.put(e, wait);
                }
                wait = e.type() == EventType.MONITOR_WAIT ? e : null;
                joinWaits.add(e);
            }
        }
        assertEquals(expected, got);
        assertEquals(joinWaits, inner);
        return expected.size();
    }

    /** A ring that parks for a lock, waits and sleeps, with its records lost across the park and the sleep. */
    static RecordingBuilder acrossLosses() {
        RecordingBuilder b = Fixtures.base();
        b.object(O_LP, 0x4000_0003, OBJ_THREAD, C_THREAD).object(LQ, 0xDDDD0001, OBJ_PLAIN, C_OBJECT)
                .object(LH, 0xDDDD0003, OBJ_PLAIN, C_LOCK);
        b.thread(R_LP, TID_LP, O_LP, "parker").span(t(25), 0)
                .event(t(25), EVENT_THREAD_START, 0, O_LP, TID_LP)
                .event(t(30), EVENT_PARK, FLAG_LOCK, S_RUN, LH, 0, -1)
                .loss(LOSS_OVERWRITTEN, t(35), t(40), 50)
                .event(t(45), EVENT_PARKED, 0, 0, LH, 0, 0)
                .event(t(50), EVENT_MONITOR_WAIT, S_WAIT, LQ, 0)
                .event(t(60), EVENT_MONITOR_WAITED, 0, 0, LQ, 0, 0)
                .event(t(70), EVENT_SLEEP, S_RUN, 0, 5)
                .loss(LOSS_OVERWRITTEN, t(72), t(74), 10)
                .event(t(80), EVENT_SLEPT, 0, 0, 0)
                .event(t(85), EVENT_PARK, FLAG_LOCK, S_RUN, LH, 0, -1)
                .event(t(88), EVENT_PARKED, 0, 0, LH, 0, 0);
        return b;
    }

    @Test
    void noPairCrossesALossOfTheRingsRecords() throws Exception {
        Recording r = read(acrossLosses());
        Map<Event, Event> got = begins(r, new HashSet<>());
        List<String> pairs = new ArrayList<>();
        for (Map.Entry<Event, Event> p : got.entrySet()) {
            if (p.getKey().thread().javaThreadId() == TID_LP) {
                pairs.add(p.getValue().type() + "@" + (p.getValue().ts() - T0) / 1000 + " " + p.getKey().type() + "@"
                        + (p.getKey().ts() - T0) / 1000);
            }
        }
        pairs.sort(null);
        assertEquals(List.of("MONITOR_WAIT@50 MONITOR_WAITED@60", "PARK@85 PARKED@88"), pairs,
                "the park at 30 and the sleep at 70 are cut by their losses; their ends pair with nothing");

        assertEquals(1, contendedEntered(r) - contendedEntered(read(Fixtures.base())),
                "the CSV says the lock was got only for the park whose PARK it has");
    }

    static long contendedEntered(Recording r) throws Exception {
        ByteArrayOutputStream csv = new ByteArrayOutputStream();
        Output.CSV_EVENTS.write(r, csv);
        return csv.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("MonitorContendedEntered")).count();
    }
}
