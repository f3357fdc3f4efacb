package dev.convoy.analysis;

import dev.convoy.analysis.Interactions.Kind;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.Set;

/**
 * A cursor over the interactions of an index (the arrows of {@link Interactions}: every kind
 * but TIMEOUT, which {@link IntervalCursor#endedByTimeout} tells), numbered in derivation
 * order: {@link #select} puts it on one, whose facts the other methods read. Also which
 * interaction each START_CALL, INTERRUPT_CALL, NOTIFY, NOTIFY_ALL and UNPARK record caused, by
 * that record's place among the records of its type in the order of {@link Recording#events()}.
 */
public final class InteractionCursor {
    private final ContentionIndex x;
    private final InteractionTable in;
    private int id = -1;

    InteractionCursor(ContentionIndex x, InteractionTable in) {
        this.x = x;
        this.in = in;
    }

    /** Number of interactions. */
    public int count() {
        return in.count();
    }

    /** Puts the cursor on interaction {@code id}. */
    public InteractionCursor select(int id) {
        if (id < 0 || id >= in.count()) {
            throw new IndexOutOfBoundsException("interaction " + id + " of " + in.count());
        }
        this.id = id;
        return this;
    }

    /** The interaction the cursor is on. */
    public int id() {
        return id;
    }

    /** What happened. */
    public Kind kind() {
        return in.kind(id);
    }

    /** The ring of the active thread (starter, releaser, notifier, interrupter, ended thread, unparker). */
    public int fromRing() {
        return in.fromRing(id);
    }

    /** The active thread. */
    public RecordedThread from() {
        return in.from(id);
    }

    /** When the active thread acted. */
    public long fromNs() {
        return in.fromNs(id);
    }

    /** Whether the active thread is a recorded fact (false only for a HANDOFF whose releaser is inferred). */
    public boolean exact() {
        return in.exact(id);
    }

    /** The ring of the thread the interaction made run. */
    public int toRing() {
        return in.toRing(id);
    }

    /** The thread the interaction made run. */
    public RecordedThread to() {
        return in.to(id);
    }

    /** When that thread ran. */
    public long toNs() {
        return in.toNs(id);
    }

    /** The monitor or Thread object. */
    public long monitor() {
        return in.monitor(id);
    }

    /** Record index (on the {@link #fromRing} ring) of the call or THREAD_END that caused it, -1 none. */
    public int cause() {
        return in.cause(id);
    }

    /** The interval (of the {@link #toRing} ring, an id of its {@link IntervalCursor}) it ended, -1 none. */
    public int endedInterval() {
        return in.ended(id);
    }

    /** Record index (on the {@link #toRing} ring) that shows the thread running, -1 if not recorded. */
    public int effect() {
        return in.effect(id);
    }

    // ---- by the records that caused interactions

    /** The START interaction of the n-th START_CALL in event order, -1 if it started nothing. */
    public int startCall(int n) {
        return in.startCall(n);
    }

    /** The INTERRUPT interaction of the n-th INTERRUPT_CALL in event order, -1 if none. */
    public int interruptCall(int n) {
        return in.interruptCall(n);
    }

    /** The UNPARK interaction of the n-th UNPARK record in event order, -1 if it woke no recorded park. */
    public int unparkCall(int n) {
        return in.unparkCall(n);
    }

    /** The interactions bound to the n-th NOTIFY or NOTIFY_ALL call in event order, in bind order. */
    public int[] notifyCall(int n) {
        return in.notifyCall(n);
    }

    /** Number of NOTIFY and NOTIFY_ALL calls. */
    public int notifyCalls() {
        return in.notifyCalls();
    }

    /** The ring of the n-th NOTIFY or NOTIFY_ALL call in event order. */
    public int notifyCallRing(int n) {
        return in.notifyCallRing(n);
    }

    /** Its record index on that ring. */
    public int notifyCallRecord(int n) {
        return in.notifyCallRecord(n);
    }

    /** The ids of the interactions of the given kinds, sorted stably by {@link #fromNs}. */
    public int[] byFromNs(Set<Kind> kinds) {
        return in.sortedBy(true, i -> kinds.contains(in.kind(i)));
    }

    /** The ids of the interactions of the given kinds, sorted stably by {@link #toNs}. */
    public int[] byToNs(Set<Kind> kinds) {
        return in.sortedBy(false, i -> kinds.contains(in.kind(i)));
    }

    /** The index this reads. */
    ContentionIndex index() {
        return x;
    }
}
