package dev.convoy.analysis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link Columns#sortStable}: ids ordered by key, ties in their input order. */
class SortStableTest {
    static int[] reference(int[] ids, long[] key) {
        return Arrays.stream(ids).boxed().sorted(Comparator.comparingLong(i -> key[i])) // stable
                .mapToInt(Integer::intValue).toArray();
    }

    @Test
    void equalsAStableSortOnRandomRunsAndTies() {
        SplittableRandom rnd = new SplittableRandom(7);
        for (int round = 0; round < 500; round++) {
            int n = rnd.nextInt(0, 300);
            long[] key = new long[n];
            int shape = round % 6;
            long t = 0;
            for (int i = 0; i < n; i++) {
                key[i] = switch (shape) {
                    case 0 -> rnd.nextLong(0, 20); // many ties
                    case 1 -> t += rnd.nextInt(0, 3); // sorted, with ties
                    case 2 -> i % 50 == 0 ? (t = rnd.nextLong(0, 1000)) : (t += rnd.nextInt(0, 5)); // sorted runs
                    case 3 -> n - i; // descending
                    case 4 -> rnd.nextLong(); // the whole range: negative keys, a range overflowing a long
                    default -> (rnd.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE) - rnd.nextInt(0, 3) * (i % 2 == 0 ? 1 : -1)
                            * (rnd.nextBoolean() ? 0 : 1); // extremes
                };
            }
            int[] ids = new int[n];
            for (int i = 0; i < n; i++) {
                ids[i] = i;
            }
            if (round % 3 == 0) { // ids in a shuffled order: ties must keep that order, not id order
                for (int i = n - 1; i > 0; i--) {
                    int j = rnd.nextInt(i + 1);
                    int x = ids[i];
                    ids[i] = ids[j];
                    ids[j] = x;
                }
            }
            int[] before = ids.clone();
            assertArrayEquals(reference(ids, key), Columns.sortStable(ids, key), "round " + round);
            assertArrayEquals(before, ids, "the input is not changed");
        }
    }
}
