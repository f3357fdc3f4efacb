package dev.convoy.testapps;

/**
 * A long-running server's lock churn, compressed: N distinct lock objects, one after another,
 * each waited on once (a MonitorWait/MonitorWaited pair, so the recorder gives it an id),
 * in batches; after each batch the batch becomes garbage and the app forces a GC (and, under
 * the agent, waits until the object table has taken the collected objects' ids back), so the
 * recorder's object table must reuse the ids of collected objects to keep describing new
 * ones. The wait does not block: the thread interrupts itself first, and the wait throws
 * InterruptedException at once (the JVM still posts both events); a lost interrupt would
 * cost a 1 ms timed wait, never a hang.
 *
 * <p>When the Convoy agent runs in this JVM, the app samples its MBean's
 * {@code MemoryInUseBytes} after every batch (reporting the largest value and
 * {@code MemoryCapBytes}) and calls its {@code reset()} operation once, after batch
 * {@code resetAfter} (-1: never). The last batch stays reachable until the JVM exits, so a
 * snapshot dumped on exit still describes its locks.
 *
 * <p>Thread: the caller's (main). Monitor class: {@code dev.convoy.testapps.LockTurnover$TurnoverLock}.
 */
public final class LockTurnover implements Scenario {

    public static final String NAME = "lock-turnover";
    public static final int DEFAULT_LOCKS = 2_000_000;
    public static final int DEFAULT_BATCH = 2_000;

    /** Monitor of every wait. */
    public static final class TurnoverLock {
    }

    /** The last batch, kept reachable until the JVM exits. */
    private static volatile TurnoverLock[] lastBatch;

    /**
     * @param maxMemoryInUse largest MemoryInUseBytes sampled, -1 without the agent
     * @param memoryCap      MemoryCapBytes, -1 without the agent
     */
    public record Result(int locks, int waits, int batches, int resets, int samples, long maxMemoryInUse,
                         long memoryCap) implements ScenarioResult {

        @Override
        public boolean ok() {
            return waits == locks && (memoryCap < 0 || maxMemoryInUse <= memoryCap);
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "locks", locks, "waits", waits, "batches", batches,
                    "resets", resets, "samples", samples, "maxMemoryInUse", maxMemoryInUse, "memoryCap", memoryCap,
                    "lock", TurnoverLock.class.getName());
        }
    }

    private final int locks;
    private final int batch;
    private final int resetAfter;

    private LockTurnover(int locks, int batch, int resetAfter) {
        if (locks < 1 || batch < 1) {
            throw new IllegalArgumentException("locks and batch must be >= 1");
        }
        this.locks = locks;
        this.batch = batch;
        this.resetAfter = resetAfter;
    }

    public static LockTurnover create(int locks, int batch, int resetAfter) {
        return new LockTurnover(locks, batch, resetAfter);
    }

    public static LockTurnover create() {
        return create(DEFAULT_LOCKS, DEFAULT_BATCH, -1);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Waits on lock once without blocking: ended by the interrupt (or, were it lost, by its 1 ms). */
    private static void waitOnce(TurnoverLock lock) {
        Thread.currentThread().interrupt();
        synchronized (lock) {
            try {
                lock.wait(1);
            } catch (InterruptedException e) {
                return; // the usual way out; the interrupt status is clear again
            }
        }
        Thread.interrupted();
    }

    @Override
    public Result run() {
        ConvoyMBean recorder = ConvoyMBean.find();
        boolean agent = recorder != null;
        long cap = agent ? recorder.longAttribute("MemoryCapBytes") : -1;
        long maxInUse = -1;
        int waits = 0;
        int batches = 0;
        int resets = 0;
        int samples = 0;
        for (int done = 0; done < locks; batches++) {
            int n = Math.min(batch, locks - done);
            TurnoverLock[] current = new TurnoverLock[n];
            for (int i = 0; i < n; i++) {
                current[i] = new TurnoverLock();
                waitOnce(current[i]);
                waits++;
            }
            done += n;
            lastBatch = current;
            current = null;
            System.gc(); // every batch but the last is garbage now
            if (agent) {
                awaitRoom(recorder, 2L * batch);
                maxInUse = Math.max(maxInUse, recorder.longAttribute("MemoryInUseBytes"));
                samples++;
                if (batches == resetAfter) {
                    recorder.invoke("reset");
                    resets++;
                }
            }
        }
        return new Result(locks, waits, batches, resets, samples, maxInUse, cap);
    }

    /**
     * Waits until the recorder's object table has room for {@code room} more objects: a read
     * of its counters drops the entries of collected objects, so after the GC above this
     * returns at once unless those locks are still reachable. Bounded (10 s): then the run
     * goes on and shows what it shows.
     */
    private static void awaitRoom(ConvoyMBean recorder, long room) {
        long capacity = recorder.longAttribute("ObjectTableCapacity");
        for (int i = 0; i < 10_000 && recorder.longAttribute("ObjectsInUse") + room > capacity; i++) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME,
                "LockTurnover [locks=" + DEFAULT_LOCKS + "] [batch=" + DEFAULT_BATCH + "] [resetAfterBatch=-1]", () -> {
                    Cli.maxArgs(args, 3);
                    return create(Cli.intArg(args, 0, "locks", DEFAULT_LOCKS, 1),
                            Cli.intArg(args, 1, "batch", DEFAULT_BATCH, 1),
                            Cli.intArg(args, 2, "resetAfterBatch", -1, -1));
                }));
    }
}
