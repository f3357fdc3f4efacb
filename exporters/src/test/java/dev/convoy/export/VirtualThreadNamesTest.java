package dev.convoy.export;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.report.ContentionReport;
import dev.convoy.testing.RecordingBuilder;

/** Every output names virtual threads (RING_VIRTUAL) as such; platform threads keep their names. */
class VirtualThreadNamesTest {

    static final long R_V1 = 300, R_V2 = 301, R_CARRIER = 302;

    /** Two virtual threads blocked on M1: one unnamed (Java id 77), one named "worker-v". */
    static Recording recording() {
        RecordingBuilder b = base();
        b.thread(R_MAIN, 1, O_MAIN, "main").span(T0, 0)
                .event(T0, EVENT_THREAD_START, 0, O_MAIN, 1);
        b.thread(R_V1, 77, 0, "").span(t(10), t(900)).flags(RING_VIRTUAL | RING_ENDED).group("VirtualThreads", "")
                .event(t(10), EVENT_THREAD_START, 0, 0, 77)
                .event(t(100), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(400), EVENT_MONITOR_ENTERED, 0, 0, M1, 0, 30)
                .event(t(900), EVENT_THREAD_END, 0, 0, 77);
        b.thread(R_CARRIER, 30, 0, "ForkJoinPool-1-worker-1").span(t(5), 0)
                .event(t(5), EVENT_THREAD_START, 0, 0, 30);
        b.thread(R_V2, 78, 0, "worker-v").span(t(20), 0).flags(RING_VIRTUAL).group("VirtualThreads", "")
                .event(t(20), EVENT_THREAD_START, 0, 0, 78)
                .event(t(120), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                .event(t(500), EVENT_MONITOR_ENTERED, 0, M1, 0);
        return b.build();
    }

    static String write(Output o, Recording r) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        o.write(r, out);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void labelsSayVirtual() {
        Recording r = recording();
        RecordedThread v1 = r.threadByRingId(R_V1).orElseThrow();
        RecordedThread v2 = r.threadByRingId(R_V2).orElseThrow();
        assertTrue(v1.isVirtual() && v2.isVirtual());
        assertEquals("virtual thread 77", v1.label());
        assertEquals("worker-v (virtual)", v2.label());
        assertEquals("worker-v", v2.name(), "the name itself is kept");
        RecordedThread main = r.threadByRingId(R_MAIN).orElseThrow();
        assertEquals("main", main.label());
        assertEquals("main", main.displayName());
    }

    @Test
    void everyOutputNamesThem() throws Exception {
        Recording r = recording();
        String chrome = write(Output.CHROME, r);
        assertTrue(chrome.contains("\"name\":\"virtual thread 77\""), chrome);
        assertTrue(chrome.contains("\"name\":\"worker-v (virtual)\""), chrome);
        assertTrue(chrome.contains("\"carrier\":\"ForkJoinPool-1-worker-1\",\"carrier_tid\":30"),
                "the block of virtual thread 77 names the carrier its ENTERED names: " + chrome);
        String tptp = write(Output.TPTP, r);
        assertTrue(tptp.contains("threadName=\"virtual thread 77\""), tptp);
        assertTrue(tptp.contains("threadName=\"worker-v (virtual)\""), tptp);
        String csv = write(Output.CSV_META, r) + write(Output.CSV_EVENTS, r);
        assertTrue(csv.contains("ThreadStarted") && csv.contains("virtual thread 77"), csv);
        assertTrue(csv.contains("worker-v (virtual)"), csv);
        String report = ContentionReport.of(r).render(ContentionReport.Style.TEXT);
        assertTrue(report.contains("virtual thread 77") && report.contains("worker-v (virtual)"), report);
    }
}
