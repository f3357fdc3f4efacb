package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;

/** Lookups in a recording, and in a test app's printed ground truth, shared by the integration tests. */
final class Recordings {

    private Recordings() {
    }

    /** The one thread of that name; fails the test, listing the threads, if there is none or several. */
    static RecordedThread thread(Recording r, String name) {
        List<RecordedThread> found = r.threads().stream().filter(t -> t.name().equals(name)).toList();
        if (found.size() != 1) {
            throw new AssertionError(found.size() + " threads named " + name + " in " + r.threads());
        }
        return found.get(0);
    }

    /** The thread with this Java thread id; fails the test, listing the threads, if there is none. */
    static RecordedThread threadById(Recording r, long javaThreadId) {
        return r.threads().stream().filter(t -> t.javaThreadId() == javaThreadId).findFirst()
                .orElseThrow(() -> new AssertionError("no thread with Java id " + javaThreadId + " in " + r.threads()));
    }

    /** The whole number printed as {@code key=N} by a test app; fails the test if absent. */
    static long field(String stdout, String key) {
        Matcher m = Pattern.compile("\\b" + key + "=(-?\\d+)\\b").matcher(stdout);
        assertTrue(m.find(), () -> key + " in " + stdout);
        return Long.parseLong(m.group(1));
    }

    /** The numbers printed as {@code key=N,N,...} by a test app; fails the test if absent. */
    static List<Long> longs(String stdout, String key) {
        Matcher m = Pattern.compile("\\b" + key + "=([-\\d,]+)").matcher(stdout);
        assertTrue(m.find(), () -> key + " in " + stdout);
        return Arrays.stream(m.group(1).split(",")).map(Long::parseLong).toList();
    }
}
