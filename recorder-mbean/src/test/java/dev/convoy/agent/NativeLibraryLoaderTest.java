package dev.convoy.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checks the loader makes before it writes the library anywhere, and the private copy
 * itself: what it refuses, and that it leaves nothing behind.
 */
class NativeLibraryLoaderTest {

    /** Under java.io.tmpdir (sticky, root's), mode 0700: a safe base. */
    @TempDir
    Path work;

    int uid;

    @BeforeEach
    void ownUid() throws IOException {
        uid = NativeLibraryLoader.ownUid();
    }

    private static void mode(Path p, String perms) throws IOException {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(perms));
    }

    private static int modeBits(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private String refusal(Path base) {
        return assertThrows(NativeLibraryLoader.UnsafeDirectoryException.class,
                () -> NativeLibraryLoader.safeBase(base, uid)).getMessage();
    }

    @Test
    void aDirectoryOthersCanWriteWithoutStickyBitIsRefused() throws IOException {
        Path open = Files.createDirectory(work.resolve("open"));
        mode(open, "rwxrwxrwx");
        assertEquals(open + " is writable by other users and has no sticky bit (mode 777)", refusal(open));
        mode(open, "rwxrwxr-x");
        assertEquals(open + " is writable by other users and has no sticky bit (mode 775)", refusal(open));
    }

    @Test
    void aStickyDirectoryOthersCanWriteIsAccepted() throws IOException {
        Path shared = Files.createDirectory(work.resolve("shared"));
        Files.setAttribute(shared, "unix:mode", 01777);
        assertEquals(01777, modeBits(shared));
        assertEquals(shared.toRealPath(), NativeLibraryLoader.safeBase(shared, uid));
    }

    @Test
    void aDirectoryBelowOneOthersCanWriteIsRefused() throws IOException {
        Path open = Files.createDirectory(work.resolve("open"));
        Path mine = Files.createDirectory(open.resolve("mine"));
        mode(mine, "rwx------");
        mode(open, "rwxrwxrwx");
        assertEquals(open + " is writable by other users and has no sticky bit (mode 777)", refusal(mine));
    }

    @Test
    void aMissingBaseIsCreatedForThisUserOnly() throws IOException {
        Path base = work.resolve("a/b/lib");
        Path real = NativeLibraryLoader.safeBase(base, uid);
        assertEquals(base.toRealPath(), real);
        assertEquals(0700, modeBits(base));
        assertEquals(0700, modeBits(work.resolve("a")));
    }

    @Test
    void aBaseOfAnotherUserIsRefusedAndSoIsALinkToIt() throws IOException {
        assumeTrue(uid == 0, "giving a directory to another user needs root; skipped");
        Path theirs = Files.createDirectory(work.resolve("theirs"));
        Files.setAttribute(theirs, "unix:uid", 65534);
        assertEquals(theirs + " belongs to uid 65534, neither this JVM's user (uid 0) nor root", refusal(theirs));
        Path link = Files.createSymbolicLink(work.resolve("link"), theirs);
        assertEquals(theirs + " belongs to uid 65534, neither this JVM's user (uid 0) nor root", refusal(link));
    }

    @Test
    void aPlainFileIsNotABase() throws IOException {
        Path file = Files.writeString(work.resolve("file"), "x");
        IOException e = assertThrows(IOException.class, () -> NativeLibraryLoader.safeBase(file, uid));
        assertEquals("not a directory", e.getMessage());
        IllegalStateException ex = assertThrows(IllegalStateException.class,
                () -> NativeLibraryLoader.PrivateCopy.extract(file, new byte[] {1}));
        assertEquals("cannot extract the native library to " + file + ": not a directory; set -Dconvoy.tmpdir=DIR"
                + " to a directory of yours with free space", ex.getMessage());
    }

    @Test
    void theCopyIsPrivateExactAndGoneOnClose() throws IOException {
        Path base = Files.createDirectory(work.resolve("base"));
        Files.setAttribute(base, "unix:mode", 01777);
        byte[] bytes = "not really a library".getBytes();
        Path planted = Files.writeString(base.resolve(NativeLibraryLoader.FILE_NAME), "planted");
        try (NativeLibraryLoader.PrivateCopy copy = NativeLibraryLoader.PrivateCopy.extract(base, bytes)) {
            Path dir = copy.directory();
            assertEquals(base.toRealPath(), dir.getParent());
            assertTrue(dir.getFileName().toString().startsWith(NativeLibraryLoader.DIRECTORY_PREFIX), dir::toString);
            assertEquals(0700, modeBits(dir));
            assertEquals(dir.resolve(NativeLibraryLoader.FILE_NAME), copy.file());
            assertEquals(0500, modeBits(copy.file()));
            assertEquals(uid, Files.getAttribute(copy.file(), "unix:uid", LinkOption.NOFOLLOW_LINKS));
            assertArrayEquals(bytes, Files.readAllBytes(copy.file()));
        }
        assertEquals(List.of(NativeLibraryLoader.FILE_NAME), names(base), "the private directory is gone");
        assertEquals("planted", Files.readString(planted), "a file under the library's name is never touched");
    }

    @Test
    void eachCopyHasADirectoryOfItsOwn() throws IOException {
        try (var a = NativeLibraryLoader.PrivateCopy.extract(work, new byte[] {1});
             var b = NativeLibraryLoader.PrivateCopy.extract(work, new byte[] {2})) {
            assertFalse(a.directory().equals(b.directory()));
            assertEquals(2, names(work).size());
        }
        assertEquals(List.of(), names(work));
    }

    @Test
    void aRefusedBaseIsLeftAsItWas() throws IOException {
        Path open = Files.createDirectory(work.resolve("open"));
        mode(open, "rwxrwxrwx");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> NativeLibraryLoader.PrivateCopy.extract(open, new byte[] {1}));
        assertEquals("cannot extract the native library to " + open + ": " + open + " is writable by other users and"
                + " has no sticky bit (mode 777); set -Dconvoy.tmpdir=DIR to a directory that only you (or root) can"
                + " write", e.getMessage());
        assertEquals(List.of(), names(open));
    }

    @Test
    void theFileSystemUidIsTheFourthOfTheUidLine() throws IOException {
        assertEquals(1003, NativeLibraryLoader.fsUid(List.of("Name:\tjava", "Uid:\t1000\t1001\t1002\t1003",
                "Gid:\t5\t5\t5\t5")));
        assertThrows(IOException.class, () -> NativeLibraryLoader.fsUid(Set.of("Name:\tjava")));
    }
}
