package dev.convoy.testing;

import dev.convoy.schema.CsvLogReader;
import dev.convoy.schema.CsvLogReader.EventLine;
import dev.convoy.schema.CsvLogReader.Logs;
import dev.convoy.schema.CsvLogReader.MethodLine;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * The events of a JFR file ({@code docs/formats.md}, "JFR") and of the extended CSV event log of the
 * same recording, each turned into one line of text per event: its CSV kind, thread name, start (ns
 * since recording start), duration (ns; "open" for an interval still open at snapshot time),
 * monitor identity hash (for a join: the joined thread's name) and stack (method and bytecode
 * index per frame). A JFR interval event is
 * the CSV begin line and its end line. Tests compare the two sorted lists line by line.
 */
public final class JfrCheck {

    private JfrCheck() {
    }

    private static final Map<String, String> END = Map.of("MonitorContendedEnter", "MonitorContendedEntered",
            "ObjectWait", "ObjectWaited", "ThreadPark", "ThreadParked", "ThreadSleep", "ThreadSlept",
            "ThreadJoin", "ThreadJoined");

    /** The CSV kind of each JFR event type ({@code dev.convoy.Notify} splits by its field {@code all}). */
    public static final Map<String, String> KIND = Map.of("jdk.JavaMonitorEnter", "MonitorContendedEnter",
            "jdk.JavaMonitorWait", "ObjectWait", "jdk.ThreadPark", "ThreadPark", "jdk.ThreadSleep", "ThreadSleep",
            "dev.convoy.ThreadJoin", "ThreadJoin", "jdk.ThreadStart", "ThreadStarted", "jdk.ThreadEnd", "ThreadEnded",
            "dev.convoy.Unpark", "ThreadUnpark");

    /**
     * The threads (by name) whose identity hash another thread the CSV event log starts has too:
     * the log tells threads apart by that hash only, so their lines cannot be told apart (nor
     * their begins and ends paired); {@link #csvLines} leaves them out, and
     * {@link #jfrLines(Path, long, Set)} is given them to leave them out as well.
     */
    public static Set<String> sharedHashThreads(Path meta, Path events) throws IOException {
        Map<String, Set<String>> byHash = new HashMap<>();
        for (EventLine e : CsvLogReader.read(meta, events).events()) {
            if (e.name().equals("ThreadStarted")) {
                byHash.computeIfAbsent(e.fields().get(0), k -> new TreeSet<>()).add(CsvLogReader.unescape(e.fields().get(1)));
            }
        }
        Set<String> shared = new TreeSet<>();
        for (Set<String> names : byHash.values()) {
            if (names.size() > 1) {
                shared.addAll(names);
            }
        }
        return shared;
    }

    /**
     * The extended CSV event log's events as lines, sorted; lines whose kind has no JFR event
     * (START_CALL's ThreadStart, MonitorOwner), the specification's lines that stand for a park
     * (its ThreadPark or ThreadParked line is the park) and those of threads whose identity hash
     * another started thread has too ({@link #sharedHashThreads}) are left out.
     */
    public static List<String> csvLines(Path meta, Path events) throws IOException {
        Logs logs = CsvLogReader.read(meta, events);
        Set<EventLine> parkLines = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        List<EventLine> all = logs.events();
        for (int i = 0; i < all.size(); i++) {
            String kind = all.get(i).name();
            if (kind.equals("ThreadPark") || kind.equals("ThreadParked")) {
                int j = i - 1;
                if (j >= 0 && all.get(j).name().equals("MonitorOwner") && samePark(all.get(j), all.get(i))) {
                    j--;
                }
                if (j >= 0 && samePark(all.get(j), all.get(i)) && Set.of("MonitorContendedEnter",
                        "MonitorContendedEntered", "ObjectWait", "ObjectWaited").contains(all.get(j).name())) {
                    parkLines.add(all.get(j));
                }
            }
        }
        Map<String, String> names = new HashMap<>();
        Set<String> sharedHashes = new HashSet<>();
        for (EventLine e : logs.events()) {
            if (e.name().equals("ThreadStarted")) {
                String name = CsvLogReader.unescape(e.fields().get(1));
                String before = names.put(e.fields().get(0), name);
                if (before != null && !before.equals(name)) {
                    sharedHashes.add(e.fields().get(0));
                }
            }
        }
        Map<String, Deque<String[]>> open = new HashMap<>(); // thread + begin kind -> begins {line prefix, ts}
        List<String> out = new ArrayList<>();
        for (EventLine e : logs.events()) {
            String kind = e.name();
            if (sharedHashes.contains(e.fields().get(0)) || parkLines.contains(e)) {
                continue;
            }
            String th = names.getOrDefault(e.fields().get(0), "?"); // a thread met late has no ThreadStarted line
            long ts = Math.round(e.ts() * 1e9);
            String endOf = null;
            for (Map.Entry<String, String> x : END.entrySet()) {
                if (x.getValue().equals(kind)) {
                    endOf = x.getKey();
                }
            }
            if (endOf != null) {
                Deque<String[]> q = open.get(e.fields().get(0) + endOf);
                if (q != null && !q.isEmpty()) {
                    String[] b = q.pop();
                    out.add(b[0] + " dur=" + (ts - Long.parseLong(b[1])) + b[2]);
                }
                continue;
            }
            String monitor = switch (kind) {
                case "ThreadSleep", "ThreadStarted", "ThreadEnded", "ThreadUnpark" -> "";
                case "ThreadJoin" -> " joined=" + names.getOrDefault(e.fields().get(1), "?");
                default -> " mon=" + e.fields().get(1);
            };
            if (kind.equals("ThreadStart") || kind.equals("MonitorOwner")) {
                continue;
            }
            String rest = monitor + (kind.equals("ThreadUnpark") ? "" : " stack=" + stack(e.frames(), logs.methods()));
            String head = kind + " thread=" + th + " start=" + ts;
            if (END.containsKey(kind)) {
                open.computeIfAbsent(e.fields().get(0) + kind, k -> new ArrayDeque<>())
                        .push(new String[] {head, Long.toString(ts), rest});
            } else {
                out.add(head + rest);
            }
        }
        for (Deque<String[]> q : open.values()) {
            for (String[] b : q) {
                out.add(b[0] + " dur=open" + b[2]);
            }
        }
        out.sort(null);
        return out;
    }

    /** Lines of the same record: the same time, thread and object. */
    private static boolean samePark(EventLine a, EventLine b) {
        return a.ts() == b.ts() && a.fields().get(0).equals(b.fields().get(0))
                && a.fields().get(1).equals(b.fields().get(1));
    }

    private static String stack(List<String[]> frames, Map<String, MethodLine> methods) {
        StringBuilder sb = new StringBuilder("[");
        for (String[] f : frames) {
            MethodLine m = methods.get(f[0]);
            long loc = f[1].startsWith("-") ? -1 : Long.parseLong(f[1], 16);
            String name = m == null ? "?" : CsvLogReader.unescape(m.name());
            sb.append(name.equals("%3Cunknown%3E") ? UNKNOWN : name).append('@').append(loc).append(' ');
        }
        return sb.append(']').toString();
    }

    private static final String UNKNOWN = "<unknown>";

    /** The JFR file's events of the kinds {@link #KIND} names and {@code dev.convoy.Notify}, as lines, sorted. */
    public static List<String> jfrLines(Path jfr, long startEpochNs) throws IOException {
        return jfrLines(jfr, startEpochNs, Set.of());
    }

    /** {@link #jfrLines(Path, long)} without the events of the threads named in {@code leaveOut}. */
    public static List<String> jfrLines(Path jfr, long startEpochNs, Set<String> leaveOut) throws IOException {
        Instant start = Instant.ofEpochSecond(0, startEpochNs);
        List<String> out = new ArrayList<>();
        List<RecordedEvent> all = RecordingFile.readAllEvents(jfr);
        java.util.Set<Long> started = new java.util.HashSet<>();
        for (RecordedEvent e : all) {
            if (e.getEventType().getName().equals("jdk.ThreadStart")) {
                started.add(e.getThread("thread").getId());
            }
        }
        for (RecordedEvent e : all) {
            String type = e.getEventType().getName();
            String kind = type.equals("dev.convoy.Notify") ? (e.getBoolean("all") ? "ObjectNotifyAll" : "ObjectNotify")
                    : KIND.get(type);
            if (kind == null) {
                continue;
            }
            RecordedThread t = kind.equals("ThreadStarted") || kind.equals("ThreadEnded") ? e.getThread("thread")
                    : e.getThread();
            if (t != null && leaveOut.contains(t.getJavaName())) {
                continue;
            }
            long ts = Duration.between(start, e.getStartTime()).toNanos();
            StringBuilder sb = new StringBuilder(kind).append(" thread=").append(t == null || !started.contains(t.getId()) ? "?" : t.getJavaName())
                    .append(" start=").append(ts);
            if (END.containsKey(kind)) {
                sb.append(" dur=").append(e.getBoolean("unfinished") ? "open" : Long.toString(e.getDuration().toNanos()));
            }
            if (kind.equals("ThreadJoin")) {
                RecordedThread joined = e.getThread("joinedThread");
                sb.append(" joined=").append(joined == null || !started.contains(joined.getId()) ? "?" : joined.getJavaName());
            } else if (!kind.equals("ThreadSleep") && !kind.equals("ThreadStarted") && !kind.equals("ThreadEnded")
                    && !kind.equals("ThreadUnpark")) {
                long address = e.hasField("address") && e.getValue("address") != null ? e.getLong("address") : 0;
                sb.append(" mon=").append(String.format("%08X", address));
            }
            if (kind.equals("ThreadUnpark")) {
                out.add(sb.toString());
                continue;
            }
            sb.append(" stack=[");
            RecordedStackTrace st = e.getStackTrace();
            if (st != null) {
                for (RecordedFrame f : st.getFrames()) {
                    String name = f.getMethod().getName();
                    sb.append(name.startsWith("<unknown method ") ? UNKNOWN : name).append('@').append(f.isJavaFrame() ? f.getBytecodeIndex() : -1)
                            .append(' ');
                }
            }
            out.add(sb.append(']').toString());
        }
        out.sort(null);
        return out;
    }

    /** Number of events per JFR event type, read with {@code jdk.jfr.consumer}. */
    public static Map<String, Integer> jfrCounts(Path jfr) throws IOException {
        Map<String, Integer> n = new TreeMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            n.merge(e.getEventType().getName(), 1, Integer::sum);
        }
        return n;
    }
}
