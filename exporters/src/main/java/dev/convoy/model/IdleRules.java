package dev.convoy.model;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Which waits are <em>idle</em> (a thread with nothing to do: a pool worker waiting for a task, the
 * JDK's housekeeping threads, a consumer waiting on an empty queue, a timer between its tasks) and
 * which are <em>contention</em> (a thread kept from work it had: everything else). The analysis
 * ranks contention first and shows idle time apart; both stay recorded.
 *
 * <p>What the rules classify: a wait in {@code Object.wait} and a park that does not acquire a lock
 * (a condition, a latch, a queue). A block (a contended monitor enter, a park acquiring a lock) and
 * a join are always contention; a sleep is counted in neither.
 *
 * <p>A rule is one line: {@code idle} or {@code contention}, then {@code frame} and a pattern that
 * one frame of the wait's stack ({@code pkg.Class.method}) matches, or {@code thread} and a pattern
 * the thread's name matches, or {@code group} and a thread group's name. A pattern is matched
 * whole; {@code *} stands for any run of characters. {@code #} starts a comment. A wait is
 * contention when a {@code contention} rule matches it, else idle when an {@code idle} rule
 * matches it, else contention. The user's rules are added to {@link #DEFAULT}'s; {@code reset}
 * on a line of its own drops the default rules. Immutable.
 */
public final class IdleRules {
    /** The built-in rules, as a rules file would state them. */
    public static final String DEFAULT_TEXT = String.join("\n",
            "# JDK housekeeping threads",
            "idle group system",
            "idle group InnocuousThreadGroup",
            "idle frame java.lang.ref.ReferenceQueue.remove",
            "idle frame java.lang.ref.Reference.waitForReferencePendingList",
            "# pool workers and schedulers waiting for a task",
            "idle frame java.util.concurrent.ThreadPoolExecutor.getTask",
            "idle frame java.util.concurrent.ForkJoinPool.awaitWork",
            "idle frame java.util.TimerThread.mainLoop",
            "idle frame *.jetty.util.thread.QueuedThreadPool*.idleJobPoll",
            "# consumers waiting on an empty queue",
            "idle frame java.util.concurrent.*Queue*.take",
            "idle frame java.util.concurrent.*Queue*.poll",
            "# Convoy's own threads",
            "idle thread convoy-*",
            "");

    /** The built-in rules. */
    public static final IdleRules DEFAULT = parse(DEFAULT_TEXT, "built-in rules", false);

    private enum Target { FRAME, THREAD, GROUP }

    /** One rule: its verdict, what it matches, its pattern and where it was written. */
    public record Rule(boolean idle, String target, String pattern, String source) {
        @Override
        public String toString() {
            return (idle ? "idle " : "contention ") + target + " " + pattern;
        }
    }

    private record Compiled(Rule rule, Target target, Pattern pattern) {
    }

    private final List<Compiled> rules;
    private final String source;

    private IdleRules(List<Compiled> rules, String source) {
        this.rules = List.copyOf(rules);
        this.source = source;
    }

    /** The rules, in the order written (the built-in ones first unless reset). */
    public List<Rule> rules() {
        return rules.stream().map(Compiled::rule).toList();
    }

    /** Where the rules come from: "built-in rules", or the user's file added to them. */
    public String source() {
        return source;
    }

    /**
     * The built-in rules plus the rules of a text (see the class comment).
     *
     * @param source what the text is, for error messages ("rules.txt")
     * @throws IllegalArgumentException for a malformed line, naming the source and line
     */
    public static IdleRules parse(String text, String source) {
        return parse(text, source, true);
    }

    /** The built-in rules plus those of a file ({@link #parse}). */
    public static IdleRules load(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (java.nio.charset.MalformedInputException e) {
            throw new IllegalArgumentException(file + ": not a UTF-8 text file of idle rules");
        }
        return parse(text, file.toString(), true);
    }

    private static IdleRules parse(String text, String source, boolean addToDefault) {
        List<Compiled> out = new ArrayList<>();
        if (addToDefault) {
            out.addAll(DEFAULT.rules);
        }
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int hash = line.indexOf('#');
            String s = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (s.isEmpty()) {
                continue;
            }
            String[] w = s.split("\\s+");
            String where = source + " line " + (i + 1) + ": ";
            if (w.length == 1 && w[0].equals("reset")) {
                out.clear();
                continue;
            }
            if (w.length != 3) {
                throw new IllegalArgumentException(where + "expected 'idle|contention frame|thread|group PATTERN'"
                        + " or 'reset', found '" + printable(s) + "'");
            }
            boolean idle = switch (w[0]) {
                case "idle" -> true;
                case "contention" -> false;
                default -> throw new IllegalArgumentException(where + "a rule starts with 'idle' or 'contention', not '"
                        + printable(w[0]) + "'");
            };
            Target target;
            try {
                target = Target.valueOf(w[1].toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + "a rule matches a 'frame', 'thread' or 'group', not '"
                        + printable(w[1]) + "'");
            }
            out.add(new Compiled(new Rule(idle, target.name().toLowerCase(Locale.ROOT), w[2], source), target,
                    glob(w[2])));
        }
        return new IdleRules(out, addToDefault ? "built-in rules and " + source : source);
    }

    private static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            sb.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return sb.toString();
    }

    private static Pattern glob(String p) {
        List<String> parts = new ArrayList<>();
        for (String part : p.split("\\*", -1)) {
            parts.add(part.isEmpty() ? "" : Pattern.quote(part));
        }
        return Pattern.compile(String.join(".*", parts));
    }

    /** The classification of one recording's waits: the rules evaluated once per stack and thread. */
    public Classifier classifier(Recording r) {
        return new Classifier(r);
    }

    /** Classifies the waits of one recording; not thread-safe. */
    public final class Classifier {
        private final Recording r;
        private final Map<Integer, Rule> byStack = new HashMap<>();
        private final Map<RecordedThread, Rule> byThread = new java.util.IdentityHashMap<>();
        private static final Rule NONE = new Rule(false, "", "", "");

        private Classifier(Recording r) {
            this.r = r;
        }

        /** Whether a wait of a thread that began with a stack is idle. */
        public boolean isIdle(RecordedThread t, int stackId) {
            Rule rule = rule(t, stackId);
            return rule != null && rule.idle();
        }

        /** Whether a wait with this stack is idle by the frame rules alone (its thread not known). */
        public boolean isIdleStack(int stackId) {
            Rule st = byStack.computeIfAbsent(stackId, this::stackRule);
            return st != NONE && st.idle();
        }

        /**
         * The rule that decides a wait: a contention rule that matches it, else an idle rule that
         * matches it; null when none does (contention).
         */
        public Rule rule(RecordedThread t, int stackId) {
            Rule th = byThread.computeIfAbsent(t, this::threadRule);
            Rule st = byStack.computeIfAbsent(stackId, this::stackRule);
            if (th != NONE && !th.idle()) {
                return th;
            }
            if (st != NONE && !st.idle()) {
                return st;
            }
            return th != NONE ? th : st != NONE ? st : null;
        }

        private Rule threadRule(RecordedThread t) {
            Rule idle = NONE;
            for (Compiled c : rules) {
                String subject = c.target == Target.THREAD ? t.name() : c.target == Target.GROUP ? t.group() : null;
                if (subject != null && c.pattern.matcher(subject).matches()) {
                    if (!c.rule.idle()) {
                        return c.rule;
                    }
                    idle = idle == NONE ? c.rule : idle;
                }
            }
            return idle;
        }

        private Rule stackRule(int stackId) {
            List<Frame> frames = stackId == 0 ? List.of() : r.frames(stackId);
            if (frames.isEmpty()) {
                return NONE;
            }
            List<String> names = new ArrayList<>(frames.size());
            for (Frame f : frames) {
                names.add(methodName(f));
            }
            Rule idle = NONE;
            for (Compiled c : rules) {
                if (c.target != Target.FRAME) {
                    continue;
                }
                for (String n : names) {
                    if (c.pattern.matcher(n).matches()) {
                        if (!c.rule.idle()) {
                            return c.rule;
                        }
                        idle = idle == NONE ? c.rule : idle;
                        break;
                    }
                }
            }
            return idle;
        }

        private String methodName(Frame f) {
            MethodInfo m = r.methods().get(f.methodId());
            if (m == null) {
                return "";
            }
            ClassInfo c = r.classes().get(m.classId());
            return (c == null ? "" : c.dottedName()) + "." + m.name();
        }
    }

    /** The rules as a rules file would state them. */
    @Override
    public String toString() {
        return String.join("\n", rules().stream().map(Rule::toString).toList());
    }

    /** An unmodifiable view, for tests and docs: the built-in rules' lines. */
    public static List<String> defaultLines() {
        return Collections.unmodifiableList(DEFAULT.rules().stream().map(Rule::toString).toList());
    }
}
