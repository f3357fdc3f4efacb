package dev.convoy.model;

import dev.convoy.snapshot.SnapshotFormat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * One thread ring of SECTION_THREADS: the thread's identity, its counters and its
 * records, oldest first. Identity equality (two rings are never the same thread entry).
 *
 * <p>The records are kept in their 40-byte snapshot encoding ({@code RECORD_BYTES}), in a
 * slice of the (possibly memory-mapped) snapshot when read from a file, so a recording
 * costs no heap per event; {@link #events()} is a read-only list view that makes each
 * {@link Event} when it is read.
 */
public final class RecordedThread {
    private final long ringId;
    private final long javaThreadId;
    private final long threadObject;
    private final int flags;
    private final long startNs;
    private final long endNs;
    private final long written;
    private final long overwritten;
    private final long dropped;
    private final long torn;
    private final String name;
    private final String group;
    private final String parentGroup;
    private final int capacity;
    private final ByteBuffer records;
    private final int count;
    private final List<Event> events;
    private final List<Loss> losses;

    /**
     * @param events records oldest first; each is re-bound to this thread
     *               ({@link Event#withThread}), so templates from {@link Event#of} are fine
     */
    public RecordedThread(long ringId, long javaThreadId, long threadObject, int flags, long startNs,
                          long endNs, long written, long overwritten, long dropped, long torn,
                          String name, String group, String parentGroup, int capacity,
                          List<Event> events) {
        this(ringId, javaThreadId, threadObject, flags, startNs, endNs, written, overwritten, dropped, torn, name,
                group, parentGroup, capacity, encode(events), events.size(), List.of());
    }

    /** The events in the snapshot's 40-byte record encoding. */
    private static ByteBuffer encode(List<Event> events) {
        ByteBuffer b = ByteBuffer.allocate(events.size() * SnapshotFormat.RECORD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (Event e : events) {
            b.putLong(e.ts()).put((byte) e.rawType()).put((byte) e.flags()).putShort((short) e.aux())
                    .putInt(e.stackId()).putLong(e.obj()).putLong(e.arg()).putLong(e.arg2());
        }
        return b.flip();
    }

    private RecordedThread(long ringId, long javaThreadId, long threadObject, int flags, long startNs,
                           long endNs, long written, long overwritten, long dropped, long torn,
                           String name, String group, String parentGroup, int capacity,
                           ByteBuffer records, int count, List<Loss> losses) {
        this.ringId = ringId;
        this.javaThreadId = javaThreadId;
        this.threadObject = threadObject;
        this.flags = flags;
        this.startNs = startNs;
        this.endNs = endNs;
        this.written = written;
        this.overwritten = overwritten;
        this.dropped = dropped;
        this.torn = torn;
        this.name = name;
        this.group = group;
        this.parentGroup = parentGroup;
        this.capacity = capacity;
        this.records = records.slice().order(ByteOrder.LITTLE_ENDIAN);
        this.count = count;
        this.events = new View();
        this.losses = List.copyOf(losses);
    }

    /**
     * This ring with {@code losses} as its {@link #losses()} (in time order, not overlapping):
     * a new ring over the same records (its events are bound to the new ring).
     */
    public RecordedThread withLosses(List<Loss> losses) {
        return new RecordedThread(ringId, javaThreadId, threadObject, flags, startNs, endNs, written, overwritten,
                dropped, torn, name, group, parentGroup, capacity, records, count, losses);
    }

    /**
     * A ring over {@code count} records in the snapshot encoding (40 bytes each, little
     * endian), from {@code records}' position; the buffer is kept, not copied (it may be a
     * slice of a memory-mapped file), and must not change afterwards.
     */
    public static RecordedThread ofRecords(long ringId, long javaThreadId, long threadObject, int flags,
                                           long startNs, long endNs, long written, long overwritten,
                                           long dropped, long torn, String name, String group,
                                           String parentGroup, int capacity, ByteBuffer records, int count) {
        if ((long) count * SnapshotFormat.RECORD_BYTES > records.remaining()) {
            throw new IllegalArgumentException(count + " records need " + (long) count * SnapshotFormat.RECORD_BYTES
                    + " bytes, " + records.remaining() + " given");
        }
        return new RecordedThread(ringId, javaThreadId, threadObject, flags, startNs, endNs, written, overwritten,
                dropped, torn, name, group, parentGroup, capacity, records, count, List.of());
    }

    /** Number of records, {@code events().size()}. */
    public int eventCount() { return count; }

    /** Appends record {@code i}, its {@code RECORD_BYTES} bytes as they are, to {@code out}. */
    public void copyRecord(int i, ByteBuffer out) {
        out.put(records.slice(checked(i) * SnapshotFormat.RECORD_BYTES, SnapshotFormat.RECORD_BYTES));
    }

    /** Timestamp of record {@code i} without making its {@link Event}. */
    public long ts(int i) {
        return records.getLong(checked(i) * SnapshotFormat.RECORD_BYTES);
    }

    /** Type byte of record {@code i} without making its {@link Event}. */
    public int rawType(int i) {
        return records.get(checked(i) * SnapshotFormat.RECORD_BYTES + 8) & 0xFF;
    }

    /** Type of record {@code i} without making its {@link Event}. */
    public EventType type(int i) {
        return EventType.of(rawType(i));
    }

    /** The u16 after the flags of record {@code i} ({@link Event#aux()}) without making its {@link Event}. */
    public int aux(int i) {
        return records.getShort(checked(i) * SnapshotFormat.RECORD_BYTES + 10) & 0xFFFF;
    }

    /** Stack id of record {@code i} (0 = none) without making its {@link Event}. */
    public int stackId(int i) {
        return records.getInt(checked(i) * SnapshotFormat.RECORD_BYTES + 12);
    }

    /** Object id of record {@code i} without making its {@link Event}. */
    public long obj(int i) {
        return records.getLong(checked(i) * SnapshotFormat.RECORD_BYTES + 16);
    }

    /** First argument of record {@code i} without making its {@link Event}. */
    public long arg(int i) {
        return records.getLong(checked(i) * SnapshotFormat.RECORD_BYTES + 24);
    }

    /** Second argument of record {@code i} without making its {@link Event}. */
    public long arg2(int i) {
        return records.getLong(checked(i) * SnapshotFormat.RECORD_BYTES + 32);
    }

    /** {@code FLAG_*} bits of record {@code i} without making its {@link Event}. */
    public int flags(int i) {
        return records.get(checked(i) * SnapshotFormat.RECORD_BYTES + 9) & 0xFF;
    }

    /** Record {@code i} (0 = oldest) as an {@link Event} bound to this ring and position. */
    public Event event(int i) {
        int at = checked(i) * SnapshotFormat.RECORD_BYTES;
        ByteBuffer b = records;
        int raw = b.get(at + 8) & 0xFF;
        return new Event(this, i, b.getLong(at), EventType.of(raw), raw, b.get(at + 9) & 0xFF, b.getShort(at + 10),
                b.getInt(at + 12),
                b.getLong(at + 16), b.getLong(at + 24), b.getLong(at + 32));
    }

    private int checked(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("record " + i + " of " + count);
        }
        return i;
    }

    /** The records as a read-only list; each get makes a fresh view, equal to any other of the same record. */
    private final class View extends AbstractList<Event> implements RandomAccess {
        @Override
        public Event get(int i) {
            return event(i);
        }

        @Override
        public int size() {
            return count;
        }

        @Override
        public int indexOf(Object o) {
            if (o instanceof Event e && e.thread() == RecordedThread.this && e.index() >= 0) {
                return e.index();
            }
            return super.indexOf(o);
        }

        @Override
        public int lastIndexOf(Object o) {
            return indexOf(o);
        }

        @Override
        public boolean contains(Object o) {
            return indexOf(o) >= 0;
        }
    }

    /** Unique ring id within the snapshot. */
    public long ringId() { return ringId; }
    /** {@code Thread.getId()}, -1 for the GC ring. */
    public long javaThreadId() { return javaThreadId; }
    /** Object id of the java.lang.Thread, 0 for the GC ring. */
    public long threadObject() { return threadObject; }
    /** {@code RING_*} bits. */
    public int flags() { return flags; }
    /** When the recorder met the thread (monotonic ns). */
    public long startNs() { return startNs; }
    /** When the thread ended (monotonic ns), 0 while alive. */
    public long endNs() { return endNs; }
    /** Records ever written into this ring. */
    public long written() { return written; }
    /** Records lost to overwrite-oldest (SECTION_THREADS' counter; {@link #losses()} say when). */
    public long overwritten() { return overwritten; }

    /**
     * The time ranges whose records are missing (SECTION_LOSSES, or for a file before 1.5 the one
     * loss {@link Recording} makes of {@link #overwritten()}), in time order, not overlapping;
     * immutable, empty when nothing of this ring was lost. The thread's state in them is unknown.
     */
    public List<Loss> losses() { return losses; }

    /** Records missing over all {@link #losses()}. */
    public long lostRecords() {
        long n = 0;
        for (Loss l : losses) {
            n += l.records();
        }
        return n;
    }

    /** Time of all {@link #losses()}, ns: the thread's time whose state is unknown. */
    public long lostNs() {
        long n = 0;
        for (Loss l : losses) {
            n += l.durationNs();
        }
        return n;
    }

    /**
     * From when this thread's history is complete: the {@code toNs} of its last loss, or its
     * {@link #startNs()} when it has none.
     */
    public long completeFromNs() {
        return losses.isEmpty() ? startNs : losses.get(losses.size() - 1).toNs();
    }

    /** The loss whose time contains {@code ns} ({@code fromNs < ns < toNs}), or null. */
    public Loss lossAt(long ns) {
        for (Loss l : losses) {
            if (l.fromNs() < ns && ns < l.toNs()) {
                return l;
            }
        }
        return null;
    }
    /** Events that could not be recorded at all. */
    public long dropped() { return dropped; }
    /** Records skipped by the snapshot because a concurrent write tore them. */
    public long torn() { return torn; }
    /** Thread name at snapshot time or at its end. */
    public String name() { return name; }

    /**
     * The name to show a person: the name, or {@code "thread <java id>"} when it is empty; a
     * virtual thread says so: {@code "<name> (virtual)"}, or {@code "virtual thread <java id>"}.
     */
    public String label() {
        if (isVirtual()) {
            return name.isEmpty() ? "virtual thread " + javaThreadId : name + " (virtual)";
        }
        return name.isEmpty() ? "thread " + javaThreadId : name;
    }

    /**
     * The name the outputs write where they write a thread's name: the name, but for a virtual
     * thread its {@link #label()}, so that every output names virtual threads as such.
     */
    public String displayName() { return isVirtual() ? label() : name; }
    /** Thread group name, "" if none. */
    public String group() { return group; }
    /** Parent thread group name, "" if none. */
    public String parentGroup() { return parentGroup; }
    /** Ring capacity in records. */
    public int capacity() { return capacity; }
    /**
     * The records, oldest first, each with {@link Event#thread()} == this and
     * {@link Event#index()} its position: a read-only view that makes each event on access
     * (see {@link Event} on equality).
     */
    public List<Event> events() { return events; }

    /** RING_SYSTEM: the GC ring, not a Java thread. */
    public boolean isSystem() { return (flags & SnapshotFormat.RING_SYSTEM) != 0; }
    /** RING_ENDED. */
    public boolean isEnded() { return (flags & SnapshotFormat.RING_ENDED) != 0; }
    /** RING_LATE: met after it had started, so {@link #startNs()} is not its real start. */
    public boolean isLate() { return (flags & SnapshotFormat.RING_LATE) != 0; }

    /** RING_VIRTUAL: a virtual thread (JDK 21+). */
    public boolean isVirtual() { return (flags & SnapshotFormat.RING_VIRTUAL) != 0; }

    /** Whether it is a daemon thread (RING_DAEMON): one the JVM does not wait for before it exits. */
    public boolean isDaemon() { return (flags & SnapshotFormat.RING_DAEMON) != 0; }

    @Override
    public String toString() {
        return "RecordedThread[ring=" + ringId + " tid=" + javaThreadId + " name=" + name
                + " events=" + count + "]";
    }
}
