package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class DeadlockTest {

    @Test
    void bothThreadsEndUpBlockedOnEachOthersLock() {
        Deadlock.Result r = Deadlock.create().run();
        assertEquals(List.of("deadlock-A", "deadlock-B"), r.threadNames());
        assertTrue(r.aBlockedOnB());
        assertTrue(r.bBlockedOnA());
        assertTrue(r.jvmDetected());
        assertEquals("dev.convoy.testapps.Deadlock$LockA", r.lockAClassName());
        assertEquals("dev.convoy.testapps.Deadlock$LockB", r.lockBClassName());
        assertTrue(r.ok(), r.summary());
    }

    @Test
    void mainPrintsMarkerThenSummary() {
        List<String> lines = runMain(new String[0], new byte[0]);
        assertEquals(2, lines.size(), lines.toString());
        assertEquals("DEADLOCKED", lines.get(0));
        assertTrue(lines.get(1).startsWith("deadlock OK "), lines.get(1));
    }

    @Test
    void holdUntilStdinEofEndsWhenStdinIsClosed() {
        // stdin already at EOF, so the hold ends at once even with a long cap
        List<String> lines = runMain(new String[] {"--hold-until-stdin-eof", "--hold-ms=60000"}, "bye\n".getBytes());
        assertEquals(List.of("DEADLOCKED", lines.get(1), "HOLD-RELEASED"), lines);
    }

    @Test
    void holdMsEnds() {
        List<String> lines = runMain(new String[] {"--hold-ms=1"}, new byte[0]);
        assertEquals("HOLD-RELEASED", lines.get(lines.size() - 1));
    }

    @Test
    void badHoldArgumentIsAUsageError() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = Deadlock.runMain(new String[] {"--hold-ms=abc"}, new PrintStream(out, true),
                new ByteArrayInputStream(new byte[0]));
        assertEquals(2, code);
    }

    private static List<String> runMain(String[] args, byte[] stdin) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = Deadlock.runMain(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new ByteArrayInputStream(stdin));
        assertEquals(0, code, out.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }
}
