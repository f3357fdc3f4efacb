package dev.convoy.model;

import java.util.List;

/**
 * A method of SECTION_METHODS.
 *
 * @param methodId     jmethodID as u64
 * @param classId      declaring class id, 0 if its class was unloaded
 * @param name         e.g. "run", "&lt;init&gt;"
 * @param signature    JVM descriptor, e.g. "(J)V"
 * @param hasLineTable false when the format said lineCount = -1
 * @param lineTable    the line table (empty when {@code hasLineTable} is false)
 */
public record MethodInfo(long methodId, long classId, String name, String signature,
                         boolean hasLineTable, List<LineEntry> lineTable) {
    public MethodInfo {
        lineTable = List.copyOf(lineTable);
    }

    /** A method with a line table. */
    public static MethodInfo of(long methodId, long classId, String name, String signature,
                                LineEntry... lines) {
        return new MethodInfo(methodId, classId, name, signature, true, List.of(lines));
    }

    /**
     * The source line of a bytecode index: the entry with the greatest start location not
     * above it. Returns -1 for a native frame (location &lt; 0), no line table or no entry.
     */
    public int lineFor(long location) {
        if (location < 0) {
            return -1;
        }
        long bestStart = Long.MIN_VALUE;
        int line = -1;
        for (LineEntry e : lineTable) {
            if (e.startLocation() <= location && e.startLocation() >= bestStart) {
                bestStart = e.startLocation();
                line = e.lineNumber();
            }
        }
        return line;
    }

    /** Smallest line number of the table, -1 if none. */
    public int firstLine() {
        return lineTable.stream().mapToInt(LineEntry::lineNumber).min().orElse(-1);
    }

    /** Largest line number of the table, -1 if none. */
    public int lastLine() {
        return lineTable.stream().mapToInt(LineEntry::lineNumber).max().orElse(-1);
    }
}
