package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import javax.management.Attribute;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.objectweb.asm.ClassReader;

import com.sun.tools.attach.VirtualMachine;

import dev.convoy.agent.it.otheragent.OtherAgent;
import dev.convoy.agent.it.otheragent.ParkCounts;
import dev.convoy.model.EventType;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testapps.ReentrantLockStorm;

/**
 * The park hook holds when another agent retransforms {@code LockSupport}: a second agent
 * ({@link OtherAgent}, built into a jar here) adds its own retransform-capable transformer that
 * counts, per thread, the calls of {@code park()} and {@code park(Object)}, and retransforms
 * LockSupport. The other agent's count is the ground truth for Convoy's: per storm thread
 * ({@link ReentrantLockStorm}, whose threads park only in {@code lock()}, untimed), Convoy's
 * PARK records equal the other agent's count, which is above zero (its rewrite is in effect),
 * and the parks have what the storm knows about itself (blocker, FLAG_LOCK, owners). Both
 * orders of the two transformers: the other agent attached while Convoy records (it rewrites
 * Convoy's hooked bytes), and the other agent started first (Convoy hooks the other's bytes).
 * No assertion is on time.
 */
class ParkRetransformIT {

    private static final String STORM_THREADS = "4";
    private static final String STORM_ITERATIONS = "500";
    private static final String SUMMARY = ReentrantLockStorm.NAME + " ";

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    /**
     * Convoy records from the start; four storms, each on fresh threads: the first before the
     * other agent is attached, the second after, the third with contention analysis switched
     * on over JMX, the fourth with it switched off again. The other agent counts no park of
     * the first storm, every park of the others; contention analysis records the thread starts
     * of the third storm only.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void anotherAgentAttachedWhileConvoyRecords(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path otherAgent = otherAgentJar(Files.createDirectories(work.resolve("other")));
        Path dumps = Files.createDirectories(work.resolve("dumps"));
        RemoteJmx jmx = RemoteJmx.onFreePort();
        List<String> jvmArgs = new ArrayList<>(List.of(
                "-javaagent:" + ChildJvm.agentJar() + "=buffer=1m,memory=256m,dumponexit=snapshot,dumpdir=" + dumps
                        + ",dumpname=it",
                "-Dconvoy.tmpdir=" + work.resolve("lib")));
        if (jdk.feature() >= 21) {
            jvmArgs.add("-XX:+EnableDynamicAgentLoading"); // else JDK 21+ warns about the attached agent
        }
        jvmArgs.addAll(jmx.jvmArgs());
        try (RunningJvm app = RunningJvm.start(jdk, work, jvmArgs, ReentrantLockStorm.class.getName(),
                ReentrantLockStorm.PER_LINE, STORM_THREADS, STORM_ITERATIONS)) {
            app.awaitLine(ReentrantLockStorm.READY);
            storm(app, 1);

            VirtualMachine vm = VirtualMachine.attach(Long.toString(app.pid()));
            try {
                vm.loadAgent(otherAgent.toString());
            } finally {
                vm.detach();
            }
            String installed = app.awaitLinesStartingWith(OtherAgent.INSTALLED, 1).get(0);
            assertTrue(installed.endsWith("sawConvoyHook=true"), "the other agent rewrote Convoy's hooked bytes: "
                    + installed);
            storm(app, 2);

            JMXConnector connector = jmx.connect();
            try (connector) {
                MBeanServerConnection c = connector.getMBeanServerConnection();
                ObjectName name = new ObjectName("dev.convoy:type=Recorder");
                c.setAttribute(name, new Attribute("ContentionAnalysis", true));
                assertEquals(true, c.getAttribute(name, "ContentionAnalysis"));
                storm(app, 3);
                c.setAttribute(name, new Attribute("ContentionAnalysis", false));
                assertEquals(false, c.getAttribute(name, "ContentionAnalysis"));
                storm(app, 4);
                assertEquals(0L, c.getAttribute(name, "TransformFailures"));
            }
            assertEquals(0, app.finish(), app.output());
            assertFalse(String.join("\n", app.stderr()).contains("parks are not recorded"), app::output);
            List<String> storms = app.stdout().stream().filter(l -> l.startsWith(SUMMARY)).toList();
            Map<Long, Long> counted = otherAgentCounts(app.stdout());
            Recording r = snapshot(dumps);
            Set<Long> started = startCalls(r);
            assertEquals(4, storms.size(), app::output);
            for (int i = 0; i < storms.size(); i++) {
                String storm = storms.get(i);
                boolean otherAgentThere = i > 0;
                for (long id : ParkIT.checkStorm(r, storm)) {
                    long parks = ParkIT.of(Recordings.threadById(r, id), EventType.PARK).size();
                    if (otherAgentThere) {
                        assertEquals(parks, counted.getOrDefault(id, 0L), () -> "storm " + storm
                                + ": Convoy's parks of thread " + id + " against the other agent's count " + counted);
                    } else {
                        assertEquals(0L, counted.getOrDefault(id, 0L), "the first storm ran before the other agent");
                    }
                    assertEquals(i == 2, started.contains(id), () -> "START_CALL of thread " + id + " of storm "
                            + storm + " (contention analysis on for the third storm only)");
                }
            }
        }
    }

    /**
     * The other agent starts first and retransforms LockSupport before Convoy exists; Convoy's
     * hook is then applied on top of the other's rewrite (both transformers run, the other's
     * first, whenever LockSupport is retransformed).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void anotherAgentStartedBeforeConvoy(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path otherAgent = otherAgentJar(Files.createDirectories(work.resolve("other")));
        ChildJvm.Result res = ChildJvm.runWith(jdk, work, List.of(
                "-javaagent:" + otherAgent,
                "-javaagent:" + ChildJvm.agentJar() + "=" + ChildJvm.dumping("buffer=1m,memory=256m"),
                "-Dconvoy.tmpdir=" + work.resolve("lib")), null, ReentrantLockStorm.class.getName(),
                STORM_THREADS, STORM_ITERATIONS).assertSucceeded();
        assertFalse(res.stderr().contains("parks are not recorded"), res.stderr());
        assertTrue(res.stdout().contains(OtherAgent.INSTALLED + " rewritten=1 sawConvoyHook=false"), res.stdout());
        Map<Long, Long> counted = otherAgentCounts(res.stdout().lines().toList());
        Recording r = res.recording();
        String storm = res.stdout().lines().filter(l -> l.startsWith(SUMMARY)).findFirst().orElseThrow();
        for (long id : ParkIT.checkStorm(r, storm)) {
            long parks = ParkIT.of(Recordings.threadById(r, id), EventType.PARK).size();
            assertEquals(parks, counted.getOrDefault(id, 0L), () -> "Convoy's parks of thread " + id
                    + " against the other agent's count " + counted);
        }
    }

    /** Sends one line and waits for that storm's summary. */
    private static void storm(RunningJvm app, int n) throws IOException {
        app.send("storm " + n);
        String line = app.awaitLinesStartingWith(SUMMARY, n).get(n - 1);
        assertTrue(line.startsWith(SUMMARY + "OK "), line);
    }

    /** Java ids of the threads whose start was recorded (START_CALL, contention analysis). */
    private static Set<Long> startCalls(Recording r) {
        Set<Long> ids = new HashSet<>();
        r.threads().forEach(t -> ParkIT.of(t, EventType.START_CALL).forEach(e -> ids.add(e.arg2())));
        return ids;
    }

    private static Recording snapshot(Path dumps) throws IOException {
        try (Stream<Path> files = Files.list(dumps)) {
            Path snap = files.filter(p -> p.toString().endsWith(".cvysnap")).findFirst()
                    .orElseThrow(() -> new AssertionError("no snapshot dumped in " + dumps));
            return SnapshotReader.read(snap);
        }
    }

    /** The other agent's report: thread id to its count of untimed parks. */
    private static Map<Long, Long> otherAgentCounts(List<String> stdout) {
        String line = stdout.stream().filter(l -> l.startsWith(ParkCounts.REPORT)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + ParkCounts.REPORT + " line in " + stdout));
        Map<Long, Long> counts = new HashMap<>();
        for (String entry : line.substring(ParkCounts.REPORT.length()).split(",")) {
            if (!entry.isEmpty()) {
                String[] kv = entry.split(":");
                counts.put(Long.parseLong(kv[0]), Long.parseLong(kv[1]));
            }
        }
        return counts;
    }

    /**
     * Packages {@link OtherAgent} as a Java agent in {@code dir}: {@code other-agent.jar} (the
     * agent and ASM; Premain-Class, Agent-Class, Can-Retransform-Classes) and
     * {@code other-agent-boot.jar} ({@link ParkCounts}, named by its Boot-Class-Path).
     */
    static Path otherAgentJar(Path dir) throws IOException, URISyntaxException {
        Path classes = Paths.get(OtherAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        String pkg = OtherAgent.class.getPackageName().replace('.', '/') + "/";
        Path boot = dir.resolve("other-agent-boot.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(boot), manifest(Map.of()))) {
            addClasses(out, classes, pkg, ParkCounts.class.getSimpleName());
        }
        Path agent = dir.resolve("other-agent.jar");
        Map<String, String> attrs = Map.of("Premain-Class", OtherAgent.class.getName(),
                "Agent-Class", OtherAgent.class.getName(), "Can-Retransform-Classes", "true",
                "Boot-Class-Path", boot.getFileName().toString());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(agent), manifest(attrs))) {
            addClasses(out, classes, pkg, OtherAgent.class.getSimpleName());
            Path asm = Paths.get(ClassReader.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            try (JarFile jar = new JarFile(asm.toFile())) {
                for (JarEntry e : jar.stream().toList()) {
                    if (e.getName().startsWith("org/objectweb/asm/") && e.getName().endsWith(".class")) {
                        out.putNextEntry(new JarEntry(e.getName()));
                        try (var in = jar.getInputStream(e)) {
                            in.transferTo(out);
                        }
                        out.closeEntry();
                    }
                }
            }
        }
        return agent;
    }

    private static Manifest manifest(Map<String, String> attrs) {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        attrs.forEach((k, v) -> m.getMainAttributes().put(new Attributes.Name(k), v));
        return m;
    }

    /** The classes {@code pkg + simpleName} and its nested classes. */
    private static void addClasses(JarOutputStream out, Path classes, String pkg, String simpleName)
            throws IOException {
        try (Stream<Path> files = Files.list(classes.resolve(pkg))) {
            for (Path f : files.filter(p -> {
                String n = p.getFileName().toString();
                return n.equals(simpleName + ".class") || n.startsWith(simpleName + "$");
            }).toList()) {
                out.putNextEntry(new JarEntry(pkg + f.getFileName()));
                out.write(Files.readAllBytes(f));
                out.closeEntry();
            }
        }
    }
}
