package dev.convoy.snapshot;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The constant tables of schema/snapshot-format.md, the single source of truth, against
 * (a) the Java class {@link SnapshotFormat} and (b) the C header
 * native-recorder/src/snapshot_format.h: exactly the same names and values, both ways.
 */
class SnapshotFormatConsistencyTest {

    static final Path SPEC = Path.of("..", "schema", "snapshot-format.md");
    static final Path HEADER = Path.of("..", "native-recorder", "src", "snapshot_format.h");

    /** Defines of the header that are not rows of the tables: the magic string and the include guard. */
    static final Set<String> HEADER_ONLY = Set.of("CV_MAGIC", "CONVOY_SNAPSHOT_FORMAT_H");

    /** Rows {@code | NAME | VALUE | ...} of every table of the spec. */
    static Map<String, Long> specConstants() throws Exception {
        Pattern row = Pattern.compile("^\\|\\s*([A-Z][A-Z0-9_]+)\\s*\\|\\s*(\\d+)\\s*\\|");
        Map<String, Long> spec = new TreeMap<>();
        for (String line : Files.readAllLines(SPEC, StandardCharsets.UTF_8)) {
            Matcher m = row.matcher(line);
            if (m.find()) {
                assertNull(spec.put(m.group(1), Long.parseLong(m.group(2))), "row " + m.group(1) + " twice in " + SPEC);
            }
        }
        assertTrue(spec.size() > 30, "parsed the tables of " + SPEC + ": " + spec);
        return spec;
    }

    /** Public static int fields of {@link SnapshotFormat}. */
    static Map<String, Long> javaConstants() throws Exception {
        Map<String, Long> java = new TreeMap<>();
        for (Field f : SnapshotFormat.class.getDeclaredFields()) {
            int mod = f.getModifiers();
            if (Modifier.isPublic(mod) && Modifier.isStatic(mod) && f.getType() == int.class) {
                java.put(f.getName(), (long) f.getInt(null));
            }
        }
        return java;
    }

    /** {@code #define NAME VALUE} lines of the header, comments stripped; a value that is not a number fails. */
    static Map<String, Long> headerConstants() throws Exception {
        Pattern define = Pattern.compile("^\\s*#\\s*define\\s+([A-Za-z_][A-Za-z0-9_]*)(?:\\s+(.*?))?\\s*$");
        Map<String, Long> header = new TreeMap<>();
        List<String> unparsable = new ArrayList<>();
        for (String line : Files.readAllLines(HEADER, StandardCharsets.UTF_8)) {
            Matcher m = define.matcher(line.replaceAll("/\\*.*?\\*/", "").replaceAll("//.*", ""));
            if (!m.matches() || HEADER_ONLY.contains(m.group(1))) {
                continue;
            }
            String value = m.group(2) == null ? "" : m.group(2).replaceAll("^\\((.*)\\)$", "$1").replaceAll("[uUlL]+$", "");
            try {
                long v = value.startsWith("0x") || value.startsWith("0X") ? Long.parseLong(value.substring(2), 16)
                        : Long.parseLong(value);
                assertNull(header.put(m.group(1), v), "#define " + m.group(1) + " twice in " + HEADER);
            } catch (NumberFormatException e) {
                unparsable.add(line.trim());
            }
        }
        assertEquals(List.of(), unparsable, "defines of " + HEADER + " that are not a NAME NUMBER constant");
        return header;
    }

    /** Names missing on either side and values that differ, one a line; empty when equal. */
    static String differences(String specName, Map<String, Long> spec, String otherName, Map<String, Long> other) {
        StringBuilder sb = new StringBuilder();
        Set<String> names = new TreeSet<>(spec.keySet());
        names.addAll(other.keySet());
        for (String n : names) {
            Long a = spec.get(n);
            Long b = other.get(n);
            if (b == null) {
                sb.append("\n  ").append(n).append(" = ").append(a).append(" in ").append(specName)
                        .append(", missing in ").append(otherName);
            } else if (a == null) {
                sb.append("\n  ").append(n).append(" = ").append(b).append(" in ").append(otherName)
                        .append(", not a row of ").append(specName);
            } else if (!a.equals(b)) {
                sb.append("\n  ").append(n).append(": ").append(a).append(" in ").append(specName).append(", ")
                        .append(b).append(" in ").append(otherName);
            }
        }
        return sb.toString();
    }

    @Test
    void javaConstantsEqualTheSpecTables() throws Exception {
        String diff = differences("snapshot-format.md", specConstants(), "SnapshotFormat.java", javaConstants());
        assertEquals("", diff, "SnapshotFormat differs from the tables of " + SPEC + " (change the spec first):" + diff);
    }

    @Test
    void headerDefinesEqualTheSpecTables() throws Exception {
        assertTrue(Files.isRegularFile(HEADER), "header at " + HEADER.toAbsolutePath());
        String diff = differences("snapshot-format.md", specConstants(), "snapshot_format.h", headerConstants());
        assertEquals("", diff, "snapshot_format.h differs from the tables of " + SPEC + " (change the spec first):" + diff);
    }

    @Test
    void differencesAreListedBothWays() {
        String diff = differences("spec", Map.of("A", 1L, "B", 2L, "C", 3L), "java", Map.of("B", 2L, "C", 4L, "D", 5L));
        assertEquals("\n  A = 1 in spec, missing in java"
                + "\n  C: 3 in spec, 4 in java"
                + "\n  D = 5 in java, not a row of spec", diff);
    }
}
