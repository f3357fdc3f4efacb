package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ThreadChurnTest {

    @Test
    @Timeout(60)
    void threadsRunOneAfterAnotherAndEachWaitsOnce() {
        ThreadChurn.Result r = ThreadChurn.create(12).run();
        assertTrue(r.ok(), r.summary());
        assertEquals(12, r.waitsDone());
        assertEquals(IntStream.range(0, 12).mapToObj(i -> ThreadChurn.THREAD_PREFIX + i).toList(), r.threadNames());
    }

    @Test
    void rejectsZeroThreads() {
        assertThrows(IllegalArgumentException.class, () -> ThreadChurn.create(0));
    }
}
