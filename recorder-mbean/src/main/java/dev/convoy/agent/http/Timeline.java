package dev.convoy.agent.http;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.convoy.analysis.Blockers;
import dev.convoy.analysis.ContentionIndex;
import dev.convoy.analysis.InteractionCursor;
import dev.convoy.analysis.Interval;
import dev.convoy.analysis.Interactions;
import dev.convoy.analysis.OwnerSamples;
import dev.convoy.analysis.IntervalCursor;
import dev.convoy.analysis.PathCursor;
import dev.convoy.analysis.SpanCursor;
import dev.convoy.analysis.ThreadStates;
import dev.convoy.model.Loss;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;

/**
 * The web view's timeline ({@code GET /api/timeline?from=&to=&width=}): for a window of a
 * snapshot and a width in pixels, per Java thread its thread states ({@link ThreadStates}, read
 * from the {@link ContentionIndex}'s span tables), decimated so that the answer is bounded by
 * rows &times; width whatever the number of records; the interactions with an end in the window
 * and the critical path's segments in it. Built once per snapshot (the index, the rows, the
 * interactions sorted by time); each query only reads it. Times in the answer are ns since the
 * recording start. A thread's time in a loss of its records is its UNKNOWN state, and its row
 * lists those losses with their kind and records.
 *
 * <p>Decimation, per row: a span at least one pixel wide (after clipping to the window) is sent
 * as it is, with the stack of the interval that gives its state; consecutive spans narrower than
 * a pixel are merged into one span until it is a pixel wide (or a wide span follows), sent with
 * the state that took most of its time and the number of spans merged. So a row has at most
 * {@code 2 * width + 1} spans. The critical path is decimated the same way (a segment narrower
 * than a pixel is sent only when it starts a pixel column no earlier segment reached); of the
 * interactions, at most {@value #MAX_ARROWS} are sent: those whose woken interval lasted longest.
 */
final class Timeline {

    /** Largest width accepted, in pixels. */
    static final int MAX_WIDTH = 8192;
    /** Interactions sent per answer, at most. */
    static final int MAX_ARROWS = 2000;

    private static final ThreadStates.State[] STATES = ThreadStates.State.values();
    private static final Interactions.Kind[] KINDS = Interactions.Kind.values();

    private final Recording recording;
    private final ContentionIndex index;
    private final long origin;
    private final long duration;
    /** Rings shown, in {@link Recording#threads()} order: the Java threads. */
    private final int[] rings;
    /** Row of each ring, -1 for rings not shown. */
    private final int[] rowOf;
    private final int[] byFrom;
    private final int[] byTo;
    /** The GC pauses of every ring (monotonic ns), by start. */
    private final long[] gcStart;
    private final long[] gcEnd;

    private Timeline(Recording r) {
        this.recording = r;
        this.index = ContentionIndex.of(r);
        this.origin = r.startMonotonicNs();
        this.duration = Math.max(1, r.snapshotMonotonicNs() - origin);
        int[] shown = new int[index.rings()];
        this.rowOf = new int[index.rings()];
        int n = 0;
        for (int k = 0; k < index.rings(); k++) {
            rowOf[k] = -1;
            if (!index.thread(k).isSystem()) {
                rowOf[k] = n;
                shown[n++] = k;
            }
        }
        this.rings = Arrays.copyOf(shown, n);
        InteractionCursor in = index.interactions();
        this.byFrom = in.byFromNs(java.util.EnumSet.allOf(dev.convoy.analysis.Interactions.Kind.class));
        this.byTo = in.byToNs(java.util.EnumSet.allOf(dev.convoy.analysis.Interactions.Kind.class));
        List<long[]> gc = new ArrayList<>();
        for (int k = 0; k < index.rings(); k++) {
            IntervalCursor iv = index.intervals(k);
            for (int i = 0; i < iv.count(); i++) {
                if (iv.select(i).kind() == Interval.Kind.GC) {
                    gc.add(new long[] {iv.startNs(), iv.endNs()});
                }
            }
        }
        gc.sort(Comparator.comparingLong(p -> p[0]));
        this.gcStart = new long[gc.size()];
        this.gcEnd = new long[gc.size()];
        for (int i = 0; i < gc.size(); i++) {
            gcStart[i] = gc.get(i)[0];
            gcEnd[i] = gc.get(i)[1];
        }
    }

    /** The timeline of a snapshot (builds its contention index). */
    static Timeline of(Recording r) {
        return new Timeline(r);
    }

    /** The snapshot this was built from. */
    Recording recording() {
        return recording;
    }

    /** The snapshot's contention index. */
    ContentionIndex index() {
        return index;
    }

    /** Length of the recording (start to snapshot), ns; at least 1. */
    long durationNs() {
        return duration;
    }

    /** Number of rows (Java threads). */
    int rows() {
        return rings.length;
    }

    /** A checked query: {@code 0 <= from < to <= durationNs()}, both ns since the recording start, and a width in pixels. */
    record Query(long from, long to, int width) {
    }

    /**
     * Parses the query parameters (each may be null: the whole recording, 1000 pixels); a
     * {@code to} past the recording's end is taken as its end.
     *
     * @throws IllegalArgumentException with a one-line message saying what is allowed
     */
    Query parse(String from, String to, String width) {
        long f = from == null ? 0 : number("from", from, 0, duration - 1);
        long t = to == null ? duration : Math.min(duration, number("to", to, 1, Long.MAX_VALUE));
        int w = width == null ? 1000 : (int) number("width", width, 1, MAX_WIDTH);
        if (f >= t) {
            throw new IllegalArgumentException("parameter 'from' (" + f + ") must be less than 'to' (" + t + ")");
        }
        return new Query(f, t, w);
    }

    static long number(String name, String value, long min, long max) {
        long v;
        try {
            v = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("parameter '" + name + "' must be a whole number"
                    + (name.equals("width") ? " of pixels" : " of ns since the recording start") + ", got '"
                    + (value.length() > 40 ? value.substring(0, 40) + "..." : value) + "'");
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException("parameter '" + name + "' must be between " + min + " and " + max
                    + ", got " + v);
        }
        return v;
    }

    /** Pixels per ns of a query, and the window in monotonic ns. */
    private record Scale(long from, long to, double perNs) {
        Scale(Query q, long origin) {
            this(origin + q.from(), origin + q.to(), q.width() / (double) (q.to() - q.from()));
        }

        double px(long a, long b) {
            return (b - a) * perNs;
        }
    }

    /** Writes the answer to a query: one JSON object (see {@code docs/user-guide.md}). */
    void write(JsonGenerator g, Query q) throws IOException {
        Scale sc = new Scale(q, origin);
        Map<Long, String> monitors = new HashMap<>();
        Map<OwnerSamples.Sample, Integer> owners = new java.util.LinkedHashMap<>();
        g.writeStartObject();
        g.writeNumberField("from", q.from());
        g.writeNumberField("to", q.to());
        g.writeNumberField("width", q.width());
        g.writeNumberField("durationNs", duration);
        g.writeArrayFieldStart("states");
        for (ThreadStates.State s : STATES) {
            g.writeString(s.name());
        }
        g.writeEndArray();
        g.writeArrayFieldStart("kinds");
        for (Interactions.Kind k : KINDS) {
            g.writeString(k.name());
        }
        g.writeEndArray();
        long spans = 0;
        long merged = 0;
        g.writeArrayFieldStart("rows");
        for (int ring : rings) {
            RecordedThread t = index.thread(ring);
            g.writeStartObject();
            g.writeNumberField("ring", t.ringId());
            g.writeNumberField("javaThreadId", t.javaThreadId());
            g.writeStringField("name", t.label());
            g.writeBooleanField("virtual", t.isVirtual());
            g.writeArrayFieldStart("spans");
            RowWriter w = new RowWriter(g, sc, ring, index.spans(ring), index.intervals(ring), monitors, owners);
            w.write();
            g.writeEndArray();
            losses(g, sc, t);
            g.writeEndObject();
            spans += w.emitted;
            merged += w.mergedSpans;
        }
        g.writeEndArray();
        g.writeNumberField("spanCount", spans);
        g.writeNumberField("mergedSpans", merged);
        path(g, sc);
        arrows(g, sc);
        gc(g, sc);
        g.writeObjectFieldStart("monitors");
        for (Map.Entry<Long, String> m : monitors.entrySet()) {
            g.writeStringField(Long.toString(m.getKey()), m.getValue());
        }
        g.writeEndObject();
        owners(g, owners);
        g.writeEndObject();
    }

    /**
     * {@code owners: [{owner, state, on, frame, frameExact, stack}]}: the owner's side of the
     * blocks among the spans sent (a span's 9th element, 1-based; OWNER_SAMPLE).
     */
    private void owners(JsonGenerator g, Map<OwnerSamples.Sample, Integer> owners) throws IOException {
        g.writeArrayFieldStart("owners");
        for (OwnerSamples.Sample s : owners.keySet()) {
            g.writeStartObject();
            g.writeStringField("owner", s.owner() != null ? s.owner().label() : s.ownerName());
            g.writeStringField("state", s.state().label());
            String on = s.state().onSomething() && s.on() != 0
                    ? Blockers.className(recording, s.on(), s.state() == OwnerSamples.State.PARKED) : "";
            g.writeStringField("on", on);
            dev.convoy.model.Frame f = s.holdingFrame(recording);
            g.writeStringField("frame", f == null ? "" : recording.describe(f));
            g.writeBooleanField("frameExact", s.frameExact());
            g.writeNumberField("stack", s.stackId());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /**
     * {@code losses: [[from, to, kind, records], ...]}: the thread's losses of records that overlap
     * the window (ns since the recording start, kind {@code overwritten} or {@code aged}); its state
     * in them is UNKNOWN.
     */
    private void losses(JsonGenerator g, Scale sc, RecordedThread t) throws IOException {
        g.writeArrayFieldStart("losses");
        for (Loss l : t.losses()) {
            if (l.fromNs() <= sc.to() && l.toNs() >= sc.from()) {
                g.writeStartArray();
                g.writeNumber(l.fromNs() - origin);
                g.writeNumber(l.toNs() - origin);
                g.writeString(l.kindName());
                g.writeNumber(l.records());
                g.writeEndArray();
            }
        }
        g.writeEndArray();
    }

    /**
     * One row's decimated spans: {@code [start, end, state, spans merged, stack, monitor, timed out,
     * records lost, owner]}, timed out 1 for a wait or park its own timeout ended (a TIMEOUT interaction),
     * else 0; records lost: of the thread's losses the span overlaps (its UNKNOWN time), else 0;
     * owner: the 1-based index in {@code owners} of the block's owner's side, 0 none.
     */
    private final class RowWriter {
        final JsonGenerator g;
        final Scale sc;
        final int ring;
        final SpanCursor st;
        final IntervalCursor iv;
        final Map<Long, String> monitors;
        final Map<OwnerSamples.Sample, Integer> owners;
        final long[] nsByState = new long[STATES.length];
        long pendingStart;
        long pendingEnd;
        int pendingCount;
        int pendingSpan;
        int emitted;
        long mergedSpans;

        RowWriter(JsonGenerator g, Scale sc, int ring, SpanCursor st, IntervalCursor iv, Map<Long, String> monitors,
                  Map<OwnerSamples.Sample, Integer> owners) {
            this.owners = owners;
            this.g = g;
            this.sc = sc;
            this.ring = ring;
            this.st = st;
            this.iv = iv;
            this.monitors = monitors;
        }

        void write() throws IOException {
            for (int s = st.firstEndingAfter(sc.from()); s < st.count() && st.select(s).startNs() < sc.to(); s++) {
                long a = Math.max(st.startNs(), sc.from());
                long b = Math.min(st.endNs(), sc.to());
                if (b <= a) {
                    continue;
                }
                if (sc.px(a, b) >= 1) {
                    flush();
                    single(s, a, b);
                    continue;
                }
                if (pendingCount == 0) {
                    pendingStart = a;
                    pendingSpan = s;
                }
                pendingEnd = b;
                pendingCount++;
                nsByState[st.state().ordinal()] += b - a;
                if (sc.px(pendingStart, pendingEnd) >= 1) {
                    flush();
                }
            }
            flush();
        }

        private void flush() throws IOException {
            if (pendingCount == 1) {
                single(pendingSpan, pendingStart, pendingEnd);
            } else if (pendingCount > 1) {
                int dominant = 0;
                for (int k = 1; k < nsByState.length; k++) {
                    if (nsByState[k] > nsByState[dominant]) {
                        dominant = k;
                    }
                }
                span(pendingStart, pendingEnd, dominant, pendingCount, 0, 0, false, 0);
                mergedSpans += pendingCount;
            }
            pendingCount = 0;
            Arrays.fill(nsByState, 0);
        }

        private void single(int s, long a, long b) throws IOException {
            int in = st.select(s).interval();
            IntervalCursor c = in < 0 ? null : iv.select(in);
            long monitor = c == null ? 0 : c.monitor();
            int stack = c == null ? 0 : iv.thread().stackId(c.beginRecord());
            if (monitor != 0 && !monitors.containsKey(monitor)) {
                String cls = Blockers.className(recording, monitor, c.isPark());
                monitors.put(monitor, cls.isEmpty() ? "?" : cls);
            }
            boolean timedOut = c != null && c.endedByTimeout();
            OwnerSamples.Sample os = c == null ? null : c.ownerSample();
            int owner = os == null ? 0 : owners.computeIfAbsent(os, k -> owners.size() + 1);
            span(a, b, st.state().ordinal(), 1, stack, monitor, timedOut, owner);
        }

        private void span(long a, long b, int state, int count, int stack, long monitor, boolean timedOut, int owner)
                throws IOException {
            g.writeStartArray();
            g.writeNumber(a - origin);
            g.writeNumber(b - origin);
            g.writeNumber(state);
            g.writeNumber(count);
            g.writeNumber(stack);
            g.writeNumber(monitor);
            g.writeNumber(timedOut ? 1 : 0);
            g.writeNumber(lostIn(a, b));
            g.writeNumber(owner);
            g.writeEndArray();
            emitted++;
        }

        /** The records of the thread's losses that overlap the time from {@code a} to {@code b}. */
        private long lostIn(long a, long b) {
            List<Loss> losses = iv.thread().losses();
            int lo = 0;
            int hi = losses.size();
            while (lo < hi) { // the first loss that ends after a (losses are in time order)
                int mid = (lo + hi) >>> 1;
                if (losses.get(mid).toNs() <= a) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            long n = 0;
            for (int i = Math.max(0, lo - 1); i < losses.size() && losses.get(i).fromNs() <= b; i++) {
                if (losses.get(i).overlaps(a, b)) {
                    n += losses.get(i).records();
                }
            }
            return n;
        }
    }


    /** The critical path's segments in the window: {@code path: [[row, start, end, state], ...]}. */
    private void path(JsonGenerator g, Scale sc) throws IOException {
        PathCursor p = index.path();
        int lo = p.firstEndingAfter(sc.from());
        g.writeNumberField("pathLengthNs", p.pathEndNs() - p.pathStartNs());
        g.writeArrayFieldStart("path");
        long reached = Long.MIN_VALUE; // the first pixel column no segment sent so far covers
        for (int s = lo; s < p.count() && p.select(s).startNs() < sc.to(); s++) {
            long a = Math.max(p.startNs(), sc.from());
            long b = Math.min(p.endNs(), sc.to());
            int row = rowOf[p.ring()];
            if (b <= a || row < 0) {
                continue;
            }
            long column = (long) Math.floor(sc.px(sc.from(), a));
            if (sc.px(a, b) < 1 && column < reached) {
                continue;
            }
            reached = Math.max(reached, (long) Math.ceil(sc.px(sc.from(), b)));
            g.writeStartArray();
            g.writeNumber(row);
            g.writeNumber(a - origin);
            g.writeNumber(b - origin);
            g.writeNumber(p.state().ordinal());
            g.writeEndArray();
        }
        g.writeEndArray();
    }

    /**
     * {@code gc: [[fromNs, toNs], ...]}: the GC pauses that overlap the window, by start, those
     * less than a pixel apart merged into one (so at most {@code width + 1}); {@code gcCount}:
     * how many pauses that is before merging.
     */
    private void gc(JsonGenerator g, Scale sc) throws IOException {
        int count = 0;
        g.writeArrayFieldStart("gc");
        long from = -1;
        long to = -1;
        for (int i = 0; i < gcStart.length && gcStart[i] <= sc.to(); i++) {
            if (gcEnd[i] < sc.from()) {
                continue;
            }
            count++;
            if (from >= 0 && sc.px(to, gcStart[i]) < 1) {
                to = Math.max(to, gcEnd[i]);
                continue;
            }
            if (from >= 0) {
                writePause(g, from, to);
            }
            from = gcStart[i];
            to = gcEnd[i];
        }
        if (from >= 0) {
            writePause(g, from, to);
        }
        g.writeEndArray();
        g.writeNumberField("gcCount", count);
    }

    private void writePause(JsonGenerator g, long from, long to) throws IOException {
        g.writeStartArray();
        g.writeNumber(from - origin);
        g.writeNumber(to - origin);
        g.writeEndArray();
    }

    /**
     * The interactions with an end in the window, between shown rows:
     * {@code arrows: [[kind, fromRow, fromNs, toRow, toNs], ...]}, those ending in the window by the
     * time the woken thread ran, then those only starting in it; {@code arrowCount} is how many there
     * were before {@link #longestWoken} kept {@value #MAX_ARROWS}.
     */
    private void arrows(JsonGenerator g, Scale sc) throws IOException {
        InteractionCursor in = index.interactions();
        int[] picked = new int[16];
        int n = 0;
        for (int id : inWindow(byTo, in, sc, false)) {
            if (rowOf[in.select(id).fromRing()] >= 0 && rowOf[in.select(id).toRing()] >= 0) {
                picked = n == picked.length ? Arrays.copyOf(picked, 2 * n) : picked;
                picked[n++] = id;
            }
        }
        for (int id : inWindow(byFrom, in, sc, true)) {
            long to = in.select(id).toNs();
            boolean counted = to >= sc.from() && to <= sc.to();
            if (!counted && rowOf[in.select(id).fromRing()] >= 0 && rowOf[in.select(id).toRing()] >= 0) {
                picked = n == picked.length ? Arrays.copyOf(picked, 2 * n) : picked;
                picked[n++] = id;
            }
        }
        g.writeNumberField("arrowCount", n);
        g.writeArrayFieldStart("arrows");
        int[] sent = n <= MAX_ARROWS ? Arrays.copyOf(picked, n) : longestWoken(in, picked, n);
        for (int id : sent) {
            g.writeStartArray();
            g.writeNumber(in.select(id).kind().ordinal());
            g.writeNumber(rowOf[in.select(id).fromRing()]);
            g.writeNumber(in.select(id).fromNs() - origin);
            g.writeNumber(rowOf[in.select(id).toRing()]);
            g.writeNumber(in.select(id).toNs() - origin);
            g.writeEndArray();
        }
        g.writeEndArray();
    }

    /**
     * The {@value #MAX_ARROWS} of {@code n} interactions whose woken interval (the one each ended)
     * lasted longest, in their order in {@code ids}: those are drawn on the widest spans, the
     * ones a person can point at; an interaction that ended no interval counts as lasting 0.
     */
    private int[] longestWoken(InteractionCursor in, int[] ids, int n) {
        long[] lasted = new long[n];
        for (int j = 0; j < n; j++) {
            lasted[j] = wokenNs(in, ids[j]);
        }
        long[] sorted = Arrays.copyOf(lasted, n);
        Arrays.sort(sorted);
        long threshold = sorted[n - MAX_ARROWS];
        int above = 0;
        for (int j = 0; j < n; j++) {
            above += lasted[j] > threshold ? 1 : 0;
        }
        int ties = MAX_ARROWS - above;
        int[] out = new int[MAX_ARROWS];
        int m = 0;
        for (int j = 0; j < n && m < MAX_ARROWS; j++) {
            if (lasted[j] > threshold || lasted[j] == threshold && ties-- > 0) {
                out[m++] = ids[j];
            }
        }
        return out;
    }

    /** How long the interval an interaction ended lasted, 0 if it ended none. */
    private long wokenNs(InteractionCursor in, int id) {
        int iv = in.select(id).endedInterval();
        if (iv < 0) {
            return 0;
        }
        IntervalCursor g = index.intervals(in.toRing()).select(iv);
        return g.endNs() - g.startNs();
    }

    /** The ids of {@code sorted} (by fromNs or toNs) whose time lies in the window. */
    private static int[] inWindow(int[] sorted, InteractionCursor in, Scale sc, boolean byFromNs) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            long t = byFromNs ? in.select(sorted[mid]).fromNs() : in.select(sorted[mid]).toNs();
            if (t < sc.from()) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int end = lo;
        while (end < sorted.length && (byFromNs ? in.select(sorted[end]).fromNs() : in.select(sorted[end]).toNs()) <= sc.to()) {
            end++;
        }
        return Arrays.copyOfRange(sorted, lo, end);
    }
}
