package dev.convoy.testapps;

import java.io.InputStream;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Entry point that runs one named scenario, {@code all} of them, or the {@code demo} mix (used by
 * {@code ./convoy demo}).
 *
 * <pre>
 * Scenarios                       same as "demo"
 * Scenarios --list                print the scenario names, one per line
 * Scenarios NAME [ARGS...]        run one scenario exactly like its own main (same args, same output)
 * Scenarios all  [--hold-ms=N] [--hold-until-stdin-eof]
 * Scenarios demo [--hold-ms=N] [--hold-until-stdin-eof]
 * </pre>
 *
 * <p>{@code all} and {@code demo} print one summary line per scenario ({@code "<name> OK ..."} or
 * {@code "<name> FAIL ..."}), then a final line {@code "SCENARIOS OK ran=N failed=0"} (or
 * {@code SCENARIOS FAIL ...}, exit code 1). With a hold option the JVM then stays alive as
 * described in {@link Deadlock} and prints {@value Deadlock#RELEASED_MARKER} before exiting.
 * The deadlock scenario runs last, and its two daemon threads stay deadlocked until the JVM exits.
 */
public final class Scenarios {

    public static final String ALL = "all";
    public static final String DEMO = "demo";
    /** Prefix of the final line of {@code all} and {@code demo}. */
    public static final String FINAL_LINE_PREFIX = "SCENARIOS";

    /** A scenario known to this runner: default configuration and its own {@code main}. */
    private record Entry(Supplier<Scenario> defaults, Consumer<String[]> main) {
    }

    private static final Map<String, Entry> REGISTRY = new LinkedHashMap<>();

    static {
        REGISTRY.put(LockStorm.NAME, new Entry(LockStorm::create, LockStorm::main));
        REGISTRY.put(ProducerConsumer.NAME, new Entry(ProducerConsumer::create, ProducerConsumer::main));
        REGISTRY.put(NotifyAllHerd.NAME, new Entry(NotifyAllHerd::create, NotifyAllHerd::main));
        REGISTRY.put(JoinChain.NAME, new Entry(JoinChain::create, JoinChain::main));
        REGISTRY.put(Sleepers.NAME, new Entry(Sleepers::create, Sleepers::main));
        REGISTRY.put(InterruptWaiter.NAME, new Entry(InterruptWaiter::create, InterruptWaiter::main));
        REGISTRY.put(TimedWaits.NAME, new Entry(TimedWaits::create, TimedWaits::main));
        REGISTRY.put(HandoffChain.NAME, new Entry(HandoffChain::create, HandoffChain::main));
        REGISTRY.put(ThreadChurn.NAME, new Entry(ThreadChurn::create, ThreadChurn::main));
        REGISTRY.put(JucBlocking.NAME, new Entry(JucBlocking::create, JucBlocking::main));
        REGISTRY.put(Deadlock.NAME, new Entry(Deadlock::create, Deadlock::main)); // keep last
    }

    private Scenarios() {
    }

    /** Names accepted as the first argument, besides {@code all} and {@code demo}. */
    public static List<String> names() {
        return List.copyOf(REGISTRY.keySet());
    }

    /** Every scenario with its default configuration, deadlock last. */
    public static List<Scenario> all() {
        return REGISTRY.values().stream().map(e -> e.defaults().get()).toList();
    }

    /**
     * The demo mix: a representative set, somewhat heavier than the defaults so a recording has
     * something to show, running in a couple of seconds. Deadlock last.
     */
    public static List<Scenario> demo() {
        return List.of(
                LockStorm.create(4, 200_000),
                ProducerConsumer.create(2, 2, 5_000, 8),
                NotifyAllHerd.create(8),
                TimedWaits.create(200),
                HandoffChain.create(8),
                JoinChain.create(6),
                Sleepers.create(2, 100, 3),
                InterruptWaiter.create(),
                JucBlocking.create(4, 5_000, 2_000),
                Deadlock.create());
    }

    /**
     * Runs {@code scenarios} in order, printing one summary line each and the final
     * {@code SCENARIOS ...} line to {@code out}. Returns the exit code (0 if all were OK).
     */
    public static int runAll(List<Scenario> scenarios, PrintStream out) {
        int failed = 0;
        for (Scenario s : scenarios) {
            if (Cli.runAndPrint(out, s) != 0) {
                failed++;
            }
        }
        out.println(FINAL_LINE_PREFIX + (failed == 0 ? " OK" : " FAIL") + " ran=" + scenarios.size()
                + " failed=" + failed);
        out.flush();
        return failed == 0 ? 0 : Cli.FAILED;
    }

    /** Runs {@code all} or {@code demo} as {@code main} does; returns the exit code. */
    static int runSet(String set, String[] options, PrintStream out, InputStream in) {
        Deadlock.Hold hold;
        try {
            hold = Deadlock.Hold.parse(options);
        } catch (Cli.UsageException e) {
            System.err.println("error: " + e.getMessage());
            usage(System.err);
            return Cli.USAGE;
        }
        int code = runAll(set.equals(ALL) ? all() : demo(), out);
        if (hold.holds()) {
            hold.await(in);
            out.println(Deadlock.RELEASED_MARKER);
            out.flush();
        }
        return code;
    }

    private static void usage(PrintStream err) {
        err.println("usage: Scenarios [" + ALL + "|" + DEMO + "] [--hold-ms=N] [--hold-until-stdin-eof]");
        err.println("       Scenarios NAME [ARGS...]   where NAME is one of " + String.join(", ", names()));
        err.println("       Scenarios --list");
    }

    public static void main(String[] args) {
        String name = args.length == 0 ? DEMO : args[0];
        String[] rest = args.length == 0 ? new String[0] : Arrays.copyOfRange(args, 1, args.length);
        if (name.equals("--list")) {
            names().forEach(System.out::println);
            return;
        }
        if (name.equals("--help") || name.equals("-h")) {
            usage(System.out);
            return;
        }
        if (name.equals(ALL) || name.equals(DEMO)) {
            Cli.exit(runSet(name, rest, System.out, System.in));
            return;
        }
        Entry entry = REGISTRY.get(name);
        if (entry == null) {
            System.err.println("error: unknown scenario '" + name + "'");
            usage(System.err);
            Cli.exit(Cli.USAGE);
            return;
        }
        entry.main().accept(rest);
    }
}
