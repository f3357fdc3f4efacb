package dev.convoy.cli;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.Repository;
import dev.convoy.snapshot.SnapshotFormatException;
import dev.convoy.snapshot.SnapshotReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The input side shared by {@code convert} and {@code report}: the snapshot file must be a
 * regular file (a directory, a FIFO or a device is refused before anything reads it), and
 * every failure of the work on it ends as one line on stderr naming the file, exit code
 * {@link Convert#EXIT_ERROR}; with {@code --debug} an unexpected exception's stack trace follows.
 */
final class Input {

    /** The work on one input file. */
    @FunctionalInterface
    interface Work {
        int run() throws IOException;
    }

    private Input() {
    }

    /**
     * The recording in {@code in}: a snapshot file (memory-mapped) or a repository folder (its
     * chunks read together, {@link Repository}).
     */
    static Recording read(Path in, SnapshotReader.Progress progress) throws IOException {
        return Files.isDirectory(in) ? Repository.read(in) : SnapshotReader.read(in, progress);
    }

    /** Checks {@code in}, runs {@code work}, and turns any failure into its one-line message. */
    static int run(String command, Path in, boolean debug, PrintStream err, Work work) {
        String p = CommandLine.prefix(command);
        try {
            if (Files.isDirectory(in) && !Repository.isRepository(in)) {
                err.println(p + in + " is a directory, not a snapshot nor a repository folder "
                        + "(chunk-NNNNNNNNNN.cvysnap files)");
                return Convert.EXIT_ERROR;
            }
            if (Files.exists(in) && !Files.isRegularFile(in) && !Files.isDirectory(in)) {
                err.println(p + in + " is not a regular file (a pipe, socket or device), not a snapshot");
                return Convert.EXIT_ERROR;
            }
            return work.run();
        } catch (SnapshotFormatException e) {
            err.println(p + in + ": not a valid snapshot: " + e.getMessage());
        } catch (NoSuchFileException e) {
            err.println(p + "no such file: " + e.getFile());
        } catch (AccessDeniedException e) {
            err.println(p + "permission denied: " + e.getFile());
        } catch (IOException e) {
            err.println(p + in + ": " + (e.getMessage() != null ? e.getMessage() : e.toString()));
        } catch (OutOfMemoryError e) {
            err.println(Convert.outOfMemory(command, in));
        } catch (RuntimeException | StackOverflowError e) {
            err.println(p + in + ": internal error: " + e
                    + (debug ? "" : " (run with --debug for the stack trace, and please report it)"));
            if (debug) {
                e.printStackTrace(err);
            }
        }
        return Convert.EXIT_ERROR;
    }
}
