package dev.convoy.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.convoy.model.Frame;
import dev.convoy.model.LineEntry;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;

/** The caller of a stack skips the JDK and Convoy's probes, never the application. */
class CallerTest {

    @Test
    void aWaitThroughTheProbesIsCalledFromTheApplication() throws Exception {
        long object = 300, probes = 301, app = 302;
        long wait = 0x7F00_0000_9000L, probeWait = 0x7F00_0000_9100L, run = 0x7F00_0000_9200L;
        Recording r = SnapshotReader.read(Fixtures.base()
                .clazz(object, "Ljava/lang/Object;", "Object.java")
                .clazz(probes, "Ldev/convoy/probes/Probes;", "Probes.java")
                .clazz(app, "Lcom/example/Consumer;", "Consumer.java")
                .method(new MethodInfo(wait, object, "wait", "(J)V", false, List.of()))
                .method(MethodInfo.of(probeWait, probes, "wait", "(Ljava/lang/Object;J)V", new LineEntry(0, 80)))
                .method(MethodInfo.of(run, app, "take", "()V", new LineEntry(0, 12)))
                .stack(40, false, new Frame(wait, -1), new Frame(probeWait, 3), new Frame(run, 7))
                .stack(41, false, new Frame(wait, -1), new Frame(probeWait, 3))
                .toBytes());
        assertEquals("com.example.Consumer.take", MonitorStatistics.caller(r, 40));
        assertEquals("java.lang.Object.wait", MonitorStatistics.caller(r, 41), "all skipped: the top frame");
    }
}
