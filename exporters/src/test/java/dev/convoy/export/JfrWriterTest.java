package dev.convoy.export;

import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.JfrCheck;
import dev.convoy.testing.SyntheticRecordings;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import dev.convoy.analysis.ContentionIndex;
import dev.convoy.analysis.Interval;
import dev.convoy.analysis.IntervalCursor;
import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.model.RecordedThread;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JFR output read back with the JDK's {@code jdk.jfr.consumer}, event by event against the CSV event log. */
class JfrWriterTest {

    @TempDir
    Path dir;

    static Recording read(byte[] bytes) throws Exception {
        return SnapshotReader.read(bytes);
    }

    void sameAsCsv(Recording r) throws Exception {
        Path jfr = dir.resolve("r.jfr");
        Output.write(r, Set.of(Output.JFR), jfr);
        Output.write(r, Output.select("csv-ext"), dir.resolve("r.csv"));
        assertEquals(Set.of(), JfrCheck.sharedHashThreads(dir.resolve("r.meta.csv"), dir.resolve("r.events-ext.csv")));
        List<String> csv = JfrCheck.csvLines(dir.resolve("r.meta.csv"), dir.resolve("r.events-ext.csv"));
        List<String> fromJfr = JfrCheck.jfrLines(jfr, r.startEpochNs());
        assertFalse(csv.isEmpty());
        java.nio.file.Files.write(dir.resolve("csv.txt"), csv);
        java.nio.file.Files.write(dir.resolve("jfr.txt"), fromJfr);
        if (!csv.equals(fromJfr)) {
            java.nio.file.Files.write(Path.of("target", "jfr-vs-csv.txt"),
                    List.of(String.join("\n", csv), "----", String.join("\n", fromJfr)));
        }
        assertEquals(String.join("\n", csv), String.join("\n", fromJfr));
    }

    @Test
    void everyFixtureEventAsInTheCsv() throws Exception {
        sameAsCsv(read(Fixtures.all().toBytes()));
    }

    @Test
    void parksAsInTheCsv() throws Exception {
        sameAsCsv(read(Fixtures.parks(Fixtures.base()).toBytes()));
    }

    @Test
    void syntheticAsInTheCsv() throws Exception {
        sameAsCsv(read(SyntheticRecordings.synthetic(20_000, 8, 4, 7).toBytes()));
    }

    List<RecordedEvent> jfrEvents(Recording r, String type) throws Exception {
        Path jfr = dir.resolve("e.jfr");
        Output.write(r, Set.of(Output.JFR), jfr);
        return RecordingFile.readAllEvents(jfr).stream().filter(e -> e.getEventType().getName().equals(type)).toList();
    }

    /**
     * {@code previousOwner} is the JDK's: the thread that released the monitor to the entering
     * thread, where Convoy's releaser is exact (an exact handoff), absent otherwise; the owner at
     * the enter is Convoy's {@code ownerAtEnter} with {@code ownerAtEnterKind} (exact, none,
     * inferred; absent when unknown). This fixture's releasers are all inferred (an exact owner
     * is no exact releaser); {@code MonitorReleaserTest} has the exact ones.
     */
    @Test
    void previousOwnerIsTheExactReleaserAndTheOwnerAtEnterHasAFieldOfItsOwn() throws Exception {
        Recording r = MonitorOwnerFormatsTest.read();
        ContentionIndex x = ContentionIndex.of(r);
        Map<String, String> releasers = new java.util.TreeMap<>(); // thread@startNs -> exact releaser
        for (MonitorOwnership.Handoff h : MonitorOwnership.of(r).handoffs()) {
            if (h.exact() && !h.blocked().isPark()) {
                releasers.put(h.to().displayName() + "@" + (h.blocked().startNs() - r.startMonotonicNs()),
                        h.from().displayName());
            }
        }
        Map<String, String> expected = new java.util.TreeMap<>(); // thread@startNs -> "owner kind releaser"
        for (int k = 0; k < x.rings(); k++) {
            IntervalCursor g = x.intervals(k);
            for (int iv = 0; iv < g.count(); iv++) {
                if (g.select(iv).kind() != Interval.Kind.BLOCKED || g.isPark() || x.thread(k).isSystem()) {
                    continue;
                }
                RecordedThread o = g.owner();
                MonitorOwnership.Source src = g.ownerSource();
                long id = src == null ? 0 : g.ownerJavaId();
                String name = o != null ? o.displayName() : id > 0 ? "thread " + id : null;
                String kind = src == null ? null : src == MonitorOwnership.Source.NONE ? "none"
                        : src.exact() ? "exact" : "inferred";
                String at = x.thread(k).displayName() + "@" + (g.startNs() - r.startMonotonicNs());
                expected.put(at, name + " " + kind + " " + releasers.get(at));
            }
        }
        assertTrue(expected.values().stream().anyMatch(v -> v.contains(" exact "))
                        && expected.values().stream().anyMatch(v -> v.contains(" inferred "))
                        && expected.values().stream().anyMatch(v -> v.contains(" none "))
                        && expected.values().stream().anyMatch(v -> v.startsWith("null null")),
                "the fixture has exact, inferred, no and unknown owners: " + expected);
        Map<String, String> got = new java.util.TreeMap<>();
        java.time.Instant start = java.time.Instant.ofEpochSecond(0, r.startEpochNs());
        for (RecordedEvent e : jfrEvents(r, "jdk.JavaMonitorEnter")) {
            jdk.jfr.consumer.RecordedThread o = e.getThread("ownerAtEnter");
            jdk.jfr.consumer.RecordedThread p = e.getThread("previousOwner");
            got.put(e.getThread().getJavaName() + "@" + java.time.Duration.between(start, e.getStartTime()).toNanos(),
                    (o == null ? null : o.getJavaName()) + " " + e.getString("ownerAtEnterKind") + " "
                            + (p == null ? null : p.getJavaName()));
        }
        assertEquals(expected, got);
    }

    @Test
    void virtualThreadsSayVirtualWithTheirCarrier() throws Exception {
        Recording r = VirtualThreadNamesTest.recording();
        List<RecordedEvent> enters = jfrEvents(r, "jdk.JavaMonitorEnter");
        assertEquals(2, enters.size());
        for (RecordedEvent e : enters) {
            assertTrue(e.getThread().getBoolean("virtual"), e.toString());
        }
        RecordedEvent v1 = enters.stream().filter(e -> e.getThread().getJavaThreadId() == 77).findFirst().orElseThrow();
        assertEquals("virtual thread 77", v1.getThread().getJavaName());
        assertEquals("ForkJoinPool-1-worker-1", v1.getThread("carrier").getJavaName());
        assertFalse(v1.getThread("carrier").getBoolean("virtual"));
        RecordedEvent v2 = enters.stream().filter(e -> e.getThread().getJavaThreadId() == 78).findFirst().orElseThrow();
        assertEquals("worker-v (virtual)", v2.getThread().getJavaName());
        assertEquals(null, v2.getThread("carrier"), "its ENTERED names no carrier");
    }

    @Test
    void criticalPathSegmentsAsTheAnalysis() throws Exception {
        Recording r = read(Fixtures.all().toBytes());
        dev.convoy.analysis.PathCursor path = ContentionIndex.of(r).path();
        assertTrue(path.count() > 1, "the fixture has a critical path");
        java.time.Instant start = java.time.Instant.ofEpochSecond(0, r.startEpochNs());
        List<String> expected = new java.util.ArrayList<>();
        for (int s = 0; s < path.count(); s++) {
            path.select(s);
            expected.add(path.thread().displayName() + " " + path.state() + " " + (path.startNs() - r.startMonotonicNs())
                    + "+" + Math.max(0, path.endNs() - path.startNs()));
        }
        List<String> got = new java.util.ArrayList<>();
        for (RecordedEvent e : jfrEvents(r, "dev.convoy.CriticalPath")) {
            got.add(e.getThread().getJavaName() + " " + e.getString("state") + " "
                    + java.time.Duration.between(start, e.getStartTime()).toNanos() + "+" + e.getDuration().toNanos());
        }
        expected.sort(null);
        got.sort(null);
        assertEquals(expected, got);
    }

    @Test
    void notifierOfAWaitAndWhatANotifyWoke() throws Exception {
        dev.convoy.testing.RecordingBuilder b = Fixtures.base();
        b.thread(Fixtures.R_H1, 20, Fixtures.O_H1, "producer").span(Fixtures.t(1), 0)
                .event(Fixtures.t(200), dev.convoy.snapshot.SnapshotFormat.EVENT_NOTIFY_ALL, Fixtures.S_RUN, Fixtures.M1, 0);
        b.thread(Fixtures.R_H2, 21, Fixtures.O_H2, "consumer").span(Fixtures.t(1), 0)
                .event(Fixtures.t(100), dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_WAIT, Fixtures.S_WAIT, Fixtures.M1, 0)
                .event(Fixtures.t(300), dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_WAITED, 0, 0, Fixtures.M1, 0, 0);
        Recording r = read(b.toBytes());
        List<RecordedEvent> waits = jfrEvents(r, "jdk.JavaMonitorWait");
        assertEquals(1, waits.size());
        assertEquals("producer", waits.get(0).getThread("notifier").getJavaName());
        assertFalse(waits.get(0).getBoolean("timedOut"));
        List<RecordedEvent> notifies = jfrEvents(r, "dev.convoy.Notify");
        assertEquals(1, notifies.size());
        assertTrue(notifies.get(0).getBoolean("all"));
        assertEquals(1, notifies.get(0).getInt("woken"));
    }
}
