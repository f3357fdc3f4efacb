package dev.convoy.agent;

import dev.convoy.export.Output;
import dev.convoy.model.Recording;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One output of a recording held off the Java heap, for the front-ends that hand a whole file to
 * a client (the MBean's {@code openStream}, the web view's downloads): the binary snapshot is the
 * recording's own bytes (native memory); any other output is written to a private temporary file
 * (created 0600), mapped read-only and deleted at once, so that its bytes live in the page cache
 * until the buffer is unreachable. The analysis behind such an output runs under the
 * {@link AnalysisBudget}.
 */
public final class OffHeapOutput {
    private OffHeapOutput() {
    }

    /**
     * The bytes of one output of a recording, read-only, position 0.
     *
     * @throws IllegalStateException when its analysis does not fit the heap or another one runs
     */
    public static ByteBuffer of(Output output, Recording r) throws IOException {
        if (output == Output.SNAPSHOT && r.bytes().isPresent()) {
            return r.bytes().get().asReadOnlyBuffer().position(0);
        }
        try (AnalysisBudget.Permit p = AnalysisBudget.enter(r, "a " + output.id() + " download")) {
            Path tmp = Files.createTempFile("convoy-output-", output.suffix());
            try {
                try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
                    output.write(r, out);
                }
                try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.READ)) {
                    return ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
    }
}
