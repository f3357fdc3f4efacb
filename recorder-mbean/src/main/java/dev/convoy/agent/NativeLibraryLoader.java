package dev.convoy.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.Set;

/**
 * Finds and loads {@code libconvoy.so}: the file named by the system property
 * {@code convoy.library} if set (the user's own choice, loaded as it is), otherwise the copy
 * packaged in the agent jar.
 *
 * <p>The packaged copy must be written to a file to be loaded, and whoever can write or
 * replace that file before the load runs code inside this JVM, as its user. So the copy
 * never goes to a name another user can predict, create or change:
 * <ul>
 * <li>the base directory ({@code convoy.tmpdir}, default {@code java.io.tmpdir}; created
 *     0700 if missing) and every directory above it must belong to this JVM's user or to
 *     root, and must not be writable by others unless sticky: otherwise another user could
 *     rename the directory holding the copy and put one of their own in its place;</li>
 * <li>each JVM creates a directory of its own in it, with a random name and mode 0700, and
 *     checks, without following links, that it is a directory of this user with exactly
 *     that mode;</li>
 * <li>the library is created there exclusively (a file that exists is an error, links are
 *     not followed), made read-only (0500), and read back and compared by SHA-256 with the
 *     jar's bytes before it is loaded;</li>
 * <li>right after the load, or after any failure, the file and the directory are deleted
 *     (the loaded library stays mapped), so nothing is left behind, not even a partial file
 *     of a full disk, and no file is ever reused.</li>
 * </ul>
 * A JVM that cannot do all of that gets an {@link IllegalStateException} whose message is
 * one line saying why and what to do.
 *
 * <p>On JDK 24 and later {@code System.load} from the class path prints a
 * restricted-method warning unless the user passed {@code --enable-native-access}; the
 * {@code Enable-Native-Access} manifest attribute is honoured for executable JARs only,
 * not for agent JARs. When the agent's {@link Instrumentation} is at hand, the library is
 * therefore loaded through {@code internal.LibraryTrampoline} (see there), and any
 * failure of that path falls back to {@code System.load}.
 */
final class NativeLibraryLoader {

    static final String RESOURCE = "/META-INF/native/linux-x86_64/libconvoy.so";
    static final String LIBRARY_PROPERTY = "convoy.library";
    static final String TMPDIR_PROPERTY = "convoy.tmpdir";
    /** The name of the copy inside its private directory. */
    static final String FILE_NAME = "libconvoy.so";
    /** The prefix of the private directories, followed by a random part. */
    static final String DIRECTORY_PREFIX = "convoy-";

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY_DIRECTORY =
            PosixFilePermissions.asFileAttribute(OWNER_ONLY);
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_WRITES =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final Set<PosixFilePermission> OWNER_READS_EXECUTES = PosixFilePermissions.fromString("r-x------");

    private static final int S_IFMT = 0170000;
    private static final int S_IFDIR = 0040000;
    private static final int S_ISVTX = 01000;
    private static final int GROUP_OTHERS_WRITE = 0022;

    private NativeLibraryLoader() {
    }

    /**
     * Loads the library, from {@code -Dconvoy.library=FILE} or from a private copy of the
     * packaged one.
     *
     * @throws IllegalStateException with a one-line reason if it cannot be loaded
     */
    static void load(Instrumentation inst) {
        String explicit = System.getProperty(LIBRARY_PROPERTY);
        if (explicit != null) {
            loadFile(inst, Paths.get(explicit), "the native library " + explicit + " (-D" + LIBRARY_PROPERTY + ")",
                    new Hint("put it on one that allows executables", "; set -D" + LIBRARY_PROPERTY
                            + "=FILE to a library built by 'make' in native-recorder, or leave it out to use the "
                            + "agent jar's"));
            return;
        }
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (!os.startsWith("Linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new IllegalStateException("Convoy's native recorder is built for Linux x86_64 only; this JVM runs on "
                    + os + " " + arch);
        }
        byte[] bytes;
        try (InputStream in = NativeLibraryLoader.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the agent jar does not contain " + RESOURCE
                        + "; rebuild it with 'mvn package' (the native-recorder module builds the library)");
            }
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + RESOURCE + " from the agent jar: " + reason(e), e);
        }
        Path base = Paths.get(System.getProperty(TMPDIR_PROPERTY, System.getProperty("java.io.tmpdir")));
        try (PrivateCopy copy = PrivateCopy.extract(base, bytes)) {
            loadFile(inst, copy.file(), "the native library extracted to " + copy.directory().getParent(),
                    new Hint("set -D" + TMPDIR_PROPERTY + "=DIR to a directory on one that allows executables",
                            "; set -D" + TMPDIR_PROPERTY + "=DIR to extract it elsewhere"));
        }
    }

    /**
     * A copy of the library in a directory of its own that only this JVM's user can enter;
     * {@link #close()} deletes both.
     */
    record PrivateCopy(Path directory, Path file) implements AutoCloseable {

        /**
         * Writes {@code bytes} as {@value #FILE_NAME} into a new private directory under
         * {@code base} and checks that the file holds them.
         *
         * @throws IllegalStateException "cannot extract the native library to BASE: why; what
         *         to do", after deleting whatever it created
         */
        static PrivateCopy extract(Path base, byte[] bytes) {
            Path dir = null;
            Path file = null;
            boolean done = false;
            try {
                int uid = ownUid();
                Path realBase = safeBase(base, uid);
                dir = Files.createTempDirectory(realBase, DIRECTORY_PREFIX, OWNER_ONLY_DIRECTORY);
                makePrivate(dir, uid);
                file = dir.resolve(FILE_NAME);
                write(file, bytes);
                verify(file, bytes);
                done = true;
                return new PrivateCopy(dir, file);
            } catch (UnsafeDirectoryException e) {
                throw new IllegalStateException(cannotExtract(base, e.getMessage()
                        + "; set -D" + TMPDIR_PROPERTY + "=DIR to a directory that only you (or root) can write"), e);
            } catch (IOException e) {
                throw new IllegalStateException(cannotExtract(base, reason(e)
                        + "; set -D" + TMPDIR_PROPERTY + "=DIR to a directory of yours with free space"), e);
            } finally {
                if (!done) {
                    deleteQuietly(file);
                    deleteQuietly(dir);
                }
            }
        }

        /** Deletes the file and the directory; the library, once loaded, stays mapped. */
        @Override
        public void close() {
            deleteQuietly(file);
            deleteQuietly(directory);
        }
    }

    private static String cannotExtract(Path base, String why) {
        return "cannot extract the native library to " + base.toAbsolutePath() + ": " + why;
    }

    /** A directory in which another user could replace the library. */
    static final class UnsafeDirectoryException extends IOException {
        private static final long serialVersionUID = 1L;

        UnsafeDirectoryException(String message) {
            super(message);
        }
    }

    /**
     * The base directory, created 0700 if missing, with links resolved, after checking it
     * and every directory above it.
     *
     * @throws UnsafeDirectoryException if another user could rename or replace what is in it
     */
    static Path safeBase(Path base, int uid) throws IOException {
        if (!Files.exists(base)) {
            Files.createDirectories(base, OWNER_ONLY_DIRECTORY);
        }
        Path real = base.toRealPath();
        if (!Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("not a directory");
        }
        for (Path p = real; p != null; p = p.getParent()) {
            Map<String, Object> a = Files.readAttributes(p, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
            int owner = (Integer) a.get("uid");
            int mode = (Integer) a.get("mode");
            if ((mode & S_IFMT) != S_IFDIR) {
                throw new UnsafeDirectoryException(p + " is not a directory");
            }
            if (owner != uid && owner != 0) {
                throw new UnsafeDirectoryException(p + " belongs to uid " + owner
                        + ", neither this JVM's user (uid " + uid + ") nor root");
            }
            if ((mode & GROUP_OTHERS_WRITE) != 0 && (mode & S_ISVTX) == 0) {
                throw new UnsafeDirectoryException(p + " is writable by other users and has no sticky bit (mode "
                        + Integer.toOctalString(mode & 07777) + ")");
            }
        }
        return real;
    }

    /** Gives {@code dir} mode 0700 if the umask took bits away, then checks it, not following links. */
    private static void makePrivate(Path dir, int uid) throws IOException {
        PosixFileAttributeView view = Files.getFileAttributeView(dir, PosixFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS);
        if (!view.readAttributes().permissions().equals(OWNER_ONLY)) {
            view.setPermissions(OWNER_ONLY);
        }
        Map<String, Object> a = Files.readAttributes(dir, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
        int owner = (Integer) a.get("uid");
        int mode = (Integer) a.get("mode");
        if ((mode & S_IFMT) != S_IFDIR || owner != uid || (mode & 07777) != 0700) {
            throw new UnsafeDirectoryException("the new directory " + dir + " is not a directory of uid " + uid
                    + " with mode 700 (uid " + owner + ", mode " + Integer.toOctalString(mode) + ")");
        }
    }

    /** Creates {@code file} exclusively, not following links, writes {@code bytes} and makes it 0500. */
    private static void write(Path file, byte[] bytes) throws IOException {
        try (SeekableByteChannel ch = Files.newByteChannel(file, Set.<OpenOption>of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), OWNER_WRITES)) {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
        }
        Files.getFileAttributeView(file, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                .setPermissions(OWNER_READS_EXECUTES);
    }

    /** Reads {@code file} back, not following links, and compares its SHA-256 with that of {@code bytes}. */
    private static void verify(Path file, byte[] bytes) throws IOException {
        MessageDigest read = sha256();
        long size = 0;
        try (SeekableByteChannel ch = Files.newByteChannel(file, Set.<OpenOption>of(StandardOpenOption.READ,
                LinkOption.NOFOLLOW_LINKS))) {
            ByteBuffer buf = ByteBuffer.allocate(1 << 16);
            int n;
            while ((n = ch.read(buf)) >= 0) {
                read.update(buf.array(), 0, n);
                size += n;
                buf.clear();
            }
        }
        if (!MessageDigest.isEqual(read.digest(), sha256().digest(bytes))) {
            throw new IOException("the copy written to " + file + " (" + size + " bytes) differs from the jar's ("
                    + bytes.length + " bytes)");
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("SHA-256 is always available", e);
        }
    }

    /** This process's file-system uid (the owner of the files it creates), from /proc/self/status. */
    static int ownUid() throws IOException {
        return fsUid(Files.readAllLines(Paths.get("/proc/self/status")));
    }

    /** The file-system uid, the fourth number of the {@code Uid:} line of /proc/PID/status. */
    static int fsUid(Iterable<String> status) throws IOException {
        for (String line : status) {
            if (line.startsWith("Uid:")) {
                String[] ids = line.substring(4).trim().split("\\s+");
                if (ids.length == 4) {
                    return Integer.parseInt(ids[3]);
                }
            }
        }
        throw new IOException("/proc/self/status has no Uid line with four ids");
    }

    private static void deleteQuietly(Path p) {
        if (p != null) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                // best effort: the directory is private and empty unless a write failed inside it
            }
        }
    }

    /** The operating system's words for a failed file operation, without the path Java adds. */
    static String reason(IOException e) {
        if (e instanceof UnsafeDirectoryException) {
            return e.getMessage();
        }
        if (e instanceof FileSystemException fse && fse.getReason() != null) {
            return (fse.getFile() != null ? fse.getFile() + ": " : "") + fse.getReason();
        }
        if (e instanceof AccessDeniedException fse) {
            return fse.getFile() + ": permission denied";
        }
        if (e instanceof NoSuchFileException fse) {
            return fse.getFile() + ": no such file or directory";
        }
        if (e instanceof NotDirectoryException fse) {
            return fse.getFile() + ": not a directory";
        }
        if (e instanceof FileAlreadyExistsException fse) {
            return fse.getFile() + ": exists and is not a directory";
        }
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }

    /**
     * What a failure to load says to do: on a file system mounted noexec, otherwise.
     */
    private record Hint(String noexec, String other) {
    }

    /**
     * Loads {@code file}, named {@code what} in a failure's message; {@code hint}, appended to
     * it, says what else to try. A library the quiet path could reach but not load is not
     * tried again with {@code System.load}: it would fail the same way, after the warning.
     */
    private static void loadFile(Instrumentation inst, Path file, String what, Hint hint) {
        Throwable quietFailure = null;
        if (inst != null && wouldWarn()) {
            try {
                loadQuietly(inst, file);
                return;
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                UnsatisfiedLinkError refused = linkError(e);
                if (refused != null) {
                    throw cannotLoad(file, what, hint, refused);
                }
                quietFailure = e;
            }
        }
        try {
            System.load(file.toAbsolutePath().toString());
        } catch (UnsatisfiedLinkError e) {
            IllegalStateException ex = cannotLoad(file, what, hint, e);
            if (quietFailure != null) {
                ex.addSuppressed(quietFailure);
            }
            throw ex;
        }
    }

    /** The UnsatisfiedLinkError among the causes of a failure of the quiet path, or null. */
    private static UnsatisfiedLinkError linkError(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnsatisfiedLinkError u) {
                return u;
            }
        }
        return null;
    }

    /** "cannot load WHAT: the loader's words (without the path it repeats); what to do". */
    private static IllegalStateException cannotLoad(Path file, String what, Hint hint, UnsatisfiedLinkError e) {
        String message = String.valueOf(e.getMessage()).replace(file.toAbsolutePath() + ": ", "");
        boolean noexec = message.contains("failed to map segment") || message.contains("operation not permitted");
        String why = noexec ? "; its file system is probably mounted noexec: " + hint.noexec() : hint.other();
        return new IllegalStateException("cannot load " + what + ": " + message + why, e);
    }

    /** JDK 24+ warns on System.load unless native access is enabled for unnamed modules. */
    private static boolean wouldWarn() {
        if (Runtime.version().feature() < 24) {
            return false;
        }
        try {
            Method enabled = Module.class.getMethod("isNativeAccessEnabled");
            return !(Boolean) enabled.invoke(NativeLibraryLoader.class.getModule());
        } catch (ReflectiveOperationException e) {
            return true;
        }
    }

    private static void loadQuietly(Instrumentation inst, Path file) throws ReflectiveOperationException {
        URL codeSource = NativeLibraryLoader.class.getProtectionDomain().getCodeSource().getLocation();
        // A loader of its own: the trampoline's unnamed module is the only one java.lang opens to.
        @SuppressWarnings("resource") // stays open: the JVM may resolve the class again
        URLClassLoader isolated = new URLClassLoader(new URL[] {codeSource}, ClassLoader.getPlatformClassLoader());
        Class<?> trampoline = isolated.loadClass("dev.convoy.agent.internal.LibraryTrampoline");
        inst.redefineModule(Object.class.getModule(), Set.of(), Map.of(),
                Map.of("java.lang", Set.of(trampoline.getModule())), Set.of(), Map.of());
        trampoline.getMethod("load", Class.class, java.io.File.class)
                .invoke(null, NativeRecorder.class, file.toAbsolutePath().toFile());
    }
}
