package dev.convoy.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The options are declared once, in {@link Option}: the README's option tables are its user
 * options' rows, word for word, each under 200 characters; the benchmark options are in
 * docs/performance.md and nowhere in the README; the user guide describes every user option;
 * the parser takes every option's default and names each in its INFO line. A test failure
 * prints the row the docs should have.
 */
public class OptionDocsTest {

    private static final Pattern ROW = Pattern.compile("^\\| `([a-z.]+)=[^`]*` \\|.*$", Pattern.MULTILINE);

    /** The repository's root: the module's parent, as the other tests of this module find it. */
    public static Path root() {
        return Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();
    }

    private static String read(String file) throws IOException {
        return Files.readString(root().resolve(file), StandardCharsets.UTF_8);
    }

    /** Option rows of a Markdown file: key to the whole line. */
    private static Map<String, String> rows(String text) {
        Map<String, String> rows = new LinkedHashMap<>();
        Matcher m = ROW.matcher(text);
        while (m.find()) {
            rows.put(m.group(1), m.group());
        }
        return rows;
    }

    @Test
    void theReadmeListsEveryUserOptionAsTheTableDeclaresIt() throws IOException {
        Map<String, String> readme = rows(read("README.md"));
        assertEquals(Option.userKeys(), List.copyOf(readme.keySet()).stream().sorted(
                (a, b) -> Integer.compare(Option.of(a).map(Enum::ordinal).orElse(-1),
                        Option.of(b).map(Enum::ordinal).orElse(-1))).toList(),
                "the README's option rows are the user options, each once");
        for (Option o : Option.values()) {
            if (o.bench()) {
                continue;
            }
            assertEquals(o.row(), readme.get(o.key()), "README row of " + o.key());
            assertTrue(o.row().length() < 200, o.key() + "'s row has " + o.row().length() + " characters");
        }
    }

    @Test
    void benchmarkOptionsAreWithTheBenchmarksAndNotInTheReadme() throws IOException {
        String readme = read("README.md");
        Map<String, String> perf = rows(read("docs/performance.md"));
        for (Option o : Option.values()) {
            if (!o.bench()) {
                assertFalse(perf.containsKey(o.key()), o.key() + " is a user option: its row is the README's");
                continue;
            }
            assertFalse(readme.contains(o.key()), o.key() + " is a benchmark option: not in the README");
            assertEquals(o.row(), perf.get(o.key()), "docs/performance.md row of " + o.key());
        }
    }

    @Test
    void theUserGuideDescribesEveryUserOption() throws IOException {
        String guide = read("docs/user-guide.md");
        for (String key : Option.userKeys()) {
            assertTrue(guide.contains("`" + key + "="), "the user guide names `" + key + "=`");
        }
    }

    @Test
    void everyOptionTakesItsDefaultAndIsNamedInTheInfoLine() {
        AgentOptions defaults = AgentOptions.parse("");
        for (Option o : Option.values()) {
            String d = o.defaultCell();
            if (!d.startsWith("`") || d.contains("PID")) {
                continue; // none, all, convoy-PID: no value to write
            }
            String value = d.substring(1, d.length() - 1);
            AgentOptions given = AgentOptions.parse(o.key() + "=" + value);
            assertEquals(defaults.effective(), given.effective(), o.key() + "=" + value + " is the default");
            List<String> named = Arrays.stream(defaults.effective().split(",")).map(p -> p.split("=")[0]).toList();
            // optional ones are named when given: dumpon with its window and keep, repository with its bound
            assertEquals(!o.bench() && !List.of("dumpon", "dumpwindow", "dumpkeep", "diskmaxsize").contains(o.key()),
                    named.contains(o.key()),
                    o.key() + " in the INFO line " + defaults.effective());
        }
    }
}
