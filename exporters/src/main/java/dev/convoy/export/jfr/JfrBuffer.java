package dev.convoy.export.jfr;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte array written in the encodings of a JFR chunk with compressed integers
 * ({@code docs/formats.md}, "JFR"), reused: {@link #reset} keeps the array.
 *
 * <ul>
 * <li>Integers (short, char, int, long) are LEB128: 7 bits a byte, low bits first, the high bit
 *     set when more bytes follow; the ninth byte, if reached, carries 8 bits. A long takes 1 to 9
 *     bytes; an int is written as its unsigned 32-bit value (1 to 5 bytes), as the JDK writes it.</li>
 * <li>A boolean is one byte, 0 or 1.</li>
 * <li>A string is a tag byte and what follows it: 0 null, 1 the empty string, 2 a key into the
 *     {@code java.lang.String} constant pool, 3 a length and UTF-8 bytes, 5 a length and
 *     ISO-8859-1 bytes (used whenever every character fits).</li>
 * <li>The chunk header's numbers are big-endian of fixed size ({@link #putRawLong} and kin).</li>
 * </ul>
 */
final class JfrBuffer {
    static final int STRING_NULL = 0;
    static final int STRING_EMPTY = 1;
    static final int STRING_POOL = 2;
    static final int STRING_UTF8 = 3;
    static final int STRING_LATIN1 = 5;

    private byte[] b;
    private int n;

    public JfrBuffer(int capacity) {
        b = new byte[Math.max(16, capacity)];
    }

    /** Bytes written since the last {@link #reset}. */
    public int size() {
        return n;
    }

    /** The array holding the bytes, valid up to {@link #size}, until the next write. */
    public byte[] array() {
        return b;
    }

    /** Forgets the bytes; the array is kept. */
    public void reset() {
        n = 0;
    }

    private void ensure(int more) {
        if (more > b.length - n) {
            long want = Math.max((long) b.length * 2, (long) n + more);
            if (want > Integer.MAX_VALUE - 8) {
                if ((long) n + more > Integer.MAX_VALUE - 8) {
                    throw new IllegalStateException("a JFR buffer over 2 GiB");
                }
                want = Integer.MAX_VALUE - 8;
            }
            b = Arrays.copyOf(b, (int) want);
        }
    }

    public JfrBuffer putByte(int v) {
        ensure(1);
        b[n++] = (byte) v;
        return this;
    }

    public JfrBuffer putBoolean(boolean v) {
        return putByte(v ? 1 : 0);
    }

    /** A long as LEB128, 1 to 9 bytes. */
    public JfrBuffer putVarLong(long v) {
        ensure(9);
        byte[] a = b;
        int i = n;
        for (int k = 0; k < 8; k++) {
            if ((v & ~0x7FL) == 0) {
                a[i++] = (byte) v;
                n = i;
                return this;
            }
            a[i++] = (byte) (v | 0x80);
            v >>>= 7;
        }
        a[i++] = (byte) v; // the ninth byte: the last 8 bits
        n = i;
        return this;
    }

    /** An int as the LEB128 of its unsigned 32-bit value, 1 to 5 bytes. */
    public JfrBuffer putVarInt(int v) {
        return putVarLong(v & 0xFFFF_FFFFL);
    }

    /** The number of bytes {@link #putVarLong} writes for v. */
    public static int varLongSize(long v) {
        for (int k = 1; k < 9; k++) {
            if ((v & ~0x7FL) == 0) {
                return k;
            }
            v >>>= 7;
        }
        return 9;
    }

    /** A string, inline: null, empty, ISO-8859-1 when every character fits, else UTF-8. */
    public JfrBuffer putString(String s) {
        if (s == null) {
            return putByte(STRING_NULL);
        }
        int len = s.length();
        if (len == 0) {
            return putByte(STRING_EMPTY);
        }
        if (latin1(s)) {
            ensure(1 + 5 + len);
            b[n++] = STRING_LATIN1;
            putVarInt(len);
            for (int i = 0; i < len; i++) {
                b[n++] = (byte) s.charAt(i);
            }
            return this;
        }
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        putByte(STRING_UTF8);
        putVarInt(utf8.length);
        return put(utf8, 0, utf8.length);
    }

    private static boolean latin1(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) > 0xFF) {
                return false;
            }
        }
        return true;
    }

    /** A reference to entry {@code key} of the {@code java.lang.String} constant pool. */
    public JfrBuffer putStringKey(long key) {
        putByte(STRING_POOL);
        return putVarLong(key);
    }

    /** Leaves {@code count} bytes unwritten (to be filled by {@link #prefixVarLong}). */
    public JfrBuffer skip(int count) {
        ensure(count);
        n += count;
        return this;
    }

    /**
     * Writes v as LEB128 into the bytes just before index {@code end} (left free by
     * {@link #skip}); returns the index of its first byte.
     */
    public int prefixVarLong(int end, long v) {
        int len = varLongSize(v);
        int start = end - len;
        if (start < 0) {
            throw new IllegalArgumentException(len + " bytes do not fit before index " + end);
        }
        int i = start;
        for (int k = 1; k < len; k++) {
            b[i++] = (byte) (v | 0x80);
            v >>>= 7;
        }
        b[i] = (byte) v;
        return start;
    }

    public JfrBuffer putRawShort(int v) {
        ensure(2);
        b[n++] = (byte) (v >>> 8);
        b[n++] = (byte) v;
        return this;
    }

    public JfrBuffer putRawInt(int v) {
        ensure(4);
        for (int s = 24; s >= 0; s -= 8) {
            b[n++] = (byte) (v >>> s);
        }
        return this;
    }

    public JfrBuffer putRawLong(long v) {
        ensure(8);
        for (int s = 56; s >= 0; s -= 8) {
            b[n++] = (byte) (v >>> s);
        }
        return this;
    }

    public JfrBuffer put(byte[] src, int off, int len) {
        ensure(len);
        System.arraycopy(src, off, b, n, len);
        n += len;
        return this;
    }

    public JfrBuffer put(JfrBuffer other) {
        return put(other.b, 0, other.n);
    }

    public void writeTo(OutputStream out) throws IOException {
        out.write(b, 0, n);
    }
}
