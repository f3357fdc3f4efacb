package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.Repository;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testapps.bench.PingPong;

/**
 * {@code repository=DIR}: the history's chunks as files, each a snapshot of its own, kept within
 * their own bound ({@code diskmaxsize}, more than memory's), read back together as the same records
 * the in-memory history held where both reach, every record counted, and whole after the JVM is
 * killed.
 */
class RepositoryIT {

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    /** The run folders made so far (the agent makes DIR, then its run's folder in it). */
    private static long runFolders(Path repo) throws Exception {
        if (!Files.isDirectory(repo)) {
            return 0;
        }
        try (Stream<Path> s = Files.list(repo)) {
            return s.filter(Files::isDirectory).count();
        }
    }

    private static Path runFolder(Path repo) throws Exception {
        try (Stream<Path> s = Files.list(repo)) {
            List<Path> runs = s.filter(Files::isDirectory).toList();
            assertEquals(1, runs.size(), "one folder per run: " + runs);
            assertTrue(runs.get(0).getFileName().toString().matches("\\d{8}-\\d{6}-\\d+"), runs.toString());
            return runs.get(0);
        }
    }

    /** A thread's records from {@code from} to {@code to}, every field of each. */
    private static List<String> records(RecordedThread t, long from, long to) {
        List<String> out = new java.util.ArrayList<>();
        for (int i = 0; i < t.eventCount(); i++) {
            if (t.ts(i) >= from && t.ts(i) <= to) {
                out.add(t.ts(i) + " " + t.rawType(i) + " " + t.flags(i) + " " + t.aux(i) + " " + t.stackId(i) + " "
                        + t.obj(i) + " " + t.arg(i) + " " + t.arg2(i));
            }
        }
        return out;
    }

    private static long aged(RecordedThread t) {
        return t.losses().stream().filter(l -> l.kind() == dev.convoy.snapshot.SnapshotFormat.LOSS_AGED)
                .mapToLong(dev.convoy.model.Loss::records).sum();
    }

    /** A thread's records: written, kept, lost, and of those aged out of the history. */
    private static String counts(RecordedThread t) {
        return "written=" + t.written() + " kept=" + t.eventCount() + " lost=" + t.lostRecords() + " aged=" + aged(t);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void theRepositoryKeepsMoreThanMemoryWithinItsOwnBoundCountingWhatAgedOut(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path repo = work.resolve("repo");
        long diskMax = 6L << 20;
        ChildJvm.Result run = ChildJvm.run(jdk, work,
                ChildJvm.dumping("repository=" + repo + ",maxsize=2m,diskmaxsize=6m"),
                PingPong.class.getName(), "--roundtrips", "300000", "--warmup", "0").assertSucceeded();
        Recording memory = run.recording();
        assertTrue(memory.info().get("history").endsWith(" writer=thread"),
                "the files are written by a thread of their own, not the drain's: " + memory.info().get("history"));
        assertTrue(memory.threads().stream().noneMatch(t -> t.name().startsWith("Convoy ")),
                "the recorder's own threads (the drain, the writer) have no ring");
        Path folder = runFolder(repo);
        List<Path> chunks = Repository.chunks(folder);
        long bytes = 0;
        for (Path c : chunks) {
            bytes += Files.size(c);
        }
        System.out.println("RepositoryIT " + jdk + ": " + chunks.size() + " chunk files, " + bytes + " bytes");
        assertTrue(bytes <= diskMax, "the folder stays within diskmaxsize: " + bytes);
        assertTrue(bytes > (2L << 20), "and holds more than the history in memory: " + bytes);
        try (Stream<Path> s = Files.list(folder)) {
            assertTrue(s.noneMatch(p -> p.toString().endsWith(".tmp")), "no file half written");
        }
        assertTrue(chunks.get(0).getFileName().toString().compareTo("chunk-0000000001.cvysnap") > 0,
                "the oldest files went: " + chunks.get(0));
        for (Path c : chunks) {
            Recording alone = SnapshotReader.read(c);
            assertTrue(alone.info().get("chunk").startsWith("seq="), "each chunk is a snapshot of its own");
        }
        Recording disk = Repository.read(folder);
        assertTrue(disk.infoLong("history.from.ns", 0) > disk.startMonotonicNs(),
                "it says from when the history is complete, after the recording's start");
        assertTrue(disk.infoLong("history.from.ns", 0) < memory.infoLong("history.from.ns", 0),
                "the folder reaches further back than memory");
        assertEquals(memory.startMonotonicNs(), disk.startMonotonicNs(), "the recording's start, not the oldest chunk's");
        // Every thread's records are accounted for exactly in both, kept or counted as lost: the same numbers written
        // for every thread both know, but for records of a thread after the dump on exit (the last chunk, sealed after
        // it, holds them). The folder keeps more and has aged out less. A thread none of whose records is left (all
        // aged out) is not in the folder at all: its records count in INFO records.aged alone (chunk.prior.total).
        long agedPingPongMemory = 0;
        long agedPingPongDisk = 0;
        for (RecordedThread t : memory.threads()) {
            RecordedThread d = disk.threads().stream().filter(x -> x.ringId() == t.ringId()).findFirst().orElse(null);
            if (d == null) {
                assertEquals(0, t.eventCount(), t.name() + " is absent from the folder: none of its records is left");
                continue;
            }
            assertEquals(d.written(), d.eventCount() + d.lostRecords(), t.name() + ": " + counts(d));
            long after = records(d, memory.snapshotMonotonicNs() + 1, Long.MAX_VALUE).size();
            if (after == 0) {
                assertEquals(t.written(), d.written(), t.name() + ": in memory " + counts(t) + ", folder " + counts(d));
            }
            assertTrue(aged(d) <= aged(t), t.name() + ": in memory " + counts(t) + ", folder " + counts(d));
            if (t.name().startsWith("pingpong-")) {
                agedPingPongMemory += aged(t);
                agedPingPongDisk += aged(d);
            }
        }
        System.out.println("RepositoryIT " + jdk + ": ping-pong records aged out of memory " + agedPingPongMemory
                + ", of the folder " + agedPingPongDisk);
        assertTrue(agedPingPongDisk > 100_000 && agedPingPongMemory > agedPingPongDisk + 100_000,
                "memory aged out more than the folder, which aged out some: " + agedPingPongMemory + ", "
                        + agedPingPongDisk);
        // The records of threads the folder does not list are its INFO records.written less its threads': they
        // include those of every thread memory lists but the folder no longer holds (memory's own INFO total is read
        // later than its threads' counters, so it is no exact reference here; RepositoryTest has the exact case).
        long goneFromFolder = 0;
        for (RecordedThread t : memory.threads()) {
            if (disk.threadByRingId(t.ringId()).isEmpty()) {
                goneFromFolder += t.written();
            }
        }
        long unlistedInFolder = disk.recordsWritten();
        for (RecordedThread d : disk.threads()) {
            unlistedInFolder -= d.written();
        }
        System.out.println("RepositoryIT " + jdk + ": records of threads the folder no longer lists: " + unlistedInFolder
                + ", of them of threads memory lists " + goneFromFolder);
        assertTrue(unlistedInFolder >= goneFromFolder, "INFO records.written counts the records of threads no longer "
                + "listed: " + unlistedInFolder + " < " + goneFromFolder);
        assertTrue(disk.lossSummary().contains(" aged out of the history"), disk.lossSummary());
        ChildJvm.Result report = ChildJvm.runWith(jdk, work, java.util.Map.of(), ChildJvm.agentJar().toString(),
                List.of(), null, "dev.convoy.cli.Report", folder.toString()).assertSucceeded();
        assertTrue(!report.stdout().contains("nothing lost") && report.stdout().contains(" aged out of the history"),
                report.stdout());
        // Both hold the same records where both reach: from the later start to the snapshot.
        // (memory's history.from.ns is the newest record it aged out; the folder's, the oldest it keeps)
        long from = Math.max(memory.startMonotonicNs(), Math.max(memory.infoLong("history.from.ns", -1) + 1,
                disk.infoLong("history.from.ns", 0)));
        long to = memory.snapshotMonotonicNs();
        long compared = 0;
        for (RecordedThread t : memory.threads()) {
            List<String> inMemory = records(t, from, to);
            RecordedThread d = disk.threads().stream().filter(x -> x.ringId() == t.ringId()).findFirst().orElse(null);
            List<String> onDisk = d == null ? List.of() : records(d, from, to);
            int same = 0;
            while (same < Math.min(inMemory.size(), onDisk.size()) && inMemory.get(same).equals(onDisk.get(same))) {
                same++;
            }
            int at = same;
            assertTrue(same == inMemory.size() && same == onDisk.size(), () -> t.name() + ": " + inMemory.size()
                    + " records in memory, " + onDisk.size() + " in the folder, the first difference at " + at + ": "
                    + (at < inMemory.size() ? inMemory.get(at) : "none") + " against "
                    + (at < onDisk.size() ? onDisk.get(at) : "none") + "; from " + from + ", losses in memory "
                    + t.losses() + ", memory's history.from.ns " + memory.info().get("history.from.ns"));
            compared += inMemory.size();
        }
        assertTrue(compared > 100_000, "compared " + compared + " records");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aJvmKilledLeavesEveryFinishedChunkReadable(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path repo = work.resolve("repo");
        List<String> args = List.of("-javaagent:" + ChildJvm.agentJar() + "=repository=" + repo + ",maxsize=2m",
                "-Dconvoy.tmpdir=" + work.resolve("lib"));
        try (RunningJvm app = RunningJvm.start(jdk, work, args, PingPong.class.getName(), "--roundtrips", "5000000",
                "--warmup", "0")) {
            Awaitility.await("three chunks written").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                    .until(() -> runFolders(repo) == 1 && Repository.isRepository(runFolder(repo))
                            && Repository.chunks(runFolder(repo)).size() >= 3);
            new ProcessBuilder("kill", "-9", Long.toString(app.pid())).start().waitFor();
        }
        Path folder = runFolder(repo);
        List<Path> chunks = Repository.chunks(folder);
        assertTrue(chunks.size() >= 3, chunks.toString());
        for (Path c : chunks) {
            SnapshotReader.read(c); // whole: written to a temporary name, synced, renamed
        }
        Recording r = Repository.read(folder);
        assertTrue(r.threads().stream().anyMatch(t -> t.name().equals("pingpong-b") && t.eventCount() > 1000),
                "the killed JVM's history up to its last finished chunk");
    }
}
