package dev.convoy.analysis;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.model.Recording;
import dev.convoy.report.ContentionReport;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.RecordingBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The owner's side of blocks (OWNER_SAMPLE) on a hand-built chain: buyer blocked on M1 (100..500 us)
 * held by restocker, itself blocked on M2 (50..450 us) held by keeper, asleep. Each block has a
 * sample; two more samples belong to no block (one with no begin before it, one taken after its
 * block ended).
 */
public class OwnerSamplesTest {

    public static int aux(int state, int frame) {
        return (frame + 1) | state << OWNER_STATE_SHIFT;
    }

    public static Recording chain() throws Exception {
        RecordingBuilder b = base();
        b.thread(R_MAIN, 1, O_MAIN, "buyer").span(T0, 0)
                .event(t(100), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, 2)
                .event(t(150), EVENT_OWNER_SAMPLE, FLAG_FRAME_EXACT, aux(OSTATE_BLOCKED, 1), S_WAIT, M1, 2, M2)
                .event(t(500), EVENT_MONITOR_ENTERED, 0, 0, M1, 0, 0);
        b.thread(R_W1, 2, O_W1, "restocker").span(T0, 0)
                .event(t(50), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M2, 0, 3)
                .event(t(120), EVENT_OWNER_SAMPLE, 0, aux(OSTATE_SLEEPING, 0), S_RUN, M2, 3, 0)
                .event(t(450), EVENT_MONITOR_ENTERED, 0, 0, M2, 0, 0);
        b.thread(R_WAITER, 3, O_WAITER, "keeper").span(T0, 0);
        b.thread(R_H1, 4, O_H1, "stray").span(T0, 0)
                .event(t(10), EVENT_OWNER_SAMPLE, 0, aux(OSTATE_RUNNING, -1), 0, M3, 3, 0)   // no block
                .event(t(20), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M3, 0, 3)
                .event(t(30), EVENT_MONITOR_ENTERED, 0, 0, M3, 0, 0)
                .event(t(40), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M3, 0, 3)
                .event(t(60), EVENT_OWNER_SAMPLE, 0, aux(OSTATE_RUNNING, -1), 0, M3, 3, 0)
                .event(t(50), EVENT_MONITOR_ENTERED, 0, 0, M3, 0, 0);   // ended before the sample
        return SnapshotReader.read(b.toBytes());
    }

    @Test
    void samplesAttachToTheirBlocksAndChainThroughTheOwners() throws Exception {
        Recording r = chain();
        ContentionIndex x = ContentionIndex.of(r);
        OwnerSamples os = x.ownerSamples();
        assertEquals(2, os.all().size(), os.all().toString());
        assertEquals(2, os.unattached());
        OwnerSamples.Sample buyer = os.all().stream().filter(s -> s.blocked().name().equals("buyer")).findFirst()
                .orElseThrow();
        assertEquals(M1, buyer.monitor());
        assertEquals("restocker", buyer.ownerName());
        assertEquals(OwnerSamples.State.BLOCKED, buyer.state());
        assertEquals(M2, buyer.on());
        assertEquals(1, buyer.frame());
        assertTrue(buyer.frameExact());
        assertFalse(buyer.lock());
        assertEquals("com.example.Worker.run(Worker, Inc.java:11)", r.describe(buyer.holdingFrame(r)));
        assertSame(buyer, os.of(buyer.ring(), buyer.interval()));
        OwnerSamples.Sample restocker = os.of(x.ring(r.threads().get(1)), 0);
        assertEquals(OwnerSamples.State.SLEEPING, restocker.state());
        assertFalse(restocker.frameExact());

        List<OwnerSamples.Link> chain = os.chain(buyer, 4);
        assertEquals(2, chain.size(), chain.toString());
        assertEquals("restocker", chain.get(0).thread().name());
        assertEquals(M2, chain.get(0).on());
        assertEquals("keeper", chain.get(0).holder().name());
        assertSame(restocker, chain.get(0).sample());
        assertEquals("keeper", chain.get(1).thread().name());
        assertEquals(0, chain.get(1).on());
        assertNull(chain.get(1).sample());
    }

    @Test
    void theReportListsTheLongBlocksWithTheOwnersSide() throws Exception {
        String text = ContentionReport.of(chain()).text();
        assertTrue(text.contains("Long blocks: the owner's side:"), text);
        assertTrue(text.contains("  buyer: blocked 400.0 us on java.lang.Object@aaaa0001, held by restocker in "
                + "com.example.Worker.run(Worker, Inc.java:11), itself blocked on com.example.Lock@aaaa0002, held by "
                + "keeper in com.example.Worker.run(Worker, Inc.java:14) (probably), sleeping\n"), text);
        assertTrue(text.contains("  restocker: blocked 400.0 us on com.example.Lock@aaaa0002, held by keeper in "
                + "com.example.Worker.run(Worker, Inc.java:14) (probably), sleeping\n"), text);
        String md = ContentionReport.of(chain()).markdown();
        assertTrue(md.contains("\n- buyer: blocked 400.0 us on java.lang.Object@aaaa0001, held by restocker"), md);
    }

    @Test
    void noSamplesNoSection() throws Exception {
        RecordingBuilder b = base();
        b.thread(R_MAIN, 1, O_MAIN, "main").span(T0, 0)
                .event(t(100), EVENT_MONITOR_ENTER, FLAG_OWNER, S_RUN, M1, 0, 2)
                .event(t(500), EVENT_MONITOR_ENTERED, 0, 0, M1, 0, 0);
        Recording r = SnapshotReader.read(b.toBytes());
        assertTrue(ContentionIndex.of(r).ownerSamples().all().isEmpty());
        assertFalse(ContentionReport.of(r).text().contains("owner's side"));
    }
}
