package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class TimedWaitsTest {

    @Test
    void oneWaitTimesOutAndOneIsNotified() {
        TimedWaits.Result r = TimedWaits.create(10).run();
        assertTrue(r.timedOut());
        assertTrue(r.timeoutWaitCalls() >= 1);
        assertTrue(r.notified());
        assertTrue(r.notifiedWaitCalls() >= 1);
        assertEquals(List.of("timed-wait-timeout", "timed-wait-notified"), r.threadNames());
        assertEquals("dev.convoy.testapps.TimedWaits$TimeoutLock", r.timeoutLockClassName());
        assertEquals("dev.convoy.testapps.TimedWaits$NotifyLock", r.notifyLockClassName());
        assertTrue(r.ok(), r.summary());
    }
}
