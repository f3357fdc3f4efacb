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
    }
}
