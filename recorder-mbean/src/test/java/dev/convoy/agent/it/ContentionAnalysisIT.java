package dev.convoy.agent.it;

import static dev.convoy.agent.it.Recordings.thread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import javax.management.Attribute;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.Event;
import dev.convoy.model.Frame;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testapps.InterruptWaiter;
import dev.convoy.testapps.JoinChain;
import dev.convoy.testapps.NotifyAllHerd;
import dev.convoy.testapps.NotifyPulse;
import dev.convoy.testapps.Sleepers;
import dev.convoy.testapps.TimedWaits;

/**
 * Contention analysis ({@code contanalysis=on}, and switched at runtime over JMX) on the
 * test apps in fresh JVMs, on every JDK of {@link Jdks}: the probe events (types 16 to 24)
 * with their targets, arguments and stacks that start at the application's call site.
 */
class ContentionAnalysisIT {

    private static final String ON = ChildJvm.dumping("contanalysis=on");

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }


    private static List<Event> events(RecordedThread t, int rawType) {
        return t.events().stream().filter(e -> e.rawType() == rawType).toList();
    }

    private static List<Event> events(Recording r, int rawType) {
        return r.events().stream().filter(e -> e.rawType() == rawType).toList();
    }

    private static boolean isProbe(Event e) {
        return e.rawType() >= SnapshotFormat.EVENT_START_CALL && e.rawType() <= SnapshotFormat.EVENT_THREAD_INTERRUPTED;
    }

    private static Recording run(Jdks.Jdk jdk, Path work, String options, Class<?> app, String... args)
            throws Exception {
        ChildJvm.Result res = ChildJvm.run(jdk, work, options, app.getName(), args).assertSucceeded();
        assertTrue(res.stdout().contains(" OK "), res.stdout());
        return res.recording();
    }

    /**
     * Every probe event with a stack starts at the test app's code: its first frame is a
     * method of dev.convoy.testapps, never Probes; SLEPT and JOINED have none.
     */
    private static void assertStacksStartAtTheApp(Recording r) {
        for (Event e : r.events()) {
            if (!isProbe(e)) {
                continue;
            }
            List<Frame> frames = r.frames(e.stackId());
            if (e.rawType() == SnapshotFormat.EVENT_SLEPT || e.rawType() == SnapshotFormat.EVENT_JOINED) {
                assertTrue(frames.isEmpty(), () -> "no stack for " + e);
                continue;
            }
            assertFalse(frames.isEmpty(), () -> "a stack for " + e);
            String top = r.describe(frames.get(0));
            assertTrue(top.startsWith("dev.convoy.testapps."), () -> e + " starts at " + top + " in "
                    + frames.stream().map(r::describe).toList());
            assertTrue(frames.stream().map(r::describe).noneMatch(f -> f.contains("Probes")),
                    () -> frames.stream().map(r::describe).toList().toString());
        }
    }

    /** Each START_CALL names the thread it started; the given names were all started so. */
    private static void assertStartCalls(Recording r, String... started) {
        Map<Long, String> byId = r.threads().stream().filter(t -> t.javaThreadId() > 0)
                .collect(Collectors.toMap(RecordedThread::javaThreadId, RecordedThread::name, (a, b) -> a));
        Set<String> names = events(r, SnapshotFormat.EVENT_START_CALL).stream()
                .map(e -> byId.getOrDefault(e.arg2(), "?" + e.arg2())).collect(Collectors.toSet());
        for (String s : started) {
            assertTrue(names.contains(s), () -> s + " has a START_CALL naming it: " + names);
        }
        for (Event e : events(r, SnapshotFormat.EVENT_START_CALL)) {
            RecordedThread target = r.threadByObject(e.obj()).orElseThrow(() -> new AssertionError("target " + e));
            assertEquals(target.javaThreadId(), e.arg2(), () -> "arg2 of " + e);
            assertTrue(e.ts() <= target.events().get(0).ts(), "the start call precedes the thread's start");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void notifyAllOfTheHerdByMain(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recording r = run(jdk, work, ON, NotifyAllHerd.class, "4");
        List<Event> all = events(r, SnapshotFormat.EVENT_NOTIFY_ALL);
        assertEquals(1, all.size(), () -> "one notifyAll: " + all);
        Event n = all.get(0);
        assertEquals("main", n.thread().name());
        assertEquals(NotifyAllHerd.HerdLock.class.getName(), r.objectClassName(n.obj()));
        assertTrue(r.describe(r.frames(n.stackId()).get(0)).startsWith(NotifyAllHerd.class.getName() + ".run("));
        assertEquals(0, events(r, SnapshotFormat.EVENT_NOTIFY).size());
        assertStartCalls(r, "herd-0", "herd-1", "herd-2", "herd-3");
        assertEquals(0, events(r, SnapshotFormat.EVENT_THREAD_INTERRUPTED).size());
        assertStacksStartAtTheApp(r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void joinChainJoinsEachSuccessor(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        int length = 4;
        Recording r = run(jdk, work, ON, JoinChain.class, String.valueOf(length));
        for (int i = 0; i < length; i++) {
            RecordedThread t = thread(r, JoinChain.THREAD_PREFIX + i);
            List<Event> joins = t.events().stream().filter(e -> e.rawType() == SnapshotFormat.EVENT_JOIN
                    || e.rawType() == SnapshotFormat.EVENT_JOINED).toList();
            if (i == length - 1) {
                assertEquals(List.of(), joins, "the tail joins nobody");
                continue;
            }
            RecordedThread next = thread(r, JoinChain.THREAD_PREFIX + (i + 1));
            assertEquals(2, joins.size(), () -> t.name() + ": " + joins);
            assertEquals(SnapshotFormat.EVENT_JOIN, joins.get(0).rawType());
            assertEquals(SnapshotFormat.EVENT_JOINED, joins.get(1).rawType());
            for (Event e : joins) {
                assertEquals(next.javaThreadId(), e.arg2(), () -> "target of " + e);
                assertEquals(next.threadObject(), e.obj());
            }
            assertEquals(0, joins.get(0).arg(), "join() has no timeout");
            assertTrue(joins.get(1).ts() >= next.events().get(next.events().size() - 1).ts(),
                    "JOINED after the joined thread ended");
        }
        String[] names = new String[length];
        for (int i = 0; i < length; i++) {
            names[i] = JoinChain.THREAD_PREFIX + i;
        }
        assertStartCalls(r, names);
        assertStacksStartAtTheApp(r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void sleepersSleepAndWakeWithTheRequestedTime(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recording r = run(jdk, work, ON, Sleepers.class, "2", "15", "3");
        for (int i = 0; i < 2; i++) {
            RecordedThread t = thread(r, Sleepers.THREAD_PREFIX + i);
            List<Event> sleeps = t.events().stream().filter(e -> e.rawType() == SnapshotFormat.EVENT_SLEEP
                    || e.rawType() == SnapshotFormat.EVENT_SLEPT).toList();
            assertEquals(6, sleeps.size(), () -> t.name() + ": " + sleeps);
            for (int k = 0; k < 6; k += 2) {
                assertEquals(SnapshotFormat.EVENT_SLEEP, sleeps.get(k).rawType());
                assertEquals(15, sleeps.get(k).arg(), "requested ms");
                assertEquals(SnapshotFormat.EVENT_SLEPT, sleeps.get(k + 1).rawType());
                assertTrue(sleeps.get(k + 1).ts() - sleeps.get(k).ts() >= 14_000_000L, "slept about 15 ms");
            }
        }
        assertStacksStartAtTheApp(r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void interruptOfAWaiterAndItsInterruptedException(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recording r = run(jdk, work, ON, InterruptWaiter.class);
        RecordedThread waiter = thread(r, InterruptWaiter.THREAD_NAME);
        List<Event> calls = events(r, SnapshotFormat.EVENT_INTERRUPT_CALL);
        assertEquals(1, calls.size(), () -> "one interrupt: " + calls);
        Event call = calls.get(0);
        assertEquals("main", call.thread().name());
        assertEquals(1, call.arg(), "the target was WAITING");
        assertEquals(waiter.javaThreadId(), call.arg2());
        assertEquals(waiter.threadObject(), call.obj());
        List<Event> interrupted = events(waiter, SnapshotFormat.EVENT_THREAD_INTERRUPTED);
        assertEquals(1, interrupted.size(), () -> waiter.events().toString());
        assertTrue(interrupted.get(0).ts() > call.ts());
        assertTrue(r.describe(r.frames(interrupted.get(0).stackId()).get(0))
                .startsWith(InterruptWaiter.class.getName() + ".lambda$"), "in the waiter's body");
        assertEquals(1, events(r, SnapshotFormat.EVENT_THREAD_INTERRUPTED).size());
        assertStartCalls(r, InterruptWaiter.THREAD_NAME);
        assertStacksStartAtTheApp(r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void notifyOfTimedWaits(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recording r = run(jdk, work, ON, TimedWaits.class, "30");
        List<Event> notifies = events(r, SnapshotFormat.EVENT_NOTIFY);
        assertEquals(1, notifies.size(), () -> notifies.toString());
        assertEquals("main", notifies.get(0).thread().name());
        assertEquals(TimedWaits.NotifyLock.class.getName(), r.objectClassName(notifies.get(0).obj()));
        assertStartCalls(r, TimedWaits.TIMEOUT_THREAD, TimedWaits.NOTIFIED_THREAD);
        assertStacksStartAtTheApp(r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void withoutContentionAnalysisNoProbeEvents(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        for (Class<?> app : List.of(InterruptWaiter.class, NotifyAllHerd.class)) {
            Recording r = run(jdk, work, ChildJvm.dumping(null), app);
            assertTrue(r.events().stream().noneMatch(ContentionAnalysisIT::isProbe),
                    () -> app.getSimpleName() + ": " + r.events().stream().filter(ContentionAnalysisIT::isProbe).toList());
            assertFalse(r.events().isEmpty());
        }
    }


    private static Recording dump(MBeanServerConnection c, ObjectName name, Path dumps, String file) throws Exception {
        String[] paths = (String[]) c.invoke(name, "dump", new Object[] {"snapshot", file},
                new String[] {String.class.getName(), String.class.getName()});
        return SnapshotReader.read(Path.of(paths[0]));
    }

    private static List<Event> pulses(Recording r) {
        return r.threads().stream().filter(t -> t.name().equals(NotifyPulse.THREAD_NAME))
                .flatMap(t -> t.events().stream()).filter(e -> e.rawType() == SnapshotFormat.EVENT_NOTIFY).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void switchedOnAndOffAtRuntimeOverJmx(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path dumps = Files.createDirectories(work.resolve("dumps"));
        RemoteJmx jmx = RemoteJmx.onFreePort();
        List<String> jvmArgs = new java.util.ArrayList<>(List.of(
                "-javaagent:" + ChildJvm.agentJar() + "=dumpdir=" + dumps,
                "-Dconvoy.tmpdir=" + work.resolve("lib")));
        jvmArgs.addAll(jmx.jvmArgs());
        try (RunningJvm app = RunningJvm.start(jdk, work, jvmArgs, NotifyPulse.class.getName(),
                "--until-stdin-eof", "2")) {
            app.awaitLine(NotifyPulse.MARKER);
            JMXConnector connector = jmx.connect();
            try (connector) {
                MBeanServerConnection c = connector.getMBeanServerConnection();
                ObjectName name = new ObjectName("dev.convoy:type=Recorder");
                assertEquals(false, c.getAttribute(name, "ContentionAnalysis"));
                assertEquals(0L, c.getAttribute(name, "InstrumentedClasses"));
                assertEquals(List.of(), pulses(dump(c, name, dumps, "before.cvysnap")), "nothing before the switch");

                c.setAttribute(name, new Attribute("ContentionAnalysis", true));
                assertEquals(true, c.getAttribute(name, "ContentionAnalysis"));
                long instrumented = (Long) c.getAttribute(name, "InstrumentedClasses");
                assertTrue(instrumented >= 1, "the loaded NotifyPulse was retransformed: " + instrumented);
                Awaitility.await("NOTIFY events after the switch").atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> pulses(dump(c, name, dumps, "on.cvysnap")).size() >= 5);
                Recording on = dump(c, name, dumps, "on.cvysnap");
                for (Event e : pulses(on)) {
                    assertEquals(NotifyPulse.PulseLock.class.getName(), on.objectClassName(e.obj()));
                    assertTrue(on.describe(on.frames(e.stackId()).get(0))
                            .startsWith(NotifyPulse.class.getName() + ".pulse("), "stack starts in pulse()");
                }

                c.setAttribute(name, new Attribute("ContentionAnalysis", false));
                assertEquals(false, c.getAttribute(name, "ContentionAnalysis"));
                assertEquals(0L, c.getAttribute(name, "InstrumentedClasses"), "original bytes restored");
                assertEquals(0L, c.getAttribute(name, "TransformFailures"));
                c.invoke(name, "reset", new Object[0], new String[0]);
                Thread.sleep(300);
                assertEquals(List.of(), pulses(dump(c, name, dumps, "off.cvysnap")), "no NOTIFY after switching off");

                c.setAttribute(name, new Attribute("ContentionAnalysis", true));
                Awaitility.await("NOTIFY events after switching on again").atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> !pulses(dump(c, name, dumps, "again.cvysnap")).isEmpty());
                assertEquals(0L, c.getAttribute(name, "TransformFailures"));
            }
            assertEquals(0, app.finish(), app.output());
        }
    }
}
