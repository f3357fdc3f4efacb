package dev.convoy.testapps.bench;

import java.lang.management.ManagementFactory;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Starts the callback timing of a Convoy agent in this JVM over (MBean operation
 * {@code restartTiming}), so that the timing covers a benchmark's measured phase and not its
 * warm-up. Through JMX by name: the test apps do not depend on the agent's classes.
 */
public final class TimingWindow {

    /** Convoy's MBean. */
    public static final String RECORDER = "dev.convoy:type=Recorder";

    private TimingWindow() {
    }

    /**
     * Restarts the timing if a Convoy agent with {@code timing=on} runs in this JVM.
     *
     * @return whether it did (false: no agent, or timing off)
     * @throws IllegalStateException if the agent refused
     */
    public static boolean restart() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            ObjectName name = new ObjectName(RECORDER);
            if (!server.isRegistered(name)
                    || !String.valueOf(server.getAttribute(name, "Options")).matches("(.*,)?timing=on(,.*)?")) {
                return false;
            }
            server.invoke(name, "restartTiming", new Object[0], new String[0]);
            return true;
        } catch (JMException e) {
            throw new IllegalStateException("Convoy refused to restart its callback timing: " + e, e);
        }
    }
}
