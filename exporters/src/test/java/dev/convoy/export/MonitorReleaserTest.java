package dev.convoy.export;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import com.fasterxml.jackson.databind.JsonNode;
import dev.convoy.analysis.Interactions;
import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.analysis.MonitorOwnership.Handoff;
import dev.convoy.model.Recording;
import dev.convoy.report.ContentionReport;
import dev.convoy.schema.ChromeTraceChecker;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.OwnerConsistency;
import dev.convoy.testing.RecordingBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The releaser of a monitor handoff the VM recorded (FLAG_RELEASER on MONITOR_ENTERED, format
 * 1.4) is exact, in the analysis and in every format that writes a releaser; without it (or when
 * it names the entering thread itself) the releaser is inferred as before; a recorded releaser no
 * ring has gives no handoff.
 *
 * <p>The recording: a (Java id 11) blocks on M1 and gets it at 6 µs; t (14) blocks on M1 at 10 µs
 * and gets it at 20 µs. The inference names a, the last thread known to hold M1. b (12) never
 * blocks on M1 before t gets it: it took M1 without contention after a let go (it barged), which
 * JVMTI does not report, and released it to t; the VM recorded b.
 */
class MonitorReleaserTest {

    static final long A = 11, B = 12, T = 14;

    @TempDir
    Path dir;

    /** The recording above; t's MONITOR_ENTERED has {@code flags} and {@code arg}; {@code b} adds b's records. */
    static RecordingBuilder recording(int flags, long arg,
                                      java.util.function.Consumer<RecordingBuilder.ThreadBuilder> b) {
        RecordingBuilder r = Fixtures.base();
        r.thread(1, A, O_MAIN, "a").span(t(0), 0)
                .event(t(5), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(6), EVENT_MONITOR_ENTERED, 0, M1, 0);
        RecordingBuilder.ThreadBuilder tb = r.thread(2, B, O_W1, "b").span(t(0), 0);
        b.accept(tb);
        r.thread(4, T, O_H1, "t").span(t(0), 0)
                .event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(20), EVENT_MONITOR_ENTERED, flags, 0, M1, arg, 0);
        return r;
    }

    static RecordingBuilder recording(int flags, long arg) {
        return recording(flags, arg, b -> {
        });
    }

    static Recording read(RecordingBuilder b) throws Exception {
        return SnapshotReader.read(b.toBytes());
    }

    static Handoff onlyHandoff(Recording r) {
        List<Handoff> hs = MonitorOwnership.of(r).handoffs();
        assertEquals(1, hs.size(), hs::toString);
        return hs.get(0);
    }

    /** The args of Chrome's "monitor acquired" instants: "by by_tid by_exact". */
    List<String> acquired(Recording r) throws Exception {
        Path out = dir.resolve("o.json");
        Output.write(r, Set.of(Output.CHROME), out);
        return ChromeTraceChecker.check(out).stream().filter(e -> e.path("name").asText().equals("monitor acquired"))
                .map(e -> e.path("args"))
                .map(a -> a.path("by").asText() + " " + a.path("by_tid").asLong() + " " + a.path("by_exact"))
                .toList();
    }

    /** The dev.convoy.Interaction events of kind HANDOFF of the JFR output: "thread exact". */
    List<String> jfrHandoffs(Recording r) throws Exception {
        Path out = dir.resolve("o.jfr");
        Output.write(r, Set.of(Output.JFR), out);
        return RecordingFile.readAllEvents(out).stream()
                .filter(e -> e.getEventType().getName().equals("dev.convoy.Interaction")
                        && e.getString("kind").equals("HANDOFF"))
                .map((RecordedEvent e) -> e.getThread("eventThread").getJavaName() + " " + e.getBoolean("exact"))
                .toList();
    }

    /** The JDK's previousOwner of t's jdk.JavaMonitorEnter: the exact releaser, else null. */
    String jfrPreviousOwner(Recording r) throws Exception {
        Path out = dir.resolve("p.jfr");
        Output.write(r, Set.of(Output.JFR), out);
        List<RecordedEvent> enters = RecordingFile.readAllEvents(out).stream()
                .filter(e -> e.getEventType().getName().equals("jdk.JavaMonitorEnter")
                        && e.getThread().getJavaName().equals("t"))
                .toList();
        assertEquals(1, enters.size(), enters::toString);
        jdk.jfr.consumer.RecordedThread p = enters.get(0).getThread("previousOwner");
        return p == null ? null : p.getJavaName();
    }

    static String report(Recording r) {
        return ContentionReport.of(r).text();
    }

    @Test
    void aRecordedReleaserThatBargedIsExactInEveryFormat() throws Exception {
        Recording r = read(recording(FLAG_RELEASER, B));
        Handoff h = onlyHandoff(r);
        assertEquals("b", h.from().name());
        assertEquals("t", h.to().name());
        assertTrue(h.exact(), h::toString);
        assertEquals(t(20), h.releaseNs(), "b is not the known last holder: it let go by the acquisition");
        Interactions.Interaction i = Interactions.of(r).of(Interactions.Kind.HANDOFF).get(0);
        assertTrue(i.exact());
        assertEquals(List.of("b " + B + " true"), acquired(r));
        assertEquals(List.of("b true"), jfrHandoffs(r));
        assertEquals("b", jfrPreviousOwner(r), "JFR's previousOwner: the releaser the VM recorded");
        String text = report(r);
        assertTrue(text.lines().anyMatch(l -> l.matches("\\s+t\\s+b\\s+lock held\\s+1\\s+.*")), text);
        assertFalse(text.contains("(inferred)"), text);
        OwnerConsistency.Result c = OwnerConsistency.check(r);
        assertEquals(List.of(), c.impossible(), c::toString);
        assertEquals(1, c.exactReleasers());
    }

    @Test
    void withoutTheFlagAVersion13FileInfersTheReleaserAsBefore() throws Exception {
        Recording r = read(recording(0, 0).version(1, 3));
        assertEquals(3, r.versionMinor());
        Handoff h = onlyHandoff(r);
        assertEquals("a", h.from().name(), "the last thread known to hold M1");
        assertFalse(h.exact());
        assertEquals(t(20), h.releaseNs());
        assertEquals(List.of("a " + A + " false"), acquired(r));
        assertEquals(List.of("a false"), jfrHandoffs(r));
        assertNull(jfrPreviousOwner(r), "an inferred releaser is not JFR's previousOwner");
        String text = report(r);
        assertTrue(text.lines().anyMatch(l -> l.matches("\\s+t\\s+a\\s+lock held \\(inferred\\)\\s+1\\s+.*")), text);
        OwnerConsistency.Result c = OwnerConsistency.check(r);
        assertEquals(List.of(), c.impossible(), c::toString);
        assertEquals(0, c.exactReleasers());
    }

    @Test
    void aRecordedReleaserNamingTheEnteringThreadIsStaleAndTheReleaserInferred() throws Exception {
        Recording r = read(recording(FLAG_RELEASER, T));
        Handoff h = onlyHandoff(r);
        assertEquals("a", h.from().name());
        assertFalse(h.exact());
        assertEquals(List.of("a " + A + " false"), acquired(r));
        assertNull(jfrPreviousOwner(r));
        assertTrue(report(r).contains("lock held (inferred)"), report(r));
    }

    @Test
    void aRecordedReleaserNoRingHasGivesNoHandoff() throws Exception {
        Recording r = read(recording(FLAG_RELEASER, 999));
        assertEquals(List.of(), MonitorOwnership.of(r).handoffs());
        assertEquals(List.of(), acquired(r));
        assertEquals(List.of(), jfrHandoffs(r));
        assertNull(jfrPreviousOwner(r));
        assertFalse(report(r).contains("lock held"), report(r));
    }

    @Test
    void aReleaserBlockedOnTheMonitorLetGoWhenItBlocked() throws Exception {
        // b blocks on M1 at 15 µs and gets it at 25 µs, after t: it held M1 before 15 µs
        Recording r = read(recording(FLAG_RELEASER, B, b -> b
                .event(t(15), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(25), EVENT_MONITOR_ENTERED, 0, M1, 0)));
        List<Handoff> hs = MonitorOwnership.of(r).handoffs();
        Handoff h = hs.stream().filter(x -> x.to().name().equals("t")).findFirst().orElseThrow();
        assertEquals("b", h.from().name());
        assertTrue(h.exact());
        assertEquals(t(15), h.releaseNs(), "not from inside its own blocked state");
        OwnerConsistency.Result c = OwnerConsistency.check(r);
        assertEquals(List.of(), c.inferred(), c::toString);
    }

    @Test
    void aReleaserWaitingOnTheMonitorLetGoWhenItsWaitBegan() throws Exception {
        // b waits on M1 from 8 µs (so it held it then), a gets it at 9 µs, t at 20 µs, and the VM names
        // b (stale, left by a fast exit of a's, but a stale record naming another thread is taken as
        // recorded): b's release is not drawn from inside its wait
        RecordingBuilder rb = Fixtures.base();
        rb.thread(1, A, O_MAIN, "a").span(t(0), 0)
                .event(t(5), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(9), EVENT_MONITOR_ENTERED, 0, M1, 0);
        rb.thread(2, B, O_W1, "b").span(t(0), 0)
                .event(t(8), EVENT_MONITOR_WAIT, S_WAIT, M1, 0);
        rb.thread(4, T, O_H1, "t").span(t(0), 0)
                .event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(20), EVENT_MONITOR_ENTERED, FLAG_RELEASER, 0, M1, B, 0);
        Recording r = read(rb);
        Handoff h = MonitorOwnership.of(r).handoffs().stream().filter(x -> x.to().name().equals("t")).findFirst()
                .orElseThrow();
        assertEquals("b", h.from().name());
        assertTrue(h.exact());
        assertEquals(t(8), h.releaseNs(), "not from inside its own wait");
        OwnerConsistency.Result c = OwnerConsistency.check(r);
        assertEquals(List.of(), c.inferred(), c::toString);
    }

    @Test
    void anEndedReleaserLetGoByItsEnd() throws Exception {
        Recording r = read(recording(FLAG_RELEASER, B, b -> b.event(t(18), EVENT_THREAD_END, 0, O_W1, B)));
        Handoff h = onlyHandoff(r);
        assertEquals("b", h.from().name());
        assertTrue(h.exact());
        assertEquals(t(18), h.releaseNs());
        assertEquals(List.of(), OwnerConsistency.check(r).impossible());
    }

    /**
     * a waits on M1 at 12 µs (it lets go then), t gets M1 at 20 µs, with FLAG_RELEASER naming a or
     * without; t ends last, so the critical path goes back from its end through the handoff.
     */
    static Recording lastHolderLetGo(int flags) throws Exception {
        RecordingBuilder rb = Fixtures.base();
        rb.thread(1, A, O_MAIN, "a").span(t(0), t(50)).flags(RING_ENDED)
                .event(t(5), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(6), EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(12), EVENT_MONITOR_WAIT, S_WAIT, M1, 0)
                .event(t(40), EVENT_MONITOR_WAITED, 0, 0, M1, 0, 0)
                .event(t(50), EVENT_THREAD_END, 0, O_MAIN, A);
        rb.thread(4, T, O_H1, "t").span(t(0), t(60)).flags(RING_ENDED)
                .event(t(10), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(20), EVENT_MONITOR_ENTERED, flags, 0, M1, flags == 0 ? 0 : A, 0)
                .event(t(60), EVENT_THREAD_END, 0, O_H1, T);
        return read(rb);
    }

    @Test
    void theKnownLastHolderThatLetGoReleasesAtItsRelease() throws Exception {
        Recording r = lastHolderLetGo(FLAG_RELEASER);
        Handoff h = onlyHandoff(r);
        assertEquals("a", h.from().name());
        assertTrue(h.exact());
        assertEquals(t(12), h.releaseNs());
        String text = report(r);
        assertTrue(text.lines().anyMatch(l -> l.endsWith("lock release by a")), text);
        assertFalse(text.contains("(inferred)"), text);
    }

    @Test
    void theCriticalPathSaysInferredOnlyForAnInferredReleaser() throws Exception {
        Recording r = lastHolderLetGo(0);
        Handoff h = onlyHandoff(r);
        assertEquals("a", h.from().name());
        assertFalse(h.exact());
        assertEquals(t(12), h.releaseNs());
        String text = report(r);
        assertTrue(text.lines().anyMatch(l -> l.endsWith("lock release by a (inferred)")), text);
    }
}
