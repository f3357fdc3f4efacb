package dev.convoy.testapps.bench;

import java.util.Arrays;
import java.util.List;

/** Median, minimum and maximum of a configuration's per-run results. */
public record Stats(int n, double median, double min, double max) {

    /** Throws {@link IllegalArgumentException} for an empty list or a non-finite value. */
    public static Stats of(List<Double> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        double[] v = new double[values.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = values.get(i);
            if (!Double.isFinite(v[i])) {
                throw new IllegalArgumentException("not a finite value: " + v[i]);
            }
        }
        Arrays.sort(v);
        int mid = v.length / 2;
        double median = v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2.0;
        return new Stats(v.length, median, v[0], v[v.length - 1]);
    }

    /** {@code max - min}. */
    public double spread() {
        return max - min;
    }

    /** {@code (max - min) / median}, in percent. */
    public double spreadPercent() {
        return median == 0 ? 0 : 100.0 * spread() / median;
    }
}
