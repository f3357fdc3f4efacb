package dev.convoy.testapps;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * Threads that block, wait and park under every shape of stack a stack walker must get right:
 * deep recursion (deeper than the default stack depth), lambdas and streams (hidden classes),
 * a reflective call (a native frame on JDK 17), {@code Object.wait} (a native top frame), a
 * {@code ReentrantLock} (parks through the recorder's probe), and a class redefined while its
 * methods are on the threads' stacks (when started with this class as a {@code -javaagent}
 * too: the jar's manifest names it as Premain-Class with Can-Redefine-Classes).
 *
 * <p>Arguments: {@code [rounds]} (default 400). Each of the {@value #SHAPES} worker kinds runs
 * {@code rounds} rounds on one shared lock with two threads each; the main thread redefines
 * {@link Redefined} halfway. Prints {@code stack-shapes OK rounds=N redefinitions=R}.
 */
public final class StackShapes {

    public static final String NAME = "stack-shapes";
    static final int SHAPES = 6;
    static final int RECURSION = 100;

    private static volatile Instrumentation instrumentation;
    private static final Object LOCK = new Object();
    private static final ReentrantLock RLOCK = new ReentrantLock();
    private static long counter;

    private StackShapes() {
    }

    /** As a -javaagent: keeps the Instrumentation to redefine {@link Redefined} with. */
    public static void premain(String args, Instrumentation inst) {
        instrumentation = inst;
    }

    /** Redefined mid-run with its own bytes while threads are blocked inside its method. */
    public static final class Redefined {
        private Redefined() {
        }

        static void enter(int round) {
            synchronized (LOCK) {
                counter += round;
                Thread.onSpinWait();
            }
        }
    }

    static void work() {
        synchronized (LOCK) {
            counter++;
            for (int i = 0; i < 500; i++) {
                Thread.onSpinWait();
            }
        }
    }

    static void recurse(int depth) {
        if (depth == 0) {
            work();
        } else {
            recurse(depth - 1);
        }
    }

    public static void reflected() {
        work();
    }

    static void waitBriefly() throws InterruptedException {
        synchronized (LOCK) {
            LOCK.wait(1);
        }
    }

    static void parkOnLock() {
        RLOCK.lock();
        try {
            counter++;
            Thread.onSpinWait();
        } finally {
            RLOCK.unlock();
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        Method reflected = StackShapes.class.getMethod("reflected");
        List<IntConsumer> shapes = List.of(
                round -> recurse(RECURSION),
                round -> IntStream.range(0, 2).forEach(i -> work()),
                round -> invoke(reflected),
                round -> waitQuietly(),
                round -> parkOnLock(),
                Redefined::enter);
        CountDownLatch half = new CountDownLatch(shapes.size() * 2);
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < shapes.size(); s++) {
            IntConsumer shape = shapes.get(s);
            for (int k = 0; k < 2; k++) {
                Thread t = new Thread(() -> {
                    for (int r = 0; r < rounds; r++) {
                        if (r == rounds / 2) {
                            half.countDown();
                        }
                        shape.accept(r);
                    }
                }, "shape-" + s + "-" + k);
                threads.add(t);
                t.start();
            }
        }
        int redefinitions = 0;
        half.await();
        Instrumentation inst = instrumentation;
        if (inst != null) {
            byte[] bytes;
            try (var in = Redefined.class.getResourceAsStream("StackShapes$Redefined.class")) {
                bytes = in.readAllBytes();
            }
            for (int i = 0; i < 3; i++) {
                inst.redefineClasses(new java.lang.instrument.ClassDefinition(Redefined.class, bytes));
                redefinitions++;
            }
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println(NAME + " OK rounds=" + rounds + " redefinitions=" + redefinitions);
    }

    private static void invoke(Method m) {
        try {
            m.invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void waitQuietly() {
        try {
            waitBriefly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
