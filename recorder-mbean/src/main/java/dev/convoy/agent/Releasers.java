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
 * {@code releasers}: {@code jfr} starts a recording of its own, named
 * {@value #RECORDING}, that enables the event with a threshold no enter reaches and no stacks,
 * in memory, so that JFR itself writes nothing, on a thread of its own so that JFR's start-up
 * does not delay the application's; {@code vm} (the default) only follows the JVM's recordings (a user's
 * {@code -XX:StartFlightRecording} with the default settings enables the event);
 * {@code inferred} turns the read off. JFR merges the settings of its recordings per event
 * (enabled if any enables it, the lowest threshold, stacks if any wants them), so the own
 * recording changes nothing in a user's.
 *
 * <p>Only {@link #start} is used from outside; it never loads a {@code jdk.jfr} class when the
 * JVM has no {@code jdk.jfr} module.
 */
final class Releasers {

    static final String EVENT = "jdk.JavaMonitorEnter";
    /** The own recording's name, as {@code jcmd PID JFR.check} lists it. */
    static final String RECORDING = "convoy-releasers";
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
        if (!own) {
            follow(false);
            return;
        }
        // JFR's start-up takes a few hundred ms of CPU: off the application's start, on a thread of
        // its own; the hand-offs before it are inferred, and marked so.
        // In the root thread group: JFR's threads, started from it, are then the JDK's housekeeping
        // by their group (IdleRules), as when the JVM itself starts JFR.
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread t = new Thread(root, () -> follow(true), "convoy-releasers");
        t.setDaemon(true);
        t.start();
    }

    private static void follow(boolean own) {
        try {
            Watch.start(own);
        } catch (RuntimeException | LinkageError e) {
            if (own && shuttingDown()) {
                return; // the program ended before JFR had started: nothing was armed, nothing to say
            }
            System.err.println("convoy: monitor releasers are inferred: JFR could not be " + (own ? "started" : "followed")
                    + ": " + e);
        }
    }

    /** Whether the JVM has begun to shut down (it then refuses new shutdown hooks). */
    private static boolean shuttingDown() {
        Thread probe = new Thread(() -> { });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }

    /** The JFR side, loaded only where the module exists. */
    static final class Watch implements FlightRecorderListener {

        static void start(boolean own) {
            Watch w = new Watch();
            FlightRecorder.addListener(w);
            if (own) {
                Recording r = new Recording();
                r.setName(RECORDING);
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
        private volatile boolean unavailable;
        /** Guards the native switch only; never held while calling into JFR. */
        private final Object switchLock = new Object();

        /**
         * Arms the read while any running recording enables the event, disarms it otherwise. JFR
         * calls listeners with its recorder's lock held (its shutdown hook among others), so no lock
         * of Convoy's is held while asking JFR: the state is read, applied, and read again until
         * two reads agree, so that of two updates racing the one that read the older state does not
         * win.
         */
        void update() {
            boolean on = enabled();
            while (!unavailable) {
                synchronized (switchLock) {
                    unavailable = NativeRecorder.setReleasers(on ? 1 : 0) < 0;
                }
                boolean again = enabled();
                if (again == on) {
                    return;
                }
                on = again;
            }
        }

        private static boolean enabled() {
            return FlightRecorder.isInitialized()
                    && FlightRecorder.getFlightRecorder().getRecordings().stream().anyMatch(Watch::enables);
        }

        static boolean enables(Recording r) {
            return r.getState() == RecordingState.RUNNING && "true".equals(r.getSettings().get(EVENT + "#enabled"));
        }
    }
}
