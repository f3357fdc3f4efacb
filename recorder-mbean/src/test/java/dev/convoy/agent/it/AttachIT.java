package dev.convoy.agent.it;

import static org.awaitility.Awaitility.await;
import static dev.convoy.agent.it.Recordings.thread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.convoy.cli.ConvoyCli;
import dev.convoy.model.MonitorState;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.schema.ChromeTraceChecker;
import dev.convoy.schema.CsvLogReader;
import dev.convoy.schema.CsvSpecReader;
import dev.convoy.schema.TptpValidator;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testapps.Deadlock;

/**
 * {@code ./convoy attach|status|start|stop|dump} against JVMs started without the agent, on
 * every JDK of {@link Jdks}. The command runs in this JVM (the build JDK) through
 * {@link ConvoyCli#run}: the Attach API and JMX are wire protocols, so a JDK 17 client drives
 * a JDK 25 target as well.
 */
class AttachIT {

    /** A bound on the target's life (it exits when its stdin closes): a failed test never leaves it behind. */
    private static final long HOLD_MS = 120_000;
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    /** What one {@code ./convoy} command printed and returned. */
    record Cli(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }

        Cli ok() {
            assertEquals(ConvoyCli.EXIT_OK, code, this::toString);
            return this;
        }
    }

    static Cli convoy(Object... args) {
        String[] a = new String[args.length];
        for (int i = 0; i < args.length; i++) {
            a[i] = String.valueOf(args[i]);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ConvoyCli.run(a, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Cli(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The Deadlock test app, without any agent, holding its deadlock until its stdin closes. */
    static final class Target implements AutoCloseable {
        final Process process;
        final Path stdout;
        final Path stderr;

        Target(Jdks.Jdk jdk, Path work, String... jvmArgs) throws IOException {
            this(jdk, work, true, jvmArgs);
        }

        /** @param allowAgentsSilently on JDK 21+, start with -XX:+EnableDynamicAgentLoading */
        Target(Jdks.Jdk jdk, Path work, boolean allowAgentsSilently, String... jvmArgs) throws IOException {
            Path dir = Files.createTempDirectory(work, "target");
            stdout = dir.resolve("stdout");
            stderr = dir.resolve("stderr");
            List<String> cmd = new ArrayList<>();
            cmd.add(jdk.java().toString());
            cmd.add("-Xmx256m");
            cmd.add("-Dconvoy.tmpdir=" + dir.resolve("lib"));
            if (allowAgentsSilently && jdk.feature() >= 21) {
                // JDK 21+ would otherwise print "WARNING: A Java agent has been loaded dynamically".
                cmd.add("-XX:+EnableDynamicAgentLoading");
            }
            cmd.addAll(List.of(jvmArgs));
            cmd.addAll(List.of("-cp", ChildJvm.testAppsClasspath(), Deadlock.class.getName(),
                    "--hold-until-stdin-eof", "--hold-ms=" + HOLD_MS));
            process = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(stdout.toFile())
                    .redirectError(stderr.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
            await("the target prints " + Deadlock.MARKER).atMost(PATIENCE)
                    .until(() -> out().contains(Deadlock.MARKER) || !process.isAlive());
            assertTrue(process.isAlive(), () -> "the target exited early: " + this);
        }

        long pid() {
            return process.pid();
        }

        String out() throws IOException {
            return Files.readString(stdout, StandardCharsets.UTF_8);
        }

        String err() throws IOException {
            return Files.readString(stderr, StandardCharsets.UTF_8);
        }

        /** Closes the target's stdin, which ends its hold, and returns its exit code. */
        int exit() throws IOException, InterruptedException {
            process.getOutputStream().close();
            assertTrue(process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS), () -> "the target did not exit " + this);
            return process.exitValue();
        }

        @Override
        public void close() throws IOException, InterruptedException {
            if (process.isAlive()) {
                process.getOutputStream().close();
                if (!process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        }

        @Override
        public String toString() {
            try {
                return "pid " + pid() + "\nstdout:\n" + out() + "\nstderr:\n" + err();
            } catch (IOException e) {
                return "pid " + pid() + " (output unreadable: " + e + ")";
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void attachControlDumpAndDetachFreeShutdown(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        try (Target target = new Target(jdk, work)) {
            long pid = target.pid();

            assertTrue(convoy("list").ok().out().lines().anyMatch(l -> l.startsWith(pid + " ")
                    && l.contains(Deadlock.class.getName())), "list shows the target");

            Cli notYet = convoy("status", pid);
            assertEquals(ConvoyCli.EXIT_FAILED, notYet.code(), notYet::toString);
            assertEquals("convoy: status: Convoy is not loaded in " + pid + "; run ./convoy attach " + pid + " first\n",
                    notYet.err());

            Cli attach = convoy("attach", pid, "stackdepth=16").ok();
            assertTrue(attach.out().startsWith("Convoy attached to " + pid + " with options "), attach::toString);
            assertTrue(attach.out().contains("stackdepth=16"), attach::toString);
            assertEquals("", attach.err(), "no note: the target allows agents silently (or predates JDK 21)");

            Cli status = convoy("status", pid).ok();
            assertTrue(status.out().startsWith("Convoy "), status::toString);
            assertTrue(status.out().contains(" in " + pid + "\n"), status::toString);
            assertTrue(status.out().contains("recording:           on"), status::toString);
            assertTrue(status.out().contains("stack depth:         16"), status::toString);
            assertTrue(status.out().contains("options:             recording=on,") && status.out()
                    .contains("stackdepth=16,") && status.out().contains("dumpname=convoy-" + pid), status::toString);
            assertTrue(status.out().contains("events recorded:"), status::toString);
            assertTrue(status.out().contains("threads recorded:"), status::toString);

            assertEquals("recording stopped in " + pid + "\n", convoy("stop", pid).ok().out());
            assertTrue(convoy("status", pid).ok().out().contains("recording:           off"));
            assertEquals("recording started in " + pid + "\n", convoy("start", pid).ok().out());
            assertTrue(convoy("status", pid).ok().out().contains("recording:           on"));

            Cli contention = convoy("contanalysis", pid, "on");
            if (contention.code() == ConvoyCli.EXIT_OK) {
                assertTrue(convoy("status", pid).ok().out().contains("contention analysis: on"));
            } else {
                assertEquals(ConvoyCli.EXIT_FAILED, contention.code(), contention::toString);
                assertTrue(contention.err().startsWith("convoy: contanalysis: cannot set ContentionAnalysis to true in pid " + pid
                        + ": "), contention::toString);
                assertFalse(contention.err().contains("Exception"), () -> "the MBean's reason, not a wrapper: "
                        + contention);
            }
            assertEquals(ConvoyCli.EXIT_OK, convoy("contanalysis", pid, "off").code());

            Path out = work.resolve("dumps/not/yet/there");
            Path chrome = out.resolve("trace.json");
            assertEquals(chrome + "\n", convoy("dump", pid, "--format", "chrome", "-o", chrome).ok().out());
            List<JsonNode> events = ChromeTraceChecker.check(chrome);
            assertFalse(events.isEmpty(), "the Chrome trace has traceEvents");

            Path tptp = out.resolve("trace.trcxml");
            assertEquals(tptp + "\n", convoy("dump", pid, "--format", "tptp", "-o", tptp).ok().out());
            TptpValidator.validate(tptp);

            Cli csv = convoy("dump", pid, "--format", "csv", "-o", out.resolve("logs.csv")).ok();
            Path meta = out.resolve("logs.meta.csv");
            Path eventLog = out.resolve("logs.events.csv");
            Path losses = out.resolve("logs.losses.csv");
            assertEquals(meta + "\n" + eventLog + "\n" + losses + "\n", csv.out());
            assertTrue(Files.size(meta) > 0 && Files.size(eventLog) > 0);
            CsvLogReader.read(meta, eventLog);
            CsvSpecReader.read(meta, eventLog);
            CsvLogReader.readLosses(losses);

            Path snap = out.resolve("deadlock.cvysnap");
            assertEquals(snap + "\n", convoy("dump", pid, "--format", "snapshot", "-o", snap).ok().out());
            try (var files = Files.list(out)) {
                assertTrue(files.noneMatch(p -> p.getFileName().toString().endsWith(".tmp")), "no temporary left");
            }
            Recording r = SnapshotReader.read(snap);
            RecordedThread a = thread(r, Deadlock.THREAD_A);
            RecordedThread b = thread(r, Deadlock.THREAD_B);
            for (RecordedThread[] pair : new RecordedThread[][] {{a, b}, {b, a}}) {
                RecordedThread self = pair[0];
                RecordedThread other = pair[1];
                // Blocked before the attach: never seen entering, but listed, and blocked at snapshot time.
                assertTrue(self.isLate(), () -> self + " was running before the agent");
                MonitorState state = r.monitorState(self.ringId()).orElseThrow(
                        () -> new AssertionError("no snapshot-time monitor state for " + self.name()));
                assertEquals(other.javaThreadId(), state.ownerThreadId(), () -> self.name() + ": " + state);
            }

            // A window: the snapshot's last 200 ms, cut here, holds what the window's times hold.
            Path win = out.resolve("window.cvysnap");
            assertEquals(win + "\n", convoy("dump", pid, "--format", "snapshot", "-o", win, "--since", "200ms").ok()
                    .out());
            Recording cut = SnapshotReader.read(win);
            long lo = Long.parseLong(cut.info().get("start.monotonic.ns"));
            long hi = Long.parseLong(cut.info().get("snapshot.monotonic.ns"));
            assertTrue(hi - lo <= 200_000_000L && cut.info().get("window") != null, () -> cut.info().toString());
            assertTrue(cut.threads().stream().allMatch(t -> t.events().stream().allMatch(e -> e.ts() >= lo
                    && e.ts() <= hi)), "nothing outside the window");
            Cli badWindow = convoy("dump", pid, "--format", "chrome", "--since", "a while");
            assertEquals(ConvoyCli.EXIT_USAGE, badWindow.code(), badWindow::toString);
            assertTrue(badWindow.err().contains("'a while' is not a duration"), badWindow::toString);

            Cli again = convoy("attach", pid, "stackdepth=16").ok();
            assertTrue(again.out().startsWith("Convoy is already attached to " + pid), again::toString);

            Cli other = convoy("attach", pid, "stackdepth=32");
            assertEquals(ConvoyCli.EXIT_FAILED, other.code(), other::toString);
            assertTrue(other.err().startsWith("convoy: attach: Convoy already runs in " + pid + " with options "),
                    other::toString);
            assertTrue(other.err().contains("stackdepth=16") && other.err().contains("; cannot attach with ")
                    && other.err().contains("stackdepth=32"), other::toString);
            assertTrue(convoy("status", pid).ok().out().contains("stack depth:         16"), "unchanged");

            assertEquals(0, target.exit(), target::toString);
            assertTrue(target.out().contains(Deadlock.RELEASED_MARKER), target::toString);
            assertFalse(target.err().contains("WARNING"), target::toString);
            assertFalse(target.err().contains("FATAL") || target.err().contains("hs_err"), target::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void anAgentThatCannotStartInTheTargetReportsItsOwnReason(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path notADirectory = Files.writeString(work.resolve("plain-file"), "x");
        try (Target target = new Target(jdk, work, "-Dconvoy.tmpdir=" + notADirectory)) {
            long pid = target.pid();
            Cli failed = convoy("attach", pid, "stackdepth=16");
            assertEquals(ConvoyCli.EXIT_FAILED, failed.code(), failed::toString);
            assertTrue(failed.err().startsWith("convoy: attach: Convoy failed to start in " + pid + ": "), failed::toString);
            assertTrue(failed.err().contains("cannot extract the native library to " + notADirectory
                    + ": not a directory"),
                    () -> "the agent's reason, not the Attach API's \"agent failed to initialize\": " + failed);
            Cli status = convoy("status", pid);
            assertEquals(ConvoyCli.EXIT_FAILED, status.code(), status::toString);
            assertTrue(status.err().contains("Convoy is not loaded in " + pid), status::toString);
            assertEquals(0, target.exit(), () -> "the application runs on untouched: " + target);
            assertTrue(target.out().contains(Deadlock.RELEASED_MARKER), target::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aRecorderOffSinceTheJvmStartedSaysWhyToStatusStartAndAttach(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Path notADirectory = Files.writeString(work.resolve("plain-file"), "x");
        String why = "cannot extract the native library to " + notADirectory + ": not a directory";
        try (Target target = new Target(jdk, work, "-javaagent:" + ChildJvm.agentJar(),
                "-Dconvoy.tmpdir=" + notADirectory)) {
            long pid = target.pid();
            assertTrue(target.err().startsWith("[convoy] recorder off: " + why), target::toString);
            Cli status = convoy("status", pid).ok();
            assertTrue(status.out().contains(String.format("  %-20s %s%n", "recording:", "off")), status::toString);
            assertTrue(status.out().contains(String.format("  %-20s %s", "recorder:", "off: " + why)), status::toString);
            Cli start = convoy("start", pid);
            assertEquals(ConvoyCli.EXIT_FAILED, start.code(), start::toString);
            assertTrue(start.err().contains("recorder off: " + why), start::toString);
            Cli attach = convoy("attach", pid);
            assertEquals(ConvoyCli.EXIT_FAILED, attach.code(), attach::toString);
            assertTrue(attach.err().startsWith("convoy: attach: Convoy is loaded in " + pid + " but its recorder is off: "
                    + why), attach::toString);
            assertEquals(0, target.exit(), () -> "the application ran on: " + target);
            assertTrue(target.out().contains(Deadlock.RELEASED_MARKER), target::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void onJdk21AndLaterAttachSaysHowToAvoidTheTargetsWarning(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        assumeTrue(jdk.feature() >= 21, "JDK 21+ warns about dynamically loaded agents; " + jdk + " does not");
        try (Target target = new Target(jdk, work, false)) {
            long pid = target.pid();
            Cli attach = convoy("attach", pid).ok();
            assertTrue(attach.err().contains("start it with -XX:+EnableDynamicAgentLoading"), attach::toString);
            assertTrue(target.err().contains("WARNING: A Java agent has been loaded dynamically"), target::toString);
            assertEquals(0, target.exit(), target::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aJvmThatRefusesAgentsAtRunTimeIsReportedBeforeLoading(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Process probe = new ProcessBuilder(jdk.java().toString(), "-XX:-EnableDynamicAgentLoading", "-version")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(probe.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS));
        assumeTrue(probe.exitValue() == 0, () -> jdk + " has no -XX:-EnableDynamicAgentLoading");
        try (Target target = new Target(jdk, work, false, "-XX:-EnableDynamicAgentLoading")) {
            long pid = target.pid();
            Cli refused = convoy("attach", pid, "stackdepth=16");
            assertEquals(ConvoyCli.EXIT_FAILED, refused.code(), refused::toString);
            assertEquals("convoy: attach: the JVM with pid " + pid + " was started with -XX:-EnableDynamicAgentLoading and "
                    + "refuses agents at run time; restart it without that option, or with "
                    + "-javaagent:convoy-agent.jar to record from the start\n", refused.err());
            assertEquals(0, target.exit(), target::toString);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void aJvmThatDisablesAttachingIsReportedAndUntouched(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        try (Target target = new Target(jdk, work, "-XX:+DisableAttachMechanism")) {
            long pid = target.pid();
            assertTrue(convoy("list").ok().out().lines().noneMatch(l -> l.startsWith(pid + " ")),
                    "list shows only JVMs that accept attaching");
            for (String command : new String[] {"status", "attach"}) {
                Cli refused = convoy(command, pid);
                assertEquals(ConvoyCli.EXIT_FAILED, refused.code(), refused::toString);
                assertEquals("convoy: " + command + ": the JVM with pid " + pid + " refuses to be attached to: it was "
                        + "started with -XX:+DisableAttachMechanism (restart it without that option, or with "
                        + "-javaagent:convoy-agent.jar to record from the start)\n", refused.err());
            }
            assertEquals(0, target.exit(), target::toString);
            assertTrue(target.out().contains(Deadlock.RELEASED_MARKER), target::toString);
        }
    }
}
