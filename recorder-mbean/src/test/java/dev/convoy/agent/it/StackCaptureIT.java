package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.Recording;
import dev.convoy.testapps.HandoffChain;
import dev.convoy.testapps.JucBlocking;
import dev.convoy.testapps.LockStorm;
import dev.convoy.testapps.NotifyAllHerd;
import dev.convoy.testapps.ProducerConsumer;
import dev.convoy.testapps.StackShapes;
import dev.convoy.testapps.VirtualMonitorStorm;
import dev.convoy.testapps.bench.suite.Workloads;

/**
 * stacks=async (AsyncGetCallTrace, native-recorder/src/capture.c) against GetStackTrace, on every
 * JDK of {@link Jdks}. With {@code CONVOY_TEST_STACK_ORACLE=1} every capture that AsyncGetCallTrace
 * walked is taken again with GetStackTrace in the same callback and the two are compared frame by
 * frame (method and location, and how many); INFO {@code stacks.oracle} holds the tally and the
 * first differences. {@code CONVOY_TEST_STACK_ORACLE=force} sends every capture down the fallback.
 */
class StackCaptureIT {

    private static final String OPTIONS = ChildJvm.dumping("buffer=1m,memory=256m");
    private static final Pattern ORACLE = Pattern.compile(
            "equal=(\\d+) different=(\\d+) failed=(\\d+) cached.equal=(\\d+) cached.different=(\\d+)(.*)");

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    private Recording run(Jdks.Jdk jdk, String oracle, String options, List<String> jvmArgs, String classpath,
                          String main, String... args) throws Exception {
        jdk.assumePresent();
        List<String> all = new ArrayList<>(jvmArgs);
        all.add("-Dconvoy.tmpdir=" + work.resolve("lib"));
        ChildJvm.Result res = ChildJvm.runWith(jdk, work, Map.of("CONVOY_TEST_STACK_ORACLE", oracle), classpath,
                all, options, main, args).assertSucceeded();
        if (main.equals(StackShapes.class.getName()) && jvmArgs.stream().anyMatch(a -> a.startsWith("-javaagent"))) {
            assertTrue(res.stdout().contains("redefinitions=3"), res.stdout());
        }
        return res.recording();
    }

    /** A jar whose manifest makes StackShapes an agent too, so that it can redefine a class. */
    private String shapesAgent() throws Exception {
        Path jar = work.resolve("shapes-agent.jar");
        if (!Files.exists(jar)) {
            Manifest m = new Manifest();
            m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
            m.getMainAttributes().putValue("Premain-Class", StackShapes.class.getName());
            m.getMainAttributes().putValue("Can-Redefine-Classes", "true");
            try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, m)) {
                j.flush();
            }
        }
        return "-javaagent:" + jar;
    }

    /** INFO stacks.capture as key=value pairs (mode, preloaded, fallback.*). */
    private static Map<String, String> capture(Recording r) {
        String text = r.info().getOrDefault("stacks.capture", "");
        Map<String, String> kv = new java.util.HashMap<>();
        Matcher m = Pattern.compile("([a-z_.]+)=(\"[^\"]*\"|\\S+)").matcher(text);
        while (m.find()) {
            kv.put(m.group(1), m.group(2));
        }
        return kv;
    }

    private static long fallback(Recording r, String kind) {
        return Long.parseLong(capture(r).getOrDefault("fallback." + kind, "-1"));
    }

    /** Walked stacks compared (equal, different) and stack-cache hits compared (cachedEqual, cachedDifferent). */
    record Tally(String app, long equal, long different, long cachedEqual, long cachedDifferent, String examples) { }

    private static Tally tally(String app, Recording r) {
        assertEquals("async", capture(r).get("mode"), () -> app + ": " + r.info().get("stacks.capture"));
        String text = r.info().get("stacks.oracle");
        Matcher m = ORACLE.matcher(text == null ? "" : text);
        assertTrue(m.matches(), () -> app + ": INFO stacks.oracle is '" + text + "'");
        assertEquals("0", m.group(3), () -> app + ": the oracle's GetStackTrace failed: " + text);
        return new Tally(app, Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(4)),
                Long.parseLong(m.group(5)), m.group(6));
    }

    private static String h2Classpath() throws Exception {
        return ChildJvm.testAppsClasspath() + File.pathSeparator
                + Paths.get(org.h2.Driver.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static List<Event> withStacks(Recording r, EventType type) {
        return r.events().stream().filter(e -> e.type() == type).toList();
    }

    /** On G1 and on ZGC: the stack cache's start-up check reads the thread's _threadObj, coloured under ZGC. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.convoy.agent.it.Jdks#withCollectors")
    void asyncStacksAreGetStackTracesOnEveryApp(Jdks.Jdk jdk, String gc) throws Exception {
        String apps = ChildJvm.testAppsClasspath();
        String agent = shapesAgent();
        List<String> plain = List.of(gc);
        List<Tally> tallies = new ArrayList<>();
        // 16 threads: enough contended enters after the first for the cache to answer some on 2 CPUs.
        tallies.add(tally("lock storm", run(jdk, "1", OPTIONS, plain, apps, LockStorm.class.getName(),
                "16", "200000")));
        tallies.add(tally("producer/consumer", run(jdk, "1", OPTIONS, plain, apps,
                ProducerConsumer.class.getName())));
        tallies.add(tally("notifyAll herd", run(jdk, "1", OPTIONS, plain, apps, NotifyAllHerd.class.getName())));
        tallies.add(tally("handoff chain", run(jdk, "1", OPTIONS, plain, apps, HandoffChain.class.getName())));
        Recording juc = run(jdk, "1", OPTIONS, plain, apps, JucBlocking.class.getName());
        assertTrue(!withStacks(juc, EventType.PARK).isEmpty(), "parks recorded");
        tallies.add(tally("j.u.c. parks", juc));
        // Recursion deeper than the stack depth, lambdas and streams, reflection, Object.wait, a
        // ReentrantLock, and a class redefined three times while on the stacks; then all compiled
        // up front (-Xcomp: compiled frames, inlining, uncommon traps and deoptimization) and all
        // interpreted.
        for (String mode : List.of("", "-Xcomp", "-Xint")) {
            List<String> args = mode.isEmpty() ? List.of(agent, gc) : List.of(agent, gc, mode);
            tallies.add(tally("stack shapes " + mode, run(jdk, "1", OPTIONS, args, apps,
                    StackShapes.class.getName(), "400")));
        }
        Recording h2 = run(jdk, "1", OPTIONS, plain, h2Classpath(), Workloads.class.getName(),
                "h2", "clients=8", "warmup=1", "seconds=3");
        tallies.add(tally("H2", h2));
        if (jdk.feature() >= 21) {
            // AsyncGetCallTrace would walk on into the carrier: every virtual thread falls back.
            Recording vt = run(jdk, "1", OPTIONS, plain, apps, VirtualMonitorStorm.class.getName(), "200");
            assertTrue(fallback(vt, "virtual") > 0, () -> "virtual threads fall back: " + vt.info().get("stacks.capture"));
        }
        long equal = tallies.stream().mapToLong(Tally::equal).sum();
        long cached = tallies.stream().mapToLong(Tally::cachedEqual).sum();
        List<String> different = tallies.stream().filter(t -> t.different() > 0 || t.cachedDifferent() > 0)
                .map(t -> t.app() + ": " + t.different() + " walked and " + t.cachedDifferent() + " cached different"
                        + t.examples()).toList();
        System.out.println(jdk + " " + gc + ": stacks equal to GetStackTrace " + tallies.stream()
                .map(t -> t.app() + " " + t.equal() + " walked, " + t.cachedEqual() + " cached").toList()
                + "; H2 " + h2.info().get("stacks.capture") + "; " + h2.info().get("stacks.cache"));
        assertEquals(List.of(), different);
        for (Tally t : tallies) {
            assertTrue(t.equal() > 0, () -> t.app() + ": no capture was compared");
        }
        assertTrue(equal + cached > 2000, "captures compared: " + equal + " walked, " + cached + " cached");
        // The stack cache answers most captures where threads block again and again from the same
        // place, and every answer was GetStackTrace's stack.
        assertTrue(h2.info().get("stacks.cache").startsWith("on "), () -> "H2: " + h2.info().get("stacks.cache"));
        // Not the lock storm: its 16 threads block on the monitor some 17 times in all (spinning takes it
        // otherwise), so whether one of them blocks twice from the same place is chance (0 to 66 hits).
        for (String app : List.of("producer/consumer", "j.u.c. parks", "H2", "stack shapes ")) {
            Tally t = tallies.stream().filter(x -> x.app().equals(app)).findFirst().orElseThrow();
            assertTrue(t.cachedEqual() > 0, () -> app + ": no stack came from the cache");
        }
        assertTrue(cached > 1000, "cached stacks compared: " + cached);
    }

    /**
     * The fallback: forced for every capture, the stacks still come (from GetStackTrace) and each
     * is counted; stacks=jvmti never uses AsyncGetCallTrace. Each contended enter has a stack.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void theFallbackRecordsEveryStack(Jdks.Jdk jdk) throws Exception {
        String apps = ChildJvm.testAppsClasspath();
        Recording forced = run(jdk, "force", ChildJvm.dumping("buffer=1m,memory=256m,bench.stackcache=off"), List.of(), apps,
                LockStorm.class.getName(), "8", "20000");
        assertEquals("off: option bench.stackcache=off", forced.info().get("stacks.cache"));
        List<Event> enters = withStacks(forced, EventType.MONITOR_ENTER);
        assertTrue(enters.size() >= 8, "enters: " + enters.size());
        assertEquals(List.of(), enters.stream().filter(e -> e.stackId() == 0).toList());
        assertTrue(fallback(forced, "forced") >= enters.size(), () -> forced.info().get("stacks.capture"));
        assertEquals("equal=0 different=0 failed=0 cached.equal=0 cached.different=0",
                forced.info().get("stacks.oracle"));

        Recording jvmti = run(jdk, "0", ChildJvm.dumping("buffer=1m,memory=256m,stacks=jvmti"), List.of(), apps,
                LockStorm.class.getName(), "8", "20000");
        assertEquals("mode=jvmti", jvmti.info().get("stacks.capture"));
        List<Event> jvmtiEnters = withStacks(jvmti, EventType.MONITOR_ENTER);
        assertTrue(jvmtiEnters.size() >= 8, "enters: " + jvmtiEnters.size());
        assertEquals(List.of(), jvmtiEnters.stream().filter(e -> e.stackId() == 0).toList());
    }
}
