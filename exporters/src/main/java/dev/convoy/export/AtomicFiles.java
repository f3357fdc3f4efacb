package dev.convoy.export;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes files so that a reader never sees a partial one: each is written to a temporary
 * file in its destination directory and renamed over the destination with
 * {@code ATOMIC_MOVE}. A group of files is committed only when all were written.
 */
public final class AtomicFiles {
    private static final Set<PosixFilePermission> DUMP_PERMISSIONS = PosixFilePermissions.fromString("rw-r--r--");

    private AtomicFiles() {
    }

    /** Temporary files are created owner-only; a dump is an ordinary file (0644). */
    private static void readableByAll(Path tmp) throws IOException {
        try {
            Files.setPosixFilePermissions(tmp, DUMP_PERMISSIONS);
        } catch (UnsupportedOperationException notPosix) {
            // the file system's defaults apply
        }
    }

    /** Writes the content of one stream. */
    @FunctionalInterface
    public interface Content {
        /** Writes the whole content; the stream is closed by the caller. */
        void writeTo(OutputStream out) throws IOException;
    }

    /** A wrapper of the streams written by this thread (progress reports of the offline converter). */
    private static final ThreadLocal<java.util.function.UnaryOperator<OutputStream>> WRAP = new ThreadLocal<>();

    /** Runs {@code body} with every stream this thread writes through {@link #write} wrapped by {@code wrap}. */
    public static <T> T withWrapper(java.util.function.UnaryOperator<OutputStream> wrap, IoSupplier<T> body)
            throws IOException {
        WRAP.set(wrap);
        try {
            return body.get();
        } finally {
            WRAP.remove();
        }
    }

    /** A supplier that may throw IOException. */
    @FunctionalInterface
    public interface IoSupplier<T> {
        T get() throws IOException;
    }

    /** Writes one file atomically; returns {@code dest}. */
    public static Path write(Path dest, Content content) throws IOException {
        return write(Map.of(dest, content)).get(0);
    }

    /**
     * Writes several files: all temporary files first, then the renames in map order. On
     * failure every temporary file and every destination already renamed by this call is
     * deleted, and the exception is rethrown.
     *
     * @return the destinations, in map order
     */
    public static List<Path> write(Map<Path, Content> files) throws IOException {
        Map<Path, Path> staged = new LinkedHashMap<>();
        List<Path> moved = new ArrayList<>();
        boolean ok = false;
        try {
            for (Map.Entry<Path, Content> f : files.entrySet()) {
                Path dest = f.getKey().toAbsolutePath();
                Files.createDirectories(dest.getParent());
                Path tmp = Files.createTempFile(dest.getParent(), "." + dest.getFileName() + ".", ".tmp");
                staged.put(dest, tmp);
                readableByAll(tmp);
                java.util.function.UnaryOperator<OutputStream> wrap = WRAP.get();
                OutputStream raw = Files.newOutputStream(tmp);
                try (OutputStream out = new BufferedOutputStream(wrap == null ? raw : wrap.apply(raw), 1 << 16)) {
                    f.getValue().writeTo(out);
                }
            }
            for (Map.Entry<Path, Path> s : staged.entrySet()) {
                try {
                    Files.move(s.getValue(), s.getKey(), StandardCopyOption.ATOMIC_MOVE,
                            StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    throw new IOException("cannot rename atomically to " + s.getKey(), e);
                }
                moved.add(s.getKey());
            }
            ok = true;
            return List.copyOf(staged.keySet());
        } finally {
            if (!ok) {
                for (Path tmp : staged.values()) {
                    Files.deleteIfExists(tmp);
                }
                for (Path dest : moved) {
                    Files.deleteIfExists(dest);
                }
            }
        }
    }
}
