package dev.convoy.export;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link JsonSink}: numbers, microseconds, strings and structure, against the JDK and Jackson. */
class JsonSinkTest {
    interface Body {
        void write(JsonSink o) throws IOException;
    }

    /** What the body writes, through a buffer of {@code size} bytes (small sizes force flushes mid-value). */
    static String written(int size, Body body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JsonSink o = new JsonSink(out, size);
        body.write(o);
        o.flush();
        return out.toString(StandardCharsets.UTF_8);
    }

    static List<Long> numbers() {
        List<Long> v = new ArrayList<>(List.of(0L, 1L, 9L, 10L, 99L, 100L, 101L, 999L, 1000L, 123_456_789L,
                (long) Integer.MAX_VALUE - 1, (long) Integer.MAX_VALUE, Integer.MAX_VALUE + 1L,
                9_999_999_999L, 10_000_000_000L, Long.MAX_VALUE, -1L, -10L, (long) Integer.MIN_VALUE,
                Long.MIN_VALUE + 1, Long.MIN_VALUE));
        SplittableRandom rnd = new SplittableRandom(3);
        for (int i = 0; i < 2000; i++) {
            v.add(rnd.nextLong() >> rnd.nextInt(64));
        }
        return v;
    }

    @Test
    void numbersAsTheJdkWritesThem() throws IOException {
        for (int size : new int[] {64, 1 << 16}) {
            for (long v : numbers()) {
                assertEquals(Long.toString(v), written(size, o -> o.number(v)), "number " + v);
            }
        }
    }

    @Test
    void microsecondsWithAtMostThreeDecimalsAndNoTrailingZeros() throws IOException {
        assertEquals("0", written(64, o -> o.micros(0)));
        assertEquals("0.001", written(64, o -> o.micros(1)));
        assertEquals("0.05", written(64, o -> o.micros(50)));
        assertEquals("1.5", written(64, o -> o.micros(1500)));
        assertEquals("2", written(64, o -> o.micros(2000)));
        assertEquals("12345.678", written(64, o -> o.micros(12_345_678)));
        for (long v : numbers()) {
            long ns = v == Long.MIN_VALUE ? 0 : Math.abs(v);
            String expected = new java.math.BigDecimal(ns).movePointLeft(3).stripTrailingZeros().toPlainString();
            assertEquals(expected, written(64, o -> o.micros(ns)), "micros " + ns);
        }
    }

    @Test
    void stringsAsJacksonsGeneratorWritesThem() throws IOException {
        JsonFactory f = JsonFactory.builder().disable(JsonWriteFeature.ESCAPE_NON_ASCII)
                .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8).build();
        StringBuilder controls = new StringBuilder();
        for (char c = 0; c < 0x20; c++) {
            controls.append(c);
        }
        for (String s : List.of("", "plain", "quote \" backslash \\ slash /", controls.toString(),
                "caf\u00e9 \u65e5\u672c\u8a9e", "emoji \uD83D\uDE00\uD83D\uDC4D", "\u2028\u2029\u007f")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (JsonGenerator g = f.createGenerator(out)) {
                g.writeString(s);
            }
            String viaJackson = out.toString(StandardCharsets.UTF_8);
            assertEquals(viaJackson, written(64, o -> o.raw(JsonSink.quote(s))), "string " + s);
            assertEquals(s, new ObjectMapper().readValue(viaJackson, String.class));
        }
    }

    @Test
    void membersAndElementsGetTheirCommas() throws IOException {
        String json = written(64, o -> {
            o.ch('[');
            o.element().open().key(JsonSink.key("a")).number(1).key(JsonSink.key("b")).string("x").ch('}');
            o.element().open().ch('}');
            o.element().raw(JsonSink.ascii("{\"c\":")).bool(true).ch('}');
            o.ch(']');
        });
        assertEquals("[{\"a\":1,\"b\":\"x\"},{},{\"c\":true}]", json);
        new ObjectMapper().readTree(json);
    }

    @Test
    void fragmentsLargerThanTheBuffer() throws IOException {
        String big = "y".repeat(1000);
        assertEquals("x" + big + "z", written(64, o -> o.ch('x').raw(JsonSink.ascii(big)).ch('z')));
    }
}
