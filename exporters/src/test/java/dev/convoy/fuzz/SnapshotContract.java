package dev.convoy.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.report.ContentionReport;
import dev.convoy.cli.Convert;
import dev.convoy.cli.Report;
import dev.convoy.export.Output;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormatException;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.snapshot.SnapshotReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.zip.CRC32;

/**
 * The robustness contract of the snapshot reader and everything downstream of it, checked
 * on arbitrary bytes by {@link SnapshotFuzzTest}:
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
 * <p>Section CRCs are recomputed before the content is checked ({@link #withValidCrcs}):
 * otherwise nearly every mutation would only reach the CRC check. Inputs larger than {@link #MAX_INPUT} are skipped, so that a fuzzed header cannot ask for
 * huge (but legitimate) amounts of work; the fuzzing JVM runs with a small heap so that an
 * allocation sized by a fuzzed length field shows up as an {@link OutOfMemoryError}.
 */
final class SnapshotContract {
    /** Inputs above this size are not checked (1 MiB). */
    static final int MAX_INPUT = 1 << 20;

    private SnapshotContract() {
    }

    /**
     * Checks {@code data} as it is (a mutation almost always breaks a section CRC, so this
     * mostly checks that the reader rejects it), then with every section CRC recomputed
     * ({@link #withValidCrcs}), so that the mutated content gets past the CRC check and into
     * the parsers, the analysis and the writers.
     */
    static void readAndWriteEverything(byte[] data) throws IOException {
        if (data.length > MAX_INPUT) {
            return;
        }
        readAndWrite(data);
        byte[] fixed = withValidCrcs(data);
        if (!Arrays.equals(fixed, data)) {
            readAndWrite(fixed);
        }
    }

    /**
     * A copy of {@code data} with the CRC32 of every section whose header and payload fit in
     * the file recomputed, walking the sections as the reader does (header, then sections up
     * to END or the first one that does not fit). Bytes that are not a snapshot come back
     * unchanged.
     */
    static byte[] withValidCrcs(byte[] data) {
        byte[] out = Arrays.copyOf(data, data.length);
        ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        long pos = SnapshotFormat.HEADER_BYTES;
        while (out.length - pos >= SnapshotFormat.SECTION_HEADER_BYTES) {
            int tag = b.getInt((int) pos);
            long length = b.getLong((int) pos + 8);
            long payload = pos + SnapshotFormat.SECTION_HEADER_BYTES;
            if (length < 0 || length > out.length - payload) {
                break;
            }
            CRC32 crc = new CRC32();
            crc.update(out, (int) payload, (int) length);
            b.putInt((int) pos + 4, (int) crc.getValue());
            if (tag == SnapshotFormat.SECTION_END) {
                break;
            }
            pos = payload + length;
        }
        return out;
    }

    private static void readAndWrite(byte[] data) throws IOException {
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
            byte[] fixed = withValidCrcs(data); // past the CRC checks, as in readAndWriteEverything
            Files.write(in, fixed);
            boolean valid = isSnapshot(fixed);
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
