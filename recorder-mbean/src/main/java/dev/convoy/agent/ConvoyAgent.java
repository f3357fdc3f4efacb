package dev.convoy.agent;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import java.lang.management.ManagementFactory;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import dev.convoy.agent.bci.ContentionAnalysis;
import dev.convoy.agent.http.LiveSource;
import dev.convoy.agent.http.WebServer;
import dev.convoy.agent.jmx.RecorderMBean;
import dev.convoy.export.Exporters;
import dev.convoy.export.Format;

/**
 * The running agent: options, native recorder, dumps. One per JVM, created by
 * {@link #initialize}, usable as a library (tests, the MBean) through {@link #get()}.
 */
public final class ConvoyAgent {

    /** Convoy's version, from the agent jar's manifest. */
    public static final String VERSION = version();

    private static ConvoyAgent instance;

    private final AgentOptions options;
    private final ContentionAnalysis contentionAnalysis;
    private volatile WebServer webServer;

    private ConvoyAgent(AgentOptions options, Instrumentation inst) {
        this.options = options;
        this.contentionAnalysis = new ContentionAnalysis(inst);
    }

    /**
     * Parses the options, loads and starts the native recorder, switches contention analysis
     * on if {@code contanalysis=on} (instrumenting call sites needs {@code inst}) and installs
     * the dump on exit. Idempotent for equal options.
     *
     * @throws AgentOptions.InvalidOptionException for a bad option
     * @throws IllegalStateException if the recorder cannot start, or runs already with
     *         other options
     */
    public static synchronized ConvoyAgent initialize(String args, Instrumentation inst) {
        AgentOptions options = AgentOptions.parse(args);
        if (instance != null) {
            if (instance.options.effective().equals(options.effective())) {
                return instance;
            }
            throw new IllegalStateException("Convoy already runs in this JVM with options "
                    + instance.options.effective() + "; it cannot be restarted with " + options.effective());
        }
        NativeRecorder.load(inst);
        NativeRecorder.start(options.bufferBytes(), options.memoryCap(), options.stackDepth(), options.recording(),
                options.emptyCallbacks(), options.effective());
        ConvoyAgent agent = new ConvoyAgent(options, inst);
        if (options.contentionAnalysis()) {
            agent.setContentionAnalysis(true);
        }
        if (!options.emptyCallbacks()) {
            registerMBean(agent);
        }
        if (options.httpHost() != null) {
            agent.startWebView();
        }
        if (!options.dumpOnExit().isEmpty()) {
            Runtime.getRuntime().addShutdownHook(new Thread(agent::dumpOnExit, "convoy-dump-on-exit"));
        }
        instance = agent;
        return agent;
    }

    /**
     * Starts the web view ({@code http=HOST:PORT}) and logs its URL on stderr. A failure
     * (port in use) is logged and leaves the recording running.
     */
    private void startWebView() {
        try {
            webServer = WebServer.start(new LiveSource(this), options.httpHost(), options.httpPort(),
                    options.httpToken());
            System.err.println("[convoy] web view at " + webServer.url()
                    + (options.httpToken() != null ? " (requests must carry the httptoken)" : ""));
        } catch (RuntimeException e) {
            System.err.println("[convoy] web view not started: " + e.getMessage());
        }
    }

    /** The web view's server, or null when it is off or failed to start. */
    public WebServer webServer() {
        return webServer;
    }

    /** Registers {@code dev.convoy:type=Recorder} in the platform MBean server. */
    private static void registerMBean(ConvoyAgent agent) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName(RecorderMBean.OBJECT_NAME);
            if (!server.isRegistered(name)) {
                server.registerMBean(new RecorderMBean(agent), name);
            }
        } catch (JMException e) {
            throw new IllegalStateException("cannot register the MBean " + RecorderMBean.OBJECT_NAME + ": " + e, e);
        }
    }

    private static String version() {
        String v = ConvoyAgent.class.getPackage().getImplementationVersion();
        return v != null ? v : "dev";
    }

    /** The running agent, or null if none was initialized. */
    public static synchronized ConvoyAgent get() {
        return instance;
    }

    public AgentOptions options() {
        return options;
    }

    /**
     * Switches contention analysis on or off at runtime: instruments (or restores) the call
     * sites of Thread.start/interrupt/join/sleep and Object.notify/notifyAll/wait in the
     * application's classes, loaded ones included (see {@link ContentionAnalysis} for the
     * cost). Failures of single classes are counted, never thrown.
     *
     * @throws IllegalStateException if instrumentation is impossible (no Instrumentation,
     *         callbacks=empty, the Probes class cannot be installed)
     */
    public void setContentionAnalysis(boolean on) {
        if (on && options.emptyCallbacks()) {
            throw new IllegalStateException("contention analysis needs a recording, but callbacks=empty records nothing");
        }
        if (on) {
            contentionAnalysis.enable();
        } else {
            contentionAnalysis.disable();
        }
    }

    /** Whether contention analysis is on. */
    public boolean contentionAnalysis() {
        return contentionAnalysis.isEnabled();
    }

    /** Classes whose call sites are instrumented now. */
    public long instrumentedClasses() {
        return contentionAnalysis.instrumentedClasses();
    }

    /** Classes that could not be transformed or retransformed (they keep their bytes). */
    public long transformFailures() {
        return contentionAnalysis.transformFailures();
    }

    /** A binary snapshot of everything recorded so far. */
    public byte[] snapshot() {
        return NativeRecorder.snapshot();
    }

    /**
     * Writes one snapshot in each of the given formats into the dump directory, named
     * {@code dumpname} plus the format's extension. Each file appears whole or not at all.
     *
     * @return the files written
     */
    public List<Path> dump(Iterable<Format> formats) throws IOException {
        byte[] snapshot = snapshot();
        Path dir = options.dumpDir().toAbsolutePath();
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        for (Format f : formats) {
            written.addAll(Exporters.export(snapshot, f, dir.resolve(options.dumpName() + f.suffix())));
        }
        return written;
    }

    private void dumpOnExit() {
        try {
            for (Path p : dump(options.dumpOnExit())) {
                System.err.println("[convoy] wrote " + p);
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("[convoy] dump on exit failed: " + e);
        }
    }
}
