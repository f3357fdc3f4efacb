package dev.convoy.testapps;

/** A configured scenario, ready to run once. Created by each scenario class's static factory. */
public interface Scenario {

    /** Scenario name as used on the command line of {@link Scenarios} and in summary lines. */
    String name();

    /**
     * Runs the scenario to completion (or, for {@link Deadlock}, until the interesting state is
     * reached) and reports what happened. Every internal wait is bounded by {@link Threads#TIMEOUT}.
     *
     * @throws IllegalStateException if a bounded wait timed out or a scenario thread failed
     */
    ScenarioResult run() throws InterruptedException;
}
