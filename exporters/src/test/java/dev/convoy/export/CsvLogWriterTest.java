package dev.convoy.export;

import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Parses the CSV logs with a reader written only from schema/csv-log-format.md. */
class CsvLogWriterTest {

    static final Pattern HASH = Pattern.compile("[0-9A-F]{8}");
    static final Pattern HEX = Pattern.compile("-?[0-9A-F]+");
    static final Pattern TS = Pattern.compile("-?\\d+\\.\\d+");

    @TempDir
    Path dir;

    record MethodLine(String id, String name, String signature, String declaringClass, int lines) {
    }

    record EventLine(double ts, String name, List<String> fields, List<String[]> frames) {
    }

    static String unescape(String s) {
        return s.replace("%2C", ",").replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%");
    }

    /** Meta log: class lines have 2 fields, method lines at least 5; class lines come first. */
    static Map<String, MethodLine> readMeta(Path meta, Map<String, String> classes) throws Exception {
        Map<String, MethodLine> methods = new HashMap<>();
        for (String line : Files.readAllLines(meta, StandardCharsets.UTF_8)) {
            String[] f = line.split(",", -1);
            if (f.length == 2) {
                assertTrue(methods.isEmpty(), "class lines before method lines: " + line);
                classes.put(unescape(f[0]), unescape(f[1]));
                continue;
            }
            assertTrue(f.length >= 5, line);
            assertTrue(HEX.matcher(f[0]).matches(), line);
            int count = Integer.parseInt(f[4]);
            assertEquals(5 + 2 * Math.max(count, 0), f.length, "line table of " + line);
            for (int i = 5; i < f.length; i += 2) {
                assertTrue(HEX.matcher(f[i]).matches(), "hex start location in " + line);
                Integer.parseInt(f[i + 1]);
            }
            assertNull(methods.put(f[0], new MethodLine(f[0], unescape(f[1]), f[2], f[3], count)), "duplicate " + f[0]);
        }
        return methods;
    }

    /** Number of fields before the stack trace, per event name (from the spec). */
    static final Map<String, Integer> FIELDS = Map.of("ObjectWait", 2, "ObjectWaited", 2, "MonitorContendedEnter", 3,
            "MonitorContendedEntered", 2, "ThreadStarted", 2, "ThreadEnded", 1);

    static List<EventLine> readEvents(Path events, Map<String, MethodLine> methods) throws Exception {
        List<EventLine> out = new ArrayList<>();
        for (String line : Files.readAllLines(events, StandardCharsets.UTF_8)) {
            String[] f = line.split(",", -1);
            assertTrue(TS.matcher(f[0]).matches(), line);
            Integer n = FIELDS.get(f[1]);
            assertNotNull(n, "known event name in " + line);
            List<String> fields = List.of(f).subList(2, 2 + n);
            List<String[]> frames = new ArrayList<>();
            boolean hasStack = !f[1].startsWith("Thread");
            if (hasStack) {
                int depth = Integer.parseInt(f[2 + n]);
                assertEquals(3 + n + 2 * depth, f.length, line);
                for (int i = 3 + n; i < f.length; i += 2) {
                    assertTrue(methods.containsKey(f[i]), "frame method " + f[i] + " resolves to a meta line");
                    assertTrue(HEX.matcher(f[i + 1]).matches(), "hex location " + f[i + 1]);
                    frames.add(new String[] {f[i], f[i + 1]});
                }
            } else {
                assertEquals(2 + n, f.length, line);
            }
            out.add(new EventLine(Double.parseDouble(f[0]), f[1], fields, frames));
        }
        return out;
    }

    @Test
    void writesBothLogsThatASpecReaderResolves() throws Exception {
        Recording r = SnapshotReader.read(Fixtures.all().toBytes());
        Path base = dir.resolve("run.csv");
        List<Path> written = Exporters.export(r, Format.CSV, base);
        assertEquals(List.of(dir.resolve("run.meta.csv").toAbsolutePath(), dir.resolve("run.events.csv").toAbsolutePath()),
                written);

        Map<String, String> classes = new HashMap<>();
        Map<String, MethodLine> methods = readMeta(written.get(0), classes);
        assertEquals("Worker, Inc.java", classes.get("Lcom/example/Worker;"), "comma escaped and restored");
        assertEquals("", classes.get("Lcom/example/Lock;"));
        assertEquals(4, methods.size(), "3 described methods + 1 referenced by a stack only");
        MethodLine run = methods.get(CsvLogWriter.methodId(M_RUN));
        assertEquals("run", run.name());
        assertEquals("Lcom/example/Worker;", run.declaringClass());
        assertEquals(3, run.lines());
        assertEquals(-1, methods.get(CsvLogWriter.methodId(M_WAIT)).lines());
        assertEquals("00007F0000001000", CsvLogWriter.methodId(M_RUN));

        List<EventLine> ev = readEvents(written.get(1), methods);
        for (int i = 1; i < ev.size(); i++) {
            assertTrue(ev.get(i - 1).ts() <= ev.get(i).ts(), "time order");
        }
        for (EventLine e : ev) {
            for (int i = 0; i < e.fields().size(); i++) {
                if (!(e.name().equals("ThreadStarted") && i == 1)) {
                    assertTrue(HASH.matcher(e.fields().get(i)).matches(), e.name() + " field " + e.fields().get(i));
                }
            }
        }
        String mainHash = String.format("%08X", 0x1000_0000);
        String w1Hash = String.format("%08X", 0x1000_0001);
        EventLine mainEnter = ev.stream().filter(e -> e.name().equals("MonitorContendedEnter")
                && e.fields().get(0).equals(mainHash)).findFirst().orElseThrow();
        assertEquals(List.of(mainHash, "AAAA0002", w1Hash), mainEnter.fields());
        assertEquals(0.0003, mainEnter.ts(), 1e-12);
        assertEquals("C", mainEnter.frames().get(0)[1], "location 12 in hex");

        EventLine victimEnter = ev.stream().filter(e -> e.name().equals("MonitorContendedEnter")
                && e.fields().get(0).equals(String.format("%08X", 0x1000_0006))).findFirst().orElseThrow();
        assertEquals("00000000", victimEnter.fields().get(2), "unknown owner");

        List<EventLine> waits = ev.stream().filter(e -> e.name().startsWith("ObjectWait")).toList();
        assertEquals(List.of("ObjectWait", "ObjectWaited", "ObjectWait", "ObjectWaited", "ObjectWaited"),
                waits.stream().map(EventLine::name).toList());
        assertEquals("-1", waits.get(0).frames().get(0)[1], "native frame");

        EventLine started = ev.stream().filter(e -> e.name().equals("ThreadStarted")
                && e.fields().get(0).equals(String.format("%08X", 0x1000_0002))).findFirst().orElseThrow();
        assertEquals(ODD_NAME, unescape(started.fields().get(1)));
        assertEquals(6, ev.stream().filter(e -> e.name().equals("ThreadStarted")).count(), "not for the late ring");
        assertEquals(1, ev.stream().filter(e -> e.name().equals("ThreadEnded")).count());
        assertTrue(ev.stream().anyMatch(e -> e.frames().stream().anyMatch(fr -> fr[0].equals(CsvLogWriter.methodId(M_GONE)))));
    }

    @Test
    void pathRule() {
        assertEquals(Path.of("/x/a.meta.csv"), CsvLogWriter.metaPath(Path.of("/x/a.csv")));
        assertEquals(Path.of("/x/a.events.csv"), CsvLogWriter.eventsPath(Path.of("/x/a")));
        assertEquals("a%2Cb%25c%0A", CsvLogWriter.escape("a,b%c\n"));
    }
}
