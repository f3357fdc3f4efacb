package dev.convoy.schema;

import java.util.List;

/**
 * A file does not follow its format. The message names the file and lists every problem
 * found, one a line (up to {@value #SHOWN}; {@link #problems()} has them all).
 */
public class FormatViolation extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** Problems listed in the message; the rest are counted. */
    static final int SHOWN = 50;

    private final String source;
    private final transient List<String> problems;

    public FormatViolation(String source, List<String> problems) {
        super(message(source, problems));
        this.source = source;
        this.problems = List.copyOf(problems);
    }

    public FormatViolation(String source, List<String> problems, Throwable cause) {
        this(source, problems);
        initCause(cause);
    }

    /** What was checked (usually a file path). */
    public String source() {
        return source;
    }

    /** Every problem found, in the order found. */
    public List<String> problems() {
        return problems;
    }

    /** Throws a {@code FormatViolation} if {@code problems} is not empty. */
    static void throwIfAny(String source, List<String> problems) {
        if (!problems.isEmpty()) {
            throw new FormatViolation(source, problems);
        }
    }

    private static String message(String source, List<String> problems) {
        StringBuilder sb = new StringBuilder(source).append(": ").append(problems.size())
                .append(problems.size() == 1 ? " problem" : " problems");
        for (int i = 0; i < Math.min(SHOWN, problems.size()); i++) {
            sb.append("\n  ").append(problems.get(i));
        }
        if (problems.size() > SHOWN) {
            sb.append("\n  ... and ").append(problems.size() - SHOWN).append(" more");
        }
        return sb.toString();
    }
}
