package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.ObjectInfo;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.testapps.MovingLocks;

/**
 * The shared cache of object ids (option {@code idcache}, native-recorder/src/agent.c,
 * "Object ids") names the right object in every record while the collector moves the objects:
 * {@link MovingLocks}' threads wait on and park on locks that young and full collections move
 * and compact between rounds (shared locks), or on a new lock each round that dies after it, so
 * that later locks are allocated where earlier ones lay (fresh locks), and the i-th MONITOR_WAIT
 * and PARK of each thread must name the lock the program used then, known by its identity hash.
 * On a collector that relocates while the program runs (ZGC) the cache is off, and says so, and
 * the ids come from the object table alone.
 *
 * <p>The same runs hold every first-seen lock in the recorder's held array until its maker
 * thread makes the weak reference (option {@code heldrefs}, native-recorder/src/objects.h, "Held
 * references"), so they also prove that held objects keep their ids, before and after the
 * maker's round, while collections move them (fresh locks, with and without held references).
 */
class IdCacheIT {

    private static final int THREADS = 4;
    private static final int LOCKS = 6;
    private static final int ROUNDS = 300;
    private static final String RELOCATING = "off: the collector moves objects outside its pauses";

    @TempDir
    Path work;

    static Stream<Arguments> runs() {
        List<Arguments> a = new ArrayList<>();
        for (Jdks.Jdk jdk : Jdks.all().toList()) {
            for (int locks : new int[] {LOCKS, 0}) {
                a.add(Arguments.of(jdk, "-XX:+UseSerialGC", "", locks));
                a.add(Arguments.of(jdk, "-XX:+UseG1GC", "", locks));
                a.add(Arguments.of(jdk, "-XX:+UseZGC", "", locks));
            }
            a.add(Arguments.of(jdk, "-XX:+UseG1GC", ",bench.idcache=off", LOCKS));
            a.add(Arguments.of(jdk, "-XX:+UseSerialGC", ",bench.heldrefs=off", 0));
        }
        return a.stream();
    }

    /**
     * Runs MovingLocks; {@code expected} gets, per thread name, the identity hash of the lock of
     * each round.
     */
    private Recording run(Jdks.Jdk jdk, String gc, String options, int locks, Map<String, List<Integer>> expected)
            throws Exception {
        jdk.assumePresent();
        ChildJvm.Result res = ChildJvm.runWith(jdk, work, List.of("-Dconvoy.tmpdir=" + work.resolve("lib"), gc,
                        "-Xmx96m", "-Xmn24m"), ChildJvm.dumping("buffer=1m,memory=64m" + options),
                MovingLocks.class.getName(), "" + THREADS, "" + locks, "" + ROUNDS, "25").assertSucceeded();
        List<String> lines = res.stdout().lines().filter(l -> l.startsWith(MovingLocks.NAME + " OK")).toList();
        assertTrue(!lines.isEmpty(), () -> "no summary: " + res.stdout());
        for (int k = 0; k < THREADS; k++) {
            List<Integer> rounds = new ArrayList<>();
            if (locks > 0) {
                List<Integer> shared = hashes(lines.get(0));
                assertEquals(locks, shared.size());
                for (int i = 0; i < ROUNDS; i++) {
                    rounds.add(shared.get((k + i) % locks));
                }
            } else {
                String prefix = MovingLocks.NAME + " OK thread=" + MovingLocks.THREAD_PREFIX + k + " ";
                rounds = hashes(lines.stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow());
            }
            expected.put(MovingLocks.THREAD_PREFIX + k, rounds);
        }
        return res.recording();
    }

    /** The counts of INFO objects.held: {@code on taken=N made=N full=N now=N}. */
    private static Map<String, Long> counts(String held) {
        assertTrue(held != null && held.startsWith("on "), "objects.held: " + held);
        Map<String, Long> out = new HashMap<>();
        for (String kv : held.substring(3).split(" ")) {
            String[] p = kv.split("=");
            out.put(p[0], Long.parseLong(p[1]));
        }
        return out;
    }

    private static List<Integer> hashes(String line) {
        List<Integer> out = new ArrayList<>();
        for (String h : line.replaceFirst(".* hashes=", "").split(",")) {
            out.add(Integer.parseInt(h.trim()));
        }
        return out;
    }

    @ParameterizedTest(name = "{0} {1}{2}, locks={3}")
    @MethodSource("runs")
    void everyRecordNamesTheObjectTheProgramUsed(Jdks.Jdk jdk, String gc, String options, int locks) throws Exception {
        Map<String, List<Integer>> expected = new HashMap<>();
        Recording r = run(jdk, gc, options, locks, expected);
        boolean zgc = gc.equals("-XX:+UseZGC");
        assertEquals(options.contains("bench.idcache=off") ? "off: option bench.idcache=off"
                : zgc ? RELOCATING : "on", r.info().get("objects.idcache"));
        String held = r.info().get("objects.held");
        if (options.contains("bench.heldrefs=off")) {
            assertEquals("off: option bench.heldrefs=off", held);
        } else {
            Map<String, Long> counts = counts(held);
            assertTrue(counts.get("taken") >= (locks > 0 ? locks : (long) THREADS * ROUNDS), held);
            assertEquals(0, counts.get("full"), held);
            assertTrue(counts.get("made") > 0, held); // the maker ran
            assertTrue(counts.get("made") + counts.get("now") <= counts.get("taken"), held);
        }
        long pauses = r.events().stream().filter(e -> e.type() == EventType.GC_START).count();
        System.out.println("[IdCacheIT] " + jdk + " " + gc + options + ", locks=" + locks + ": " + pauses + " GC pauses");
        assertTrue(pauses >= 10, "too few collections to move the locks: " + pauses);
        int checked = 0;
        for (RecordedThread t : r.threads()) {
            if (!t.name().startsWith(MovingLocks.THREAD_PREFIX)) {
                continue;
            }
            List<Integer> rounds = expected.get(t.name());
            for (EventType type : List.of(EventType.MONITOR_WAIT, EventType.PARK)) {
                List<Event> es = t.events().stream().filter(e -> e.type() == type).toList();
                assertEquals(ROUNDS, es.size(), t.name() + " " + type);
                for (int i = 0; i < es.size(); i++) {
                    Event e = es.get(i);
                    ObjectInfo o = r.objects().get(e.obj());
                    int want = rounds.get(i);
                    int index = i;
                    assertTrue(o != null && o.identityHash() == want, () -> t.name() + " " + type + " " + index
                            + ": object " + e.obj() + (o == null ? " undescribed" : " hash " + o.identityHash())
                            + ", the program used hash " + want);
                    checked++;
                }
            }
        }
        assertEquals(THREADS * ROUNDS * 2, checked);
    }
}
