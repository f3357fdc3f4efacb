package dev.convoy.agent;

import java.lang.instrument.Instrumentation;

/**
 * Entry points of {@code convoy-agent.jar}: {@code -javaagent} at JVM start and dynamic
 * attach. Both call {@link ConvoyAgent#initialize}.
 */
public final class Agent {

    private Agent() {
    }

    /**
     * {@code -javaagent:convoy-agent.jar[=options]}. An invalid option or a recorder that
     * cannot start stops the JVM before the application runs, with the reason on stderr
     * and exit code 2.
     */
    public static void premain(String args, Instrumentation inst) {
        try {
            ConvoyAgent.initialize(args, inst);
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
            ConvoyAgent.initialize(args, inst);
            System.clearProperty(ATTACH_ERROR_PROPERTY);
        } catch (RuntimeException | Error e) {
            System.setProperty(ATTACH_ERROR_PROPERTY, String.valueOf(e.getMessage()));
            throw e;
        }
    }
}
