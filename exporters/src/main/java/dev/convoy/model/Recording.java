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
 * Immutable; built by {@code SnapshotReader} or {@code SnapshotWriter.Builder}.
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
    private List<Event> merged;

    /** Maps keep their iteration order (the file order when read). */
    public Recording(int versionMajor, int versionMinor, Map<String, String> info,
                     List<RecordedThread> threads, Map<Integer, StackTrace> stacks,
                     Map<Long, MethodInfo> methods, Map<Long, ClassInfo> classes,
                     Map<Long, ObjectInfo> objects, List<MonitorState> monitors) {
        this.versionMajor = versionMajor;
        this.versionMinor = versionMinor;
        this.info = Collections.unmodifiableMap(new LinkedHashMap<>(info));
        this.threads = List.copyOf(threads);
        this.stacks = Collections.unmodifiableMap(new LinkedHashMap<>(stacks));
        this.methods = Collections.unmodifiableMap(new LinkedHashMap<>(methods));
        this.classes = Collections.unmodifiableMap(new LinkedHashMap<>(classes));
        this.objects = Collections.unmodifiableMap(new LinkedHashMap<>(objects));
        this.monitors = List.copyOf(monitors);
        for (RecordedThread t : threads) {
            byRing.put(t.ringId(), t);
            if (t.threadObject() != 0) {
                byObject.putIfAbsent(t.threadObject(), t);
            }
        }
        for (MonitorState m : this.monitors) {
            monitorByRing.putIfAbsent(m.ringId(), m);
        }
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
     * A k-way merge of the rings by (ts, ring position, record order): a tournament tree of
     * losers, so each record costs one comparison per level.
     */
    public final class Cursor {
        private final int[][] order = orders();
        private final RecordedThread[] rings = threads.toArray(new RecordedThread[0]);
        private final int k = rings.length;
        private final int[] pos = new int[k];
        private final long[] head = new long[k]; // time of each ring's next record
        private final boolean[] done = new boolean[k]; // ring exhausted: greater than any other
        private final int[] tree = new int[Math.max(1, k)]; // [0] the winner, [1..k-1] the losers
        private int remaining;
        private int ring = -1;
        private int record = -1;
        private long ts;

        Cursor() {
            java.util.Arrays.fill(tree, -1);
            for (int r = 0; r < k; r++) {
                remaining += rings[r].eventCount();
                done[r] = rings[r].eventCount() == 0;
                head[r] = done[r] ? Long.MAX_VALUE : headTs(r);
                int winner = r;
                int t = (r + k) / 2;
                for (; t > 0; t /= 2) {
                    if (tree[t] < 0) {
                        tree[t] = winner;
                        break;
                    }
                    if (less(tree[t], winner)) {
                        int w = tree[t];
                        tree[t] = winner;
                        winner = w;
                    }
                }
                if (t == 0) {
                    tree[0] = winner;
                }
            }
        }

        // Each ring's next timestamps, read a batch at a time: sequential reads of one ring
        // are cheap, while reading one record per ring in time order misses the cache on
        // almost every record (the next record of the same ring is usually on another line).
        // The batch also brings the records' lines into the cache for the caller.
        private final int batch = Math.max(8, Math.min(64, (1 << 16) / Math.max(1, k)));
        private final long[][] tsBuf = new long[k][];
        private final int[] bufStart = new int[k]; // position of tsBuf[r][0]

        private long headTs(int r) {
            int p = pos[r];
            long[] b = tsBuf[r];
            if (b == null || p - bufStart[r] >= b.length) {
                if (b == null) {
                    b = tsBuf[r] = new long[batch];
                }
                RecordedThread t = rings[r];
                int[] o = order[r];
                int n = Math.min(b.length, t.eventCount() - p);
                for (int i = 0; i < n; i++) {
                    b[i] = t.ts(o == null ? p + i : o[p + i]);
                }
                bufStart[r] = p;
            }
            return b[p - bufStart[r]];
        }

        /** Ring a's next record comes before ring b's: by time, then ring position; an exhausted ring last. */
        private boolean less(int a, int b) {
            long x = head[a];
            long y = head[b];
            return x < y || x == y && tieLess(a, b);
        }

        private boolean tieLess(int a, int b) {
            if (head[a] == Long.MAX_VALUE && (done[a] || done[b])) { // exhausted rings' head is MAX_VALUE too
                return !done[a] || done[b] && a < b;
            }
            return a < b;
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
            remaining--;
            int r = tree[0];
            int[] o = order[r];
            ring = r;
            record = o == null ? pos[r] : o[pos[r]];
            ts = head[r];
            long hw;
            if (++pos[r] == rings[r].eventCount()) {
                done[r] = true;
                hw = Long.MAX_VALUE;
            } else {
                hw = headTs(r);
            }
            head[r] = hw;
            int winner = r;
            for (int n = (r + k) >> 1; n > 0; n >>= 1) { // replay the winner's path; written to compile branch-free
                int t = tree[n];
                long ht = head[t];
                if (ht < hw || ht == hw && tieLess(t, winner)) {
                    tree[n] = winner;
                    winner = t;
                    hw = ht;
                }
            }
            tree[0] = winner;
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
