package dev.convoy.export.jfr;

import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.export.jfr.Metadata.Type;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedObject;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;

/**
 * Chunks of a small test schema written by {@link ChunkWriter} and read back three ways: with
 * {@link ChunkDecoder} (strict: sizes, offsets, keys), the JDK's {@code jdk.jfr.consumer} and
 * JMC's parser. Edge values of every kind of field, strings that need care, null keys, empty and
 * very long arrays, events whose size field needs 1, 2 and 3 bytes, and the writer's refusals.
 */
class ChunkWriterTest {

    static final long START_NANOS = 1_700_000_000_123_456_789L;
    static final long START_TICKS = 1_000_000_000_000L;

    @TempDir
    Path dir;

    /** The test schema: java.lang.Thread, a stack of inline frames, one event type with a field of every kind. */
    static final class Schema {
        final Metadata md = new Metadata();
        final Type label = md.annotation("jdk.jfr.Label");
        final Type timestamp = md.annotation("jdk.jfr.Timestamp");
        final Type timespan = md.annotation("jdk.jfr.Timespan");
        final Type thread = md.constant("java.lang.Thread");
        final Type frame = md.struct("test.Frame");
        final Type stack = md.constant("test.Stack");
        final Type sample = md.event("test.Sample");
        final Type other = md.event("test.Other");

        Schema() {
            for (Type a : List.of(label, timestamp, timespan)) {
                a.field("value", md.stringType);
            }
            thread.field("osName", md.stringType);
            thread.field("osThreadId", md.longType);
            thread.field("javaName", md.stringType);
            thread.field("javaThreadId", md.longType);
            frame.field("line", md.intType);
            frame.field("name", md.stringType);
            stack.field("truncated", md.booleanType);
            stack.arrayField("frames", frame);
            for (Type e : List.of(sample, other)) {
                e.annotate(label, e == sample ? "Sample \u00e9v\u00e9nement" : "Other");
                e.field("startTime", md.longType).annotate(label, "Start Time").annotate(timestamp, "TICKS");
                e.field("duration", md.longType).annotate(label, "Duration").annotate(timespan, "TICKS");
                e.field("eventThread", thread).annotate(label, "Event Thread");
            }
            other.field("pad", md.stringType);
            sample.field("count", md.longType);
            sample.field("small", md.intType);
            sample.field("flag", md.booleanType);
            sample.field("text", md.stringType).annotate(label, "Text, \"quoted\" <&>");
            sample.field("pooled", md.stringType);
            sample.field("stack", stack);
        }
    }

    static final String[] TEXTS = {null, "", "plain", "comma, \"quote\" \\ <tag> &amp; %25\n\r\t", "caf\u00e9 \u0000",
        "\u20ac \u65e5\u672c \uD83D\uDE00", "x".repeat(20_000)};
    static final long[] LONGS = JfrBufferTest.EDGES;
    static final int[] INTS = {0, 1, -1, 127, 128, Integer.MIN_VALUE, Integer.MAX_VALUE};

    record Expected(long ticks, long duration, long count, int small, boolean flag, String text, String pooled,
                    String threadName, int frames) {
    }

    byte[] write(Schema s, List<Expected> expected) throws Exception {
        ChunkWriter w = new ChunkWriter(s.md);
        long t1 = w.constant(s.thread).putString("main").putLong(1).putString("main").putLong(1).end();
        long t2 = w.constant(s.thread).putString(TEXTS[5]).putLong(2).putString(TEXTS[5]).putLong(22).end();
        long empty = w.constant(s.stack).putBoolean(false).putArray(s.frame, 0).end();
        ValueWriter deepWriter = w.constant(s.stack).putBoolean(true).putArray(s.frame, 5000);
        for (int i = 0; i < 5000; i++) {
            deepWriter.putInt(i - 1).putString(i % 2 == 0 ? "m" + i : TEXTS[i % TEXTS.length]);
        }
        long deep = deepWriter.end();
        assertEquals(List.of(1L, 2L, 1L, 2L), List.of(t1, t2, empty, deep), "keys count from 1 per type");
        int n = 0;
        for (long v : LONGS) {
            for (int i = 0; i < INTS.length; i++) {
                String text = TEXTS[n % TEXTS.length];
                String pooled = TEXTS[(n + 3) % TEXTS.length];
                long th = n % 3 == 0 ? 0 : n % 3 == 1 ? t1 : t2;
                long st = n % 3 == 0 ? 0 : n % 3 == 1 ? empty : deep;
                long ticks = START_TICKS + n * 1000L;
                w.event(s.sample).putLong(ticks).putLong(n).putKey(s.thread, th).putLong(v).putInt(INTS[i])
                        .putBoolean(n % 2 == 0).putString(text).putPooledString(pooled).putKey(s.stack, st).end();
                expected.add(new Expected(ticks, n, v, INTS[i], n % 2 == 0, text, pooled,
                        th == 0 ? null : th == t1 ? "main" : TEXTS[5], st == 0 ? -1 : st == empty ? 0 : 5000));
                n++;
            }
        }
        // events of every size around the one- and two-byte limits of the size field
        for (int len = 100; len < 140; len++) {
            w.event(s.other).putLong(START_TICKS).putLong(len).putKey(s.thread, t1).putString("p".repeat(len)).end();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        w.write(out, START_NANOS, 5_000_000, START_TICKS, 1_000_000_000);
        assertEquals(n + 40, w.eventCount());
        return out.toByteArray();
    }

    @Test
    void everyKindOfFieldReadsBackThreeWays() throws Exception {
        Schema s = new Schema();
        List<Expected> expected = new ArrayList<>();
        byte[] bytes = write(s, expected);
        Path file = dir.resolve("t.jfr");
        Files.write(file, bytes);

        // strict decoding
        ChunkDecoder.Chunk c = ChunkDecoder.decode(bytes);
        assertEquals(new ChunkDecoder.Header(2, 0, bytes.length, c.header.constantPoolOffset(),
                c.header.metadataOffset(), START_NANOS, 5_000_000, START_TICKS, 1_000_000_000, 0, 1), c.header);
        assertEquals(expected.size() + 40, c.events.size());
        for (Map.Entry<Long, Map<Long, Object>> p : c.pools.entrySet()) {
            assertEquals(p.getValue().size(), c.poolEntries.get(p.getKey()), "each constant once: " + c.types.get(p.getKey()).name());
        }
        assertEquals(5, c.pools.get(s.md.stringType.id()).size(), "the distinct non-empty pooled strings");
        for (int i = 0; i < expected.size(); i++) {
            Expected x = expected.get(i);
            @SuppressWarnings("unchecked")
            Map<String, Object> f = (Map<String, Object>) c.resolve(c.events.get(i).fields());
            assertEquals(x.ticks, f.get("startTime"));
            assertEquals(x.count, f.get("count"));
            assertEquals((long) x.small, f.get("small"));
            assertEquals(x.flag, f.get("flag"));
            assertEquals(x.text, f.get("text"));
            assertEquals(x.pooled, f.get("pooled"));
        }
        List<Long> sizes = c.records.stream().filter(r -> r.typeId() == s.other.id()).map(ChunkDecoder.Record::size).toList();
        assertTrue(sizes.contains(127L) && sizes.contains(129L) && !sizes.contains(128L),
                "a 127-byte event has a one-byte size, the next one is 129 bytes: " + sizes);
        assertTrue(c.records.stream().anyMatch(r -> r.size() > 16_384), "an event with a three-byte size");
        assertTrue(c.metadataText().contains("<field name=\"frames\" class=\"test.Frame\" dimension=\"1\">"),
                c.metadataText());
        assertTrue(c.metadataText().contains("<field name=\"stack\" class=\"test.Stack\" constantPool=\"true\">"));

        // the JDK's parser
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        assertEquals(expected.size() + 40, events.size());
        Instant start = Instant.ofEpochSecond(0, START_NANOS);
        for (int i = 0; i < expected.size(); i++) {
            Expected x = expected.get(i);
            RecordedEvent e = events.get(i);
            assertEquals("test.Sample", e.getEventType().getName());
            assertEquals("Sample \u00e9v\u00e9nement", e.getEventType().getLabel());
            assertEquals(start.plusNanos(x.ticks - START_TICKS), e.getStartTime());
            assertEquals(x.duration, e.getDuration().toNanos());
            assertEquals(x.count, e.getLong("count"));
            assertEquals(x.small, e.getInt("small"));
            assertEquals(x.flag, e.getBoolean("flag"));
            assertEquals(x.text, e.getString("text"));
            assertEquals(x.pooled, e.getString("pooled"));
            assertEquals(x.threadName, e.getThread() == null ? null : e.getThread().getJavaName());
            RecordedObject st = e.getValue("stack");
            if (x.frames < 0) {
                assertNull(st);
            } else {
                Object[] frames = st.getValue("frames");
                assertEquals(x.frames, frames.length);
                assertEquals(x.frames > 0, st.getBoolean("truncated"));
                if (x.frames > 0) {
                    assertEquals(-1, ((RecordedObject) frames[0]).getInt("line"));
                    assertEquals("m4998", ((RecordedObject) frames[4998]).getString("name"));
                    assertEquals(TEXTS[4999 % TEXTS.length], ((RecordedObject) frames[4999]).getString("name"));
                }
            }
        }
        assertEquals("Text, \"quoted\" <&>", events.get(0).getEventType().getField("text").getLabel());

        // JMC's parser
        IItemCollection items = JfrLoaderToolkit.loadEvents(file.toFile());
        long samples = 0;
        long others = 0;
        for (IItemIterable it : items) {
            samples += it.getType().getIdentifier().equals("test.Sample") ? it.getItemCount() : 0;
            others += it.getType().getIdentifier().equals("test.Other") ? it.getItemCount() : 0;
        }
        assertEquals(expected.size(), samples);
        assertEquals(40, others);
    }

    @Test
    void anEmptyChunkIsReadable() throws Exception {
        Schema s = new Schema();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new ChunkWriter(s.md).write(out, START_NANOS, 1, START_TICKS, 1_000_000_000);
        Path file = dir.resolve("empty.jfr");
        Files.write(file, out.toByteArray());
        ChunkDecoder.Chunk c = ChunkDecoder.decode(out.toByteArray());
        assertTrue(c.events.isEmpty() && c.pools.isEmpty());
        assertEquals(68, c.header.constantPoolOffset(), "the checkpoint right after the header");
        assertEquals(List.of(), RecordingFile.readAllEvents(file));
        assertFalse(JfrLoaderToolkit.loadEvents(file.toFile()).hasItems());
    }

    @Test
    void fieldsWrittenOutOfOrderOrMissingAreRefused() {
        Schema s = new Schema();
        ChunkWriter w = new ChunkWriter(s.md);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.event(s.sample).putInt(1));
        assertEquals("test.Sample.startTime is long, written as int", e.getMessage());

        Schema s2 = new Schema();
        ChunkWriter w2 = new ChunkWriter(s2.md);
        e = assertThrows(IllegalStateException.class, () -> w2.event(s2.other).putLong(1).putLong(2).end());
        assertEquals("test.Other ended without test.Other.eventThread", e.getMessage());

        Schema s3 = new Schema();
        ChunkWriter w3 = new ChunkWriter(s3.md);
        e = assertThrows(IllegalStateException.class,
                () -> w3.event(s3.other).putLong(1).putLong(2).putKey(s3.thread, 0).putString("p").putLong(4));
        assertEquals("test.Other has 4 fields; long is one too many", e.getMessage());

        Schema s4 = new Schema();
        ChunkWriter w4 = new ChunkWriter(s4.md);
        e = assertThrows(IllegalStateException.class,
                () -> w4.event(s4.other).putLong(1).putLong(2).putKey(s4.stack, 0));
        assertEquals("test.Other.eventThread is java.lang.Thread, written as a key of test.Stack", e.getMessage());

        Schema s5 = new Schema();
        ChunkWriter w5 = new ChunkWriter(s5.md);
        ValueWriter st = w5.constant(s5.stack).putBoolean(false).putArray(s5.frame, 2).putInt(1).putString("a").putInt(2);
        e = assertThrows(IllegalStateException.class, st::end);
        assertEquals("test.Frame ended without test.Frame.name", e.getMessage(), "an array's element is checked too");
        e = assertThrows(IllegalStateException.class, () -> w5.write(new ByteArrayOutputStream(), 0, 1, 0, 1));
        assertEquals("a constant of test.Stack is begun and not ended", e.getMessage());

        Schema s6 = new Schema();
        ChunkWriter w6 = new ChunkWriter(s6.md);
        w6.event(s6.other).putLong(1);
        e = assertThrows(IllegalStateException.class, () -> w6.event(s6.other));
        assertEquals("a value of test.Other is still being written; test.Other cannot begin", e.getMessage());
    }

    @Test
    void typesAreCheckedAndFrozen() {
        Schema s = new Schema();
        assertThrows(IllegalArgumentException.class, () -> s.md.constant("java.lang.Thread"), "declared twice");
        assertThrows(IllegalArgumentException.class, () -> s.thread.field("osName", s.md.stringType), "field twice");
        assertThrows(IllegalArgumentException.class, () -> s.thread.field("x", s.sample), "an event is no field type");
        assertThrows(IllegalStateException.class, () -> s.md.intType.field("x", s.md.intType), "primitives have no fields");
        assertThrows(IllegalArgumentException.class, () -> s.sample.annotate(s.thread, "x"), "not an annotation");
        assertThrows(IllegalArgumentException.class, () -> s.sample.annotate(s.label, null), "Label needs a value");
        ChunkWriter w = new ChunkWriter(s.md);
        assertThrows(IllegalArgumentException.class, () -> w.event(s.thread));
        assertThrows(IllegalArgumentException.class, () -> w.constant(s.sample));
        assertThrows(IllegalArgumentException.class, () -> w.constant(s.frame), "frames are inline, not constants");
        assertThrows(IllegalStateException.class, () -> s.sample.field("late", s.md.longType));
        assertThrows(IllegalStateException.class, () -> s.md.event("test.Late"));
    }

    @Test
    void typeIdsLeaveTheMetadataAndCheckpointIdsFree() {
        Schema s = new Schema();
        for (Type t : s.md.types()) {
            assertTrue(t.id() > 1, t + " " + t.id());
        }
    }
}
