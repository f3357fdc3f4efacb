package dev.convoy.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Every message the user guide's troubleshooting table quotes is one Convoy writes: each literal
 * part of it (the text between the placeholders {@code ...}, quoted values, DIR, PID, N, numbers) is
 * in the sources of the agent, the exporters or the native recorder. A row for a message no code
 * writes any more fails here.
 */
class UserGuideMessagesTest {

    private static final Path ROOT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();
    /** Parts written by the operating system or the logger, not by Convoy's own strings. */
    private static final Set<String> NOT_OURS = Set.of("[convoy]", ": No space left on device");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\.\\.\\.|'[^']*'|\\b(?:DIR|PID|N|FILE|\\d+)\\b");

    private static String sources() throws IOException {
        StringBuilder all = new StringBuilder();
        for (String dir : List.of("recorder-mbean/src/main/java", "exporters/src/main/java", "native-recorder/src")) {
            try (Stream<Path> files = Files.walk(ROOT.resolve(dir))) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    all.append(Files.readString(f, StandardCharsets.UTF_8)).append('\n');
                }
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        }
        // String literals continued on the next line ("... " + "...") read as one.
        return all.toString().replaceAll("\"\\s*\\+\\s*\"", "");
    }

    /** The quoted messages of the first column of the troubleshooting table. */
    static List<String> messages(String guide) {
        int start = guide.indexOf("## Troubleshooting");
        assertTrue(start >= 0, "the user guide has a troubleshooting section");
        int end = guide.indexOf("\n## ", start + 1);
        List<String> out = new ArrayList<>();
        for (String line : guide.substring(start, end < 0 ? guide.length() : end).split("\n")) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String first = line.substring(1, line.indexOf(" | ", 1));
            Matcher m = Pattern.compile("`([^`]+)`").matcher(first);
            while (m.find()) {
                if (!m.group(1).startsWith("./convoy")) {
                    out.add(m.group(1));
                }
            }
        }
        return out;
    }

    /** The literal parts of a message, at least 10 characters long, without what is not Convoy's. */
    static List<String> parts(String message) {
        List<String> parts = new ArrayList<>();
        for (String p : PLACEHOLDER.split(message)) {
            String s = p.strip();
            for (String other : NOT_OURS) {
                s = s.replace(other, "").strip();
            }
            if (s.length() >= 10) {
                parts.add(s);
            }
        }
        return parts;
    }

    @Test
    void everyTroubleshootingMessageIsOneTheCodeWrites() throws IOException {
        String guide = Files.readString(ROOT.resolve("docs/user-guide.md"), StandardCharsets.UTF_8);
        String sources = sources();
        List<String> messages = messages(guide);
        assertTrue(messages.size() >= 10, () -> "messages found: " + messages);
        List<String> missing = messages.stream().flatMap(m -> parts(m).stream().filter(p -> !sources.contains(p))
                .map(p -> "'" + p + "' of `" + m + "`")).collect(Collectors.toList());
        assertEquals(List.of(), missing, "parts of the user guide's troubleshooting messages that no code writes");
    }

    @Test
    void aRowForAMessageNoCodeWritesIsCaught() throws IOException {
        String sources = sources();
        List<String> parts = parts("cannot write the probes jar to DIR ...");
        assertEquals(List.of("cannot write the probes jar to"), parts);
        assertTrue(parts.stream().noneMatch(sources::contains));
    }
}
