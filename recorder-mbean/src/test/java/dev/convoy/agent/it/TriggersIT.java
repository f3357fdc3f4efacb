package dev.convoy.agent.it;

import static dev.convoy.agent.it.Recordings.thread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import javax.management.MBeanServerConnection;
import javax.management.Notification;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.EventType;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testapps.Deadlock;

/**
 * {@code dumpon}: a deadlock and a long block each dump the window of the history around them by
 * themselves, name the file in an MBean notification and on stderr, and keep at most
 * {@code dumpkeep} such files.
 */
class TriggersIT {

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    private static List<Path> dumps(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".cvysnap")).sorted().toList();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aDeadlockAndALongBlockDumpTheWindowAroundThemAndSaySo(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path dir = Files.createDirectories(work.resolve("dumps"));
        RemoteJmx jmx = RemoteJmx.onFreePort();
        List<String> jvmArgs = new java.util.ArrayList<>(List.of("-javaagent:" + ChildJvm.agentJar() + "=dumpdir=" + dir
                + ",dumpname=app,dumpon=deadlock+block:300ms,dumpwindow=30s", "-Dconvoy.tmpdir=" + work.resolve("lib")));
        jvmArgs.addAll(jmx.jvmArgs());
        try (RunningJvm app = RunningJvm.start(jdk, work, jvmArgs, Deadlock.class.getName(),
                "--hold-until-stdin-eof", "--hold-ms=60000")) {
            app.awaitLine(Deadlock.MARKER);
            List<Notification> notes = new CopyOnWriteArrayList<>();
            try (JMXConnector connector = jmx.connect()) {
                MBeanServerConnection c = connector.getMBeanServerConnection();
                c.addNotificationListener(new ObjectName("dev.convoy:type=Recorder"), (n, hb) -> notes.add(n), null,
                        null);
                Awaitility.await("a triggered dump").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                        .until(() -> !dumps(dir).isEmpty() && notes.stream()
                                .anyMatch(n -> n.getType().equals("dev.convoy.dump.triggered")));
            }
            Notification n = notes.stream().filter(x -> x.getType().equals("dev.convoy.dump.triggered")).findFirst()
                    .orElseThrow();
            Path file = Path.of((String) n.getUserData());
            assertEquals(dumps(dir).get(0).toRealPath(), file.toRealPath(), "the notification names the file");
            String name = file.getFileName().toString();
            assertTrue(name.matches("app-(deadlock|block)(-(deadlock|block))*-\\d{8}-\\d{6}\\.cvysnap"), name);
            assertTrue(n.getMessage().contains("deadlock") || n.getMessage().contains("block"), n.getMessage());

            Recording r = SnapshotReader.read(file);
            assertTrue(r.info().get("window") != null, "a window of the history: " + r.info());
            long span = r.snapshotMonotonicNs() - r.startMonotonicNs();
            assertTrue(span <= 32_000_000_000L, "at most dumpwindow before and 2 s after: " + span);
            for (String name2 : List.of(Deadlock.THREAD_A, Deadlock.THREAD_B)) {
                RecordedThread t = thread(r, name2);
                assertTrue(t.events().stream().anyMatch(e -> e.type() == EventType.MONITOR_ENTER),
                        () -> name2 + " blocked in the window: " + t.events());
                MonitorState state = r.monitorState(t.ringId()).orElse(null);
                assertTrue(state == null || state.ownerThreadId() > 0, "still blocked after the window");
            }
            assertEquals(0, app.finish(), "the application ran on and exited normally");
            assertTrue(String.join("\n", app.stderr()).contains("[convoy] dump on "), String.join("\n", app.stderr()));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aBadTriggerStopsTheJvmWithWhatIsAllowed(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, "dumpon=deadlock+slow", Deadlock.class.getName());
        assertEquals(2, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("option 'dumpon': unknown trigger 'slow'"), run.stderr());
    }
}
