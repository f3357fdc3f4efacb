package dev.convoy.agent.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testapps.VirtualBlockOnce;
import dev.convoy.testapps.VirtualLockStorm;
import dev.convoy.testapps.VirtualMonitorStorm;

/**
 * Holds the blocks Convoy recorded for each virtual thread of {@link VirtualMonitorStorm},
 * {@link VirtualLockStorm} and {@link VirtualBlockOnce} against the times the app printed. For
 * every thread of the app it finds its recorded thread and its blocks on the app's lock, and
 * says what is wrong, if anything: no recorded thread, no block, more than one (monitors), a
 * block outside the app's bounds. No bound is a duration of wall-clock time: each is an
 * instant the app itself took before or after the block.
 */
final class VirtualBlocks {

    /** Per app: threads, those recorded right, and the first problems found (at most 20). */
    record Check(int threads, int right, List<String> problems) {
        @Override
        public String toString() {
            return right + " of " + threads + " virtual threads recorded right" + (problems.isEmpty() ? ""
                    : "; first problems: " + String.join("; ", problems));
        }
    }

    private VirtualBlocks() {
    }

    private static Map<Long, RecordedThread> byId(Recording r) {
        Map<Long, RecordedThread> m = new HashMap<>();
        for (RecordedThread t : r.threads()) {
            m.put(t.javaThreadId(), t);
        }
        return m;
    }

    /** MONITOR_ENTER, MONITOR_ENTERED pairs of thread t on objects of class cls. */
    private static List<Event[]> monitorBlocks(Recording r, RecordedThread t, String cls) {
        List<Event[]> out = new ArrayList<>();
        Event open = null;
        for (Event e : t.events()) {
            if (e.type() == EventType.MONITOR_ENTER && cls.equals(r.objectClassName(e.obj()))) {
                open = e;
                out.add(new Event[] {e, null});
            } else if (e.type() == EventType.MONITOR_ENTERED && open != null && e.obj() == open.obj()) {
                out.get(out.size() - 1)[1] = e;
                open = null;
            }
        }
        return out;
    }

    /** PARK, PARKED pairs of thread t on blockers of class cls (a PARKED ends the latest PARK on its object). */
    private static List<Event[]> parks(Recording r, RecordedThread t, String cls) {
        List<Event[]> out = new ArrayList<>();
        for (Event e : t.events()) {
            if (e.type() == EventType.PARK && cls.equals(r.objectClassName(e.obj()))) {
                out.add(new Event[] {e, null});
            } else if (e.type() == EventType.PARKED) {
                for (int k = out.size() - 1; k >= 0; k--) {
                    if (out.get(k)[1] == null && out.get(k)[0].obj() == e.obj()) {
                        out.get(k)[1] = e;
                        break;
                    }
                }
            }
        }
        return out;
    }

    private static void problem(List<String> problems, String p) {
        if (problems.size() < 20) {
            problems.add(p);
        }
    }

    /** What is wrong with the recorded thread of the app's i-th thread, or null if nothing. */
    private interface ThreadCheck {
        String problem(int i, RecordedThread t);
    }

    /** Finds each of the app's threads (threadIds) among the recorded ones and checks it. */
    private static Check check(Recording r, String out, ThreadCheck check) {
        List<Long> ids = Recordings.longs(out, "threadIds");
        Map<Long, RecordedThread> threads = byId(r);
        List<String> problems = new ArrayList<>();
        int right = 0;
        for (int i = 0; i < ids.size(); i++) {
            RecordedThread t = threads.get(ids.get(i));
            String p = t == null ? "not recorded" : check.problem(i, t);
            if (p == null) {
                right++;
            } else {
                problem(problems, "thread " + ids.get(i) + ": " + p);
            }
        }
        return new Check(ids.size(), right, problems);
    }

    /** The one block (ENTER, ENTERED) of a thread on a monitor of class cls, or null if not exactly one. */
    private static Event[] oneBlock(Recording r, RecordedThread t, String cls) {
        List<Event[]> blocks = monitorBlocks(r, t, cls);
        return blocks.size() == 1 && blocks.get(0)[1] != null ? blocks.get(0) : null;
    }

    /** One block per thread on StormLock within [enterAt, observedAt] .. [releasedAt, acquiredAt]. */
    static Check monitorStorm(Recording r, String out) {
        List<Long> enterAt = Recordings.longs(out, "enterAt");
        List<Long> acquiredAt = Recordings.longs(out, "acquiredAt");
        long observed = Recordings.field(out, "observedAt");
        long released = Recordings.field(out, "releasedAt");
        return check(r, out, (i, t) -> {
            Event[] b = oneBlock(r, t, VirtualMonitorStorm.StormLock.class.getName());
            if (b == null) {
                return monitorBlocks(r, t, VirtualMonitorStorm.StormLock.class.getName()).size() + " blocks (1 expected)";
            }
            if (b[0].ts() < enterAt.get(i) || b[0].ts() > observed || b[1].ts() < released
                    || b[1].ts() > acquiredAt.get(i)) {
                return "block " + b[0].ts() + ".." + b[1].ts() + " outside [" + enterAt.get(i) + ", " + observed
                        + "] .. [" + released + ", " + acquiredAt.get(i) + "]";
            }
            return null;
        });
    }

    /** Parks on the lock within [enterAt, acquiredAt], one from before observedAt to after releasedAt. */
    static Check lockStorm(Recording r, String out) {
        List<Long> enterAt = Recordings.longs(out, "enterAt");
        List<Long> acquiredAt = Recordings.longs(out, "acquiredAt");
        long observed = Recordings.field(out, "observedAt");
        long released = Recordings.field(out, "releasedAt");
        return check(r, out, (i, t) -> {
            List<Event[]> parks = parks(r, t, VirtualLockStorm.BLOCKER);
            boolean inside = !parks.isEmpty();
            boolean spans = false;
            for (Event[] p : parks) {
                inside &= p[1] != null && p[0].ts() >= enterAt.get(i) && p[1].ts() <= acquiredAt.get(i)
                        && p[0].ts() <= p[1].ts();
                spans |= p[1] != null && p[0].ts() <= observed && p[1].ts() >= released;
            }
            if (inside && spans) {
                return null;
            }
            return parks.size() + " parks, "
                    + (inside ? "" : "not all within [" + enterAt.get(i) + ", " + acquiredAt.get(i) + "]")
                    + (spans ? "" : " none over [" + observed + ", " + released + "]");
        });
    }

    /** One block per thread on its batch's lock, within the batch's four times. */
    static Check blockOnce(Recording r, String out) {
        List<Long> start = Recordings.longs(out, "batchStart");
        List<Long> observed = Recordings.longs(out, "observedAt");
        List<Long> released = Recordings.longs(out, "releasedAt");
        List<Long> end = Recordings.longs(out, "batchEnd");
        return check(r, out, (i, t) -> {
            int batch = i / VirtualBlockOnce.BATCH;
            Event[] b = oneBlock(r, t, VirtualBlockOnce.BatchLock.class.getName());
            if (b == null) {
                return monitorBlocks(r, t, VirtualBlockOnce.BatchLock.class.getName()).size() + " blocks (1 expected)";
            }
            if (b[0].ts() < start.get(batch) || b[0].ts() > observed.get(batch) || b[1].ts() < released.get(batch)
                    || b[1].ts() > end.get(batch)) {
                return "block " + b[0].ts() + ".." + b[1].ts() + " outside the bounds of its batch " + batch;
            }
            return null;
        });
    }

    /** For measuring by hand: VirtualBlocks monitor|lock|once STDOUT SNAPSHOT. */
    public static void main(String[] args) throws IOException {
        String out = Files.readString(Path.of(args[1]));
        Recording r = SnapshotReader.read(Path.of(args[2]));
        Check c = switch (args[0]) {
            case "monitor" -> monitorStorm(r, out);
            case "lock" -> lockStorm(r, out);
            default -> blockOnce(r, out);
        };
        System.out.println(c);
        System.out.println("threads in snapshot " + r.threads().size() + "; info " + r.info());
    }
}
