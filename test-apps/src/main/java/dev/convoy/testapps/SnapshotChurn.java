package dev.convoy.testapps;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads that start while snapshots copy the rings, at the memory cap. First {@code fill}
 * short-lived threads, one after another, fill the cap with the rings of ended threads. Then a
 * churner starts {@code threads} more, one after another (each does one timed wait of 1 ms on
 * its own {@link ThreadChurn.ChurnLock} and ends), while the caller takes Convoy snapshots
 * through its MBean without a pause until the churner is done. Every new thread needs the room of an ended one,
 * and most of them start while a snapshot holds every state it copies.
 *
 * <p>Threads: {@code fill-0 ..}, then {@code snap-churn-0 ..}, strictly in order; the
 * {@code churner}. Monitor class: {@code dev.convoy.testapps.ThreadChurn$ChurnLock}. Without a
 * Convoy agent it takes no snapshot and says so ({@code snapshots=-1}).
 */
public final class SnapshotChurn implements Scenario {

    public static final String NAME = "snapshot-churn";
    public static final String FILL_PREFIX = "fill-";
    public static final String THREAD_PREFIX = "snap-churn-";

    /** @param snapshots snapshots taken while the churner ran (-1: no agent) */
    public record Result(int threads, int waitsDone, int snapshots) implements ScenarioResult {

        @Override
        public boolean ok() {
            return waitsDone == threads;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "threads", threads, "waitsDone", waitsDone, "snapshots", snapshots);
        }
    }

    private final int fill;
    private final int threads;

    private SnapshotChurn(int fill, int threads) {
        if (fill < 0 || threads < 1) {
            throw new IllegalArgumentException("fill must be >= 0 and threads >= 1");
        }
        this.fill = fill;
        this.threads = threads;
    }

    public static SnapshotChurn create(int fill, int threads) {
        return new SnapshotChurn(fill, threads);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        Threads.Failures failures = new Threads.Failures();
        ThreadChurn.oneAfterAnother(FILL_PREFIX, fill, failures, new AtomicInteger());
        ConvoyMBean convoy = ConvoyMBean.find();
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger waits = new AtomicInteger();
        Thread churner = Threads.start("churner", failures, () -> {
            try {
                ThreadChurn.oneAfterAnother(THREAD_PREFIX, threads, failures, waits);
            } finally {
                done.set(true);
            }
        });
        int snapshots = 0;
        while (convoy != null && !done.get()) {
            convoy.invoke("snapshot");
            snapshots++;
        }
        Threads.awaitTermination(List.of(churner));
        failures.check();
        return new Result(threads, waits.get(), convoy == null ? -1 : snapshots);
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "SnapshotChurn [fill=200] [threads=500]", () -> {
            Cli.maxArgs(args, 2);
            return create(Cli.intArg(args, 0, "fill", 200, 0), Cli.intArg(args, 1, "threads", 500, 1));
        }));
    }
}
