package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.Loss;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.schema.CsvLogReader;
import dev.convoy.schema.CsvSpecReader;
import dev.convoy.snapshot.SnapshotFormat;

/**
 * The CSV files of a dump ({@code schema/csv-log-format.md}) against the recording they were
 * written from: the default event log read by {@link CsvSpecReader} (the JVMTI backend's
 * specification alone), the extended one by {@link CsvLogReader}; the extended log is the
 * default one plus Convoy's lines; the losses file lists the recording's losses; and for every
 * thread that lost nothing, the lines the documented mapping gives for its records (parks as the
 * specification's enters and waits, with a lock's exact owner) and Convoy's lines for its parks
 * and unparks.
 */
final class CsvChecks {

    private CsvChecks() {
    }

    /** The dump's CSV files, read. */
    record Csv(CsvSpecReader.Logs spec, CsvLogReader.Logs ext, CsvLogReader.Losses losses) {
    }

    /**
     * Reads {@code NAME.meta.csv}, {@code NAME.events.csv}, {@code NAME.events-ext.csv} and
     * {@code NAME.losses.csv} of {@code dir} and checks them against {@code r}, the snapshot
     * dumped with them.
     */
    static Csv check(Path dir, String name, Recording r) throws IOException {
        Path meta = dir.resolve(name + ".meta.csv");
        Path events = dir.resolve(name + ".events.csv");
        Path extended = dir.resolve(name + ".events-ext.csv");
        CsvSpecReader.Logs spec = CsvSpecReader.read(meta, events);
        CsvLogReader.read(meta, events); // and the choices schema/csv-log-format.md makes
        CsvLogReader.Logs ext = CsvLogReader.read(meta, extended);
        List<String> specLines = Files.readAllLines(events, StandardCharsets.UTF_8);
        List<String> withoutConvoys = Files.readAllLines(extended, StandardCharsets.UTF_8).stream()
                .filter(l -> !CsvLogReader.EXTENSION.contains(l.split(",", 3)[1])).toList();
        assertEquals(specLines.size(), withoutConvoys.size(), "the extended log's lines of the specification");
        assertTrue(specLines.equals(withoutConvoys), "the extended log without Convoy's lines is the default log");
        CsvLogReader.Losses losses = CsvLogReader.readLosses(dir.resolve(name + ".losses.csv"));
        Csv csv = new Csv(spec, ext, losses);
        lossesAsRecorded(r, losses);
        linesPerThread(r, csv);
        return csv;
    }

    private static String hash(Recording r, long obj) {
        return String.format("%08X", r.identityHash(obj));
    }

    /** The losses file says what the recording lost: its totals and every loss of a thread. */
    static void lossesAsRecorded(Recording r, CsvLogReader.Losses l) {
        long dropped = Math.max(0, r.recordsDropped());
        long torn = Math.max(0, r.recordsTorn());
        assertEquals(new CsvLogReader.Records(r.recordsWritten(),
                r.recordsOverwritten() + r.recordsAged() + dropped + torn, r.recordsOverwritten(), r.recordsAged(),
                dropped, torn), l.records(), "the losses file's totals");
        Map<String, Long> expected = new TreeMap<>();
        for (Map.Entry<RecordedThread, Loss> e : r.losses()) {
            expected.merge(hash(r, e.getKey().threadObject()) + " " + e.getValue().kindName(), e.getValue().records(),
                    Long::sum);
        }
        Map<String, Long> got = new TreeMap<>();
        for (CsvLogReader.LossLine line : l.losses()) {
            if (!line.thread().equals("00000000") || !line.threadName().isEmpty()) {
                got.merge(line.thread() + " " + line.kind(), line.records(), Long::sum);
            }
        }
        assertEquals(expected, got, "the losses of each thread, per kind");
    }

    /**
     * Per thread that lost nothing and whose identity hash no other ring has: as many lines of
     * each event of the specification as its records give by the documented mapping, the exact
     * owner of each lock park on its MonitorContendedEnter, and in the extended log a ThreadPark,
     * ThreadParked and ThreadUnpark line per PARK, PARKED and UNPARK.
     */
    static void linesPerThread(Recording r, Csv csv) {
        Map<String, Integer> hashes = new HashMap<>();
        for (RecordedThread t : r.threads()) {
            hashes.merge(hash(r, t.threadObject()), 1, Integer::sum);
        }
        Map<String, Map<String, Integer>> specCounts = new HashMap<>();
        Map<String, Map<Long, List<String>>> entersAt = new HashMap<>(); // thread -> ns -> MonitorContendedEnter fields
        long start = r.startMonotonicNs();
        for (CsvSpecReader.Event e : csv.spec().events()) {
            String th = e.fields().get(0);
            specCounts.computeIfAbsent(th, k -> new TreeMap<>()).merge(e.name(), 1, Integer::sum);
            if (e.name().equals("MonitorContendedEnter")) {
                entersAt.computeIfAbsent(th, k -> new HashMap<>()).put(Math.round(e.seconds() * 1e9), e.fields());
            }
        }
        Map<String, Map<String, Integer>> extCounts = new HashMap<>();
        for (CsvLogReader.EventLine e : csv.ext().events()) {
            if (CsvLogReader.EXTENSION.contains(e.name())) {
                extCounts.computeIfAbsent(e.fields().get(0), k -> new TreeMap<>()).merge(e.name(), 1, Integer::sum);
            }
        }
        Map<Long, RecordedThread> byJavaId = new HashMap<>();
        for (RecordedThread t : r.threads()) {
            if (!t.isSystem() && t.javaThreadId() >= 0 && (!byJavaId.containsKey(t.javaThreadId()) || !t.isLate())) {
                byJavaId.put(t.javaThreadId(), t);
            }
        }
        int checked = 0;
        for (RecordedThread t : r.threads()) {
            String th = hash(r, t.threadObject());
            if (t.isSystem() || !t.losses().isEmpty() || t.torn() != 0 || t.dropped() != 0 || th.equals("00000000")
                    || hashes.get(th) != 1) {
                continue;
            }
            checked++;
            Map<String, Integer> spec = new TreeMap<>();
            Map<String, Integer> ext = new TreeMap<>();
            if (!t.isLate()) {
                spec.merge("ThreadStarted", 1, Integer::sum);
            }
            if (t.isEnded() && t.endNs() != 0) {
                spec.merge("ThreadEnded", 1, Integer::sum);
            }
            Event join = null;
            Event park = null;
            for (Event e : t.events()) {
                boolean lock = (e.flags() & SnapshotFormat.FLAG_LOCK) != 0;
                boolean inner = join != null && join.obj() == e.obj(); // the inner wait of a join has no line
                String line = switch (e.type()) {
                    case MONITOR_ENTER -> "MonitorContendedEnter";
                    case MONITOR_ENTERED -> "MonitorContendedEntered";
                    case MONITOR_WAIT -> inner ? null : "ObjectWait";
                    case MONITOR_WAITED -> inner ? null : "ObjectWaited";
                    case NOTIFY -> "ObjectNotify";
                    case NOTIFY_ALL -> "ObjectNotifyAll";
                    case START_CALL -> "ThreadStart";
                    case JOIN -> "ThreadJoin";
                    case JOINED -> "ThreadJoined";
                    case SLEEP -> "ThreadSleep";
                    case SLEPT -> "ThreadSlept";
                    // a park on a blocker: a lock's as an enter, any other as a wait
                    case PARK -> e.obj() == 0 ? null : lock ? "MonitorContendedEnter" : "ObjectWait";
                    case PARKED -> e.obj() == 0 || park == null || park.obj() != e.obj() ? null
                            : (park.flags() & SnapshotFormat.FLAG_LOCK) != 0 ? "MonitorContendedEntered"
                            : "ObjectWaited";
                    default -> null;
                };
                if (line != null) {
                    spec.merge(line, 1, Integer::sum);
                }
                switch (e.type()) {
                    case JOIN -> join = e;
                    case JOINED, THREAD_INTERRUPTED -> join = null;
                    case PARK -> {
                        park = e;
                        ext.merge("ThreadPark", 1, Integer::sum);
                        if (lock && e.obj() != 0) {
                            ext.merge("MonitorOwner", 0, Integer::sum);
                            RecordedThread owner = e.arg2() < 0 ? null : byJavaId.get(e.arg2());
                            String expected = owner == null || owner == t ? "00000000" : hash(r, owner.threadObject());
                            List<String> enter = entersAt.getOrDefault(th, Map.of()).get(e.ts() - start);
                            assertEquals(List.of(th, hash(r, e.obj()), expected), enter,
                                    () -> t.label() + ": the lock park " + e + " as a contended enter, its exact owner");
                        }
                    }
                    case PARKED -> {
                        park = null;
                        ext.merge("ThreadParked", 1, Integer::sum);
                    }
                    case UNPARK -> ext.merge("ThreadUnpark", 1, Integer::sum);
                    default -> {
                    }
                }
            }
            Map<String, Integer> got = specCounts.getOrDefault(th, Map.of());
            assertEquals(spec, got, () -> t.label() + ": lines of the specification's events");
            Map<String, Integer> gotExt = new TreeMap<>(extCounts.getOrDefault(th, Map.of()));
            if (ext.containsKey("MonitorOwner")) { // one per enter whose owner is known: lock parks' at least
                long lockParks = t.events().stream().filter(e -> e.type() == EventType.PARK && e.obj() != 0
                        && (e.flags() & SnapshotFormat.FLAG_LOCK) != 0).count();
                assertTrue(gotExt.getOrDefault("MonitorOwner", 0) >= lockParks, () -> t.label() + ": MonitorOwner");
            }
            gotExt.remove("MonitorOwner");
            ext.remove("MonitorOwner");
            assertEquals(ext, gotExt, () -> t.label() + ": the extension's park lines");
        }
        assertTrue(checked > 0 || r.hasLosses(), "some thread lost nothing");
    }

    /** The names of the specification's events in a log, each with its count. */
    static Map<String, Integer> counts(CsvSpecReader.Logs logs) {
        Map<String, Integer> n = new TreeMap<>();
        for (CsvSpecReader.Event e : logs.events()) {
            n.merge(e.name(), 1, Integer::sum);
        }
        return n;
    }

    /** The events of the specification among {@code names} that the log has no line of. */
    static List<String> missing(CsvSpecReader.Logs logs, List<String> names) {
        Map<String, Integer> n = counts(logs);
        List<String> out = new ArrayList<>();
        for (String name : names) {
            if (!n.containsKey(name)) {
                out.add(name);
            }
        }
        return out;
    }
}
