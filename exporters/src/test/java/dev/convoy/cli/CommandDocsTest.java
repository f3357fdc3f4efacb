package dev.convoy.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The docs quote {@code ./convoy} as {@link Commands} declares it: every command line of a code
 * block parses (its {@code [...]} parts are parts of the command's synopsis, its placeholders
 * stand for values), and every {@code ./convoy ...} in the text names a command and options it has.
 */
class CommandDocsTest {

    private static final Path ROOT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();

    static List<Path> docs() throws IOException {
        List<Path> all = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(all::add);
        }
        return all;
    }

    /** The {@code ./convoy} lines of the code blocks of {@code text}, continuation lines joined, comments cut. */
    static List<String> codeLines(String text) {
        List<String> out = new ArrayList<>();
        boolean code = false;
        String pending = null;
        for (String line : text.split("\n")) {
            if (line.startsWith("```")) {
                code = !code;
                continue;
            }
            if (!code) {
                continue;
            }
            String l = line.replaceAll("\\s+#.*$", "").strip();
            if (pending != null) {
                l = pending + " " + l;
                pending = null;
            } else if (!l.startsWith("./convoy")) {
                continue;
            }
            if (l.endsWith("\\")) {
                pending = l.substring(0, l.length() - 1).strip();
            } else {
                out.add(l);
            }
        }
        return out;
    }

    private static String sample(String placeholder) {
        return switch (placeholder) {
            case "F" -> "chrome";
            case "PID" -> "12345";
            case "N" -> "1";
            case "D" -> "10m";
            default -> "x";
        };
    }

    @Test
    void everyCommandLineOfACodeBlockParses() throws IOException {
        int lines = 0;
        for (Path doc : docs()) {
            for (String line : codeLines(Files.readString(doc, StandardCharsets.UTF_8))) {
                lines++;
                String[] words = line.substring("./convoy".length()).strip().split("\\s+");
                CommandLine.Command c = Commands.find(words);
                assertNotNull(c, () -> doc.getFileName() + ": no such command: " + line);
                String rest = String.join(" ", Arrays.copyOfRange(words, c.name().split(" ").length, words.length));
                Matcher optional = Pattern.compile("\\[[^\\]]*\\]").matcher(rest);
                while (optional.find()) {
                    String part = optional.group();
                    assertTrue(c.synopsis().contains(part), () -> doc.getFileName() + ": " + part + " is no part of "
                            + c.synopsis() + ": " + line);
                }
                List<String> args = new ArrayList<>();
                for (String w : rest.replaceAll("\\[[^\\]]*\\]", " ").strip().split("\\s+")) {
                    if (w.isEmpty()) {
                        continue;
                    }
                    String first = w.contains("|") && !w.startsWith("-") ? w.split("\\|")[0] : w;
                    args.add(first.matches("[A-Z]+") ? sample(first) : first);
                }
                try {
                    CommandLine.parse(c, args.toArray(String[]::new));
                } catch (IllegalArgumentException e) {
                    fail(doc.getFileName() + ": " + line + ": " + e.getMessage());
                }
            }
        }
        assertTrue(lines >= 20, "the docs' command lines were found: " + lines);
    }

    @Test
    void everyCommandInTheTextHasTheOptionsItNames() throws IOException {
        Pattern quoted = Pattern.compile("`\\./convoy ([^`]*)`");
        int found = 0;
        for (Path doc : docs()) {
            Matcher m = quoted.matcher(Files.readString(doc, StandardCharsets.UTF_8));
            while (m.find()) {
                found++;
                String text = m.group(1).replace("\\|", "|");
                String[] words = text.strip().split("\\s+");
                // "report|convert FOLDER": each command named
                for (String name : words[0].split("\\|")) {
                    String[] these = words.clone();
                    these[0] = name;
                    CommandLine.Command c = Commands.find(these);
                    assertNotNull(c, () -> doc.getFileName() + ": no such command: ./convoy " + text);
                    Matcher options = Pattern.compile("(?<=^|[\\s\\[/|])(--?[a-z][a-z-]*)").matcher(text);
                    while (options.find()) {
                        String option = options.group(1);
                        assertFalse(!option.equals("--help") && c.option(option) == null,
                                () -> doc.getFileName() + ": " + c.name() + " has no option " + option + ": " + text);
                    }
                }
            }
        }
        assertTrue(found >= 10, "the docs' commands were found: " + found);
    }
}
