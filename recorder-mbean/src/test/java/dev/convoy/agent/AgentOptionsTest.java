package dev.convoy.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Paths;
import java.util.EnumSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.convoy.export.Format;

class AgentOptionsTest {

    private static String error(String text) {
        return assertThrows(AgentOptions.InvalidOptionException.class, () -> AgentOptions.parse(text)).getMessage();
    }

    @Test
    void defaultsWorkWithoutOptions() {
        for (String text : new String[] {null, "", "  "}) {
            AgentOptions o = AgentOptions.parse(text);
            assertTrue(o.recording());
            assertEquals(64 << 10, o.bufferBytes());
            assertEquals(64L << 20, o.memoryCap());
            assertEquals(64, o.stackDepth());
            assertEquals(Paths.get("convoy-out"), o.dumpDir());
            assertTrue(o.dumpOnExit().isEmpty());
            assertFalse(o.emptyCallbacks());
            assertEquals("convoy-" + ProcessHandle.current().pid(), o.dumpName());
        }
    }

    @Test
    void everyOptionIsParsed() {
        AgentOptions o = AgentOptions.parse("recording=off,buffer=128k,memory=2G,stackdepth=0,dumpdir=/tmp/x,"
                + "dumponexit=chrome+csv,dumpname=run-1.a");
        assertFalse(o.recording());
        assertEquals(128 << 10, o.bufferBytes());
        assertEquals(2L << 30, o.memoryCap());
        assertEquals(0, o.stackDepth());
        assertEquals(Paths.get("/tmp/x"), o.dumpDir());
        assertEquals(EnumSet.of(Format.CHROME, Format.CSV), o.dumpOnExit());
        assertEquals("run-1.a", o.dumpName());
        assertEquals("recording=off,buffer=128k,memory=2g,stackdepth=0,dumpdir=/tmp/x,dumponexit=chrome+csv,"
                + "dumpname=run-1.a,callbacks=full,contanalysis=off", o.effective());
        assertTrue(AgentOptions.parse("callbacks=empty").emptyCallbacks());
        assertFalse(o.contentionAnalysis());
        assertTrue(AgentOptions.parse("contanalysis=on").contentionAnalysis());
        assertTrue(AgentOptions.parse("contanalysis=on").effective().endsWith(",contanalysis=on"));
        assertEquals(EnumSet.allOf(Format.class), AgentOptions.parse("dumponexit=all").dumpOnExit());
        assertTrue(AgentOptions.parse("dumponexit=none").dumpOnExit().isEmpty());
        assertEquals(4096, AgentOptions.parse("buffer=4096").bufferBytes());
    }

    @Test
    void unknownKeyListsTheAllowedOnes() {
        assertEquals("unknown option 'bufer'; allowed options: recording, buffer, memory, stackdepth, dumpdir, "
                + "dumponexit, dumpname, callbacks, contanalysis", error("bufer=64k"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "buffer=12x|option 'buffer': '12x' is not a size",
        "buffer=1k|option 'buffer': 1k is out of range (allowed 4k to 64m)",
        "memory=99999999999999g|option 'memory': '99999999999999g' is not a size",
        "memory=17g|option 'memory': 17g is out of range (allowed 1m to 16g)",
        "stackdepth=-1|option 'stackdepth': '-1' is not a whole number (allowed 0 to 2048)",
        "stackdepth=4096|option 'stackdepth': 4096 is out of range (allowed 0 to 2048)",
        "recording=maybe|option 'recording' must be on or off, got 'maybe'",
        "dumponexit=pdf|option 'dumponexit': unknown format 'pdf'",
        "dumpname=../x|option 'dumpname' must be a file name",
        "dumpdir=|option 'dumpdir' needs a directory",
        "callbacks=some|option 'callbacks' must be full or empty",
        "recording|option 'recording' has no value",
        "buffer=64k,,memory=1m|empty option",
        "buffer=64k,buffer=128k|option 'buffer' is given twice",
        "buffer=1m,memory=2m|option 'buffer' (1048576 bytes) must be at most a quarter of option 'memory'",
        "callbacks=empty,dumponexit=all|option 'dumponexit' needs a recording",
        "contanalysis=maybe|option 'contanalysis' must be on or off, got 'maybe'",
        "callbacks=empty,contanalysis=on|option 'contanalysis' needs a recording",
    })
    void malformedValuesNameTheOptionAndWhatIsAllowed(String text, String expected) {
        String message = error(text);
        assertTrue(message.startsWith(expected), () -> "message for '" + text + "': " + message);
    }
}
