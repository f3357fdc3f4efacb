package dev.convoy.testapps.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The event types and stages of native-recorder/src/timing.h (CV_TIMING_EVENTS, CV_TIMING_STAGES),
 * whose lower-case names the snapshot's INFO keys carry, against {@link CallbackTiming#EVENTS} and
 * {@link CallbackTiming#STAGES}: the same names in the same order. Adding, removing or moving an entry
 * on one side only fails here (as CountersOrderTest does for counters.h).
 */
class TimingNamesTest {

    static final Path HEADER = Path.of("..", "native-recorder", "src", "timing.h");

    /** The entries {@code X(NAME)} of the macro {@code #define MACRO(X)} in {@code text}, in order. */
    static List<String> macroList(String text, String macro) {
        String noComments = text.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\n]*", " ");
        Matcher start = Pattern.compile("#\\s*define\\s+" + macro + "\\s*\\(\\s*X\\s*\\)").matcher(noComments);
        if (!start.find()) {
            throw new AssertionError("no #define " + macro + "(X) in the header");
        }
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
            names.add(entry.group(1).toLowerCase(Locale.ROOT));
        }
        return names;
    }

    private static String header() throws Exception {
        return Files.readString(HEADER, StandardCharsets.UTF_8);
    }

    @Test
    void eventTypesAreTheHeaderListInItsOrder() throws Exception {
        List<String> c = macroList(header(), "CV_TIMING_EVENTS");
        assertFalse(c.isEmpty(), "parsed CV_TIMING_EVENTS of " + HEADER.toAbsolutePath());
        assertEquals(c, CallbackTiming.EVENTS, "timing.h's CV_TIMING_EVENTS and CallbackTiming.EVENTS");
    }

    @Test
    void stagesAreTheHeaderListInItsOrder() throws Exception {
        List<String> c = macroList(header(), "CV_TIMING_STAGES");
        assertFalse(c.isEmpty(), "parsed CV_TIMING_STAGES of " + HEADER.toAbsolutePath());
        assertEquals(c, CallbackTiming.STAGES, "timing.h's CV_TIMING_STAGES and CallbackTiming.STAGES");
        for (String s : CallbackTiming.STAGES) {
            assertFalse(CallbackTiming.STAGE_TITLES.get(s) == null, "a column title for stage " + s);
        }
    }

    @Test
    void theParserReadsOnlyTheMacroAndSkipsComments() {
        String header = """
                /* X(NOT_THIS) */
                #define CV_TIMING_STAGES(X)   \\
                    X(FIRST)  /* X(NOR_THIS) */ \\
                    X( SECOND_ONE )
                #define OTHER(X) X(NOT_EITHER)
                """;
        assertEquals(List.of("first", "second_one"), macroList(header, "CV_TIMING_STAGES"));
    }
}
