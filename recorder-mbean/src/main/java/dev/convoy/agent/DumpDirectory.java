package dev.convoy.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;

import dev.convoy.export.AtomicFiles;
import dev.convoy.export.Output;
import dev.convoy.model.Recording;

/**
 * The one directory dumps are written into (option {@code dumpdir}), by the MBean, which can
 * be reached remotely, and by the dump on exit.
 *
 * <p>A requested path must stay inside: it is relative to the directory (an absolute path
 * must point inside it), {@code ..} may not climb out, and it has no control characters.
 * The write cannot be redirected by a symbolic link, even one that appears while the dump is
 * written: the directory is opened once, each folder on the way is created and opened
 * relative to the one before and never through a link ({@code mkdirat}/{@code openat} with
 * {@code O_NOFOLLOW}, in the native library), and the files are written and renamed relative
 * to the last one ({@link AtomicFiles#writeIn}). At most {@value #MAX_IN_FLIGHT} dumps are
 * written at a time; more are refused, not queued.
 */
public final class DumpDirectory {

    /** Dumps written at the same time; one more is refused. */
    public static final int MAX_IN_FLIGHT = 2;

    private final Path dir;
    private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);

    public DumpDirectory(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
    }

    /** The directory, absolute. */
    public Path path() {
        return dir;
    }

    /**
     * The folders and the file name of a requested dump path, relative to the directory.
     *
     * @throws IllegalArgumentException with the reason, if the path is empty, malformed, has
     *         control characters or leaves the directory
     */
    List<String> components(String requested) {
        if (requested == null || requested.isBlank()) {
            throw new IllegalArgumentException("the dump path is empty; give a file name inside " + dir);
        }
        for (int i = 0; i < requested.length(); i++) {
            char c = requested.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw new IllegalArgumentException("refused: the dump path has a control character (U+"
                        + String.format("%04X", (int) c) + "); use letters, digits and . _ - /");
            }
        }
        Path p;
        try {
            p = Paths.get(requested);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("'" + requested + "' is not a valid path: " + e.getReason());
        }
        Path rel = p.normalize();
        if (p.isAbsolute()) {
            if (!rel.startsWith(dir)) {
                throw outside(requested);
            }
            rel = dir.relativize(rel);
        }
        List<String> parts = new ArrayList<>();
        for (Path part : rel) {
            parts.add(part.toString());
        }
        if (parts.isEmpty() || parts.get(0).isEmpty() || parts.contains("..") || parts.contains(".")) {
            throw outside(requested);
        }
        for (String folder : parts.subList(0, parts.size() - 1)) {
            int bytes = folder.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_FOLDER_BYTES) {
                throw new IllegalArgumentException("refused: a folder name of '" + requested + "' has " + bytes
                        + " bytes; a folder name has at most " + MAX_FOLDER_BYTES);
            }
        }
        return parts;
    }

    /** The longest name of a folder, in bytes (NAME_MAX). */
    private static final int MAX_FOLDER_BYTES = 255;

    /**
     * Refuses a dump path before any work is done for it: as {@link #write} would ({@link
     * #components}), and when a file it names would be longer than Convoy writes
     * ({@link AtomicFiles#MAX_NAME_BYTES} bytes).
     *
     * @throws IllegalArgumentException with the reason
     */
    public void check(String requested, Set<Output> outputs) {
        List<String> parts = components(requested);
        Output.checkFileNames(outputs, Path.of(parts.get(parts.size() - 1)));
    }

    private IllegalArgumentException outside(String requested) {
        return new IllegalArgumentException("refused: '" + requested + "' is outside the dump directory " + dir
                + " (set it with the dumpdir option)");
    }

    /**
     * Writes a recording in a selection of outputs to a path inside the directory
     * ({@link Output#files}: one output to the path itself, several to the path plus their
     * suffixes), all or nothing.
     *
     * @return the files written
     * @throws IllegalArgumentException if the path is refused ({@link #check})
     * @throws IllegalStateException if {@value #MAX_IN_FLIGHT} dumps are being written already
     * @throws IOException if a folder on the way is a symbolic link or not a folder, or a file
     *         cannot be written; nothing is left behind then
     */
    public List<Path> write(String requested, Set<Output> outputs, Recording r) throws IOException {
        check(requested, outputs);
        if (outputs.equals(Set.of(Output.SNAPSHOT))) {
            return writeChecked(requested, outputs, r); // the snapshot's own bytes: no analysis
        }
        try (AnalysisBudget.Permit p = AnalysisBudget.enter(r, "a dump of " + Output.join(outputs));
             dev.convoy.analysis.ContentionIndex.Hold hold = dev.convoy.analysis.ContentionIndex.hold(r)) {
            return writeChecked(requested, outputs, r); // the outputs share one analysis
        }
    }

    private List<Path> writeChecked(String requested, Set<Output> outputs, Recording r) throws IOException {
        List<String> parts = components(requested);
        if (!inFlight.tryAcquire()) {
            throw new IllegalStateException("busy: " + MAX_IN_FLIGHT + " dumps are being written now; "
                    + "try again when one is done");
        }
        try {
            Files.createDirectories(dir);
            Map<Output, Path> files = Output.files(outputs, Path.of(parts.get(parts.size() - 1)));
            Map<String, AtomicFiles.Content> contents = new LinkedHashMap<>();
            for (Map.Entry<Output, Path> f : files.entrySet()) {
                Output o = f.getKey();
                contents.put(f.getValue().toString(), os -> o.write(r, os));
            }
            int fd = NativeRecorder.openDirectory(-1, dir.toString(), false);
            try {
                for (String folder : parts.subList(0, parts.size() - 1)) {
                    int next;
                    try {
                        next = NativeRecorder.openDirectory(fd, folder, true);
                    } catch (NotDirectoryException e) {
                        throw new IllegalArgumentException("refused: '" + requested + "': the folder '" + folder
                                + "' is a symbolic link or not a folder; dumps never follow a symbolic link");
                    }
                    NativeRecorder.closeDirectory(fd);
                    fd = next;
                }
                AtomicFiles.writeIn(Path.of("/proc/self/fd/" + fd), contents);
            } finally {
                NativeRecorder.closeDirectory(fd);
            }
            Path folder = dir;
            for (String part : parts.subList(0, parts.size() - 1)) {
                folder = folder.resolve(part);
            }
            List<Path> written = new ArrayList<>();
            for (String name : contents.keySet()) {
                written.add(folder.resolve(name));
            }
            return written;
        } finally {
            inFlight.release();
        }
    }

    /** Removes Convoy's temporary files left in the directory by processes that ended; errors are ignored. */
    public void removeStaleTemporaryFiles() {
        try {
            if (Files.isDirectory(dir)) {
                AtomicFiles.removeStaleTemporaryFiles(dir);
            }
        } catch (IOException | RuntimeException e) {
            // best effort: a file that cannot be removed now is tried again at the next start
        }
    }
}
