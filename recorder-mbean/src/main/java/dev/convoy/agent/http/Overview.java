package dev.convoy.agent.http;


import java.io.IOException;
import java.time.Instant;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.convoy.analysis.Intervals;
import dev.convoy.model.IdleRules;
import dev.convoy.model.Loss;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.Window;

/**
 * The overview of a whole frozen history ({@code GET /api/overview?buckets=N}): the time from the
 * history's start to the snapshot cut into N equal buckets, and per bucket the Java threads'
 * blocked, waited (contention) and idle thread-time and how many of each began in it, the
 * thread-time whose state is unknown (losses of records), the records kept and the records lost.
 * Cheap and bounded whatever the history's size: one pass over each ring's records, no analysis
 * index; memory O(buckets) plus the idle rules' verdict per stack.
 *
 * <p>The intervals are the analysis' own ({@link Intervals#visit}, which keeps none), so that
 * the overview's counts are the report's: BLOCKED intervals (contended enters, parks acquiring a
 * lock) are blocks; WAITING ones ({@code Object.wait} but not a {@code Thread.join}'s, other
 * parks) are waits, idle when the idle rules say so ({@link IdleRules}).
 */
final class Overview {

    /** Buckets when the request names none. */
    static final int DEFAULT_BUCKETS = 300;
    /** Most buckets an overview has. */
    static final int MAX_BUCKETS = 4000;

    private final Recording recording;
    private final long origin;
    private final long duration;
    private final int n;
    /** Whether duration * n fits a long (a history under 26 days at the most buckets): exact bucket bounds. */
    private final boolean exact;
    final long[] blockedNs;
    final long[] waitedNs;
    final long[] idleNs;
    final long[] unknownNs;
    final long[] blocks;
    final long[] waits;
    final long[] idleWaits;
    final long[] records;
    final long[] lostRecords;
    private final IdleRules.Classifier idle;

    private Overview(Recording r, int buckets) {
        this.recording = r;
        this.origin = r.startMonotonicNs();
        this.duration = Math.max(1, r.snapshotMonotonicNs() - origin);
        this.n = buckets;
        this.exact = duration <= Long.MAX_VALUE / buckets;
        blockedNs = new long[n];
        waitedNs = new long[n];
        idleNs = new long[n];
        unknownNs = new long[n];
        blocks = new long[n];
        waits = new long[n];
        idleWaits = new long[n];
        records = new long[n];
        lostRecords = new long[n];
        idle = r.idleRules().classifier(r);
        long snapshot = r.snapshotMonotonicNs();
        for (RecordedThread t : r.threads()) {
            for (int i = 0; i < t.eventCount(); i++) {
                records[bucket(t.ts(i))]++;
            }
            for (Loss l : t.losses()) {
                spreadRecords(l);
                if (!t.isSystem()) {
                    spread(unknownNs, l.fromNs(), l.toNs());
                }
            }
            if (!t.isSystem()) {
                intervals(t, snapshot);
            }
        }
    }

    /** The overview of a recording in {@code buckets} buckets (1 to {@value #MAX_BUCKETS}). */
    static Overview of(Recording r, int buckets) {
        return new Overview(r, buckets);
    }

    /** The recording this overview is of. */
    Recording recording() {
        return recording;
    }

    /** Number of buckets. */
    int buckets() {
        return n;
    }

    /**
     * Parses {@code buckets} (null: {@value #DEFAULT_BUCKETS}).
     *
     * @throws IllegalArgumentException with a one-line message saying what is allowed
     */
    static int parseBuckets(String value) {
        if (value == null) {
            return DEFAULT_BUCKETS;
        }
        String v = value.trim();
        if (!v.matches("[0-9]{1,9}") || Integer.parseInt(v) < 1 || Integer.parseInt(v) > MAX_BUCKETS) {
            throw new IllegalArgumentException("parameter 'buckets' must be a whole number from 1 to " + MAX_BUCKETS
                    + ", got '" + (value.length() > 40 ? value.substring(0, 40) + "..." : value) + "'");
        }
        return Integer.parseInt(v);
    }

    /** The bucket of a time, clamped to the history. */
    private int bucket(long ns) {
        long off = ns - origin;
        if (off <= 0) {
            return 0;
        }
        if (off >= duration) {
            return n - 1;
        }
        return (int) Math.min(n - 1, exact ? off * n / duration : (long) (off / (double) duration * n));
    }

    /** Where bucket {@code i} begins, monotonic ns: the first time {@link #bucket} puts in it. */
    private long bound(int i) {
        return origin + (exact ? ((long) i * duration + n - 1) / n : (long) Math.ceil((double) duration * i / n));
    }

    /** Adds the time from {@code a} to {@code b}, clamped to the history, to the buckets it covers. */
    private void spread(long[] into, long a, long b) {
        long from = Math.max(a, origin);
        long to = Math.min(b, origin + duration);
        if (to <= from) {
            return;
        }
        for (int i = bucket(from); i < n; i++) {
            long lo = Math.max(from, bound(i));
            long hi = Math.min(to, i == n - 1 ? origin + duration : bound(i + 1));
            if (hi > lo) {
                into[i] += hi - lo;
            }
            if (hi >= to) {
                break;
            }
        }
    }

    /** A loss's records over the buckets its time covers, in proportion, summing exactly to its records. */
    private void spreadRecords(Loss l) {
        long from = Math.max(l.fromNs(), origin);
        long to = Math.min(l.toNs(), origin + duration);
        if (to <= from) {
            lostRecords[bucket(Math.min(Math.max(l.fromNs(), origin), origin + duration))] += l.records();
            return;
        }
        long given = 0;
        double whole = to - from;
        for (int i = bucket(from); i < n; i++) {
            long hi = Math.min(to, i == n - 1 ? origin + duration : bound(i + 1));
            long upTo = hi >= to ? l.records() : (long) Math.floor(l.records() * ((hi - from) / whole));
            lostRecords[i] += upTo - given;
            given = upTo;
            if (hi >= to) {
                break;
            }
        }
    }

    /** One ring's blocks and waits, paired as the analysis pairs them ({@link Intervals#visit}). */
    private void intervals(RecordedThread t, long snapshot) {
        Intervals.visit(recording, t, snapshot, (kind, begin, from, to) -> {
            switch (kind) {
                case BLOCKED -> block(from, to);
                case WAITING -> waited(t, begin, from, to);
                default -> {
                }
            }
        });
    }

    private void block(long from, long to) {
        blocks[bucket(from)]++;
        spread(blockedNs, from, to);
    }

    private void waited(RecordedThread t, int begin, long from, long to) {
        if (idle.isIdle(t, t.stackId(begin))) {
            idleWaits[bucket(from)]++;
            spread(idleNs, from, to);
        } else {
            waits[bucket(from)]++;
            spread(waitedNs, from, to);
        }
    }

    /**
     * Writes the overview as one JSON object (see {@code docs/user-guide.md}), with the window the
     * view shows ({@code window}: null for the whole history).
     */
    void write(JsonGenerator g, Window window) throws IOException {
        Recording r = recording;
        g.writeStartObject();
        g.writeStringField("about", "The whole frozen history, from its start to the snapshot, in equal buckets; "
                + "times are ns since the history's start, bucket i covers [i*durationNs/buckets, "
                + "(i+1)*durationNs/buckets). Per bucket, of the Java threads: blockedNs, waitedNs, idleNs: "
                + "thread-time blocked (contended monitor enters, parks acquiring a lock), waiting for others "
                + "(Object.wait and other parks the idle rules call contention) and waiting idle; blocks, waits, "
                + "idleWaits: how many of those began in it (as the report counts them); unknownNs: thread-time "
                + "in losses of records (state unknown); records: records kept with their time in it; "
                + "lostRecords: records lost (overwritten or aged out), spread over their loss's time.");
        g.writeNumberField("durationNs", duration);
        g.writeNumberField("buckets", n);
        g.writeStringField("startTime", Instant.ofEpochSecond(0, r.toEpochNs(origin)).toString());
        g.writeStringField("endTime", Instant.ofEpochSecond(0, r.toEpochNs(origin + duration)).toString());
        g.writeNumberField("threads", r.javaThreads().size());
        g.writeNumberField("recordCount", sum(records));
        g.writeNumberField("overwritten", r.recordsOverwritten());
        g.writeNumberField("aged", r.recordsAged());
        g.writeNumberField("dropped", Math.max(0, r.recordsDropped()));
        g.writeStringField("lossSummary", r.lossSummary());
        g.writeObjectFieldStart("window");
        g.writeBooleanField("whole", window == null);
        g.writeNumberField("fromNs", window == null ? 0 : window.fromNs() - origin);
        g.writeNumberField("toNs", window == null ? duration : window.toNs() - origin);
        g.writeEndObject();
        array(g, "blockedNs", blockedNs);
        array(g, "waitedNs", waitedNs);
        array(g, "idleNs", idleNs);
        array(g, "unknownNs", unknownNs);
        array(g, "blocks", blocks);
        array(g, "waits", waits);
        array(g, "idleWaits", idleWaits);
        array(g, "records", records);
        array(g, "lostRecords", lostRecords);
        g.writeEndObject();
    }

    private static long sum(long[] a) {
        long s = 0;
        for (long v : a) {
            s += v;
        }
        return s;
    }

    private static void array(JsonGenerator g, String name, long[] values) throws IOException {
        g.writeArrayFieldStart(name);
        for (long v : values) {
            g.writeNumber(v);
        }
        g.writeEndArray();
    }
}
