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
 * {@code repository=DIR}: the history's chunks as files, each a snapshot of its own, deleted as
 * they age out, read back together as the same records the in-memory history held, and whole after
 * the JVM is killed.
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
    void theRepositoryHoldsWhatTheHistoryHeldAndDeletesWhatAgedOut(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path repo = work.resolve("repo");
        ChildJvm.Result run = ChildJvm.run(jdk, work, ChildJvm.dumping("repository=" + repo + ",maxsize=4m"),
                PingPong.class.getName(), "--roundtrips", "300000", "--warmup", "0").assertSucceeded();
        Recording memory = run.recording();
        Path folder = runFolder(repo);
        List<Path> chunks = Repository.chunks(folder);
        // 4 MiB of history in chunks of 256 KiB: at most 16 kept, plus the one sealed at exit
        assertTrue(chunks.size() >= 2 && chunks.size() <= 17, "chunks kept: " + chunks);
        try (Stream<Path> s = Files.list(folder)) {
            assertTrue(s.noneMatch(p -> p.toString().endsWith(".tmp")), "no file half written");
        }
        assertTrue(chunks.get(0).getFileName().toString().compareTo("chunk-0000000001.cvysnap") > 0,
                "the oldest chunks aged out and their files are gone: " + chunks.get(0));
        for (Path c : chunks) {
            Recording alone = SnapshotReader.read(c);
            assertTrue(alone.info().get("chunk").startsWith("seq="), "each chunk is a snapshot of its own");
        }
        Recording disk = Repository.read(folder);
        assertTrue(disk.infoLong("history.from.ns", 0) > disk.startMonotonicNs(),
                "it says from when the history is complete, after the recording's start");
        assertEquals(memory.startMonotonicNs(), disk.startMonotonicNs(), "the recording's start, not the oldest chunk's");
        // The records the folder no longer holds are counted exactly, per thread, as the in-memory history counts
        // them: the same numbers for every thread both know, but for records of a thread after the dump on exit
        // (the last chunk, sealed after it, holds them). A thread none of whose records is left (all aged out) is
        // not in the folder at all: its aged records count in INFO records.aged alone (chunk.prior.total).
        StringBuilder diff = new StringBuilder();
        long agedPingPong = 0;
        long agedOfAbsent = 0;
        for (RecordedThread t : memory.threads()) {
            RecordedThread d = disk.threads().stream().filter(x -> x.ringId() == t.ringId()).findFirst().orElse(null);
            String m = counts(t);
            String k = d == null ? "absent" : counts(d);
            if (!m.equals(k)) {
                diff.append('\n').append(t.name()).append(": in memory ").append(m).append(", folder ").append(k);
            }
            if (d == null) {
                assertEquals(0, t.eventCount(), t.name() + " is absent from the folder: none of its records is left");
                agedOfAbsent += aged(t);
            } else if (records(d, memory.snapshotMonotonicNs() + 1, Long.MAX_VALUE).isEmpty()) {
                assertEquals(m, k, t.name());
            } else {
                assertEquals(aged(t), aged(d), t.name());
            }
            if (t.name().startsWith("pingpong-")) {
                agedPingPong += aged(t);
            }
        }
        System.out.println("RepositoryIT " + jdk + ": threads whose counts differ:" + (diff.length() == 0 ? " none" : diff));
        assertTrue(agedPingPong > 100_000, "the ping-pong threads' oldest records aged out: " + agedPingPong);
        System.out.println("RepositoryIT " + jdk + ": aged records of threads absent from the folder: " + agedOfAbsent);
        assertEquals(memory.recordsAged(), disk.recordsAged(), "INFO records.aged, absent threads' included");
        assertTrue(disk.lossSummary().contains(" aged out of the history"), disk.lossSummary());
        ChildJvm.Result report = ChildJvm.runWith(jdk, work, java.util.Map.of(), ChildJvm.agentJar().toString(),
                List.of(), null, "dev.convoy.cli.Report", folder.toString()).assertSucceeded();
        assertTrue(!report.stdout().contains("nothing lost") && report.stdout().contains(" aged out of the history"),
                report.stdout());
        // Both hold the same records where both reach: from the later start to the snapshot.
        long from = Math.max(memory.startMonotonicNs(), disk.infoLong("history.from.ns", 0));
        long to = memory.snapshotMonotonicNs();
        long compared = 0;
        for (RecordedThread t : memory.threads()) {
            List<String> inMemory = records(t, from, to);
            RecordedThread d = disk.threads().stream().filter(x -> x.ringId() == t.ringId()).findFirst().orElse(null);
            List<String> onDisk = d == null ? List.of() : records(d, from, to);
            assertEquals(inMemory, onDisk, t.name());
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
