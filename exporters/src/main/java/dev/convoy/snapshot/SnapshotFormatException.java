package dev.convoy.snapshot;

import java.io.IOException;

/**
 * A snapshot that cannot be read: truncated, corrupt (CRC mismatch, bad magic, a length
 * past the end) or of an unknown major version. The message starts with
 * {@code "offset N: "}, N being the byte offset where the problem was found.
 */
public class SnapshotFormatException extends IOException {
    private final long offset;

    /**
     * @param offset byte offset in the file where the problem was found
     * @param reason what is wrong, without the offset
     */
    public SnapshotFormatException(long offset, String reason) {
        super("offset " + offset + ": " + reason);
        this.offset = offset;
    }

    /** Byte offset in the file where the problem was found. */
    public long offset() {
        return offset;
    }
}
