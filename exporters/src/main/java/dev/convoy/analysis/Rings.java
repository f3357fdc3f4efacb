package dev.convoy.analysis;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The first stage of {@link ContentionIndex}: the rings of a recording, numbered in
 * {@link Recording#threads()} order, and each ring's {@link IntervalTable} from one scan of
 * it, which also collects the start and interrupt calls the interactions need. Complete when
 * made; the later stages read it.
 */
final class Rings {
    private final RecordedThread[] threads;
    private final Map<RecordedThread, Integer> position = new IdentityHashMap<>();
    private final IntervalTable[] tables;

    /** Scans every ring; {@code starts} and {@code interrupts} get the calls {ts, ring, index}. */
    Rings(Recording r, List<long[]> starts, List<long[]> interrupts) {
        this.threads = r.threads().toArray(new RecordedThread[0]);
        for (int k = 0; k < threads.length; k++) {
            position.put(threads[k], k);
        }
        long snapshot = r.snapshotMonotonicNs();
        this.tables = new IntervalTable[threads.length];
        for (int k = 0; k < threads.length; k++) {
            tables[k] = IntervalTable.scan(r, threads[k], k, snapshot, starts, interrupts, false);
        }
    }

    /** Number of rings. */
    int rings() {
        return threads.length;
    }

    /** A ring's thread. */
    RecordedThread thread(int ring) {
        return threads[ring];
    }

    /** Position of a ring in {@link Recording#threads()}. */
    int ring(RecordedThread t) {
        return position.get(t);
    }

    /** The intervals of a ring. */
    IntervalTable table(int ring) {
        return tables[ring];
    }

    /** Every ring's intervals, in ring order. */
    IntervalTable[] tables() {
        return tables;
    }
}
