package dev.convoy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link CommandLine}: the argument rules convert and report share. */
class CommandLineTest {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    CommandLine.Parsed parse(String... args) {
        return new CommandLine("cmd", "usage: cmd FILE").valued("format", "--format", "-f").valued("output", "-o")
                .fixed("--md", "format", "markdown").parse(args, new PrintStream(out), new PrintStream(err));
    }

    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void valuesInEveryFormAndTheLastOneWins() {
        CommandLine.Parsed p = parse("in.cvysnap", "--format", "csv", "-o", "x");
        assertEquals(-1, p.exit());
        assertEquals("in.cvysnap", p.file());
        assertEquals(Map.of("format", "csv", "output", "x"), p.values());
        assertEquals("tptp", parse("--format=csv", "in", "-f", "tptp").get("format"));
        assertEquals("markdown", parse("--format=text", "--md", "in").get("format"));
        assertEquals("text", parse("--md", "--format=text", "in").get("format"));
        assertEquals("-", parse("-").file(), "a lone dash is a file name");
    }

    @Test
    void problemsGiveTheUsageAndExitCode2() {
        assertEquals(Convert.EXIT_USAGE, parse("in", "-o").exit());
        assertTrue(err().startsWith("cmd: missing value after -o\nusage: cmd FILE"), err());
        err.reset();
        assertEquals(Convert.EXIT_USAGE, parse("in", "--html").exit());
        assertTrue(err().startsWith("cmd: unknown option --html"), err());
        err.reset();
        assertEquals(Convert.EXIT_USAGE, parse("in", "--output=x").exit(), "only declared options take =value");
        err.reset();
        assertEquals(Convert.EXIT_USAGE, parse("a", "b").exit());
        assertTrue(err().startsWith("cmd: more than one input file: a, b"), err());
        err.reset();
        assertEquals(Convert.EXIT_USAGE, parse("--format", "csv").exit());
        assertTrue(err().startsWith("cmd: no input file"), err());
    }

    @Test
    void helpPrintsTheUsageAndSucceeds() {
        assertEquals(Convert.EXIT_OK, parse("in", "--help").exit());
        assertEquals("usage: cmd FILE\n", out.toString(StandardCharsets.UTF_8));
        assertEquals("", err());
    }
}
