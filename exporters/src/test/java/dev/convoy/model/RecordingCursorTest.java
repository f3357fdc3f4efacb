package dev.convoy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.testing.RecordingBuilder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * {@link Recording#cursor()} and {@link Recording#events()} give the records by time, then ring
 * position, then record order, whatever the rings' shapes and timestamps.
 */
class RecordingCursorTest {
    /** (ring position, record index) of every record, in the documented order, by a plain stable sort. */
    static List<long[]> expected(Recording r) {
        List<long[]> all = new ArrayList<>();
        for (int k = 0; k < r.threads().size(); k++) {
            RecordedThread t = r.threads().get(k);
            for (int i = 0; i < t.eventCount(); i++) {
                all.add(new long[] {t.ts(i), k, i});
            }
        }
        all.sort(Comparator.<long[]>comparingLong(a -> a[0]).thenComparingLong(a -> a[1])); // stable: record order kept
        return all;
    }

    static void check(Recording r, String what) {
        List<long[]> want = expected(r);
        Recording.Cursor c = r.cursor();
        for (int n = 0; n < want.size(); n++) {
            assertEquals(want.size() - n, c.remaining(), what);
            assertEquals(true, c.next(), what + ": record " + n);
            long[] w = want.get(n);
            assertEquals(w[1], c.ring(), what + ": ring of record " + n);
            assertEquals(w[2], c.record(), what + ": index of record " + n);
            assertEquals(w[0], c.ts(), what + ": ts of record " + n);
            assertEquals(c.thread().ts(c.record()), c.ts(), what);
        }
        assertFalse(c.next(), what + ": nothing after the last record");
        assertFalse(c.next(), what);
        int n = 0;
        for (Event e : r.events()) {
            long[] w = want.get(n++);
            assertEquals(r.threads().get((int) w[1]), e.thread(), what);
            assertEquals(w[2], e.index(), what);
        }
        assertEquals(want.size(), n, what);
    }

    static Recording recording(int rings, int perRing, LongSupplier ts, boolean sortRings, SplittableRandom rnd) {
        RecordingBuilder b = new RecordingBuilder();
        for (int k = 0; k < rings; k++) {
            int n = perRing < 0 ? rnd.nextInt(0, -perRing) : perRing;
            long[] times = new long[n];
            for (int i = 0; i < n; i++) {
                times[i] = ts.getAsLong();
            }
            if (sortRings) {
                java.util.Arrays.sort(times);
            }
            RecordingBuilder.ThreadBuilder t = b.thread(100 + k, 1 + k, 0, "t" + k);
            for (int i = 0; i < n; i++) {
                t.event(times[i], SnapshotFormat.EVENT_MONITOR_ENTER, 0, 7, i); // arg: creation order
            }
        }
        return b.build();
    }

    @Test
    void randomShapes() {
        SplittableRandom rnd = new SplittableRandom(11);
        for (int round = 0; round < 60; round++) {
            int rings = rnd.nextInt(0, 40);
            int shape = round % 6;
            long[] clock = {rnd.nextLong(-1_000_000, 1_000_000)};
            LongSupplier ts = switch (shape) {
                case 0 -> () -> rnd.nextLong(0, 50); // many ties across and within rings
                case 1 -> () -> rnd.nextLong(0, 5_000_000_000L); // spread: windows widen
                case 2 -> () -> rnd.nextLong(); // anything, negative included
                case 3 -> () -> rnd.nextBoolean() ? Long.MIN_VALUE + rnd.nextInt(3) : Long.MAX_VALUE - rnd.nextInt(3);
                case 4 -> () -> clock[0] += rnd.nextInt(0, 2000); // a real-looking clock
                default -> () -> rnd.nextInt(3) == 0 ? rnd.nextLong(0, 1L << 40) : rnd.nextLong(0, 1000); // bursts and gaps
            };
            check(recording(rings, -300, ts, round % 4 != 3, rnd), "round " + round + " shape " + shape);
        }
    }

    @Test
    void moreRecordsAtOneTimeThanAWindowHolds() {
        SplittableRandom rnd = new SplittableRandom(5);
        check(recording(3, 20_000, () -> 42, true, rnd), "60,000 records at one time");
        check(recording(2, 25_000, () -> rnd.nextInt(2) == 0 ? 7 : 1_000_000_007L, true, rnd), "two crowded times");
    }

    @Test
    void manyRings() {
        SplittableRandom rnd = new SplittableRandom(9);
        check(recording(3000, -20, () -> rnd.nextLong(0, 1_000_000), true, rnd), "3000 rings");
    }

    @Test
    void emptyRecording() {
        check(new RecordingBuilder().build(), "no rings");
        RecordingBuilder b = new RecordingBuilder();
        b.thread(1, 1, 0, "a");
        b.thread(2, 2, 0, "b");
        check(b.build(), "empty rings");
    }
}
