package dev.convoy.export.jfr;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The encodings of {@link JfrBuffer}, byte for byte and read back with {@link ChunkDecoder}'s own reader. */
class JfrBufferTest {

    static final long[] EDGES = {0, 1, 63, 64, 127, 128, 255, 256, 16_383, 16_384, 2_097_151, 2_097_152,
        Integer.MAX_VALUE, 1L << 31, 0xFFFF_FFFFL, 1L << 32, 1L << 35, (1L << 49) - 1, 1L << 49, (1L << 56) - 1,
        1L << 56, 1L << 62, Long.MAX_VALUE, -1, -2, -128, Integer.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1};

    static String hex(JfrBuffer b) {
        return HexFormat.of().formatHex(b.array(), 0, b.size());
    }

    static ChunkDecoder.Input input(JfrBuffer b) {
        return new ChunkDecoder.Input(Arrays.copyOf(b.array(), b.size()), 0, b.size());
    }

    @Test
    void leb128Bytes() {
        assertEquals("00", hex(new JfrBuffer(1).putVarLong(0)));
        assertEquals("7f", hex(new JfrBuffer(1).putVarLong(127)));
        assertEquals("8001", hex(new JfrBuffer(1).putVarLong(128)));
        assertEquals("ff7f", hex(new JfrBuffer(1).putVarLong(16_383)));
        assertEquals("808001", hex(new JfrBuffer(1).putVarLong(16_384)));
        assertEquals("8080808008", hex(new JfrBuffer(1).putVarLong(1L << 31)));
        // nine bytes: eight of seven bits, the ninth whole
        assertEquals("ffffffffffffffff7f", hex(new JfrBuffer(1).putVarLong(Long.MAX_VALUE)));
        assertEquals("ffffffffffffffffff", hex(new JfrBuffer(1).putVarLong(-1)));
        assertEquals("808080808080808080", hex(new JfrBuffer(1).putVarLong(Long.MIN_VALUE)));
        assertEquals("8080808080808080" + "01", hex(new JfrBuffer(1).putVarLong(1L << 56)));
    }

    @Test
    void leb128RoundTripAndSizes() throws Exception {
        JfrBuffer b = new JfrBuffer(1);
        for (long v : EDGES) {
            int before = b.size();
            b.putVarLong(v);
            assertEquals(JfrBuffer.varLongSize(v), b.size() - before, "size of " + v);
        }
        ChunkDecoder.Input in = input(b);
        for (long v : EDGES) {
            assertEquals(v, in.readVarLong());
        }
        assertEquals(b.size(), in.position());
    }

    @Test
    void intsAreTheirUnsigned32BitValue() throws Exception {
        assertEquals("ffffffff0f", hex(new JfrBuffer(1).putVarInt(-1)));
        assertEquals("8080808008", hex(new JfrBuffer(1).putVarInt(Integer.MIN_VALUE)));
        int[] ints = {0, 1, 127, 128, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, -129};
        JfrBuffer b = new JfrBuffer(1);
        for (int v : ints) {
            b.putVarInt(v);
        }
        ChunkDecoder.Input in = input(b);
        for (int v : ints) {
            assertEquals(v, in.readVarInt(), "as the JDK reads an int: the long cut to 32 bits");
        }
    }

    @Test
    void prefixWritesTheSameBytesBeforeAnIndex() {
        for (long v : EDGES) {
            JfrBuffer b = new JfrBuffer(4).skip(9);
            int start = b.prefixVarLong(9, v);
            assertEquals(hex(new JfrBuffer(1).putVarLong(v)),
                    HexFormat.of().formatHex(b.array(), start, 9), "prefix of " + v);
        }
        assertThrows(IllegalArgumentException.class, () -> new JfrBuffer(4).skip(2).prefixVarLong(2, 1L << 20));
    }

    @Test
    void recordSizesCountTheirOwnSizeField() {
        for (long n : new long[] {1, 125, 126, 127, 128, 16_380, 16_381, 16_382, 16_383, 16_384, 2_097_149, 2_097_150,
            2_097_151, 2_097_152}) {
            long s = ChunkWriter.sized(n);
            assertEquals(s - n, JfrBuffer.varLongSize(s), "a record of " + n + " bytes plus its size " + s);
        }
        assertEquals(127, ChunkWriter.sized(126));
        assertEquals(129, ChunkWriter.sized(127), "128 needs two bytes: 127 + 2");
    }

    @Test
    void strings() throws Exception {
        assertEquals("00", hex(new JfrBuffer(1).putString(null)));
        assertEquals("01", hex(new JfrBuffer(1).putString("")));
        assertEquals("0503616263", hex(new JfrBuffer(1).putString("abc")));
        assertEquals("0504636166e9", hex(new JfrBuffer(1).putString("caf\u00e9")), "ISO-8859-1 when every character fits");
        assertEquals("05020061", hex(new JfrBuffer(1).putString("\u0000a")), "NUL is a byte like any other");
        assertEquals("0205", hex(new JfrBuffer(1).putStringKey(5)));
        String[] all = {null, "", "a", "caf\u00e9", "nul\u0000in", "comma, \"quote\" \\ <tag> &amp; %25\n\r\t",
            "\u20ac uro", "\uD83D\uDE00 smile", "\u65e5\u672c", "x".repeat(70_000), "\u00ff".repeat(200),
            "\u0100".repeat(200)};
        JfrBuffer b = new JfrBuffer(1);
        for (String s : all) {
            b.putString(s);
        }
        ChunkDecoder.Input in = input(b);
        for (String s : all) {
            assertEquals(s, in.readString(-1));
        }
        assertEquals(b.size(), in.position());
        JfrBuffer euro = new JfrBuffer(1).putString("\u20ac");
        assertEquals(3, euro.array()[0], "UTF-8 when a character is above U+00FF");
        assertArrayEquals("\u20ac".getBytes(StandardCharsets.UTF_8), Arrays.copyOfRange(euro.array(), 2, euro.size()));
    }

    @Test
    void rawNumbersAreBigEndian() {
        assertEquals("0102", hex(new JfrBuffer(1).putRawShort(0x0102)));
        assertEquals("01020304", hex(new JfrBuffer(1).putRawInt(0x01020304)));
        assertEquals("0102030405060708", hex(new JfrBuffer(1).putRawLong(0x0102030405060708L)));
        assertEquals("ffffffffffffffff", hex(new JfrBuffer(1).putRawLong(-1)));
    }

    @Test
    void growsAndResetKeepsTheArray() throws Exception {
        JfrBuffer b = new JfrBuffer(1);
        for (int i = 0; i < 100_000; i++) {
            b.putVarLong(i * 31L);
        }
        ChunkDecoder.Input in = input(b);
        for (int i = 0; i < 100_000; i++) {
            assertEquals(i * 31L, in.readVarLong());
        }
        byte[] array = b.array();
        b.reset();
        assertEquals(0, b.size());
        b.putVarLong(5);
        assertSame(array, b.array());
    }

    @Test
    void blocksKeepEveryByteInOrder() throws Exception {
        ByteBlocks blocks = new ByteBlocks();
        java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
        java.util.Random rnd = new java.util.Random(7);
        for (int i = 0; i < 5_000; i++) {
            byte[] chunk = new byte[rnd.nextInt(i % 100 == 0 ? 300_000 : 40)];
            rnd.nextBytes(chunk);
            int off = chunk.length == 0 ? 0 : rnd.nextInt(chunk.length);
            blocks.append(chunk, off, chunk.length - off);
            expected.write(chunk, off, chunk.length - off);
        }
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        blocks.writeTo(got);
        assertEquals(expected.size(), blocks.size());
        assertArrayEquals(expected.toByteArray(), got.toByteArray());
    }
}
