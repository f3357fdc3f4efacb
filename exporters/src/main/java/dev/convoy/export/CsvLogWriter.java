package dev.convoy.export;

import dev.convoy.analysis.Intervals;
import dev.convoy.analysis.MonitorOwnership;
import dev.convoy.model.ClassInfo;
import dev.convoy.model.Event;
import dev.convoy.model.Frame;
import dev.convoy.model.LineEntry;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.StackTrace;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
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
 */
public final class CsvLogWriter implements Exporter {

    @Override
    public List<Path> export(Recording recording, Path out) throws IOException {
        Map<Path, AtomicFiles.Content> files = new LinkedHashMap<>();
        files.put(metaPath(out), os -> writeMeta(recording, os));
        files.put(eventsPath(out), os -> writeEvents(recording, os));
        return AtomicFiles.write(files);
    }

    /** {@code P.meta.csv} for output path P (a trailing ".csv" of P removed first). */
    public static Path metaPath(Path out) {
        return sibling(out, ".meta.csv");
    }

    /** {@code P.events.csv} for output path P (a trailing ".csv" of P removed first). */
    public static Path eventsPath(Path out) {
        return sibling(out, ".events.csv");
    }

    private static Path sibling(Path out, String suffix) {
        String name = out.getFileName().toString();
        if (name.toLowerCase(Locale.ROOT).endsWith(".csv")) {
            name = name.substring(0, name.length() - 4);
        }
        return out.resolveSibling(name + suffix);
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

    private record Line(long ts, int seq, String text) {
    }

    private static final Comparator<Line> LINE_ORDER = (a, b) -> a.ts != b.ts ? Long.compare(a.ts, b.ts)
            : Integer.compare(a.seq, b.seq);

    /** Writes the event log in time order. */
    public void writeEvents(Recording r, OutputStream os) throws IOException {
        MonitorOwnership owners = MonitorOwnership.of(r);
        Set<Event> joinWaits = Intervals.joinWaits(r);
        long start = r.startMonotonicNs();
        Map<Integer, String> stacks = new java.util.HashMap<>();
        List<Line> lines = new ArrayList<>();
        for (RecordedThread t : r.threads()) {
            if (t.isSystem()) {
                continue;
            }
            String th = hash(r.identityHash(t.threadObject()));
            if (!t.isLate()) {
                lines.add(new Line(t.startNs(), lines.size(), "ThreadStarted," + th + "," + escape(t.name())));
            }
            for (Event e : t.events()) {
                if (joinWaits.contains(e)) {
                    continue; // the inner wait of Thread.join: ThreadJoin/ThreadJoined stand for it
                }
                String mon = hash(r.identityHash(e.obj()));
                String text = switch (e.type()) {
                    case MONITOR_ENTER -> "MonitorContendedEnter," + th + "," + mon + ","
                            + hash(owners.ownerAt(e).map(o -> r.identityHash(o.threadObject())).orElse(0))
                            + "," + stacks.computeIfAbsent(e.stackId(), id -> stack(r, id));
                    case MONITOR_ENTERED -> "MonitorContendedEntered," + th + "," + mon + ",0";
                    case MONITOR_WAIT -> "ObjectWait," + th + "," + mon + "," + stacks.computeIfAbsent(e.stackId(), id -> stack(r, id));
                    case MONITOR_WAITED -> "ObjectWaited," + th + "," + mon + ",0";
                    case NOTIFY -> "ObjectNotify," + th + "," + mon + "," + stacks.computeIfAbsent(e.stackId(), id -> stack(r, id));
                    case NOTIFY_ALL -> "ObjectNotifyAll," + th + "," + mon + "," + stacks.computeIfAbsent(e.stackId(), id -> stack(r, id));
                    case START_CALL -> "ThreadStart," + th + "," + mon + "," + stacks.computeIfAbsent(e.stackId(), id -> stack(r, id));
                    case JOIN -> "ThreadJoin," + th + "," + mon + "," + stacks.computeIfAbsent(e.stackId(), id -> stack(r, id));
                    case JOINED -> "ThreadJoined," + th + "," + mon + ",0";
                    case SLEEP -> "ThreadSleep," + th + "," + stacks.computeIfAbsent(e.stackId(), id -> stack(r, id));
                    case SLEPT -> "ThreadSlept," + th + ",0";
                    // thread start/end come from the ring; GC, interrupt calls, THREAD_INTERRUPTED
                    // and unknown types have no line in the format
                    default -> null;
                };
                if (text != null) {
                    lines.add(new Line(e.ts(), lines.size(), text));
                }
            }
            if (t.isEnded() && t.endNs() != 0) {
                lines.add(new Line(t.endNs(), lines.size(), "ThreadEnded," + th));
            }
        }
        lines.sort(LINE_ORDER);
        Writer w = new java.io.BufferedWriter(new OutputStreamWriter(os, StandardCharsets.UTF_8), 1 << 16);
        for (Line l : lines) {
            w.write(Text.seconds(l.ts() - start));
            w.write(',');
            w.write(l.text());
            w.write('\n');
        }
        w.flush();
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
