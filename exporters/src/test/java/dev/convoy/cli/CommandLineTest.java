package dev.convoy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link CommandLine}: the argument rules every command shares, on a command declared here. */
class CommandLineTest {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    static final CommandLine.Command CMD = new CommandLine.Command("cmd", Commands.Section.FILES, "does things",
            List.of(new CommandLine.Argument("FILE", true, false, "no input file", CommandLine.Check.ANY, "a file")),
            List.of(new CommandLine.Option("format", List.of("--format", "-f"), "F", null, false,
                            CommandLine.Check.ANY, "the format"),
                    new CommandLine.Option("o", List.of("-o"), "OUT", null, false, CommandLine.Check.ANY, "the output"),
                    new CommandLine.Option("format", List.of("--md"), null, "markdown", false, CommandLine.Check.ANY,
                            "Markdown"),
                    new CommandLine.Option("n", List.of("-n"), "N", null, false, Commands.range("-n", 1, 9, ""), "n"),
                    new CommandLine.Option("a", List.of("-a"), "A", null, false, CommandLine.Check.ANY, "a"),
                    new CommandLine.Option("b", List.of("-b"), "B", null, false, CommandLine.Check.ANY, "b")),
            Map.of("a", new LinkedHashSet<>(List.of("b"))), "-a or -b, not both");

    CommandLine.Parsed parse(String... args) {
        return CommandLine.parse(CMD, args, new PrintStream(out), new PrintStream(err));
    }

    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void valuesInEveryFormAndTheLastOneWins() {
        CommandLine.Parsed p = parse("in.cvysnap", "--format", "csv", "-o", "x");
        assertEquals(-1, p.exit());
        assertEquals(Map.of("FILE", "in.cvysnap", "format", "csv", "o", "x"), p.values());
        assertEquals("tptp", parse("--format=csv", "in", "-f", "tptp").get("format"));
        assertEquals("markdown", parse("--format=text", "--md", "in").get("format"));
        assertEquals("text", parse("--md", "--format=text", "in").get("format"));
        assertEquals("-", parse("-").get("FILE"), "a lone dash is a file name");
        assertEquals("-10m", parse("in", "-o", "-10m").get("o"), "a value may start with a dash");
    }

    @Test
    void problemsAreOneLineThenTheUsageAndExitCode2() {
        assertEquals(CommandLine.EXIT_USAGE, parse("in", "-o").exit());
        assertTrue(err().startsWith("convoy: cmd: -o needs a value (OUT)\nusage: ./convoy cmd FILE"), err());
        err.reset();
        assertEquals(CommandLine.EXIT_USAGE, parse("in", "--html").exit());
        assertTrue(err().startsWith("convoy: cmd: unknown option '--html'\n"), err());
        err.reset();
        assertEquals(CommandLine.EXIT_USAGE, parse("in", "--output=x").exit(), "only declared options take =value");
        err.reset();
        assertEquals(CommandLine.EXIT_USAGE, parse("a", "b").exit());
        assertTrue(err().startsWith("convoy: cmd: unexpected argument 'b'\n"), err());
        err.reset();
        assertEquals(CommandLine.EXIT_USAGE, parse("--format", "csv").exit());
        assertTrue(err().startsWith("convoy: cmd: no input file\n"), err());
        err.reset();
        assertEquals(CommandLine.EXIT_USAGE, parse("in", "-n", "10").exit());
        assertTrue(err().startsWith("convoy: cmd: -n needs a number from 1 to 9, got '10'\n"), err());
        err.reset();
        assertEquals(CommandLine.EXIT_USAGE, parse("in", "-a", "1", "-b", "2").exit());
        assertTrue(err().startsWith("convoy: cmd: -a or -b, not both\n"), err());
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void helpAnywherePrintsTheUsageAndSucceeds() {
        assertEquals(CommandLine.EXIT_OK, parse("in", "--bogus", "--help").exit(), "help before the problem");
        assertEquals(CMD.usage() + "\n", out.toString(StandardCharsets.UTF_8));
        assertTrue(CMD.usage().startsWith("usage: ./convoy cmd FILE [--format F] [-o OUT] [-n N] [-a A | -b B]\n"),
                CMD.usage());
        assertEquals("", err());
        out.reset();
        assertEquals(CommandLine.EXIT_OK, parse("-h").exit(), "help without the required argument");
    }
}
