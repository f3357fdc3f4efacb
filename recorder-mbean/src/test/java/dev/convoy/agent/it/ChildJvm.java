package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testapps.Scenarios;

/**
 * Runs a test app in a fresh JVM under the real agent jar and collects what it printed
 * and the snapshot it dumped on exit.
 */
public final class ChildJvm {

    /** A generous bound so a hung child fails the test instead of hanging the build. */
    private static final long EXIT_TIMEOUT_SECONDS = 120;

    public record Result(int exitCode, String stdout, String stderr, Path dumpDir) {

        /** The binary snapshot dumped on exit, read back. */
        public Recording recording() throws IOException {
            try (var files = Files.list(dumpDir)) {
                Path snap = files.filter(p -> p.getFileName().toString().endsWith(".cvysnap")).findFirst()
                        .orElseThrow(() -> new AssertionError("no snapshot dumped in " + dumpDir
                                + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr));
                return SnapshotReader.read(snap);
            }
        }

        public Result assertSucceeded() {
            assertEquals(0, exitCode, () -> "child JVM failed\nstdout:\n" + stdout + "\nstderr:\n" + stderr);
            return this;
        }
    }

    private ChildJvm() {
    }

    public static Path agentJar() {
        Path jar = Paths.get(System.getProperty("convoy.agent.jar", "target/convoy-agent.jar"));
        assertTrue(Files.isRegularFile(jar), "agent jar missing at " + jar + " (run mvn verify, not just test)");
        return jar;
    }

    static String testAppsClasspath() {
        try {
            return Paths.get(Scenarios.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Runs {@code mainClass args} on {@code jdk} with {@code -javaagent:convoy-agent.jar=agentOptions}
     * (null: no agent), dumping a snapshot on exit into a fresh directory under {@code work}.
     */
    public static Result run(Jdks.Jdk jdk, Path work, String agentOptions, String mainClass, String... args)
            throws IOException, InterruptedException {
        return runWith(jdk, work, List.of("-Dconvoy.tmpdir=" + work.resolve("lib")), agentOptions, mainClass, args);
    }

    /** Like {@link #run} with the given JVM arguments instead of the default {@code -Dconvoy.tmpdir}. */
    public static Result runWith(Jdks.Jdk jdk, Path work, List<String> jvmArgs, String agentOptions, String mainClass,
                                 String... args) throws IOException, InterruptedException {
        return runWith(jdk, work, Map.of(), testAppsClasspath(), jvmArgs, agentOptions, mainClass, args);
    }

    /** Like {@link #runWith} with extra environment variables and the given class path. */
    public static Result runWith(Jdks.Jdk jdk, Path work, Map<String, String> env, String classpath,
                                 List<String> jvmArgs, String agentOptions, String mainClass,
                                 String... args) throws IOException, InterruptedException {
        Path dumpDir = Files.createTempDirectory(work, "dump");
        List<String> cmd = new ArrayList<>();
        cmd.add(jdk.java().toString());
        cmd.add("-Xmx256m");
        if (agentOptions != null) {
            cmd.add("-javaagent:" + agentJar() + "=" + agentOptions);
        }
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        Path out = work.resolve("stdout-" + System.nanoTime());
        Path err = work.resolve("stderr-" + System.nanoTime());
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(env);
        Process p = pb.directory(dumpDir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE)
                .start();
        p.getOutputStream().close();
        if (!p.waitFor(EXIT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("child JVM did not exit within " + EXIT_TIMEOUT_SECONDS + " s: " + String.join(" ", cmd)
                    + "\nstdout:\n" + Files.readString(out) + "\nstderr:\n" + Files.readString(err));
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8), dumpDir);
    }

    /** Options that dump a binary snapshot into the child's working directory on exit. */
    public static String dumping(String more) {
        String base = "dumponexit=snapshot,dumpdir=.,dumpname=it";
        return more == null || more.isEmpty() ? base : base + "," + more;
    }
}
