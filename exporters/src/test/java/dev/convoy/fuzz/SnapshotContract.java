package dev.convoy.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.analysis.ContentionReport;
import dev.convoy.cli.Convert;
import dev.convoy.cli.Report;
import dev.convoy.export.Output;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormatException;
import dev.convoy.snapshot.SnapshotReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The robustness contract of the snapshot reader and everything downstream of it, checked
 * on arbitrary bytes by {@link SnapshotFuzzTest} and {@link KnownCrashesTest}:
 *
 * <ul>
 *   <li>{@link SnapshotReader#read(byte[])} returns a {@link Recording} or throws
 *       {@link SnapshotFormatException}; nothing else;
 *   <li>for every recording it returns, every {@link Output}'s {@code write} and the
 *       contention report's {@code render} (both styles) complete without exception;
 *   <li>the command-line tools ({@link Convert}, {@link Report}) exit 0, or 1 with "not a
 *       valid snapshot", and throw nothing.
 * </ul>
 *
 * Inputs larger than {@link #MAX_INPUT} are skipped, so that a fuzzed header cannot ask for
 * huge (but legitimate) amounts of work; the fuzzing JVM runs with a small heap so that an
 * allocation sized by a fuzzed length field shows up as an {@link OutOfMemoryError}.
 */
final class SnapshotContract {
    /** Inputs above this size are not checked (1 MiB). */
    static final int MAX_INPUT = 1 << 20;

    private SnapshotContract() {
    }

    /** Reads {@code data}; if it is a snapshot, writes every output and renders the report. */
    static void readAndWriteEverything(byte[] data) throws IOException {
        if (data.length > MAX_INPUT) {
            return;
        }
        Recording r;
        try {
            r = SnapshotReader.read(data);
        } catch (SnapshotFormatException e) {
            return; // the one allowed failure
        }
        for (Output o : Output.values()) {
            o.write(r, OutputStream.nullOutputStream());
        }
        ContentionReport report = ContentionReport.of(r);
        for (ContentionReport.Style style : ContentionReport.Style.values()) {
            report.render(style);
        }
    }

    /**
     * Writes {@code data} to a file in a fresh temporary directory and runs {@code convert}
     * with every format name and {@code report} in both styles on it, as a user would.
     */
    static void commandLine(byte[] data) throws IOException {
        if (data.length > MAX_INPUT) {
            return;
        }
        Path dir = Files.createTempDirectory("convoy-fuzz-");
        try {
            Path in = dir.resolve("in.cvysnap");
            Files.write(in, data);
            boolean valid = isSnapshot(data);
            for (String format : Output.names().split(", ")) {
                check("convert --format " + format, valid, err -> Convert.run(new String[] {in.toString(),
                        "--format", format, "-o", dir.resolve("out-" + format).toString()}, nullPrint(), err));
            }
            for (String style : new String[] {"--text", "--markdown"}) {
                check("report " + style, valid, err -> Report.run(new String[] {in.toString(), style,
                        "-o", dir.resolve("report" + style).toString()}, nullPrint(), err));
            }
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static boolean isSnapshot(byte[] data) {
        try {
            SnapshotReader.read(data);
            return true;
        } catch (SnapshotFormatException e) {
            return false;
        }
    }

    @FunctionalInterface
    private interface Tool {
        int run(PrintStream err);
    }

    private static void check(String what, boolean valid, Tool tool) {
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        int exit;
        try (PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
            exit = tool.run(err);
        }
        String err = errBytes.toString(StandardCharsets.UTF_8);
        if (valid) {
            assertEquals(Convert.EXIT_OK, exit, what + " of a valid snapshot: " + err);
        } else {
            assertEquals(Convert.EXIT_ERROR, exit, what + " of an invalid snapshot: " + err);
            assertTrue(err.contains("not a valid snapshot"), what + " of an invalid snapshot: " + err);
        }
    }

    private static PrintStream nullPrint() {
        return new PrintStream(OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8);
    }
}
