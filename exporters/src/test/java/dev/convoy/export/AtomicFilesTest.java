package dev.convoy.export;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {

    @TempDir
    Path dir;

    List<String> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    static AtomicFiles.Content text(String s) {
        return os -> os.write(s.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The longest name written is the longest whose temporary name still fits a file system's 255
     * bytes, even with the largest pid and random part; one byte more is refused with the limit
     * named, before anything is written.
     */
    @Test
    void aNameWhoseTemporaryNameWouldNotFitIsRefusedNamingTheLimit() throws Exception {
        assertEquals(221, AtomicFiles.MAX_NAME_BYTES);
        String longest = "n".repeat(AtomicFiles.MAX_NAME_BYTES - ".json".length()) + ".json";
        assertEquals(List.of(dir.resolve(longest)), AtomicFiles.write(Map.of(dir.resolve(longest), text("ok"))));
        assertEquals("ok", Files.readString(dir.resolve(longest)));
        String tempOfLongest = "." + longest + ".convoy-" + (1 << 22) + "-" + Long.toString(Long.MAX_VALUE, 36) + ".tmp";
        assertEquals(255, tempOfLongest.length(), "the largest temporary name is a file system's largest");
        String tooLong = "n" + longest;
        IOException e = assertThrows(IOException.class, () -> AtomicFiles.write(dir.resolve(tooLong), text("no")));
        assertTrue(e.getMessage().startsWith("the file name 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...' has 222 "
                + "bytes; Convoy writes file names of at most 221 bytes"), e.getMessage());
        assertEquals(List.of(longest), files(), "nothing else written");
        // Bytes, not characters: 111 two-byte characters are 222 bytes.
        assertThrows(IllegalArgumentException.class, () -> AtomicFiles.checkName("\u00e9".repeat(111)));
        AtomicFiles.checkName("\u00e9".repeat(110));
        // The paths of a selection, before any work: several outputs add their suffixes.
        int longestSuffix = java.util.Arrays.stream(Output.values()).mapToInt(o -> o.suffix().length()).max().orElseThrow();
        String base = "b".repeat(AtomicFiles.MAX_NAME_BYTES - longestSuffix);
        Output.checkFileNames(java.util.EnumSet.allOf(Output.class), dir.resolve(base));
        assertThrows(IllegalArgumentException.class,
                () -> Output.checkFileNames(java.util.EnumSet.allOf(Output.class), dir.resolve(base + "b")));
        Output.checkFileNames(java.util.EnumSet.of(Output.JFR), dir.resolve(base + "b"));
    }

    /** A pid no process has: above the kernel's pid_max (at most 2^22). */
    static final long DEAD_PID = (1L << 22) + 12345;

    @Test
    void staleTemporaryFilesOfEndedProcessesAreRemovedOthersKept() throws Exception {
        Path mine = dir.resolve(".x.json.convoy-" + DEAD_PID + "-abc.tmp");
        Path live = dir.resolve(".x.json.convoy-" + ProcessHandle.current().pid() + "-def.tmp");
        Path parent = dir.resolve(".x.json.convoy-1-ghi.tmp"); // pid 1 is alive
        Path other = dir.resolve(".y.json.convoy-" + DEAD_PID + "-jkl.tmp");
        Path notOurs = dir.resolve(".x.json.12345.tmp");
        for (Path p : List.of(mine, live, parent, other, notOurs)) {
            Files.writeString(p, "half");
        }
        AtomicFiles.write(dir.resolve("x.json"), text("{}"));
        assertEquals(List.of(".x.json.12345.tmp", ".x.json.convoy-1-ghi.tmp",
                ".x.json.convoy-" + ProcessHandle.current().pid() + "-def.tmp",
                ".y.json.convoy-" + DEAD_PID + "-jkl.tmp", "x.json"), files(),
                "only the dead process's temporary file of the name written is removed");
        AtomicFiles.removeStaleTemporaryFiles(dir);
        assertFalse(Files.exists(other), "a sweep of the directory removes every dead process's");
        assertTrue(Files.exists(live) && Files.exists(parent) && Files.exists(notOurs));
    }

    @Test
    void aGroupReplacesTheOldGroupWholeAndKeepsItWhenWritingFails() throws Exception {
        Path meta = dir.resolve("a.meta.csv");
        Path events = dir.resolve("a.events.csv");
        Map<Path, AtomicFiles.Content> first = new LinkedHashMap<>();
        first.put(meta, text("meta1"));
        first.put(events, text("events1"));
        assertEquals(List.of(meta, events), AtomicFiles.write(first));
        Map<Path, AtomicFiles.Content> failing = new LinkedHashMap<>();
        failing.put(meta, text("meta2"));
        failing.put(events, os -> {
            throw new IOException("disk full");
        });
        assertThrows(IOException.class, () -> AtomicFiles.write(failing));
        assertEquals("meta1", Files.readString(meta));
        assertEquals("events1", Files.readString(events));
        Map<Path, AtomicFiles.Content> second = new LinkedHashMap<>();
        second.put(meta, text("meta2"));
        second.put(events, text("events2"));
        AtomicFiles.write(second);
        assertEquals("meta2", Files.readString(meta));
        assertEquals("events2", Files.readString(events));
        assertEquals(List.of("a.events.csv", "a.meta.csv"), files());
    }

    @Test
    void filesAreReadableByAllAndGroupsShareADirectory() throws Exception {
        Path f = AtomicFiles.write(dir.resolve("sub/d/r.txt"), text("x"));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        Map<Path, AtomicFiles.Content> split = new LinkedHashMap<>();
        split.put(dir.resolve("a.txt"), text("a"));
        split.put(dir.resolve("sub/b.txt"), text("b"));
        assertThrows(IllegalArgumentException.class, () -> AtomicFiles.write(split));
    }

    @Test
    void aLinkInPlaceOfTheTemporaryFileIsNeverFollowed() throws Exception {
        Path target = Files.writeString(dir.resolve("victim"), "keep");
        assertThrows(IllegalArgumentException.class, () -> AtomicFiles.writeIn(dir, Map.of("../x", text("no"))));
        assertThrows(IllegalArgumentException.class, () -> AtomicFiles.writeIn(dir, Map.of("a/b", text("no"))));
        // the destination itself a link: it is replaced by the file, the link's target untouched
        Files.createSymbolicLink(dir.resolve("out.json"), target);
        AtomicFiles.writeIn(dir, Map.of("out.json", text("new")));
        assertFalse(Files.isSymbolicLink(dir.resolve("out.json")));
        assertEquals("new", Files.readString(dir.resolve("out.json")));
        assertEquals("keep", Files.readString(target));
    }
}
