package dev.convoy.export;

import static dev.convoy.snapshot.SnapshotFormat.*;
import static dev.convoy.testing.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.RecordingBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import jdk.jfr.AnnotationElement;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.SettingDescriptor;
import jdk.jfr.ValueDescriptor;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JDK types of the JFR output declared as the JDK that was recorded declares them: compared,
 * through {@code jdk.jfr}'s own API, with the declarations of the JVM running the test (its
 * {@link FlightRecorder}'s event types), for a recording made on this JVM's version; and the
 * parts that depend on the recorded JVM's version ({@code java.lang.Thread.virtual} from JDK 21,
 * {@code jdk.ThreadSleep.time} in ns from JDK 21, {@code jdk.GarbageCollection.eventThread}).
 * The integration test {@code JfrAsTheJdkIT} compares the metadata element by element with the
 * JDK's own recordings on JDK 17 and 25.
 */
class JfrJdkTypesTest {

    static final List<String> JDK_EVENTS = List.of("jdk.JavaMonitorEnter", "jdk.JavaMonitorWait", "jdk.ThreadPark",
            "jdk.ThreadSleep", "jdk.ThreadStart", "jdk.ThreadEnd", "jdk.GarbageCollection", "jdk.ActiveSetting");

    @TempDir
    Path dir;

    /**
     * Every event type of the fixtures, recorded on a JVM whose java.vm.version is
     * {@code version} (none: null), with a virtual thread when {@code virtual}.
     */
    static Recording recorded(String version, boolean virtual) throws Exception {
        RecordingBuilder b = JfrEncodingTest.everythingBuilder(8, virtual);
        if (version != null) {
            b.info("jvm.version", version);
        }
        return SnapshotReader.read(b.toBytes());
    }

    Map<String, EventType> written(Recording r) throws Exception {
        Path f = dir.resolve("t.jfr");
        Output.write(r, Set.of(Output.JFR), f);
        Map<String, EventType> types = new TreeMap<>();
        try (RecordingFile rf = new RecordingFile(f)) {
            for (EventType t : rf.readEventTypes()) {
                types.put(t.getName(), t);
            }
        }
        return types;
    }

    static String annotations(List<AnnotationElement> as) {
        List<String> out = new ArrayList<>();
        for (AnnotationElement a : as) {
            StringBuilder sb = new StringBuilder("@").append(a.getTypeName());
            for (ValueDescriptor v : a.getValueDescriptors()) {
                Object value = a.getValue(v.getName());
                sb.append(' ').append(v.getName()).append('=')
                        .append(value instanceof Object[] arr ? List.of(arr).toString() : String.valueOf(value));
            }
            out.add(sb.toString());
        }
        return String.join(" ", out);
    }

    /** A field as text: name, type, array, annotations; the fields of a struct or constant type below it. */
    static void describe(ValueDescriptor v, String indent, List<String> out, Set<String> seen) {
        out.add(indent + v.getName() + " " + v.getTypeName() + (v.isArray() ? "[]" : "") + " "
                + annotations(v.getAnnotationElements()) + " content=" + v.getContentType());
        if (seen.add(v.getTypeName())) {
            for (ValueDescriptor f : v.getFields()) {
                describe(f, indent + "  ", out, seen);
            }
        }
    }

    static List<String> fields(List<ValueDescriptor> fields) {
        List<String> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (ValueDescriptor f : fields) {
            describe(f, "", out, seen);
        }
        return out;
    }

    /**
     * The settings: name, control, annotations. Not the default value: the JDK's parser reads a
     * file's setting back with its name as its default value (on the JDK's own files too); the
     * integration test compares the values in the metadata itself.
     */
    static List<String> settings(EventType t) {
        List<String> out = new ArrayList<>();
        for (SettingDescriptor s : t.getSettingDescriptors()) {
            out.add(s.getName() + " " + s.getTypeName() + " " + annotations(s.getAnnotationElements()));
        }
        return out;
    }

    @Test
    void theJdkTypesAsThisJvmDeclaresThem() throws Exception {
        Map<String, EventType> convoy = written(recorded(System.getProperty("java.vm.version"),
                Runtime.version().feature() >= 21));
        Map<String, EventType> jvm = new TreeMap<>();
        for (EventType t : FlightRecorder.getFlightRecorder().getEventTypes()) {
            jvm.put(t.getName(), t);
        }
        for (String name : JDK_EVENTS) {
            EventType ours = convoy.get(name);
            EventType theirs = jvm.get(name);
            assertNotNull(ours, name + " written");
            assertNotNull(theirs, name + " declared by this JVM");
            assertEquals(annotations(theirs.getAnnotationElements()), annotations(ours.getAnnotationElements()), name);
            assertEquals(settings(theirs), settings(ours), name + ": settings");
            List<ValueDescriptor> mine = ours.getFields();
            int n = theirs.getFields().size();
            assertTrue(mine.size() >= n, name + ": the JDK's fields first");
            assertEquals(String.join("\n", fields(theirs.getFields())), String.join("\n", fields(mine.subList(0, n))),
                    name + ": the JDK's fields, in its order, with its annotations and content types");
            for (ValueDescriptor extra : mine.subList(n, mine.size())) {
                assertNotNull(extra.getLabel(), name + "." + extra.getName() + " has a label");
                assertTrue(extra.getDescription() != null && extra.getDescription().startsWith("Convoy: "),
                        name + "." + extra.getName() + " says it is Convoy's");
            }
        }
        for (EventType t : convoy.values()) {
            if (t.getName().startsWith("dev.convoy.")) {
                assertNotNull(t.getLabel(), t.getName());
                assertNotNull(t.getDescription(), t.getName());
                assertEquals("Convoy", t.getCategoryNames().get(0), t.getName());
                for (ValueDescriptor f : t.getFields()) {
                    assertNotNull(f.getLabel(), t.getName() + "." + f.getName());
                }
            }
        }
    }

    @Test
    void contentTypesAsTheJdksMakeTheToolsFormatThem() throws Exception {
        EventType enter = written(recorded("17.0.15+6", false)).get("jdk.JavaMonitorEnter");
        assertEquals("jdk.jfr.Timestamp", enter.getField("startTime").getContentType());
        assertEquals("jdk.jfr.Timespan", enter.getField("duration").getContentType());
        assertNotNull(enter.getField("address").getAnnotation(jdk.jfr.MemoryAddress.class), "hex in jfr print, JMC's address");
        assertNotNull(enter.getField("address").getAnnotation(jdk.jfr.Unsigned.class));
        assertEquals(List.of("Java Application"), enter.getCategoryNames());
    }

    /**
     * By the recorded JVM's version (INFO {@code jvm.version}), else 17; a recording with a
     * virtual thread is of JDK 21 or later whatever it says.
     */
    @Test
    void whatDependsOnTheRecordedJvm() throws Exception {
        record Case(String version, boolean virtual, boolean later) { }
        for (Case c : List.of(new Case("17.0.15+6-Debian-1deb12u1", false, false), new Case("25+36-LTS", false, true),
                new Case("21.0.2+13", true, true), new Case(null, false, false), new Case(null, true, true))) {
            Recording r = recorded(c.version(), c.virtual());
            Map<String, EventType> types = written(r);
            ValueDescriptor thread = types.get("jdk.JavaMonitorEnter").getField("eventThread");
            assertEquals(c.later(), thread.getFields().stream().anyMatch(f -> f.getName().equals("virtual")),
                    c + ": java.lang.Thread.virtual");
            assertEquals(c.later() ? "NANOSECONDS" : "MILLISECONDS",
                    types.get("jdk.ThreadSleep").getField("time").getAnnotation(jdk.jfr.Timespan.class).value());
            assertEquals(c.later(), types.get("jdk.GarbageCollection").getField("eventThread") != null, c.toString());
            assertEquals(!c.later(), types.get("jdk.ActiveSetting").getField("eventThread") != null, c.toString());
            Path f = dir.resolve("v.jfr");
            Output.write(r, Set.of(Output.JFR), f);
            RecordedEvent sleep = RecordingFile.readAllEvents(f).stream()
                    .filter(e -> e.getEventType().getName().equals("jdk.ThreadSleep")
                            && e.getThread().getJavaThreadId() == 60).findFirst().orElseThrow();
            assertEquals(c.later() ? 5_000_000 : 5, sleep.getLong("time"), "the 5 ms asked for");
        }
    }

    @Test
    void theSettingsSayWhatConvoyRecords() throws Exception {
        Recording r = recorded("25+36-LTS", true);
        Path f = dir.resolve("s.jfr");
        Output.write(r, Set.of(Output.JFR), f);
        Map<Long, String> names = new TreeMap<>();
        try (RecordingFile rf = new RecordingFile(f)) {
            for (EventType t : rf.readEventTypes()) {
                names.put(t.getId(), t.getName());
            }
        }
        Map<String, String> settings = new TreeMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(f)) {
            if (e.getEventType().getName().equals("jdk.ActiveSetting")) {
                settings.put(names.get(e.getLong("id")) + "#" + e.getString("name"), e.getString("value"));
            }
        }
        assertEquals("0 ns", settings.get("jdk.JavaMonitorEnter#threshold"));
        assertEquals("0 ns", settings.get("jdk.ThreadPark#threshold"));
        assertEquals("true", settings.get("jdk.JavaMonitorEnter#enabled"));
        assertEquals("true", settings.get("jdk.JavaMonitorEnter#stackTrace"));
        assertEquals("false", settings.get("jdk.ThreadStart#stackTrace"), "Convoy writes no stack for a start");
        assertEquals("true", settings.get("jdk.ThreadEnd#enabled"));
        assertNull(settings.get("jdk.ThreadEnd#threshold"), "no setting the type does not have");
        assertEquals("true", settings.get("dev.convoy.DataLoss#enabled"));
    }
}
