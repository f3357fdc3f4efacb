package dev.convoy.analysis;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import java.util.HashMap;
import java.util.Map;

/**
 * How the analysis and every format name the blocker of a park ({@code LockSupport.park*},
 * the object a {@code java.util.concurrent} lock, condition or queue parks on): the class the
 * user wrote, not the JDK's internal synchronizer. A blocker of a class
 * {@code java.util.concurrent[.*].X$Sync}, {@code X$FairSync} or {@code X$NonfairSync} is
 * named by its outer class X (a {@code ReentrantLock$NonfairSync} is a
 * {@code java.util.concurrent.locks.ReentrantLock}, likewise {@code ReentrantReadWriteLock},
 * {@code Semaphore}, {@code CountDownLatch}); every other class keeps its own name (an
 * {@code AbstractQueuedSynchronizer$ConditionObject} stays one: its outer class names no
 * type a user wrote, and the record does not say which lock the condition belongs to).
 * Monitors (synchronized) always keep their own class name.
 */
public final class Blockers {
    /** Class name of a park without a blocker ({@code LockSupport.park()}). */
    public static final String NO_BLOCKER = "<no blocker>";

    private Blockers() {
    }

    /** The user-facing name of a blocker's class name (see the class comment); "" stays "". */
    public static String lockClass(String className) {
        if (!className.startsWith("java.util.concurrent.")) {
            return className;
        }
        int dollar = className.lastIndexOf('$');
        if (dollar <= 0) {
            return className;
        }
        String inner = className.substring(dollar + 1);
        return inner.equals("Sync") || inner.equals("FairSync") || inner.equals("NonfairSync")
                ? className.substring(0, dollar) : className;
    }

    /**
     * The class name of a park's blocker: {@link #lockClass} of its class, {@link #NO_BLOCKER}
     * for blocker 0, "" when the object or its class is not described.
     */
    public static String className(Recording r, long blocker) {
        return blocker == 0 ? NO_BLOCKER : lockClass(r.objectClassName(blocker));
    }

    /**
     * The Java threads by Java thread id, to find a park's exclusive owner (PARK's arg2): per id
     * the first ring in file order, unless it was met late and a later one was not (the rule
     * of the analysis).
     */
    public static Map<Long, RecordedThread> threadsByJavaId(Recording r) {
        Map<Long, RecordedThread> out = new HashMap<>();
        for (RecordedThread t : r.threads()) {
            if (t.isSystem() || t.javaThreadId() < 0) {
                continue;
            }
            RecordedThread found = out.get(t.javaThreadId());
            if (found == null || found.isLate() && !t.isLate()) {
                out.put(t.javaThreadId(), t);
            }
        }
        return out;
    }

    /** The class name of a monitor ({@code park} false) or a park's blocker ({@code park} true). */
    public static String className(Recording r, long object, boolean park) {
        return park ? className(r, object) : r.objectClassName(object);
    }
}
