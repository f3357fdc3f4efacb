package dev.convoy.snapshot;

import java.io.ByteArrayOutputStream;

/** Modified UTF-8 as JVMTI returns it (and as DataInput uses it, without the length). */
final class ModifiedUtf8 {
    private ModifiedUtf8() {
    }

    /** Decodes {@code len} bytes at {@code pos}; throws with the offset of a malformed byte. */
    static String decode(byte[] b, int pos, int len, long fileOffset) throws SnapshotFormatException {
        StringBuilder sb = new StringBuilder(len);
        int i = pos;
        int end = pos + len;
        while (i < end) {
            int c = b[i] & 0xFF;
            if (c < 0x80) {
                sb.append((char) c);
                i++;
            } else if ((c & 0xE0) == 0xC0) {
                if (i + 1 >= end || (b[i + 1] & 0xC0) != 0x80) {
                    throw bad(fileOffset + (i - pos));
                }
                sb.append((char) (((c & 0x1F) << 6) | (b[i + 1] & 0x3F)));
                i += 2;
            } else if ((c & 0xF0) == 0xE0) {
                if (i + 2 >= end || (b[i + 1] & 0xC0) != 0x80 || (b[i + 2] & 0xC0) != 0x80) {
                    throw bad(fileOffset + (i - pos));
                }
                sb.append((char) (((c & 0x0F) << 12) | ((b[i + 1] & 0x3F) << 6) | (b[i + 2] & 0x3F)));
                i += 3;
            } else {
                throw bad(fileOffset + (i - pos));
            }
        }
        return sb.toString();
    }

    private static SnapshotFormatException bad(long off) {
        return new SnapshotFormatException(off, "malformed modified UTF-8 in string");
    }

    /** Encodes: U+0000 as C0 80, each UTF-16 char (surrogates too) separately. */
    static byte[] encode(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != 0 && c < 0x80) {
                out.write(c);
            } else if (c < 0x800) {
                out.write(0xC0 | (c >> 6));
                out.write(0x80 | (c & 0x3F));
            } else {
                out.write(0xE0 | (c >> 12));
                out.write(0x80 | ((c >> 6) & 0x3F));
                out.write(0x80 | (c & 0x3F));
            }
        }
        return out.toByteArray();
    }
}
