package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.testapps.ExitUnderContention;
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
    void memoryCapFreesTheOldestEndedThreadsAndKeepsTheLatest(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        int threads = 80;
        Recording r = ChildJvm.run(jdk, work, ChildJvm.dumping("buffer=16k,memory=1m"), ThreadChurn.class.getName(),
                Integer.toString(threads)).assertSucceeded().recording();
        List<RecordedThread> churn = r.threads().stream()
                .filter(t -> t.name().startsWith(ThreadChurn.THREAD_PREFIX)).toList();
        long evicted = r.infoLong("threads.evicted", -1);
        assertTrue(evicted > 0, "the cap forced evictions: " + r.info());
        assertTrue(churn.size() < threads, "not every ring fits under 1m: " + churn.size());
        assertTrue(churn.size() >= 10, "ended threads are kept while they fit: " + churn.size());
        List<Integer> kept = churn.stream().map(LifecycleIT::churnIndex).sorted().toList();
        int oldestKept = kept.get(0);
        assertEquals(threads - 1, (int) kept.get(kept.size() - 1), "the latest thread is kept");
        assertEquals(threads - oldestKept, kept.size(), () -> "the kept threads are the latest ones: " + kept);
        for (RecordedThread t : churn) {
            assertTrue(t.isEnded());
            assertEquals(List.of(EventType.THREAD_START, EventType.MONITOR_WAIT, EventType.MONITOR_WAITED,
                    EventType.THREAD_END), t.events().stream().map(e -> e.type()).toList(), t::toString);
        }
        long writtenInSnapshot = r.threads().stream().mapToLong(RecordedThread::written).sum();
        assertTrue(r.infoLong("records.written", -1) > writtenInSnapshot,
                "the totals still count the evicted rings' records: " + r.info());
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
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping("buffer=4k,memory=1m"),
                VirtualThreadChurn.class.getName(), "400");
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
    void unusableExtractionDirectorySaysWhatToDo(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path notADirectory = Files.writeString(work.resolve("plain-file"), "x");
        ChildJvm.Result run = ChildJvm.runWith(jdk, work, List.of("-Dconvoy.tmpdir=" + notADirectory), "",
                ExitUnderContention.class.getName(), "2");
        assertEquals(2, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("cannot extract the native recorder to " + notADirectory), run.stderr());
        assertTrue(run.stderr().contains("-Dconvoy.tmpdir=DIR"), run.stderr());
        assertFalse(run.stdout().contains(ExitUnderContention.NAME), "the application never ran");
    }
}
