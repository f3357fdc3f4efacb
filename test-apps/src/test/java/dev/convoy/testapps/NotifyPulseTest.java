package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class NotifyPulseTest {

    @Test
    void pulsesTheGivenNumberOfNotifies() {
        NotifyPulse.Result r = NotifyPulse.create(20, 0).run();
        assertEquals(20, r.pulses());
        assertEquals(20, r.notifies());
        assertEquals("notify-pulse", r.threadName());
        assertEquals("dev.convoy.testapps.NotifyPulse$PulseLock", r.lockClassName());
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void pulsesUntilStdinEof() throws Exception {
        PipedOutputStream feed = new PipedOutputStream();
        PipedInputStream in = new PipedInputStream(feed);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        Thread closer = new Thread(() -> {
            Threads.require(() -> out.toString(StandardCharsets.UTF_8).contains(NotifyPulse.MARKER), "marker");
            try {
                feed.close();
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        });
        closer.start();
        NotifyPulse.Result r = NotifyPulse.runUntilEof(in, print, 1);
        closer.join();
        assertTrue(r.pulses() >= 1 && r.notifies() == r.pulses(), r.summary());
        assertTrue(r.ok(), r.summary());
        assertEquals(NotifyPulse.MARKER, out.toString(StandardCharsets.UTF_8).lines().findFirst().orElseThrow());
    }
}
