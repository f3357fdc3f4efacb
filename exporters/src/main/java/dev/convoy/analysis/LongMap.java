package dev.convoy.analysis;

/**
 * A map from long to V without boxing the keys (open addressing, linear probing with a
 * mixed hash, deletion by backward shift). Null values are not stored.
 */
public final class LongMap<V> {
    private long[] keys = new long[64];
    private Object[] values = new Object[64];
    private int size;

    private int slot(long k) {
        long h = k * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & (keys.length - 1);
    }

    /** The value of k, null if none. */
    @SuppressWarnings("unchecked")
    public V get(long k) {
        int mask = keys.length - 1;
        for (int i = slot(k); values[i] != null; i = (i + 1) & mask) {
            if (keys[i] == k) {
                return (V) values[i];
            }
        }
        return null;
    }

    /** Maps k to v (not null); returns the previous value, null if there was none. */
    @SuppressWarnings("unchecked")
    public V put(long k, V v) {
        if (2 * (size + 1) > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        int i = slot(k);
        while (values[i] != null) {
            if (keys[i] == k) {
                V old = (V) values[i];
                values[i] = v;
                return old;
            }
            i = (i + 1) & mask;
        }
        keys[i] = k;
        values[i] = v;
        size++;
        return null;
    }

    /** Removes the key; returns its value, null if absent. */
    @SuppressWarnings("unchecked")
    public V remove(long k) {
        int mask = keys.length - 1;
        int i = slot(k);
        while (values[i] != null && keys[i] != k) {
            i = (i + 1) & mask;
        }
        if (values[i] == null) {
            return null;
        }
        V old = (V) values[i];
        size--;
        // backward shift: move later entries of the probe run into the hole
        int hole = i;
        for (int j = (i + 1) & mask; values[j] != null; j = (j + 1) & mask) {
            int home = slot(keys[j]);
            boolean movable = hole <= j ? home <= hole || home > j : home <= hole && home > j;
            if (movable) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
        }
        values[hole] = null;
        return old;
    }

    @SuppressWarnings("unchecked")
    private void grow() {
        long[] k = keys;
        Object[] v = values;
        keys = new long[2 * k.length];
        values = new Object[2 * k.length];
        size = 0;
        for (int i = 0; i < k.length; i++) {
            if (v[i] != null) {
                put(k[i], (V) v[i]);
            }
        }
    }
}
