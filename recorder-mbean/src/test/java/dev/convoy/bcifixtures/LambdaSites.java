package dev.convoy.bcifixtures;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * Probed calls inside lambda bodies (javac's private static {@code lambda$...} methods,
 * reached through {@code invokedynamic} and LambdaMetafactory), a method reference
 * {@code Thread::start} (a method handle constant: not a call site, left alone) and
 * {@code invokedynamic} string concatenation. {@link #run()} returns what happened, the
 * same before and after instrumentation.
 */
public final class LambdaSites {

    /** Rewritten call sites: 4 in lambda bodies, 3 in run() (javac output, counted by hand). */
    public static final int PROBED_CALL_SITES = 7;
    /** Of which in lambda bodies. */
    public static final int PROBED_IN_LAMBDAS = 4;

    private LambdaSites() {
    }

    public static List<String> run() throws Exception {
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        Object lock = new Object();

        // A lambda body that starts and joins a thread.
        Runnable starter = () -> {
            Thread inner = new Thread(() -> log.add("inner ran"), "lambda-inner");
            inner.start();                                     // Thread.start in a lambda body
            try {
                inner.join();                                  // Thread.join in a lambda body
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
        Thread outer = new Thread(starter, "lambda-outer");
        outer.start();                                         // Thread.start
        outer.join();                                          // Thread.join

        // A method reference: a constant method handle to Thread.start, not instrumented.
        Thread viaRef = new Thread(() -> log.add("ref ran"), "lambda-ref");
        Runnable startRef = viaRef::start;
        startRef.run();
        viaRef.join();                                         // Thread.join

        // A capturing lambda notifying under the monitor, with an indy string concatenation.
        Supplier<String> notifier = () -> {
            synchronized (lock) {
                lock.notifyAll();                              // Object.notifyAll in a lambda body
                return "notified " + lock.getClass().getSimpleName();
            }
        };
        log.add(notifier.get());

        // A stream lambda sleeping.
        long slept = IntStream.of(1, 2).mapToLong(i -> {
            try {
                Thread.sleep(i);                               // Thread.sleep in a lambda body
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return i;
        }).sum();
        log.add("slept " + slept);
        return new ArrayList<>(log);
    }
}
