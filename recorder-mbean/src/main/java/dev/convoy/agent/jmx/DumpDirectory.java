package dev.convoy.agent.jmx;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The one directory the MBean may write into. The MBean can be reached remotely, so a
 * requested dump path is accepted only if it stays inside this directory: relative paths
 * are resolved against it, {@code ..} may not climb out, an absolute path must point
 * inside it, and no existing part of the path may be a symbolic link leading elsewhere.
 */
public final class DumpDirectory {

    private final Path dir;

    public DumpDirectory(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
    }

    public Path path() {
        return dir;
    }

    /**
     * The file a dump named {@code requested} goes to.
     *
     * @throws IllegalArgumentException with the reason, if the path is empty, malformed or
     *         escapes the directory
     * @throws IOException if the directory cannot be created or resolved
     */
    public Path resolve(String requested) throws IOException {
        if (requested == null || requested.isBlank()) {
            throw new IllegalArgumentException("the dump path is empty; give a file name inside " + dir);
        }
        Path p;
        try {
            p = Paths.get(requested);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("'" + requested + "' is not a valid path: " + e.getReason());
        }
        Path target = (p.isAbsolute() ? p : dir.resolve(p)).normalize();
        if (!target.startsWith(dir) || target.equals(dir)) {
            throw new IllegalArgumentException("refused: '" + requested + "' is outside the dump directory " + dir
                    + " (set it with the dumpdir option)");
        }
        Files.createDirectories(dir);
        Path realDir = dir.toRealPath();
        // The nearest existing ancestor must still be inside once links are followed.
        Path existing = target.getParent();
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        if (existing == null || !existing.toRealPath().startsWith(realDir)) {
            throw new IllegalArgumentException("refused: '" + requested + "' leads outside the dump directory " + dir
                    + " through a symbolic link");
        }
        if (Files.isSymbolicLink(target)) {
            throw new IllegalArgumentException("refused: '" + requested + "' is a symbolic link; dumps never follow one");
        }
        return realDir.resolve(dir.relativize(target));
    }
}
