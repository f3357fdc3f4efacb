package dev.convoy.analysis;

import static org.junit.jupiter.api.Assertions.*;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LongMapTest {

    @Test
    void behavesLikeHashMapUnderRandomOperations() {
        SplittableRandom rnd = new SplittableRandom(3);
        LongMap<String> m = new LongMap<>();
        Map<Long, String> ref = new HashMap<>();
        for (int i = 0; i < 200_000; i++) {
            // few distinct keys with colliding low bits, so probe runs and deletions interleave
            long k = (rnd.nextInt(300) << 20) | (rnd.nextBoolean() ? 0 : Long.MIN_VALUE);
            switch (rnd.nextInt(3)) {
                case 0 -> {
                    String v = "v" + i;
                    m.put(k, v);
                    ref.put(k, v);
                }
                case 1 -> assertEquals(ref.remove(k), m.remove(k));
                default -> assertEquals(ref.get(k), m.get(k));
            }
        }
        for (long k : ref.keySet()) {
            assertEquals(ref.get(k), m.get(k));
        }
    }
}
