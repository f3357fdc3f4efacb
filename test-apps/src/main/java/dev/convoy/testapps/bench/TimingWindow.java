package dev.convoy.testapps.bench;

import dev.convoy.testapps.ConvoyMBean;

/**
 * Starts the callback timing of a Convoy agent in this JVM over (MBean operation
 * {@code restartTiming}), so that the timing covers a benchmark's measured phase and not its
 * warm-up. Through JMX by name ({@link ConvoyMBean}): the test apps do not depend on the agent's
 * classes.
 */
public final class TimingWindow {

    private TimingWindow() {
    }

    /**
     * Restarts the timing if a Convoy agent with {@code bench.timing=on} runs in this JVM.
     *
     * @return whether it did (false: no agent, or timing off)
     * @throws IllegalStateException if the agent refused
     */
    public static boolean restart() {
        ConvoyMBean convoy = ConvoyMBean.find();
        if (convoy == null || !String.valueOf(convoy.attribute("Options")).matches("(.*,)?bench.timing=on(,.*)?")) {
            return false;
        }
        try {
            convoy.invoke("restartTiming");
        } catch (IllegalStateException e) {
            throw new IllegalStateException("Convoy refused to restart its callback timing: " + e.getMessage(), e);
        }
        return true;
    }
}
