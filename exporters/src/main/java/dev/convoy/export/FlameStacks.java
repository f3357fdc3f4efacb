package dev.convoy.export;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.convoy.analysis.Blockers;
import dev.convoy.analysis.IntervalTable;
import dev.convoy.analysis.MonitorStatistics;
import dev.convoy.model.Frame;
import dev.convoy.model.Recording;
import dev.convoy.model.StackTrace;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Blocked and waited time per stack, the data of the flame graphs: the {@code collapsed}
 * output (folded stacks, as flamegraph.pl, speedscope and profiling servers read them) and the
 * {@code flamegraph} output ({@link FlameGraph}).
 *
 * <p>Every BLOCKED and WAITING interval of a Java thread ({@link IntervalTable}; the waits of a
 * {@code Thread.join} are not counted; a park blocks when it acquires a lock and waits
 * otherwise; intervals still open at the snapshot count up to the thread's end or the
 * snapshot) adds its duration in nanoseconds to one folded stack:
 * <pre>
 * STATE;CLASS;ROOT-FRAME;...;TOP-FRAME NANOSECONDS
 * </pre>
 * STATE is {@value #BLOCKED}, {@value #WAITED} or {@value #IDLE} (a wait the recording's
 * {@link dev.convoy.model.IdleRules} classify as idle, not contention); CLASS the monitor's class, or a park's
 * blocker's as the analysis names it ({@link Blockers#className}, {@link Blockers#NO_BLOCKER}
 * without a blocker, {@link MonitorStatistics#UNKNOWN_CLASS} when not described); the frames are
 * those of the stack of the interval's begin event (MONITOR_ENTER, MONITOR_WAIT or PARK),
 * outermost first, each {@code pkg.Class.method} ({@link MonitorStatistics#methodName}), no line
 * numbers, so that the calls of one method merge, and hidden classes named the same in every run
 * ({@link #stableName}). A stack cut at the recorder's depth starts
 * with {@value #TRUNCATED}; an event without a stack has the one frame {@value #NO_STACK}.
 * Names are made safe by {@link #escape}. Stacks whose time adds up to 0 ns are left out;
 * the lines are sorted by their text.
 *
 * <p>When the history no longer holds the whole run (records aged out) and the recording has the
 * whole run's totals (SECTION_TOTALS), the time comes from them instead ({@link #wholeRun()}): the
 * blocks, waits and parks that ended since the recording began, by the stack of their begin event,
 * waits on a {@code Thread} object (joins) left out as above; what was still blocked at the
 * snapshot is not in them. Both are read by {@link ContentionTime}, as for the pprof output.
 */
public final class FlameStacks {
    /** The first frame of blocked time. */
    public static final String BLOCKED = "blocked";
    /** The first frame of waited time (contention). */
    public static final String WAITED = "waited";
    /** The first frame of idle waits ({@link dev.convoy.model.IdleRules}): not contention. */
    public static final String IDLE = "idle";
    private static final int IDLE_STATE = 2;
    /** The frame that starts a stack cut at the recorder's stack depth (its outer frames are missing). */
    public static final String TRUNCATED = "[truncated]";
    /** The frame of an event recorded without a stack. */
    public static final String NO_STACK = "[no_stack]";

    private final SortedMap<String, Long> folded;
    private final Map<String, String[]> framesOf; // a folded line's frames, the names shared between lines
    private final long totalNs;
    private final boolean wholeRun;

    private FlameStacks(SortedMap<String, Long> folded, Map<String, String[]> framesOf, boolean wholeRun) {
        this.folded = Collections.unmodifiableSortedMap(folded);
        this.framesOf = framesOf;
        this.wholeRun = wholeRun;
        long total = 0;
        for (long v : folded.values()) {
            total += v;
        }
        this.totalNs = total;
    }

    /** Whether the time is the whole run's totals rather than the intervals the history holds. */
    public boolean wholeRun() {
        return wholeRun;
    }

    /** The blocked and waited time of a recording's Java threads per folded stack. */
    public static FlameStacks of(Recording r) {
        // Summed per (class, state, stack id) first; then stacks that read the same (they
        // differ in line numbers only) merge in the folded text.
        Map<Long, long[]> byKey = new HashMap<>();
        ContentionTime time = ContentionTime.read(r, (ringId, thread, cls, blocked, idle, park, stackId, count, ns) -> {
            int state = blocked ? IntervalTable.BLOCKED : idle ? IDLE_STATE : IntervalTable.WAITING;
            long key = ((long) cls << 34) | ((long) state << 32) | (stackId & 0xffff_ffffL);
            byKey.computeIfAbsent(key, k -> new long[1])[0] += ns;
        });
        boolean wholeRun = time.isWholeRun();
        Map<Integer, String[]> stackFrames = new HashMap<>();
        Map<Integer, String> stackText = new HashMap<>();
        Map<Long, String> methodText = new HashMap<>();
        List<String> classText = new ArrayList<>(time.classCount());
        for (int c = 0; c < time.classCount(); c++) {
            classText.add(escape(time.className(c)));
        }
        SortedMap<String, Long> folded = new TreeMap<>();
        Map<String, String[]> framesOf = new HashMap<>();
        for (Map.Entry<Long, long[]> e : byKey.entrySet()) {
            long ns = e.getValue()[0];
            if (ns == 0) {
                continue;
            }
            long key = e.getKey();
            int stackId = (int) key;
            int st = (int) ((key >>> 32) & 3);
            String state = st == IntervalTable.BLOCKED ? BLOCKED : st == IDLE_STATE ? IDLE : WAITED;
            String cls = classText.get((int) (key >>> 34));
            String[] frames = stackFrames.computeIfAbsent(stackId, id -> frames(r, id, methodText));
            String text = stackText.computeIfAbsent(stackId, id -> String.join(";", frames));
            String line = state + ';' + cls + ';' + text;
            folded.merge(line, ns, Long::sum);
            framesOf.computeIfAbsent(line, k -> {
                String[] all = new String[frames.length + 2];
                all[0] = state;
                all[1] = cls;
                System.arraycopy(frames, 0, all, 2, frames.length);
                return all;
            });
        }
        return new FlameStacks(folded, framesOf, wholeRun);
    }

    /** A stack's frame names, outermost first, escaped. */
    private static String[] frames(Recording r, int stackId, Map<Long, String> methodText) {
        StackTrace s = r.stacks().get(stackId);
        if (s == null || s.frames().isEmpty()) {
            return new String[] {NO_STACK};
        }
        List<Frame> frames = s.frames();
        int first = s.truncated() ? 1 : 0;
        String[] out = new String[frames.size() + first];
        if (s.truncated()) {
            out[0] = TRUNCATED;
        }
        for (int i = frames.size() - 1, k = first; i >= 0; i--, k++) {
            Frame f = frames.get(i);
            out[k] = methodText.computeIfAbsent(f.methodId(),
                    m -> escape(stableName(MonitorStatistics.methodName(r, f))));
        }
        return out;
    }

    /** A hidden class's address ({@code /0x...} or {@code .0x...}) and the number after {@code $$Lambda}. */
    private static final java.util.regex.Pattern RUN_SPECIFIC =
            java.util.regex.Pattern.compile("(?<=\\$\\$Lambda)\\$\\d+|[./]0x\\p{XDigit}+(?=\\.[^.]*$)");

    /**
     * A frame name without what differs from run to run in the name of a hidden class: its
     * address ({@code Foo$$Lambda$14/0x0000000800c0b040.run} and JVMTI's {@code .0x...} spelling)
     * and a lambda's sequence number, so that {@code Foo$$Lambda.run} is one frame in the
     * stacks of every run; two lambdas of one class called at one place merge too.
     */
    public static String stableName(String methodName) {
        if (methodName.indexOf("0x") < 0 && methodName.indexOf("$$Lambda$") < 0) {
            return methodName;
        }
        return RUN_SPECIFIC.matcher(methodName).replaceAll("");
    }

    /**
     * A name made safe for a folded line: {@code ;} (the frame separator) becomes {@code :},
     * and every white space or control character (space, tab, line breaks: the weight's
     * separator and the line's end) becomes {@code _}; an empty name becomes {@code _}.
     */
    public static String escape(String name) {
        if (name.isEmpty()) {
            return "_";
        }
        StringBuilder b = null;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            char d = c == ';' ? ':' : Character.isWhitespace(c) || Character.isSpaceChar(c)
                    || Character.isISOControl(c) ? '_' : c;
            if (d != c && b == null) {
                b = new StringBuilder(name);
            }
            if (b != null) {
                b.setCharAt(i, d);
            }
        }
        return b == null ? name : b.toString();
    }

    /** The folded stacks (frames joined by {@code ;}) and their time in ns, sorted by text. */
    public SortedMap<String, Long> folded() {
        return folded;
    }

    /** The sum of all stacks' time in ns. */
    public long totalNs() {
        return totalNs;
    }

    /** Writes the folded lines, {@code STACK NANOSECONDS\n} each, in UTF-8; the stream is not closed. */
    public void writeCollapsed(OutputStream out) throws IOException {
        Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
        for (Map.Entry<String, Long> e : folded.entrySet()) {
            w.write(e.getKey());
            w.write(' ');
            w.write(Long.toString(e.getValue()));
            w.write('\n');
        }
        w.flush();
    }

    /**
     * Writes the stacks as the JSON the flame graph page reads:
     * {@code {"unit":"ns","totalNs":N,"frames":[names],"stacks":[[ns,frame,frame,...],...]}}, each
     * stack's frames as indexes into {@code frames}, outermost first, the state and the class
     * first (as in the folded lines).
     */
    public void writeJson(JsonGenerator g) throws IOException {
        Map<String, Integer> index = new LinkedHashMap<>();
        List<int[]> stacks = new ArrayList<>(folded.size());
        for (String line : folded.keySet()) {
            String[] names = framesOf.get(line);
            int[] ids = new int[names.length];
            for (int i = 0; i < names.length; i++) {
                ids[i] = index.computeIfAbsent(names[i], n -> index.size());
            }
            stacks.add(ids);
        }
        g.writeStartObject();
        g.writeStringField("unit", "ns");
        g.writeNumberField("totalNs", totalNs);
        g.writeArrayFieldStart("frames");
        for (String n : index.keySet()) {
            g.writeString(n);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("stacks");
        int k = 0;
        for (long ns : folded.values()) {
            g.writeStartArray();
            g.writeNumber(ns);
            for (int id : stacks.get(k++)) {
                g.writeNumber(id);
            }
            g.writeEndArray();
        }
        g.writeEndArray();
        g.writeEndObject();
    }
}
