package dev.convoy.testapps.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The ping-pong of {@link PingPong}, then the CPU time each recorder thread of this JVM used (from
 * {@code /proc/self/task/TID/schedstat}, ns): Convoy's history drain and object-reference maker, JFR's
 * recorder, periodic and sampler threads. One line:
 * {@code RECORDERCPU roundtrips=N nanos=N cpu.<thread>=NS ...}, thread names with spaces as
 * underscores. Used by {@code test-apps/perf/history-cpu.sh}, which runs it side by side with and
 * without each recorder.
 *
 * <p>Usage: {@code RecorderCpu [roundtrips]} (default 300,000).
 */
public final class RecorderCpu {

    /** The recorders' own threads, as /proc names them (at most 15 characters). */
    static final Pattern RECORDER_THREADS = Pattern.compile("Convoy.*|JFR.*|convoy-.*");

    private RecorderCpu() {
    }

    /** CPU ns of each recorder thread of this JVM, by name (threads of one name summed). */
    static Map<String, Long> recorderCpu() throws IOException {
        Map<String, Long> out = new LinkedHashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String name;
                String schedstat;
                try {
                    name = Files.readString(task.resolve("comm")).trim();
                    schedstat = Files.readString(task.resolve("schedstat")).trim();
                } catch (IOException gone) {
                    continue; // the thread ended meanwhile
                }
                if (RECORDER_THREADS.matcher(name).matches()) {
                    out.merge(name.replace(' ', '_'), Long.parseLong(schedstat.split(" ")[0]), Long::sum);
                }
            }
        }
        return out;
    }

    public static void main(String[] args) throws Exception {
        int roundtrips = args.length > 0 ? Integer.parseInt(args[0]) : 300_000;
        long nanos = PingPong.run(0, roundtrips);
        StringBuilder line = new StringBuilder("RECORDERCPU roundtrips=" + roundtrips + " nanos=" + nanos);
        for (Map.Entry<String, Long> e : recorderCpu().entrySet()) {
            line.append(" cpu.").append(e.getKey()).append('=').append(e.getValue());
        }
        System.out.println(line);
    }
}
