package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.Recording;
import dev.convoy.testapps.JucBlocking;
import dev.convoy.testapps.LockStorm;
import dev.convoy.testapps.ProducerConsumer;
import dev.convoy.testapps.Scenarios;
import dev.convoy.testapps.TimedPhases;
import dev.convoy.testapps.bench.CallbackTiming;

/**
 * The benchmark-only {@code bench.timing=on} on real test apps, on every JDK: every callback that wrote a
 * record was timed once, in every stage its event type runs and in no other. Counts only, never
 * times: each stage's count equals the records of that type in the snapshot (rings large enough
 * that none is overwritten, threads few enough that none is evicted), and the whole durations'
 * histogram holds as many callbacks. Without the option a snapshot has no timing keys.
 */
class TimingIT {

    @TempDir
    Path work;

    /** Which stages each event type runs (agent.c; stack depth 64, owners read from the VM). */
    static final Map<String, Set<String>> STAGES_RUN = Map.of(
            "monitor_enter", Set.of("clock", "thread", "owner", "object", "walk", "intern", "ring"),
            "monitor_entered", Set.of("clock", "thread", "object", "ring"),
            "monitor_wait", Set.of("clock", "thread", "object", "walk", "intern", "ring"),
            "monitor_waited", Set.of("clock", "thread", "object", "ring"),
            "park", Set.of("clock", "thread", "object", "walk", "intern", "ring"),
            "parked", Set.of("clock", "thread", "object", "ring"),
            "unpark", Set.of("clock", "thread", "object", "ring"));

    static final Map<String, EventType> TYPES = Map.of("monitor_enter", EventType.MONITOR_ENTER,
            "monitor_entered", EventType.MONITOR_ENTERED, "monitor_wait", EventType.MONITOR_WAIT,
            "monitor_waited", EventType.MONITOR_WAITED, "park", EventType.PARK, "parked", EventType.PARKED,
            "unpark", EventType.UNPARK);

    /** Each JDK with each scenario and the event types it must produce. */
    static Stream<Arguments> runs() {
        return Jdks.all().flatMap(jdk -> Stream.of(
                Arguments.of(jdk, LockStorm.NAME, List.of("monitor_enter", "monitor_entered")),
                Arguments.of(jdk, ProducerConsumer.NAME, List.of("monitor_wait", "monitor_waited")),
                Arguments.of(jdk, JucBlocking.NAME, List.of("park", "parked", "unpark"))));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("runs")
    void everyRecordedCallbackIsTimedOnceInEachOfItsStages(Jdks.Jdk jdk, String scenario, List<String> expected)
            throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping("bench.timing=on,buffer=1m,memory=256m"),
                Scenarios.class.getName(), scenario).assertSucceeded();
        Recording r = run.recording();
        assertEquals(0, r.infoLong("records.overwritten", -1), "no record overwritten: " + r.info());
        assertEquals(0, r.infoLong("records.dropped", -1), "no event dropped: " + r.info());
        assertEquals(0, r.infoLong("records.torn", -1), "no record torn: " + r.info());
        assertEquals(0, r.infoLong("threads.evicted", -1), "no thread evicted: " + r.info());
        assertTrue(r.info().get("options").contains("bench.timing=on"), r.info().get("options"));

        CallbackTiming t = CallbackTiming.fromInfo(r.info()).orElseThrow(
                () -> new AssertionError("no timing keys in " + r.info().keySet()));
        assertTrue(t.clock().nsPerTick() > 0, "the clock was calibrated: " + r.info().get("timing.clock"));
        assertEquals(CallbackTiming.EVENTS, List.copyOf(t.events().keySet()), "a key per event type");
        List<Event> events = r.events();
        // A callback that runs while the snapshot at exit is taken (a JDK thread's wait during
        // shutdown) can have its record copied and its timing not yet added, or the reverse: at
        // most one such callback per thread still alive then.
        long inFlight = r.threads().stream().filter(th -> !th.isEnded()).count();
        for (String name : CallbackTiming.EVENTS) {
            CallbackTiming.Event e = t.event(name);
            long records = events.stream().filter(ev -> ev.type() == TYPES.get(name)).count();
            assertTrue(Math.abs(records - e.events()) <= inFlight, name + ": " + e.events()
                    + " timed callbacks against " + records + " records in the snapshot (" + inFlight + " threads alive)");
            if (expected.contains(name)) {
                assertTrue(e.events() > 0, name + " recorded by " + scenario);
            }
            for (String stage : CallbackTiming.STAGES) {
                long want = STAGES_RUN.get(name).contains(stage) ? e.events() : 0;
                assertEquals(want, e.stages().get(stage).count(), name + ", stage " + stage);
            }
            long inHistogram = e.histTicks().values().stream().mapToLong(v -> v[1]).sum();
            assertEquals(e.events(), inHistogram, name + ": callbacks in the histogram");
            // context switches are counted per callback; the steady histogram holds the others
            assertTrue(e.hasSwitches(), name + ": context switches counted");
            assertTrue(e.slept() <= e.events() && e.preempted() <= e.events(), name + ": " + e);
            long steady = e.steadyHistTicks().values().stream().mapToLong(v -> v[1]).sum();
            assertEquals(e.events() - e.preempted(), steady, name + ": callbacks not preempted in the steady histogram");
            assertTrue(e.steadyMaxNs() <= e.maxNs(), name + ": steady max within the max");
            // consistency of the report, not time: the stages partition the whole (each rounded to a ns)
            long stagesNs = e.stages().values().stream().mapToLong(CallbackTiming.Stage::ns).sum();
            assertTrue(Math.abs(stagesNs - e.ns()) <= CallbackTiming.STAGES.size(),
                    name + ": stages " + stagesNs + " ns against whole " + e.ns() + " ns");
            assertTrue(e.gc() <= e.events(), name);
            if (e.events() > 0) {
                assertTrue(t.quantileNs(name, 0.5) <= t.quantileNs(name, 0.99)
                        && t.quantileNs(name, 0.99) <= t.quantileNs(name, 0.999)
                        && t.quantileNs(name, 0.999) <= e.maxNs(), name + ": quantiles in order");
            }
        }
    }

    /**
     * MBean restartTiming between two phases: the timing holds exactly the callbacks of the
     * records made after the restart (the storm's enters), and none of the first phase's waits.
     * Without the window it would count the waits too.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.convoy.agent.it.Jdks#all")
    void restartTimingTimesOnlyTheCallbacksAfterIt(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping("bench.timing=on,buffer=1m,memory=256m"),
                TimedPhases.class.getName()).assertSucceeded();
        assertTrue(run.stdout().contains(TimedPhases.RESTARTED), run.stdout());
        Recording r = run.recording();
        assertEquals(0, r.infoLong("records.overwritten", -1), "no record overwritten: " + r.info());
        String clock = r.info().get("timing.clock");
        Matcher m = Pattern.compile("window_from_ns=(\\d+)").matcher(clock);
        assertTrue(m.find(), "timing.clock names the window's start: " + clock);
        long from = Long.parseLong(m.group(1));
        CallbackTiming t = CallbackTiming.fromInfo(r.info()).orElseThrow();
        long inFlight = r.threads().stream().filter(th -> !th.isEnded()).count();
        for (String name : CallbackTiming.EVENTS) {
            long before = r.events().stream().filter(e -> e.type() == TYPES.get(name) && e.ts() < from).count();
            long after = r.events().stream().filter(e -> e.type() == TYPES.get(name) && e.ts() >= from).count();
            long timed = t.event(name).events();
            assertTrue(Math.abs(after - timed) <= inFlight, name + ": " + timed + " timed callbacks against "
                    + after + " records after the restart (" + before + " before it, " + inFlight + " threads alive)");
        }
        long waitsBefore = r.events().stream().filter(e -> e.type() == EventType.MONITOR_WAIT && e.ts() < from).count();
        long waitsAfter = r.events().stream().filter(e -> e.type() == EventType.MONITOR_WAIT && e.ts() >= from).count();
        assertTrue(waitsBefore > 100, "the first phase waited: " + waitsBefore);
        // The JVM's own threads may wait after the restart too (those are timed); none of the first phase's is.
        assertTrue(waitsAfter + inFlight < waitsBefore, "the first phase's waits outnumber any after the restart: "
                + waitsBefore + " before, " + waitsAfter + " after");
        assertTrue(t.event("monitor_wait").events() <= waitsAfter + inFlight, "no wait of the first phase timed: "
                + t.event("monitor_wait").events() + " timed, " + waitsAfter + " waits after the restart");
        assertTrue(t.event("monitor_enter").events() > 0, "the storm's enters are timed");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.convoy.agent.it.Jdks#all")
    void withoutTheOptionThereIsNoTiming(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping("bench.timing=off"), Scenarios.class.getName(),
                ProducerConsumer.NAME).assertSucceeded();
        Recording r = run.recording();
        assertFalse(r.info().keySet().stream().anyMatch(k -> k.startsWith("timing.")), r.info().keySet().toString());
        assertFalse(r.info().get("options").contains("timing"), r.info().get("options"));
        assertTrue(r.events().stream().anyMatch(e -> e.type() == EventType.MONITOR_WAIT), "still recorded");
    }
}
