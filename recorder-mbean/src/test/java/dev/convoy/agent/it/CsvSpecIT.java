package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.schema.CsvSpecReader;
import dev.convoy.testapps.Scenarios;
import dev.convoy.testapps.VirtualThreadParks;

/**
 * The CSV logs the real agent dumps on exit ({@code dumponexit=csv+csv-ext+snapshot}) read as a
 * tool built on the JVMTI backend's CSV specification reads them ({@link CsvSpecReader}: its
 * events and their fields, nothing else), on every JDK of {@link Jdks}: the demo mix with the
 * contention analysis on (monitor and {@code ReentrantLock} storms, producer/consumer, an
 * {@code ArrayBlockingQueue} hand-off, notify, join, sleep, interrupt, a deadlock), the same mix
 * with most of its records aged out of the history, and virtual threads parking on a lock, a
 * queue and a latch (JDK 21 and later). Each time {@link CsvChecks}: the extended log is the
 * default one plus Convoy's lines, the losses file lists what was lost, and every thread that
 * lost nothing has the lines its records give. No assertion is on time.
 */
class CsvSpecIT {

    private static final String DUMP = "dumponexit=csv+csv-ext+snapshot,dumpdir=.,dumpname=c";

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    private static CsvChecks.Csv dumped(ChildJvm.Result run) throws Exception {
        return CsvChecks.check(run.dumpDir(), "c", run.recording());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void theDemoWithTheContentionAnalysisIsTheSpecificationsEvents(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result run = ChildJvm.run(jdk, work, DUMP + ",contanalysis=on,buffer=4m,memory=256m",
                Scenarios.class.getName(), Scenarios.DEMO).assertSucceeded();
        assertTrue(run.stdout().contains(Scenarios.FINAL_LINE_PREFIX + " OK"), run.stdout());
        CsvChecks.Csv csv = dumped(run);
        assertEquals(List.of(), CsvChecks.missing(csv.spec(), List.copyOf(new java.util.TreeSet<>(
                CsvSpecReader.EVENTS.keySet()))), () -> "every event of the specification: " + CsvChecks.counts(csv.spec()));
        // the ReentrantLock storm's workers: their lock parks are contended enters of the lock
        Recording r = run.recording();
        Set<String> workers = r.threads().stream().filter(t -> t.name().startsWith("rls-"))
                .map(t -> String.format("%08X", r.identityHash(t.threadObject()))).collect(Collectors.toSet());
        assertFalse(workers.isEmpty(), "the ReentrantLock storm's threads");
        assertTrue(csv.spec().events().stream().anyMatch(e -> e.name().equals("MonitorContendedEnter")
                && workers.contains(e.fields().get(0))), "the ReentrantLock storm's blocking");
        assertTrue(csv.ext().events().stream().anyMatch(e -> e.name().equals("ThreadUnpark")), "the extension's unparks");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void recordsLostAreInTheLossesFileAndTheLogsStayTheSpecifications(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        // a history of 1 MiB seals a chunk every 64 KiB; the chunks older than 1 s age out while the demo holds
        ChildJvm.Result run = ChildJvm.run(jdk, work, DUMP + ",maxsize=1m,maxage=1s",
                Scenarios.class.getName(), Scenarios.DEMO, "--hold-ms=2500").assertSucceeded();
        Recording r = run.recording();
        assertTrue(r.recordsAged() > 0, () -> "records aged out: " + r.lossSummary());
        CsvChecks.Csv csv = dumped(run);
        assertFalse(csv.losses().losses().isEmpty(), "a Loss line per loss");
        assertTrue(csv.losses().records().aged() > 0);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void virtualThreadsParkingAreTheSpecificationsEvents(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        assumeTrue(jdk.feature() >= 21, () -> jdk + " has no virtual threads (JDK 21 and later): skipped");
        ChildJvm.Result run = ChildJvm.run(jdk, work, DUMP + ",buffer=1m,memory=512m",
                VirtualThreadParks.class.getName(), "20", "30").assertSucceeded();
        assertTrue(run.stdout().contains(VirtualThreadParks.NAME + " OK "), run.stdout());
        Recording r = run.recording();
        CsvChecks.Csv csv = dumped(run);
        for (long id : Recordings.longs(run.stdout(), "threadIds")) {
            RecordedThread t = Recordings.threadById(r, id);
            String th = String.format("%08X", r.identityHash(t.threadObject()));
            long enters = csv.spec().events().stream().filter(e -> e.name().equals("MonitorContendedEnter")
                    && e.fields().get(0).equals(th)).count();
            long waits = csv.spec().events().stream().filter(e -> e.name().equals("ObjectWait")
                    && e.fields().get(0).equals(th)).count();
            assertTrue(enters > 0 && waits > 0, () -> t.label() + ": parks on the lock as enters (" + enters
                    + "), on the latch and the queue as waits (" + waits + ")");
        }
    }
}
