package dev.convoy.agent;

import java.time.Duration;

import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;

/**
 * Keeps the recorder's read of monitor releasers from the VM (native-recorder/src/owners.h)
 * armed exactly while a JFR recording enables {@code jdk.JavaMonitorEnter}: HotSpot writes the
 * thread that last left a monitor (JFR's {@code previousOwner}) only then. Option
 * {@code releasers}: {@code vm} follows the JVM's recordings (a user's
 * {@code -XX:StartFlightRecording} with the default settings enables the event);
 * {@code jfr} also starts a recording of its own that enables the event with a threshold no
 * enter reaches and no stacks, in memory, so that JFR itself writes nothing; {@code inferred}
 * turns the read off.
 *
 * <p>Only {@link #start} is used from outside; it never loads a {@code jdk.jfr} class when the
 * JVM has no {@code jdk.jfr} module.
 */
final class Releasers {

    static final String EVENT = "jdk.JavaMonitorEnter";
    /** The own recording's threshold: longer than any enter, so JFR commits none. */
    static final Duration NEVER = Duration.ofDays(3650);

    private Releasers() {
    }

    /** Arms, turns off, or starts following JFR's recordings, as {@code options} say. */
    static void start(AgentOptions options) {
        if (options.emptyCallbacks()) {
            return;
        }
        if (!options.vmOwners() || options.releasers().equals("inferred")) {
            NativeRecorder.setReleasers(-1);
            return;
        }
        boolean own = options.releasers().equals("jfr");
        if (ModuleLayer.boot().findModule("jdk.jfr").isEmpty()) {
            if (own) {
                System.err.println("convoy: releasers=jfr needs the jdk.jfr module, which this JVM does not have; "
                        + "monitor releasers are inferred");
            }
            return;
        }
        try {
            Watch.start(own);
        } catch (RuntimeException | LinkageError e) {
            System.err.println("convoy: monitor releasers are inferred: JFR could not be followed: " + e);
        }
    }

    /** The JFR side, loaded only where the module exists. */
    static final class Watch implements FlightRecorderListener {

        static void start(boolean own) {
            Watch w = new Watch();
            FlightRecorder.addListener(w);
            if (own) {
                Recording r = new Recording();
                r.setName("convoy-releasers");
                r.enable(EVENT).withThreshold(NEVER).withoutStackTrace();
                r.setToDisk(false);
                r.start();
            }
            w.update();
        }

        @Override
        public void recorderInitialized(FlightRecorder recorder) {
            update();
        }

        @Override
        public void recordingStateChanged(Recording recording) {
            update();
        }

        /** The read is not available on this JVM: nothing to follow. */
        private boolean unavailable;

        /** Arms the read while any running recording enables the event, disarms it otherwise. */
        synchronized void update() {
            if (unavailable) {
                return;
            }
            boolean on = FlightRecorder.isInitialized()
                    && FlightRecorder.getFlightRecorder().getRecordings().stream().anyMatch(Watch::enables);
            unavailable = NativeRecorder.setReleasers(on ? 1 : 0) < 0;
        }

        static boolean enables(Recording r) {
            return r.getState() == RecordingState.RUNNING && "true".equals(r.getSettings().get(EVENT + "#enabled"));
        }
    }
}
