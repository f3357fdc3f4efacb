package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class LongThreadNamesTest {

    @Test
    @Timeout(60)
    void oneThreadEndsAndOneStaysWaiting() throws Exception {
        LongThreadNames.Result r = LongThreadNames.create(4096).run();
        assertTrue(r.ok(), r.summary());
        String name = LongThreadNames.name(LongThreadNames.LIVE_PREFIX, 4096);
        assertEquals(4096, name.length());
        assertTrue(Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name)));
    }

    @Test
    void rejectsANameShorterThanItsPrefix() {
        assertThrows(IllegalArgumentException.class, () -> LongThreadNames.create(3));
    }
}
