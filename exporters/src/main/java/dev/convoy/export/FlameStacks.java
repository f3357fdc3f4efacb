package dev.convoy.export;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.convoy.analysis.Blockers;
import dev.convoy.analysis.ContentionIndex;
import dev.convoy.analysis.MonitorStatistics;
import dev.convoy.analysis.OwnerSamples;
import dev.convoy.model.Frame;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.StackTrace;
import dev.convoy.snapshot.SnapshotFormat;
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
 * <p>The <b>held</b> view ({@link #held()}, in the JSON of the flame graph page and the web view,
 * not in the folded text): the owners' side of long blocks ({@link OwnerSamples}, OWNER_SAMPLE
 * records, agent option {@code ownerstacks}), where the locks that blocked others were held. Each
 * sample adds the time its blocked thread lost (the whole BLOCKED interval it belongs to, up to the
 * snapshot or the thread's end when still open) to the owner's stack at the sample:
 * <pre>
 * held;CLASS;ROOT-FRAME;...;HOLDING-FRAME [holding, line N];...;TOP-FRAME
 * </pre>
 * CLASS the lock's class as above, the frames the owner's, named as above, the frame holding the
 * monitor marked {@code [holding, line N]} ({@code [probably holding, line N]} when another frame
 * of the stack could hold it too; without {@code , line N} when the line is unknown); a
 * {@code java.util.concurrent} lock has no holding frame. Only blocks longer than the sampling
 * threshold have a sample, so the held view covers those; a sample's time is also in the blocked
 * view (under the blocked thread's stack), so the held view is never added to the others.
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
    /** The first frame of the held view: the owners' stacks of long blocks ({@link #held()}). */
    public static final String HELD = "held";
    private static final int BLOCKED_STATE = 0;
    private static final int WAITED_STATE = 1;
    private static final int IDLE_STATE = 2;
    /** The frame that starts a stack cut at the recorder's stack depth (its outer frames are missing). */
    public static final String TRUNCATED = "[truncated]";
    /** The frame of an event recorded without a stack. */
    public static final String NO_STACK = "[no_stack]";

    private final SortedMap<String, Long> folded;
    private final SortedMap<String, Long> held;
    private final Map<String, String[]> framesOf; // a folded line's frames, the names shared between lines
    private final long totalNs;
    private final boolean wholeRun;

    private FlameStacks(SortedMap<String, Long> folded, SortedMap<String, Long> held, Map<String, String[]> framesOf,
                        boolean wholeRun) {
        this.folded = Collections.unmodifiableSortedMap(folded);
        this.held = Collections.unmodifiableSortedMap(held);
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
            int state = blocked ? BLOCKED_STATE : idle ? IDLE_STATE : WAITED_STATE;
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
            String state = st == BLOCKED_STATE ? BLOCKED : st == IDLE_STATE ? IDLE : WAITED;
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
        return new FlameStacks(folded, held(r, framesOf, methodText), framesOf, wholeRun);
    }

    /** The held view's lines ({@link #held()}); their frames go into {@code framesOf}. */
    private static SortedMap<String, Long> held(Recording r, Map<String, String[]> framesOf,
                                                Map<Long, String> methodText) {
        SortedMap<String, Long> held = new TreeMap<>();
        if (!hasOwnerSamples(r)) {
            return held; // no index needed
        }
        ContentionIndex x = ContentionIndex.of(r);
        for (OwnerSamples.Sample s : x.ownerSamples().all()) {
            long ns = x.ownerSamples().blockedNs(s);
            if (ns <= 0) {
                continue;
            }
            String cls = Blockers.className(r, s.monitor(), s.lock());
            String[] frames = frames(r, s.stackId(), methodText);
            Frame f = s.holdingFrame(r);
            if (f != null) {
                StackTrace st = r.stacks().get(s.stackId());
                int at = frames.length - 1 - s.frame();
                if (st != null && at >= (st.truncated() ? 1 : 0)) {
                    frames = frames.clone();
                    MethodInfo m = r.methods().get(f.methodId());
                    int line = m == null ? -1 : m.lineFor(f.location());
                    frames[at] = frames[at] + " [" + (s.frameExact() ? "" : "probably ") + "holding"
                            + (line >= 0 ? ", line " + line : "") + "]";
                }
            }
            String[] all = new String[frames.length + 2];
            all[0] = HELD;
            all[1] = escape(cls.isEmpty() ? MonitorStatistics.UNKNOWN_CLASS : cls);
            System.arraycopy(frames, 0, all, 2, frames.length);
            String line = String.join(";", all);
            held.merge(line, ns, Long::sum);
            framesOf.putIfAbsent(line, all);
        }
        return held;
    }

    /** Whether any ring has an OWNER_SAMPLE record. */
    private static boolean hasOwnerSamples(Recording r) {
        for (RecordedThread t : r.threads()) {
            for (int i = t.eventCount() - 1; i >= 0; i--) {
                if (t.rawType(i) == SnapshotFormat.EVENT_OWNER_SAMPLE) {
                    return true;
                }
            }
        }
        return false;
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

    /** The sum of all stacks' time in ns (of {@link #folded()}: the held view is not in it). */
    public long totalNs() {
        return totalNs;
    }

    /**
     * The held view's stacks ({@code held;CLASS;owner's frames}, the holding frame marked) and the
     * time their blocked threads lost, ns, sorted by text; empty without OWNER_SAMPLE records.
     */
    public SortedMap<String, Long> held() {
        return held;
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
     * first (as in the folded lines); the stacks of the held view ({@link #held()}, state
     * {@value #HELD}) after the others.
     */
    public void writeJson(JsonGenerator g) throws IOException {
        Map<String, Integer> index = new LinkedHashMap<>();
        List<int[]> stacks = new ArrayList<>(folded.size() + held.size());
        List<String> lines = new ArrayList<>(folded.keySet());
        lines.addAll(held.keySet());
        for (String line : lines) {
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
        List<Long> weights = new ArrayList<>(folded.values());
        weights.addAll(held.values());
        for (long ns : weights) {
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
