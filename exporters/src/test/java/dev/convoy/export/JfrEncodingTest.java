package dev.convoy.export;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.export.jfr.ChunkDecoder;
import dev.convoy.export.jfr.JfrWriter;
import dev.convoy.model.Frame;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.JfrCheck;
import dev.convoy.testing.RecordingBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;

/**
 * The JFR file of a recording with every event type and the values an encoder can get wrong
 * (names with commas, NUL, non-ASCII and supplementary characters, a thread without a name, a
 * stack without frames, a stack of 2048 frames, nulls, a virtual thread and its carrier), and of
 * an empty recording: read strictly with {@link ChunkDecoder} (each constant written once, every
 * key resolves), with {@code jdk.jfr.consumer} against the CSV event log, with JMC's parser, and
 * by the JDK's {@code jfr} tool on the build JDK and on Temurin 25 ({@code -Dconvoy.test.jdk25},
 * skipped with a message when absent).
 */
class JfrEncodingTest {

    static final Set<String> TYPES = Set.of("jdk.JavaMonitorEnter", "jdk.JavaMonitorWait", "jdk.ThreadPark",
            "jdk.ThreadSleep", "dev.convoy.ThreadJoin", "jdk.GarbageCollection", "jdk.ThreadStart", "jdk.ThreadEnd",
            "dev.convoy.Notify", "dev.convoy.Unpark", "dev.convoy.Interaction", "dev.convoy.CriticalPath",
            "dev.convoy.DataLoss", "dev.convoy.OwnerSample", "jdk.ActiveSetting");

    static final int S_EMPTY = 20;
    static final int S_DEEP = 21;
    static final int DEEP = 2048;

    @TempDir
    Path dir;

    /**
     * Every event type, odd names, a stack without frames and one of 2048, a virtual thread on a
     * carrier, an owner's side whose owner no ring has.
     */
    static Recording everything() throws IOException {
        return everything(DEEP);
    }

    /** {@link #everything()} with a deep stack of {@code depth} frames. */
    static Recording everything(int depth) throws IOException {
        return SnapshotReader.read(everythingBuilder(depth, true).toBytes());
    }

    /** The builder of {@link #everything(int)}; without its virtual thread unless {@code virtual}. */
    static RecordingBuilder everythingBuilder(int depth, boolean virtual) {
        RecordingBuilder b = gc(handoffChain(waitNotify(parks(contention(base())))));
        Frame[] deep = new Frame[depth];
        for (int i = 0; i < depth; i++) {
            deep[i] = new Frame(i % 3 == 0 ? M_RUN : i % 3 == 1 ? M_GONE : M_WAIT, i % 3 == 2 ? -1 : i);
        }
        b.stack(S_EMPTY, false).stack(S_DEEP, true, deep);
        for (int i = 0; i < 3; i++) {
            b.object(1301 + i, 0x4000_0000 + i, OBJ_THREAD, C_THREAD);
        }
        b.thread(160, 60, 1301, "").span(t(5), 0)
                .event(t(5), EVENT_THREAD_START, 0, 1301, 60)
                .event(t(100), EVENT_MONITOR_ENTER, S_EMPTY, M1, 0)
                .event(t(110), EVENT_OWNER_SAMPLE, FLAG_FRAME_EXACT, 1 | OSTATE_RUNNING << OWNER_STATE_SHIFT, S_RUN,
                        M1, 999, 0) // an owner no ring has
                .event(t(120), EVENT_MONITOR_ENTERED, 0, M1, 0)
                .event(t(200), EVENT_SLEEP, S_DEEP, 0, 5)
                .event(t(300), EVENT_SLEPT, 0, 0, 0);
        b.thread(161, 61, 1302, "ForkJoinPool-1-worker-1").span(t(5), 0)
                .event(t(5), EVENT_THREAD_START, 0, 1302, 61)
                .loss(LOSS_AGED, t(5), SNAP, 9);
        if (virtual) {
            b.thread(162, 77, 1303, "").span(t(10), 0).flags(RING_VIRTUAL).group("VirtualThreads", "")
                    .event(t(10), EVENT_THREAD_START, 0, 1303, 77)
                    .event(t(130), EVENT_MONITOR_ENTER, S_RUN, M1, 0)
                    .event(t(400), EVENT_MONITOR_ENTERED, 0, 0, M1, 0, 61);
        }
        return b;
    }

    Path jfr(Recording r, String name) throws IOException {
        Path f = dir.resolve(name);
        Output.write(r, Set.of(Output.JFR), f);
        return f;
    }

    @Test
    void everyEventTypeReadsBackEveryWay() throws Exception {
        Recording r = everything();
        Path f = jfr(r, "everything.jfr");

        ChunkDecoder.Chunk c = ChunkDecoder.decode(Files.readAllBytes(f));
        Set<String> types = new TreeSet<>();
        c.events.forEach(e -> types.add(e.type().name()));
        assertEquals(new TreeSet<>(TYPES), types, "every event type");
        for (Map.Entry<Long, Map<Long, Object>> p : c.pools.entrySet()) {
            assertEquals(p.getValue().size(), c.poolEntries.get(p.getKey()),
                    "each constant written once: " + c.types.get(p.getKey()).name());
        }
        assertEquals(r.startEpochNs(), c.header.startNanos());
        assertEquals(JfrWriter.TICKS_BASE, c.header.startTicks());
        assertEquals(r.snapshotMonotonicNs() - r.startMonotonicNs(), c.header.durationNanos());
        assertEquals(1_000_000_000L, c.header.ticksPerSecond());

        Output.write(r, Output.select("csv-ext"), dir.resolve("r.csv"));
        assertEquals(Set.of(), JfrCheck.sharedHashThreads(dir.resolve("r.meta.csv"), dir.resolve("r.events-ext.csv")));
        List<String> csv = JfrCheck.csvLines(dir.resolve("r.meta.csv"), dir.resolve("r.events-ext.csv"));
        assertEquals(String.join("\n", csv), String.join("\n", JfrCheck.jfrLines(f, r.startEpochNs())));

        List<RecordedEvent> events = RecordingFile.readAllEvents(f);
        RecordedEvent unnamed = events.stream().filter(e -> e.getEventType().getName().equals("jdk.ThreadSleep")
                && e.getThread().getJavaThreadId() == 60).findFirst().orElseThrow();
        assertEquals("", unnamed.getThread().getJavaName(), "a thread without a name");
        RecordedStackTrace st = unnamed.getStackTrace();
        assertEquals(DEEP, st.getFrames().size());
        assertTrue(st.isTruncated());
        assertEquals("run", st.getFrames().get(0).getMethod().getName());
        assertEquals("Native", st.getFrames().get(2).getType());
        assertEquals("<unknown method 0x" + Long.toHexString(M_GONE) + ">", st.getFrames().get(1).getMethod().getName());
        assertEquals("<unknown>", st.getFrames().get(1).getMethod().getType().getName(),
                "a method the snapshot does not describe: class <unknown> (jfr print needs a class)");
        RecordedEvent emptyStack = events.stream().filter(e -> e.getEventType().getName().equals("jdk.JavaMonitorEnter")
                && e.getThread().getJavaThreadId() == 60).findFirst().orElseThrow();
        assertEquals(0, emptyStack.getStackTrace().getFrames().size(), "a stack without frames is one, empty");
        assertNull(emptyStack.getThread("carrier"));
        RecordedEvent odd = events.stream().filter(e -> e.getEventType().getName().equals("jdk.JavaMonitorWait")
                && e.getThread().getJavaThreadId() == 13).findFirst().orElseThrow();
        assertEquals(ODD_NAME, odd.getThread().getJavaName());
        assertEquals("workers, all", odd.getThread().getThreadGroup().getName());
        assertEquals("main", odd.getThread().getThreadGroup().getParent().getName());
        RecordedEvent virtual = events.stream().filter(e -> e.getEventType().getName().equals("jdk.JavaMonitorEnter")
                && e.getThread().getJavaThreadId() == 77).findFirst().orElseThrow();
        assertEquals("virtual thread 77", virtual.getThread().getJavaName());
        assertTrue(virtual.getThread().getBoolean("virtual"));
        assertEquals("ForkJoinPool-1-worker-1", virtual.getThread("carrier").getJavaName());
        RecordedEvent gc = events.stream().filter(e -> e.getEventType().getName().equals("jdk.GarbageCollection"))
                .findFirst().orElseThrow();
        assertNull(gc.getThread(), "a GC pause has no thread");
        assertNull(gc.getStackTrace());
        assertEquals("unknown", gc.getString("cause"));
        RecordedEvent park = events.stream().filter(e -> e.getEventType().getName().equals("jdk.ThreadPark"))
                .findFirst().orElseThrow();
        assertEquals(Long.MIN_VALUE, park.getLong("until"));
        assertEquals("java.util.concurrent.locks.ReentrantLock$NonfairSync", park.getClass("parkedClass").getName());
        RecordedEvent path = events.stream().filter(e -> e.getEventType().getName().equals("dev.convoy.CriticalPath")
                && e.getValue("via") == null).findFirst().orElseThrow();
        assertNotNull(path.getString("state"), "a null string beside a pooled one");

        IItemCollection items = JfrLoaderToolkit.loadEvents(f.toFile());
        assertEquals(JfrCheck.jfrCounts(f), JfrJmcTest.jmcCounts(items));

        String print = jfrTools(f);
        for (String type : TYPES) {
            assertTrue(print.contains(type + " {"), type + " in jfr print");
        }
    }

    /** An empty recording: a chunk of the settings only ({@code jdk.ActiveSetting}, as the JDK writes them). */
    @Test
    void anEmptyRecordingIsAChunkOfItsSettingsOnly() throws Exception {
        Recording r = SnapshotReader.read(base().toBytes());
        Path f = jfr(r, "empty.jfr");
        ChunkDecoder.Chunk c = ChunkDecoder.decode(Files.readAllBytes(f));
        assertFalse(c.events.isEmpty());
        assertTrue(c.events.stream().allMatch(e -> e.type().name().equals("jdk.ActiveSetting")));
        assertEquals(c.events.size(), RecordingFile.readAllEvents(f).size());
        assertEquals(Map.of("jdk.ActiveSetting", c.events.size()), JfrJmcTest.jmcCounts(JfrLoaderToolkit.loadEvents(f.toFile())));
        String print = jfrTools(f);
        assertEquals(c.events.size(), print.lines().filter(l -> l.equals("jdk.ActiveSetting {")).count(), print);
    }

    /**
     * {@code jfr summary}, {@code jfr print} and {@code jfr print --json} on each JDK: exit 0,
     * nothing on stderr; the build JDK's {@code jfr print} output.
     */
    static String jfrTools(Path f) throws Exception {
        List<Path> homes = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"))));
        Path jdk25 = Path.of(System.getProperty("convoy.test.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));
        if (Files.isExecutable(jdk25.resolve("bin/jfr"))) {
            homes.add(jdk25);
        } else {
            System.out.println("JfrEncodingTest: no JDK at " + jdk25 + " (-Dconvoy.test.jdk25): jfr print on the build JDK only");
        }
        String print = null;
        for (Path home : homes) {
            tool(home, "summary", f.toString());
            tool(home, "print", "--json", f.toString());
            String p = tool(home, "print", f.toString());
            print = print == null ? p : print;
        }
        return print;
    }

    static String tool(Path home, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(home.resolve("bin/jfr").toString()));
        cmd.addAll(List.of(args));
        Path errFile = Files.createTempFile("jfr-tool", ".err");
        try {
            Process p = new ProcessBuilder(cmd).redirectError(errFile.toFile()).start();
            byte[] out = p.getInputStream().readAllBytes();
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "jfr " + String.join(" ", args) + " ended");
            String e = Files.readString(errFile);
            assertEquals(0, p.exitValue(), () -> home + ": jfr " + String.join(" ", args) + ": " + e);
            assertEquals("", e.strip(), home + ": jfr " + String.join(" ", args) + " stderr");
            return new String(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(errFile);
        }
    }

    /** Counts per type, the same for the JDK's and JMC's parsers on the synthetic recording the benchmark uses. */
    @Test
    void syntheticCountsAgree() throws Exception {
        Recording r = SnapshotReader.read(dev.convoy.testing.SyntheticRecordings.synthetic(50_000, 20, 30, 3).toBytes());
        Path f = jfr(r, "synthetic.jfr");
        Map<String, Integer> jdk = new TreeMap<>(JfrCheck.jfrCounts(f));
        assertEquals(jdk, JfrJmcTest.jmcCounts(JfrLoaderToolkit.loadEvents(f.toFile())));
        ChunkDecoder.Chunk c = ChunkDecoder.decode(Files.readAllBytes(f));
        assertEquals(jdk.values().stream().mapToInt(Integer::intValue).sum(), c.events.size());
    }
}
