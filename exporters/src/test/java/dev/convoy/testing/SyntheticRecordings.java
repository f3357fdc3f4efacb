package dev.convoy.testing;

import static dev.convoy.snapshot.SnapshotFormat.*;

import dev.convoy.model.Frame;
import dev.convoy.model.LineEntry;
import dev.convoy.model.MethodInfo;
import java.util.SplittableRandom;

/**
 * Large synthetic recordings, the same for a given seed: the input of the export benchmark
 * ({@code dev.convoy.export.ExportBenchmark generate}) and of the tests that need many events
 * (heap, streaming and progress tests of the exporters).
 */
public final class SyntheticRecordings {
    private SyntheticRecordings() {
    }

    /** Monotonic ns at which a synthetic recording starts. */
    public static final long T0 = 1_000_000_000L;

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
}
