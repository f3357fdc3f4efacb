package dev.convoy.testapps.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Turns the per-run results into the Markdown table and the section written to the docs. */
public final class Report {

    /** All runs of one configuration, in run order (ns per round trip). */
    public record ConfigResult(BenchConfig config, List<Double> nsPerRoundtrip) {
        public ConfigResult {
            nsPerRoundtrip = List.copyOf(nsPerRoundtrip);
        }

        public Stats stats() {
            return Stats.of(nsPerRoundtrip);
        }
    }

    /** How and where the benchmark ran; printed above the table. */
    public record Environment(String date, String jdk, String machine, int runs, int roundtrips, int warmup,
                              String pinning, String jvmFlags, String commandLine) {
    }

    private Report() {
    }

    /**
     * Cost per event of {@code config} above {@code reference}:
     * {@code (median_config - median_reference) / eventsPerRoundtrip}.
     */
    public static double perEventAbove(Stats config, Stats reference, int eventsPerRoundtrip) {
        return (config.median() - reference.median()) / eventsPerRoundtrip;
    }

    /** The Markdown table, one row per configuration in the given order. */
    public static String table(List<ConfigResult> results, int eventsPerRoundtrip) {
        Stats floor = find(results, BenchConfig.Kind.FLOOR);
        Stats noAgent = find(results, BenchConfig.Kind.NO_AGENT);
        StringBuilder sb = new StringBuilder();
        sb.append("| Configuration | Agent options | Median ns/round trip | Min | Max | Spread (max-min) "
                + "| ns/event above floor | ns/event above no agent | Target (per event above floor) |\n");
        sb.append("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (ConfigResult r : results) {
            Stats s = r.stats();
            BenchConfig c = r.config();
            String aboveFloor = c.kind() == BenchConfig.Kind.RECORDER && floor != null
                    ? f1(perEventAbove(s, floor, eventsPerRoundtrip)) : "—";
            String aboveNoAgent = c.kind() != BenchConfig.Kind.NO_AGENT && noAgent != null
                    ? f1(perEventAbove(s, noAgent, eventsPerRoundtrip)) : "—";
            String target = "—";
            if (!Double.isNaN(c.targetNsPerEvent())) {
                target = "≤ " + formatTarget(c.targetNsPerEvent());
                if (floor != null && c.kind() == BenchConfig.Kind.RECORDER) {
                    double cost = perEventAbove(s, floor, eventsPerRoundtrip);
                    target += cost <= c.targetNsPerEvent() ? ": **met**" : ": **not met**";
                }
            }
            sb.append("| ").append(c.label())
                    .append(" | ").append(c.optionsText())
                    .append(" | ").append(f0(s.median()))
                    .append(" | ").append(f0(s.min()))
                    .append(" | ").append(f0(s.max()))
                    .append(" | ").append(f0(s.spread())).append(" (").append(f1(s.spreadPercent())).append(" %)")
                    .append(" | ").append(aboveFloor)
                    .append(" | ").append(aboveNoAgent)
                    .append(" | ").append(target)
                    .append(" |\n");
        }
        return sb.toString();
    }

    /** One line per configuration with every run's ns per round trip, for the record. */
    public static String rawRuns(List<ConfigResult> results) {
        StringBuilder sb = new StringBuilder();
        for (ConfigResult r : results) {
            List<String> vs = new ArrayList<>();
            for (double v : r.nsPerRoundtrip()) {
                vs.add(f0(v));
            }
            sb.append("- ").append(r.config().label()).append(": ").append(String.join(", ", vs)).append('\n');
        }
        return sb.toString();
    }

    /** The section written between the markers: environment, table and raw runs. */
    public static String section(Environment env, List<ConfigResult> results, int eventsPerRoundtrip) {
        StringBuilder sb = new StringBuilder();
        sb.append("- Date: ").append(env.date()).append('\n');
        sb.append("- JDK: ").append(env.jdk()).append('\n');
        sb.append("- Machine: ").append(env.machine()).append('\n');
        sb.append("- Runs: ").append(env.runs()).append(" per configuration, interleaved (run 1 of every ")
                .append("configuration, then run 2, ...), each in a fresh JVM; ")
                .append(env.roundtrips()).append(" measured round trips after ")
                .append(env.warmup()).append(" warm-up round trips; ")
                .append(eventsPerRoundtrip).append(" monitor events per round trip\n");
        sb.append("- Pinning: ").append(env.pinning()).append('\n');
        sb.append("- JVM flags (all configurations): `").append(env.jvmFlags()).append("`\n");
        sb.append("- Command: `").append(env.commandLine()).append("`\n");
        sb.append('\n');
        sb.append(table(results, eventsPerRoundtrip));
        sb.append('\n');
        sb.append("<details><summary>Every run, ns per round trip, in run order</summary>\n\n");
        sb.append(rawRuns(results));
        sb.append("\n</details>\n");
        return sb.toString();
    }

    private static Stats find(List<ConfigResult> results, BenchConfig.Kind kind) {
        for (ConfigResult r : results) {
            if (r.config().kind() == kind) {
                return r.stats();
            }
        }
        return null;
    }

    private static String formatTarget(double ns) {
        return ns >= 1000 && ns % 1000 == 0 ? String.format(Locale.ROOT, "%.0f µs", ns / 1000)
                : String.format(Locale.ROOT, "%.0f ns", ns);
    }

    static String f0(double v) {
        return String.format(Locale.ROOT, "%.0f", v);
    }

    static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
