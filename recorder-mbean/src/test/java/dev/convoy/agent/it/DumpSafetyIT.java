package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import javax.management.MBeanException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testapps.Deadlock;
import dev.convoy.testapps.Scenarios;

/**
 * Dumps never land outside the dump directory, and a dump on exit on a nearly full disk still
 * writes what fits: real child JVMs with the agent.
 */
class DumpSafetyIT {

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    private static List<String> entries(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> !p.equals(dir)).map(p -> dir.relativize(p).toString()).sorted().toList();
        }
    }

    /**
     * A local user who can write in the dump directory swaps {@code dumps/race} between
     * nothing and a symbolic link to a folder outside, while a JMX client dumps into
     * {@code race/}. Every dump either lands inside or is refused; nothing appears outside.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aSymlinkSwappedDuringDumpsNeverRedirectsThem(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path dumps = Files.createDirectories(work.resolve("dumps"));
        Path outside = Files.createDirectories(work.resolve("outside"));
        RemoteJmx jmx = RemoteJmx.onFreePort();
        List<String> jvmArgs = new ArrayList<>(List.of("-javaagent:" + ChildJvm.agentJar() + "=dumpdir=" + dumps,
                "-Dconvoy.tmpdir=" + work.resolve("lib")));
        jvmArgs.addAll(jmx.jvmArgs());
        Path race = dumps.resolve("race");
        AtomicBoolean stop = new AtomicBoolean();
        int written = 0;
        int refused = 0;
        try (RunningJvm app = RunningJvm.start(jdk, work, jvmArgs, Deadlock.class.getName(),
                "--hold-until-stdin-eof", "--hold-ms=60000")) {
            app.awaitLine(Deadlock.MARKER);
            Thread swapper = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        Files.createSymbolicLink(race, outside);
                        Thread.onSpinWait();
                        Files.deleteIfExists(race);
                    } catch (IOException e) {
                        // a real folder made by a dump is there: empty it and take it away
                        try (Stream<Path> s = Files.list(race)) {
                            for (Path p : s.toList()) {
                                Files.deleteIfExists(p);
                            }
                            Files.deleteIfExists(race);
                        } catch (IOException again) {
                            // the dump is writing into it: try again
                        }
                    }
                }
            }, "symlink-swapper");
            try (JMXConnector connector = jmx.connect()) {
                MBeanServerConnection c = connector.getMBeanServerConnection();
                ObjectName name = new ObjectName("dev.convoy:type=Recorder");
                c.invoke(name, "snapshot", new Object[0], new String[0]);
                swapper.start();
                for (int i = 0; i < 80; i++) {
                    try {
                        c.invoke(name, "dump", new Object[] {"snapshot", "race/y" + i + ".cvysnap"},
                                new String[] {String.class.getName(), String.class.getName()});
                        written++;
                    } catch (MBeanException e) {
                        // refused (a link in the way) or failed (the swapper removed a file or
                        // folder of the dump meanwhile): either way a JDK exception with a reason
                        refused++;
                        Throwable why = e.getCause();
                        assertTrue(why instanceof IllegalArgumentException || why instanceof IOException, () ->
                                "a JDK exception type: " + why);
                        assertTrue(why.getMessage() != null && !why.getMessage().isBlank(), () -> "" + why);
                    }
                }
            } finally {
                stop.set(true);
                swapper.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
        assertEquals(List.of(), entries(outside), "nothing written outside the dump directory (" + written
                + " dumps written, " + refused + " refused)");
        assertEquals(80, written + refused);
    }

    /**
     * {@code dumponexit=all} into a 4 MiB file system: the binary snapshot (1 to 2 MiB: the whole
     * history of the demo) is written first; the text formats that do not fit fail one by one, each named, and no
     * temporary file is left.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void dumpOnExitOnAFullDiskWritesTheSnapshotFirst(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path mount = Files.createDirectories(work.resolve("small"));
        Path copy = Files.createDirectories(work.resolve("copy"));
        Path script = work.resolve("small-disk.sh");
        Files.writeString(script, """
                set -u
                mount -t tmpfs -o size=4m convoy-it "$1" || exit 97
                copy="$2"; dir="$1"; shift 2
                cd "$dir" && "$@"
                rc=$?
                ls -a "$dir" > "$copy/listing.txt"
                cp -a "$dir"/. "$copy"/
                exit $rc
                """);
        List<String> cmd = new ArrayList<>(List.of("unshare", "-rm", "sh", script.toString(), mount.toString(),
                copy.toString(), jdk.java().toString(), "-Xmx256m",
                "-javaagent:" + ChildJvm.agentJar() + "=contanalysis=on,dumponexit=all,dumpdir=.,dumpname=full",
                "-Dconvoy.tmpdir=" + work.resolve("lib"), "-cp", ChildJvm.testAppsClasspath(),
                Scenarios.class.getName(), "demo"));
        Path err = work.resolve("stderr.txt");
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectOutput(work.resolve("stdout.txt").toFile())
                    .redirectError(err.toFile()).start();
        } catch (IOException noUnshare) {
            assumeTrue(false, "unshare(1) is not available: " + noUnshare.getMessage());
            return;
        }
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the child ran too long");
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assumeTrue(p.exitValue() != 97 && !stderr.contains("unshare: "),
                "no private mount namespace with a tmpfs here (needs user namespaces or root): " + stderr);
        assertEquals(0, p.exitValue(), stderr);
        Path snapshot = copy.resolve("full.cvysnap");
        assertTrue(Files.isRegularFile(snapshot), "the snapshot was written first: " + entries(copy) + "\n" + stderr);
        Recording r = SnapshotReader.read(snapshot);
        assertTrue(r.threads().size() > 3, "a whole snapshot: " + r.threads().size() + " threads");
        assertTrue(stderr.contains("[convoy] wrote ") && stderr.contains("full.cvysnap"), stderr);
        assertTrue(stderr.contains("[convoy] dump on exit: chrome not written: "), stderr);
        String listing = Files.readString(copy.resolve("listing.txt"));
        assertTrue(!listing.contains(".tmp"), "no temporary file left: " + listing);
    }
}
