package dev.convoy.agent;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotFormatException;
import dev.convoy.snapshot.SnapshotReader;

/**
 * The running recorder as its front-ends (the MBean, the web view, the dump on exit) use it:
 * taking snapshots and reading them, freezing one per front-end, the counters, switching
 * recording, reset. One per agent ({@link ConvoyAgent#session()}).
 *
 * <p>A front-end that shows a snapshot and then serves files or stacks of it holds a
 * {@link View}: {@link View#freeze()} takes and keeps a snapshot, {@link View#current()}
 * returns it, so that a summary and the downloads that follow agree. Each front-end has its
 * own view: one user's snapshot never replaces another's. {@link #reset()} clears them all.
 *
 * <p>Thread-safe.
 */
public final class RecorderSession {

    private final List<View> views = new CopyOnWriteArrayList<>();
    private final String offReason;
    private final dev.convoy.model.IdleRules idleRules;

    /**
     * @param offReason why the recorder is off for good (see {@link ConvoyAgent#offReason()}), null if it runs
     * @param idleRules the rules every snapshot's analysis tells idle waits from contention by
     */
    RecorderSession(String offReason, dev.convoy.model.IdleRules idleRules) {
        this.offReason = offReason;
        this.idleRules = idleRules;
    }

    /** @throws IllegalStateException "recorder off: why" if the recorder is off for good */
    private void requireOn() {
        if (offReason != null) {
            throw new IllegalStateException(ConvoyAgent.offMessage(offReason));
        }
    }

    /**
     * Takes a snapshot now and reads it: no application thread is stopped. The recording
     * keeps the snapshot's bytes ({@link Recording#bytes()}) in native memory, not on the heap.
     *
     * @throws IllegalStateException if the recorder is off, not started or runs out of memory
     */
    public Recording take() {
        requireOn();
        java.nio.ByteBuffer bytes = NativeRecorder.snapshotDirect(); // off the heap
        try {
            Recording r = SnapshotReader.read(bytes);
            return idleRules == dev.convoy.model.IdleRules.DEFAULT ? r : r.withIdleRules(idleRules);
        } catch (SnapshotFormatException e) {
            throw new IllegalStateException("the recorder wrote a snapshot its reader refuses: " + e.getMessage(), e);
        }
    }

    /** A new view for one front-end, with no frozen snapshot. */
    public View view() {
        View v = new View();
        views.add(v);
        return v;
    }

    /**
     * Discards everything recorded so far and every view's frozen snapshot; later snapshots
     * hold only the events that follow. The counters keep counting from the start.
     */
    public void reset() {
        requireOn();
        NativeRecorder.reset();
        for (View v : views) {
            v.frozen = null;
        }
    }

    /** The recorder's counters now; all 0 if the recorder is off for good. */
    public NativeRecorder.Counters counters() {
        return offReason != null ? NativeRecorder.zeroCounters() : NativeRecorder.counters();
    }

    /** Whether monitor and GC events are being recorded; false if the recorder is off for good. */
    public boolean isRecording() {
        return offReason == null && NativeRecorder.isRecording();
    }

    /**
     * Switches recording on or off.
     *
     * @throws IllegalStateException if the recorder is off for good or refuses
     */
    public void setRecording(boolean on) {
        requireOn();
        NativeRecorder.setRecording(on);
    }

    /**
     * Benchmark only, with {@code bench.timing=on}: times only the callbacks that begin from now on.
     *
     * @throws IllegalStateException if the recorder is off for good or refuses
     */
    public void restartTiming() {
        requireOn();
        NativeRecorder.restartTiming();
    }

    /** One front-end's frozen snapshot. */
    public final class View {
        private volatile Recording frozen;

        private View() {
        }

        /** Takes a snapshot and keeps it as this view's frozen one. */
        public Recording freeze() {
            Recording r = take();
            frozen = r;
            return r;
        }

        /** The frozen snapshot, null when none is. */
        public Recording frozen() {
            return frozen;
        }

        /** The frozen snapshot, or a fresh one (not kept) when none is frozen. */
        public Recording current() {
            Recording r = frozen;
            return r != null ? r : take();
        }
    }
}
