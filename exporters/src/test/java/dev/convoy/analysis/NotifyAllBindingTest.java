package dev.convoy.analysis;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.convoy.analysis.Interactions.Interaction;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.RecordingBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A notifyAll wakes every thread waiting when it is made: a wait binds to the first
 * NOTIFY_ALL at or after its MONITOR_WAIT, not to a later one made while it was still
 * re-acquiring the monitor (the bounded buffer: a producer puts and notifies all, another
 * consumer takes the item first and notifies all, then the woken consumer gets the lock).
 * Found by GroundTruthIT on ProducerConsumer.
 */
class NotifyAllBindingTest {

    static List<String> wakes(RecordingBuilder b) throws Exception {
        Recording r = SnapshotReader.read(b.toBytes());
        return Interactions.of(r).all().stream().filter(i -> i.kind() != Interactions.Kind.START)
                .map(NotifyAllBindingTest::fmt).toList();
    }

    static String fmt(Interaction i) {
        return i.kind() + " " + i.from().name() + "@" + (i.fromNs() - T0) / 1000 + " -> " + i.to().name();
    }

    RecordingBuilder buffer(long secondNotifyKind) {
        RecordingBuilder b = base();
        b.thread(R_H1, 20, O_H1, "producer").span(t(1), 0)
                .event(t(200), EVENT_NOTIFY_ALL, S_RUN, M1, 0);
        b.thread(R_H2, 21, O_H2, "consumer-0").span(t(1), 0)
                .event(t(100), EVENT_MONITOR_WAIT, S_WAIT, M1, 0)
                .event(t(300), EVENT_MONITOR_WAITED, 0, 0, M1, 0, 0);
        b.thread(R_H3, 22, O_H3, "consumer-1").span(t(1), 0)
                .event(t(250), (int) secondNotifyKind, S_RUN, M1, 0);
        return b;
    }

    @Test
    void theFirstNotifyAllAfterTheWaitWokeIt() throws Exception {
        assertEquals(List.of("NOTIFY_ALL producer@200 -> consumer-0"), wakes(buffer(EVENT_NOTIFY_ALL)));
    }

    @Test
    void aNotifyAfterThatNotifyAllDidNotWakeIt() throws Exception {
        assertEquals(List.of("NOTIFY_ALL producer@200 -> consumer-0"), wakes(buffer(EVENT_NOTIFY)));
    }
}
