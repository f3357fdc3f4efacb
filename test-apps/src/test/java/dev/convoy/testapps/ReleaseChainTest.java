package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ReleaseChainTest {

    /** Every acquisition's releaser is another chain thread or the starter; together they form one chain. */
    private static void checkChain(ReleaseChain.Result r, int handoffs) {
        assertTrue(r.ok(), r.summary());
        int total = r.releasers().stream().mapToInt(List::size).sum();
        assertTrue(total >= handoffs, r.summary());
        long starter = Thread.currentThread().getId();
        long fromStarter = r.releasers().stream().flatMap(List::stream).filter(id -> id == starter).count();
        assertEquals(1, fromStarter, "the starter releases the lock once");
        for (List<Long> rs : r.releasers()) {
            assertTrue(rs.stream().allMatch(id -> id == starter || r.ids().contains(id)), r.summary());
        }
    }

    @Test
    @Timeout(120)
    void everyAcquisitionNamesTheThreadThatHeldTheLockBefore() throws InterruptedException {
        ReleaseChain.Result r = ReleaseChain.create(3, 200, "off", 0).run();
        checkChain(r, 200);
        assertEquals(4, r.summary().lines().count());
        assertTrue(r.summary().lines().skip(1).allMatch(l -> l.startsWith("release-chain OK thread=chain-")),
                r.summary());
    }

    @Test
    @Timeout(120)
    void recordingsFlipUntilEnoughWereStartedAndStopped() throws InterruptedException {
        ReleaseChain.Result r = ReleaseChain.create(2, 20, "flip", 5).run();
        checkChain(r, 20);
        assertTrue(r.flips() >= 5, r.summary());
    }

    @Test
    void rejectsOneThreadAndUnknownJfrModes() {
        assertThrows(IllegalArgumentException.class, () -> ReleaseChain.create(1, 1, "off", 0));
        assertThrows(IllegalArgumentException.class, () -> ReleaseChain.create(2, 1, "sometimes", 0));
    }
}
