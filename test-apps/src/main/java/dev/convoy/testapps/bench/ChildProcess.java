package dev.convoy.testapps.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a benchmark child process to its end and collects its output (stdout and stderr merged). */
public final class ChildProcess {

    /** Exit code and output lines of a finished child. */
    public record Output(int exitCode, List<String> lines) {
    }

    private ChildProcess() {
    }

    /**
     * Runs {@code cmd} in {@code dir} (null: the current directory), killing it and failing
     * after {@code timeoutMinutes}.
     */
    public static Output run(List<String> cmd, File dir, long timeoutMinutes) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (dir != null) {
            pb.directory(dir);
        }
        Process p = pb.start();
        List<String> lines = new ArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader br = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String l;
                while ((l = br.readLine()) != null) {
                    synchronized (lines) {
                        lines.add(l);
                    }
                }
            } catch (IOException ignored) {
                // the process died; its exit code tells
            }
        }, "child-output");
        reader.setDaemon(true);
        reader.start();
        if (!p.waitFor(timeoutMinutes, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IOException("timed out after " + timeoutMinutes + " minutes: " + String.join(" ", cmd));
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
        synchronized (lines) {
            return new Output(p.exitValue(), List.copyOf(lines));
        }
    }
}
