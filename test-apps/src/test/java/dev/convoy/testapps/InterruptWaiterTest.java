package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class InterruptWaiterTest {

    @Test
    void interruptEndsTheUntimedWait() {
        InterruptWaiter.Result r = InterruptWaiter.create().run();
        assertEquals("interrupt-waiter", r.threadName());
        assertTrue(r.gotInterruptedException());
        assertTrue(r.waitCalls() >= 1);
        assertEquals("dev.convoy.testapps.InterruptWaiter$InterruptLock", r.lockClassName());
        assertTrue(r.ok(), r.summary());
    }
}
