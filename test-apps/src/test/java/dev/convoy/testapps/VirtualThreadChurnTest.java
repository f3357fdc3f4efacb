package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class VirtualThreadChurnTest {

    @Test
    @Timeout(60)
    void everyVirtualThreadWaitsOnceThenThePlatformThreadDoes() {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21+: skipped on " + Runtime.version());
        VirtualThreadChurn.Result r = VirtualThreadChurn.create(120).run();
        assertTrue(r.ok(), r.summary());
        assertEquals(120, r.waitsDone());
    }

    @Test
    void saysSoOnAJdkWithoutVirtualThreads() {
        assumeTrue(Runtime.version().feature() < 21, "this JDK has virtual threads");
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> VirtualThreadChurn.create(1).run());
        assertTrue(e.getMessage().contains("JDK 21"), e.getMessage());
    }

    @Test
    void rejectsZeroThreads() {
        assertThrows(IllegalArgumentException.class, () -> VirtualThreadChurn.create(0));
    }
}
