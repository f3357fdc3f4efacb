package dev.convoy.model;

import dev.convoy.snapshot.SnapshotFormat;
import java.util.ArrayList;
import java.util.List;

/**
 * One thread ring of SECTION_THREADS: the thread's identity, its counters and its
 * records, oldest first. Identity equality (two rings are never the same thread entry).
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
    private final List<Event> events;

    /**
     * @param events records oldest first; each is re-bound to this thread
     *               ({@link Event#withThread}), so templates from {@link Event#of} are fine
     */
    public RecordedThread(long ringId, long javaThreadId, long threadObject, int flags, long startNs,
                          long endNs, long written, long overwritten, long dropped, long torn,
                          String name, String group, String parentGroup, int capacity,
                          List<Event> events) {
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
        List<Event> bound = new ArrayList<>(events.size());
        for (Event e : events) {
            bound.add(e.withThread(this));
        }
        this.events = List.copyOf(bound);
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
    /** Records lost to overwrite-oldest. */
    public long overwritten() { return overwritten; }
    /** Events that could not be recorded at all. */
    public long dropped() { return dropped; }
    /** Records skipped by the snapshot because a concurrent write tore them. */
    public long torn() { return torn; }
    /** Thread name at snapshot time or at its end. */
    public String name() { return name; }
    /** Thread group name, "" if none. */
    public String group() { return group; }
    /** Parent thread group name, "" if none. */
    public String parentGroup() { return parentGroup; }
    /** Ring capacity in records. */
    public int capacity() { return capacity; }
    /** The records, oldest first, each with {@link Event#thread()} == this. */
    public List<Event> events() { return events; }

    /** RING_SYSTEM: the GC ring, not a Java thread. */
    public boolean isSystem() { return (flags & SnapshotFormat.RING_SYSTEM) != 0; }
    /** RING_ENDED. */
    public boolean isEnded() { return (flags & SnapshotFormat.RING_ENDED) != 0; }
    /** RING_LATE: met after it had started, so {@link #startNs()} is not its real start. */
    public boolean isLate() { return (flags & SnapshotFormat.RING_LATE) != 0; }

    @Override
    public String toString() {
        return "RecordedThread[ring=" + ringId + " tid=" + javaThreadId + " name=" + name
                + " events=" + events.size() + "]";
    }
}
