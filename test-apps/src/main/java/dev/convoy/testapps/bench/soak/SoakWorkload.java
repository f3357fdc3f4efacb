package dev.convoy.testapps.bench.soak;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

import dev.convoy.testapps.ConvoyMBean;
import dev.convoy.testapps.bench.BenchArgs;

/**
 * The soak benchmark's application, run under the agent: a churny always-on workload and
 * the measurements, taken through the agent's own MBean (open types only, no Convoy class).
 *
 * <p>Workload, for {@code --seconds S}: a few steady workers contending on a handful of
 * locks with short waits; a churn of short-lived threads, each blocking on a lock object
 * made for it and waiting on another (a new thread and new lock objects every few
 * milliseconds: a server that creates threads and locks forever), each thread allocating
 * {@code --garbage-kb} of short-lived data (default 64, about 10 MB/s: what a request
 * handler allocates, so that young collections come every few seconds and the ids of
 * collected lock objects return to the recorder; with 0 the heap fills so slowly that lock
 * objects wait minutes for a collection, and the object table fills in between).
 *
 * <p>Every {@code --sample-ms} it writes a line of {@code samples.csv}: seconds since start,
 * MemoryInUseBytes, MemoryCapBytes, EventsRecorded, EventsDropped, ThreadsRecorded,
 * ObjectsDropped, StacksDropped, threads started, lock objects made, EventsOverwritten,
 * EventsAgedOut, HistoryBytes, HistoryMaxBytes and the bytes of the files under
 * {@code --repository} (the agent's repository folder, when it has one). Every
 * {@code --dump-every} seconds it takes a snapshot and writes it as a binary snapshot and as a
 * Chrome trace (the same two names each time), with the time each took, into
 * {@code dumps.csv}.
 */
public final class SoakWorkload {

    static final String HEADER = "seconds,memoryInUse,memoryCap,eventsRecorded,eventsDropped,threadsRecorded,"
            + "objectsDropped,stacksDropped,threadsStarted,locksMade,eventsOverwritten,eventsAgedOut,historyBytes,"
            + "historyMaxBytes,repositoryBytes";
    static final String DUMP_HEADER = "seconds,snapshotMs,dumpSnapshotMs,dumpChromeMs,snapshotBytes,chromeBytes,"
            + "recordsDropped";

    private static final AtomicLong THREADS = new AtomicLong();
    private static final AtomicLong LOCKS = new AtomicLong();

    private SoakWorkload() {
    }

    public static void main(String[] argv) throws Exception {
        BenchArgs a = BenchArgs.parse(argv, List.of("--seconds", "--sample-ms", "--dump-every", "--out", "--dumpdir",
                "--garbage-kb", "--repository"), List.of());
        int seconds = a.intArg("--seconds", 60, 1);
        int sampleMs = a.intArg("--sample-ms", 1000, 10);
        int dumpEvery = a.intArg("--dump-every", 30, 1);
        int garbageKb = a.intArg("--garbage-kb", 64, 0);
        Path out = Path.of(a.required("--out", "(the folder of samples.csv and dumps.csv)"));
        Path dumpDir = Path.of(a.required("--dumpdir", "(the agent's dumpdir, to measure the files)"));
        Path repository = a.get("--repository") == null ? null : Path.of(a.get("--repository"));
        Files.createDirectories(out);

        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName convoy = ConvoyMBean.objectName();
        if (!server.isRegistered(convoy)) {
            System.err.println("soak: the Convoy agent is not running in this JVM");
            System.exit(2);
        }
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> load = new ArrayList<>();
        Object[] locks = {new Object(), new Object(), new Object(), new Object()};
        for (int w = 0; w < 4; w++) {
            int id = w;
            Thread t = new Thread(() -> steady(locks, id, stop), "soak-worker-" + w);
            t.setDaemon(true);
            load.add(t);
        }
        Thread churn = new Thread(() -> churn(stop, garbageKb), "soak-churn");
        churn.setDaemon(true);
        load.add(churn);
        load.forEach(Thread::start);

        long t0 = System.nanoTime();
        long nextDump = dumpEvery * 1000L;
        try (PrintWriter samples = new PrintWriter(Files.newBufferedWriter(out.resolve("samples.csv"),
                StandardCharsets.UTF_8));
             PrintWriter dumps = new PrintWriter(Files.newBufferedWriter(out.resolve("dumps.csv"),
                     StandardCharsets.UTF_8))) {
            samples.println(HEADER);
            dumps.println(DUMP_HEADER);
            long elapsedMs;
            while ((elapsedMs = (System.nanoTime() - t0) / 1_000_000) < seconds * 1000L) {
                samples.println(String.format(Locale.ROOT, "%.3f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d",
                        elapsedMs / 1000.0,
                        (Long) server.getAttribute(convoy, "MemoryInUseBytes"),
                        (Long) server.getAttribute(convoy, "MemoryCapBytes"),
                        (Long) server.getAttribute(convoy, "EventsRecorded"),
                        (Long) server.getAttribute(convoy, "EventsDropped"),
                        (Long) server.getAttribute(convoy, "ThreadsRecorded"),
                        (Long) server.getAttribute(convoy, "ObjectsDropped"),
                        (Long) server.getAttribute(convoy, "StacksDropped"), THREADS.get(), LOCKS.get(),
                        (Long) server.getAttribute(convoy, "EventsOverwritten"),
                        (Long) server.getAttribute(convoy, "EventsAgedOut"),
                        (Long) server.getAttribute(convoy, "HistoryBytes"),
                        (Long) server.getAttribute(convoy, "HistoryMaxBytes"), treeSize(repository)));
                samples.flush();
                if (elapsedMs >= nextDump) {
                    nextDump += dumpEvery * 1000L;
                    dumps.println(dump(server, convoy, dumpDir, elapsedMs / 1000.0));
                    dumps.flush();
                }
                Thread.sleep(sampleMs);
            }
        }
        stop.set(true);
        System.out.println("soak: done after " + seconds + " s, " + THREADS.get() + " threads, " + LOCKS.get()
                + " lock objects");
    }

    private static String dump(MBeanServer server, ObjectName convoy, Path dumpDir, double at) throws Exception {
        String[] sig = {String.class.getName(), String.class.getName()};
        long s0 = System.nanoTime();
        CompositeData summary = (CompositeData) server.invoke(convoy, "snapshot", new Object[0], new String[0]);
        long s1 = System.nanoTime();
        server.invoke(convoy, "dump", new Object[] {"snapshot", "soak.cvysnap"}, sig);
        long s2 = System.nanoTime();
        server.invoke(convoy, "dump", new Object[] {"chrome", "soak.json"}, sig);
        long s3 = System.nanoTime();
        return String.format(Locale.ROOT, "%.3f,%.1f,%.1f,%.1f,%d,%d,%d", at, (s1 - s0) / 1e6, (s2 - s1) / 1e6,
                (s3 - s2) / 1e6, size(dumpDir.resolve("soak.cvysnap")), size(dumpDir.resolve("soak.json")),
                (Long) summary.get("recordsDropped"));
    }

    /** Bytes of the files under {@code dir} (the repository's chunk files); 0 without one. */
    static long treeSize(Path dir) {
        if (dir == null || !Files.isDirectory(dir)) {
            return 0;
        }
        try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(SoakWorkload::size).filter(n -> n > 0).sum();
        } catch (IOException | java.io.UncheckedIOException e) {
            return -1; // a chunk deleted while it was measured: the next sample has it right
        }
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return -1;
        }
    }

    /** Contends on a few fixed locks with short waits. */
    private static void steady(Object[] locks, int id, AtomicBoolean stop) {
        long n = 0;
        while (!stop.get()) {
            Object lock = locks[(int) (n++ % locks.length)];
            synchronized (lock) {
                busy(20_000);
                if (n % 50 == id) {
                    try {
                        lock.wait(1);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            sleep(1);
        }
    }

    /** A new thread every few ms: it blocks on a new lock held by its starter and waits on another. */
    /** Where the churn threads' garbage goes, so that it is allocated. */
    static volatile byte[] sink;

    private static void churn(AtomicBoolean stop, int garbageKb) {
        while (!stop.get()) {
            Object held = new Object();
            Object waited = new Object();
            LOCKS.addAndGet(2);
            Thread t;
            synchronized (held) {
                t = new Thread(() -> {
                    if (garbageKb > 0) {
                        byte[] g = new byte[garbageKb * 1024];
                        g[g.length - 1] = 1;
                        sink = g;
                    }
                    synchronized (held) {
                        held.hashCode();
                    }
                    synchronized (waited) {
                        try {
                            waited.wait(1);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }, "soak-churn-" + THREADS.incrementAndGet());
                t.start();
                while (t.getState() != Thread.State.BLOCKED && t.isAlive()) {
                    Thread.onSpinWait();
                }
            }
            try {
                t.join();
            } catch (InterruptedException e) {
                return;
            }
            sleep(2);
        }
    }

    private static void busy(long ns) {
        long end = System.nanoTime() + ns;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
