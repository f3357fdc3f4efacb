package dev.convoy.analysis;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.model.Recording;
import dev.convoy.report.ContentionReport;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.RecordingBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Hold times where the record proves both ends ({@link HoldTimes}), on hand-built recordings
 * whose every acquisition's fate is known. Times in us after T0.
 */
class HoldTimesTest {
    static final long A = 1, B = 2, C = 3; // Java ids of a, b, c

    /**
     * M1: a gets it at 200 (blocked since 100), b blocks at 250 (exact owner a) and gets it at 500
     * from a (exact releaser): a held it 300 us. b waits on it at 650: b held it 150 us. c gets it at
     * 1000 with an inferred releaser (not counted for b, who had no hold open: its wait ended it),
     * a at 1300 from c, inferred: c's hold is not counted. b gets it at 1600 from a, exact, but
     * a's records from 1400 to 1500 are lost (when {@code loss}): a's hold is not counted then.
     * b holds it to the end: no proven end.
     */
    static Recording monitor(boolean loss) throws Exception {
        RecordingBuilder b = base();
        RecordingBuilder.ThreadBuilder a = b.thread(R_MAIN, A, O_MAIN, "a").span(T0, 0)
                .event(t(100), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, B)
                .event(t(200), EVENT_MONITOR_ENTERED, 0, 0, M1, 0, 0)
                .event(t(1100), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, C)
                .event(t(1300), EVENT_MONITOR_ENTERED, 0, 0, M1, 0, 0);
        if (loss) {
            a.loss(LOSS_OVERWRITTEN, t(1400), t(1500), 3);
        }
        b.thread(R_W1, B, O_W1, "b").span(T0, 0)
                .event(t(250), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, A)
                .event(t(500), EVENT_MONITOR_ENTERED, FLAG_RELEASER, 0, M1, A, 0)
                .event(t(650), EVENT_MONITOR_WAIT, S_WAIT, M1, 0)
                .event(t(900), EVENT_MONITOR_WAITED, 0, 0, M1, 0, 0)
                .event(t(1350), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, A)
                .event(t(1600), EVENT_MONITOR_ENTERED, FLAG_RELEASER, 0, M1, A, 0);
        b.thread(R_WAITER, C, O_WAITER, "c").span(T0, 0)
                .event(t(950), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, B)
                .event(t(1000), EVENT_MONITOR_ENTERED, 0, 0, M1, 0, 0);
        return SnapshotReader.read(b.toBytes());
    }

    private static HoldTimes.Row only(Recording r) {
        List<HoldTimes.Row> rows = HoldTimes.of(ContentionIndex.of(r)).rows();
        assertEquals(1, rows.size(), rows.toString());
        return rows.get(0);
    }

    @Test
    void provenHoldsEndAtAnExactReleaseOrAWait() throws Exception {
        HoldTimes.Row w = only(monitor(true));
        assertEquals(M1, w.monitor());
        assertFalse(w.lock());
        assertEquals(5, w.acquisitions());
        assertArrayEquals(new long[] {150_000, 300_000}, w.holdsNs(), "b's hold to its wait, a's to b's acquisition");
        assertEquals(450_000, w.totalNs());
        assertEquals(150_000, w.medianNs());
        assertEquals(300_000, w.maxNs());
        assertEquals(1, w.inferred(), "c's hold, ended by an acquisition whose releaser is inferred");
        assertEquals(1, w.acrossLoss(), "a's second hold spans its lost records");
        assertEquals(1, w.noEnd(), "b's last hold");
    }

    @Test
    void theSameHoldWithoutTheLossIsCounted() throws Exception {
        HoldTimes.Row w = only(monitor(false));
        assertArrayEquals(new long[] {150_000, 300_000, 300_000}, w.holdsNs());
        assertEquals(0, w.acrossLoss());
    }

    @Test
    void anEnterThatShowsAnotherOwnerEndsTheProof() throws Exception {
        RecordingBuilder b = base();
        b.thread(R_MAIN, A, O_MAIN, "a").span(T0, 0)
                .event(t(100), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(200), EVENT_MONITOR_ENTERED, 0, 0, M1, 0, 0);
        b.thread(R_W1, B, O_W1, "b").span(T0, 0)
                .event(t(300), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, C) // c holds it, not a
                .event(t(500), EVENT_MONITOR_ENTERED, FLAG_RELEASER, 0, M1, A, 0);
        b.thread(R_WAITER, C, O_WAITER, "c").span(T0, 0);
        HoldTimes.Row w = only(SnapshotReader.read(b.toBytes()));
        assertEquals(0, w.count());
        assertEquals(2, w.noEnd(), "a's hold (contradicted) and b's (never released)");
    }

    /**
     * RL1 handed over twice: acquirer parks at 100 naming holder the owner, holder unparks it at 180,
     * it runs at 200; consumer parks at 300 naming {@code consumerNames} the owner, acquirer unparks
     * it at 450, it runs at 460.
     */
    private static Recording lockHandOver(long consumerNames) throws Exception {
        RecordingBuilder b = parkBase(base());
        b.thread(R_HOLDER, TID_HOLDER, O_HOLDER, "holder").span(t(10), 0)
                .event(t(180), EVENT_UNPARK, 0, 0, O_ACQ, 0, TID_ACQ);
        b.thread(R_ACQ, TID_ACQ, O_ACQ, "acquirer").span(t(11), 0)
                .event(t(100), EVENT_PARK, FLAG_LOCK, S_PARK, RL1, 0, TID_HOLDER)
                .event(t(200), EVENT_PARKED, 0, 0, RL1, 0, 0)
                .event(t(450), EVENT_UNPARK, 0, 0, O_CONS, 0, TID_CONS);
        b.thread(R_CONS, TID_CONS, O_CONS, "consumer").span(t(12), 0)
                .event(t(300), EVENT_PARK, FLAG_LOCK, S_PARK, RL1, 0, consumerNames)
                .event(t(460), EVENT_PARKED, 0, 0, RL1, 0, 0);
        return SnapshotReader.read(b.toBytes());
    }

    /**
     * RL1: acquirer parks at 100 (owner holder), holder unparks it at 180, it runs at 200; consumer
     * parks at 300 naming acquirer the owner; acquirer unparks it at 450, it runs at 460: acquirer
     * held the lock 250 us. Consumer holds it to the end.
     */
    @Test
    void aLockHoldIsProvenByAParkNamingTheHolderAndItsUnpark() throws Exception {
        Recording r = lockHandOver(TID_ACQ);
        HoldTimes.Row w = only(r);
        assertTrue(w.lock());
        assertEquals(RL1, w.monitor());
        assertEquals(2, w.acquisitions());
        assertArrayEquals(new long[] {250_000}, w.holdsNs());
        assertEquals(1, w.noEnd());

        String text = ContentionReport.of(r).text();
        assertTrue(text.contains("Hold times after contended acquisitions:"), text);
        assertTrue(text.contains("1 of 2 proven; not counted: 0 releaser inferred, 0 across lost records of the "
                + "holder, 1 no proven release."), text);
        assertTrue(text.matches("(?s).*java\\.util\\.concurrent\\.locks\\.ReentrantLock@cccc0001 +2 +1 +250\\.0 us"
                + " +250\\.0 us +250\\.0 us\n.*"), text);
    }

    @Test
    void aLockHoldWithoutAParkNamingTheHolderIsNotProven() throws Exception {
        HoldTimes.Row w = only(lockHandOver(TID_HOLDER)); // the consumer names the holder, not the acquirer
        assertEquals(0, w.count());
        assertEquals(2, w.noEnd());
    }

    @Test
    void theReportSaysWhyHoldsWereNotCounted() throws Exception {
        String text = ContentionReport.of(monitor(true)).text();
        assertTrue(text.contains("2 of 5 proven; not counted: 1 releaser inferred, 1 across lost records of the "
                + "holder, 1 no proven release."), text);
        assertTrue(text.matches("(?s).*java\\.lang\\.Object@aaaa0001 +5 +2 +450\\.0 us +150\\.0 us +300\\.0 us\n.*"),
                text);
    }
}
