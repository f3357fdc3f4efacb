package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class HandoffChainTest {

    @Test
    void lockIsHandedOverInOrderAndEveryHandoffIsContended() throws InterruptedException {
        HandoffChain.Result r = HandoffChain.create(4).run();
        assertEquals(List.of("handoff-0", "handoff-1", "handoff-2", "handoff-3"), r.acquisitionOrder());
        assertEquals(4, r.contendedHandoffs());
        assertEquals("dev.convoy.testapps.HandoffChain$HandoffLock", r.lockClassName());
        assertTrue(r.ok(), r.summary());
    }
}
