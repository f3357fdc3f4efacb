package dev.convoy.bcifixtures;

import java.util.ArrayList;
import java.util.List;

/**
 * An interface with probed calls in a static method (Thread.sleep), default methods
 * (notify, notifyAll), a private method (wait) and a lambda body (Thread.start, join);
 * {@link #run()} is implemented by a lambda of this interface itself.
 */
public interface Sleepy {

    /** Rewritten call sites (javac output, counted by hand). */
    int PROBED_CALL_SITES = 6;

    String name();

    static long nap(long millis) throws InterruptedException {
        long t0 = System.nanoTime();
        Thread.sleep(millis);                                  // static interface method
        return (System.nanoTime() - t0) / 1_000_000;
    }

    default String poke() throws InterruptedException {
        synchronized (this) {
            notify();                                          // default method
            pause();
        }
        return name() + " poked";
    }

    default String pokeUnheld() {
        try {
            notifyAll();                                       // default method, monitor not held
            return "no exception";
        } catch (IllegalMonitorStateException e) {
            return "IllegalMonitorStateException";
        }
    }

    private void pause() throws InterruptedException {
        wait(1);                                               // private interface method
    }

    static List<String> run() throws Exception {
        List<String> log = new ArrayList<>();
        Sleepy s = () -> "lambda-sleepy";
        log.add(s.poke());
        log.add(s.pokeUnheld());
        log.add("napped>=5 " + (nap(5) >= 5));
        Thread t = new Thread(() -> {
        }, "sleepy-thread");
        Runnable r = () -> {
            t.start();                                         // lambda body in an interface
            try {
                t.join();                                      // lambda body in an interface
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
        r.run();
        log.add(t.getName() + " " + t.getState());
        return log;
    }
}
