package dev.convoy.testapps.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The safepoints of {@code -Xlog:safepoint:file=F:tn}: one line per safepoint, logged when it ends,
 * stamped with {@code System.nanoTime()} (CLOCK_MONOTONIC on Linux, the recorder's clock).
 */
public final class SafepointLog {

    /** JVM argument that writes the log this class reads, into the JVM's working directory. */
    public static final String JVM_FLAG = "-Xlog:safepoint:file=safepoints.log:tn";
    public static final String FILE = "safepoints.log";

    private SafepointLog() {
    }

    /** JVM argument that writes the log into {@code file}. */
    public static String flag(Path file) {
        return "-Xlog:safepoint:file=" + file + ":tn";
    }

    /**
     * One line: {@code [<nanoTime>ns] Safepoint "<op>", ..., Total: <n> ns}. It covers
     * [end - totalNs, end]: from the VM's request (threads being brought to a stop) to the end.
     */
    public record Safepoint(long end, long totalNs, String name) {
        private static final Pattern LINE = Pattern.compile(
                "^\\[(\\d+)ns\\] Safepoint \"([^\"]+)\".*Total: (\\d+) ns");

        public long start() {
            return end - totalNs;
        }

        /** Whether [from, from + ns] overlaps this safepoint. */
        public boolean overlaps(long from, long ns) {
            return from <= end && from + ns >= start();
        }

        static Optional<Safepoint> parse(String line) {
            Matcher m = LINE.matcher(line);
            return m.find() ? Optional.of(new Safepoint(Long.parseLong(m.group(1)), Long.parseLong(m.group(3)),
                    m.group(2))) : Optional.empty();
        }
    }

    /** Every safepoint of a log; none if the file does not exist. */
    public static List<Safepoint> read(Path log) throws IOException {
        if (!Files.isRegularFile(log)) {
            return List.of();
        }
        return parse(Files.readAllLines(log, StandardCharsets.UTF_8));
    }

    public static List<Safepoint> parse(List<String> lines) {
        List<Safepoint> out = new ArrayList<>();
        for (String line : lines) {
            Safepoint.parse(line).ifPresent(out::add);
        }
        return out;
    }

    /** The longest safepoint that overlaps [from, from + ns], if any. */
    public static Optional<Safepoint> longestOverlapping(List<Safepoint> all, long from, long ns) {
        Safepoint best = null;
        for (Safepoint s : all) {
            if (s.overlaps(from, ns) && (best == null || s.totalNs() > best.totalNs())) {
                best = s;
            }
        }
        return Optional.ofNullable(best);
    }
}
