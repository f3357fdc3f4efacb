package dev.convoy.schema;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A reader of the meta log and event log of the JVMTI backend's CSV log specification, written
 * from that specification's text alone (not from {@code schema/csv-log-format.md}, nor from
 * Convoy's writer): as a tool built on the specification reads the files, it knows the
 * specification's events and their fields, and nothing else.
 *
 * <p>The specification's grammar, as read here:
 * <ul>
 * <li>meta log: first the class lines {@code <classSignature>,<sourceFileName>}, then the method
 * lines {@code <methodID>,<methodName>,<methodSignature>,<declaringClass>,<entriesCount>} followed
 * by {@code entriesCount} pairs {@code <startLocation>,<lineNumber>} ({@code entriesCount} is
 * {@code -1} when there is no line table); ids and start locations hexadecimal, line numbers and
 * counts decimal;</li>
 * <li>event log: {@code <timestamp>,<event>,<fields>,<stackTrace>} where the timestamp is a
 * floating point number of seconds, thread and object fields are hash codes of 8 uppercase
 * hexadecimal digits, and the stack trace is {@code <stackDepth>} (a non-negative integer)
 * followed by that many {@code <methodID>,<location>} pairs (hexadecimal);
 * {@code ThreadStarted} ({@code <thread>,<threadName>}) and {@code ThreadEnded}
 * ({@code <thread>}) have no stack trace.</li>
 * </ul>
 * An event name the specification does not have, a wrong number of fields, or a stack frame
 * whose method has no line in the meta log is an error; so is a line of the meta log that is
 * neither a class line nor a method line.
 */
public final class CsvSpecReader {

    /** The specification's events and the number of their fields before the stack trace. */
    public static final Map<String, Integer> EVENTS = Map.ofEntries(
            Map.entry("ObjectWait", 2), Map.entry("ObjectWaited", 2),
            Map.entry("ObjectNotify", 2), Map.entry("ObjectNotifyAll", 2),
            Map.entry("ThreadStart", 2),
            Map.entry("ThreadJoin", 2), Map.entry("ThreadJoined", 2),
            Map.entry("ThreadSleep", 1), Map.entry("ThreadSlept", 1),
            Map.entry("MonitorContendedEnter", 3), Map.entry("MonitorContendedEntered", 2),
            Map.entry("ThreadStarted", 2), Map.entry("ThreadEnded", 1));

    /** The specification's events without a stack trace. */
    public static final Set<String> NO_STACK = Set.of("ThreadStarted", "ThreadEnded");

    private static final Pattern HASH = Pattern.compile("[0-9A-F]{8}");
    private static final Pattern HEX = Pattern.compile("-?[0-9A-Fa-f]+");
    private static final Pattern DECIMAL = Pattern.compile("-?[0-9]+");
    private static final Pattern SECONDS = Pattern.compile("-?[0-9]+(\\.[0-9]+)?");

    /** An event: its time in seconds, its name, its fields (as written) and its frames ({methodID, location}). */
    public record Event(double seconds, String name, List<String> fields, List<String[]> frames) {
    }

    /** Both files read: the class signatures, the method ids, the events in file order. */
    public record Logs(Set<String> classes, Set<String> methods, List<Event> events) {
    }

    private CsvSpecReader() {
    }

    /**
     * Reads both files as the specification has them.
     *
     * @throws FormatViolation listing every line the specification does not allow
     */
    public static Logs read(Path meta, Path events) throws IOException {
        List<String> problems = new ArrayList<>();
        Set<String> classes = new HashSet<>();
        Set<String> methods = new HashSet<>();
        int n = 0;
        for (String line : lines(meta)) {
            n++;
            String[] f = line.split(",", -1);
            String where = meta.getFileName() + ":" + n + ": ";
            if (f.length == 2 && methods.isEmpty()) {
                classes.add(f[0]);
            } else if (f.length >= 5 && HEX.matcher(f[0]).matches() && DECIMAL.matcher(f[4]).matches()
                    && Integer.parseInt(f[4]) >= -1 && f.length == 5 + 2 * Math.max(0, Integer.parseInt(f[4]))) {
                for (int i = 5; i < f.length; i += 2) {
                    if (!HEX.matcher(f[i]).matches() || !DECIMAL.matcher(f[i + 1]).matches()) {
                        problems.add(where + "line table pair '" + f[i] + "," + f[i + 1] + "' is not hex,decimal");
                    }
                }
                methods.add(f[0]);
            } else {
                problems.add(where + "neither a class line nor a method line (classes first): " + line);
            }
        }
        List<Event> out = new ArrayList<>();
        n = 0;
        for (String line : lines(events)) {
            n++;
            String where = events.getFileName() + ":" + n + ": ";
            Event e = event(line.split(",", -1), methods, where, problems);
            if (e != null) {
                out.add(e);
            }
        }
        FormatViolation.throwIfAny(meta + " + " + events, problems);
        return new Logs(Set.copyOf(classes), Set.copyOf(methods), List.copyOf(out));
    }

    private static Event event(String[] f, Set<String> methods, String where, List<String> problems) {
        if (f.length < 2 || !SECONDS.matcher(f[0]).matches()) {
            problems.add(where + "no timestamp in seconds: " + String.join(",", f));
            return null;
        }
        String name = f[1];
        Integer count = EVENTS.get(name);
        if (count == null) {
            problems.add(where + "'" + name + "' is no event of the specification");
            return null;
        }
        boolean stack = !NO_STACK.contains(name);
        if (f.length < 2 + count + (stack ? 1 : 0)) {
            problems.add(where + name + " has " + count + " fields" + (stack ? " and a stack trace" : "") + ": "
                    + String.join(",", f));
            return null;
        }
        List<String> fields = List.of(f).subList(2, 2 + count);
        for (int i = 0; i < count; i++) {
            boolean threadName = name.equals("ThreadStarted") && i == 1;
            if (!threadName && !HASH.matcher(fields.get(i)).matches()) {
                problems.add(where + name + " field " + (i + 1) + " '" + fields.get(i) + "' is no 8-digit hash code");
            }
        }
        List<String[]> frames = new ArrayList<>();
        if (!stack) {
            if (f.length != 2 + count) {
                problems.add(where + name + " has " + count + " fields and no stack trace: " + String.join(",", f));
            }
        } else {
            String depth = f[2 + count];
            if (!depth.matches("[0-9]+") || f.length != 3 + count + 2 * Long.parseLong(depth)) {
                problems.add(where + name + ": stack depth '" + depth + "' and " + (f.length - 3 - count)
                        + " fields after it");
                return null;
            }
            for (int i = 3 + count; i < f.length; i += 2) {
                if (!methods.contains(f[i])) {
                    problems.add(where + "frame method " + f[i] + " has no line in the meta log");
                }
                if (!HEX.matcher(f[i + 1]).matches()) {
                    problems.add(where + "frame location '" + f[i + 1] + "' is not hexadecimal");
                }
                frames.add(new String[] {f[i], f[i + 1]});
            }
        }
        return new Event(Double.parseDouble(f[0]), name, fields, List.copyOf(frames));
    }

    /** The lines of a file (UTF-8), without the final line break. */
    private static List<String> lines(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        if (text.isEmpty()) {
            return List.of();
        }
        return List.of((text.endsWith("\n") ? text.substring(0, text.length() - 1) : text).split("\n", -1));
    }
}
