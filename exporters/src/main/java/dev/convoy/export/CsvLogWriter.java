package dev.convoy.export;

import dev.convoy.analysis.Blockers;
import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.model.ClassInfo;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.Frame;
import dev.convoy.model.LineEntry;
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
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The CSV meta log and event log of {@code schema/csv-log-format.md}.
 *
 * <p>For output path {@code P} (a trailing {@code .csv} removed) writes {@code P.meta.csv}
 * and {@code P.events.csv}, both committed together. Method ids are the jmethodID as 16
 * uppercase hex digits in both files; thread and object fields are identity hash codes as
 * 8 uppercase hex digits ({@code 00000000} when the object is not described); times are
 * seconds since recording start with 9 fraction digits; locations are uppercase hex
 * ({@code -1} for a native frame). In text fields {@code %}, {@code ,}, CR and LF are
 * percent-encoded ({@code %25 %2C %0D %0A}). Lines end with LF. Contention analysis
 * events give ObjectNotify, ObjectNotifyAll, ThreadStart, ThreadJoin, ThreadJoined,
 * ThreadSleep and ThreadSlept; the inner waits of a join give no ObjectWait/ObjectWaited.
 * Parks give ThreadPark (with the exact exclusive owner of a lock acquisition and the lock
 * flag), ThreadParked and ThreadUnpark. A MonitorContendedEnter whose owner is known is
 * followed by a MonitorOwner line saying whether that owner is exact, none or inferred.
 */
public final class CsvLogWriter {

    /** {@code P.meta.csv} for output path P (a trailing ".csv" of P removed first): {@link Output#files}. */
    public static Path metaPath(Path out) {
        return Output.files(Output.select(Output.CSV), out).get(Output.CSV_META);
    }

    /** {@code P.events.csv} for output path P (a trailing ".csv" of P removed first): {@link Output#files}. */
    public static Path eventsPath(Path out) {
        return Output.files(Output.select(Output.CSV), out).get(Output.CSV_EVENTS);
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
     * Writes the event log in time order: lines ordered by time, ties by ring (file order),
     * then within a ring ThreadStarted, the records in ring order, ThreadEnded. Streamed from
     * the merged order of {@link Recording#events()}; state per ring and per monitor only.
     */
    public void writeEvents(Recording r, OutputStream os) throws IOException {
        MonitorOwnership.Tracker owners = new MonitorOwnership.Tracker(r);
        Map<Long, RecordedThread> byJavaId = Blockers.threadsByJavaId(r);
        RingState rings = new RingState(r);
        long start = r.startMonotonicNs();
        List<RecordedThread> threads = r.threads();
        int n = threads.size();
        String[] th = new String[n];
        for (int k = 0; k < n; k++) {
            th[k] = hash(r.identityHash(threads.get(k).threadObject()));
        }
        // ThreadStarted / ThreadEnded lines by (time, ring)
        long[] starts = RingState.marks(r, t -> !t.isSystem() && !t.isLate(), RecordedThread::startNs);
        long[] ends = RingState.marks(r, t -> !t.isSystem() && t.isEnded() && t.endNs() != 0, RecordedThread::endNs);
        int si = 0;
        int ei = 0;
        Map<Integer, String> stacks = new java.util.HashMap<>();
        Map<Long, String> monitors = new java.util.HashMap<>();
        Writer w = new java.io.BufferedWriter(new OutputStreamWriter(os, StandardCharsets.UTF_8), 1 << 16);
        StringBuilder sb = new StringBuilder(256);
        java.util.Iterator<Event> it = r.events().iterator();
        Event e = it.hasNext() ? it.next() : null;
        int ek = e == null ? -1 : rings.index(e.thread());
        while (true) {
            // the smallest of: next start mark, next event, next end mark, by (ts, ring, start < event < end)
            int pick = -1; // 0 start, 1 event, 2 end
            long bestTs = 0;
            int bestK = 0;
            if (si < RingState.count(starts)) {
                pick = 0;
                bestTs = RingState.ts(starts, si);
                bestK = RingState.ring(starts, si);
            }
            if (e != null && (pick < 0 || e.ts() < bestTs || e.ts() == bestTs && ek < bestK)) {
                pick = 1;
                bestTs = e.ts();
                bestK = ek;
            }
            if (ei < RingState.count(ends)) {
                long ts = RingState.ts(ends, ei);
                int k = RingState.ring(ends, ei);
                if (pick < 0 || ts < bestTs || ts == bestTs && k < bestK) {
                    pick = 2;
                }
            }
            if (pick < 0) {
                break;
            }
            sb.setLength(0);
            if (pick == 0) {
                int k = RingState.ring(starts, si++);
                RecordedThread t = threads.get(k);
                sb.append(Text.seconds(t.startNs() - start)).append(",ThreadStarted,").append(th[k]).append(',')
                        .append(escape(t.displayName()));
            } else if (pick == 2) {
                int k = RingState.ring(ends, ei++);
                sb.append(Text.seconds(threads.get(k).endNs() - start)).append(",ThreadEnded,").append(th[k]);
            } else {
                MonitorOwnership.Owner mo = owners.next(e);
                RecordedThread owner = mo == null ? null : mo.thread();
                boolean inner = rings.next(e); // the inner wait of Thread.join: ThreadJoin/ThreadJoined stand for it
                if (!e.thread().isSystem() && !inner) {
                    if (e.type() == EventType.PARK && (e.flags() & SnapshotFormat.FLAG_LOCK) != 0) {
                        RecordedThread o = e.arg2() >= 0 ? byJavaId.get(e.arg2()) : null;
                        owner = o == e.thread() ? null : o; // exact, from the record
                    }
                    line(sb, r, e, th[ek], owner, stacks, monitors, start);
                    if (mo != null && sb.length() > 0) { // how the owner of the enter is known: its MonitorOwner line
                        sb.append('\n').append(Text.seconds(e.ts() - start)).append(",MonitorOwner,").append(th[ek])
                                .append(',').append(monitors.get(e.obj())).append(',')
                                .append(owner == null ? "00000000" : hash(r.identityHash(owner.threadObject())))
                                .append(',').append(mo.kind()).append(",0");
                    }
                }
                e = it.hasNext() ? it.next() : null;
                ek = e == null ? -1 : rings.index(e.thread());
            }
            if (sb.length() > 0) {
                sb.append('\n');
                w.append(sb);
            }
        }
        w.flush();
    }

    private static void line(StringBuilder sb, Recording r, Event e, String th, RecordedThread owner,
                             Map<Integer, String> stacks, Map<Long, String> monitors, long start) {
        String kind;
        boolean mon = true;
        int tail; // 0: ",0"  1: the stack  2: owner, stack  3: owner, lock flag, stack
        switch (e.type()) {
            case MONITOR_ENTER -> {
                kind = "MonitorContendedEnter";
                tail = 2;
            }
            case MONITOR_ENTERED -> {
                kind = "MonitorContendedEntered";
                tail = 0;
            }
            case MONITOR_WAIT -> {
                kind = "ObjectWait";
                tail = 1;
            }
            case MONITOR_WAITED -> {
                kind = "ObjectWaited";
                tail = 0;
            }
            case NOTIFY -> {
                kind = "ObjectNotify";
                tail = 1;
            }
            case NOTIFY_ALL -> {
                kind = "ObjectNotifyAll";
                tail = 1;
            }
            case START_CALL -> {
                kind = "ThreadStart";
                tail = 1;
            }
            case JOIN -> {
                kind = "ThreadJoin";
                tail = 1;
            }
            case JOINED -> {
                kind = "ThreadJoined";
                tail = 0;
            }
            case SLEEP -> {
                kind = "ThreadSleep";
                mon = false;
                tail = 1;
            }
            case SLEPT -> {
                kind = "ThreadSlept";
                mon = false;
                tail = 0;
            }
            case PARK -> {
                kind = "ThreadPark";
                tail = 3;
            }
            case PARKED -> {
                kind = "ThreadParked";
                tail = 0;
            }
            case UNPARK -> {
                kind = "ThreadUnpark"; // the target Thread object in the object field
                tail = 0;
            }
            // thread start/end come from the ring; GC, interrupt calls, THREAD_INTERRUPTED
            // and unknown types have no line in the format
            default -> {
                return;
            }
        }
        sb.append(Text.seconds(e.ts() - start)).append(',').append(kind).append(',').append(th).append(',');
        if (mon) {
            sb.append(monitors.computeIfAbsent(e.obj(), o -> hash(r.identityHash(o)))).append(',');
        }
        if (tail >= 2) {
            sb.append(owner == null ? "00000000" : hash(r.identityHash(owner.threadObject()))).append(',');
        }
        if (tail == 3) {
            sb.append((e.flags() & SnapshotFormat.FLAG_LOCK) != 0 ? '1' : '0').append(',');
        }
        if (tail == 0) {
            sb.append('0');
        } else {
            sb.append(stacks.computeIfAbsent(e.stackId(), id -> stack(r, id)));
        }
    }

    private static String stack(Recording r, int stackId) {
        List<Frame> frames = r.frames(stackId);
        StringBuilder sb = new StringBuilder().append(frames.size());
        for (Frame f : frames) {
            sb.append(',').append(methodId(f.methodId())).append(',').append(hex(f.location()));
        }
        return sb.toString();
    }
}
