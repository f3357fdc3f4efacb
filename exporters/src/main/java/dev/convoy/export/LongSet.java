package dev.convoy.export;

/** A set of longs without boxing (open addressing, linear probing, mixed hash). */
final class LongSet {
    private long[] keys = new long[64];
    private boolean[] used = new boolean[64];
    private int size;

    /** Adds v; true when it was not in the set. */
    boolean add(long v) {
        if (2 * (size + 1) > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        for (int i = mix(v) & mask; ; i = (i + 1) & mask) {
            if (!used[i]) {
                used[i] = true;
                keys[i] = v;
                size++;
                return true;
            }
            if (keys[i] == v) {
                return false;
            }
        }
    }

    private static int mix(long v) {
        long h = v * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    private void grow() {
        long[] oldKeys = keys;
        boolean[] oldUsed = used;
        keys = new long[2 * oldKeys.length];
        used = new boolean[2 * oldKeys.length];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldUsed[i]) {
                add(oldKeys[i]);
            }
        }
    }
}
