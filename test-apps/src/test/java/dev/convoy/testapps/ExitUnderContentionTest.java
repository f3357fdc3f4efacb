package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ExitUnderContentionTest {

    @Test
    @Timeout(60)
    void racersAllAcquireTheMonitorBeforeRunReturns() {
        ExitUnderContention scenario = ExitUnderContention.create(3);
        ExitUnderContention.Result r = scenario.run();
        scenario.stop();
        assertTrue(r.ok(), r.summary());
        assertTrue(r.acquisitionsBeforeExit() >= 3, r.summary());
        assertTrue(r.threadNames().stream().allMatch(n -> n.startsWith(ExitUnderContention.THREAD_PREFIX)));
    }

    @Test
    void needsTwoThreads() {
        assertThrows(IllegalArgumentException.class, () -> ExitUnderContention.create(1));
    }
}
