package dev.convoy.testapps;

/**
 * Waits once on a monitor of its own (20 ms, timed out: a MonitorWait/MonitorWaited pair that
 * a running recorder records), then prints what Convoy's MBean in this JVM says, tries its
 * {@code snapshot()} and ends normally. For the tests of an agent whose recorder could not
 * start: the application must still run to its end.
 *
 * <p>Lines on stdout:
 * <pre>
 * recorder-state: mbean=no                                   (no Convoy agent)
 * recorder-state: mbean=yes recording=BOOL offReason=TEXT    (TEXT empty while the recorder runs)
 * recorder-state: snapshot ok | snapshot refused: MESSAGE
 * recorder-state: done
 * </pre>
 *
 * <p>Thread: main. Monitor class: {@code dev.convoy.testapps.RecorderState$StateLock}.
 */
public final class RecorderState {

    public static final String PREFIX = "recorder-state: ";
    public static final String DONE = PREFIX + "done";

    /** The monitor waited on. */
    public static final class StateLock {
    }

    private RecorderState() {
    }

    public static void main(String[] args) throws InterruptedException {
        StateLock lock = new StateLock();
        synchronized (lock) {
            lock.wait(20);
        }
        ConvoyMBean mbean = ConvoyMBean.find();
        if (mbean == null) {
            System.out.println(PREFIX + "mbean=no");
        } else {
            System.out.println(PREFIX + "mbean=yes recording=" + mbean.attribute("Recording") + " offReason="
                    + mbean.attribute("OffReason"));
            try {
                mbean.invoke("snapshot");
                System.out.println(PREFIX + "snapshot ok");
            } catch (IllegalStateException e) {
                Throwable root = e;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                System.out.println(PREFIX + "snapshot refused: " + root.getMessage());
            }
        }
        System.out.println(DONE);
    }
}
