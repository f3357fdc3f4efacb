package dev.convoy.export.jfr;

import dev.convoy.export.jfr.Metadata.Type;
import java.io.IOException;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.Map;

/**
 * One JFR chunk (file format 2.0, compressed integers), written to a stream that need not be
 * seekable: events are encoded as they come into blocks of bytes ({@link ByteBlocks}),
 * constants into one buffer per constant type; {@link #write} then writes the 68-byte header,
 * the events, one checkpoint event holding every constant pool, and the metadata event.
 *
 * <p>Every event and checkpoint is its size (LEB128, counting itself) followed by its type id
 * (0 metadata, 1 checkpoint, else the event type's). The header: magic {@code FLR\0}, major 2,
 * minor 0, then big-endian 64-bit chunk size, checkpoint offset, metadata offset, start (ns
 * since the epoch), duration (ns), start ticks and ticks per second, then a file state byte 0
 * (complete), a pad byte and a 16-bit feature word 1 (compressed integers). The checkpoint:
 * start ticks, duration, offset to the previous checkpoint (0: none), checkpoint type 0, the
 * number of pools, then per pool its type id, its number of entries (never 0: the JDK's parser
 * rejects an empty pool) and the entries. Events, constants and the metadata are encoded by
 * {@link ValueWriter} and {@link Metadata}; the bytes of all events are kept until the end (as
 * many as the events take in the file), nothing is kept per event besides them.
 */
final class ChunkWriter {
    static final int HEADER_SIZE = 68;
    static final long METADATA_ID = 0;
    static final long CHECKPOINT_ID = 1;
    /** Bytes left before an event for its size: the most a LEB128 long takes. */
    private static final int SIZE_ROOM = 9;

    private final Metadata md;
    private final JfrBuffer event = new JfrBuffer(512);
    private final ValueWriter eventWriter;
    private final ByteBlocks events = new ByteBlocks();
    private final ConstantPool[] pools;
    private final Map<String, Long> strings = new HashMap<>();
    private final JfrBuffer stringEntries = new JfrBuffer(256);
    private long eventCount;

    /** A chunk of the types of {@code md}, which is frozen. */
    public ChunkWriter(Metadata md) {
        md.freeze();
        this.md = md;
        this.eventWriter = new ValueWriter(event, md, null, this);
        this.pools = new ConstantPool[md.types().size()];
    }

    public Metadata metadata() {
        return md;
    }

    /** Begins an event of {@code type}: write its fields, then {@link ValueWriter#end()}. */
    public ValueWriter event(Type type) {
        if (type.kind != Metadata.Kind.EVENT) {
            throw new IllegalArgumentException(type.name + " is not an event type");
        }
        eventWriter.begin(type);
        event.reset();
        event.skip(SIZE_ROOM);
        event.putVarLong(type.id);
        return eventWriter;
    }

    /** The event begun last is complete: its size (in the room left before it), then its bytes, into the events. */
    long eventEnded() {
        int start = event.prefixVarLong(SIZE_ROOM, sized(event.size() - SIZE_ROOM));
        events.append(event.array(), start, event.size() - start);
        eventCount++;
        return 0;
    }

    /** The size of a record of {@code n} bytes after its size field: n plus the field's own length. */
    static long sized(long n) {
        int len = 1;
        while (JfrBuffer.varLongSize(n + len) > len) {
            len++;
        }
        return n + len;
    }

    /**
     * Begins a constant of {@code type}: write its fields, then {@link ValueWriter#end()},
     * which returns its key (1, 2, ... per type).
     */
    public ValueWriter constant(Type type) {
        if (!type.pooled()) {
            throw new IllegalArgumentException(type.name + " is not a constant type");
        }
        int i = (int) (type.id - md.types().get(0).id);
        ConstantPool p = pools[i];
        if (p == null) {
            p = pools[i] = new ConstantPool(type, md, this);
        }
        return p.begin();
    }

    /** The key of {@code s} in the {@code java.lang.String} pool, added when new. */
    long stringKey(String s) {
        Long key = strings.get(s);
        if (key == null) {
            key = (long) strings.size() + 1;
            strings.put(s, key);
            stringEntries.putVarLong(key);
            stringEntries.putString(s);
        }
        return key;
    }

    /** Events written so far. */
    public long eventCount() {
        return eventCount;
    }

    /** Bytes of the events written so far. */
    public long eventBytes() {
        return events.size();
    }

    /**
     * Writes the chunk: header, events, checkpoint, metadata. The stream is not closed.
     *
     * @param startNanos     the chunk's start, ns since the epoch
     * @param durationNanos  its duration
     * @param startTicks     the ticks at its start
     * @param ticksPerSecond ticks per second
     */
    public void write(OutputStream out, long startNanos, long durationNanos, long startTicks, long ticksPerSecond)
            throws IOException {
        if (eventWriter.busy()) {
            throw new IllegalStateException("an event is begun and not ended");
        }
        for (ConstantPool p : pools) {
            if (p != null && p.busy()) {
                throw new IllegalStateException("a constant of " + p.type.name + " is begun and not ended");
            }
        }
        JfrBuffer cp = new JfrBuffer(4096);
        cp.putVarLong(CHECKPOINT_ID).putVarLong(startTicks).putVarLong(0).putVarLong(0).putByte(0);
        int count = strings.isEmpty() ? 0 : 1;
        for (ConstantPool p : pools) {
            count += p != null && p.count() > 0 ? 1 : 0;
        }
        cp.putVarInt(count);
        if (!strings.isEmpty()) {
            cp.putVarLong(md.stringType.id).putVarInt(strings.size()).put(stringEntries);
        }
        for (ConstantPool p : pools) {
            if (p != null && p.count() > 0) {
                cp.putVarLong(p.type.id).putVarInt(p.count()).put(p.entries);
            }
        }
        JfrBuffer meta = new JfrBuffer(16 * 1024);
        meta.putVarLong(METADATA_ID).putVarLong(startTicks).putVarLong(0).putVarLong(0);
        md.write(meta);
        JfrBuffer cpSize = new JfrBuffer(16).putVarLong(sized(cp.size()));
        JfrBuffer metaSize = new JfrBuffer(16).putVarLong(sized(meta.size()));
        long cpOffset = HEADER_SIZE + events.size();
        long metaOffset = cpOffset + cpSize.size() + cp.size();
        long chunkSize = metaOffset + metaSize.size() + meta.size();
        JfrBuffer header = new JfrBuffer(HEADER_SIZE);
        header.putRawInt(0x464C5200) // FLR\0
                .putRawShort(2).putRawShort(0)
                .putRawLong(chunkSize).putRawLong(cpOffset).putRawLong(metaOffset)
                .putRawLong(startNanos).putRawLong(durationNanos).putRawLong(startTicks).putRawLong(ticksPerSecond)
                .putByte(0) // file state: complete
                .putByte(0)
                .putRawShort(1); // features: compressed integers
        header.writeTo(out);
        events.writeTo(out);
        cpSize.writeTo(out);
        cp.writeTo(out);
        metaSize.writeTo(out);
        meta.writeTo(out);
    }
}
