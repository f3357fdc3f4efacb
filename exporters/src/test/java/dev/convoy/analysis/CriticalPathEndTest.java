package dev.convoy.analysis;

import static dev.convoy.snapshot.SnapshotFormat.EVENT_THREAD_END;
import static dev.convoy.snapshot.SnapshotFormat.EVENT_THREAD_START;
import static dev.convoy.snapshot.SnapshotFormat.RING_ENDED;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.convoy.testing.RecordingBuilder;
import org.junit.jupiter.api.Test;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;

/** The recording's work ends with the application, not with the JVM's exit threads. */
class CriticalPathEndTest {

    @Test
    void shutdownHooksAndSystemThreadsDoNotEndThePath() throws Exception {
        RecordingBuilder b = base();
        b.thread(R_MAIN, 1, O_MAIN, "main").span(T0, t(1000)).flags(RING_ENDED).group("main", "system")
                .event(T0, EVENT_THREAD_START, 0, O_MAIN, 1).event(t(1000), EVENT_THREAD_END, 0, O_MAIN, 1);
        b.thread(R_W1, 12, O_W1, "worker-1").span(t(10), t(900)).flags(RING_ENDED).group("main", "system")
                .event(t(10), EVENT_THREAD_START, 0, O_W1, 12).event(t(900), EVENT_THREAD_END, 0, O_W1, 12);
        b.thread(R_H1, 20, O_H1, "shutdown-hook").span(t(1100), t(1200)).flags(RING_ENDED).group("main", "system")
                .event(t(1100), EVENT_THREAD_START, 0, O_H1, 20).event(t(1200), EVENT_THREAD_END, 0, O_H1, 20);
        b.thread(R_H2, 21, O_H2, "Reference Handler").span(t(5), t(1300)).flags(RING_ENDED).group("system", "")
                .event(t(1300), EVENT_THREAD_END, 0, O_H2, 21);
        Recording r = SnapshotReader.read(b.toBytes());
        CriticalPath path = CriticalPath.of(r);
        assertEquals(t(1000), path.endNs(), "ends where main ended");
        assertEquals("main", path.segments().get(path.segments().size() - 1).thread().name());
    }
}
