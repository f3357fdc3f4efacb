package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ProducerConsumerTest {

    @Test
    void allItemsProducedAndConsumedExactlyOnce() {
        ProducerConsumer.Result r = ProducerConsumer.create(3, 2, 1_001, 4).run();
        assertEquals(1_001, r.produced());
        assertEquals(1_001, r.consumed());
        assertEquals(1_001L * 1_000 / 2, r.producedSum()); // values 0..K-1
        assertEquals(r.producedSum(), r.consumedSum());
        assertEquals(1_001, r.consumedPerConsumer().stream().mapToInt(Integer::intValue).sum());
        assertTrue(r.consumerWaits() >= 2, "every consumer waited on the empty buffer first");
        assertEquals(List.of("producer-0", "producer-1", "producer-2"), r.producerNames());
        assertEquals(List.of("consumer-0", "consumer-1"), r.consumerNames());
        assertEquals("dev.convoy.testapps.ProducerConsumer$BufferLock", r.lockClassName());
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void capacityOneSingleItem() {
        ProducerConsumer.Result r = ProducerConsumer.create(1, 3, 1, 1).run();
        assertEquals(1, r.consumed());
        assertTrue(r.consumerWaits() >= 3);
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void rejectsBadArguments() {
        assertThrows(IllegalArgumentException.class, () -> ProducerConsumer.create(0, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> ProducerConsumer.create(1, 1, 1, 0));
    }
}
