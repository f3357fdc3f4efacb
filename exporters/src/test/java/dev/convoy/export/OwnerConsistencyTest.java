package dev.convoy.export;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.OwnerConsistency;
import dev.convoy.testing.OwnerConsistency.Reason;
import dev.convoy.testing.RecordingBuilder;
import dev.convoy.testing.SyntheticRecordings;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link OwnerConsistency}: it finds every kind of impossible owner (shown with exact owners,
 * which the analysis takes as recorded), and the analysis infers none, on the fixtures and on
 * random recordings with lost, reordered and contradictory records.
 */
class OwnerConsistencyTest {

    static Recording read(RecordingBuilder b) throws Exception {
        return SnapshotReader.read(b.toBytes());
    }

    @Test
    void findsEveryKindOfImpossibleOwner() throws Exception {
        RecordingBuilder b = Fixtures.base();
        b.thread(1, 11, O_MAIN, "ended").span(t(0), t(5)).flags(RING_ENDED)
                .event(t(5), EVENT_THREAD_END, 0, O_MAIN, 11);
        b.thread(2, 12, O_W1, "late-start").span(t(100), 0).event(t(100), EVENT_THREAD_START, 0, O_W1, 12);
        b.thread(3, 13, O_WAITER, "waiting").span(t(0), 0)
                .event(t(5), EVENT_MONITOR_WAIT, S_WAIT, M1, 0)
                .event(t(50), EVENT_MONITOR_WAITED, 0, 0, M1, 0, 0)
                .event(t(60), EVENT_MONITOR_ENTER, S_RUN, M1, 0); // blocked to the snapshot
        b.thread(4, 14, O_H1, "t").span(t(0), 0)
                .event(t(10), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, 11)
                .event(t(11), EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(20), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, 12)
                .event(t(21), EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(30), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, 13)
                .event(t(31), EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(70), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, 13);
        OwnerConsistency.Result c = OwnerConsistency.check(read(b));
        assertEquals(List.of(Reason.ENDED, Reason.NOT_STARTED, Reason.WAITING_ON_MONITOR, Reason.BLOCKED_ON_MONITOR),
                c.impossible().stream().map(OwnerConsistency.Impossible::reason).toList(), c::toString);
        assertEquals(c.impossible(), c.exact(), "all four are exact owners, taken as recorded");
        assertEquals(List.of(), c.inferred(), "no releaser drawn from them: " + c);
        assertEquals(4, c.exactOwners());
        assertEquals(Long.MAX_VALUE, c.impossible().get(3).overlapNs(), "blocked to the snapshot");
        assertEquals(t(50) - t(30), c.impossible().get(2).overlapNs());
        assertTrue(c.toString().contains("owner at the MONITOR_ENTER of t (ring 4, record 4) on monitor " + M1
                + " at " + t(30) + " ns: waiting (ring 3, exact, RECORDED) was waiting on that monitor since "
                + t(5) + " ns (for 20000 ns more)"), c::toString);
    }

    @Test
    void fixturesHaveNoImpossibleOwner() throws Exception {
        for (RecordingBuilder b : List.of(Fixtures.all(), Fixtures.contention(Fixtures.base()),
                Fixtures.contention(Fixtures.deadlock(Fixtures.base())), Fixtures.parks(Fixtures.base()),
                Fixtures.mixedDeadlock(Fixtures.base()))) {
            OwnerConsistency.Result c = OwnerConsistency.check(read(b));
            assertEquals(List.of(), c.impossible(), c::toString);
        }
    }

    @Test
    void syntheticLoadHasNoImpossibleInferredOwner() throws Exception {
        OwnerConsistency.Result c = OwnerConsistency.check(read(SyntheticRecordings.synthetic(40_000, 8, 3, 5)));
        assertEquals(List.of(), c.inferred(), c::toString);
        assertTrue(c.inferredOwners() > 100 && c.handoffs() > 100, c::toString);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
            26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40})
    void randomRecordingsHaveNoImpossibleInferredOwner(long seed) throws Exception {
        for (boolean reorder : new boolean[] {false, true}) {
            OwnerConsistency.Result c = OwnerConsistency.check(read(ChromeStreamingTest.random(seed, reorder)));
            assertEquals(List.of(), c.inferred(), () -> "seed " + seed + (reorder ? " reordered: " : ": ") + c);
        }
    }

    /** The random recordings' FLAG_RELEASERs give exact releasers, which the test above checks too. */
    @Test
    void randomRecordingsHaveExactReleasers() throws Exception {
        int handoffs = 0;
        int exact = 0;
        for (long seed = 1; seed <= 40; seed++) {
            for (boolean reorder : new boolean[] {false, true}) {
                OwnerConsistency.Result c = OwnerConsistency.check(read(ChromeStreamingTest.random(seed, reorder)));
                handoffs += c.handoffs();
                exact += c.exactReleasers();
            }
        }
        assertTrue(exact > 200 && exact < handoffs, exact + " exact releasers of " + handoffs + " handoffs");
    }
}
