package dev.convoy.agent.http;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.convoy.agent.ConvoyAgent;
import dev.convoy.agent.NativeRecorder;
import dev.convoy.agent.RecorderSession;
import dev.convoy.model.Recording;

/**
 * The running agent. Like the MBean, {@link #takeSnapshot()} freezes what it summarised (in
 * a {@link RecorderSession.View} of its own), so that the summary, the stacks it links to and
 * the downloads that follow agree.
 */
public final class LiveSource implements Source {

    private final ConvoyAgent agent;
    private final RecorderSession.View view;

    public LiveSource(ConvoyAgent agent) {
        this.agent = agent;
        this.view = agent.session().view();
    }

    @Override
    public boolean live() {
        return true;
    }

    @Override
    public void writeStatus(JsonGenerator g) throws IOException {
        NativeRecorder.Counters c = agent.session().counters();
        g.writeStringField("mode", "live");
        g.writeBooleanField("recording", agent.session().isRecording());
        g.writeBooleanField("contentionAnalysis", agent.contentionAnalysis());
        g.writeStringField("options", agent.options().effective());
        g.writeStringField("version", ConvoyAgent.VERSION);
        g.writeNumberField("pid", ProcessHandle.current().pid());
        g.writeObjectFieldStart("counters");
        g.writeNumberField("eventsRecorded", c.recordsWritten());
        g.writeNumberField("eventsOverwritten", c.recordsOverwritten());
        g.writeNumberField("eventsAgedOut", c.recordsAged());
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
    public Recording takeSnapshot() {
        return view.freeze();
    }

    @Override
    public Recording current() {
        return view.current();
    }

    @Override
    public String baseName() {
        return agent.options().dumpName();
    }

    @Override
    public void setRecording(boolean on) {
        try {
            agent.session().setRecording(on);
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
