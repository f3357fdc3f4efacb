package dev.convoy.export.jfr;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Bytes appended into blocks of at most 1 MiB that are never copied: the events of a chunk,
 * kept until its header (which states their size) can be written. Holds the bytes plus at most
 * one partly filled block.
 */
final class ByteBlocks {
    static final int FIRST_BLOCK = 64 * 1024;
    static final int MAX_BLOCK = 1024 * 1024;

    private final List<byte[]> blocks = new ArrayList<>();
    private byte[] last;
    private int used;
    private long size;

    /** Bytes appended. */
    long size() {
        return size;
    }

    void append(byte[] src, int off, int len) {
        while (len > 0) {
            if (last == null || used == last.length) {
                last = new byte[last == null ? FIRST_BLOCK : Math.min(MAX_BLOCK, last.length * 2)];
                blocks.add(last);
                used = 0;
            }
            int k = Math.min(len, last.length - used);
            System.arraycopy(src, off, last, used, k);
            used += k;
            off += k;
            len -= k;
            size += k;
        }
    }

    void writeTo(OutputStream out) throws IOException {
        for (byte[] block : blocks) {
            out.write(block, 0, block == last ? used : block.length);
        }
    }
}
