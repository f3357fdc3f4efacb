package dev.convoy.model;

import java.util.Arrays;

/**
 * A stable LSD radix sort of 64-bit keys read as unsigned numbers, 11 bits a pass, as many
 * passes as the keys' significant bits need; optionally an int value moves with each key.
 * Linear in the number of keys. Used by the merge of {@link Recording#cursor()} and by the
 * analysis to put interactions in time order.
 */
public final class RadixSort {
    private static final int BITS = 11;
    private static final int MASK = (1 << BITS) - 1;

    private final int[] count = new int[MASK + 2];

    /**
     * Sorts {@code keys[0, n)}, which are below {@code 2^bits}, moving {@code values[i]} (when
     * {@code values} is not null) with {@code keys[i]}. The passes alternate between the
     * arrays and the scratch arrays (same lengths, at least n); returns true when the sorted
     * keys (and values) ended in the scratch arrays.
     */
    public boolean sort(long[] keys, int[] values, long[] keyScratch, int[] valueScratch, int n, int bits) {
        long[] a = keys;
        long[] b = keyScratch;
        int[] va = values;
        int[] vb = valueScratch;
        boolean inScratch = false;
        for (int shift = 0; shift < bits; shift += BITS) {
            Arrays.fill(count, 0);
            for (int i = 0; i < n; i++) {
                count[((int) (a[i] >>> shift) & MASK) + 1]++;
            }
            for (int d = 0; d <= MASK; d++) {
                count[d + 1] += count[d];
            }
            for (int i = 0; i < n; i++) {
                int at = count[(int) (a[i] >>> shift) & MASK]++;
                b[at] = a[i];
                if (va != null) {
                    vb[at] = va[i];
                }
            }
            long[] t = a;
            a = b;
            b = t;
            int[] vt = va;
            va = vb;
            vb = vt;
            inScratch = !inScratch;
        }
        return inScratch;
    }
}
