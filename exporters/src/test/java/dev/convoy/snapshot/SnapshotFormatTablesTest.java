package dev.convoy.snapshot;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The constants equal the tables of schema/snapshot-format.md, both ways. */
class SnapshotFormatTablesTest {

    @Test
    void constantsMatchTheSpecTables() throws Exception {
        Pattern row = Pattern.compile("^\\|\\s*([A-Z][A-Z0-9_]+)\\s*\\|\\s*(\\d+)\\s*\\|");
        Map<String, Integer> spec = new TreeMap<>();
        for (String line : Files.readAllLines(Path.of("..", "schema", "snapshot-format.md"))) {
            Matcher m = row.matcher(line);
            if (m.find()) {
                spec.put(m.group(1), Integer.parseInt(m.group(2)));
            }
        }
        Map<String, Integer> java = new TreeMap<>();
        for (Field f : SnapshotFormat.class.getDeclaredFields()) {
            int mod = f.getModifiers();
            if (Modifier.isPublic(mod) && Modifier.isStatic(mod) && f.getType() == int.class) {
                java.put(f.getName(), f.getInt(null));
            }
        }
        assertTrue(spec.size() > 30, "parsed the tables: " + spec);
        assertEquals(spec, java);
    }
}
