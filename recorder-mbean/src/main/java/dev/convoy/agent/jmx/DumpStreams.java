package dev.convoy.agent.jmx;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Dumps opened as streams for JMX clients that do not share the server's file system
 * ({@code openStream}/{@code readStream}/{@code closeStream}, the shape of JFR's
 * FlightRecorderMXBean). Each stream holds the complete bytes of one dump file; chunks
 * read in order concatenate to exactly those bytes. At most {@link #MAX_OPEN} streams are
 * open at once; opening one more closes the oldest.
 */
final class DumpStreams {

    static final int CHUNK_BYTES = 256 * 1024;
    static final int MAX_OPEN = 16;

    private static final class Stream {
        final java.nio.ByteBuffer content; // off the heap (OffHeapOutput)

        Stream(java.nio.ByteBuffer content) {
            this.content = content.duplicate().position(0);
        }
    }

    private final Map<Long, Stream> open = new LinkedHashMap<>();
    private long nextId = 1;

    synchronized long open(java.nio.ByteBuffer content) {
        if (open.size() >= MAX_OPEN) {
            open.remove(open.keySet().iterator().next());
        }
        long id = nextId++;
        open.put(id, new Stream(content));
        return id;
    }

    /** The next chunk, or null once everything was read. */
    synchronized byte[] read(long id) {
        Stream s = get(id);
        if (!s.content.hasRemaining()) {
            return null;
        }
        byte[] chunk = new byte[Math.min(s.content.remaining(), CHUNK_BYTES)];
        s.content.get(chunk);
        return chunk;
    }

    synchronized void close(long id) {
        get(id);
        open.remove(id);
    }

    private Stream get(long id) {
        Stream s = open.get(id);
        if (s == null) {
            throw new IllegalArgumentException("no open stream with id " + id
                    + " (closed, never opened, or evicted after " + MAX_OPEN + " newer streams)");
        }
        return s;
    }
}
