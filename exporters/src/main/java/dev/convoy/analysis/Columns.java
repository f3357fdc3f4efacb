package dev.convoy.analysis;

import dev.convoy.model.RadixSort;

/**
 * The rows of a table kept as parallel primitive arrays (columns), nothing per row: the one
 * place of their growth (doubling when full) and trimming. A table lists its columns once, in
 * {@link #resize}; {@link #append} gives the index of a new row.
 */
abstract class Columns {
    private int rows;
    private int capacity;

    /** A table whose columns are made with {@code capacity} rows. */
    Columns(int capacity) {
        this.capacity = capacity;
    }

    /** Number of rows. */
    final int rows() {
        return rows;
    }

    /** Length of the columns. */
    final int capacity() {
        return capacity;
    }

    /** The index of a new row; the columns are doubled first when full. */
    final int append() {
        if (rows == capacity) {
            capacity = Math.max(1, 2 * rows);
            resize(capacity);
        }
        return rows++;
    }

    /** Cuts the columns to the rows. */
    final void trim() {
        capacity = rows;
        resize(rows);
    }

    /** After a table replaced its columns by ones of {@code capacity} rows holding {@code rows}. */
    final void replaced(int rows, int capacity) {
        this.rows = rows;
        this.capacity = capacity;
    }

    /** Copies every column into one of {@code capacity} rows ({@code Arrays.copyOf}). */
    abstract void resize(int capacity);

    /**
     * The ids ordered by {@code key[id]}, ties in their given order: a {@link RadixSort} of the
     * keys' offsets from the smallest, linear in the number of ids; the ids as given when
     * already in order.
     */
    static int[] sortStable(int[] ids, long[] key) {
        int n = ids.length;
        long[] ka = new long[n];
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        boolean sorted = true;
        for (int i = 0; i < n; i++) {
            long k = key[ids[i]];
            ka[i] = k;
            min = Math.min(min, k);
            max = Math.max(max, k);
            sorted &= i == 0 || ka[i - 1] <= k;
        }
        if (sorted) {
            return ids;
        }
        for (int i = 0; i < n; i++) {
            ka[i] -= min; // as unsigned: order kept even if the range overflows a signed long
        }
        int bits = 64 - Long.numberOfLeadingZeros(max - min);
        int[] a = ids.clone();
        int[] b = new int[n];
        return new RadixSort().sort(ka, a, new long[n], b, n, bits) ? b : a;
    }
}
