package dev.convoy.export;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The binary snapshot format: {@link SnapshotWriter#write(Recording)} of the recording.
 * {@link Exporters#export(byte[], Format, Path)} writes the original bytes instead.
 */
public final class SnapshotExporter implements Exporter {

    @Override
    public List<Path> export(Recording recording, Path out) throws IOException {
        byte[] bytes = SnapshotWriter.write(recording);
        return List.of(AtomicFiles.write(out, os -> os.write(bytes)));
    }
}
