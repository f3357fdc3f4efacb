package dev.convoy.agent.it;

import java.util.List;

import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;

/** Lookups in a recording shared by the integration tests. */
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
}
