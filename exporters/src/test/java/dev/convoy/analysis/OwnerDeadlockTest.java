package dev.convoy.analysis;

import static dev.convoy.analysis.OwnerSamplesTest.aux;
import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.convoy.export.Output;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.report.ContentionReport;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.RecordingBuilder;
import java.io.ByteArrayOutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A deadlock seen from the owner's side: a blocked on M1 held by b (from 100 us), b blocked on M2
 * held by a (from 120 us), both still blocked at the snapshot, each block sampled. Every chain
 * stops at the repeat and says deadlock: the owner-side chain, {@link Chains}, the report and
 * the Chrome trace's args.
 */
public class OwnerDeadlockTest {

    public static Recording deadlock() throws Exception {
        RecordingBuilder b = base();
        b.thread(R_MAIN, 1, O_MAIN, "a").span(T0, 0)
                .event(t(100), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, 2)
                .event(t(200), EVENT_OWNER_SAMPLE, FLAG_FRAME_EXACT, aux(OSTATE_BLOCKED, 0), S_RUN, M1, 2, M2);
        b.thread(R_W1, 2, O_W1, "b").span(T0, 0)
                .event(t(120), EVENT_MONITOR_ENTER, FLAG_OWNER, S_WAIT, M2, 0, 1)
                .event(t(220), EVENT_OWNER_SAMPLE, FLAG_FRAME_EXACT, aux(OSTATE_BLOCKED, 0), S_RUN, M2, 1, M1);
        b.monitor(R_MAIN, MSTATE_BLOCKED, M1, 0xAAAA0001, 2);
        b.monitor(R_W1, MSTATE_BLOCKED, M2, 0xAAAA0002, 1);
        return SnapshotReader.read(b.toBytes());
    }

    @Test
    void theOwnerChainStopsAtTheRepeat() throws Exception {
        Recording r = deadlock();
        OwnerSamples os = ContentionIndex.of(r).ownerSamples();
        OwnerSamples.Sample a = os.all().stream().filter(s -> s.blocked().name().equals("a")).findFirst().orElseThrow();
        List<OwnerSamples.Link> chain = os.chain(a, 4);
        assertEquals(1, chain.size(), chain.toString());
        assertEquals("b", chain.get(0).thread().name());
        assertEquals("a", chain.get(0).holder().name());
        assertTrue(chain.get(0).deadlock());
    }

    @Test
    void chainsStopAtTheRepeatAndSayDeadlock() throws Exception {
        List<Chains.Chain> all = Chains.all(deadlock());
        assertEquals(2, all.size(), all.toString());
        for (Chains.Chain c : all) {
            assertEquals(2, c.threads().size(), c.toString());
            assertTrue(c.deadlock());
            assertEquals(0, c.cycle(), "back to the head");
        }
        assertEquals(List.of("a", "b"), all.get(0).threads().stream().map(RecordedThread::name).toList());
    }

    @Test
    void theReportSaysDeadlockOnceAround() throws Exception {
        String text = ContentionReport.of(deadlock()).text();
        assertTrue(text.contains("  a: blocked 9.900 ms on java.lang.Object@aaaa0001, held by b in "
                + "com.example.Worker.run(Worker, Inc.java:14), itself blocked on com.example.Lock@aaaa0002, held by a: "
                + "deadlock\n"), text);
        assertFalse(text.contains("itself blocked on java.lang.Object@aaaa0001, held by b in"),
                "not round the cycle again: " + text);
        assertTrue(text.matches("(?s).*\n  (java\\.lang\\.Object -> com\\.example\\.Lock +a -> b -> a \\(deadlock\\)"
                + "|com\\.example\\.Lock -> java\\.lang\\.Object +b -> a -> b \\(deadlock\\)) .*"), text);
    }

    @Test
    void chromeArgsSayDeadlock() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Output.CHROME.write(deadlock(), out);
        JsonNode trace = new ObjectMapper().readTree(out.toByteArray());
        int withSample = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            JsonNode args = e.path("args");
            if (args.has("owner_sampled")) {
                withSample++;
                assertTrue(args.path("owner_deadlock").asBoolean(), args.toString());
            }
        }
        assertEquals(2, withSample);
    }
}
