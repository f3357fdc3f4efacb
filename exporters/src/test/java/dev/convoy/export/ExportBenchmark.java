package dev.convoy.export;

import dev.convoy.cli.Convert;
import dev.convoy.snapshot.SnapshotWriter;
import dev.convoy.testing.RecordingBuilder;
import dev.convoy.testing.SyntheticRecordings;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Export throughput benchmark (not a test), see docs/performance.md, "Results: export throughput".
 *
 * <pre>
 * generate FILE [--events N] [--threads T] [--monitors M] [--seed S]
 *     writes a synthetic snapshot ({@link SyntheticRecordings#synthetic}): T threads, M monitors,
 *     about N events of realistic enter/entered, wait/waited, notify, sleep/slept pairs with stacks
 * run FILE --format chrome|tptp|csv [--out DIR] [--discard]
 *     converts FILE like {@code ./convoy convert} (same code path: {@link Convert#run})
 *     and prints one line: format, events, seconds, events/s, peak heap, output bytes;
 *     with --discard the same reader and writer, into a stream that only counts the bytes
 *     (the conversion's own cost, without the file system's)
 * </pre>
 *
 * Peak heap is the largest heap occupancy sampled after each collection (the sum of the
 * heap pools' collection usage peaks, reset before the run) and the pools' own peak
 * usage; run each format in a fresh JVM so that one format's garbage does not count for
 * another's.
 */
public final class ExportBenchmark {
    private ExportBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: ExportBenchmark generate FILE [--events N] [--threads T] [--monitors M]\n"
                    + "       ExportBenchmark run FILE --format F [--out DIR] [--discard]");
            System.exit(2);
        }
        switch (args[0]) {
            case "generate" -> generate(args);
            case "run" -> run(args);
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    static String opt(String[] args, String name, String dflt) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return dflt;
    }

    static void generate(String[] args) throws IOException {
        Path file = Path.of(args[1]);
        long events = Long.parseLong(opt(args, "--events", "5000000"));
        int threads = Integer.parseInt(opt(args, "--threads", "200"));
        int monitors = Integer.parseInt(opt(args, "--monitors", "1000"));
        long seed = Long.parseLong(opt(args, "--seed", "42"));
        RecordingBuilder b = SyntheticRecordings.synthetic(events, threads, monitors, seed);
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            SnapshotWriter.write(b.build(), os);
        }
        System.out.println(file + " " + Files.size(file) + " bytes");
    }

    static void run(String[] args) throws Exception {
        Path file = Path.of(args[1]);
        String format = opt(args, "--format", "chrome");
        Path dir = Path.of(opt(args, "--out", System.getProperty("java.io.tmpdir")));
        Path out = dir.resolve("export-bench-" + format + Output.defaultName("", Output.select(format)));
        long events = countEvents(file);
        List<MemoryPoolMXBean> heap = new ArrayList<>();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                heap.add(p);
            }
        }
        System.gc();
        long[] maxLive = new long[1];
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc).addNotificationListener((n, hb) -> {
                if (!n.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                    return;
                }
                GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from(
                        (CompositeData) n.getUserData());
                long live = 0;
                for (MemoryPoolMXBean p : heap) {
                    MemoryUsage u = info.getGcInfo().getMemoryUsageAfterGc().get(p.getName());
                    live += u == null ? 0 : u.getUsed();
                }
                synchronized (maxLive) {
                    maxLive[0] = Math.max(maxLive[0], live);
                }
            }, null, null);
        }
        heap.forEach(MemoryPoolMXBean::resetPeakUsage);
        long baseline = used(heap);
        boolean discard = List.of(args).contains("--discard");
        long t0 = System.nanoTime();
        int rc = discard ? discard(file, format) : Convert.run(new String[] {file.toString(), "--format", format,
            "-o", out.toString()}, new PrintStream(OutputStream.nullOutputStream()), System.err);
        long t1 = System.nanoTime();
        if (rc != 0) {
            throw new IllegalStateException("convert failed: " + rc);
        }
        long peakPools = 0;
        for (MemoryPoolMXBean p : heap) {
            peakPools += p.getPeakUsage().getUsed();
        }
        System.gc(); // the last collection's notification
        Thread.sleep(200);
        long live;
        synchronized (maxLive) {
            live = maxLive[0];
        }
        long bytes = discarded;
        for (Path p : discard ? List.<Path>of() : format.equals("csv")
                ? List.of(CsvLogWriter.metaPath(out), CsvLogWriter.eventsPath(out)) : List.of(out)) {
            bytes += Files.size(p);
            Files.delete(p);
        }
        double s = (t1 - t0) / 1e9;
        System.out.println(String.format(Locale.ROOT,
                "%-6s events=%d seconds=%.2f events_per_s=%.0f peak_heap_mb=%.0f max_live_after_gc_mb=%.0f"
                        + " baseline_heap_mb=%.0f output_mb=%.0f",
                format, events, s, events / s, peakPools / 1048576.0, live / 1048576.0, baseline / 1048576.0,
                bytes / 1048576.0));
    }

    static long discarded;

    /**
     * {@code --discard}: the conversion's own work without the file system's: the snapshot read
     * as {@code convert} reads it, the format written by the same writer to a stream that only
     * counts the bytes.
     */
    static int discard(Path file, String format) throws IOException {
        dev.convoy.model.Recording r = dev.convoy.snapshot.SnapshotReader.read(file, (done, total) -> {
        });
        OutputStream sink = new OutputStream() {
            @Override
            public void write(int b) {
                discarded++;
            }

            @Override
            public void write(byte[] b, int off, int len) {
                discarded += len;
            }
        };
        for (Output o : Output.select(format)) {
            o.write(r, sink);
        }
        return 0;
    }

    static long used(List<MemoryPoolMXBean> pools) {
        long u = 0;
        for (MemoryPoolMXBean p : pools) {
            u += p.getUsage().getUsed();
        }
        return u;
    }

    /** Records in SECTION_THREADS, from the file (without reading it into the model). */
    static long countEvents(Path file) throws IOException {
        return dev.convoy.snapshot.SnapshotReader.read(file).threads().stream().mapToLong(t -> t.events().size())
                .sum();
    }
}
