package dev.convoy.agent.http;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;

/**
 * A saved snapshot, or a repository folder read as one recording, served offline: read once,
 * whole, recording controls refused.
 */
public final class FileSource implements Source {

    static final String OFFLINE = "this is a saved snapshot (offline view): recording cannot be controlled";

    private final Path file;
    private final Recording snapshot;

    /**
     * @param file a snapshot file, or a repository folder of chunk files
     * @throws IOException if the file cannot be read or is not a valid snapshot (the
     *         message names the offset of any corruption), or the folder holds no chunk
     */
    public FileSource(Path file) throws IOException {
        this.file = file;
        this.snapshot = Files.isDirectory(file) ? dev.convoy.snapshot.Repository.read(file)
                : SnapshotReader.read(Files.readAllBytes(file));
    }

    @Override
    public boolean live() {
        return false;
    }

    @Override
    public void writeStatus(JsonGenerator g) throws IOException {
        Recording r = snapshot;
        g.writeStringField("mode", "offline");
        g.writeStringField("file", file.getFileName().toString());
        g.writeBooleanField("recording", false);
        g.writeBooleanField("contentionAnalysis", false);
        g.writeStringField("options", r.info().getOrDefault("options", ""));
        // the recording's, as its options: the version that recorded it (this one's when the file does not say)
        g.writeStringField("version", r.info().getOrDefault("agent.version", dev.convoy.agent.ConvoyAgent.VERSION));
        g.writeNumberField("pid", r.pid());
        g.writeObjectFieldStart("counters");
        g.writeNumberField("eventsRecorded", r.recordsWritten());
        g.writeNumberField("eventsOverwritten", r.recordsOverwritten());
        g.writeNumberField("eventsAgedOut", r.recordsAged());
        g.writeNumberField("eventsDropped", Math.max(0, r.recordsDropped()));
        g.writeNumberField("threadsWithLostRecords", r.threadsWithLosses().size());
        g.writeNumberField("threadsRecorded", r.threads().size());
        g.writeEndObject();
    }

    @Override
    public Recording takeSnapshot() {
        return snapshot;
    }

    @Override
    public Recording current() {
        return snapshot;
    }

    @Override
    public String baseName() {
        String n = file.getFileName().toString();
        n = n.endsWith(".cvysnap") ? n.substring(0, n.length() - ".cvysnap".length()) : n;
        n = n.replaceAll("[^A-Za-z0-9._-]", "_");
        return n.isEmpty() ? "convoy" : n;
    }

    @Override
    public void setRecording(boolean on) {
        throw new ConflictException(OFFLINE);
    }

    @Override
    public void setContentionAnalysis(boolean on) {
        throw new ConflictException(OFFLINE);
    }
}
