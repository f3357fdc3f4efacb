package dev.convoy.testapps.bench;

import java.util.List;

/**
 * One benchmark configuration: how the child JVM is started.
 *
 * @param label              name shown in the table
 * @param kind               which role the configuration plays in the comparison
 * @param agentOptions       the {@code -javaagent} options; {@code null} means no agent at all,
 *                           {@code ""} the agent with its defaults
 * @param targetNsPerEvent   the target cost per event above the JVMTI floor, or NaN if none
 */
public record BenchConfig(String label, Kind kind, String agentOptions, double targetNsPerEvent) {

    public enum Kind {
        /** No agent: the JVM alone. */
        NO_AGENT,
        /** JVMTI monitor events enabled with callbacks that do nothing. */
        FLOOR,
        /** The recorder itself. */
        RECORDER
    }

    public static final BenchConfig NO_AGENT =
            new BenchConfig("no agent", Kind.NO_AGENT, null, Double.NaN);
    public static final BenchConfig FLOOR =
            new BenchConfig("empty callbacks (JVMTI floor)", Kind.FLOOR, "bench.callbacks=empty", Double.NaN);
    public static final BenchConfig NO_STACKS =
            new BenchConfig("Convoy, no stacks", Kind.RECORDER, "stackdepth=0", 100);
    public static final BenchConfig DEFAULT =
            new BenchConfig("Convoy default (stack depth 64)", Kind.RECORDER, "", 1000);

    /**
     * Convoy default with the benchmark-only {@code bench.timing=on}: its round trip shows what the stamps
     * cost, its snapshot at exit where each callback's time goes ({@link CallbackTiming}). Run only
     * with {@code --timing}.
     */
    public static final BenchConfig TIMING =
            new BenchConfig("Convoy default, bench.timing=on", Kind.RECORDER, "bench.timing=on", Double.NaN);

    /** The configurations in the order they run within each round. */
    public static final List<BenchConfig> ALL = List.of(NO_AGENT, FLOOR, NO_STACKS, DEFAULT);

    /** Whether this configuration's run dumps a snapshot whose timing the runner reads. */
    public boolean timed() {
        return agentOptions != null && List.of(agentOptions.split(",")).contains("bench.timing=on");
    }

    /** The {@code -javaagent:} JVM argument, or {@code null} for no agent. */
    public String javaagentArg(String agentJar) {
        if (agentOptions == null) {
            return null;
        }
        return agentOptions.isEmpty() ? "-javaagent:" + agentJar : "-javaagent:" + agentJar + "=" + agentOptions;
    }

    /** The options as shown in the table. */
    public String optionsText() {
        if (agentOptions == null) {
            return "(no -javaagent)";
        }
        return agentOptions.isEmpty() ? "(defaults)" : "`" + agentOptions + "`";
    }
}
