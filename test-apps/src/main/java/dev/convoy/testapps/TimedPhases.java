package dev.convoy.testapps;

import dev.convoy.testapps.bench.TimingWindow;

/**
 * Two phases around a restart of Convoy's callback timing ({@link TimingWindow}): waits and
 * notifies (producer/consumer), then the timing restarted, then a lock storm. Run under
 * {@code bench.timing=on}, the timing must count the storm's callbacks and none of the waits.
 * Prints {@value #RESTARTED} once the restart was made; exits 1 if there was nothing to restart.
 */
public final class TimedPhases {

    public static final String RESTARTED = "TIMING RESTARTED";

    private TimedPhases() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (Cli.runAndPrint(System.out, ProducerConsumer.create(2, 2, 2_000, 4)) != 0) {
            System.exit(1);
        }
        Thread.sleep(50);
        if (!TimingWindow.restart()) {
            System.out.println("no Convoy agent with bench.timing=on in this JVM");
            System.exit(1);
        }
        System.out.println(RESTARTED);
        Thread.sleep(50);
        if (Cli.runAndPrint(System.out, LockStorm.create(4, 20_000)) != 0) {
            System.exit(1);
        }
    }
}
