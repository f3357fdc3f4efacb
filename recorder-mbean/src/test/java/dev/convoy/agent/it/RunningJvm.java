package dev.convoy.agent.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;

/**
 * A test app kept running in a child JVM (e.g. {@code Deadlock --hold-until-stdin-eof}) for
 * tests that talk to it while it runs. Closing it closes the child's stdin, which lets a
 * holding app exit normally; it is killed only if it does not.
 */
public final class RunningJvm implements AutoCloseable {

    private final Process process;
    private final OutputStream stdin;
    private final List<String> stdout = new CopyOnWriteArrayList<>();
    private final List<String> stderr = new CopyOnWriteArrayList<>();
    private final Thread stdoutPump;
    private final Thread stderrPump;

    private RunningJvm(Process process) {
        this.process = process;
        this.stdin = process.getOutputStream();
        stdoutPump = pump(process.getInputStream(), stdout, "stdout");
        stderrPump = pump(process.getErrorStream(), stderr, "stderr");
    }

    private static Thread pump(java.io.InputStream in, List<String> into, String name) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    into.add(line);
                }
            } catch (IOException e) {
                into.add("<" + name + " closed: " + e + ">");
            }
        }, "child-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Starts {@code mainClass args} from the test apps on {@code jdk} with the given JVM arguments. */
    public static RunningJvm start(Jdks.Jdk jdk, Path workDir, List<String> jvmArgs, String mainClass, String... args)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(jdk.java().toString());
        cmd.add("-Xmx256m");
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(ChildJvm.testAppsClasspath());
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        return new RunningJvm(new ProcessBuilder(cmd).directory(workDir.toFile()).start());
    }

    public long pid() {
        return process.pid();
    }

    /** Waits (bounded, generously) until the child printed {@code line}. */
    public void awaitLine(String line) {
        Awaitility.await("stdout line '" + line + "'").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .failFast("the child exited\n" + output(), () -> !process.isAlive())
                .until(() -> stdout.contains(line));
    }

    /** Waits (bounded, generously) until the child printed a line starting with {@code prefix}. */
    public void awaitLineStartingWith(String prefix) {
        Awaitility.await("stdout line starting with '" + prefix + "'").atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(20))
                .failFast("the child exited\n" + output(), () -> !process.isAlive())
                .until(() -> stdout.stream().anyMatch(l -> l.startsWith(prefix)));
    }

    /**
     * Waits (bounded, generously) until the child printed {@code count} lines starting with
     * {@code prefix}; returns the first {@code count} of them.
     */
    public List<String> awaitLinesStartingWith(String prefix, int count) {
        Awaitility.await(count + " stdout lines starting with '" + prefix + "'").atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(20))
                .failFast("the child exited\n" + output(), () -> !process.isAlive())
                .until(() -> stdout.stream().filter(l -> l.startsWith(prefix)).count() >= count);
        return stdout.stream().filter(l -> l.startsWith(prefix)).limit(count).toList();
    }

    /** Writes one line to the child's stdin. */
    public void send(String line) throws IOException {
        stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
    }

    /** Every line printed on stdout so far (after {@link #finish}: all of them). */
    public List<String> stdout() {
        return stdout;
    }

    public String output() {
        return "stdout:\n" + String.join("\n", stdout) + "\nstderr:\n" + String.join("\n", stderr);
    }

    public List<String> stderr() {
        return stderr;
    }

    /** Closes stdin and waits for a normal exit and the end of its output; returns the exit code. */
    public int finish() throws IOException, InterruptedException {
        stdin.close();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the child did not exit after its stdin closed\n" + output());
        }
        stdoutPump.join(TimeUnit.SECONDS.toMillis(30));
        stderrPump.join(TimeUnit.SECONDS.toMillis(30));
        return process.exitValue();
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            try {
                stdin.close();
            } catch (IOException ignored) {
                // already closed
            }
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
