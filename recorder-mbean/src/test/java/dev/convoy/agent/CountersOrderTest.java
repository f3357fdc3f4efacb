package dev.convoy.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The counter list of native-recorder/src/counters.h, whose order is the order of the
 * values counters0 returns, against {@link NativeRecorder.Counters}: the same names
 * (RECORDS_WRITTEN is recordsWritten) in the same order, and
 * {@link NativeRecorder#counters(long[])} hands each value to the component of its name.
 * Moving, adding or removing an entry on one side only fails here.
 */
class CountersOrderTest {

    static final Path HEADER = Path.of("..", "native-recorder", "src", "counters.h");

    /** The entries {@code X(NAME)} of the macro {@code CV_COUNTERS(X)} in {@code text}, in order. */
    static List<String> counterList(String text) {
        String noComments = text.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\n]*", " ");
        Matcher start = Pattern.compile("#\\s*define\\s+CV_COUNTERS\\s*\\(\\s*X\\s*\\)").matcher(noComments);
        if (!start.find()) {
            throw new AssertionError("no #define CV_COUNTERS(X) in the header");
        }
        // the macro's body: up to the first line that does not end with a backslash
        StringBuilder body = new StringBuilder();
        for (String line : noComments.substring(start.end()).split("\n", -1)) {
            String t = line.stripTrailing();
            body.append(t.endsWith("\\") ? t.substring(0, t.length() - 1) : t).append(' ');
            if (!t.endsWith("\\")) {
                break;
            }
        }
        List<String> names = new ArrayList<>();
        Matcher entry = Pattern.compile("\\bX\\s*\\(\\s*([A-Za-z0-9_]+)\\s*\\)").matcher(body);
        while (entry.find()) {
            names.add(entry.group(1));
        }
        return names;
    }

    static String upperSnake(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(java.util.Locale.ROOT);
    }

    static String camel(String upperSnake) {
        StringBuilder sb = new StringBuilder();
        for (String part : upperSnake.toLowerCase(java.util.Locale.ROOT).split("_")) {
            sb.append(sb.length() == 0 ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return sb.toString();
    }

    static List<String> headerCounters() throws Exception {
        List<String> names = counterList(Files.readString(HEADER, StandardCharsets.UTF_8));
        assertFalse(names.isEmpty(), "parsed CV_COUNTERS of " + HEADER.toAbsolutePath());
        return names;
    }

    @Test
    void recordComponentsAreTheHeaderListInItsOrder() throws Exception {
        List<String> java = Arrays.stream(NativeRecorder.Counters.class.getRecordComponents())
                .map(c -> upperSnake(c.getName())).toList();
        assertEquals(headerCounters(), java, "CV_COUNTERS in " + HEADER
                + " and the components of NativeRecorder.Counters must name the same counters in the same order");
    }

    @Test
    void eachValueReachesTheComponentOfItsName() throws Exception {
        List<String> names = headerCounters();
        long[] values = new long[names.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = 1000 + i;
        }
        NativeRecorder.Counters counters = NativeRecorder.counters(values);
        for (int i = 0; i < names.size(); i++) {
            long got = (long) NativeRecorder.Counters.class.getMethod(camel(names.get(i))).invoke(counters);
            assertEquals(1000 + i, got, "counters0's value " + i + " is " + names.get(i) + " in " + HEADER);
        }
    }

    @Test
    void anotherNumberOfValuesFailsLoudly() {
        int n = NativeRecorder.Counters.class.getRecordComponents().length;
        assertThrows(IllegalStateException.class, () -> NativeRecorder.counters(new long[n - 1]));
        assertThrows(IllegalStateException.class, () -> NativeRecorder.counters(new long[n + 1]));
    }

    @Test
    void theParserReadsOnlyTheMacroAndSkipsComments() {
        String header = """
                /* X(NOT_THIS) */
                #define CV_COUNTERS(X)   \\
                    X(FIRST)  /* X(NOR_THIS) */ \\
                    X( SECOND_ONE )
                #define OTHER(X) X(NOT_EITHER)
                """;
        assertEquals(List.of("FIRST", "SECOND_ONE"), counterList(header));
        assertEquals("RECORDS_WRITTEN", upperSnake("recordsWritten"));
        assertEquals("START_EPOCH_NS", upperSnake("startEpochNs"));
        assertEquals("startEpochNs", camel("START_EPOCH_NS"));
    }

    @Test
    void monitorStatesOfDifferentLengthsAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new NativeRecorder.MonitorStates(new long[2], new int[2], new int[1], new long[2]));
        assertEquals(0, new NativeRecorder.MonitorStates(new long[0], new int[0], new int[0], new long[0]).threadIds().length);
    }
}
