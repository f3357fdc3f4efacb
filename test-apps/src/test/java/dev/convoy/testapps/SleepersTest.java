package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class SleepersTest {

    @Test
    void everySleepCompletes() {
        Sleepers.Result r = Sleepers.create(2, 1, 3).run();
        assertEquals(6, r.sleepsCompleted());
        assertEquals(List.of("sleeper-0", "sleeper-1"), r.threadNames());
        assertTrue(r.ok(), r.summary());
    }
}
