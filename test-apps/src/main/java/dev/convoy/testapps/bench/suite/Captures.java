package dev.convoy.testapps.bench.suite;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * Counts the contended-enter events each tool captured on one monitor class, from its output
 * file: Convoy's binary snapshot (read with the exporters' {@code SnapshotReader}, loaded from the
 * agent jar at run time, so that test-apps needs no compile dependency on exporters), a JFR file
 * ({@code jdk.jfr.consumer}) and async-profiler's collapsed stacks.
 */
public final class Captures {

    private Captures() {
    }

    /** jdk.JavaMonitorEnter events whose monitorClass is {@code lockClass}. */
    public static long jfrEnters(Path jfr, String lockClass) throws IOException {
        long n = 0;
        try (RecordingFile f = new RecordingFile(jfr)) {
            while (f.hasMoreEvents()) {
                RecordedEvent e = f.readEvent();
                if (e.getEventType().getName().equals("jdk.JavaMonitorEnter")) {
                    RecordedClass c = e.getClass("monitorClass");
                    if (c != null && lockClass.equals(c.getName())) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /** Every jdk.ThreadPark event of a JFR file (with threshold 0: one per Unsafe.park call). */
    public static long jfrParks(Path jfr) throws IOException {
        long n = 0;
        try (RecordingFile f = new RecordingFile(jfr)) {
            while (f.hasMoreEvents()) {
                if (f.readEvent().getEventType().getName().equals("jdk.ThreadPark")) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * Every sample of async-profiler's collapsed output: in lock mode with {@code lock=0}, one per
     * recorded contended enter or park (it records parks only on ReentrantLock,
     * ReentrantReadWriteLock and Semaphore, not on conditions or queues' own waits).
     */
    public static long collapsedSamples(List<String> lines) {
        long n = 0;
        for (String l : lines) {
            int sp = l.lastIndexOf(' ');
            if (sp > 0) {
                try {
                    n += Long.parseLong(l.substring(sp + 1).trim());
                } catch (NumberFormatException e) {
                    // not a collapsed line
                }
            }
        }
        return n;
    }

    /**
     * The samples of async-profiler's collapsed output ({@code frame;frame;... COUNT} per line)
     * whose last frame is the lock class ({@code pkg.Outer$Inner_[i]} in lock mode). With
     * {@code lock=0} every contended enter is one sample.
     */
    public static long collapsedEnters(List<String> lines, String lockClass) {
        long n = 0;
        for (String l : lines) {
            int sp = l.lastIndexOf(' ');
            if (sp <= 0) {
                continue;
            }
            String stack = l.substring(0, sp);
            int semi = stack.lastIndexOf(';');
            String last = semi < 0 ? stack : stack.substring(semi + 1);
            if (last.endsWith("_[i]")) {
                last = last.substring(0, last.length() - 4);
            }
            if (last.equals(lockClass) || last.equals(lockClass.replace('.', '/'))) {
                n += Long.parseLong(l.substring(sp + 1).trim());
            }
        }
        return n;
    }

    public static long collapsedEnters(Path file, String lockClass) throws IOException {
        return collapsedEnters(Files.readAllLines(file, StandardCharsets.UTF_8), lockClass);
    }

    /**
     * MONITOR_ENTER events on objects of {@code lockClass} in a Convoy binary snapshot, read with
     * {@code dev.convoy.snapshot.SnapshotReader} from {@code agentJar}.
     */
    public static long convoyEnters(Path agentJar, Path snapshot, String lockClass) throws IOException {
        return convoyCount(agentJar, snapshot, "MONITOR_ENTER", lockClass);
    }

    /**
     * PARK events in a Convoy binary snapshot (0 from an agent or reader without park records;
     * a snapshot keeps only what the rings held at exit).
     */
    public static long convoyParks(Path agentJar, Path snapshot) throws IOException {
        return convoyCount(agentJar, snapshot, "PARK", null);
    }

    /** Events of {@code typeName}, on objects of {@code lockClass} unless null. */
    private static long convoyCount(Path agentJar, Path snapshot, String typeName, String lockClass)
            throws IOException {
        try (URLClassLoader cl = new URLClassLoader(new URL[] {agentJar.toUri().toURL()},
                Captures.class.getClassLoader())) {
            Class<?> reader = Class.forName("dev.convoy.snapshot.SnapshotReader", true, cl);
            Object rec = reader.getMethod("read", Path.class).invoke(null, snapshot);
            Method events = rec.getClass().getMethod("events");
            Method className = rec.getClass().getMethod("objectClassName", long.class);
            long n = 0;
            for (Object e : (List<?>) events.invoke(rec)) {
                Object type = e.getClass().getMethod("type").invoke(e);
                if (!typeName.equals(((Enum<?>) type).name())) {
                    continue;
                }
                if (lockClass == null) {
                    n++;
                    continue;
                }
                long obj = (Long) e.getClass().getMethod("obj").invoke(e);
                if (lockClass.equals(className.invoke(rec, obj))) {
                    n++;
                }
            }
            return n;
        } catch (ReflectiveOperationException e) {
            throw new IOException("cannot read " + snapshot + " with SnapshotReader from " + agentJar + ": " + e, e);
        }
    }
}
