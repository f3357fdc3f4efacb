package dev.convoy.export;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes files so that a reader never sees a partial one, and nothing outside the directory
 * it was given. All work on a group happens relative to its directory, opened once as a
 * {@link SecureDirectoryStream}: each file is written to a temporary file created there
 * (never following a symbolic link, never replacing an existing file), forced to disk, and
 * renamed over its destination; then the directory is forced to disk, so a committed file
 * survives a power loss whole or not at all.
 *
 * <p>A group of files (the CSV files) is committed only when all were written; its first
 * file is its commit mark: the group's existing files are removed first (the mark first),
 * then the others are renamed into place and the mark last. So the files of two groups never
 * sit side by side, and a group whose mark is present is complete.
 *
 * <p>Temporary files are named {@code .NAME.convoy-PID-RANDOM.tmp}. Before writing, those of
 * the same names whose process is gone (a conversion that was killed) are removed.
 */
public final class AtomicFiles {
    private static final Set<PosixFilePermission> DUMP_PERMISSIONS = PosixFilePermissions.fromString("rw-r--r--");
    private static final FileAttribute<Set<PosixFilePermission>> DUMP_FILE =
            PosixFilePermissions.asFileAttribute(DUMP_PERMISSIONS);
    private static final Pattern TEMP = Pattern.compile("\\.(.+)\\.convoy-([0-9]+)-[0-9a-z]+\\.tmp");
    private static final Set<OpenOption> CREATE_NEW = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS);

    /** The longest name of a file in a directory, in bytes (Linux's NAME_MAX, every common file system's). */
    private static final int NAME_MAX = 255;
    /** What a temporary name adds: "." + ".convoy-" + a pid (7 digits) + "-" + 13 base-36 digits + ".tmp". */
    public static final int TEMP_EXTRA = 1 + ".convoy-".length() + 7 + 1 + 13 + ".tmp".length();
    /**
     * The longest name, in bytes of UTF-8, of a file this class writes: it writes each first under
     * a temporary name {@value #TEMP_EXTRA} bytes longer, which must fit in {@value #NAME_MAX}.
     */
    public static final int MAX_NAME_BYTES = NAME_MAX - TEMP_EXTRA;

    private AtomicFiles() {
    }

    /**
     * Refuses a file name longer than {@value #MAX_NAME_BYTES} bytes, saying why.
     *
     * @throws IllegalArgumentException naming the limit
     */
    public static void checkName(String name) {
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_NAME_BYTES) {
            String shown = name.length() > 40 ? name.substring(0, 40) + "..." : name;
            throw new IllegalArgumentException("the file name '" + shown + "' has " + bytes + " bytes; Convoy writes "
                    + "file names of at most " + MAX_NAME_BYTES + " bytes (a file name has at most " + NAME_MAX
                    + ", and each file is first written under a temporary name " + TEMP_EXTRA + " bytes longer)");
        }
    }

    /** Writes the content of one stream. */
    @FunctionalInterface
    public interface Content {
        /** Writes the whole content; the stream is closed by the caller. */
        void writeTo(OutputStream out) throws IOException;
    }

    /** A wrapper of the streams written by this thread (progress reports of the offline converter). */
    private static final ThreadLocal<UnaryOperator<OutputStream>> WRAP = new ThreadLocal<>();

    /** Runs {@code body} with every stream this thread writes through {@link #write} wrapped by {@code wrap}. */
    public static <T> T withWrapper(UnaryOperator<OutputStream> wrap, IoSupplier<T> body) throws IOException {
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

    /** Writes one file atomically, creating missing parent directories; returns {@code dest} made absolute. */
    public static Path write(Path dest, Content content) throws IOException {
        return write(Map.of(dest, content)).get(0);
    }

    /**
     * Writes a group of files of one directory (missing parent directories are created).
     * On failure no temporary file is left, and no destination has changed unless a rename
     * itself failed, in which case the group's destinations renamed by this call are removed.
     *
     * @return the destinations made absolute, in map order
     * @throws IllegalArgumentException if the files are not all in one directory
     */
    public static List<Path> write(Map<Path, Content> files) throws IOException {
        Path dir = null;
        Map<String, Content> named = new LinkedHashMap<>();
        List<Path> out = new ArrayList<>();
        for (Map.Entry<Path, Content> f : files.entrySet()) {
            Path dest = f.getKey().toAbsolutePath();
            if (dir == null) {
                dir = dest.getParent();
            } else if (!dir.equals(dest.getParent())) {
                throw new IllegalArgumentException("a group of files must share its directory: " + files.keySet());
            }
            named.put(dest.getFileName().toString(), f.getValue());
            out.add(dest);
        }
        if (dir == null) {
            return List.of();
        }
        Files.createDirectories(dir);
        writeIn(dir, named);
        return out;
    }

    /**
     * Writes a group of files, by name, into the directory at {@code dir}, which is opened once:
     * the names are resolved relative to it and never through a symbolic link, so that the
     * files land in that very directory even if its path is changed meanwhile ({@code dir}
     * may be a {@code /proc/self/fd/N} path of a directory held open).
     *
     * @throws IllegalArgumentException if a name is not a plain file name
     * @throws IOException if a name is longer than {@value #MAX_NAME_BYTES} bytes, the directory
     *         cannot be opened or a file written
     */
    public static void writeIn(Path dir, Map<String, Content> files) throws IOException {
        for (String name : files.keySet()) {
            if (name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0
                    || name.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("not a file name: '" + name + "'");
            }
            try {
                checkName(name);
            } catch (IllegalArgumentException e) {
                throw new IOException(e.getMessage());
            }
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            if (!(ds instanceof SecureDirectoryStream<Path> sds)) {
                throw new IOException("the file system of " + dir + " cannot open a directory securely");
            }
            removeStale(sds, files.keySet());
            Map<String, Path> staged = new LinkedHashMap<>();
            boolean committed = false;
            List<String> renamed = new ArrayList<>();
            try {
                for (Map.Entry<String, Content> f : files.entrySet()) {
                    Path tmp = tempName(f.getKey());
                    staged.put(f.getKey(), tmp);
                    writeTemp(sds, tmp, f.getValue());
                }
                List<String> names = new ArrayList<>(files.keySet());
                if (names.size() > 1) {
                    for (String n : names) {
                        deleteIfExists(sds, Path.of(n));
                    }
                    names.add(names.remove(0)); // the commit mark last
                }
                for (String n : names) {
                    try {
                        sds.move(staged.get(n), sds, Path.of(n));
                    } catch (NoSuchFileException e) {
                        throw new IOException("the temporary file of " + n + " was removed by someone else before "
                                + "its rename; nothing was written", e);
                    }
                    renamed.add(n);
                }
                committed = true;
            } finally {
                if (!committed) {
                    for (Map.Entry<String, Path> s : staged.entrySet()) {
                        deleteIfExists(sds, s.getValue());
                    }
                    for (String n : renamed) {
                        deleteIfExists(sds, Path.of(n));
                    }
                }
            }
        }
        forceDirectory(dir);
    }

    private static Path tempName(String name) {
        String rnd = Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);
        return Path.of("." + name + ".convoy-" + ProcessHandle.current().pid() + "-" + rnd + ".tmp");
    }

    private static void writeTemp(SecureDirectoryStream<Path> sds, Path tmp, Content content) throws IOException {
        SeekableByteChannel ch;
        try {
            ch = sds.newByteChannel(tmp, CREATE_NEW, DUMP_FILE);
        } catch (UnsupportedOperationException notPosix) {
            ch = sds.newByteChannel(tmp, CREATE_NEW);
        }
        try (SeekableByteChannel c = ch) {
            PosixFileAttributeView perms = sds.getFileAttributeView(tmp, PosixFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (perms != null) {
                perms.setPermissions(DUMP_PERMISSIONS); // a dump is an ordinary file (0644) whatever the umask
            }
            UnaryOperator<OutputStream> wrap = WRAP.get();
            OutputStream raw = Channels.newOutputStream(c);
            OutputStream out = new BufferedOutputStream(wrap == null ? raw : wrap.apply(raw), 1 << 16);
            content.writeTo(out);
            out.flush();
            if (c instanceof FileChannel fc) {
                fc.force(true);
            }
        }
    }

    /** Forces a directory's entries (the renames) to disk; where a file system cannot, its own rules apply. */
    private static void forceDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            if (e instanceof NoSuchFileException nf) {
                throw nf;
            }
            // some file systems cannot open or sync a directory: the renames are done all the same
        }
    }

    private static void deleteIfExists(SecureDirectoryStream<Path> sds, Path name) throws IOException {
        try {
            sds.deleteFile(name);
        } catch (NoSuchFileException gone) {
            // nothing to remove
        }
    }

    /**
     * Removes the temporary files of Convoy whose process has ended: of the given names, or
     * of any name when {@code names} is null.
     */
    static void removeStale(SecureDirectoryStream<Path> sds, Set<String> names) throws IOException {
        List<Path> stale = new ArrayList<>();
        for (Path p : sds) {
            Matcher m = TEMP.matcher(p.getFileName().toString());
            if (!m.matches() || (names != null && !names.contains(m.group(1)))) {
                continue;
            }
            long pid;
            try {
                pid = Long.parseLong(m.group(2));
            } catch (NumberFormatException e) {
                continue;
            }
            if (pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).isEmpty()) {
                stale.add(p.getFileName());
            }
        }
        for (Path p : stale) {
            try {
                deleteIfExists(sds, p);
            } catch (FileAlreadyExistsException | SecurityException e) {
                // left for its owner
            }
        }
    }

    /** Removes Convoy's temporary files of ended processes from a directory (not its subdirectories). */
    public static void removeStaleTemporaryFiles(Path dir) throws IOException {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            if (ds instanceof SecureDirectoryStream<Path> sds) {
                removeStale(sds, null);
            }
        }
    }
}
