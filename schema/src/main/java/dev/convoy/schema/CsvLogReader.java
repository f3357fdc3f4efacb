package dev.convoy.schema;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A reader of the CSV meta log, event log (the specification's or the extended one) and
 * losses file written only from {@code schema/csv-log-format.md} (not from the writer). It
 * parses the files, checks every line against that grammar and that every stack frame's
 * method id resolves to exactly one method line of the meta log. ({@link CsvSpecReader} reads
 * the logs as a tool built on the JVMTI backend's specification alone does.)
 *
 * <p>Checks: UTF-8, LF line ends; class lines (2 fields) before method lines (at least 5);
 * method ids unique, entries count {@code -1} or the number of (hex start location, decimal
 * line) pairs that follow; event lines: timestamp with 9 fraction digits, a known event
 * name with its number of fields, thread and object fields as 8 uppercase hex digits
 * ({@code ThreadPark}'s fourth field, the lock flag, {@code 0} or {@code 1}, its fifth the
 * timeout in ns; {@code ThreadParked}'s third and fourth, timed out and interrupted, {@code 0}
 * or {@code 1}; {@code MonitorOwner}'s fourth, how the owner is known, {@code exact},
 * {@code none} or {@code inferred}; a {@code MonitorOwner} line right after a
 * {@code MonitorContendedEnter} of the same time, thread and monitor), a stack depth followed
 * by that many (method id, hex location) pairs for every event but {@code ThreadStarted} and
 * {@code ThreadEnded}, which have none; lines in time order. The losses file: one
 * {@code Records} line, then {@code Loss} lines ({@link #readLosses}).
 */
public final class CsvLogReader {

    /** Thread and object fields: {@code %08X} of the identity hash. */
    public static final Pattern HASH = Pattern.compile("[0-9A-F]{8}");
    /** Method ids, locations and line table start locations: uppercase hex, {@code -1} for native. */
    public static final Pattern HEX = Pattern.compile("-?[0-9A-F]+");
    /** Seconds since recording start with 9 fraction digits. */
    public static final Pattern TS = Pattern.compile("-?\\d+\\.\\d{9}");

    /** Number of fields before the stack trace, per event name (from the spec). */
    public static final Map<String, Integer> FIELDS = Map.ofEntries(Map.entry("ObjectWait", 2),
            Map.entry("ObjectWaited", 2), Map.entry("ObjectNotify", 2), Map.entry("ObjectNotifyAll", 2),
            Map.entry("ThreadStart", 2), Map.entry("ThreadJoin", 2), Map.entry("ThreadJoined", 2),
            Map.entry("ThreadSleep", 1), Map.entry("ThreadSlept", 1),
            Map.entry("MonitorContendedEnter", 3), Map.entry("MonitorContendedEntered", 2),
            Map.entry("MonitorOwner", 4),
            Map.entry("ThreadPark", 5), Map.entry("ThreadParked", 4), Map.entry("ThreadUnpark", 2),
            Map.entry("ThreadStarted", 2), Map.entry("ThreadEnded", 1));

    /** The events of the extended event log only: {@link #FIELDS} but these are the specification's. */
    public static final java.util.Set<String> EXTENSION = java.util.Set.of("MonitorOwner", "ThreadPark",
            "ThreadParked", "ThreadUnpark");

    /** The events written without a stack trace field; every other event ends with one. */
    public static final java.util.Set<String> NO_STACK = java.util.Set.of("ThreadStarted", "ThreadEnded");

    /** A method line of the meta log; {@code lines} is the entries count ({@code -1}: no line table). */
    public record MethodLine(String id, String name, String signature, String declaringClass, int lines) {
    }

    /**
     * An event line: seconds, event name, the fields before the stack (as written, still
     * escaped) and the frames as {methodId, location} pairs.
     */
    public record EventLine(double ts, String name, List<String> fields, List<String[]> frames) {
    }

    /** Both logs, parsed: class signature → source file, method id → method line, events in file order. */
    public record Logs(Map<String, String> classes, Map<String, MethodLine> methods, List<EventLine> events) {
    }

    private CsvLogReader() {
    }

    /** Decodes a text field: {@code %2C %0D %0A} first, {@code %25} last. */
    public static String unescape(String s) {
        return s.replace("%2C", ",").replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%");
    }

    /**
     * Reads and checks both files.
     *
     * @throws FormatViolation listing every problem of both files
     */
    public static Logs read(Path meta, Path events) throws IOException {
        List<String> problems = new ArrayList<>();
        Map<String, String> classes = new LinkedHashMap<>();
        Map<String, MethodLine> methods = readMeta(meta, classes, problems);
        List<EventLine> ev = readEvents(events, methods, problems);
        FormatViolation.throwIfAny(meta + " + " + events, problems);
        return new Logs(Collections.unmodifiableMap(classes), Collections.unmodifiableMap(methods), ev);
    }

    /**
     * Reads and checks the meta log, putting the class lines into {@code classes}.
     *
     * @throws FormatViolation listing every problem
     */
    public static Map<String, MethodLine> readMeta(Path meta, Map<String, String> classes) throws IOException {
        List<String> problems = new ArrayList<>();
        Map<String, MethodLine> methods = readMeta(meta, classes, problems);
        FormatViolation.throwIfAny(meta.toString(), problems);
        return methods;
    }

    /**
     * Reads and checks the event log; every frame must resolve to one of {@code methods}.
     *
     * @throws FormatViolation listing every problem
     */
    public static List<EventLine> readEvents(Path events, Map<String, MethodLine> methods) throws IOException {
        List<String> problems = new ArrayList<>();
        List<EventLine> ev = readEvents(events, methods, problems);
        FormatViolation.throwIfAny(events.toString(), problems);
        return ev;
    }

    private static Map<String, MethodLine> readMeta(Path meta, Map<String, String> classes, List<String> problems)
            throws IOException {
        Map<String, MethodLine> methods = new LinkedHashMap<>();
        int n = 0;
        for (String line : lines(meta, problems)) {
            n++;
            String where = meta.getFileName() + ":" + n + " '" + line + "': ";
            String[] f = line.split(",", -1);
            if (f.length == 2) {
                if (!methods.isEmpty()) {
                    problems.add(where + "class line after a method line (class lines come first)");
                }
                if (classes.put(unescape(f[0]), unescape(f[1])) != null) {
                    problems.add(where + "duplicate class line");
                }
                continue;
            }
            if (f.length < 5) {
                problems.add(where + "neither a class line (2 fields) nor a method line (at least 5)");
                continue;
            }
            if (!HEX.matcher(f[0]).matches()) {
                problems.add(where + "method id is not uppercase hex");
            }
            int count;
            try {
                count = Integer.parseInt(f[4]);
            } catch (NumberFormatException e) {
                problems.add(where + "entries count '" + f[4] + "' is not a number");
                continue;
            }
            if (count < -1) {
                problems.add(where + "entries count below -1");
            }
            if (f.length != 5 + 2 * Math.max(count, 0)) {
                problems.add(where + "line table: entries count " + count + " but " + (f.length - 5) + " fields follow");
            } else {
                for (int i = 5; i < f.length; i += 2) {
                    if (!HEX.matcher(f[i]).matches()) {
                        problems.add(where + "start location '" + f[i] + "' is not uppercase hex");
                    }
                    if (!f[i + 1].matches("\\d+")) {
                        problems.add(where + "line number '" + f[i + 1] + "' is not decimal");
                    }
                }
            }
            if (methods.put(f[0], new MethodLine(f[0], unescape(f[1]), unescape(f[2]), unescape(f[3]), count)) != null) {
                problems.add(where + "duplicate method id " + f[0]);
            }
        }
        return methods;
    }

    private static List<EventLine> readEvents(Path events, Map<String, MethodLine> methods, List<String> problems)
            throws IOException {
        List<EventLine> out = new ArrayList<>();
        int n = 0;
        double prev = Double.NEGATIVE_INFINITY;
        for (String line : lines(events, problems)) {
            n++;
            String where = events.getFileName() + ":" + n + " '" + line + "': ";
            String[] f = line.split(",", -1);
            if (f.length < 2) {
                problems.add(where + "no event name");
                continue;
            }
            if (!TS.matcher(f[0]).matches()) {
                problems.add(where + "timestamp is not seconds with 9 fraction digits");
                continue;
            }
            double ts = Double.parseDouble(f[0]);
            if (ts < prev) {
                problems.add(where + "not in time order (previous line at " + prev + ")");
            }
            prev = ts;
            Integer count = FIELDS.get(f[1]);
            if (count == null) {
                problems.add(where + "unknown event name " + f[1]);
                continue;
            }
            if (f.length < 2 + count) {
                problems.add(where + f[1] + " needs " + count + " fields");
                continue;
            }
            List<String> fields = List.of(f).subList(2, 2 + count);
            for (int i = 0; i < fields.size(); i++) {
                boolean threadName = f[1].equals("ThreadStarted") && i == 1;
                if (f[1].equals("ThreadPark") && i == 3 || f[1].equals("ThreadParked") && i >= 2) {
                    if (!fields.get(i).equals("0") && !fields.get(i).equals("1")) {
                        problems.add(where + "flag '" + fields.get(i) + "' is not 0 or 1");
                    }
                } else if (f[1].equals("ThreadPark") && i == 4) {
                    if (!fields.get(i).matches("0|[1-9][0-9]*")) {
                        problems.add(where + "timeout '" + fields.get(i) + "' is not a decimal number of ns");
                    }
                } else if (f[1].equals("MonitorOwner") && i == 3) {
                    if (!List.of("exact", "none", "inferred").contains(fields.get(i))) {
                        problems.add(where + "owner kind '" + fields.get(i) + "' is not exact, none or inferred");
                    }
                } else if (!threadName && !HASH.matcher(fields.get(i)).matches()) {
                    problems.add(where + "field " + (i + 1) + " '" + fields.get(i) + "' is not 8 uppercase hex digits");
                }
            }
            List<String[]> frames = new ArrayList<>();
            boolean hasStack = !NO_STACK.contains(f[1]);
            if (hasStack) {
                if (f.length < 3 + count || !f[2 + count].matches("\\d+")) {
                    problems.add(where + "no stack depth after the fields");
                    continue;
                }
                int depth = Integer.parseInt(f[2 + count]);
                if (f.length != 3 + count + 2 * depth) {
                    problems.add(where + "stack depth " + depth + " but " + (f.length - 3 - count) + " fields follow");
                    continue;
                }
                for (int i = 3 + count; i < f.length; i += 2) {
                    if (!methods.containsKey(f[i])) {
                        problems.add(where + "frame method " + f[i] + " resolves to no meta line");
                    }
                    if (!HEX.matcher(f[i + 1]).matches()) {
                        problems.add(where + "frame location '" + f[i + 1] + "' is not uppercase hex");
                    }
                    frames.add(new String[] {f[i], f[i + 1]});
                }
            } else if (f.length != 2 + count) {
                problems.add(where + f[1] + " has " + count + " fields and no stack");
                continue;
            }
            if (f[1].equals("MonitorOwner")) {
                EventLine enter = out.isEmpty() ? null : out.get(out.size() - 1);
                if (enter == null || !enter.name().equals("MonitorContendedEnter") || enter.ts() != ts
                        || !enter.fields().subList(0, 3).equals(fields.subList(0, 3))) {
                    problems.add(where + "MonitorOwner does not follow a MonitorContendedEnter of the same time, "
                            + "thread, monitor and owner");
                }
            }
            out.add(new EventLine(ts, f[1], fields, List.copyOf(frames)));
        }
        return out;
    }

    /**
     * The losses file's {@code Records} line: records written, lost, and of the lost those
     * overwritten, aged, dropped and torn.
     */
    public record Records(long written, long lost, long overwritten, long aged, long dropped, long torn) {
    }

    /**
     * A {@code Loss} line: the thread (hash, {@code 00000000} for records not tied to a thread)
     * and its name (still escaped; empty without a thread), the kind, from and to (seconds since
     * recording start) and the number of records.
     */
    public record LossLine(String thread, String threadName, String kind, double from, double to, long records) {
    }

    /** The losses file, read. */
    public record Losses(Records records, List<LossLine> losses) {
    }

    private static final Pattern COUNT = Pattern.compile("0|[1-9][0-9]*");

    /**
     * Reads and checks the losses file: first {@code Records,written,lost,overwritten,aged,
     * dropped,torn} (decimal counts, lost the sum of the four kinds), then
     * {@code Loss,thread,threadName,kind,from,to,records} lines (kind {@code overwritten},
     * {@code aged}, {@code dropped}, {@code torn} or {@code kind N}; from at most to, times as
     * in the event log; records above 0).
     *
     * @throws FormatViolation listing every problem
     */
    public static Losses readLosses(Path losses) throws IOException {
        List<String> problems = new ArrayList<>();
        List<String> lines = lines(losses, problems);
        Records records = null;
        List<LossLine> out = new ArrayList<>();
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n);
            String where = losses.getFileName() + ":" + (n + 1) + " '" + line + "': ";
            String[] f = line.split(",", -1);
            if (n == 0) {
                if (f.length != 7 || !f[0].equals("Records")
                        || !List.of(f).subList(1, 7).stream().allMatch(v -> COUNT.matcher(v).matches())) {
                    problems.add(where + "not Records and 6 counts");
                    continue;
                }
                long[] c = List.of(f).subList(1, 7).stream().mapToLong(Long::parseLong).toArray();
                records = new Records(c[0], c[1], c[2], c[3], c[4], c[5]);
                if (c[1] != c[2] + c[3] + c[4] + c[5]) {
                    problems.add(where + "lost is not the sum of overwritten, aged, dropped and torn");
                }
                continue;
            }
            if (f.length != 7 || !f[0].equals("Loss")) {
                problems.add(where + "not a Loss line of 7 fields");
                continue;
            }
            if (!HASH.matcher(f[1]).matches()) {
                problems.add(where + "thread is not 8 uppercase hex digits");
            }
            if (!f[3].matches("overwritten|aged|dropped|torn|kind [0-9]+")) {
                problems.add(where + "unknown kind '" + f[3] + "'");
            }
            if (!TS.matcher(f[4]).matches() || !TS.matcher(f[5]).matches() || !COUNT.matcher(f[6]).matches()
                    || f[6].equals("0")) {
                problems.add(where + "from and to are not seconds with 9 fraction digits, or records not above 0");
                continue;
            }
            LossLine l = new LossLine(f[1], f[2], f[3], Double.parseDouble(f[4]), Double.parseDouble(f[5]),
                    Long.parseLong(f[6]));
            if (l.from() > l.to()) {
                problems.add(where + "from after to");
            }
            out.add(l);
        }
        if (records == null && problems.isEmpty()) {
            problems.add(losses.getFileName() + ": no Records line");
        }
        FormatViolation.throwIfAny(losses.toString(), problems);
        return new Losses(records, List.copyOf(out));
    }

    /** Strict UTF-8, LF line ends, a final LF after a non-empty file, no empty lines. */
    private static List<String> lines(Path file, List<String> problems) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            problems.add(file.getFileName() + ": not UTF-8: " + e);
            text = new String(bytes, StandardCharsets.UTF_8);
        }
        if (text.isEmpty()) {
            return List.of();
        }
        if (text.indexOf('\r') >= 0) {
            problems.add(file.getFileName() + ": contains CR (lines end with LF, CR in text is %0D)");
        }
        if (!text.endsWith("\n")) {
            problems.add(file.getFileName() + ": last line does not end with LF");
        } else {
            text = text.substring(0, text.length() - 1);
        }
        List<String> lines = List.of(text.split("\n", -1));
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).isEmpty()) {
                problems.add(file.getFileName() + ":" + (i + 1) + ": empty line");
            }
        }
        return lines;
    }
}
