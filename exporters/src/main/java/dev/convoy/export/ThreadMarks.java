package dev.convoy.export;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/** Thread start or end lines of the streaming writers, merged into the order of {@link Recording#events()}. */
final class ThreadMarks {
    private ThreadMarks() {
    }

    /**
     * Marks (thread start or end lines) of the rings accepted by {@code which}, at
     * {@code ts}, sorted by (time, ring position): pairs {@code [ts, ring]} in one array.
     */
    static long[] marks(Recording r, Predicate<RecordedThread> which, ToLongFunction<RecordedThread> ts) {
        List<long[]> m = new ArrayList<>();
        List<RecordedThread> threads = r.threads();
        for (int k = 0; k < threads.size(); k++) {
            if (which.test(threads.get(k))) {
                m.add(new long[] {ts.applyAsLong(threads.get(k)), k});
            }
        }
        m.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        long[] out = new long[2 * m.size()];
        for (int i = 0; i < m.size(); i++) {
            out[2 * i] = m.get(i)[0];
            out[2 * i + 1] = m.get(i)[1];
        }
        return out;
    }

    static int count(long[] marks) {
        return marks.length / 2;
    }

    static long ts(long[] marks, int i) {
        return marks[2 * i];
    }

    static int ring(long[] marks, int i) {
        return (int) marks[2 * i + 1];
    }
}
