package dev.convoy.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The parser and the usage of every {@code ./convoy} command, both read from the command's
 * declaration in {@link Commands}: arguments in their order, options that take a value
 * ({@code -o OUT}, {@code --format X} or {@code --format=X}), flags, flags that stand for a
 * value of another option ({@code --markdown} for {@code --format markdown}), {@code -h}/{@code --help}
 * anywhere. A later option overrides an earlier one with the same key. A problem is one line on
 * the error stream, {@code convoy: COMMAND: problem}, followed by the command's usage; the exit
 * code is then {@link #EXIT_USAGE}.
 */
public final class CommandLine {
    /** Exit code: done. */
    public static final int EXIT_OK = 0;
    /** Exit code: the operation failed (the reason, one line, on stderr). */
    public static final int EXIT_FAILED = 1;
    /** Exit code: bad arguments (the problem and the usage on stderr). */
    public static final int EXIT_USAGE = 2;

    /** The width of the usage texts. */
    static final int WIDTH = 100;
    /** Where the help column of a command list starts. */
    static final int HELP_COLUMN = 32;

    private CommandLine() {
    }

    /** A check of a value: throws {@link IllegalArgumentException} with a one-line message when it is wrong. */
    @FunctionalInterface
    public interface Check {
        /** A check that takes anything. */
        Check ANY = v -> { };

        /** Throws {@link IllegalArgumentException}, its message naming the value, when {@code value} is wrong. */
        void check(String value);
    }

    /**
     * One option: its key (what the command reads), its names (the first shown in the synopsis),
     * the name of its value ({@code null} for a flag), the value a flag stands for, and its help.
     */
    public record Option(String key, List<String> names, String value, String fixed, boolean required, Check check,
                         String help) {
        /** Whether the option takes a value after it. */
        public boolean takesValue() {
            return value != null;
        }

        /** Its names with their value, as the usage shows them: {@code -o OUT, --output OUT}. */
        String label() {
            List<String> shown = new ArrayList<>();
            for (String n : names) {
                shown.add(takesValue() ? n + " " + value : n);
            }
            return String.join(", ", shown);
        }
    }

    /**
     * One argument, by position: its name in the usage, whether it must be there, whether it
     * takes every argument left ({@code rest}), the message when it is missing, its check and help.
     */
    public record Argument(String name, boolean required, boolean rest, String missing, Check check, String help) {
    }

    /**
     * One command: its words ({@code bench suite}), the section of the overall usage it is listed
     * in, what it does, its arguments, its options and the sets of option keys that exclude each
     * other (given as {@code a} against {@code b, c}).
     */
    public record Command(String name, Commands.Section section, String summary, List<Argument> arguments,
                          List<Option> options, Map<String, Set<String>> exclusive, String exclusiveMessage) {

        /** The option named {@code name} ({@code --format}, {@code -o}), or null. */
        public Option option(String name) {
            for (Option o : options) {
                if (o.names().contains(name)) {
                    return o;
                }
            }
            return null;
        }

        /** Every name of every option, as the parser accepts them. */
        public Set<String> optionNames() {
            Set<String> all = new java.util.LinkedHashSet<>();
            options.forEach(o -> all.addAll(o.names()));
            return all;
        }

        /** The synopsis: {@code convert FILE --format F [-o OUT] [--since D | --from T --to T]}. */
        public String synopsis() {
            StringBuilder s = new StringBuilder(name);
            for (Argument a : arguments) {
                s.append(' ').append(a.required() ? a.name() : "[" + a.name() + "]");
            }
            Set<String> keys = new java.util.HashSet<>();
            Set<String> grouped = new java.util.HashSet<>();
            exclusive.values().forEach(grouped::addAll);
            for (Option o : options) {
                if (!keys.add(o.key()) || grouped.contains(o.key())) {
                    continue; // one name per key (aliases and flags standing for a value are in the details)
                }
                String shown = o.takesValue() ? o.names().get(0) + " " + o.value() : o.names().get(0);
                if (exclusive.containsKey(o.key())) {
                    List<String> others = new ArrayList<>();
                    for (String k : exclusive.get(o.key())) {
                        Option other = options.stream().filter(x -> x.key().equals(k)).findFirst().orElseThrow();
                        others.add(other.takesValue() ? other.names().get(0) + " " + other.value()
                                : other.names().get(0));
                    }
                    shown = shown + " | " + String.join(" ", others);
                }
                s.append(' ').append(o.required() ? shown : "[" + shown + "]");
            }
            return s.toString();
        }

        /** The usage of this command alone: synopsis, what it does, every argument and option. */
        public String usage() {
            StringBuilder u = new StringBuilder();
            u.append(wrap("usage: ./convoy " + synopsis(), "", "        ", WIDTH)).append('\n');
            u.append(wrap(summary, "  ", "  ", WIDTH)).append('\n');
            for (Argument a : arguments) {
                u.append(detail(a.name(), a.help()));
            }
            for (Option o : options) {
                u.append(detail(o.label(), o.help()));
            }
            u.append(detail("-h, --help", "this usage"));
            u.append(section.footer());
            return u.toString();
        }

        private static String detail(String label, String help) {
            String first = "  " + label;
            if (first.length() + 2 > 20) {
                return first + "\n" + wrap(help, " ".repeat(20), " ".repeat(20), WIDTH) + "\n";
            }
            String pad = first + " ".repeat(20 - first.length());
            return wrap(help, pad, " ".repeat(20), WIDTH) + "\n";
        }

        /** The command's lines in the overall usage: the synopsis and what it does, in the help column. */
        String listing() {
            String head = "  " + synopsis();
            String indent = " ".repeat(HELP_COLUMN);
            if (head.length() + 2 > HELP_COLUMN) {
                return wrap(synopsis(), "  ", "      ", WIDTH) + "\n" + wrap(summary, indent, indent, WIDTH) + "\n";
            }
            return wrap(summary, head + " ".repeat(HELP_COLUMN - head.length()), indent, WIDTH) + "\n";
        }
    }

    /**
     * The outcome of a parse: {@link #exit} is -1 when the command should go on with {@link #values}
     * (option keys and argument names to their values; a rest argument's values joined by commas).
     */
    public record Parsed(int exit, Command command, Map<String, String> values) {
        /** The value of an option key or an argument name, null when absent. */
        public String get(String key) {
            return values.get(key);
        }

        /** Whether the option or argument was given. */
        public boolean has(String key) {
            return values.containsKey(key);
        }
    }

    /**
     * Parses {@code args} (the words after the command's own) for {@code command}: the usage on
     * {@code out} for {@code --help} (exit 0), a problem and the usage on {@code err} (exit 2).
     */
    public static Parsed parse(Command command, String[] args, PrintStream out, PrintStream err) {
        try {
            Map<String, String> values = parse(command, args);
            if (values == null) {
                out.println(command.usage());
                out.flush();
                return new Parsed(EXIT_OK, command, Map.of());
            }
            return new Parsed(-1, command, values);
        } catch (IllegalArgumentException e) {
            return new Parsed(usageError(command, e.getMessage(), err), command, Map.of());
        }
    }

    /**
     * The values of {@code args} for {@code command}, null when help was asked.
     *
     * @throws IllegalArgumentException with the one-line problem for bad arguments
     */
    public static Map<String, String> parse(Command command, String[] args) {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, List<String>> rest = new HashMap<>();
        int position = 0;
        List<Argument> arguments = command.arguments();
        for (String a : args) {
            if (a.equals("-h") || a.equals("--help")) {
                return null; // help anywhere, before any problem with the rest
            }
        }
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            Option o = command.option(a);
            int eq = a.indexOf('=');
            if (o == null && a.startsWith("--") && eq > 0) {
                Option withValue = command.option(a.substring(0, eq));
                if (withValue != null && withValue.takesValue()) {
                    set(values, withValue, a.substring(eq + 1));
                    continue;
                }
            }
            if (o != null && !o.takesValue()) {
                values.put(o.key(), o.fixed());
            } else if (o != null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(a + " needs a value (" + o.value() + ")");
                }
                set(values, o, args[++i]);
            } else if (a.startsWith("-") && a.length() > 1 && !Character.isDigit(a.charAt(1))) {
                throw new IllegalArgumentException("unknown option '" + a + "'");
            } else if (position < arguments.size()) {
                Argument arg = arguments.get(position);
                arg.check().check(a);
                if (arg.rest()) {
                    rest.computeIfAbsent(arg.name(), k -> new ArrayList<>()).add(a);
                } else {
                    values.put(arg.name(), a);
                    position++;
                }
            } else {
                throw new IllegalArgumentException("unexpected argument '" + a + "'");
            }
        }
        rest.forEach((name, list) -> values.put(name, String.join(",", list)));
        for (Argument arg : arguments) {
            if (arg.required() && !values.containsKey(arg.name())) {
                throw new IllegalArgumentException(arg.missing());
            }
        }
        for (Option o : command.options()) {
            if (o.required() && !values.containsKey(o.key())) {
                throw new IllegalArgumentException(o.names().get(0) + " is missing (" + o.help() + ")");
            }
        }
        command.exclusive().forEach((key, others) -> {
            if (values.containsKey(key) && others.stream().anyMatch(values::containsKey)) {
                throw new IllegalArgumentException(command.exclusiveMessage());
            }
        });
        return values;
    }

    private static void set(Map<String, String> values, Option o, String value) {
        o.check().check(value);
        values.put(o.key(), value);
    }

    /**
     * What every line a command prints on stderr begins with ({@code convoy: COMMAND: }): its
     * failures (exit 1), its usage errors (exit 2) and its progress.
     */
    public static String prefix(String command) {
        return "convoy: " + command + ": ";
    }

    /** Reports a problem with the arguments of {@code command}: the line and the usage; returns {@link #EXIT_USAGE}. */
    public static int usageError(Command command, String problem, PrintStream err) {
        err.println(prefix(command.name()) + problem);
        err.println(command.usage());
        err.flush();
        return EXIT_USAGE;
    }

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

    /**
     * {@code text}'s words in lines of at most {@code width} characters (a word longer than a line
     * stands alone), the first line starting with {@code first}, the others with {@code indent}.
     */
    public static String wrap(String text, String first, String indent, int width) {
        StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder(first);
        int start = first.length();
        for (String word : text.trim().split("\\s+")) {
            if (line.length() > start && line.length() + 1 + word.length() > width) {
                out.append(stripEnd(line)).append('\n');
                line = new StringBuilder(indent);
                start = indent.length();
            }
            if (line.length() > start) {
                line.append(' ');
            }
            line.append(word);
        }
        return out.append(stripEnd(line)).toString();
    }

    private static String stripEnd(CharSequence s) {
        return s.toString().stripTrailing();
    }
}
