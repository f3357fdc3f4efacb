package dev.convoy.export.jfr;

import dev.convoy.export.jfr.Metadata.Type;

/**
 * The constants of one type: each entry its key (1, 2, ... in the order written) and its value,
 * kept as bytes until the checkpoint is written.
 */
final class ConstantPool {
    final Type type;
    final JfrBuffer entries = new JfrBuffer(1024);
    private final ValueWriter writer;
    private long lastKey;
    private int count;

    ConstantPool(Type type, Metadata md, ChunkWriter chunk) {
        this.type = type;
        this.writer = new ValueWriter(entries, md, this, chunk);
    }

    ValueWriter begin() {
        writer.begin(type); // first: it refuses a value begun while another is being written
        entries.putVarLong(lastKey + 1);
        return writer;
    }

    /** The value begun last is complete: its key. */
    long ended() {
        count++;
        return ++lastKey;
    }

    boolean busy() {
        return writer.busy();
    }

    int count() {
        return count;
    }
}
