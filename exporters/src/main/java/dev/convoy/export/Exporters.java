package dev.convoy.export;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Entry point of the exporters: one call from a recording or snapshot bytes to files. */
public final class Exporters {
    private Exporters() {
    }

    /** The exporter of a format. */
    public static Exporter exporter(Format format) {
        return switch (format) {
            case CHROME -> new ChromeTraceWriter();
            case TPTP -> new TptpXmlWriter();
            case CSV -> new CsvLogWriter();
            case SNAPSHOT -> new SnapshotExporter();
        };
    }

    /**
     * Writes a recording in a format, atomically (see {@link Exporter}).
     *
     * @param out destination; for {@link Format#CSV} the base of the two files
     * @return the files written
     */
    public static List<Path> export(Recording recording, Format format, Path out) throws IOException {
        return exporter(format).export(recording, out);
    }

    /**
     * Reads snapshot bytes and writes them in a format; {@link Format#SNAPSHOT} writes the
     * bytes unchanged (after checking that they read).
     *
     * @throws dev.convoy.snapshot.SnapshotFormatException when the bytes are not a valid
     *         snapshot; nothing is written then
     */
    public static List<Path> export(byte[] snapshot, Format format, Path out) throws IOException {
        Recording r = SnapshotReader.read(snapshot);
        if (format == Format.SNAPSHOT) {
            return List.of(AtomicFiles.write(out, os -> os.write(snapshot)));
        }
        return export(r, format, out);
    }
}
