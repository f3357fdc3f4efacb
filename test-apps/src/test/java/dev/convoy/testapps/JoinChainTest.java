package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class JoinChainTest {

    @Test
    void chainUnwindsInReverseStartOrder() {
        JoinChain.Result r = JoinChain.create(4).run();
        assertEquals(List.of("join-0", "join-1", "join-2", "join-3"), r.startOrder());
        assertEquals(List.of("join-3", "join-2", "join-1", "join-0"), r.terminationOrder());
        assertEquals(3, r.joinsObserved());
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void lengthOneHasNoJoins() {
        JoinChain.Result r = JoinChain.create(1).run();
        assertEquals(List.of("join-0"), r.terminationOrder());
        assertEquals(0, r.joinsObserved());
        assertTrue(r.ok(), r.summary());
    }
}
