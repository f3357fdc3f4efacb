package dev.convoy.agent.http;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.convoy.agent.ConvoyAgent;
import dev.convoy.agent.NativeRecorder;
import dev.convoy.snapshot.SnapshotReader;

/**
 * The running agent. Like the MBean, {@link #takeSnapshot()} freezes what it summarised, so
 * that the summary, the stacks it links to and the downloads that follow agree.
 */
public final class LiveSource implements Source {

    private final ConvoyAgent agent;
    private volatile Snapshot frozen;

    public LiveSource(ConvoyAgent agent) {
        this.agent = agent;
    }

    @Override
    public boolean live() {
        return true;
    }

    @Override
    public void writeStatus(JsonGenerator g) throws IOException {
        NativeRecorder.Counters c = NativeRecorder.counters();
        g.writeStringField("mode", "live");
        g.writeBooleanField("recording", NativeRecorder.isRecording());
        g.writeBooleanField("contentionAnalysis", agent.contentionAnalysis());
        g.writeStringField("options", agent.options().effective());
        g.writeStringField("version", ConvoyAgent.VERSION);
        g.writeNumberField("pid", ProcessHandle.current().pid());
        g.writeObjectFieldStart("counters");
        g.writeNumberField("eventsRecorded", c.recordsWritten());
        g.writeNumberField("eventsOverwritten", c.recordsOverwritten());
        g.writeNumberField("eventsDropped", c.recordsDropped());
        g.writeNumberField("threadsRecorded", c.threadsRecorded());
        g.writeNumberField("memoryInUseBytes", c.memoryInUse());
        g.writeNumberField("memoryCapBytes", agent.options().memoryCap());
        g.writeNumberField("instrumentedClasses", agent.instrumentedClasses());
        g.writeNumberField("transformFailures", agent.transformFailures());
        g.writeNumberField("recordingStartTime", c.startEpochNs() / 1_000_000);
        g.writeEndObject();
    }

    @Override
    public Snapshot takeSnapshot() throws IOException {
        byte[] bytes = agent.snapshot();
        Snapshot s = new Snapshot(bytes, SnapshotReader.read(bytes));
        frozen = s;
        return s;
    }

    @Override
    public Snapshot current() throws IOException {
        Snapshot s = frozen;
        return s != null ? s : takeSnapshot();
    }

    @Override
    public String baseName() {
        return agent.options().dumpName();
    }

    @Override
    public void setRecording(boolean on) {
        try {
            NativeRecorder.setRecording(on);
        } catch (IllegalStateException e) {
            throw new ConflictException(e.getMessage());
        }
    }

    @Override
    public void setContentionAnalysis(boolean on) {
        try {
            agent.setContentionAnalysis(on);
        } catch (IllegalStateException e) {
            throw new ConflictException(e.getMessage());
        }
    }
}
