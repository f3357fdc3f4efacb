package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class NotifyAllHerdTest {

    @Test
    void oneNotifyAllWakesTheWholeHerd() {
        NotifyAllHerd.Result r = NotifyAllHerd.create(5).run();
        assertEquals(5, r.waitingBeforeNotify());
        assertEquals(5, r.woken());
        assertEquals(1, r.notifyAllCalls());
        assertTrue(r.waitCalls() >= 5);
        assertEquals(5, r.threadNames().size());
        assertEquals("herd-0", r.threadNames().get(0));
        assertEquals("herd-4", r.threadNames().get(4));
        assertEquals("dev.convoy.testapps.NotifyAllHerd$HerdLock", r.lockClassName());
        assertTrue(r.ok(), r.summary());
    }
}
