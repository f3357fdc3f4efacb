package dev.convoy.testapps.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.util.List;

import org.junit.jupiter.api.Test;

class SoakRunnerTest {

    static final long MIB = 1024 * 1024;

    final List<SoakRunner.Sample> samples = List.of(
            SoakRunner.Sample.parse("0.000,1048576,8388608,0,0,3,0,0,0,0,0,0,1000,4194304,0"),
            SoakRunner.Sample.parse("60.000,8388608,8388608,600000,0,40,0,0,5000,10000,0,100,4194304,4194304,16777216"),
            SoakRunner.Sample.parse("120.000,8000000,8388608,1200000,2,41,7,1,10000,20000,5,300000,4000000,4194304,15000000"));
    final List<SoakRunner.Dump> dumps = List.of(SoakRunner.Dump.parse("30.000,90.5,3.0,80.2,600000,2000000,0"),
            SoakRunner.Dump.parse("60.000,120.0,4.0,70.0,700000,2100000,0"));

    @Test
    void theTableSaysWhatTheRunShowed() {
        String t = SoakRunner.table(samples, dumps, "memory=8m", 2, "17", "| repository read back | x |\n");
        assertTrue(t.contains("| memory cap | 8.0 MiB |"), t);
        assertTrue(t.contains("| memory in use, largest sample | 8.00 MiB (100 % of the cap) |"), t);
        assertTrue(t.contains("| samples above the cap | 0 |"), t);
        assertTrue(t.contains("| events recorded | 1,200,000 (10000 per second) |"), t);
        assertTrue(t.contains("| objects dropped (object table full) | 7 |"), t);
        assertTrue(t.contains("| snapshot: longest, largest | 120 ms, 0.67 MiB |"), t);
        assertTrue(t.contains("| Chrome dump: longest | 80 ms |"), t);
        assertTrue(t.contains("| history in memory, largest sample | 4.00 MiB of maxsize 4.00 MiB |"), t);
        assertTrue(t.contains("| events overwritten in rings, aged out of the history | 5, 300,000 |"), t);
        assertTrue(t.contains("| repository on disk, largest sample | 16.00 MiB (4.0 × maxsize) |"), t);
        assertTrue(t.contains("| repository read back | x |"), t);
    }

    @Test
    void aSampleAboveTheCapIsCounted() {
        List<SoakRunner.Sample> over = List.of(SoakRunner.Sample.parse("1.0,9000000,8388608,1,0,1,0,0,0,0,0,0,0,4194304,0"));
        assertTrue(SoakRunner.table(over, List.of(), "memory=8m", 1, "25", "").contains("| samples above the cap | 1 |"));
    }

    @Test
    void malformedLinesAreRefusedAndTheChartIsDrawn() {
        assertThrows(IllegalArgumentException.class, () -> SoakRunner.Sample.parse("1,2,3"));
        assertThrows(IllegalArgumentException.class, () -> SoakRunner.Dump.parse("1,2"));
        BufferedImage img = SoakRunner.render(samples, "t");
        assertEquals(900, img.getWidth());
        assertEquals("0.167", SoakRunner.number(1 / 6.0));
        assertEquals("8.8", SoakRunner.number(8.8));
        assertEquals("1200", SoakRunner.number(1200));
    }
}
