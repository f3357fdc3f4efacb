package dev.convoy.export;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Compact UTF-8 JSON as bytes, for a writer whose events are mostly the same fragments over
 * and over (the Chrome trace: millions of events made of constant keys, a few cached names
 * and stacks, and numbers). The caller pre-encodes its fragments once ({@link #ascii},
 * {@link #quote}) and writes commas and brackets itself; the sink only buffers and formats
 * numbers. Strings are escaped by Jackson's {@link JsonStringEncoder}, the escaping of its
 * generator: quote, backslash and control characters escaped, other characters raw, a
 * surrogate pair as one 4-byte sequence (callers pass {@link Text#wellFormed} strings).
 *
 * <p>Not thread-safe; {@link #flush} before handing the stream to anyone else.
 */
final class JsonSink {
    private final OutputStream out;
    private final byte[] buf;
    private int n;
    private boolean first = true;
    private boolean firstKey;

    JsonSink(OutputStream out, int bufferBytes) {
        this.out = out;
        this.buf = new byte[Math.max(64, bufferBytes)];
    }

    /** A constant ASCII fragment, written as is. */
    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** A string value: quoted, escaped, UTF-8. */
    static byte[] quote(String s) {
        byte[] body = JsonStringEncoder.getInstance().quoteAsUTF8(s);
        byte[] q = new byte[body.length + 2];
        q[0] = '"';
        System.arraycopy(body, 0, q, 1, body.length);
        q[q.length - 1] = '"';
        return q;
    }

    /** Writes a fragment. */
    JsonSink raw(byte[] b) throws IOException {
        if (b.length > buf.length - n) {
            flush();
            if (b.length > buf.length) {
                out.write(b);
                return this;
            }
        }
        System.arraycopy(b, 0, buf, n, b.length);
        n += b.length;
        return this;
    }

    /** Writes one ASCII character. */
    JsonSink ch(char c) throws IOException {
        if (n == buf.length) {
            flush();
        }
        buf[n++] = (byte) c;
        return this;
    }

    /** Writes a string value (escaped now: for strings written once). */
    JsonSink string(String s) throws IOException {
        return raw(quote(s));
    }

    /** Writes {@code true} or {@code false}. */
    JsonSink bool(boolean b) throws IOException {
        return raw(b ? TRUE : FALSE);
    }

    private static final byte[] TRUE = ascii("true");
    private static final byte[] FALSE = ascii("false");

    /** Writes a decimal integer. */
    JsonSink number(long v) throws IOException {
        if (buf.length - n < 20) {
            flush();
        }
        if (v < 0) {
            if (v == Long.MIN_VALUE) {
                return raw(ascii(Long.toString(v)));
            }
            buf[n++] = '-';
            v = -v;
        }
        if (v <= Integer.MAX_VALUE) { // the usual case: int arithmetic, two digits a step
            int x = (int) v;
            int digits = 1;
            while (digits < 10 && x >= INT_POWERS[digits]) {
                digits++;
            }
            int at = n + digits;
            while (x >= 100) {
                int q = x / 100;
                int r = x - q * 100;
                x = q;
                buf[--at] = ONES[r];
                buf[--at] = TENS[r];
            }
            if (x >= 10) {
                buf[--at] = ONES[x];
                buf[--at] = TENS[x];
            } else {
                buf[--at] = (byte) ('0' + x);
            }
            n += digits;
            return this;
        }
        int digits = 1;
        for (long p = 10; digits < 19 && v >= p; p *= 10) {
            digits++;
        }
        for (int at = n + digits - 1; at >= n; at--) {
            buf[at] = (byte) ('0' + v % 10);
            v /= 10;
        }
        n += digits;
        return this;
    }

    private static final int[] INT_POWERS = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000,
        100_000_000, 1_000_000_000};
    private static final byte[] TENS = new byte[100];
    private static final byte[] ONES = new byte[100];

    static {
        for (int i = 0; i < 100; i++) {
            TENS[i] = (byte) ('0' + i / 10);
            ONES[i] = (byte) ('0' + i % 10);
        }
    }

    /**
     * Writes nanoseconds (&ge; 0) as microseconds with at most 3 decimals and no trailing zeros
     * ({@code 1500} as {@code 1.5}, {@code 2000} as {@code 2}).
     */
    JsonSink micros(long ns) throws IOException {
        number(ns / 1000);
        int frac = (int) (ns % 1000);
        if (frac != 0) {
            if (buf.length - n < 4) {
                flush();
            }
            buf[n++] = '.';
            buf[n++] = (byte) ('0' + frac / 100);
            frac %= 100;
            if (frac != 0) {
                buf[n++] = (byte) ('0' + frac / 10);
                frac %= 10;
                if (frac != 0) {
                    buf[n++] = (byte) ('0' + frac);
                }
            }
        }
        return this;
    }

    /** Starts an element of an array: a comma unless it is the array's first. */
    JsonSink element() throws IOException {
        if (!first) {
            ch(',');
        }
        first = false;
        return this;
    }

    /** The next {@link #element} is the first of a new array. */
    void firstElement() {
        first = true;
    }

    /** Opens an object whose members are written with {@link #key}. */
    JsonSink open() throws IOException {
        firstKey = true;
        return ch('{');
    }

    /** Writes a member's key ({@code "name":}, pre-encoded), after a comma unless it is the object's first. */
    JsonSink key(byte[] keyColon) throws IOException {
        if (!firstKey) {
            ch(',');
        }
        firstKey = false;
        return raw(keyColon);
    }

    /** A pre-encoded member key: {@code "name":}. */
    static byte[] key(String name) {
        byte[] q = quote(name);
        byte[] k = java.util.Arrays.copyOf(q, q.length + 1);
        k[q.length] = ':';
        return k;
    }

    /** Writes the buffer to the stream (the stream is not flushed). */
    void flush() throws IOException {
        if (n > 0) {
            out.write(buf, 0, n);
            n = 0;
        }
    }
}
