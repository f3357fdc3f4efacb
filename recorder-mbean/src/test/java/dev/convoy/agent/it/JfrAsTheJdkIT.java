package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.export.jfr.ChunkDecoder;
import dev.convoy.testapps.LockStorm;
import dev.convoy.testapps.ProducerConsumer;
import dev.convoy.testapps.ReentrantLockStorm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemFilter;
import org.openjdk.jmc.common.item.ItemFilters;
import org.openjdk.jmc.common.unit.IQuantity;
import org.openjdk.jmc.common.unit.QuantityRange;
import org.openjdk.jmc.common.util.IPreferenceValueProvider;
import org.openjdk.jmc.flightrecorder.JfrAttributes;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;
import org.openjdk.jmc.flightrecorder.rules.IResult;
import org.openjdk.jmc.flightrecorder.rules.IRule;
import org.openjdk.jmc.flightrecorder.rules.RuleRegistry;
import org.openjdk.jmc.flightrecorder.rules.Severity;
import org.openjdk.jmc.flightrecorder.rules.TypedResult;
import org.openjdk.jmc.flightrecorder.rules.util.RulesToolkit;

/**
 * Convoy's JFR file against the JDK's own recording of the same run: a test app runs with the
 * agent ({@code dumponexit=jfr}) and {@code -XX:StartFlightRecording} (the default settings, with
 * {@code jdk.JavaMonitorEnter}, {@code jdk.JavaMonitorWait}, {@code jdk.ThreadPark} and
 * {@code jdk.ThreadSleep} at threshold 0: every one, as Convoy records them), once per app and
 * JDK, and the two files are compared four ways:
 * <ol>
 * <li><b>Metadata</b>: every type of Convoy's file that is not Convoy's own is declared as in the
 *     JDK's file, element for element (settings with their defaults, fields in order with their
 *     annotations, annotations), but for Convoy's fields after the JDK's, each with a label and a
 *     description saying it is Convoy's ({@link ChunkDecoder#classTexts}).</li>
 * <li><b>{@code jfr print}</b> (the JDK's own tool): for each JDK type both files have events of,
 *     every field the JDK's file prints Convoy's prints too, in the same order, formatted the same
 *     way (durations with units, times, {@code N/A}, hex addresses, threads, classes: {@link
 *     #style}).</li>
 * <li><b>JMC's rules</b> that read these events: JavaBlocking (the blocked time of
 *     {@code jdk.JavaMonitorEnter} against the span of the recording) gives the same severity on
 *     both, scoring on both where one scores, over the span both files cover (Convoy's recording
 *     starts when the agent loads, the JDK's once JFR has started, which takes a short program's
 *     whole run); OverAggressiveRecordingSetting (the thresholds of {@code jdk.JavaMonitorEnter}
 *     and {@code jdk.ThreadPark}, from {@code jdk.ActiveSetting}) on the whole files.</li>
 * <li><b>{@code previousOwner}</b>: the JDK's meaning, the thread that released the monitor. Per
 *     thread, Convoy's (thread, previousOwner) pairs are among the JDK's (Convoy names one only
 *     where its releaser is exact: the VM's record, which JFR reads too).</li>
 * </ol>
 * No assertion is on time.
 */
class JfrAsTheJdkIT {

    /** The JDK's types Convoy writes events of. */
    static final List<String> JDK_EVENTS = List.of("jdk.JavaMonitorEnter", "jdk.JavaMonitorWait", "jdk.ThreadPark",
            "jdk.ThreadSleep", "jdk.ThreadStart", "jdk.ThreadEnd", "jdk.GarbageCollection", "jdk.ActiveSetting");

    @TempDir
    Path work;

    static Stream<Arguments> runs() {
        List<Arguments> a = new ArrayList<>();
        for (Jdks.Jdk jdk : Jdks.all().toList()) {
            a.add(Arguments.of(jdk, "lock storm", LockStorm.class.getName(), new String[] {"16", "20000"},
                    "jdk.JavaMonitorEnter", true));
            a.add(Arguments.of(jdk, "ReentrantLock storm", ReentrantLockStorm.class.getName(),
                    new String[] {"4", "1000"}, "jdk.ThreadPark", false));
            a.add(Arguments.of(jdk, "producer/consumer", ProducerConsumer.class.getName(), new String[0],
                    "jdk.JavaMonitorWait", false));
        }
        return a.stream();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("runs")
    void convoysFileReadsAsTheJdksOwn(Jdks.Jdk jdk, String label, String app, String[] args, String mainType,
                                      boolean blocking) throws Exception {
        jdk.assumePresent();
        Path jfc = JfrSettings.thresholdZero(work, "every", "jdk.JavaMonitorEnter", "jdk.JavaMonitorWait",
                "jdk.ThreadPark", "jdk.ThreadSleep");
        ChildJvm.Result run = ChildJvm.runWith(jdk, work, List.of("-Dconvoy.tmpdir=" + work.resolve("lib"),
                        "-XX:StartFlightRecording=filename=jdk.jfr,dumponexit=true,settings=default,settings=" + jfc),
                "dumponexit=jfr,dumpdir=.,dumpname=c,buffer=4m,memory=256m", app, args).assertSucceeded();
        Path ours = run.dumpDir().resolve("c.jfr");
        Path theirs = run.dumpDir().resolve("jdk.jfr");
        assertTrue(Files.isRegularFile(ours) && Files.isRegularFile(theirs), () -> run.stdout() + run.stderr());

        sameMetadata(ours, theirs);
        Set<String> printedBoth = sameFormatting(jdk, ours, theirs);
        assertTrue(printedBoth.contains(mainType), () -> mainType + " in both files: " + printedBoth);
        sameRuleResults(label, ours, theirs, blocking);
        previousOwnersAreTheJdks(ours, theirs, blocking);
    }

    // ---- metadata

    /** The top-level children of a class element's text: each its line and the lines below it. */
    static List<String> children(String classText) {
        List<String> out = new ArrayList<>();
        List<String> lines = classText.lines().toList();
        for (int i = 1; i < lines.size(); i++) {
            String line = normalized(lines.get(i));
            if (line.startsWith("  <")) {
                out.add(line);
            } else {
                out.set(out.size() - 1, out.get(out.size() - 1) + "\n" + line);
            }
        }
        return out;
    }

    private static final Pattern ELEMENT = Pattern.compile("^(\\s*)<(\\w+)(.*)>$");
    private static final Pattern ATTRIBUTE = Pattern.compile("\\s(\\S+?)=\"([^\"]*)\"");

    /** An element's line with its attributes sorted (their order means nothing). */
    static String normalized(String line) {
        Matcher m = ELEMENT.matcher(line);
        if (!m.matches()) {
            return line;
        }
        TreeMap<String, String> attributes = new TreeMap<>();
        Matcher a = ATTRIBUTE.matcher(m.group(3));
        while (a.find()) {
            attributes.put(a.group(1), a.group(2));
        }
        StringBuilder sb = new StringBuilder(m.group(1)).append('<').append(m.group(2));
        attributes.forEach((k, v) -> sb.append(' ').append(k).append("=\"").append(v).append('"'));
        return sb.append('>').toString();
    }

    static String fieldName(String child) {
        Matcher m = Pattern.compile("^  <field .*name=\"([^\"]+)\"").matcher(child);
        return m.find() ? m.group(1) : null;
    }

    void sameMetadata(Path ours, Path theirs) throws Exception {
        Map<String, String> o = ChunkDecoder.classTexts(Files.readAllBytes(ours));
        Map<String, String> t = ChunkDecoder.classTexts(Files.readAllBytes(theirs));
        for (String type : JDK_EVENTS) {
            assertTrue(o.containsKey(type), type + " in Convoy's file");
        }
        int compared = 0;
        for (Map.Entry<String, String> e : o.entrySet()) {
            String type = e.getKey();
            if (type.startsWith("dev.convoy.")) {
                continue;
            }
            String jdkText = t.get(type);
            if (jdkText == null && type.equals("jdk.ThreadSleep")) {
                continue; // JDK 21+ declares its Java event only once it is used
            }
            assertNotNull(jdkText, () -> type + " is declared in Convoy's file, not in the JDK's");
            List<String> mine = children(e.getValue());
            List<String> jdks = children(jdkText);
            Set<String> jdkFields = new TreeSet<>();
            jdks.forEach(c -> {
                if (fieldName(c) != null) {
                    jdkFields.add(fieldName(c));
                }
            });
            List<String> extra = new ArrayList<>();
            List<String> rest = new ArrayList<>();
            for (String c : mine) {
                String f = fieldName(c);
                (f != null && !jdkFields.contains(f) ? extra : rest).add(c);
            }
            assertEquals(String.join("\n", jdks), String.join("\n", rest),
                    type + ": declared as the JDK declares it\nConvoy's:\n" + e.getValue() + "\nthe JDK's:\n" + jdkText);
            if (!extra.isEmpty()) {
                String lastJdkField = jdks.stream().filter(c -> fieldName(c) != null).reduce((a, b) -> b).orElseThrow();
                assertEquals(mine.indexOf(lastJdkField) + 1, mine.indexOf(extra.get(0)),
                        type + ": Convoy's fields after the JDK's");
                for (String x : extra) {
                    assertTrue(x.contains("class=\"jdk.jfr.Label\"") && x.contains("value=\"Convoy: "),
                            type + ": Convoy's field with a label and a description saying so: " + x);
                }
            }
            compared++;
        }
        assertTrue(compared >= 20, compared + " types compared");
    }

    // ---- jfr print

    /** A field's value as {@code jfr print} formats it, by kind. */
    static String style(String value) {
        if (value.equals("N/A")) {
            return "N/A";
        }
        if (value.matches("\\d{2}:\\d{2}:\\d{2}\\.\\d{3}( \\(\\d{4}-\\d{2}-\\d{2}\\))?")) {
            return "time";
        }
        if (value.matches("-?[0-9][0-9.,]* (ns|us|ms|s|m|min|h|d)( [0-9]+ (ns|us|ms|s|m|min|h|d))*")
                || value.matches("(Infinity|-Infinity|Forever)")) {
            return "duration";
        }
        if (value.matches("0x[0-9A-F]+")) {
            return "hex";
        }
        if (value.matches("\".*\" \\(javaThreadId = \\d+\\)")) {
            return "thread";
        }
        if (value.endsWith(")") && value.contains(" (classLoader = ")) {
            return "class";
        }
        if (value.matches("true|false")) {
            return "boolean";
        }
        if (value.matches("-?[0-9]+")) {
            return "number";
        }
        if (value.startsWith("\"") && value.endsWith("\"")) {
            return "string";
        }
        if (value.equals("[")) {
            return "array";
        }
        return "other: " + value;
    }

    /** Per event type: per field, in the order printed, the styles of its values. */
    static Map<String, Map<String, Set<String>>> printed(Jdks.Jdk jdk, Path file) throws Exception {
        String text = JfrOutputIT.tool(jdk, "print", "--events", String.join(",", JDK_EVENTS), file.toString());
        Map<String, Map<String, Set<String>>> out = new TreeMap<>();
        Map<String, Set<String>> fields = null;
        Pattern field = Pattern.compile("^  (\\w+) = (.*)$");
        for (String line : text.lines().toList()) {
            if (line.endsWith(" {") && !line.startsWith(" ")) {
                fields = out.computeIfAbsent(line.substring(0, line.length() - 2), k -> new LinkedHashMap<>());
                continue;
            }
            Matcher m = field.matcher(line);
            if (fields != null && m.matches()) {
                fields.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(style(m.group(2)));
            }
        }
        return out;
    }

    /** Returns the types both files print events of. */
    Set<String> sameFormatting(Jdks.Jdk jdk, Path ours, Path theirs) throws Exception {
        Map<String, Map<String, Set<String>>> o = printed(jdk, ours);
        Map<String, Map<String, Set<String>>> t = printed(jdk, theirs);
        int compared = 0;
        Set<String> both = new TreeSet<>();
        for (String type : JDK_EVENTS) {
            Map<String, Set<String>> mine = o.get(type);
            Map<String, Set<String>> jdks = t.get(type);
            if (mine == null || jdks == null) {
                continue; // no events of the type in one of them
            }
            both.add(type);
            List<String> order = new ArrayList<>(mine.keySet());
            int last = -1;
            for (Map.Entry<String, Set<String>> f : jdks.entrySet()) {
                String name = f.getKey();
                Set<String> styles = mine.get(name);
                if (styles == null && (name.equals("stackTrace") || name.equals("eventThread"))) {
                    continue; // jfr print leaves out a missing stack trace or event thread (N/A in Convoy's)
                }
                assertNotNull(styles, () -> type + "." + name + " printed for the JDK's file, not for Convoy's: " + mine);
                assertTrue(order.indexOf(name) > last, () -> type + ": the JDK's field order " + jdks.keySet()
                        + ", Convoy's " + order);
                last = order.indexOf(name);
                Set<String> jdkStyles = new TreeSet<>(f.getValue());
                jdkStyles.remove("N/A");
                Set<String> ourStyles = new TreeSet<>(styles);
                ourStyles.remove("N/A");
                if (jdkStyles.isEmpty()) {
                    continue; // the JDK printed N/A only: nothing to compare with
                }
                for (String s : ourStyles) {
                    assertTrue(jdkStyles.contains(s), () -> type + "." + name + ": Convoy's file prints " + styles
                            + ", the JDK's " + f.getValue());
                }
                compared++;
            }
        }
        assertTrue(compared >= 8, compared + " fields compared: Convoy " + o.keySet() + ", JDK " + t.keySet());
        return both;
    }

    /** The file's jdk.JavaMonitorEnter events, as "thread: monitor class" (for a failure's message). */
    static List<String> monitorEnters(Path file) {
        List<String> out = new ArrayList<>();
        try {
            for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
                if (e.getEventType().getName().equals("jdk.JavaMonitorEnter")) {
                    RecordedThread t = e.getThread();
                    out.add((t == null ? "?" : t.getJavaName()) + ": " + e.getClass("monitorClass").getName());
                }
            }
        } catch (Exception ex) {
            out.add("unreadable: " + ex);
        }
        return out;
    }

    // ---- JMC's rules

    static final IItemFilter NOT_SETTINGS = ItemFilters.not(ItemFilters.type("jdk.ActiveSetting"));

    static IResult evaluate(IItemCollection items, String ruleId) throws Exception {
        for (IRule rule : RuleRegistry.getRules()) {
            if (rule.getId().equals(ruleId)) {
                var f = rule.createEvaluation(items, IPreferenceValueProvider.DEFAULT_VALUES, null);
                f.run();
                return f.get();
            }
        }
        throw new AssertionError("JMC has no rule " + ruleId);
    }

    static IQuantity later(IQuantity a, IQuantity b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    static IQuantity earlier(IQuantity a, IQuantity b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    void sameRuleResults(String label, Path ours, Path theirs, boolean blocking) throws Exception {
        IItemCollection o = JfrLoaderToolkit.loadEvents(ours.toFile());
        IItemCollection t = JfrLoaderToolkit.loadEvents(theirs.toFile());

        IResult os = evaluate(o, "OverAggressiveRecordingSetting");
        IResult ts = evaluate(t, "OverAggressiveRecordingSetting");
        System.out.println("[JfrAsTheJdkIT] " + label + ": OverAggressiveRecordingSetting Convoy " + os.getSeverity()
                + ", JDK " + ts.getSeverity());
        assertEquals(ts.getSeverity(), os.getSeverity(), "OverAggressiveRecordingSetting: " + os.getSummary());

        // the span both recorded: from the later start to the earlier end of their events
        IItemCollection oa = o.apply(NOT_SETTINGS);
        IItemCollection ta = t.apply(NOT_SETTINGS);
        IQuantity from = later(RulesToolkit.getEarliestStartTime(oa), RulesToolkit.getEarliestStartTime(ta));
        IQuantity to = earlier(RulesToolkit.getLatestEndTime(oa), RulesToolkit.getLatestEndTime(ta));
        IItemFilter both = ItemFilters.rangeContainedIn(JfrAttributes.LIFETIME, QuantityRange.createWithEnd(from, to));
        IResult ob = evaluate(oa.apply(both), "JavaBlocking");
        IResult tb = evaluate(ta.apply(both), "JavaBlocking");
        IQuantity oScore = ob.getResult(TypedResult.SCORE);
        IQuantity tScore = tb.getResult(TypedResult.SCORE);
        System.out.println("[JfrAsTheJdkIT] " + label + ": JavaBlocking Convoy " + ob.getSeverity() + " " + oScore
                + ", JDK " + tb.getSeverity() + " " + tScore + " (whole files: Convoy "
                + evaluate(o, "JavaBlocking").getSeverity() + ", JDK " + evaluate(t, "JavaBlocking").getSeverity() + ")");
        assertEquals(tb.getSeverity(), ob.getSeverity(), () -> "JavaBlocking: Convoy " + ob.getSummary() + " " + oScore
                + ", JDK " + tb.getSummary() + " " + tScore);
        // The rule scores a file when it has contended enters in the span: Convoy's as the JDK's. (Two runs of the
        // app: the JDK's own monitors may be contended once in one and not in the other, so one may score alone.)
        IItemFilter enters = ItemFilters.type("jdk.JavaMonitorEnter");
        boolean oEnters = oa.apply(both).apply(enters).hasItems();
        boolean tEnters = ta.apply(both).apply(enters).hasItems();
        assertEquals(oEnters, oScore != null, () -> "Convoy's file scored " + oScore + " with monitor enters "
                + monitorEnters(ours));
        assertEquals(tEnters, tScore != null, () -> "the JDK's file scored " + tScore + " with monitor enters "
                + monitorEnters(theirs));
        if (blocking) {
            assertTrue(oEnters && tEnters, "both recorded the contended enters");
        }
        if (blocking) {
            assertNotNull(oScore, "the blocking is scored");
            assertNotEquals(Severity.OK, ob.getSeverity(), "the blocking is reported");
        }
    }

    // ---- previousOwner

    void previousOwnersAreTheJdks(Path ours, Path theirs, boolean blocking) throws Exception {
        Map<String, Integer> o = previousOwners(ours);
        Map<String, Integer> t = previousOwners(theirs);
        int named = 0;
        for (Map.Entry<String, Integer> e : o.entrySet()) {
            named += e.getValue();
            assertTrue(e.getValue() <= t.getOrDefault(e.getKey(), 0), () -> "thread <- previousOwner " + e.getKey()
                    + ": " + e.getValue() + " in Convoy's file, " + t.get(e.getKey()) + " in the JDK's");
        }
        System.out.println("[JfrAsTheJdkIT] previousOwner named on " + named + " enters in Convoy's file, "
                + t.values().stream().mapToInt(Integer::intValue).sum() + " in the JDK's");
        if (blocking) {
            assertTrue(named > 0, "exact releasers in a lock storm: " + o);
        }
    }

    /** Per "thread &lt;- previousOwner" (Java ids), how many enters name it. */
    static Map<String, Integer> previousOwners(Path file) throws Exception {
        Map<String, Integer> out = new TreeMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (e.getEventType().getName().equals("jdk.JavaMonitorEnter")) {
                RecordedThread p = e.getThread("previousOwner");
                if (p != null && e.getThread() != null) {
                    out.merge(e.getThread().getJavaThreadId() + " <- " + p.getJavaThreadId(), 1, Integer::sum);
                }
            }
        }
        return out;
    }
}
