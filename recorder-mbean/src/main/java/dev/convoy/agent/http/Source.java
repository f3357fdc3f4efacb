package dev.convoy.agent.http;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.convoy.model.Recording;

/**
 * What the web view shows: the running agent ({@link LiveSource}) or a saved snapshot
 * ({@link FileSource}, offline). Implementations are thread-safe.
 */
public interface Source {

    /** Thrown when an operation is impossible in this state or mode; the web view answers 409. */
    final class ConflictException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ConflictException(String message) {
            super(message);
        }
    }

    /** Whether this is a running JVM (recording can be controlled). */
    boolean live();

    /** Writes the fields of the status object (recording, counters, options, version). */
    void writeStatus(JsonGenerator g) throws IOException;

    /** Takes a fresh snapshot and freezes it (live); the file's snapshot (offline). */
    Recording takeSnapshot();

    /** The frozen snapshot, or a fresh one if none was taken; the file's snapshot offline. */
    Recording current();

    /** Base name of downloaded files. */
    String baseName();

    /** @throws ConflictException offline, or when the recorder refuses */
    void setRecording(boolean on);

    /** @throws ConflictException offline, or when contention analysis cannot be switched */
    void setContentionAnalysis(boolean on);
}
