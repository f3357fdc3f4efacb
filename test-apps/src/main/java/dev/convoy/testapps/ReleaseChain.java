package dev.convoy.testapps;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import jdk.jfr.Recording;

/**
 * Ground truth for the releaser of every contended acquisition of one monitor, while JFR
 * recordings that enable {@code jdk.JavaMonitorEnter} start and stop. {@code T} threads pass one
 * {@link ChainLock} among themselves, every acquisition contended: the holder lets the lock go
 * only once every other thread is BLOCKED on it, and a thread that let it go tries again only
 * once another thread holds it. Inside the lock each acquirer notes the thread that held it
 * before (its releaser) and takes its place, so the releaser of every acquisition is known
 * exactly; no thread ever takes the lock without blocking first.
 *
 * <p>JFR ({@code jfr}): {@code flip} starts and stops an in-memory recording of
 * {@code jdk.JavaMonitorEnter} (threshold one hour: nothing is committed) over and over on a
 * thread of its own, about 2 ms on and 1 ms off, and the hand-offs go on until both
 * {@code handoffs} were made and {@code flips} recordings were started and stopped; {@code on}
 * keeps one such recording running throughout; {@code off} starts none; {@code await} starts none
 * and waits, before the first hand-off, until a recording named {@code convoy-releasers} (the one
 * the Convoy agent starts by default) runs.
 *
 * <p>The summary lists, per thread, its Java thread id and the Java thread ids of its releasers in
 * the order of its acquisitions (the first acquisition's releaser is the thread that ran
 * {@code run()}, which held the lock while the others started).
 *
 * <p>Threads: {@code chain-0 .. chain-(T-1)}, {@code jfr-flipper}. Monitor class:
 * {@code dev.convoy.testapps.ReleaseChain$ChainLock}.
 */
public final class ReleaseChain implements Scenario {

    public static final String NAME = "release-chain";
    public static final String THREAD_PREFIX = "chain-";

    /** The monitor handed around; its fields are guarded by it. */
    public static final class ChainLock {
        long lastHolder;
        int acquisitions;
    }

    /**
     * @param ids       Java thread id per chain thread
     * @param releasers per chain thread, the releaser's Java thread id of each of its acquisitions
     * @param flips     JFR recordings started and stopped
     */
    public record Result(int threads, int handoffs, String jfr, int flips, List<Long> ids, List<List<Long>> releasers)
            implements ScenarioResult {

        @Override
        public boolean ok() {
            int total = releasers.stream().mapToInt(List::size).sum();
            for (int t = 0; t < releasers.size(); t++) {
                long self = ids.get(t);
                if (releasers.get(t).stream().anyMatch(r -> r == self || r <= 0)) {
                    return false;
                }
            }
            return total >= handoffs;
        }

        @Override
        public String summary() {
            StringBuilder sb = new StringBuilder(ScenarioResult.line(NAME, ok(), "threads", threads, "handoffs",
                    releasers.stream().mapToInt(List::size).sum(), "jfr", jfr, "flips", flips));
            for (int t = 0; t < releasers.size(); t++) {
                sb.append('\n').append(ScenarioResult.line(NAME, ok(), "thread", THREAD_PREFIX + t, "id", ids.get(t),
                        "releasers", releasers.get(t)));
            }
            return sb.toString();
        }
    }

    private final int threads;
    private final int handoffs;
    private final String jfr;
    private final int flips;

    private ReleaseChain(int threads, int handoffs, String jfr, int flips) {
        if (threads < 2 || handoffs < 1 || flips < 0) {
            throw new IllegalArgumentException("threads must be >= 2, handoffs >= 1, flips >= 0");
        }
        if (!List.of("off", "on", "flip", "await").contains(jfr)) {
            throw new IllegalArgumentException("jfr must be off, on, flip or await, got " + jfr);
        }
        this.threads = threads;
        this.handoffs = handoffs;
        this.jfr = jfr;
        this.flips = jfr.equals("flip") ? flips : 0;
    }

    public static ReleaseChain create(int threads, int handoffs, String jfr, int flips) {
        return new ReleaseChain(threads, handoffs, jfr, flips);
    }

    @Override
    public String name() {
        return NAME;
    }

    private static Recording recording() {
        Recording r = new Recording();
        r.setToDisk(false);
        r.enable("jdk.JavaMonitorEnter").withThreshold(Duration.ofHours(1)).withoutStackTrace();
        return r;
    }

    @Override
    public Result run() throws InterruptedException {
        ChainLock lock = new ChainLock();
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong holder = new AtomicLong();
        AtomicInteger flipped = new AtomicInteger();
        AtomicBoolean[] finished = new AtomicBoolean[threads];
        List<List<Long>> releasers = new ArrayList<>();
        List<Thread> chain = new ArrayList<>();
        Threads.Failures failures = new Threads.Failures();
        Recording steady = jfr.equals("on") ? recording() : null;
        if (steady != null) {
            steady.start();
        }
        if (jfr.equals("await")) {
            awaitRecording("convoy-releasers");
        }
        Thread flipper = null;
        if (jfr.equals("flip")) {
            flipper = Threads.start("jfr-flipper", failures, () -> {
                while (!done.get()) {
                    try (Recording r = recording()) {
                        r.start();
                        Thread.sleep(2);
                        r.stop();
                    }
                    flipped.incrementAndGet();
                    Thread.sleep(1);
                }
            });
        }
        for (int t = 0; t < threads; t++) {
            finished[t] = new AtomicBoolean();
            releasers.add(new ArrayList<>());
        }
        synchronized (lock) {
            for (int t = 0; t < threads; t++) {
                int me = t;
                chain.add(Threads.start(THREAD_PREFIX + t, failures, () -> work(me, lock, chain, finished,
                        releasers.get(me), holder, done, flipped)));
            }
            for (Thread t : chain) {
                Threads.awaitBlockedOn(t, lock);
            }
            lock.lastHolder = Thread.currentThread().getId();
            holder.set(lock.lastHolder);
        }
        Threads.awaitTermination(chain);
        done.set(true);
        if (flipper != null) {
            Threads.awaitTermination(List.of(flipper));
        }
        if (steady != null) {
            steady.stop();
            steady.close();
        }
        failures.check();
        List<Long> ids = chain.stream().map(Thread::getId).toList();
        return new Result(threads, handoffs, jfr, flipped.get(), ids, releasers);
    }

    /** Waits until a JFR recording of that name runs (at most two minutes), without starting JFR itself. */
    private static void awaitRecording(String name) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (!(jdk.jfr.FlightRecorder.isInitialized() && jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings()
                .stream().anyMatch(r -> name.equals(r.getName()) && r.getState() == jdk.jfr.RecordingState.RUNNING))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no JFR recording named " + name + " ran within two minutes");
            }
            Thread.sleep(10);
        }
    }

    private void work(int me, ChainLock lock, List<Thread> chain, AtomicBoolean[] finished, List<Long> mine,
                      AtomicLong holder, AtomicBoolean done, AtomicInteger flipped) {
        long self = Thread.currentThread().getId();
        while (true) {
            synchronized (lock) {
                mine.add(lock.lastHolder);
                lock.lastHolder = self;
                holder.set(self);
                if (++lock.acquisitions >= handoffs && flipped.get() >= flips) {
                    done.set(true);
                }
                // Every other thread blocked on the lock (or stopped) before it is let go: the
                // next acquisition is contended, and its releaser is this thread.
                for (int o = 0; o < chain.size(); o++) {
                    Thread other = chain.get(o);
                    AtomicBoolean stopped = finished[o];
                    if (o != me) {
                        Threads.require(() -> stopped.get() || Threads.isBlockedOn(other, lock),
                                other.getName() + " BLOCKED on the chain lock");
                    }
                }
            }
            // Try again only once another thread holds the lock: never take it without blocking.
            Threads.require(() -> holder.get() != self || done.get(), "another thread holding the chain lock");
            if (done.get()) {
                finished[me].set(true);
                return;
            }
        }
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "ReleaseChain [threads=3] [handoffs=2000] [off|on|flip|await] [flips=100]",
                () -> {
                    Cli.maxArgs(args, 4);
                    return create(Cli.intArg(args, 0, "threads", 3, 2), Cli.intArg(args, 1, "handoffs", 2000, 1),
                            args.length > 2 ? args[2] : "flip", Cli.intArg(args, 3, "flips", 100, 0));
                }));
    }
}
