package dev.convoy.testapps.bench.suite;

import dev.convoy.testapps.bench.Stats;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything measured for one workload: per configuration, each run's result fields (numbers as
 * strings, as the child printed them, plus the fidelity counts the runner added).
 */
public final class Measurements {

    /**
     * A workload as the report sees it. {@code eventsPerOp}: a fixed number of monitor events per
     * operation (per-event columns), 0 if none. {@code perPark}: the workload counts its own parks
     * per operation ({@value #PARKS_PER_OP}), and the report divides by them (per-park columns).
     */
    public record Spec(String id, String title, String metric, String unit, boolean higherIsBetter,
                       int eventsPerOp, boolean fidelity, boolean perPark) {
        public Spec(String id, String title, String metric, String unit, boolean higherIsBetter, int eventsPerOp,
                    boolean fidelity) {
            this(id, title, metric, unit, higherIsBetter, eventsPerOp, fidelity, false);
        }
    }

    /** The field in which a park workload gives the parks it counted per operation. */
    public static final String PARKS_PER_OP = "parks_per_op";
    /** What the runner adds to a park workload's run: the park events the tool's output holds. */
    public static final String CAPTURED_PARKS = "captured_parks";

    private final Spec spec;
    private final Map<SuiteConfig, List<Map<String, String>>> runs = new LinkedHashMap<>();

    public Measurements(Spec spec, List<SuiteConfig> configs) {
        this.spec = spec;
        for (SuiteConfig c : configs) {
            runs.put(c, new ArrayList<>());
        }
    }

    public Spec spec() {
        return spec;
    }

    public List<SuiteConfig> configs() {
        return List.copyOf(runs.keySet());
    }

    public void add(SuiteConfig c, Map<String, String> result) {
        runs.get(c).add(java.util.Collections.unmodifiableMap(new LinkedHashMap<>(result)));
    }

    public List<Map<String, String>> runs(SuiteConfig c) {
        return runs.getOrDefault(c, List.of());
    }

    public boolean has(SuiteConfig c) {
        return !runs(c).isEmpty();
    }

    /** The values of {@code key} over the runs of {@code c} that have it. */
    public List<Double> values(SuiteConfig c, String key) {
        List<Double> v = new ArrayList<>();
        for (Map<String, String> r : runs(c)) {
            if (r.containsKey(key)) {
                v.add(ResultLine.number(r, key));
            }
        }
        return v;
    }

    /** Median, min and max of the main metric; null if no run. */
    public Stats stats(SuiteConfig c) {
        List<Double> v = values(c, spec.metric());
        return v.isEmpty() ? null : Stats.of(v);
    }

    /**
     * Overhead of {@code value} relative to {@code reference}, in percent, positive when worse:
     * for a time per operation {@code (value - ref) / ref}, for a throughput {@code (ref - value) / ref}.
     */
    public double overheadPercent(double value, double reference) {
        double d = spec.higherIsBetter() ? reference - value : value - reference;
        return 100.0 * d / reference;
    }

    /** Median overhead of {@code c} against the median of {@code ref}; NaN if either is missing. */
    public double overheadPercent(SuiteConfig c, SuiteConfig ref) {
        Stats s = stats(c);
        Stats r = stats(ref);
        if (s == null || r == null) {
            return Double.NaN;
        }
        return overheadPercent(s.median(), r.median());
    }

    /** Median over the runs of {@code c} of the parks per operation, NaN if none has it. */
    public double parksPerOp(SuiteConfig c) {
        List<Double> v = values(c, PARKS_PER_OP);
        return v.isEmpty() ? Double.NaN : Stats.of(v).median();
    }

    /**
     * Cost per park above no agent: (median of {@code c} − median of no agent) / median parks per
     * operation of {@code c} (the parks that configuration's runs made, counted by the workload).
     * NaN without both medians or without a park count.
     */
    public double nsPerParkAboveNone(SuiteConfig c) {
        Stats s = stats(c);
        Stats none = stats(SuiteConfig.NONE);
        double parks = parksPerOp(c);
        if (s == null || none == null || !(parks > 0)) {
            return Double.NaN;
        }
        return (s.median() - none.median()) / parks;
    }

    /**
     * Convoy's records per park over the whole run (median over runs of {@code convoy_recorded /
     * parks_total}); NaN without those fields. Below 1 the agent did not record the parks.
     */
    public double convoyRecordsPerPark(SuiteConfig c) {
        List<Double> f = new ArrayList<>();
        for (Map<String, String> r : runs(c)) {
            if (r.containsKey("convoy_recorded") && r.containsKey("parks_total")) {
                double parks = ResultLine.number(r, "parks_total");
                if (parks > 0) {
                    f.add(ResultLine.number(r, "convoy_recorded") / parks);
                }
            }
        }
        return f.isEmpty() ? Double.NaN : Stats.of(f).median();
    }

    /**
     * Median over runs of {@code captured_parks / parks_total}: the share of the run's parks the
     * tool's output holds; NaN without those fields.
     */
    public double parksCaptured(SuiteConfig c) {
        List<Double> f = new ArrayList<>();
        for (Map<String, String> r : runs(c)) {
            if (r.containsKey(CAPTURED_PARKS) && r.containsKey("parks_total")) {
                double parks = ResultLine.number(r, "parks_total");
                if (parks > 0) {
                    f.add(ResultLine.number(r, CAPTURED_PARKS) / parks);
                }
            }
        }
        return f.isEmpty() ? Double.NaN : Stats.of(f).median();
    }

    /** Median over runs of captured / ground truth, NaN if there is no such figure. */
    public double fidelity(SuiteConfig c) {
        List<Double> f = new ArrayList<>();
        for (Map<String, String> r : runs(c)) {
            if (r.containsKey("captured") && r.containsKey("truth_enter")) {
                double truth = ResultLine.number(r, "truth_enter");
                if (truth > 0) {
                    f.add(ResultLine.number(r, "captured") / truth);
                }
            }
        }
        return f.isEmpty() ? Double.NaN : Stats.of(f).median();
    }
}
