package dev.convoy.export;

import dev.convoy.analysis.Blockers;
import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.analysis.RecordFacts;
import dev.convoy.model.ClassInfo;
import dev.convoy.model.Event;
import dev.convoy.model.Frame;
import dev.convoy.model.LineEntry;
import dev.convoy.model.Loss;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.StackTrace;
import dev.convoy.snapshot.SnapshotFormat;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The CSV meta log and event log of {@code schema/csv-log-format.md}: the JVMTI backend's
 * CSV log specification, its grammar and event set; Convoy's extended event log; the losses
 * file.
 *
 * <p>For output path {@code P} (a trailing {@code .csv} removed) writes {@code P.meta.csv},
 * {@code P.events.csv} (or {@code P.events-ext.csv}) and {@code P.losses.csv}, committed
 * together. Method ids are the jmethodID as 16
 * uppercase hex digits in both files; thread and object fields are identity hash codes as
 * 8 uppercase hex digits ({@code 00000000} when the object is not described); times are
 * seconds since recording start with 9 fraction digits; locations are uppercase hex
 * ({@code -1} for a native frame). In text fields {@code %}, {@code ,}, CR and LF are
 * percent-encoded ({@code %25 %2C %0D %0A}). Lines end with LF. Contention analysis
 * events give ObjectNotify, ObjectNotifyAll, ThreadStart, ThreadJoin, ThreadJoined,
 * ThreadSleep and ThreadSlept; the inner waits of a join give no ObjectWait/ObjectWaited.
 * A park on a blocker is written as the specification's events, as the TPTP output writes
 * it: a lock's park as MonitorContendedEnter (with the lock's exact exclusive owner) and
 * MonitorContendedEntered, any other as ObjectWait and ObjectWaited.
 *
 * <p>The extended event log ({@link #writeEvents(Recording, OutputStream, boolean)}) has every
 * line of the specification's log, in the same order, and Convoy's own lines among them: a
 * MonitorOwner line after each MonitorContendedEnter whose owner is known (exact, none or
 * inferred), a ThreadPark or ThreadParked line after the lines of each PARK or PARKED (or
 * alone, for a park without a blocker or a PARKED whose PARK was lost), a ThreadUnpark line
 * per UNPARK. The losses file ({@link #writeLosses}) lists what was lost.
 */
final class CsvLogWriter {

    /** {@code P.meta.csv} for output path P (a trailing ".csv" of P removed first): {@link Output#files}. */
    public static Path metaPath(Path out) {
        return Output.files(Output.select(Output.CSV), out).get(Output.CSV_META);
    }

    /** {@code P.events.csv} for output path P (a trailing ".csv" of P removed first): {@link Output#files}. */
    public static Path eventsPath(Path out) {
        return Output.files(Output.select(Output.CSV), out).get(Output.CSV_EVENTS);
    }

    /** {@code P.events-ext.csv} for output path P (a trailing ".csv" of P removed first): {@link Output#files}. */
    public static Path extendedEventsPath(Path out) {
        return Output.files(Output.select(Output.CSV_EXT), out).get(Output.CSV_EVENTS_EXT);
    }

    /** {@code P.losses.csv} for output path P (a trailing ".csv" of P removed first): {@link Output#files}. */
    public static Path lossesPath(Path out) {
        return Output.files(Output.select(Output.CSV), out).get(Output.CSV_LOSSES);
    }

    /** Percent-encodes {@code % , CR LF}: the documented escaping of text fields. */
    public static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '%' -> sb.append("%25");
                case ',' -> sb.append("%2C");
                case '\r' -> sb.append("%0D");
                case '\n' -> sb.append("%0A");
                default -> sb.append(c);
            }
        }
        return Text.wellFormed(sb.toString());
    }

    /** The method id representation of both files: 16 uppercase hex digits. */
    public static String methodId(long id) {
        return fixedHex(id, 16);
    }

    static String hex(long v) {
        return v < 0 ? "-" + Long.toHexString(-v).toUpperCase(Locale.ROOT) : Long.toHexString(v).toUpperCase(Locale.ROOT);
    }

    static String hash(int h) {
        return fixedHex(h & 0xFFFF_FFFFL, 8);
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** {@code digits} uppercase hex digits of the low bits of v (String.format("%0nX") without its cost). */
    static String fixedHex(long v, int digits) {
        char[] c = new char[digits];
        for (int i = digits - 1; i >= 0; i--) {
            c[i] = HEX[(int) (v & 0xF)];
            v >>>= 4;
        }
        return new String(c);
    }

    /** Writes the meta log: class lines, then method lines (every method any stack refers to). */
    public void writeMeta(Recording r, OutputStream os) throws IOException {
        Writer w = new OutputStreamWriter(os, StandardCharsets.UTF_8);
        for (ClassInfo c : r.classes().values()) {
            if (!c.signature().isEmpty()) {
                w.write(escape(c.signature()) + "," + escape(c.sourceFile()) + "\n");
            }
        }
        Set<Long> ids = new LinkedHashSet<>(r.methods().keySet());
        for (StackTrace st : r.stacks().values()) {
            for (Frame f : st.frames()) {
                ids.add(f.methodId());
            }
        }
        for (long id : ids) {
            MethodInfo m = r.methods().get(id);
            StringBuilder sb = new StringBuilder(methodId(id)).append(',');
            if (m == null) {
                sb.append("%3Cunknown%3E,,,-1"); // a frame whose method the snapshot does not describe
            } else {
                ClassInfo c = r.classes().get(m.classId());
                sb.append(escape(m.name())).append(',').append(escape(m.signature())).append(',')
                        .append(c == null ? "" : escape(c.signature())).append(',');
                if (!m.hasLineTable()) {
                    sb.append("-1");
                } else {
                    sb.append(m.lineTable().size());
                    for (LineEntry le : m.lineTable()) {
                        sb.append(',').append(hex(le.startLocation())).append(',').append(le.lineNumber());
                    }
                }
            }
            w.write(sb.append('\n').toString());
        }
        w.flush();
    }

    /**
     * Writes the specification's event log: {@link #writeEvents(Recording, OutputStream, boolean)}
     * without the extension's lines.
     */
    public void writeEvents(Recording r, OutputStream os) throws IOException {
        writeEvents(r, os, false);
    }

    /**
     * Writes the event log in time order: lines ordered by time, ties by ring (file order),
     * then within a ring ThreadStarted, the records in ring order, ThreadEnded. Streamed from
     * the merged order of {@link Recording#events()}; state per ring and per monitor only.
     *
     * @param extended with Convoy's own lines (MonitorOwner, ThreadPark, ThreadParked,
     *                 ThreadUnpark) among the specification's; without them the file is the
     *                 extended one with those lines left out
     */
    public void writeEvents(Recording r, OutputStream os, boolean extended) throws IOException {
        RecordFacts facts = new RecordFacts(r);
        Lines lines = new Lines(r, extended);
        List<RecordedThread> threads = r.threads();
        long start = r.startMonotonicNs();
        // ThreadStarted / ThreadEnded lines by (time, ring)
        long[] starts = ThreadMarks.marks(r, t -> !t.isSystem() && !t.isLate(), RecordedThread::startNs);
        long[] ends = ThreadMarks.marks(r, t -> !t.isSystem() && t.isEnded() && t.endNs() != 0, RecordedThread::endNs);
        int si = 0;
        int ei = 0;
        Writer w = new java.io.BufferedWriter(new OutputStreamWriter(os, StandardCharsets.UTF_8), 1 << 16);
        StringBuilder sb = lines.sb;
        java.util.Iterator<Event> it = r.events().iterator();
        Event e = it.hasNext() ? it.next() : null;
        int ek = e == null ? -1 : facts.ring(e.thread());
        while (true) {
            // the smallest of: next start mark, next event, next end mark, by (ts, ring, start < event < end)
            int pick = -1; // 0 start, 1 event, 2 end
            long bestTs = 0;
            int bestK = 0;
            if (si < ThreadMarks.count(starts)) {
                pick = 0;
                bestTs = ThreadMarks.ts(starts, si);
                bestK = ThreadMarks.ring(starts, si);
            }
            if (e != null && (pick < 0 || e.ts() < bestTs || e.ts() == bestTs && ek < bestK)) {
                pick = 1;
                bestTs = e.ts();
                bestK = ek;
            }
            if (ei < ThreadMarks.count(ends)) {
                long ts = ThreadMarks.ts(ends, ei);
                int k = ThreadMarks.ring(ends, ei);
                if (pick < 0 || ts < bestTs || ts == bestTs && k < bestK) {
                    pick = 2;
                }
            }
            if (pick < 0) {
                break;
            }
            sb.setLength(0);
            if (pick == 0) {
                int k = ThreadMarks.ring(starts, si++);
                RecordedThread t = threads.get(k);
                sb.append(Text.seconds(t.startNs() - start)).append(",ThreadStarted,").append(lines.th[k]).append(',')
                        .append(escape(t.displayName())).append('\n');
            } else if (pick == 2) {
                int k = ThreadMarks.ring(ends, ei++);
                sb.append(Text.seconds(threads.get(k).endNs() - start)).append(",ThreadEnded,").append(lines.th[k])
                        .append('\n');
            } else {
                facts.next(e);
                // the inner wait of Thread.join: ThreadJoin/ThreadJoined stand for it
                if (!e.thread().isSystem() && !facts.innerJoinWait()) {
                    lines.event(e, lines.th[ek], facts.owner(), facts.begin());
                }
                e = it.hasNext() ? it.next() : null;
                ek = e == null ? -1 : facts.ring(e.thread());
            }
            w.append(sb);
        }
        w.flush();
    }

    /** The lines of one record, appended to {@link #sb}: the specification's, then (extended) Convoy's. */
    private static final class Lines {
        final Recording r;
        final boolean extended;
        final long start;
        final Map<Long, RecordedThread> byJavaId;
        /** Per ring position, the hash of its Thread object. */
        final String[] th;
        final Map<Integer, String> stacks = new java.util.HashMap<>();
        final Map<Long, String> objects = new java.util.HashMap<>();
        final StringBuilder sb = new StringBuilder(256);

        Lines(Recording r, boolean extended) {
            this.r = r;
            this.extended = extended;
            this.start = r.startMonotonicNs();
            this.byJavaId = Blockers.threadsByJavaId(r);
            List<RecordedThread> threads = r.threads();
            th = new String[threads.size()];
            for (int k = 0; k < th.length; k++) {
                th[k] = hash(r.identityHash(threads.get(k).threadObject()));
            }
        }

        /**
         * The lines of a record of a thread ({@code th} its hash): {@code mo} the owner at a
         * MONITOR_ENTER, {@code begin} the PARK of a PARKED (null when not known).
         */
        void event(Event e, String th, MonitorOwnership.Owner mo, Event begin) {
            switch (e.type()) {
                case MONITOR_ENTER -> {
                    String owner = mo == null || mo.thread() == null ? NONE : thread(mo.thread());
                    head(e, "MonitorContendedEnter", th).object(e).field(owner).stack(e);
                    if (extended && mo != null) { // how the owner is known
                        head(e, "MonitorOwner", th).object(e).field(owner).field(mo.kind()).noStack();
                    }
                }
                case MONITOR_ENTERED -> head(e, "MonitorContendedEntered", th).object(e).noStack();
                case MONITOR_WAIT -> head(e, "ObjectWait", th).object(e).stack(e);
                case MONITOR_WAITED -> head(e, "ObjectWaited", th).object(e).noStack();
                case NOTIFY -> head(e, "ObjectNotify", th).object(e).stack(e);
                case NOTIFY_ALL -> head(e, "ObjectNotifyAll", th).object(e).stack(e);
                case START_CALL -> head(e, "ThreadStart", th).object(e).stack(e);
                case JOIN -> head(e, "ThreadJoin", th).object(e).stack(e);
                case JOINED -> head(e, "ThreadJoined", th).object(e).noStack();
                case SLEEP -> head(e, "ThreadSleep", th).stack(e);
                case SLEPT -> head(e, "ThreadSlept", th).noStack();
                case PARK -> {
                    boolean lock = (e.flags() & SnapshotFormat.FLAG_LOCK) != 0;
                    String owner = NONE;
                    if (lock) { // exact, from the record
                        RecordedThread o = e.arg2() >= 0 ? byJavaId.get(e.arg2()) : null;
                        owner = o == null || o == e.thread() ? NONE : thread(o);
                    }
                    if (e.obj() != 0 && lock) { // a lock's park: a contended enter of the lock
                        head(e, "MonitorContendedEnter", th).object(e).field(owner).stack(e);
                        if (extended) {
                            head(e, "MonitorOwner", th).object(e).field(owner).field(e.arg2() < 0 ? "none" : "exact")
                                    .noStack();
                        }
                    } else if (e.obj() != 0) { // a condition, a queue, a latch: a wait on the blocker
                        head(e, "ObjectWait", th).object(e).stack(e);
                    }
                    if (extended) {
                        head(e, "ThreadPark", th).object(e).field(owner).field(lock ? "1" : "0")
                                .field(Long.toString(Math.max(0, e.arg()))).stack(e);
                    }
                }
                case PARKED -> {
                    if (e.obj() != 0 && begin != null) { // a PARKED whose PARK was lost: lock or wait is not known
                        head(e, (begin.flags() & SnapshotFormat.FLAG_LOCK) != 0 ? "MonitorContendedEntered"
                                : "ObjectWaited", th).object(e).noStack();
                    }
                    if (extended) {
                        head(e, "ThreadParked", th).object(e).field(e.timedOut() ? "1" : "0")
                                .field((e.flags() & SnapshotFormat.FLAG_INTERRUPTED) != 0 ? "1" : "0").noStack();
                    }
                }
                case UNPARK -> {
                    if (extended) { // the target Thread object in the object field
                        head(e, "ThreadUnpark", th).object(e).noStack();
                    }
                }
                // thread start/end come from the ring; GC, interrupt calls, THREAD_INTERRUPTED
                // and unknown types have no line in the format
                default -> {
                }
            }
        }

        Lines head(Event e, String name, String th) {
            sb.append(Text.seconds(e.ts() - start)).append(',').append(name).append(',').append(th);
            return this;
        }

        Lines object(Event e) {
            return field(objects.computeIfAbsent(e.obj(), o -> hash(r.identityHash(o))));
        }

        Lines field(String v) {
            sb.append(',').append(v);
            return this;
        }

        String thread(RecordedThread t) {
            return hash(r.identityHash(t.threadObject()));
        }

        void stack(Event e) {
            sb.append(',').append(stacks.computeIfAbsent(e.stackId(), id -> CsvLogWriter.stack(r, id))).append('\n');
        }

        /** An event with no stack recorded: depth 0. */
        void noStack() {
            sb.append(",0\n");
        }
    }

    /** The thread or object field of none or unknown. */
    private static final String NONE = "00000000";

    private static String stack(Recording r, int stackId) {
        List<Frame> frames = r.frames(stackId);
        StringBuilder sb = new StringBuilder().append(frames.size());
        for (Frame f : frames) {
            sb.append(',').append(methodId(f.methodId())).append(',').append(hex(f.location()));
        }
        return sb.toString();
    }

    /**
     * Writes the losses file: a {@code Records} line with the totals, then a {@code Loss} line
     * per loss of a thread's records (rings in file order, each ring's in time order) and one
     * without a thread per total not tied to a ring (records of threads the recording no longer
     * holds, dropped, torn).
     */
    public void writeLosses(Recording r, OutputStream os) throws IOException {
        Writer w = new java.io.BufferedWriter(new OutputStreamWriter(os, StandardCharsets.UTF_8));
        long overwritten = r.recordsOverwritten();
        long aged = r.recordsAged();
        long dropped = Math.max(0, r.recordsDropped());
        long torn = Math.max(0, r.recordsTorn());
        w.write("Records," + r.recordsWritten() + "," + (overwritten + aged + dropped + torn) + "," + overwritten + ","
                + aged + "," + dropped + "," + torn + "\n");
        long start = r.startMonotonicNs();
        for (RecordedThread t : r.threads()) {
            for (Loss l : t.losses()) {
                w.write("Loss," + hash(r.identityHash(t.threadObject())) + "," + escape(t.displayName()) + ","
                        + l.kindName() + "," + Text.seconds(l.fromNs() - start) + "," + Text.seconds(l.toNs() - start)
                        + "," + l.records() + "\n");
            }
        }
        String whole = "," + Text.seconds(0) + "," + Text.seconds(r.snapshotMonotonicNs() - start) + ",";
        long[] beyond = {overwritten - r.lostRecords(SnapshotFormat.LOSS_OVERWRITTEN),
            aged - r.lostRecords(SnapshotFormat.LOSS_AGED), dropped, torn};
        String[] kinds = {Loss.kindName(SnapshotFormat.LOSS_OVERWRITTEN), Loss.kindName(SnapshotFormat.LOSS_AGED),
            "dropped", "torn"};
        for (int i = 0; i < beyond.length; i++) {
            if (beyond[i] > 0) {
                w.write("Loss," + NONE + ",," + kinds[i] + whole + beyond[i] + "\n");
            }
        }
        w.flush();
    }
}
