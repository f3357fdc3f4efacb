package dev.convoy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Set;
import java.util.TreeSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The one table of commands ({@link Commands}): every command's usage names exactly the options its
 * parser accepts, each accepted name parses, and the overall usage lists every command.
 */
class CommandsTest {

    /** An option as a usage writes it: a dash or two and lower-case words, standing alone. */
    private static final Pattern OPTION = Pattern.compile("(?<=^|[\\s\\[(,|/])(--?[a-z][a-z-]*)(?=$|[\\s\\]),=/:;])");

    static Set<String> optionsIn(String text) {
        Set<String> found = new TreeSet<>();
        Matcher m = OPTION.matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    @Test
    void everyUsageNamesExactlyTheOptionsItsParserAccepts() {
        for (CommandLine.Command c : Commands.all()) {
            Set<String> accepted = new TreeSet<>(c.optionNames());
            accepted.addAll(List.of("-h", "--help"));
            String usage = c.usage();
            assertEquals(accepted, optionsIn(usage), () -> c.name() + "'s usage:\n" + usage);
            // the details: one line per option, its names first
            Set<String> detailed = new TreeSet<>();
            for (String line : usage.split("\n")) {
                if (line.startsWith("  -")) {
                    detailed.addAll(optionsIn(line.strip().split("  ")[0]));
                }
            }
            assertEquals(accepted, detailed, () -> c.name() + "'s option lines:\n" + usage);
            // the synopsis: every key, under one of its names
            String synopsis = c.synopsis();
            for (CommandLine.Option o : c.options()) {
                assertTrue(c.options().stream().filter(x -> x.key().equals(o.key()))
                        .anyMatch(x -> x.names().stream().anyMatch(n -> optionsIn(synopsis).contains(n))),
                        () -> c.name() + ": " + o.names() + " in " + synopsis);
            }
            for (String line : usage.split("\n")) {
                assertTrue(line.length() <= CommandLine.WIDTH, () -> "at most 100 characters: " + line);
            }
        }
    }

    @Test
    void everyNameTheUsageShowsIsParsed() {
        for (CommandLine.Command c : Commands.all()) {
            for (String name : optionsIn(c.usage())) {
                List<String> args = new ArrayList<>();
                c.arguments().stream().filter(CommandLine.Argument::required).forEach(a -> args.add(sample(a.name())));
                args.add(name);
                CommandLine.Option o = c.option(name);
                if (o != null && o.takesValue()) {
                    args.add("x");
                }
                try {
                    CommandLine.parse(c, args.toArray(String[]::new));
                } catch (IllegalArgumentException e) {
                    assertTrue(!e.getMessage().startsWith("unknown option"), () -> c.name() + " " + args + ": " + e);
                }
            }
            IllegalArgumentException bogus = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class, () -> CommandLine.parse(c, new String[] {"--bogus"}));
            assertEquals("unknown option '--bogus'", bogus.getMessage(), c.name());
        }
    }

    private static String sample(String argument) {
        return switch (argument) {
            case "PID" -> "123";
            case "on|off" -> "on";
            default -> "file";
        };
    }

    @Test
    void aMissingArgumentOrBadValueIsOneLine() {
        for (CommandLine.Command c : Commands.all()) {
            for (CommandLine.Argument a : c.arguments()) {
                if (a.required()) {
                    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                            IllegalArgumentException.class, () -> CommandLine.parse(c, new String[0]));
                    assertEquals(1, e.getMessage().lines().count(), c.name());
                }
            }
        }
        assertEquals("'12ab' is not a pid (./convoy list shows the JVMs)",
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> CommandLine.parse(Commands.get("status"), new String[] {"12ab"})).getMessage());
        assertEquals("--port needs a number from 0 (any free port) to 65535, got '99999'",
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> CommandLine.parse(Commands.get("view"), new String[] {"f", "--port", "99999"}))
                        .getMessage());
        assertEquals("--format is missing (" + dev.convoy.export.Output.names() + ")",
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        () -> CommandLine.parse(Commands.get("dump"), new String[] {"123"})).getMessage());
    }

    @Test
    void commandsAreFoundByTheirWords() {
        assertEquals("bench suite", Commands.find(new String[] {"bench", "suite", "--quick"}).name());
        assertEquals("bench", Commands.find(new String[] {"bench", "--runs", "3"}).name());
        assertEquals("dump", Commands.find(new String[] {"dump", "1"}).name());
        assertNull(Commands.find(new String[] {"frobnicate"}));
        assertNull(Commands.find(new String[0]));
    }

    @Test
    void theOverallUsageListsEveryCommandWithItsSynopsis() {
        String usage = Commands.usage();
        String flat = usage.replaceAll("\\s+", " ");
        for (CommandLine.Command c : Commands.all()) {
            assertTrue(flat.contains(" " + c.synopsis() + " "), () -> c.synopsis() + " in\n" + usage);
            assertNotNull(c.section());
        }
        for (String line : usage.split("\n")) {
            assertTrue(line.length() <= CommandLine.WIDTH, () -> "at most 100 characters: " + line);
        }
        for (String format : dev.convoy.export.Output.names().split(", ")) {
            String convert = flat.substring(flat.indexOf(" convert FILE"), flat.indexOf(" report FILE"));
            String dump = flat.substring(flat.indexOf(" dump PID"), flat.indexOf("Benchmarks"));
            assertTrue(convert.contains(format) && dump.contains(format), format);
        }
    }
}
