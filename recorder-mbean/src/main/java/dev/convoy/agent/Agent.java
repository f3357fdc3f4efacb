package dev.convoy.agent;

import java.lang.instrument.Instrumentation;
import java.lang.management.ManagementFactory;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import dev.convoy.agent.http.LiveSource;
import dev.convoy.agent.http.WebServer;
import dev.convoy.agent.jmx.RecorderMBean;

/**
 * Entry points of {@code convoy-agent.jar}: {@code -javaagent} at JVM start and dynamic
 * attach. Both start the {@link ConvoyAgent} and then its front-ends: the MBean
 * {@value RecorderMBean#OBJECT_NAME} and, with {@code http=}, the web view.
 */
public final class Agent {

    private static WebServer webServer;

    private Agent() {
    }

    /**
     * {@code -javaagent:convoy-agent.jar[=options]}. An invalid option, or a recorder whose
     * library loaded but that cannot start, stops the JVM before the application runs, with
     * the reason on stderr and exit code 2: the user asked for something that cannot be. A
     * native library that cannot be loaded (a full temporary directory, say) does not: the
     * application runs with the recorder off, one line on stderr says why, and the MBean says
     * so too ({@code OffReason}).
     */
    public static void premain(String args, Instrumentation inst) {
        try {
            start(args, inst, true);
        } catch (RuntimeException | Error e) {
            System.err.println("[convoy] " + e.getMessage());
            System.err.println("[convoy] the JVM stops: fix the -javaagent options (see the README) or remove the agent");
            System.err.flush();
            Runtime.getRuntime().halt(2);
        }
    }

    /** System property in which a failed attach leaves its reason for the attaching tool. */
    public static final String ATTACH_ERROR_PROPERTY = "convoy.attach.error";

    /**
     * Dynamic attach. A failure is thrown back to the attaching tool (the Attach API reports
     * only that the agent failed, so the reason is also left in the target's system property
     * {@value #ATTACH_ERROR_PROPERTY}, which the tool reads); the application keeps running
     * untouched.
     */
    public static void agentmain(String args, Instrumentation inst) {
        try {
            start(args, inst, false);
            System.clearProperty(ATTACH_ERROR_PROPERTY);
        } catch (RuntimeException | Error e) {
            System.setProperty(ATTACH_ERROR_PROPERTY, String.valueOf(e.getMessage()));
            throw e;
        }
    }

    /**
     * Starts the agent and, the first time, its front-ends. Idempotent for equal options.
     *
     * @param offIfNotLoaded a library that cannot be loaded leaves the recorder off (with the MBean
     *        saying so, and no web view) instead of failing
     */
    private static synchronized void start(String args, Instrumentation inst, boolean offIfNotLoaded) {
        ConvoyAgent before = ConvoyAgent.get();
        ConvoyAgent agent = offIfNotLoaded ? ConvoyAgent.initializeOrOff(args, inst)
                : ConvoyAgent.initialize(args, inst);
        if (agent == before) {
            return;
        }
        AgentOptions options = agent.options();
        if (agent.offReason() != null) {
            System.err.println("[convoy] " + ConvoyAgent.offMessage(agent.offReason()));
            System.err.flush();
        }
        if (!options.emptyCallbacks()) {
            registerMBean(agent);
        }
        if (options.httpHost() != null && agent.offReason() == null) {
            startWebView(agent);
        }
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

    /**
     * Starts the web view ({@code http=HOST:PORT}) and logs its URL on stderr. A failure
     * (port in use) is logged and leaves the recording running.
     */
    private static void startWebView(ConvoyAgent agent) {
        AgentOptions options = agent.options();
        try {
            webServer = WebServer.start(new LiveSource(agent), options.httpHost(), options.httpPort(),
                    options.httpToken());
            System.err.println("[convoy] web view at " + webServer.url()
                    + (options.httpToken() != null ? " (requests must carry the httptoken)" : ""));
        } catch (RuntimeException e) {
            System.err.println("[convoy] web view not started: " + e.getMessage());
        }
    }
}
