package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.EventType;
import dev.convoy.model.Recording;
import dev.convoy.testapps.RecorderState;

/**
 * Where the agent's native library goes before it is loaded, with real JVMs and the real agent
 * jar on both JDKs: a library planted under any name the loader could use never runs, two users
 * sharing a temporary directory both record, and a temporary directory that is full, mounted
 * noexec or open to other users leaves the application running with the recorder off and one
 * line saying so.
 *
 * <p>The planted library is built here with gcc; its constructor, which runs as soon as
 * anything loads it, appends to a marker file. The tests that need a second user or a
 * mount run as root only, and are skipped with a message otherwise.
 */
class LibraryLoadingIT {

    /** The user the second JVM and the planted files belong to. */
    static final int NOBODY = 65534;
    static final long EXIT_TIMEOUT_SECONDS = 120;

    @TempDir
    static Path shared;

    @TempDir
    Path work;

    static Path planted;
    static Path marker;
    static String oldName;
    static long librarySize;

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.all();
    }

    /**
     * Builds the planted library, checks that its constructor does write the marker when it is
     * loaded (into this JVM, with a marker of its own), and works out the name the agent's
     * former loader gave the library in the temporary directory.
     */
    @BeforeAll
    static void plantedLibrary() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/gcc")), "gcc not found at /usr/bin/gcc: skipped (it builds"
                + " the library these tests plant)");
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (JarFile jar = new JarFile(ChildJvm.agentJar().toFile());
             InputStream in = jar.getInputStream(jar.getEntry("META-INF/native/linux-x86_64/libconvoy.so"))) {
            byte[] library = in.readAllBytes();
            librarySize = library.length;
            byte[] d = MessageDigest.getInstance("SHA-256").digest(library);
            oldName = "libconvoy-" + HexFormat.of().formatHex(d, 0, 8) + ".so";
        }
        marker = shared.resolve("planted-library-ran");
        planted = build(shared.resolve("planted.so"), marker);
        Path selfMarker = shared.resolve("self-check-ran");
        System.load(padded(build(shared.resolve("self-check.so"), selfMarker)).toString());
        assertTrue(Files.exists(selfMarker), "the planted library's constructor, padded, writes its marker when loaded");
    }

    /** Pads {@code so} with zeros to the size of the real library. */
    private static Path padded(Path so) throws IOException {
        long pad = librarySize - Files.size(so);
        assertTrue(pad >= 0, "the planted library is smaller than the real one");
        Files.write(so, new byte[(int) pad], StandardOpenOption.APPEND);
        return so;
    }

    private static Path build(Path so, Path markerFile) throws Exception {
        Path c = Files.writeString(so.resolveSibling(so.getFileName() + ".c"), """
                #include <stdio.h>
                __attribute__((constructor)) static void planted(void) {
                    FILE *f = fopen(MARKER, "a");
                    if (f) { fputs("planted library ran\\n", f); fclose(f); }
                }
                """);
        Process p = new ProcessBuilder("gcc", "-shared", "-fPIC", "-DMARKER=\"" + markerFile + "\"", "-o",
                so.toString(), c.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "gcc: " + out);
        return so;
    }

    private static boolean root() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
    }

    private static void chown(Path p, int uid) throws IOException {
        Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", uid, LinkOption.NOFOLLOW_LINKS);
    }

    private static int owner(Path p) {
        try {
            return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /**
     * Copies the planted library under each name into {@code dir}, as another user's files when
     * root, padded to the size of the real library (the only thing the agent's former loader
     * checked before it loaded a file of its name).
     */
    private static List<String> plant(Path dir, String... names) throws IOException {
        for (String n : names) {
            Path p = padded(Files.copy(planted, dir.resolve(n)));
            if (root()) {
                chown(p, NOBODY);
            }
        }
        return names(dir);
    }

    private static void assertNotRun() {
        assertFalse(Files.exists(marker), "a planted library ran inside a JVM with the agent");
    }

    /** The app ran to its end with the recorder on, and the recording holds its own wait. */
    private static void assertRecorded(ChildJvm.Result run) throws IOException {
        run.assertSucceeded();
        assertTrue(run.stdout().contains(RecorderState.PREFIX + "mbean=yes recording=true offReason=\n"), run::toString);
        assertTrue(run.stdout().contains(RecorderState.PREFIX + "snapshot ok"), run::toString);
        assertTrue(run.stdout().contains(RecorderState.DONE), run::toString);
        Recording r = run.recording();
        assertTrue(r.threads().stream().anyMatch(t -> t.events().stream().anyMatch(e -> e.type() == EventType.MONITOR_WAIT
                && r.objectClassName(e.obj()).equals(RecorderState.StateLock.class.getName()))),
                () -> "the app's wait was recorded: " + r.threads());
    }

    /**
     * The app ran to its end with the recorder off: exit 0, one line on stderr (and nothing
     * else there), the MBean registered and saying why, its operations refused with that reason,
     * nothing dumped.
     */
    private static String assertOff(ChildJvm.Result run, String reasonStart) throws IOException {
        run.assertSucceeded();
        assertTrue(run.stdout().contains(RecorderState.DONE), () -> "the application ran to its end: " + run);
        String err = run.stderr();
        assertTrue(err.startsWith("[convoy] recorder off: " + reasonStart), run::toString);
        assertEquals(1, err.lines().count(), () -> "one line on stderr: " + run);
        String reason = err.strip().substring("[convoy] recorder off: ".length());
        assertTrue(run.stdout().contains(RecorderState.PREFIX + "mbean=yes recording=false offReason=" + reason + "\n"),
                run::toString);
        assertTrue(run.stdout().contains(RecorderState.PREFIX + "snapshot refused: recorder off: " + reason + "\n"),
                run::toString);
        assertEquals(List.of(), names(run.dumpDir()).stream().filter(n -> n.startsWith("it")).toList(),
                "nothing dumped on exit");
        return reason;
    }

    private ChildJvm.Result run(Jdks.Jdk jdk, String... jvmArgs) throws IOException, InterruptedException {
        return ChildJvm.runWith(jdk, work, List.of(jvmArgs), ChildJvm.dumping(null), RecorderState.class.getName());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aLibraryPlantedInTheTemporaryDirectoryIsNeverLoaded(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path tmp = Files.createDirectory(work.resolve("tmp"));
        Files.setAttribute(tmp, "unix:mode", 01777);
        // the former loader's name, which it loaded when only the size matched; the name of the file
        // in the new loader's private directories; a directory and a link named like one of those.
        List<String> before = plant(tmp, oldName, oldName + ".tmp", "libconvoy.so");
        Files.createDirectory(tmp.resolve("convoy-0"));
        Files.copy(planted, tmp.resolve("convoy-0/libconvoy.so"));
        Files.createSymbolicLink(tmp.resolve("convoy-1"), tmp.resolve("convoy-0"));
        before = names(tmp);

        assertRecorded(run(jdk, "-Djava.io.tmpdir=" + tmp));
        assertRecorded(run(jdk, "-Dconvoy.tmpdir=" + tmp));
        assertNotRun();
        assertEquals(before, names(tmp), "nothing left behind, nothing changed");
        assertEquals(List.of("libconvoy.so"), names(tmp.resolve("convoy-0")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aTemporaryDirectoryAnotherUserCanChangeIsRefused(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path tmp = Files.createDirectory(work.resolve("tmp"));
        Files.setAttribute(tmp, "unix:mode", 01777);
        // -Dconvoy.tmpdir=tmp/lib names a directory that anyone could have made first
        Path lib = Files.createDirectory(tmp.resolve("lib"));
        List<String> before = plant(lib, oldName, "libconvoy.so");
        Files.setAttribute(lib, "unix:mode", 0777);
        if (root()) {
            chown(lib, NOBODY);
        }
        Path link = Files.createSymbolicLink(tmp.resolve("link"), lib);
        String why = root() ? lib + " belongs to uid " + NOBODY + ", neither this JVM's user (uid 0) nor root"
                : lib + " is writable by other users and has no sticky bit (mode 777)";
        for (Path base : List.of(lib, link)) {
            String reason = assertOff(run(jdk, "-Dconvoy.tmpdir=" + base),
                    "cannot extract the native library to " + base + ": ");
            assertTrue(reason.contains(why), reason);
        }
        assertNotRun();
        assertEquals(before, names(lib));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void twoUsersSharingATemporaryDirectoryBothRecord(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        assumeTrue(root(), "a second user's JVM needs root to start: skipped");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")),
                "setpriv (util-linux) not found at /usr/bin/setpriv: skipped");
        // Everything the second user's JVM reads must be readable by it: the work directory is made
        // traversable, the agent jar and the test apps are copied there.
        Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path jar = Files.copy(ChildJvm.agentJar(), work.resolve("convoy-agent.jar"));
        Path classes = copyTree(Path.of(ChildJvm.testAppsClasspath()), work.resolve("test-apps"));
        Path tmp = Files.createDirectory(work.resolve("tmp"));
        Files.setAttribute(tmp, "unix:mode", 01777);

        ChildJvm.Result first = launch(List.of(), jdk, jar, classes, work.resolve("root"), tmp);
        ChildJvm.Result second = launch(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY,
                "--clear-groups"), jdk, jar, classes, work.resolve("nobody"), tmp);
        assertRecorded(first);
        assertRecorded(second);
        try (Stream<Path> dumped = Files.list(second.dumpDir())) {
            assertEquals(List.of(NOBODY), dumped.map(LibraryLoadingIT::owner).toList(), "the second JVM ran as nobody");
        }
        ChildJvm.Result again = launch(List.of(), jdk, jar, classes, work.resolve("root-again"), tmp);
        assertRecorded(again);
        assertEquals(List.of(), names(tmp), "nothing left behind");
    }

    /** Runs RecorderState with java.io.tmpdir {@code tmp}, as whoever {@code prefix} makes it, in a new {@code dir}. */
    private static ChildJvm.Result launch(List<String> prefix, Jdks.Jdk jdk, Path jar, Path classpath, Path dir,
                                          Path tmp) throws IOException, InterruptedException {
        Files.createDirectory(dir);
        if (!prefix.isEmpty()) {
            chown(dir, NOBODY);
        }
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of(jdk.java().toString(), "-Xmx256m", "-javaagent:" + jar + "=" + ChildJvm.dumping(null),
                "-Djava.io.tmpdir=" + tmp, "-cp", classpath.toString(), RecorderState.class.getName()));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE)
                .redirectOutput(dir.resolveSibling(dir.getFileName() + ".out").toFile())
                .redirectError(dir.resolveSibling(dir.getFileName() + ".err").toFile()).start();
        p.getOutputStream().close();
        if (!p.waitFor(EXIT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("child JVM did not exit within " + EXIT_TIMEOUT_SECONDS + " s: " + cmd);
        }
        return new ChildJvm.Result(p.exitValue(), Files.readString(dir.resolveSibling(dir.getFileName() + ".out")),
                Files.readString(dir.resolveSibling(dir.getFileName() + ".err")), dir);
    }

    /** A copy of a class path entry (a jar or a directory) that every user can read. */
    private static Path copyTree(Path from, Path to) throws IOException {
        if (Files.isRegularFile(from)) {
            Path jar = Files.copy(from, to.resolveSibling(to.getFileName() + ".jar"));
            Files.setPosixFilePermissions(jar, PosixFilePermissions.fromString("rw-r--r--"));
            return jar;
        }
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                    Files.setPosixFilePermissions(target,
                            PosixFilePermissions.fromString("rwxr-xr-x"));
                } else {
                    Files.copy(p, target);
                    Files.setPosixFilePermissions(target,
                            PosixFilePermissions.fromString("rw-r--r--"));
                }
            }
        }
        return to;
    }

    /** Mounts a tmpfs with {@code options} at {@code dir}, or skips the test with the reason. */
    private static void mountTmpfs(Path dir, String options) throws IOException, InterruptedException {
        assumeTrue(root(), "mounting a tmpfs needs root: skipped");
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", options, "tmpfs", dir.toString())
                .redirectErrorStream(true).start();
        String out = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assumeTrue(mount.waitFor() == 0, () -> "cannot mount a tmpfs here (" + out.strip() + "): skipped");
    }

    private static void unmount(Path dir) throws IOException, InterruptedException {
        Process umount = new ProcessBuilder("umount", dir.toString()).redirectErrorStream(true).start();
        umount.getInputStream().readAllBytes();
        if (umount.waitFor() != 0) {
            new ProcessBuilder("umount", "-l", dir.toString()).start().waitFor();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aFullTemporaryDirectoryLeavesTheRecorderOffAndTheApplicationRunning(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path full = Files.createDirectory(work.resolve("full"));
        mountTmpfs(full, "size=64k,mode=1777");
        try {
            String reason = assertOff(run(jdk, "-Dconvoy.tmpdir=" + full),
                    "cannot extract the native library to " + full + ": ");
            assertTrue(reason.contains("No space left on device"), reason);
            assertTrue(reason.endsWith("; set -Dconvoy.tmpdir=DIR to a directory of yours with free space"), reason);
            assertEquals(List.of(), names(full), "nothing left behind in the full directory");
            assertRecorded(run(jdk, "-Dconvoy.tmpdir=" + work.resolve("lib")));
        } finally {
            unmount(full);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aTemporaryDirectoryMountedNoexecLeavesTheRecorderOffWithOneLine(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path noexec = Files.createDirectory(work.resolve("noexec"));
        mountTmpfs(noexec, "size=4m,mode=1777,noexec");
        try {
            String reason = assertOff(run(jdk, "-Dconvoy.tmpdir=" + noexec),
                    "cannot load the native library extracted to " + noexec + ": ");
            assertTrue(reason.endsWith("its file system is probably mounted noexec: set -Dconvoy.tmpdir=DIR to a"
                    + " directory on one that allows executables"), reason);
            assertEquals(List.of(), names(noexec), "nothing left behind");
        } finally {
            unmount(noexec);
        }
    }
}
