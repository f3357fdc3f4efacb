package dev.convoy.testapps.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The per-call cost of contention analysis probes: an instrumented {@code notify()} and the
 * {@code InterruptedException} path of an instrumented {@code Thread.sleep}, against the same
 * code uninstrumented, side by side in one run.
 *
 * <pre>
 * java -cp test-apps/target/classes dev.convoy.testapps.bench.ProbeCost \
 *     recorder-mbean/target/convoy-agent.jar [runs=5] [calls=1000000]
 * </pre>
 *
 * Each run starts, interleaved, one JVM per configuration: the agent recording
 * ({@code contanalysis=off}, the calls are not instrumented but monitor events are recorded)
 * and the same with {@code contanalysis=on}. A child ({@code ProbeCost --child OP CALLS})
 * warms up with CALLS/5 calls, then times CALLS calls and prints {@code ns/call}. Medians over
 * the runs are printed with their ratio.
 *
 * <ul>
 *   <li>{@code notify}: {@code synchronized (lock) { lock.notify(); }} with nobody waiting; the
 *       uncontended enter records nothing, so the difference is the probe: one NOTIFY record
 *       with its stack.</li>
 *   <li>{@code interrupted}: the thread interrupts itself and calls {@code Thread.sleep(1)},
 *       which throws at once; instrumented, it records SLEEP, THREAD_INTERRUPTED (both with a
 *       stack) and SLEPT.</li>
 * </ul>
 */
public final class ProbeCost {

    private static final Object LOCK = new Object();
    private static volatile long sink;

    private ProbeCost() {
    }

    static void notifyOnce() {
        synchronized (LOCK) {
            LOCK.notify();
        }
    }

    static void interruptedSleep() {
        Thread.currentThread().interrupt();
        try {
            Thread.sleep(1);
            sink++;
        } catch (InterruptedException e) {
            sink--;
        }
    }

    static double child(String op, int calls) {
        Runnable body = switch (op) {
            case "notify" -> ProbeCost::notifyOnce;
            case "interrupted" -> ProbeCost::interruptedSleep;
            default -> throw new IllegalArgumentException("op must be notify or interrupted: " + op);
        };
        for (int i = 0; i < calls / 5; i++) {
            body.run();
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            body.run();
        }
        return (System.nanoTime() - t0) / (double) calls;
    }

    private static double runChild(String agent, String options, String op, int calls)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-Xms256m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:-PrintWarnings",
                "-javaagent:" + agent + "=" + options, "-cp", System.getProperty("java.class.path"),
                ProbeCost.class.getName(), "--child", op, String.valueOf(calls)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("child failed: " + String.join(" ", cmd) + "\n" + out);
        }
        String line = out.lines().filter(l -> l.startsWith("ns/call=")).findFirst()
                .orElseThrow(() -> new IllegalStateException("no result from child:\n" + out));
        return Double.parseDouble(line.substring("ns/call=".length()));
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("--child")) {
            System.out.println("ns/call=" + child(args[1], Integer.parseInt(args[2])));
            return;
        }
        if (args.length < 1) {
            System.err.println("usage: ProbeCost AGENT_JAR [runs=5] [calls=1000000]");
            System.exit(2);
        }
        String agent = args[0];
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int calls = args.length > 2 ? Integer.parseInt(args[2]) : 1_000_000;
        String[] configs = {"contanalysis=off", "contanalysis=on"};
        System.out.println("java " + Runtime.version() + ", " + runs + " runs of " + calls + " calls");
        System.out.println("| call | contanalysis=off ns/call | contanalysis=on ns/call | ratio | probe cost ns |");
        System.out.println("|---|---|---|---|---|");
        for (String op : List.of("notify", "interrupted")) {
            double[][] ns = new double[configs.length][runs];
            for (int r = 0; r < runs; r++) {
                for (int c = 0; c < configs.length; c++) {
                    ns[c][r] = runChild(agent, configs[c], op, calls);
                }
            }
            double off = median(ns[0]);
            double on = median(ns[1]);
            System.out.println(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.2f | %.0f |",
                    op.equals("notify") ? "`notify()` (nobody waiting)" : "`Thread.sleep` throwing `InterruptedException`",
                    off, on, on / off, on - off));
        }
    }
}
