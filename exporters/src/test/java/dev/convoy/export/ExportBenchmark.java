package dev.convoy.export;

import static dev.convoy.snapshot.SnapshotFormat.*;

import dev.convoy.model.Frame;
import dev.convoy.model.LineEntry;
import dev.convoy.model.MethodInfo;
import dev.convoy.snapshot.SnapshotWriter;
import dev.convoy.testing.RecordingBuilder;
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
import java.util.SplittableRandom;

/**
 * Export throughput benchmark (not a test), see docs/performance.md, "Export throughput".
 *
 * <pre>
 * generate FILE [--events N] [--threads T] [--monitors M] [--seed S]
 *     writes a synthetic snapshot: T threads, M monitors, about N events of realistic
 *     enter/entered, wait/waited, notify, sleep/slept pairs with stacks
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

    static final long T0 = 1_000_000_000L;

    static void generate(String[] args) throws IOException {
        Path file = Path.of(args[1]);
        long events = Long.parseLong(opt(args, "--events", "5000000"));
        int threads = Integer.parseInt(opt(args, "--threads", "200"));
        int monitors = Integer.parseInt(opt(args, "--monitors", "1000"));
        long seed = Long.parseLong(opt(args, "--seed", "42"));
        RecordingBuilder b = synthetic(events, threads, monitors, seed);
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            SnapshotWriter.write(b.build(), os);
        }
        System.out.println(file + " " + Files.size(file) + " bytes");
    }

    /**
     * A synthetic recording of about {@code events} events. Each thread loops over: a
     * contended enter of a random monitor (ENTER with a stack, ENTERED 2-200 us later),
     * sometimes a wait on it (WAIT with a stack and a timeout, WAITED notified or timed
     * out), a notify, a sleep. A GC ring holds a pause every ~5 ms.
     */
    public static RecordingBuilder synthetic(long events, int threads, int monitors, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long epoch = 1_700_000_000_000_000_000L;
        long perThread = events / threads;
        long duration = perThread * 40_000L; // ~40 us per event per thread
        RecordingBuilder b = new RecordingBuilder()
                .info("agent.version", "0.1.0").info("pid", "31337")
                .info("java.command", "com.example.SyntheticLoad --threads " + threads)
                .info("start.monotonic.ns", Long.toString(T0))
                .info("start.epoch.ns", Long.toString(epoch))
                .info("snapshot.monotonic.ns", Long.toString(T0 + duration + 1_000_000))
                .info("snapshot.epoch.ns", Long.toString(epoch + duration + 1_000_000));
        int classes = 60;
        for (int c = 0; c < classes; c++) {
            b.clazz(100 + c, "Lcom/example/app/pkg" + (c % 7) + "/Component" + c + ";", "Component" + c + ".java");
        }
        b.clazz(99, "Ljava/lang/Thread;", "Thread.java");
        int methods = 400;
        long[] mids = new long[methods];
        for (int m = 0; m < methods; m++) {
            mids[m] = 0x7F00_0000_0000L + m * 0x40L;
            b.method(MethodInfo.of(mids[m], 100 + m % classes, "method" + m, "(Ljava/lang/Object;J)V",
                    new LineEntry(0, 10 + m), new LineEntry(8, 11 + m), new LineEntry(20, 14 + m)));
        }
        int stacks = 800;
        for (int s = 1; s <= stacks; s++) {
            int depth = 4 + rnd.nextInt(12);
            Frame[] fr = new Frame[depth];
            for (int d = 0; d < depth; d++) {
                fr[d] = new Frame(mids[rnd.nextInt(methods)], rnd.nextInt(30));
            }
            b.stack(s, false, fr);
        }
        long monBase = 1_000_000;
        for (int m = 0; m < monitors; m++) {
            b.object(monBase + m, 0x5000_0000 + m, OBJ_PLAIN, 100 + m % classes);
        }
        long thrBase = 10_000;
        for (int t = 0; t < threads; t++) {
            b.object(thrBase + t, 0x6000_0000 + t, OBJ_THREAD, 99);
        }
        for (int t = 0; t < threads; t++) {
            String name = t == 0 ? "main" : "worker-" + t;
            long start = T0 + rnd.nextInt(1_000_000);
            boolean ends = t % 10 == 9;
            RecordingBuilder.ThreadBuilder tb = b.thread(t + 1, t + 1, thrBase + t, name);
            tb.event(start, EVENT_THREAD_START, 0, thrBase + t, t + 1);
            long now = start;
            long n = 1;
            while (n < perThread - (ends ? 1 : 0) - 1) {
                long mon = monBase + rnd.nextInt(monitors);
                int kind = rnd.nextInt(100);
                now += 5_000 + rnd.nextInt(30_000);
                if (kind < 60) {
                    tb.event(now, EVENT_MONITOR_ENTER, 1 + rnd.nextInt(stacks), mon, 0);
                    now += 2_000 + rnd.nextInt(200_000);
                    tb.event(now, EVENT_MONITOR_ENTERED, 0, mon, 0);
                    n += 2;
                } else if (kind < 85) {
                    long timeout = rnd.nextInt(3) == 0 ? 50 : 0;
                    tb.event(now, EVENT_MONITOR_WAIT, 1 + rnd.nextInt(stacks), mon, timeout);
                    now += 10_000 + rnd.nextInt(400_000);
                    tb.event(now, EVENT_MONITOR_WAITED, timeout != 0 && rnd.nextBoolean() ? FLAG_TIMED_OUT : 0, 0,
                            mon, 0, 0);
                    n += 2;
                } else if (kind < 93) {
                    tb.event(now, rnd.nextInt(4) == 0 ? EVENT_NOTIFY_ALL : EVENT_NOTIFY, 0,
                            1 + rnd.nextInt(stacks), mon, 0, 0);
                    n += 1;
                } else {
                    tb.event(now, EVENT_SLEEP, 1 + rnd.nextInt(stacks), 0, 1);
                    now += 1_000_000;
                    tb.event(now, EVENT_SLEPT, 0, 0, 0);
                    n += 2;
                }
            }
            if (ends) {
                now += 1000;
                tb.event(now, EVENT_THREAD_END, 0, thrBase + t, t + 1);
                tb.flags(RING_ENDED).span(start, now);
            } else {
                tb.span(start, 0);
            }
        }
        RecordingBuilder.ThreadBuilder gc = b.thread(100_000, -1, 0, "GC").flags(RING_SYSTEM).span(T0, 0).group("", "");
        for (long ts = T0 + 5_000_000; ts < T0 + duration; ts += 5_000_000) {
            gc.event(ts, EVENT_GC_START, 0, 0, 0).event(ts + 300_000, EVENT_GC_FINISH, 0, 0, 0);
        }
        return b;
    }

    static void run(String[] args) throws Exception {
        Path file = Path.of(args[1]);
        String format = opt(args, "--format", "chrome");
        Path dir = Path.of(opt(args, "--out", System.getProperty("java.io.tmpdir")));
        Path out = dir.resolve("export-bench-" + format + Format.parse(format).suffix());
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
        switch (Format.parse(format)) {
            case CHROME -> new ChromeTraceWriter().write(r, sink);
            case TPTP -> new TptpXmlWriter().write(r, sink);
            case CSV -> {
                new CsvLogWriter().writeMeta(r, sink);
                new CsvLogWriter().writeEvents(r, sink);
            }
            default -> throw new IllegalArgumentException("--discard: chrome, tptp or csv");
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
