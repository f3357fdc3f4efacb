package dev.convoy.cli;

import java.nio.file.Path;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.Map;

/**
 * The command line of {@code convert} and {@code report}: one input file, options that take a
 * value ({@code -o OUT}, {@code --format X} or {@code --format=X}), options that stand for a
 * fixed value ({@code --markdown} for {@code format=markdown}), {@code -h}/{@code --help}. A
 * later option overrides an earlier one with the same key. Problems are reported on the error
 * stream as {@code command: problem} followed by the usage, exit code {@link Convert#EXIT_USAGE}.
 */
final class CommandLine {
    private final String command;
    private final String usage;
    private final Map<String, String> valued = new HashMap<>(); // option -> key
    private final Map<String, String[]> fixed = new HashMap<>(); // option -> {key, value}

    /** The outcome: {@link #exit} is -1 when the command should go on with {@link #file} and {@link #values}. */
    record Parsed(int exit, String file, Map<String, String> values) {
        String get(String key) {
            return values.get(key);
        }
    }

    CommandLine(String command, String usage) {
        this.command = command;
        this.usage = usage;
    }

    /** Options that take a value, all stored under {@code key}. */
    CommandLine valued(String key, String... options) {
        for (String o : options) {
            valued.put(o, key);
        }
        return this;
    }

    /** An option that stands for {@code key=value}. */
    CommandLine fixed(String option, String key, String value) {
        fixed.put(option, new String[] {key, value});
        return this;
    }

    Parsed parse(String[] args, PrintStream out, PrintStream err) {
        String file = null;
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            int eq = a.indexOf('=');
            if (a.equals("-h") || a.equals("--help")) {
                out.println(usage);
                return new Parsed(Convert.EXIT_OK, null, values);
            } else if (valued.containsKey(a)) {
                if (i + 1 >= args.length) {
                    return usage(err, "missing value after " + a);
                }
                values.put(valued.get(a), args[++i]);
            } else if (fixed.containsKey(a)) {
                values.put(fixed.get(a)[0], fixed.get(a)[1]);
            } else if (a.startsWith("--") && eq > 0 && valued.containsKey(a.substring(0, eq))) {
                values.put(valued.get(a.substring(0, eq)), a.substring(eq + 1));
            } else if (a.startsWith("-") && a.length() > 1) {
                return usage(err, "unknown option " + a);
            } else if (file != null) {
                return usage(err, "more than one input file: " + file + ", " + a);
            } else {
                file = a;
            }
        }
        if (file == null) {
            return usage(err, "no input file");
        }
        return new Parsed(-1, file, values);
    }

    /** Adds {@code --since D}, {@code --from T} and {@code --to T}: the window of {@link #window}. */
    CommandLine windowed() {
        return valued("since", "--since").valued("from", "--from").valued("to", "--to");
    }

    /** Adds {@code --idle-rules FILE}: rules that tell idle waits from contention ({@link #idleRules(Parsed)}). */
    CommandLine withIdleRules() {
        return valued("idle-rules", "--idle-rules");
    }

    /** Usage lines of {@link #withIdleRules}. */
    static final String IDLE_USAGE = "  --idle-rules FILE\n"
            + "                rules that tell idle waits from contention, added to the built-in ones\n"
            + "                (docs/user-guide.md, \"Idle and contention\")\n";

    /**
     * The idle rules of {@code --idle-rules FILE}, null without the option.
     *
     * @throws IllegalArgumentException for a file that cannot be read or a malformed rule
     */
    static dev.convoy.model.IdleRules idleRules(Parsed p) {
        String file = p.get("idle-rules");
        if (file == null) {
            return null;
        }
        try {
            return dev.convoy.model.IdleRules.load(Path.of(file));
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IllegalArgumentException("--idle-rules: no such file: " + file);
        } catch (java.io.IOException | java.nio.file.InvalidPathException e) {
            throw new IllegalArgumentException("--idle-rules: cannot read " + file + ": " + e.getMessage());
        }
    }

    /** {@code r} with the idle rules given ({@link #idleRules(Parsed)}), or {@code r} when none are. */
    static dev.convoy.model.Recording withIdleRules(dev.convoy.model.Recording r, dev.convoy.model.IdleRules rules) {
        return rules == null ? r : r.withIdleRules(rules);
    }

    /** Usage lines of {@link #windowed}'s options. */
    static final String WINDOW_USAGE = "  --since D     only the last D of the recording (90s, 10m, 2h)\n"
            + "  --from T, --to T\n"
            + "                only the part from T and/or to T: 2026-11-28T14:05:00Z, 2026-11-28T14:05,\n"
            + "                14:05 (local time) or -10m (before the recording's end)\n";

    /**
     * {@code r} cut to the window the options give, or {@code r} without them.
     *
     * @throws IllegalArgumentException for a malformed window or one that misses the recording
     */
    static dev.convoy.model.Recording window(Parsed p, dev.convoy.model.Recording r) {
        if (p.get("since") == null && p.get("from") == null && p.get("to") == null) {
            return r;
        }
        return dev.convoy.model.Window.of(r, p.get("since"), p.get("from"), p.get("to")).cut(r);
    }

    /** Reports a problem with the arguments; returns what {@link #parse} returns for it. */
    Parsed usage(PrintStream err, String problem) {
        err.println(command + ": " + problem);
        err.println(usage);
        return new Parsed(Convert.EXIT_USAGE, null, Map.of());
    }
}
