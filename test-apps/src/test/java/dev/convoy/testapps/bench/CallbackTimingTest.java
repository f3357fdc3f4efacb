package dev.convoy.testapps.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Reading, merging and rendering the INFO keys of bench.timing=on; pure logic, no timing. */
class CallbackTimingTest {

    /** As native-recorder's timing_format writes them (its C test checks that side). */
    static final String WAIT = "events=4 ns=6000 max_ns=3000 gc=1 gc_max_ns=3000 p50_ns=1000 p99_ns=3000 "
            + "p999_ns=3000 stages=clock:4:200:60,thread:4:100:30,owner:0:0:0,object:4:400:120,walk:4:4800:2600,"
            + "intern:4:300:100,ring:4:200:60 slept=1 preempted=1 steady_p999_ns=1151 steady_max_ns=1151 "
            + "hist_ticks=1792-2047:2,2048-2303:1,5632-6143:1 steady_hist_ticks=1792-2047:2,2048-2303:1";
    static final String WAITED = "events=4 ns=800 max_ns=300 gc=0 gc_max_ns=0 p50_ns=200 p99_ns=300 p999_ns=300 "
            + "stages=clock:4:200:60,thread:4:100:30,owner:0:0:0,object:4:300:100,walk:0:0:0,intern:0:0:0,"
            + "ring:4:200:60 hist_ticks=352-383:2,384-415:1,576-639:1";

    static Map<String, String> info(String wait, String waited) {
        Map<String, String> m = new HashMap<>();
        m.put("timing.clock", "source=rdtsc ns_per_tick=0.500000 seconds=2.000 stamp_ns=9.50");
        m.put("timing.monitor_wait", wait);
        m.put("timing.monitor_waited", waited);
        m.put("timing.slowest", "monitor_wait:1000000:3000:walk:2600:1:0:1,monitor_waited:2000000:300:object:100:0");
        m.put("records.written", "10");
        return m;
    }

    @Test
    void withoutTimingThereIsNone() {
        assertTrue(CallbackTiming.fromInfo(Map.of("records.written", "1")).isEmpty());
    }

    @Test
    void readsEveryFieldStageAndBucket() {
        CallbackTiming t = CallbackTiming.fromInfo(info(WAIT, WAITED)).orElseThrow();
        assertEquals(0.5, t.clock().nsPerTick());
        assertEquals(9.5, t.clock().stampNs());
        assertEquals(List.of("monitor_wait", "monitor_waited"), List.copyOf(t.events().keySet()));
        CallbackTiming.Event w = t.event("monitor_wait");
        assertEquals(4, w.events());
        assertEquals(1500, w.meanNs());
        assertEquals(1, w.gc());
        assertEquals(new CallbackTiming.Stage(4, 4800, 2600), w.stages().get("walk"));
        assertEquals(1200, w.stageMeanNs("walk"));
        assertTrue(Double.isNaN(w.stageMeanNs("owner")), "a stage never run has no mean");
        double sum = 0;
        for (String s : CallbackTiming.STAGES) {
            sum += Double.isNaN(w.stageMeanNs(s)) ? 0 : w.stageMeanNs(s);
        }
        assertEquals(w.meanNs(), sum, 1e-9, "the stages add up to the whole");
        assertEquals(3, w.histTicks().size());
        assertEquals(1, w.histTicks().get(5632L)[1]);
        assertEquals(1, w.slept());
        assertEquals(1, w.preempted());
        assertEquals(1151, w.steadyMaxNs());
        assertEquals(2, w.steadyHistTicks().size());
        CallbackTiming.Event older = t.event("monitor_waited");
        assertFalse(older.hasSwitches(), "a value without the counts (an older file)");
        assertEquals(-1, older.preempted());
        assertTrue(Double.isNaN(t.steadyQuantileNs("monitor_waited", 0.999)));
    }

    @Test
    void steadyQuantilesLeaveThePreemptedCallbacksOut() {
        CallbackTiming t = CallbackTiming.fromInfo(info(WAIT, WAITED)).orElseThrow();
        assertEquals(3000, t.quantileNs("monitor_wait", 1.0));
        assertEquals(1151, t.steadyQuantileNs("monitor_wait", 1.0), "2303 ticks is above the steady max");
        assertEquals(2047 * 0.5, t.steadyQuantileNs("monitor_wait", 0.5));
        CallbackTiming m = CallbackTiming.merge(List.of(t, t));
        assertEquals(2, m.event("monitor_wait").preempted());
        assertEquals(4, m.event("monitor_wait").steadyHistTicks().get(1792L)[1]);
        assertEquals(-1, m.event("monitor_waited").preempted(), "unknown in one run: unknown merged");
    }

    @Test
    void quantilesAreBucketHighsInNsCappedByTheMaximum() {
        CallbackTiming t = CallbackTiming.fromInfo(info(WAIT, WAITED)).orElseThrow();
        assertEquals(2047 * 0.5, t.quantileNs("monitor_wait", 0.5));   // 2nd of 4
        assertEquals(2303 * 0.5, t.quantileNs("monitor_wait", 0.75));  // 3rd
        assertEquals(3000, t.quantileNs("monitor_wait", 0.99));        // 6143 ticks is above the max: the max
        assertEquals(3000, t.quantileNs("monitor_wait", 1.0));
        assertTrue(Double.isNaN(t.quantileNs("park", 0.5)));
    }

    @Test
    void runsMergeCountsTimesMaximaAndBuckets() {
        CallbackTiming a = CallbackTiming.fromInfo(info(WAIT, WAITED)).orElseThrow();
        Map<String, String> other = info(WAIT.replace("max_ns=3000", "max_ns=9000"), WAITED);
        other.put("timing.clock", "source=rdtsc ns_per_tick=0.600000 seconds=6.000 stamp_ns=10.50");
        other.put("timing.park", WAITED);
        CallbackTiming b = CallbackTiming.fromInfo(other).orElseThrow();
        CallbackTiming m = CallbackTiming.merge(List.of(a, b));
        assertEquals(2, m.runs());
        assertEquals(0.575, m.clock().nsPerTick(), 1e-9, "weighted by each run's length");
        assertEquals(10.0, m.clock().stampNs(), 1e-9);
        assertEquals(8.0, m.clock().seconds(), 1e-9);
        CallbackTiming.Event w = m.event("monitor_wait");
        assertEquals(8, w.events());
        assertEquals(9000, w.maxNs());
        assertEquals(2, w.gc());
        assertEquals(new CallbackTiming.Stage(8, 9600, 2600), w.stages().get("walk"));
        assertEquals(4, w.histTicks().get(1792L)[1]);
        assertEquals(List.of("monitor_wait", "monitor_waited", "park"), List.copyOf(m.events().keySet()),
                "in timing.h's order");
        assertEquals(1, a.event("monitor_wait").gc(), "merging leaves the runs as they were");
        assertThrows(IllegalArgumentException.class, () -> CallbackTiming.merge(List.of()));
    }

    @Test
    void malformedValuesAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> CallbackTiming.fromInfo(info(WAIT.replace("events=4 ", ""), WAITED)));
        assertThrows(IllegalArgumentException.class,
                () -> CallbackTiming.fromInfo(info(WAIT.replace("walk:4:4800:2600", "walk:4:4800"), WAITED)));
        assertThrows(IllegalArgumentException.class,
                () -> CallbackTiming.fromInfo(info(WAIT.replace("1792-2047:2", "1792:2"), WAITED)));
        Map<String, String> noClock = info(WAIT, WAITED);
        noClock.put("timing.clock", "source=rdtsc");
        assertThrows(IllegalArgumentException.class, () -> CallbackTiming.fromInfo(noClock));
    }

    @Test
    void tablesShowMeansPerStageAndTheDistribution() {
        CallbackTiming t = CallbackTiming.fromInfo(info(WAIT, WAITED)).orElseThrow();
        String stages = t.stageTable();
        assertTrue(stages.contains("| monitor_wait | 4 | 50 | 25 | — | 100 | 1200 | 75 | 50 | 1500 | 85 % |"), stages);
        assertTrue(stages.contains("| monitor_waited | 4 | 50 | 25 | — | 75 | — | — | 50 | 200 | — |"), stages);
        String dist = t.distributionTable();
        assertTrue(dist.contains("| monitor_wait | 4 | 1024 ns | 3000 ns | 3000 ns | 3000 ns | 1 (3000 ns) | stack walk 2600 ns "
                + "| 1 | 1 | 1151 ns, 1151 ns |"), dist);
        assertTrue(dist.contains("| monitor_waited | 4 | ") && dist.contains("| object id 100 ns | — | — | — |"), dist);
        assertTrue(dist.contains("| monitor_waited | 4 | "), dist);
        String section = t.section("ping-pong");
        assertTrue(section.startsWith("**ping-pong** (1 run; rdtsc, 0.5000 ns per tick, one time-stamp read 9.5 ns)"),
                section);
        assertFalse(section.contains("park"), "types without callbacks are left out");
    }

    @Test
    void theSlowestCallbacksAreReadMergedAndTiedToSafepoints() {
        CallbackTiming t = CallbackTiming.fromInfo(info(WAIT, WAITED)).orElseThrow();
        assertEquals(List.of(new CallbackTiming.Slow("monitor_wait", 1_000_000, 3000, "walk", 2600, true, 0, 1, null),
                new CallbackTiming.Slow("monitor_waited", 2_000_000, 300, "object", 100, false, -1, -1, null)),
                t.slowest());
        // a G1 pause from 1,002,000 to 1,010,000 ns overlaps the wait (1,000,000 + 3000); nothing the waited
        List<SafepointLog.Safepoint> sps = SafepointLog.parse(List.of(
                "[1010000ns] Safepoint \"G1CollectForAllocation\", Time since last: 1 ns, Reaching safepoint: 10 ns, "
                        + "At safepoint: 7990 ns, Total: 8000 ns",
                "[1500000ns] Safepoint \"Cleanup\", Time since last: 1 ns, Reaching safepoint: 1 ns, Cleanup: 1 ns, "
                        + "At safepoint: 10 ns, Total: 100 ns",
                "[1004000ns] Safepoint \"ICBufferFull\", Time since last: 1 ns, Reaching safepoint: 1 ns, "
                        + "At safepoint: 99 ns, Total: 100 ns",
                "not a safepoint line"));
        assertEquals(3, sps.size());
        CallbackTiming a = t.withSafepoints(sps);
        assertEquals("G1CollectForAllocation 8000 ns", a.slowest().get(0).safepoint(), "the longest overlapping");
        assertEquals("", a.slowest().get(1).safepoint());
        String table = a.slowestTable(10);
        assertTrue(table.contains("| monitor_wait | 3000 ns | stack walk 2600 ns | yes | 0 / 1 | G1CollectForAllocation 8000 ns |"),
                table);
        assertTrue(table.contains("| monitor_waited | 300 ns | object id 100 ns | no | — | none |"), table);
        assertFalse(t.slowestTable(10).contains("safepoint"), "no column when not looked up");

        Map<String, String> other = info(WAIT, WAITED);
        other.put("timing.slowest", "park:5:9000:walk:8000:0");
        CallbackTiming m = CallbackTiming.merge(List.of(a, CallbackTiming.fromInfo(other).orElseThrow()));
        assertEquals(List.of(9000L, 3000L, 300L), m.slowest().stream().map(CallbackTiming.Slow::ns).toList());
        assertThrows(IllegalArgumentException.class, () -> {
            Map<String, String> bad = info(WAIT, WAITED);
            bad.put("timing.slowest", "park:5:9000");
            CallbackTiming.fromInfo(bad);
        });
    }

    @Test
    void durationsReadAsNsMicrosOrMillis() {
        assertEquals("850 ns", CallbackTiming.duration(850));
        assertEquals("12.3 µs", CallbackTiming.duration(12_340));
        assertEquals("7.41 ms", CallbackTiming.duration(7_410_000));
        assertEquals("—", CallbackTiming.duration(Double.NaN));
    }
}
