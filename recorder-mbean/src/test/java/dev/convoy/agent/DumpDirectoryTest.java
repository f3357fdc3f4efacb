package dev.convoy.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

class DumpDirectoryTest {

    final DumpDirectory d = new DumpDirectory(Path.of("/var/dumps"));

    private String refusal(String requested) {
        return assertThrows(IllegalArgumentException.class, () -> d.components(requested)).getMessage();
    }

    @Test
    void pathsInsideAreSplitIntoFoldersAndName() {
        assertEquals(List.of("x.json"), d.components("x.json"));
        assertEquals(List.of("a", "b", "x.json"), d.components("a/./b//x.json"));
        assertEquals(List.of("b", "x.json"), d.components("a/../b/x.json"));
        assertEquals(List.of("sub", "x.json"), d.components("/var/dumps/sub/x.json"));
    }

    @Test
    void pathsOutsideOrOddAreRefused() {
        assertTrue(refusal("../x").contains("outside the dump directory"));
        assertTrue(refusal("a/../../x").contains("outside the dump directory"));
        assertTrue(refusal("/etc/passwd").contains("outside the dump directory"));
        assertTrue(refusal("/var/dumps").contains("outside the dump directory"));
        assertTrue(refusal("a/..").contains("outside the dump directory"));
        assertTrue(refusal(" ").contains("empty"));
        assertTrue(refusal(null).contains("empty"));
        assertTrue(refusal("x\n.json").contains("control character (U+000A)"));
        assertTrue(refusal("x\u007f").contains("control character (U+007F)"));
        assertTrue(refusal("x\0y").contains("control character (U+0000)"));
        assertTrue(refusal("f".repeat(256) + "/x.json").contains("a folder name has at most 255"), refusal("f".repeat(256) + "/x"));
    }

    /** A name Convoy cannot write is refused before any work, naming the limit; several outputs add suffixes. */
    @Test
    void namesTooLongToWriteAreRefusedBeforeAnyWork() {
        java.util.Set<dev.convoy.export.Output> chrome = java.util.Set.of(dev.convoy.export.Output.CHROME);
        String longest = "n".repeat(221 - ".json".length()) + ".json";
        d.check("sub/" + longest, chrome);
        String message = assertThrows(IllegalArgumentException.class, () -> d.check("sub/n" + longest, chrome))
                .getMessage();
        assertTrue(message.contains("has 222 bytes; Convoy writes file names of at most 221 bytes"), message);
        java.util.Set<dev.convoy.export.Output> csv = dev.convoy.export.Output.select("csv");
        String base = "c".repeat(221 - ".events.csv".length());
        d.check(base, csv);
        assertThrows(IllegalArgumentException.class, () -> d.check(base + "c", csv));
        assertThrows(IllegalArgumentException.class, () -> d.check("../" + base, csv), "the path checks come too");
    }
}
