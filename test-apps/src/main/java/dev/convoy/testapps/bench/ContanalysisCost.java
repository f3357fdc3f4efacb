package dev.convoy.testapps.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.convoy.testapps.ThreadChurn;

/**
 * The cost of contention analysis on whole workloads: the agent recording with
 * {@code contanalysis=off} against the same with {@code contanalysis=on}, side by side.
 *
 * <pre>
 * java -cp test-apps/target/classes dev.convoy.testapps.bench.ContanalysisCost \
 *     recorder-mbean/target/convoy-agent.jar [runs=9] [roundtrips=100000] [threads=500]
 * </pre>
 *
 * Workloads, each timed inside a fresh child JVM ({@code --child WORKLOAD N}) after a
 * warm-up of N/5:
 * <ul>
 *   <li>{@code notify}: the {@link PingPong} wait/notify ping-pong, N round trips; each is
 *       two {@code notify()} calls (instrumented with contanalysis: two NOTIFY records with
 *       a stack) and two waits (recorded either way). Result: ns per round trip.</li>
 *   <li>{@code churn}: {@link ThreadChurn} with N threads, one after another, each started,
 *       doing one 1 ms timed wait and ending (instrumented: the START_CALL of each
 *       {@code Thread.start}). Result: ns per thread.</li>
 * </ul>
 * Runs are interleaved (run 1 off, run 1 on, run 2 off, ...) so drift of the machine hits
 * both alike; every child has the flags {@link BenchmarkRunner#JVM_FLAGS}. Prints, per
 * workload, the median, min, max and spread of each configuration and the ratio and
 * difference of the medians, as a Markdown table.
 */
public final class ContanalysisCost {

    static final List<String> CONFIGS = List.of("contanalysis=off", "contanalysis=on");

    private ContanalysisCost() {
    }

    /** Times a workload in this JVM; returns ns per operation (round trip or thread). */
    static double child(String workload, int n) throws InterruptedException {
        switch (workload) {
            case "notify" -> {
                return PingPong.run(Math.max(1, n / 5), n) / (double) n;
            }
            case "churn" -> {
                if (!ThreadChurn.create(Math.max(1, n / 5)).run().ok()) {
                    throw new IllegalStateException("thread churn warm-up failed");
                }
                long t0 = System.nanoTime();
                if (!ThreadChurn.create(n).run().ok()) {
                    throw new IllegalStateException("thread churn failed");
                }
                return (System.nanoTime() - t0) / (double) n;
            }
            default -> throw new IllegalArgumentException("workload must be notify or churn: " + workload);
        }
    }

    private static double runChild(String java, String agent, String options, String workload, int n)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(BenchmarkRunner.JVM_FLAGS);
        cmd.add("-javaagent:" + agent + "=" + options);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), ContanalysisCost.class.getName(),
                "--child", workload, String.valueOf(n)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("child failed: " + String.join(" ", cmd) + "\n" + out);
        }
        String line = out.lines().filter(l -> l.startsWith("ns/op=")).findFirst()
                .orElseThrow(() -> new IllegalStateException("no result from child:\n" + out));
        return Double.parseDouble(line.substring("ns/op=".length()));
    }

    private static int arg(String[] args, int i, int dflt) {
        return args.length > i ? Integer.parseInt(args[i]) : dflt;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("--child")) {
            System.out.println("ns/op=" + child(args[1], Integer.parseInt(args[2])));
            return;
        }
        if (args.length < 1 || args.length > 4 || args[0].startsWith("-")) {
            System.err.println("usage: ContanalysisCost AGENT_JAR [runs=9] [roundtrips=100000] [threads=500]");
            System.exit(2);
        }
        String agent = args[0];
        int runs = arg(args, 1, 9);
        int roundtrips = arg(args, 2, 100_000);
        int threads = arg(args, 3, 500);
        String java = ProcessHandle.current().info().command().orElse("java");
        System.out.println("java " + Runtime.version() + ", " + runs + " interleaved runs per configuration, "
                + roundtrips + " round trips, " + threads + " threads");
        System.out.println();
        System.out.println("| workload | contanalysis | median | min | max | spread | on/off | on - off |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---:|");
        for (String workload : List.of("notify", "churn")) {
            int n = workload.equals("notify") ? roundtrips : threads;
            List<List<Double>> results = List.of(new ArrayList<>(), new ArrayList<>());
            for (int r = 0; r < runs; r++) {
                for (int c = 0; c < CONFIGS.size(); c++) {
                    results.get(c).add(runChild(java, agent, CONFIGS.get(c), workload, n));
                }
            }
            Stats off = Stats.of(results.get(0));
            Stats on = Stats.of(results.get(1));
            String unit = workload.equals("notify") ? "ns/round trip" : "µs/thread";
            double scale = workload.equals("notify") ? 1 : 1000;
            String name = workload.equals("notify") ? "wait/notify ping-pong (" + unit + ")"
                    : "thread churn (" + unit + ")";
            for (int c = 0; c < 2; c++) {
                Stats s = c == 0 ? off : on;
                System.out.println(String.format(Locale.ROOT, "| %s | %s | %.1f | %.1f | %.1f | %.0f %% | %s | %s |",
                        name, c == 0 ? "off" : "on", s.median() / scale, s.min() / scale, s.max() / scale,
                        s.spreadPercent(), c == 0 ? "" : String.format(Locale.ROOT, "%.2f", on.median() / off.median()),
                        c == 0 ? "" : String.format(Locale.ROOT, "%+.1f", (on.median() - off.median()) / scale)));
            }
        }
    }
}
