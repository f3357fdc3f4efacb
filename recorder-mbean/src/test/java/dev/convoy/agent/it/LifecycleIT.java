package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.testapps.ExitUnderContention;
import dev.convoy.testapps.LockTurnover;
import dev.convoy.testapps.LongThreadNames;
import dev.convoy.testapps.SnapshotChurn;
import dev.convoy.testapps.ThreadChurn;
import dev.convoy.testapps.VirtualThreadChurn;

/** Memory cap, shutdown races and start-up errors, in fresh JVMs on every JDK of {@link Jdks}. */
class LifecycleIT {

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    private static int churnIndex(RecordedThread t) {
        return Integer.parseInt(t.name().substring(ThreadChurn.THREAD_PREFIX.length()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void memoryCapFreesTheRingsOfEndedThreadsAndTheHistoryKeepsTheirRecords(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        int threads = 80;
        Recording r = ChildJvm.run(jdk, work, ChildJvm.dumping("buffer=16k,memory=1m"), ThreadChurn.class.getName(),
                Integer.toString(threads)).assertSucceeded().recording();
        List<RecordedThread> churn = r.threads().stream()
                .filter(t -> t.name().startsWith(ThreadChurn.THREAD_PREFIX)).toList();
        long evicted = r.infoLong("threads.evicted", -1);
        assertTrue(evicted > 0, "the cap forced evictions: " + r.info());
        // About 10 rings fit beside the JVM's own threads; the others were freed, their records
        // drained into the history first.
        assertEquals(threads, churn.size(), "every thread is in the recording, its ring freed or not");
        List<Integer> kept = churn.stream().map(LifecycleIT::churnIndex).sorted().toList();
        assertEquals(threads - 1, (int) kept.get(kept.size() - 1), "the latest thread is kept");
        for (RecordedThread t : churn) {
            assertTrue(t.isEnded());
            assertEquals(List.of(EventType.THREAD_START, EventType.MONITOR_WAIT, EventType.MONITOR_WAITED,
                    EventType.THREAD_END), t.events().stream().map(e -> e.type()).toList(), t::toString);
        }
        long writtenInSnapshot = r.threads().stream().mapToLong(RecordedThread::written).sum();
        assertTrue(r.infoLong("records.written", -1) >= writtenInSnapshot,
                "the totals count every ring's records: " + r.info());
        assertEquals(0, r.infoLong("records.dropped", -1), "every thread got a ring: " + r.info());
    }

    /**
     * Virtual threads get no ThreadEnd, so their rings are never marked ended; once their Thread
     * objects are collected the cap frees those rings first. Without that, 400 virtual threads
     * fill a 1 MiB cap and every later thread records nothing.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void ringsOfVirtualThreadsThatEndedAreFreedForLaterThreads(Jdks.Jdk jdk) throws Exception {
        // Without VirtualThreadEnd their states are freed once their Thread objects are collected;
        // with it, as ended states, oldest first. A virtual thread's state is small (a 4-record
        // ring): 3,000 of them are needed to fill 1m.
        for (String events : List.of("vthreadevents=off", "vthreadevents=on")) {
            ringsOfVirtualThreadsThatEndedAreFreed(jdk, events);
        }
    }

    private void ringsOfVirtualThreadsThatEndedAreFreed(Jdks.Jdk jdk, String events) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping("buffer=4k,memory=1m," + events),
                VirtualThreadChurn.class.getName(), "3000");
        assumeFalse((run.stdout() + run.stderr()).matches("(?s).*virtual.threads.need.JDK.21.*"), jdk.label() + " has no virtual threads: skipped");
        Recording r = run.assertSucceeded().recording();
        assertTrue(r.infoLong("threads.evicted", -1) > 0, () -> "the cap forced evictions: " + r.info());
        assertEquals(0, r.infoLong("records.dropped", -1), () -> "every thread got a ring: " + r.info());
        RecordedThread after = r.threads().stream().filter(t -> t.name().equals(VirtualThreadChurn.AFTER_THREAD))
                .findFirst().orElseThrow(() -> new AssertionError("the thread started after the virtual ones was not "
                        + "recorded: " + r.info()));
        assertTrue(after.events().stream().anyMatch(e -> e.type() == EventType.MONITOR_WAIT
                && r.objectClassName(e.obj()).equals(VirtualThreadChurn.AfterLock.class.getName())), after::toString);
        assertTrue(r.threads().stream().anyMatch(t -> t.events().stream().anyMatch(e -> e.type() == EventType.MONITOR_WAIT
                        && r.objectClassName(e.obj()).equals(VirtualThreadChurn.VirtualLock.class.getName()))),
                "the latest virtual threads' waits are kept");
    }

    /**
     * Threads that start while snapshots copy the rings, at the cap: every state of an ended
     * thread is pinned by the copy, so the one a new thread needs is retired (freed when the
     * snapshot lets go of it) instead of the new thread going without a ring.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void threadsStartedWhileSnapshotsCopyTheRingsAtTheCapGetARing(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        int threads = 500;
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping("buffer=16k,memory=1m"),
                SnapshotChurn.class.getName(), "100", Integer.toString(threads)).assertSucceeded();
        Map<String, String> s = summary(run.stdout(), SnapshotChurn.NAME);
        assertEquals("OK", s.get("status"), run.stdout());
        assertTrue(Integer.parseInt(s.get("snapshots")) > 0, run.stdout());
        Recording r = run.recording();
        assertTrue(r.infoLong("threads.evicted", -1) > 0, () -> "the cap forced evictions: " + r.info());
        assertTrue(r.infoLong("threads.retired", -1) > 0,
                () -> "threads started while a snapshot pinned every state: " + r.info());
        assertEquals(0, r.infoLong("records.dropped", -1), () -> "every thread got a ring: " + r.info());
        RecordedThread last = r.threads().stream()
                .filter(t -> t.name().equals(SnapshotChurn.THREAD_PREFIX + (threads - 1))).findFirst()
                .orElseThrow(() -> new AssertionError("the latest thread is kept: " + r.threads()));
        assertEquals(List.of(EventType.THREAD_START, EventType.MONITOR_WAIT, EventType.MONITOR_WAITED,
                EventType.THREAD_END), last.events().stream().map(e -> e.type()).toList(), last::toString);
    }

    /** key=value pairs of a scenario's summary line. */
    private static Map<String, String> summary(String stdout, String scenario) {
        String line = stdout.lines().filter(l -> l.startsWith(scenario + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no summary line of " + scenario + " in:\n" + stdout));
        Map<String, String> m = new HashMap<>();
        for (String part : line.split(" ")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                m.put(part.substring(0, eq), part.substring(eq + 1));
            }
        }
        m.put("status", line.split(" ")[1]);
        return m;
    }

    /**
     * A server that makes new lock objects forever: 100,000 locks, each waited on once, in
     * batches of 2,000 that become garbage (and are collected, by a forced GC) before the
     * next; under memory=8m the object table holds about 13,000 entries, so without reusing the
     * ids of collected objects it would overflow more than seven times. The recorder's
     * memory, sampled through its MBean after every batch, stays under the cap; no object
     * goes undescribed; and after a reset() (after batch 30 of 50) the locks named by later
     * records are described with their class.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void idsOfCollectedLocksAreReusedUnderTheCapAndResetKeepsClassesRight(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        int locks = 100_000;
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping("memory=8m"), LockTurnover.class.getName(),
                Integer.toString(locks), "2000", "30").assertSucceeded();
        Map<String, String> s = summary(run.stdout(), LockTurnover.NAME);
        assertEquals("OK", s.get("status"), run.stdout());
        assertEquals(1, Integer.parseInt(s.get("resets")), run.stdout());
        long cap = Long.parseLong(s.get("memoryCap"));
        long maxInUse = Long.parseLong(s.get("maxMemoryInUse"));
        assertEquals(8L << 20, cap, run.stdout());
        assertEquals(50, Integer.parseInt(s.get("samples")), run.stdout());
        assertTrue(maxInUse > 0 && maxInUse <= cap, () -> "memory in use " + maxInUse + " of " + cap);

        Recording r = run.recording();
        assertEquals(0, r.infoLong("objects.dropped", -1), () -> "ids of collected locks are reused: " + r.info());
        RecordedThread main = r.threads().stream().filter(t -> t.name().equals("main")).findFirst()
                .orElseThrow(() -> new AssertionError("no main thread: " + r.threads()));
        List<Long> waited = main.events().stream().filter(e -> e.type() == EventType.MONITOR_WAIT)
                .map(e -> e.obj()).toList();
        assertTrue(waited.size() > 100, () -> "the main thread's ring holds its latest waits: " + main);
        long described = waited.stream().filter(id -> r.objects().containsKey(id)).count();
        // The last batch is still reachable: its locks, the newest records, are all described,
        // with their class, though they were tagged after the reset.
        long newestDescribed = waited.subList(Math.max(0, waited.size() - 100), waited.size()).stream()
                .filter(id -> r.objectClassName(id).equals(LockTurnover.TurnoverLock.class.getName())).count();
        assertEquals(100, newestDescribed, () -> "newest waits' objects: " + waited.subList(waited.size() - 100,
                waited.size()).stream().map(id -> id + ":" + r.objectClassName(id)).toList());
        // An id whose lock was collected may be undescribed, never described as something else.
        assertEquals(List.of(), waited.stream().filter(id -> r.objects().containsKey(id))
                .map(r::objectClassName).filter(c -> !c.equals(LockTurnover.TurnoverLock.class.getName()))
                .distinct().toList());
        long snapshotBytes;
        try (var files = Files.list(run.dumpDir())) {
            snapshotBytes = Files.size(files.filter(p -> p.toString().endsWith(".cvysnap")).findFirst().orElseThrow());
        }
        System.out.printf("%s: lock turnover under memory=8m: max MemoryInUseBytes %d of %d (%d samples), "
                        + "objects.dropped %d, %d of %d waits in the ring described, snapshot %d bytes%n",
                jdk.label(), maxInUse, cap, Integer.parseInt(s.get("samples")), r.infoLong("objects.dropped", -1),
                described, waited.size(), snapshotBytes);
    }

    /**
     * Names of 64 Ki characters (128 KiB of UTF-8) are kept to 1 KiB, cut on a character
     * boundary and marked with a trailing "…": for a thread that ended (its name read at
     * ThreadEnd) and for one alive at the snapshot (its name read then).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void longThreadNamesAreCutTo1KiBOnACharacterBoundary(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recording r = ChildJvm.run(jdk, work, ChildJvm.dumping(null), LongThreadNames.class.getName(), "65536")
                .assertSucceeded().recording();
        for (String prefix : List.of(LongThreadNames.ENDED_PREFIX, LongThreadNames.LIVE_PREFIX)) {
            RecordedThread t = r.threads().stream().filter(th -> th.name().startsWith(prefix)).findFirst()
                    .orElseThrow(() -> new AssertionError("no thread " + prefix + "...: " + r.threads().stream()
                            .map(th -> th.name().substring(0, Math.min(20, th.name().length()))).toList()));
            int bytes = t.name().getBytes(StandardCharsets.UTF_8).length;
            assertTrue(bytes <= 1024 && bytes > 1000, () -> prefix + ": " + bytes + " bytes");
            assertTrue(t.name().endsWith("\u2026"), () -> prefix + " is marked as cut");
            String kept = t.name().substring(prefix.length(), t.name().length() - 1);
            assertEquals("\u00e9".repeat(kept.length()), kept, "cut between characters, never inside one");
            assertTrue(t.events().stream().anyMatch(e -> e.type() == EventType.MONITOR_WAIT), t::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void exitWhileThreadsContendCompletesTheDumpWithoutACrash(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping(null), ExitUnderContention.class.getName(), "4")
                .assertSucceeded();
        assertFalse(run.stdout().contains("hs_err") || run.stderr().contains("fatal error"), run.stderr());
        Recording r = run.recording();
        List<RecordedThread> racers = r.threads().stream()
                .filter(t -> t.name().startsWith(ExitUnderContention.THREAD_PREFIX)).toList();
        assertEquals(4, racers.size(), () -> "threads: " + r.threads());
        assertTrue(racers.stream().anyMatch(t -> t.events().stream().anyMatch(
                        e -> e.type() == EventType.MONITOR_WAIT
                                && r.objectClassName(e.obj()).equals(ExitUnderContention.RaceLock.class.getName()))),
                "the racers' waits were recorded up to the exit");
        try (var files = Files.list(run.dumpDir())) {
            assertEquals(List.of(), files.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList(),
                    "no temporary file left behind");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void unusableExtractionDirectoryLeavesTheRecorderOffAndSaysWhatToDo(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path notADirectory = Files.writeString(work.resolve("plain-file"), "x");
        ChildJvm.Result run = ChildJvm.runWith(jdk, work, List.of("-Dconvoy.tmpdir=" + notADirectory), "",
                ExitUnderContention.class.getName(), "2").assertSucceeded();
        assertEquals("[convoy] recorder off: cannot extract the native library to " + notADirectory
                + ": not a directory; set -Dconvoy.tmpdir=DIR to a directory of yours with free space\n", run.stderr());
        assertTrue(run.stdout().contains(ExitUnderContention.NAME), "the application ran: " + run.stdout());
    }
}
