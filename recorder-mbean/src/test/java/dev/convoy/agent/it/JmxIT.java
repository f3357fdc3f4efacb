package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import javax.management.Attribute;
import javax.management.MBeanException;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanServerConnection;
import javax.management.Notification;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import javax.management.remote.JMXConnector;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testapps.Deadlock;

/**
 * The MBean as JConsole sees it: a child JVM with remote JMX on loopback, a client that uses
 * javax.management only (no Convoy class touches the connection).
 */
class JmxIT {

    private static final String NAME = "dev.convoy:type=Recorder";

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }


    /** Invokes an operation of Convoy's MBean, the signature from the arguments' classes. */
    static Object invoke(MBeanServerConnection c, String op, Object... args) throws Exception {
        String[] sig = Arrays.stream(args).map(a -> a.getClass().getName()).toArray(String[]::new);
        return c.invoke(new ObjectName(NAME), op, args, sig);
    }

    private static String refusal(MBeanServerConnection c, String op, Object... args) {
        MBeanException e = assertThrows(MBeanException.class, () -> invoke(c, op, args));
        assertTrue(e.getCause() instanceof IllegalArgumentException || e.getCause() instanceof IllegalStateException,
                () -> "a JDK exception type reaches the client: " + e.getCause());
        return e.getCause().getMessage();
    }

    private static byte[] readStream(MBeanServerConnection c, long id) throws Exception {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        int chunks = 0;
        for (byte[] chunk; (chunk = (byte[]) invoke(c, "readStream", id)) != null; chunks++) {
            all.write(chunk);
        }
        assertTrue(chunks >= 1);
        invoke(c, "closeStream", id);
        return all.toByteArray();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void jconsoleStyleClientControlsRecordingAndReadsDumpsRemotely(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path dumps = Files.createDirectories(work.resolve("dumps"));
        RemoteJmx jmx = RemoteJmx.onFreePort();
        List<String> jvmArgs = new java.util.ArrayList<>(List.of(
                "-javaagent:" + ChildJvm.agentJar() + "=dumpdir=" + dumps + ",stackdepth=16",
                "-Dconvoy.tmpdir=" + work.resolve("lib")));
        jvmArgs.addAll(jmx.jvmArgs());
        try (RunningJvm app = RunningJvm.start(jdk, work, jvmArgs, Deadlock.class.getName(),
                "--hold-until-stdin-eof", "--hold-ms=60000")) {
            app.awaitLine(Deadlock.MARKER);
            JMXConnector connector = jmx.connect();
            try (connector) {
                MBeanServerConnection c = connector.getMBeanServerConnection();
                ObjectName name = new ObjectName(NAME);
                checkInfo(c.getMBeanInfo(name));

                List<Notification> notes = new CopyOnWriteArrayList<>();
                c.addNotificationListener(name, (n, hb) -> notes.add(n), null, null);

                assertEquals(true, c.getAttribute(name, "Recording"));
                c.setAttribute(name, new Attribute("Recording", false));
                assertEquals(false, c.getAttribute(name, "Recording"));
                invoke(c, "start");
                assertEquals(true, c.getAttribute(name, "Recording"));
                assertEquals(16, c.getAttribute(name, "StackDepth"));
                assertEquals(dumps.toRealPath().toString(), Path.of((String) c.getAttribute(name, "DumpDirectory"))
                        .toRealPath().toString());
                assertTrue((Long) c.getAttribute(name, "EventsRecorded") > 0);
                assertTrue((Long) c.getAttribute(name, "MemoryInUseBytes") > 0);
                assertEquals(0L, c.getAttribute(name, "StacksDropped"), "a small app fills no table");
                assertEquals(0L, c.getAttribute(name, "ObjectsDropped"));

                CompositeData summary = (CompositeData) invoke(c, "snapshot");
                checkSummary(summary);
                Awaitility.await("deadlock notification").atMost(Duration.ofSeconds(30))
                        .until(() -> notes.stream().anyMatch(n -> n.getType().equals("dev.convoy.deadlock")
                                && n.getMessage().contains(Deadlock.THREAD_A)
                                && n.getMessage().contains(Deadlock.THREAD_B)));

                // The report of the frozen snapshot names the deadlock, its monitors and the stacks.
                String report = (String) invoke(c, "report", "text");
                assertTrue(report.startsWith("Convoy contention report\n"), report);
                assertTrue(report.contains(Deadlock.THREAD_A + " is blocked on " + Deadlock.LockB.class.getName() + "@")
                        && report.contains(Deadlock.THREAD_B + " is blocked on " + Deadlock.LockA.class.getName() + "@")
                        && report.contains("    at " + Deadlock.class.getName() + ".lockBoth("), report);
                String markdown = (String) invoke(c, "report", "markdown");
                assertTrue(markdown.startsWith("# Convoy contention report\n") && markdown.contains("\n## Deadlocks\n"),
                        markdown);
                assertEquals(report, invoke(c, "report", "text"), "the same frozen snapshot, the same report");
                assertTrue(refusal(c, "report", "html").contains("unknown report format 'html'; allowed: text, markdown"));

                Map<String, List<Path>> written = new java.util.LinkedHashMap<>();
                for (String format : List.of("chrome", "tptp", "csv", "snapshot")) {
                    String[] paths = (String[]) invoke(c, "dump", format, "sub/remote-" + format);
                    List<Path> files = Arrays.stream(paths).map(Path::of).toList();
                    assertEquals(format.equals("csv") ? 3 : 1, files.size(), Arrays.toString(paths));
                    for (Path f : files) {
                        assertTrue(f.startsWith(dumps.toRealPath()), f + " inside " + dumps);
                        assertTrue(Files.size(f) > 0, f + " is not empty");
                    }
                    written.put(format, files);
                }
                Awaitility.await("dump notifications").atMost(Duration.ofSeconds(30))
                        .until(() -> notes.stream().filter(n -> n.getType().equals("dev.convoy.dump.written")).count() == 4);
                assertEquals(2, SnapshotReader.read(written.get("snapshot").get(0)).threads().stream()
                        .filter(t -> t.name().equals(Deadlock.THREAD_A) || t.name().equals(Deadlock.THREAD_B)).count());

                // A window of the same frozen snapshot holds exactly the records of its times.
                dev.convoy.model.Recording whole = SnapshotReader.read(written.get("snapshot").get(0));
                // One version: the project's, in the MBean (JConsole's attribute) and in the recording.
                String project = System.getProperty("convoy.project.version");
                assertTrue(project != null && !project.isEmpty(), "the build passes the project's version");
                assertEquals(project, c.getAttribute(name, "Version"));
                assertEquals(project, whole.info().get("agent.version"), "the snapshot's INFO agent.version");
                String[] windowed = (String[]) invoke(c, "dumpWindow", "snapshot", "sub/window", "-400ms/-100ms");
                dev.convoy.model.Recording cut = SnapshotReader.read(Path.of(windowed[0]));
                long end = whole.snapshotMonotonicNs();
                long lo = Math.max(whole.startMonotonicNs(), end - 400_000_000L);
                long hi = end - 100_000_000L;
                assertEquals(Long.toString(lo), cut.info().get("start.monotonic.ns"));
                assertEquals(Long.toString(hi), cut.info().get("snapshot.monotonic.ns"));
                for (dev.convoy.model.RecordedThread t : whole.threads()) {
                    List<Long> expected = t.events().stream().map(dev.convoy.model.Event::ts)
                            .filter(ts -> ts >= lo && ts <= hi).toList();
                    List<Long> got = cut.threads().stream().filter(x -> x.ringId() == t.ringId()).findFirst()
                            .map(x -> x.events().stream().map(dev.convoy.model.Event::ts).toList()).orElse(List.of());
                    assertEquals(expected, got, t.name());
                }
                assertTrue(refusal(c, "dumpWindow", "chrome", "w", "soon").contains("'soon' is not a duration"));
                assertTrue(refusal(c, "dumpWindow", "chrome", "w", "-100ms/-400ms").contains("ends before it begins"));
                Awaitility.await("dump notifications").atMost(Duration.ofSeconds(30))
                        .until(() -> notes.stream().filter(n -> n.getType().equals("dev.convoy.dump.written")).count() == 5);

                // The frozen snapshot streamed in chunks is exactly the file dump() wrote.
                Map<String, Path> streamed = Map.of("snapshot", written.get("snapshot").get(0),
                        "chrome", written.get("chrome").get(0),
                        "csv-meta", written.get("csv").stream().filter(p -> p.toString().endsWith(".meta.csv")).findFirst().orElseThrow(),
                        "csv-events", written.get("csv").stream().filter(p -> p.toString().endsWith(".events.csv")).findFirst().orElseThrow(),
                        "csv-losses", written.get("csv").stream().filter(p -> p.toString().endsWith(".losses.csv")).findFirst().orElseThrow());
                for (Map.Entry<String, Path> e : streamed.entrySet()) {
                    long id = (Long) invoke(c, "openStream", e.getKey());
                    assertArrayEquals(Files.readAllBytes(e.getValue()), readStream(c, id), e.getKey());
                }

                // Every escape from the dump directory is refused, and nothing is written.
                Path outside = Files.createDirectories(work.resolve("outside"));
                Files.createSymbolicLink(dumps.resolve("link"), outside);
                assertTrue(refusal(c, "dump", "chrome", "../escape.json").contains("outside the dump directory"));
                assertTrue(refusal(c, "dump", "chrome", outside.resolve("abs.json").toString())
                        .contains("outside the dump directory"));
                assertTrue(refusal(c, "dump", "chrome", "link/through.json").contains("symbolic link"));
                assertTrue(refusal(c, "dump", "chrome", "").contains("empty"));
                try (var left = Files.list(outside)) {
                    assertEquals(List.of(), left.toList(), "nothing written outside");
                }
                assertTrue(refusal(c, "dump", "pdf", "x").contains("unknown format 'pdf'; allowed: chrome, tptp, csv, csv-ext, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof"));
                assertTrue(refusal(c, "openStream", "xml").contains("allowed: chrome, tptp, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof"));
                assertTrue(refusal(c, "readStream", 999L).contains("no open stream with id 999"));
                assertEquals(false, c.getAttribute(name, "ContentionAnalysis"));
                c.setAttribute(name, new Attribute("ContentionAnalysis", true));
                assertEquals(true, c.getAttribute(name, "ContentionAnalysis"));
                assertTrue((Long) c.getAttribute(name, "InstrumentedClasses") > 0, "the app's start() call sites");
                c.setAttribute(name, new Attribute("ContentionAnalysis", false));
                assertEquals(false, c.getAttribute(name, "ContentionAnalysis"));
                assertEquals(0L, c.getAttribute(name, "InstrumentedClasses"));
                assertEquals(0L, c.getAttribute(name, "TransformFailures"));

                assertTrue(refusal(c, "restartTiming").contains("bench.timing=on"),
                        "restartTiming without bench.timing=on says how to turn it on");
                invoke(c, "reset");
                CompositeData after = (CompositeData) invoke(c, "snapshot");
                TabularData threads = (TabularData) after.get("threads");
                assertFalse(threads.values().stream().map(v -> (CompositeData) v)
                        .anyMatch(t -> "ended".equals(t.get("state"))), "reset drops threads that had ended");
            }
            assertEquals(0, app.finish(), app.output());
            String stderr = String.join("\n", app.stderr());
            assertFalse(stderr.contains("restricted method") || stderr.contains("native method")
                    || stderr.contains("[convoy] warning"), app.output());
        }
    }

    private static void checkInfo(MBeanInfo info) {
        assertFalse(info.getDescription().isBlank());
        for (var a : info.getAttributes()) {
            assertFalse(a.getDescription() == null || a.getDescription().isBlank(), a.getName());
        }
        MBeanOperationInfo dump = Arrays.stream(info.getOperations()).filter(o -> o.getName().equals("dump"))
                .findFirst().orElseThrow();
        assertEquals(List.of("format", "path"), Arrays.stream(dump.getSignature()).map(p -> p.getName()).toList(),
                "JConsole shows parameter names, not p0 and p1");
        assertTrue(Arrays.stream(dump.getSignature()).noneMatch(p -> p.getDescription().isBlank()));
        assertEquals(List.of("closeStream", "dump", "dumpWindow", "openStream", "readStream", "report", "reset",
                        "restartTiming",
                        "snapshot", "start", "stop"),
                Arrays.stream(info.getOperations()).map(MBeanOperationInfo::getName).sorted().toList());
        assertEquals(List.of("dev.convoy.dump.written", "dev.convoy.deadlock", "dev.convoy.dump.triggered"),
                List.of(info.getNotifications()[0].getNotifTypes()));
        checkDocs(info);
    }

    /**
     * docs/jmx.md documents the MBean as it is: a row for every attribute (with its access), every
     * operation (with its parameters' names) and every notification type, and no row for anything
     * the MBean does not have.
     */
    private static void checkDocs(MBeanInfo info) {
        String doc;
        try {
            doc = java.nio.file.Files.readString(dev.convoy.agent.OptionDocsTest.root().resolve("docs/jmx.md"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        java.util.Set<String> documented = new java.util.TreeSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^\\| `([A-Za-z.]+)(\\([a-z, ]*\\))?` \\|")
                .matcher(doc);
        while (m.find()) {
            documented.add(m.group(1) + (m.group(2) == null ? "" : m.group(2)));
        }
        java.util.Set<String> actual = new java.util.TreeSet<>();
        for (var a : info.getAttributes()) {
            actual.add(a.getName());
            String access = a.isWritable() ? "read/write" : "read";
            assertTrue(doc.contains("| `" + a.getName() + "` | ") && doc.substring(doc.indexOf("| `" + a.getName()
                    + "` | ")).lines().findFirst().orElse("").contains("| " + access + " |"),
                    () -> "docs/jmx.md: attribute " + a.getName() + " (" + access + ")");
        }
        for (MBeanOperationInfo o : info.getOperations()) {
            actual.add(o.getName() + "(" + Arrays.stream(o.getSignature()).map(p -> p.getName())
                    .collect(Collectors.joining(", ")) + ")");
        }
        actual.addAll(List.of(info.getNotifications()[0].getNotifTypes()));
        assertEquals(actual, documented, "docs/jmx.md's rows against the MBean's attributes, operations and "
                + "notifications");
    }

    private static void checkSummary(CompositeData s) {
        assertTrue(((String) s.get("startTime")).endsWith("Z"));
        assertTrue((Long) s.get("durationMillis") >= 0);
        assertEquals(0L, s.get("recordsAgedOut"), "a small app's history holds all of it");
        assertTrue(((String) s.get("losses")).contains("nothing lost"), () -> (String) s.get("losses"));
        TabularData counts = (TabularData) s.get("eventCounts");
        Map<String, Long> byType = counts.values().stream().map(v -> (CompositeData) v)
                .collect(Collectors.toMap(v -> (String) v.get("type"), v -> (Long) v.get("count")));
        // The two deadlocked enters at least; the JMX and RMI threads of the test itself may contend too.
        assertTrue(byType.getOrDefault("MONITOR_ENTER", 0L) >= 2, () -> "the two deadlocked enters: " + byType);
        TabularData threads = (TabularData) s.get("threads");
        List<CompositeData> rows = new ArrayList<>();
        threads.values().forEach(v -> rows.add((CompositeData) v));
        for (String t : List.of(Deadlock.THREAD_A, Deadlock.THREAD_B)) {
            CompositeData row = rows.stream().filter(r -> t.equals(r.get("name"))).findFirst().orElseThrow();
            assertEquals("blocked", row.get("state"));
            // the deadlocked enter; a JDK monitor contended while the thread started may add one
            assertTrue((Long) row.get("blockedCount") >= 1L, row::toString);
        }
        TabularData monitors = (TabularData) s.get("mostContendedMonitors");
        List<String> classes = monitors.values().stream().map(v -> (String) ((CompositeData) v).get("monitorClass"))
                .sorted().toList();
        // the app's own contended monitors are exactly the two locks; the JMX and RMI threads serving
        // this test may contend on JDK monitors (e.g. a java.lang.Thread) too
        assertEquals(List.of(Deadlock.LockA.class.getName(), Deadlock.LockB.class.getName()),
                classes.stream().filter(c -> !isJdkClass(c)).toList(), classes::toString);
        for (Object v : monitors.values()) {
            CompositeData m = (CompositeData) v;
            if (!isJdkClass((String) m.get("monitorClass"))) {
                assertEquals(1L, m.get("blockedCount"), () -> "one deadlocked enter on " + m);
            }
        }
        String[] deadlocks = (String[]) s.get("deadlocks");
        assertEquals(1, deadlocks.length, Arrays.toString(deadlocks));
        assertInstanceOf(String.class, deadlocks[0]);
    }

    /**
     * A class of the JDK's own monitors, which the JMX and RMI threads may contend on during the
     * test: a JDK class, or an array of primitives or of JDK classes (RMI locks an {@code int[]}).
     */
    private static boolean isJdkClass(String name) {
        String element = name.replace("[]", "");
        return !element.equals(name) && List.of("boolean", "byte", "char", "short", "int", "long", "float", "double")
                .contains(element) || element.startsWith("java.") || element.startsWith("javax.")
                || element.startsWith("sun.") || element.startsWith("com.sun.") || element.startsWith("jdk.");
    }
}
