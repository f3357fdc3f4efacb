package dev.convoy.model;

import dev.convoy.snapshot.SnapshotFormat;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one snapshot holds: INFO, the thread rings with their events, the stack,
 * method, class and object tables and the monitor states at snapshot time.
 * Immutable; built by {@code SnapshotReader}.
 */
public final class Recording {
    private final int versionMajor;
    private final int versionMinor;
    private final Map<String, String> info;
    private final List<RecordedThread> threads;
    private final Map<Integer, StackTrace> stacks;
    private final Map<Long, MethodInfo> methods;
    private final Map<Long, ClassInfo> classes;
    private final Map<Long, ObjectInfo> objects;
    private final List<MonitorState> monitors;
    private final Map<Long, RecordedThread> byRing = new LinkedHashMap<>();
    private final Map<Long, RecordedThread> byObject = new java.util.HashMap<>();
    private final Map<Long, MonitorState> monitorByRing = new java.util.HashMap<>();
    private final java.nio.ByteBuffer bytes;
    private final List<Total> totals;
    private List<Event> merged;
    private volatile java.util.Set<Integer> joinStacks; // isJoinStack's, made on first use
    private IdleRules idleRules = IdleRules.DEFAULT; // set once, on a fresh copy, by withIdleRules

    /** A recording made in memory, with no snapshot bytes behind it. Maps keep their iteration order. */
    public Recording(int versionMajor, int versionMinor, Map<String, String> info,
                     List<RecordedThread> threads, Map<Integer, StackTrace> stacks,
                     Map<Long, MethodInfo> methods, Map<Long, ClassInfo> classes,
                     Map<Long, ObjectInfo> objects, List<MonitorState> monitors) {
        this(versionMajor, versionMinor, info, threads, stacks, methods, classes, objects, monitors, null);
    }

    /**
     * A recording read from snapshot bytes, which it keeps (its thread records live in them).
     * Maps keep their iteration order (the file order).
     *
     * @param bytes the whole snapshot, position 0 to limit; null for a recording made in memory
     */
    public Recording(int versionMajor, int versionMinor, Map<String, String> info,
                     List<RecordedThread> threads, Map<Integer, StackTrace> stacks,
                     Map<Long, MethodInfo> methods, Map<Long, ClassInfo> classes,
                     Map<Long, ObjectInfo> objects, List<MonitorState> monitors, java.nio.ByteBuffer bytes) {
        this(versionMajor, versionMinor, info, threads, stacks, methods, classes, objects, monitors, bytes, List.of());
    }

    /**
     * A recording read from snapshot bytes, with the whole run's totals (SECTION_TOTALS).
     *
     * @param totals the whole run's blocks, waits and parks; empty when the file has none
     */
    public Recording(int versionMajor, int versionMinor, Map<String, String> info,
                     List<RecordedThread> threads, Map<Integer, StackTrace> stacks,
                     Map<Long, MethodInfo> methods, Map<Long, ClassInfo> classes,
                     Map<Long, ObjectInfo> objects, List<MonitorState> monitors, java.nio.ByteBuffer bytes,
                     List<Total> totals) {
        this.bytes = bytes == null ? null : bytes.asReadOnlyBuffer();
        this.totals = List.copyOf(totals);
        this.versionMajor = versionMajor;
        this.versionMinor = versionMinor;
        this.info = Collections.unmodifiableMap(new LinkedHashMap<>(info));
        this.threads = withLosses(threads, this.info);
        this.stacks = Collections.unmodifiableMap(new LinkedHashMap<>(stacks));
        this.methods = Collections.unmodifiableMap(new LinkedHashMap<>(methods));
        this.classes = Collections.unmodifiableMap(new LinkedHashMap<>(classes));
        this.objects = Collections.unmodifiableMap(new LinkedHashMap<>(objects));
        this.monitors = List.copyOf(monitors);
        for (RecordedThread t : this.threads) {
            byRing.put(t.ringId(), t);
            if (t.threadObject() != 0) {
                byObject.putIfAbsent(t.threadObject(), t);
            }
        }
        for (MonitorState m : this.monitors) {
            monitorByRing.putIfAbsent(m.ringId(), m);
        }
    }

    /**
     * This recording, its waits classified by other rules ({@link IdleRules}): the analysis of the
     * copy ranks contention and idle time by them. The records are shared.
     */
    public Recording withIdleRules(IdleRules rules) {
        Recording c = new Recording(versionMajor, versionMinor, info, threads, stacks, methods, classes, objects,
                monitors, bytes, totals);
        c.idleRules = java.util.Objects.requireNonNull(rules, "rules");
        return c;
    }

    /** The rules that tell idle waits from contention ({@link IdleRules#DEFAULT} unless {@link #withIdleRules}). */
    public IdleRules idleRules() {
        return idleRules;
    }

    /**
     * The rings, each with its losses: a ring that lists none but has {@code overwritten} &gt; 0 (a
     * file before 1.5, which has no SECTION_LOSSES, or a recording made in memory) gets the one
     * loss the spec makes of it: LOSS_OVERWRITTEN from its startNs (start.monotonic.ns for a ring
     * met late and for the GC ring) to its first record kept (snapshot.monotonic.ns when none is).
     */
    private static List<RecordedThread> withLosses(List<RecordedThread> threads, Map<String, String> info) {
        List<RecordedThread> out = new java.util.ArrayList<>(threads.size());
        long start = Long.MIN_VALUE;
        long snapshot = Long.MIN_VALUE;
        for (RecordedThread t : threads) {
            if (t.overwritten() == 0 || !t.losses().isEmpty()) {
                out.add(t);
                continue;
            }
            long from = t.startNs();
            if (t.isLate() || t.isSystem()) {
                if (start == Long.MIN_VALUE) {
                    start = infoLong(info, "start.monotonic.ns", Long.MIN_VALUE);
                    if (start == Long.MIN_VALUE) {
                        start = earliest(threads);
                    }
                }
                from = start;
            }
            long to;
            if (t.eventCount() > 0) {
                to = t.ts(0);
            } else {
                if (snapshot == Long.MIN_VALUE) {
                    snapshot = infoLong(info, "snapshot.monotonic.ns", Long.MIN_VALUE);
                    if (snapshot == Long.MIN_VALUE) {
                        snapshot = latest(threads, start == Long.MIN_VALUE ? earliest(threads) : start);
                    }
                }
                to = snapshot;
            }
            out.add(t.withLosses(List.of(new Loss(SnapshotFormat.LOSS_OVERWRITTEN, Math.min(from, to), to,
                    t.overwritten()))));
        }
        return List.copyOf(out);
    }

    /** The earliest ring start or record time, 0 when there is none. */
    private static long earliest(List<RecordedThread> threads) {
        long min = Long.MAX_VALUE;
        for (RecordedThread t : threads) {
            min = Math.min(min, t.startNs());
            for (int i = 0; i < t.eventCount(); i++) {
                min = Math.min(min, t.ts(i));
            }
        }
        return min == Long.MAX_VALUE ? 0 : min;
    }

    /** The latest ring start, end or record time, at least {@code floor}. */
    private static long latest(List<RecordedThread> threads, long floor) {
        long max = floor;
        for (RecordedThread t : threads) {
            max = Math.max(max, Math.max(t.startNs(), t.endNs()));
            for (int i = 0; i < t.eventCount(); i++) {
                max = Math.max(max, t.ts(i));
            }
        }
        return max;
    }

    private static long infoLong(Map<String, String> info, String key, long dflt) {
        String v = info.get(key);
        if (v == null) {
            return dflt;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return dflt;
        }
    }

    /** The snapshot bytes this recording was read from (a fresh read-only view), empty for one made in memory. */
    public Optional<java.nio.ByteBuffer> bytes() {
        return bytes == null ? Optional.empty() : Optional.of(bytes.duplicate().position(0));
    }

    /** Major format version of the file read. */
    public int versionMajor() { return versionMajor; }
    /** Minor format version of the file read. */
    public int versionMinor() { return versionMinor; }
    /** SECTION_INFO key/value pairs in file order. */
    public Map<String, String> info() { return info; }
    /** All rings in file order, the GC ring included. */
    public List<RecordedThread> threads() { return threads; }
    /** Stacks by stack id. */
    public Map<Integer, StackTrace> stacks() { return stacks; }
    /** Methods by jmethodID. */
    public Map<Long, MethodInfo> methods() { return methods; }
    /** Classes by class id. */
    public Map<Long, ClassInfo> classes() { return classes; }
    /** Objects by object id. */
    public Map<Long, ObjectInfo> objects() { return objects; }
    /** SECTION_MONITORS entries (empty when the section is absent). */
    public List<MonitorState> monitors() { return monitors; }

    /**
     * The whole run's blocks, waits and parks (SECTION_TOTALS), counted as the recorder kept the
     * records, from INFO {@code totals}' {@code from}: they still count what aged out of the history.
     * Empty for a file without them (before they existed, a repository folder, a window).
     */
    public List<Total> totals() { return totals; }

    /** The ring with this id. */
    public Optional<RecordedThread> threadByRingId(long ringId) {
        return Optional.ofNullable(byRing.get(ringId));
    }

    /** Rings of Java threads (not RING_SYSTEM). */
    public List<RecordedThread> javaThreads() {
        return threads.stream().filter(t -> !t.isSystem()).toList();
    }

    /** The monitor state of a ring, if SECTION_MONITORS lists it. */
    public Optional<MonitorState> monitorState(long ringId) {
        return Optional.ofNullable(monitorByRing.get(ringId));
    }

    /**
     * Events of all rings merged by timestamp. Ties keep ring order (file order) and,
     * within a ring, record order; this total order is the one the analysis uses.
     *
     * <p>A read-only view that merges the rings while it is read (a k-way merge over the
     * rings' records, which live in their compact encoding): it holds no per-event data, so
     * iterate it rather than index it. Sequential {@code get(i)} (i = 0, 1, 2, ...) is as
     * fast as the iterator; random access restarts the merge.
     */
    public synchronized List<Event> events() {
        if (merged == null) {
            merged = new MergedView();
        }
        return merged;
    }

    /** Per ring: its records in stable time order (a permutation only for a ring not already sorted). */
    private int[][] orders;

    private synchronized int[][] orders() {
        if (orders == null) {
            int[][] o = new int[threads.size()][];
            for (int k = 0; k < threads.size(); k++) {
                RecordedThread t = threads.get(k);
                int n = t.eventCount();
                boolean sorted = true;
                for (int i = 1; i < n && sorted; i++) {
                    sorted = t.ts(i - 1) <= t.ts(i);
                }
                if (!sorted) {
                    Integer[] idx = new Integer[n];
                    for (int i = 0; i < n; i++) {
                        idx[i] = i;
                    }
                    java.util.Arrays.sort(idx, Comparator.comparingLong(t::ts)); // stable
                    o[k] = new int[n];
                    for (int i = 0; i < n; i++) {
                        o[k][i] = idx[i];
                    }
                }
            }
            orders = o;
        }
        return orders;
    }

    /**
     * A cursor over the records of all rings in the order of {@link #events()}, without making
     * {@link Event}s: for a pass over millions of records that needs only a few fields (read
     * them with {@link RecordedThread#ts}, {@link RecordedThread#rawType}, ...).
     */
    public Cursor cursor() {
        return new Cursor();
    }

    /**
     * The records in the order of {@link #events()}: by time, then ring position, then record
     * order. Merged a window of time at a time: the records of every ring within the window
     * are read ring by ring (sequential reads, cheap, unlike one record per ring in time
     * order, which misses the cache on almost every record), each as one key (time offset in
     * the window, ring position), and the keys put in order by a {@link RadixSort}. The
     * window's width adapts so that a window holds at most {@link #WINDOW} records (more only
     * when more records than that share one timestamp).
     */
    public final class Cursor {
        private static final int WINDOW = 1 << 15;

        private final int[][] order = orders();
        private final RecordedThread[] rings = threads.toArray(new RecordedThread[0]);
        private final int ringBits = Math.max(1, 32 - Integer.numberOfLeadingZeros(Math.max(1, rings.length - 1)));
        private final long ringMask = (1L << ringBits) - 1;
        private final long maxWidth = 1L << (62 - ringBits); // time offsets and ring positions fit a key
        private final int[] pos = new int[rings.length]; // per ring: first record not yet in a window
        private final int[] emit = new int[rings.length]; // per ring: next record of the window to return
        private long[] keys; // capacity: the most records a window takes (but see gather)
        private long[] scratch;
        private final RadixSort radix = new RadixSort();
        private long width = 1L << 20;
        private long base;
        private long maxOffset;
        private int windowSize;
        private int at;
        private int remaining;
        private int ring = -1;
        private int record = -1;
        private long ts;

        Cursor() {
            for (RecordedThread t : rings) {
                remaining += t.eventCount();
            }
            keys = new long[Math.max(16, Math.min(WINDOW, remaining))]; // a small recording: one small window
            scratch = new long[keys.length];
        }

        private long tsAt(int r, int p) {
            int[] o = order[r];
            return rings[r].ts(o == null ? p : o[p]);
        }

        /** Reads the next window; at least one record when any remains. */
        private void fill() {
            base = Long.MAX_VALUE;
            for (int r = 0; r < rings.length; r++) {
                if (pos[r] < rings[r].eventCount()) {
                    base = Math.min(base, tsAt(r, pos[r]));
                }
            }
            while (true) {
                long last = base > Long.MAX_VALUE - (width - 1) ? Long.MAX_VALUE : base + (width - 1);
                int n = gather(last, width == 1 ? Integer.MAX_VALUE : keys.length);
                if (n >= 0) {
                    for (int r = 0; r < rings.length; r++) {
                        emit[r] = pos[r];
                    }
                    for (int i = 0; i < n; i++) {
                        pos[(int) (keys[i] & ringMask)]++;
                    }
                    sort(n);
                    windowSize = n;
                    at = 0;
                    if (n < keys.length / 4 && width < maxWidth) {
                        width = Math.min(maxWidth, width * 2);
                    }
                    return;
                }
                width = Math.max(1, width / 4); // too many records: a narrower window
            }
        }

        /**
         * The keys of the records with time in [base, last] into keys, their largest time
         * offset into maxOffset; -1 when more than limit.
         */
        private int gather(long last, int limit) {
            int n = 0;
            maxOffset = 0;
            for (int r = 0; r < rings.length; r++) {
                int size = rings[r].eventCount();
                for (int p = pos[r]; p < size; p++) {
                    long t = tsAt(r, p);
                    if (t > last) {
                        break;
                    }
                    if (n == limit) {
                        return -1;
                    }
                    if (n == keys.length) {
                        keys = java.util.Arrays.copyOf(keys, 2 * n);
                        scratch = new long[2 * n];
                    }
                    maxOffset = Math.max(maxOffset, t - base);
                    keys[n++] = (t - base) << ringBits | r;
                }
            }
            return n;
        }

        /** Sorts keys[0, n), whose time offsets are at most maxOffset. */
        private void sort(int n) {
            if (radix.sort(keys, null, scratch, null, n, ringBits + 64 - Long.numberOfLeadingZeros(maxOffset))) {
                long[] t = keys;
                keys = scratch;
                scratch = t;
            }
        }

        /** Records not yet reached by {@link #next}. */
        public int remaining() {
            return remaining;
        }

        /** Moves to the next record; false (and the cursor unchanged) when there is none. */
        public boolean next() {
            if (remaining == 0) {
                return false;
            }
            if (at == windowSize) {
                fill();
            }
            long key = keys[at++];
            int r = (int) (key & ringMask);
            int[] o = order[r];
            int p = emit[r]++;
            ring = r;
            record = o == null ? p : o[p];
            ts = base + (key >>> ringBits);
            remaining--;
            return true;
        }

        /** Position of the current record's ring in {@link #threads()}. */
        public int ring() {
            return ring;
        }

        /** The current record's ring. */
        public RecordedThread thread() {
            return rings[ring];
        }

        /** Index of the current record in its ring (as {@link Event#index()}). */
        public int record() {
            return record;
        }

        /** Timestamp of the current record. */
        public long ts() {
            return ts;
        }

        /** The current record as an {@link Event}. */
        public Event event() {
            return rings[ring].event(record);
        }
    }

    /** {@link #events()}'s iterator: the cursor, one {@link Event} per record. */
    private final class Merge implements java.util.Iterator<Event> {
        final Cursor c = new Cursor();

        @Override
        public boolean hasNext() {
            return c.remaining() > 0;
        }

        @Override
        public Event next() {
            if (!c.next()) {
                throw new java.util.NoSuchElementException();
            }
            return c.event();
        }
    }

    private final class MergedView extends java.util.AbstractList<Event> {
        final int size;
        Merge cursor;
        int cursorIndex; // index of the event cursor.next() returns

        MergedView() {
            int n = 0;
            for (RecordedThread t : threads) {
                n += t.eventCount();
            }
            size = n;
        }

        @Override
        public java.util.Iterator<Event> iterator() {
            return new Merge();
        }

        @Override
        public synchronized Event get(int i) {
            if (i < 0 || i >= size) {
                throw new IndexOutOfBoundsException("event " + i + " of " + size);
            }
            if (cursor == null || i < cursorIndex) {
                cursor = new Merge();
                cursorIndex = 0;
            }
            while (cursorIndex < i) {
                cursor.next();
                cursorIndex++;
            }
            cursorIndex++;
            return cursor.next();
        }

        @Override
        public int size() {
            return size;
        }
    }

    /** A numeric INFO value, or {@code dflt} when missing or not a number. */
    public long infoLong(String key, long dflt) {
        return infoLong(info, key, dflt);
    }

    /** Records ever written: INFO {@code records.written}, else the sum over the rings. */
    public long recordsWritten() {
        long v = infoLong("records.written", -1);
        if (v >= 0) {
            return v;
        }
        long n = 0;
        for (RecordedThread t : threads) {
            n += t.written();
        }
        return n;
    }

    /**
     * Records lost to LOSS_OVERWRITTEN, over all threads: INFO {@code records.overwritten} (which
     * counts evicted rings too), and at least the sum of the rings' losses of that kind.
     */
    public long recordsOverwritten() {
        return Math.max(Math.max(0, infoLong("records.overwritten", 0)), lostRecords(SnapshotFormat.LOSS_OVERWRITTEN));
    }

    /** Records that aged out of the history (LOSS_AGED): INFO {@code records.aged}, and at least the sum of the rings' losses of that kind. */
    public long recordsAged() {
        return Math.max(Math.max(0, infoLong("records.aged", 0)), lostRecords(SnapshotFormat.LOSS_AGED));
    }

    /** Events not recorded at all (their object could not be identified): INFO {@code records.dropped}, else the rings' sum. */
    public long recordsDropped() {
        long v = infoLong("records.dropped", -1);
        if (v >= 0) {
            return v;
        }
        long n = 0;
        for (RecordedThread t : threads) {
            n += t.dropped();
        }
        return n;
    }

    /** Records a snapshot skipped because a concurrent write tore them: INFO {@code records.torn}, else the rings' sum. */
    public long recordsTorn() {
        long v = infoLong("records.torn", -1);
        if (v >= 0) {
            return v;
        }
        long n = 0;
        for (RecordedThread t : threads) {
            n += t.torn();
        }
        return n;
    }

    /** The rings with at least one loss. */
    public List<RecordedThread> threadsWithLosses() {
        return threads.stream().filter(t -> !t.losses().isEmpty()).toList();
    }

    /**
     * What every output says of the records: {@code "Records: N written, nothing lost."}, or
     * {@code "Records: N written, M lost (A overwritten in the threads' rings before the recorder
     * kept them, B aged out of the history, C dropped, D torn); K threads have lost records, their
     * state then is unknown."} (the kinds that are 0 left out).
     */
    public String lossSummary() {
        long overwritten = recordsOverwritten();
        long aged = recordsAged();
        long dropped = Math.max(0, recordsDropped());
        long torn = Math.max(0, recordsTorn());
        long lost = overwritten + aged + dropped + torn;
        StringBuilder b = new StringBuilder("Records: ").append(recordsWritten()).append(" written, ");
        if (lost == 0) {
            return b.append("nothing lost.").toString();
        }
        List<String> parts = new java.util.ArrayList<>();
        if (overwritten > 0) {
            parts.add(overwritten + " overwritten in the threads' rings before the recorder kept them");
        }
        if (aged > 0) {
            parts.add(aged + " aged out of the history");
        }
        if (dropped > 0) {
            parts.add(dropped + " dropped (never recorded)");
        }
        if (torn > 0) {
            parts.add(torn + " torn");
        }
        b.append(lost).append(" lost (").append(String.join(", ", parts)).append(")");
        int threads = threadsWithLosses().size();
        if (threads > 0) {
            b.append("; ").append(threads).append(threads == 1 ? " thread has lost records, its state then is unknown"
                    : " threads have lost records, their state then is unknown");
        }
        return b.append('.').toString();
    }

    /** Records missing over all {@link #losses()}, of every kind. */
    public long recordsLost() {
        long n = 0;
        for (RecordedThread t : threads) {
            n += t.lostRecords();
        }
        return n;
    }

    /** Records of the rings' losses of one {@code LOSS_*} kind. */
    public long lostRecords(int kind) {
        long n = 0;
        for (RecordedThread t : threads) {
            for (Loss l : t.losses()) {
                if (l.kind() == kind) {
                    n += l.records();
                }
            }
        }
        return n;
    }

    /**
     * Whether anything was lost: a ring with a loss, or INFO's {@code records.overwritten} or
     * {@code records.aged} above 0 (records of rings no longer in the snapshot).
     */
    public boolean hasLosses() {
        return recordsOverwritten() > 0 || recordsAged() > 0 || recordsLost() > 0;
    }

    /** Every ring's losses, rings in file order, each ring's in time order. */
    public List<Map.Entry<RecordedThread, Loss>> losses() {
        List<Map.Entry<RecordedThread, Loss>> out = new java.util.ArrayList<>();
        for (RecordedThread t : threads) {
            for (Loss l : t.losses()) {
                out.add(Map.entry(t, l));
            }
        }
        return out;
    }

    /**
     * Whether any ring has a loss overlapping the time from {@code a} to {@code b}
     * ({@link Loss#overlaps}): then a fact that would have to be found in that time may be
     * missing, whichever thread it belongs to.
     */
    public boolean anyLossOverlaps(long a, long b) {
        return lossIndex().overlaps(a, b);
    }

    /**
     * INFO {@code history.from.ns}: the time from which no chunk has aged out of the history;
     * -1 when absent (nothing aged out).
     */
    public long historyFromNs() {
        return infoLong("history.from.ns", -1);
    }

    private LossIndex lossIndex;

    private synchronized LossIndex lossIndex() {
        if (lossIndex == null) {
            lossIndex = new LossIndex(threads);
        }
        return lossIndex;
    }

    /** The losses of all rings sorted by start, with the running maximum of their ends: an overlap query in log time. */
    private static final class LossIndex {
        final long[] from;
        final long[] to;
        final long[] maxTo;
        final boolean any;

        LossIndex(List<RecordedThread> threads) {
            List<Loss> all = new java.util.ArrayList<>();
            for (RecordedThread t : threads) {
                all.addAll(t.losses());
            }
            all.sort(Comparator.comparingLong(Loss::fromNs));
            int n = all.size();
            from = new long[n];
            to = new long[n];
            maxTo = new long[n];
            long max = Long.MIN_VALUE;
            for (int i = 0; i < n; i++) {
                from[i] = all.get(i).fromNs();
                to[i] = all.get(i).toNs();
                max = Math.max(max, to[i]);
                maxTo[i] = max;
            }
            any = n > 0;
        }

        boolean overlaps(long a, long b) {
            if (!any) {
                return false;
            }
            if (a > b) {
                long t = a;
                a = b;
                b = t;
            }
            // the losses starting at or before b (those starting later cannot overlap), latest first
            int hi = upperBound(b) - 1;
            for (int i = hi; i >= 0 && maxTo[i] >= a; i--) {
                if (Loss.overlaps(from[i], to[i], a, b)) {
                    return true;
                }
            }
            return false;
        }

        /** The number of losses starting at or before {@code b}. */
        private int upperBound(long b) {
            int lo = 0;
            int hi = from.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (from[mid] <= b) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }

    /**
     * Monotonic ns at recording start: INFO {@code start.monotonic.ns}, else the earliest
     * ring start or event time, else 0.
     */
    public long startMonotonicNs() {
        long v = infoLong("start.monotonic.ns", Long.MIN_VALUE);
        if (v != Long.MIN_VALUE) {
            return v;
        }
        long min = Long.MAX_VALUE;
        for (RecordedThread t : threads) {
            min = Math.min(min, t.startNs());
            for (Event e : t.events()) {
                min = Math.min(min, e.ts());
            }
        }
        return min == Long.MAX_VALUE ? 0 : min;
    }

    /** Wall clock (ns since 1970 UTC) at recording start: INFO {@code start.epoch.ns}, else 0. */
    public long startEpochNs() {
        return infoLong("start.epoch.ns", 0);
    }

    /**
     * Monotonic ns when the snapshot was taken: INFO {@code snapshot.monotonic.ns}, else the
     * latest event, ring start or ring end time.
     */
    public long snapshotMonotonicNs() {
        long v = infoLong("snapshot.monotonic.ns", Long.MIN_VALUE);
        if (v != Long.MIN_VALUE) {
            return v;
        }
        long max = startMonotonicNs();
        for (RecordedThread t : threads) {
            max = Math.max(max, Math.max(t.startNs(), t.endNs()));
            for (Event e : t.events()) {
                max = Math.max(max, e.ts());
            }
        }
        return max;
    }

    /** Wall clock of a monotonic timestamp: {@code start.epoch.ns + (ts - start.monotonic.ns)}. */
    public long toEpochNs(long monotonicNs) {
        return startEpochNs() + (monotonicNs - startMonotonicNs());
    }

    /** Process id from INFO, 0 if missing. */
    public long pid() {
        return infoLong("pid", 0);
    }

    /** First word of INFO {@code java.command} (the main class or jar), "" if missing. */
    public String mainClass() {
        String cmd = info.getOrDefault("java.command", "").trim();
        int sp = cmd.indexOf(' ');
        return sp < 0 ? cmd : cmd.substring(0, sp);
    }

    /** Dotted class name of an object, "" when its object or class is not described. */
    public String objectClassName(long objectId) {
        ObjectInfo o = objects.get(objectId);
        if (o == null) {
            return "";
        }
        ClassInfo c = classes.get(o.classId());
        return c == null ? "" : c.dottedName();
    }

    /** Identity hash code of an object, 0 when the object is not described. */
    public int identityHash(long objectId) {
        ObjectInfo o = objects.get(objectId);
        return o == null ? 0 : o.identityHash();
    }

    /** Frames of a stack id; empty for 0 or an unknown id. */
    public List<Frame> frames(int stackId) {
        StackTrace s = stacks.get(stackId);
        return s == null ? List.of() : s.frames();
    }

    /**
     * Whether a stack is in {@code java.lang.Thread.join}: a wait with it is a join on the Thread
     * object waited on, whether or not contention analysis recorded the join.
     */
    public boolean isJoinStack(int stackId) {
        if (stackId == 0) {
            return false;
        }
        java.util.Set<Integer> js = joinStacks;
        if (js == null) {
            java.util.Set<Integer> found = new java.util.HashSet<>();
            for (Map.Entry<Integer, StackTrace> e : stacks.entrySet()) {
                for (Frame f : e.getValue().frames()) {
                    MethodInfo m = methods.get(f.methodId());
                    ClassInfo c = m == null ? null : classes.get(m.classId());
                    if (c != null && m.name().equals("join") && c.dottedName().equals("java.lang.Thread")) {
                        found.add(e.getKey());
                        break;
                    }
                }
            }
            joinStacks = js = found;
        }
        return js.contains(stackId);
    }

    /**
     * A readable frame as in a Java stack trace: {@code pkg.Class.method(File.java:12)},
     * {@code (Native Method)}, {@code (File.java)} without a line, {@code (Unknown Source)}
     * without a source file; {@code <unknown method 0x...>} for an undescribed method.
     */
    public String describe(Frame f) {
        MethodInfo m = methods.get(f.methodId());
        if (m == null) {
            return "<unknown method 0x" + Long.toHexString(f.methodId()) + ">";
        }
        ClassInfo c = classes.get(m.classId());
        String cls = c == null || c.dottedName().isEmpty() ? "<unloaded>" : c.dottedName();
        String where;
        if (f.location() < 0) {
            where = "Native Method";
        } else {
            String src = c == null ? "" : c.sourceFile();
            int line = m.lineFor(f.location());
            where = src.isEmpty() ? "Unknown Source" : line >= 0 ? src + ":" + line : src;
        }
        return cls + "." + m.name() + "(" + where + ")";
    }

    /** The Thread object ids of OBJ_THREAD entries, mapped to their rings where one exists. */
    public Optional<RecordedThread> threadByObject(long threadObject) {
        if (threadObject == 0) {
            return Optional.empty();
        }
        return Optional.ofNullable(byObject.get(threadObject));
    }

    /** True when the object is described as a java.lang.Thread (OBJ_THREAD). */
    public boolean isThreadObject(long objectId) {
        ObjectInfo o = objects.get(objectId);
        return o != null && o.kind() == SnapshotFormat.OBJ_THREAD;
    }
}
