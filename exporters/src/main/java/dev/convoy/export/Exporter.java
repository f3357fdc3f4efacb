package dev.convoy.export;

import dev.convoy.model.Recording;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes a {@link Recording} in one output format. One implementation per format; get
 * one with {@link Exporters#exporter(Format)}.
 *
 * <p>Every file is written atomically: to a temporary file in the destination's
 * directory, then renamed with {@code ATOMIC_MOVE} over the destination. On failure no
 * new file is left at a destination (an existing file there is kept or replaced whole)
 * and no temporary file remains. Missing parent directories are created. Implementations
 * are stateless and thread-safe.
 */
public interface Exporter {

    /**
     * Writes the recording.
     *
     * @param recording what to write
     * @param out       destination path; formats that write several files derive their
     *                  names from it (see {@link Format})
     * @return the files written, in a fixed order
     * @throws IOException when a file cannot be written; nothing partial is left behind
     */
    List<Path> export(Recording recording, Path out) throws IOException;
}
