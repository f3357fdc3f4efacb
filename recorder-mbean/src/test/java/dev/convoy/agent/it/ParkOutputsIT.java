package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.convoy.agent.http.FileSource;
import dev.convoy.agent.http.WebServer;
import dev.convoy.agent.jmx.Summaries;
import dev.convoy.analysis.Deadlocks;
import dev.convoy.analysis.Interactions;
import dev.convoy.analysis.ThreadStates;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.schema.ChromeTraceChecker;
import dev.convoy.schema.CsvLogReader;
import dev.convoy.schema.TptpValidator;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.testapps.BlockingQueueHandoff;
import dev.convoy.testapps.IdlePool;
import dev.convoy.testapps.LatchWait;
import dev.convoy.testapps.LockDeadlock;
import dev.convoy.testapps.MixedDeadlock;
import dev.convoy.testapps.ReadWriteWait;
import dev.convoy.testapps.ReentrantLockStorm;
import dev.convoy.testapps.SemaphoreWait;

/**
 * Parks in every output, on real JVMs: each park test app runs under the agent with
 * {@code dumponexit=all} (the in-process dump writes the Chrome trace, TPTP XML, the CSV logs
 * and the snapshot); the report and the web view's JSON come from {@code ./convoy
 * view}'s server on the snapshot (over HTTP), the MBean summary from the code behind
 * {@code snapshot()}. For every thread that lost no record, each output must state what the
 * PARK, PARKED and UNPARK records state: as many lock parks (BLOCKED: Chrome {@code blocked
 * on} slices, TPTP {@code monContendedEnter}, the extended CSV log's {@code ThreadPark} lock 1,
 * blocks in the statistics) and other parks (WAITING: {@code parked} slices, {@code monWait},
 * lock 0, waits) as the records, with the exact owner of each lock park, and one {@code unpark}
 * arrow per UNPARK interaction; the default CSV log is the specification's events
 * ({@link CsvChecks}: a lock's park a contended enter with its exact owner, another a wait). Then what each app knows about itself: who owned the lock, who is
 * parked or deadlocked at the end. Files pass the format checkers. No assertion is on time.
 */
class ParkOutputsIT {

    private static final String OPTIONS = "dumponexit=all,dumpdir=.,dumpname=park,buffer=1m,memory=256m";
    private static final String REENTRANT_LOCK = "java.util.concurrent.locks.ReentrantLock";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    /** Every output of one run. */
    record Outputs(String stdout, Recording r, List<JsonNode> chrome, Document tptp, CsvLogReader.Logs csv,
                   String report, JsonNode web, CompositeData summary) {

        long field(String key) {
            return Recordings.field(stdout, key);
        }

        List<Long> longs(String key) {
            return Recordings.longs(stdout, key);
        }

        RecordedThread thread(String name) {
            return Recordings.thread(r, name);
        }

        RecordedThread byId(long javaId) {
            return ring(r, javaId).orElseThrow(() -> new AssertionError("no thread with id " + javaId));
        }
    }

    private Outputs run(Jdks.Jdk jdk, Class<?> app, String... args) throws Exception {
        jdk.assumePresent();
        ChildJvm.Result res = ChildJvm.run(jdk, work, OPTIONS, app.getName(), args).assertSucceeded();
        assertTrue(res.stdout().contains(" OK "), res.stdout());
        Path dir = res.dumpDir();
        Path snap = dir.resolve("park.cvysnap");
        Recording r = res.recording();
        List<JsonNode> chrome = ChromeTraceChecker.check(dir.resolve("park.json"));
        Document tptp = TptpValidator.validate(dir.resolve("park.trcxml"));
        CsvLogReader.Logs csv = CsvChecks.check(dir, "park", r).ext();
        String report;
        JsonNode web;
        try (WebServer server = WebServer.start(new FileSource(snap), "127.0.0.1", 0, null)) {
            report = get(server.url(), "api/report?format=text");
            web = JSON.readTree(get(server.url(), "api/snapshot"));
        }
        Outputs o = new Outputs(res.stdout(), r, chrome, tptp, csv, report, web, Summaries.of(r));
        checkEveryThread(o);
        return o;
    }

    private static String get(String base, String path) throws Exception {
        HttpResponse<String> resp = HTTP.send(HttpRequest.newBuilder(URI.create(base).resolve(path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, resp.statusCode(), () -> path + ": " + resp.body());
        return resp.body();
    }

    /** The ring of a Java thread id, the one not met late if two have it. */
    private static Optional<RecordedThread> ring(Recording r, long javaId) {
        return r.threads().stream().filter(t -> t.javaThreadId() == javaId)
                .sorted((a, b) -> Boolean.compare(a.isLate(), b.isLate())).findFirst();
    }

    private static boolean lock(Event e) {
        return (e.flags() & SnapshotFormat.FLAG_LOCK) != 0;
    }

    private static List<Event> of(RecordedThread t, EventType type) {
        return t.events().stream().filter(e -> e.type() == type).toList();
    }

    /** Threads whose records are all there, whose Java id and identity hash no other ring has. */
    private static List<RecordedThread> complete(Recording r) {
        Map<Long, Integer> ids = new HashMap<>();
        Map<Integer, Integer> hashes = new HashMap<>();
        for (RecordedThread t : r.threads()) {
            ids.merge(t.javaThreadId(), 1, Integer::sum);
            hashes.merge(r.identityHash(t.threadObject()), 1, Integer::sum);
        }
        return r.threads().stream().filter(t -> !t.isSystem() && t.overwritten() == 0 && t.torn() == 0 && t.dropped() == 0
                && ids.get(t.javaThreadId()) == 1 && hashes.get(r.identityHash(t.threadObject())) == 1).toList();
    }

    private static String hash(Recording r, long obj) {
        return String.format("%08X", r.identityHash(obj));
    }

    /** Counts, owners and arrows of every thread that lost nothing, in every output. */
    private static void checkEveryThread(Outputs o) {
        Recording r = o.r;
        Map<Long, String> trackNames = new HashMap<>();
        Map<Long, List<JsonNode>> parkSlices = new HashMap<>();
        for (JsonNode e : o.chrome) {
            if (e.path("ph").asText().equals("M") && e.path("name").asText().equals("thread_name")) {
                trackNames.put(e.path("tid").asLong(), e.path("args").path("name").asText());
            } else if (e.path("ph").asText().equals("X") && e.path("cat").asText().equals("park")) {
                parkSlices.computeIfAbsent(e.path("tid").asLong(), k -> new ArrayList<>()).add(e);
            }
        }
        java.util.Set<Long> blockers = new java.util.HashSet<>();
        for (RecordedThread t : r.threads()) {
            of(t, EventType.PARK).stream().filter(p -> p.obj() != 0).forEach(p -> blockers.add(p.obj()));
        }
        Map<Long, List<Element>> enters = new HashMap<>();
        Map<Long, List<Element>> waits = new HashMap<>();
        for (Element e : TptpValidator.elements(o.tptp.getDocumentElement())) {
            String tag = e.getTagName();
            if ((tag.equals("monContendedEnter") || tag.equals("monWait"))
                    && blockers.contains(Long.parseLong(e.getAttribute("objIdRef")))) {
                (tag.equals("monWait") ? waits : enters)
                        .computeIfAbsent(Long.parseLong(e.getAttribute("threadIdRef")), k -> new ArrayList<>()).add(e);
            }
        }
        Map<String, List<CsvLogReader.EventLine>> csvParks = new HashMap<>();
        Map<String, List<CsvLogReader.EventLine>> csvUnparks = new HashMap<>();
        for (CsvLogReader.EventLine e : o.csv.events()) {
            if (e.name().equals("ThreadPark")) {
                csvParks.computeIfAbsent(e.fields().get(0), k -> new ArrayList<>()).add(e);
            } else if (e.name().equals("ThreadUnpark")) {
                csvUnparks.computeIfAbsent(e.fields().get(0), k -> new ArrayList<>()).add(e);
            }
        }
        Map<Long, CompositeData> summaryRows = new HashMap<>();
        for (Object v : ((TabularData) o.summary.get("threads")).values()) {
            CompositeData c = (CompositeData) v;
            summaryRows.put((Long) c.get("ring"), c);
        }
        Map<Long, JsonNode> webRows = new HashMap<>();
        for (JsonNode t : o.web.path("threads")) {
            webRows.put(t.path("ring").asLong(), t);
        }
        Map<String, long[]> reportRows = reportThreadRows(o.report);
        dev.convoy.model.IdleRules.Classifier idle = r.idleRules().classifier(r);

        for (RecordedThread t : complete(r)) {
            String who = t.label();
            List<Event> parks = of(t, EventType.PARK);
            List<Event> lockParks = parks.stream().filter(ParkOutputsIT::lock).toList();
            long blocks = of(t, EventType.MONITOR_ENTER).size() + lockParks.size();
            // waits: monitor waits but a join's (a wait in Thread.join is a join) and non-lock parks;
            // those the built-in idle rules call idle are counted apart
            List<Event> allWaits = new java.util.ArrayList<>(of(t, EventType.MONITOR_WAIT).stream()
                    .filter(e -> !r.isJoinStack(e.stackId())).toList());
            allWaits.addAll(parks.stream().filter(p -> !lock(p)).toList());
            long idleExpected = allWaits.stream().filter(e -> idle.isIdle(t, e.stackId())).count();
            long waitsExpected = allWaits.size() - idleExpected;

            // Chrome: one park slice per PARK, in order, BLOCKED or WAITING, with the exact owner
            List<JsonNode> slices = parkSlices.getOrDefault(t.javaThreadId(), List.of());
            assertEquals(parks.size(), slices.size(), () -> who + ": park slices " + slices);
            for (int i = 0; i < parks.size(); i++) {
                Event p = parks.get(i);
                JsonNode s = slices.get(i);
                JsonNode args = s.path("args");
                String name = s.path("name").asText();
                assertEquals(lock(p), name.startsWith("blocked on "), () -> who + ": " + s + " for " + p);
                if (!lock(p)) {
                    assertTrue(name.startsWith("parked"), () -> who + ": " + s);
                }
                if (p.obj() != 0) {
                    assertEquals(p.obj(), args.path("monitor_id").asLong(), () -> who + ": " + s);
                } else {
                    assertTrue(args.path("monitor_id").isMissingNode(), () -> who + ": " + s);
                }
                if (lock(p)) {
                    assertTrue(args.path("owner_exact").asBoolean(), () -> who + ": " + s);
                    long owner = p.arg2() < 0 ? 0 : p.arg2();
                    assertEquals(owner, args.path("owner_tid").asLong(), () -> who + ": " + s + " for " + p);
                    String ownerName = p.arg2() < 0 ? "none" : ring(r, p.arg2()).map(RecordedThread::label)
                            .orElse("thread " + p.arg2());
                    assertEquals(ownerName, args.path("owner").asText(), () -> who + ": " + s);
                } else {
                    assertTrue(args.path("owner_exact").isMissingNode(), () -> who + ": " + s);
                }
            }

            // TPTP: a lock park with a blocker is monContendedEnter with its exact owner's ring, any other monWait
            List<Event> lockWithBlocker = lockParks.stream().filter(p -> p.obj() != 0).toList();
            List<Element> tEnters = enters.getOrDefault(t.ringId(), List.of());
            assertEquals(lockWithBlocker.size(), tEnters.size(), () -> who + ": TPTP monContendedEnter of parks");
            for (int i = 0; i < tEnters.size(); i++) {
                Event p = lockWithBlocker.get(i);
                Element e = tEnters.get(i);
                assertEquals(p.obj(), Long.parseLong(e.getAttribute("objIdRef")));
                long ownerRing = p.arg2() < 0 ? 0 : ring(r, p.arg2()).map(RecordedThread::ringId).orElse(0L);
                assertEquals(ownerRing, Long.parseLong(e.getAttribute("threadOwner")),
                        () -> who + ": threadOwner of " + p);
            }
            long waitWithBlocker = parks.stream().filter(p -> !lock(p) && p.obj() != 0).count();
            assertEquals(waitWithBlocker, waits.getOrDefault(t.ringId(), List.of()).size(),
                    () -> who + ": TPTP monWait of parks");

            // extended CSV: ThreadPark per PARK (lock 1|0, exact ownerThread), ThreadUnpark per UNPARK
            String me = hash(r, t.threadObject());
            List<CsvLogReader.EventLine> lines = csvParks.getOrDefault(me, List.of());
            assertEquals(parks.size(), lines.size(), () -> who + ": CSV ThreadPark lines");
            for (int i = 0; i < parks.size(); i++) {
                Event p = parks.get(i);
                List<String> f = lines.get(i).fields();
                assertEquals(lock(p) ? "1" : "0", f.get(3), () -> who + ": " + f);
                assertEquals(p.obj() == 0 ? "00000000" : hash(r, p.obj()), f.get(1), () -> who + ": " + f);
                String owner = !lock(p) || p.arg2() < 0 ? "00000000"
                        : ring(r, p.arg2()).map(x -> hash(r, x.threadObject())).orElse("00000000");
                assertEquals(owner, f.get(2), () -> who + ": ownerThread of " + p + ": " + f);
            }
            List<Event> unparks = of(t, EventType.UNPARK);
            List<CsvLogReader.EventLine> uLines = csvUnparks.getOrDefault(me, List.of());
            assertEquals(unparks.size(), uLines.size(), () -> who + ": CSV ThreadUnpark lines");
            for (int i = 0; i < unparks.size(); i++) {
                assertEquals(hash(r, unparks.get(i).obj()), uLines.get(i).fields().get(1), who);
            }

            // Statistics: the MBean summary, the web view, the report count lock parks as blocks, others as waits
            CompositeData row = summaryRows.get(t.ringId());
            assertNotNull(row, who);
            assertEquals(blocks, row.get("blockedCount"), () -> who + ": summary " + row);
            assertEquals(waitsExpected, row.get("waitCount"), () -> who + ": summary " + row);
            assertEquals(idleExpected, row.get("idleCount"), () -> who + ": summary " + row);
            JsonNode w = webRows.get(t.ringId());
            assertNotNull(w, who);
            assertEquals(blocks, w.path("blockedCount").asLong(), () -> who + ": web " + w);
            assertEquals(waitsExpected, w.path("waitedCount").asLong(), () -> who + ": web " + w);
            assertEquals(idleExpected, w.path("idleCount").asLong(), () -> who + ": web " + w);
            long[] rep = reportRows.get(who);
            if (rep != null) { // the report lists the ten threads that waited most
                assertEquals(blocks, rep[0], () -> who + ": report row");
                assertEquals(waitsExpected, rep[1], () -> who + ": report row");
            }
        }

        // Unpark arrows: one Chrome flow per UNPARK interaction, unparker to woken thread
        Map<Long, JsonNode> starts = new HashMap<>();
        Map<String, Integer> arrows = new TreeMap<>();
        for (JsonNode e : o.chrome) {
            if (e.path("ph").asText().equals("s") && e.path("cat").asText().equals("unpark")) {
                starts.put(e.path("id").asLong(), e);
            }
        }
        for (JsonNode f : o.chrome) {
            if (f.path("ph").asText().equals("f") && f.path("cat").asText().equals("unpark")) {
                JsonNode s = starts.get(f.path("id").asLong());
                assertNotNull(s, () -> "flow end without start: " + f);
                arrows.merge(s.path("tid").asLong() + "->" + f.path("tid").asLong(), 1, Integer::sum);
            }
        }
        Map<String, Integer> expected = new TreeMap<>();
        for (Interactions.Interaction i : Interactions.of(r).of(Interactions.Kind.UNPARK)) {
            expected.merge(i.from().javaThreadId() + "->" + i.to().javaThreadId(), 1, Integer::sum);
        }
        assertEquals(expected, arrows, "unpark arrows (from tid -> to tid: count) = UNPARK interactions");
    }

    /** The report's "Threads that waited most" rows: name to {blocks, waits}. */
    private static Map<String, long[]> reportThreadRows(String report) {
        if (report.contains("No thread was blocked or waited.")) {
            return Map.of(); // only idle waits: no contention to rank
        }
        int from = report.indexOf("Threads that waited most");
        int to = report.indexOf("Who kept them waiting");
        if (to < 0 && report.contains("No thread was blocked or waited.")) {
            return Map.of(); // every wait idle (an idle pool): the ranking is empty, the idle threads apart
        }
        assertTrue(from >= 0 && to > from, report);
        Map<String, long[]> rows = new HashMap<>();
        Pattern row = Pattern.compile("^  (\\S.*?)\\s+(\\d+)\\s+\\S+ \\S+\\s+(\\d+)\\s+\\S+ \\S+\\s+\\S+ \\S+$");
        for (String line : report.substring(from, to).split("\n")) {
            Matcher m = row.matcher(line);
            if (m.matches()) {
                rows.put(m.group(1), new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3))});
            }
        }
        assertFalse(rows.isEmpty(), report);
        return rows;
    }

    private static List<JsonNode> slices(Outputs o, RecordedThread t) {
        return o.chrome.stream().filter(e -> e.path("ph").asText().equals("X") && e.path("cat").asText().equals("park")
                && e.path("tid").asLong() == t.javaThreadId()).toList();
    }

    private static JsonNode last(List<JsonNode> l) {
        assertFalse(l.isEmpty());
        return l.get(l.size() - 1);
    }

    private static List<ThreadStates.Span> spans(Outputs o, RecordedThread t) {
        return ThreadStates.of(o.r).of(t);
    }

    /** The state at the snapshot: the last span, DEAD excluded. */
    private static ThreadStates.Span lastSpan(Outputs o, RecordedThread t) {
        List<ThreadStates.Span> s = spans(o, t);
        assertFalse(s.isEmpty(), t.name());
        return s.get(s.size() - 1);
    }

    private static CompositeData summaryThread(Outputs o, RecordedThread t) {
        return ((TabularData) o.summary.get("threads")).values().stream().map(v -> (CompositeData) v)
                .filter(c -> c.get("ring").equals(t.ringId())).findFirst().orElseThrow();
    }

    private static JsonNode webThread(Outputs o, RecordedThread t) {
        for (JsonNode w : o.web.path("threads")) {
            if (w.path("ring").asLong() == t.ringId()) {
                return w;
            }
        }
        throw new AssertionError(t.name() + " in the web view");
    }

    private static long lockParks(RecordedThread t) {
        return of(t, EventType.PARK).stream().filter(ParkOutputsIT::lock).count();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void reentrantLockStorm(Jdks.Jdk jdk) throws Exception {
        Outputs o = run(jdk, ReentrantLockStorm.class, "4", "300");
        RecordedThread main = o.byId(o.field("ownerAtStart"));
        long total = 0;
        Interactions in = Interactions.of(o.r);
        for (long id : o.longs("threadIds")) {
            RecordedThread w = o.byId(id);
            assertEquals(0, w.overwritten());
            total += lockParks(w);
            // the first park of each worker: main held the lock, exactly, in every format
            JsonNode first = slices(o, w).get(0);
            assertEquals("blocked on " + REENTRANT_LOCK, first.path("name").asText());
            assertEquals(main.javaThreadId(), first.path("args").path("owner_tid").asLong(), first::toString);
            assertEquals("main", first.path("args").path("owner").asText());
            // its first lock park's element (a contended monitor enter, in JDK code, may come before it)
            long lock = w.events().stream().filter(ParkOutputsIT::lock).findFirst().orElseThrow().obj();
            Element enter = TptpValidator.elements(o.tptp.getDocumentElement()).stream()
                    .filter(e -> e.getTagName().equals("monContendedEnter")
                            && e.getAttribute("threadIdRef").equals(Long.toString(w.ringId()))
                            && e.getAttribute("objIdRef").equals(Long.toString(lock)))
                    .findFirst().orElseThrow();
            assertEquals(Long.toString(main.ringId()), enter.getAttribute("threadOwner"), () -> w.name() + ": "
                    + TptpValidator.elements(enter).stream().map(a -> a.getAttribute("name") + "=" + a.getAttribute("value"))
                    .toList() + ", records " + w.events().stream().limit(12).toList());
            CsvLogReader.EventLine park = o.csv.events().stream().filter(e -> e.name().equals("ThreadPark")
                    && e.fields().get(0).equals(hash(o.r, w.threadObject()))).findFirst().orElseThrow();
            assertEquals(hash(o.r, main.threadObject()), park.fields().get(2));
            assertEquals("1", park.fields().get(3));
            // the workers are blocked on the lock, woken by unparks
            assertTrue(spans(o, w).stream().anyMatch(s -> s.state() == ThreadStates.State.BLOCKED
                    && s.interval().isPark()), () -> w.name() + " BLOCKED on the lock: " + spans(o, w));
            assertTrue(in.of(Interactions.Kind.UNPARK).stream().anyMatch(i -> i.to() == w),
                    () -> w.name() + " unparked by someone");
        }
        assertTrue(total > 0);
        // per lock class: the report, the web view and the MBean summary agree with the records
        Matcher m = Pattern.compile("\n  " + Pattern.quote(REENTRANT_LOCK) + "\\s+(\\d+)\\s").matcher(o.report);
        assertTrue(m.find(), o.report);
        assertEquals(total, Long.parseLong(m.group(1)), "report: blocks on ReentrantLock");
        JsonNode cls = null;
        for (JsonNode c : o.web.path("classes")) {
            if (c.path("className").asText().equals(REENTRANT_LOCK)) {
                cls = c;
            }
        }
        assertNotNull(cls, o.web.path("classes")::toString);
        assertEquals(total, cls.path("blocked").path("count").asLong(), "web: blocks on ReentrantLock");
        CompositeData top = ((TabularData) o.summary.get("mostContendedMonitors")).values().stream()
                .map(v -> (CompositeData) v).filter(c -> c.get("monitorClass").equals(REENTRANT_LOCK))
                .findFirst().orElseThrow();
        assertEquals(total, top.get("blockedCount"), () -> "summary: " + top);
        assertEquals(0, ((String[]) o.summary.get("deadlocks")).length);
        assertTrue(o.report.contains("0 deadlocks") || o.report.contains("None at snapshot time"), o.report);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void blockingQueueHandoff(Jdks.Jdk jdk) throws Exception {
        Outputs o = run(jdk, BlockingQueueHandoff.class, "100");
        RecordedThread producer = o.thread(BlockingQueueHandoff.PRODUCER);
        RecordedThread consumer = o.thread(BlockingQueueHandoff.CONSUMER);
        // the condition parks are waits, named for what they are
        JsonNode take = slices(o, consumer).get(0);
        assertEquals("parked on " + BlockingQueueHandoff.CONDITION, take.path("name").asText());
        assertTrue(take.path("args").path("owner_exact").isMissingNode());
        assertTrue(spans(o, consumer).stream().anyMatch(s -> s.state() == ThreadStates.State.WAITING
                && s.interval().isPark()), () -> "consumer WAITING in take(): " + spans(o, consumer));
        assertTrue(spans(o, producer).stream().anyMatch(s -> s.state() == ThreadStates.State.WAITING
                && s.interval().isPark()), () -> "producer WAITING in put(): " + spans(o, producer));
        // put unparks the consumer, take the producer: arrows both ways
        List<Interactions.Interaction> unparks = Interactions.of(o.r).of(Interactions.Kind.UNPARK);
        assertTrue(unparks.stream().anyMatch(i -> i.from() == producer && i.to() == consumer), unparks::toString);
        assertTrue(unparks.stream().anyMatch(i -> i.from() == consumer && i.to() == producer), unparks::toString);
        assertTrue(arrow(o, producer, consumer), "a Chrome unpark arrow from the producer to the consumer");
        assertTrue(arrow(o, consumer, producer), "a Chrome unpark arrow from the consumer to the producer");
        assertTrue(summaryThread(o, consumer).get("waitCount").equals(webThread(o, consumer).path("waitedCount")
                .asLong()));
    }

    /** A Chrome {@code unpark} flow from {@code from}'s track to {@code to}'s. */
    private static boolean arrow(Outputs o, RecordedThread from, RecordedThread to) {
        Map<Long, Long> startTid = new HashMap<>();
        for (JsonNode e : o.chrome) {
            if (e.path("ph").asText().equals("s") && e.path("cat").asText().equals("unpark")) {
                startTid.put(e.path("id").asLong(), e.path("tid").asLong());
            }
        }
        return o.chrome.stream().anyMatch(f -> f.path("ph").asText().equals("f")
                && f.path("cat").asText().equals("unpark") && f.path("tid").asLong() == to.javaThreadId()
                && Long.valueOf(from.javaThreadId()).equals(startTid.get(f.path("id").asLong())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void readWriteLockOwners(Jdks.Jdk jdk) throws Exception {
        Outputs o = run(jdk, ReadWriteWait.class, "3");
        RecordedThread writer = o.thread(ReadWriteWait.WRITER);
        RecordedThread late = o.thread(ReadWriteWait.LATE_READER);
        assertEquals(o.field("writerId"), writer.javaThreadId());
        String rwLock = "java.util.concurrent.locks.ReentrantReadWriteLock";
        // the writer waited for readers holding the lock shared: no exclusive owner
        JsonNode w = slices(o, writer).get(0);
        assertEquals("blocked on " + rwLock, w.path("name").asText());
        assertEquals("none", w.path("args").path("owner").asText());
        assertEquals(0, w.path("args").path("owner_tid").asLong());
        assertTrue(w.path("args").path("owner_exact").asBoolean());
        // the late reader waited for the writer, its exact owner
        JsonNode l = slices(o, late).get(0);
        assertEquals("blocked on " + rwLock, l.path("name").asText());
        assertEquals(writer.javaThreadId(), l.path("args").path("owner_tid").asLong());
        assertEquals(ReadWriteWait.WRITER, l.path("args").path("owner").asText());
        CsvLogReader.EventLine lateCsv = o.csv.events().stream().filter(e -> e.name().equals("ThreadPark")
                && e.fields().get(0).equals(hash(o.r, late.threadObject()))).findFirst().orElseThrow();
        assertEquals(hash(o.r, writer.threadObject()), lateCsv.fields().get(2));
        Element lateTptp = TptpValidator.elements(o.tptp.getDocumentElement()).stream()
                .filter(e -> e.getTagName().equals("monContendedEnter")
                        && e.getAttribute("threadIdRef").equals(Long.toString(late.ringId())))
                .findFirst().orElseThrow();
        assertEquals(Long.toString(writer.ringId()), lateTptp.getAttribute("threadOwner"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void semaphoreAndLatch(Jdks.Jdk jdk) throws Exception {
        Outputs sem = run(jdk, SemaphoreWait.class, "50");
        JsonNode timed = last(slices(sem, sem.thread(SemaphoreWait.TIMED)));
        assertEquals("blocked on java.util.concurrent.Semaphore", timed.path("name").asText());
        assertEquals("timed out", timed.path("args").path("result").asText());
        JsonNode interrupted = last(slices(sem, sem.thread(SemaphoreWait.INTERRUPTED)));
        assertEquals("interrupted", interrupted.path("args").path("result").asText());
        assertEquals("none", interrupted.path("args").path("owner").asText(), "a semaphore has no owner");

        Outputs latch = run(jdk, LatchWait.class, "3");
        for (long id : latch.longs("threadIds")) {
            RecordedThread t = latch.byId(id);
            JsonNode s = slices(latch, t).get(0);
            assertEquals("parked on java.util.concurrent.CountDownLatch", s.path("name").asText());
            assertEquals("unparked", s.path("args").path("result").asText());
            assertTrue(spans(latch, t).stream().anyMatch(x -> x.state() == ThreadStates.State.WAITING
                    && x.interval().isPark()), () -> t.name() + " WAITING on the latch");
            assertTrue(Interactions.of(latch.r).of(Interactions.Kind.UNPARK).stream().anyMatch(i -> i.to() == t),
                    () -> t.name() + " unparked");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void idlePoolWorkersWait(Jdks.Jdk jdk) throws Exception {
        Outputs o = run(jdk, IdlePool.class, "3");
        for (int i = 0; i < 3; i++) {
            RecordedThread w = o.thread(IdlePool.THREAD_PREFIX + i);
            ThreadStates.Span s = lastSpan(o, w);
            assertEquals(ThreadStates.State.WAITING, s.state(), () -> w.name() + ": " + spans(o, w));
            assertTrue(s.interval().isPark() && s.interval().isOpen(), s::toString);
            assertEquals(o.r.snapshotMonotonicNs(), s.endNs(), "waiting to the snapshot");
            JsonNode slice = last(slices(o, w));
            assertEquals("parked on " + IdlePool.BLOCKER, slice.path("name").asText());
            assertEquals("still parked at snapshot", slice.path("args").path("result").asText());
            assertEquals("parked", summaryThread(o, w).get("state"));
            assertEquals("parked", webThread(o, w).path("state").asText());
            assertTrue(webThread(o, w).path("nsByState").has("WAITING"));
        }
        assertEquals(0, Deadlocks.find(o.r).size(), "idle workers wait for no owner");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void reentrantLockDeadlock(Jdks.Jdk jdk) throws Exception {
        Outputs o = run(jdk, LockDeadlock.class);
        RecordedThread a = o.byId(o.field("aId"));
        RecordedThread b = o.byId(o.field("bId"));
        assertEquals(LockDeadlock.THREAD_A, a.name());
        List<Deadlocks.Deadlock> ds = Deadlocks.find(o.r);
        assertEquals(1, ds.size(), ds::toString);
        Deadlocks.Deadlock d = ds.get(0);
        assertEquals(java.util.Set.of(a, b), java.util.Set.copyOf(d.threads()));
        assertTrue(d.parked(0) && d.parked(1), "both parked on a lock");
        for (RecordedThread[] pair : new RecordedThread[][] {{a, b}, {b, a}}) {
            RecordedThread t = pair[0];
            RecordedThread owner = pair[1];
            assertEquals(ThreadStates.State.DEADLOCKED, lastSpan(o, t).state(), () -> t.name() + ": " + spans(o, t));
            JsonNode s = last(slices(o, t));
            assertEquals("blocked on " + REENTRANT_LOCK, s.path("name").asText());
            assertEquals(owner.javaThreadId(), s.path("args").path("owner_tid").asLong());
            assertEquals("still blocked at snapshot", s.path("args").path("result").asText());
            assertEquals("parked", summaryThread(o, t).get("state"));
            assertTrue(webThread(o, t).path("nsByState").has("DEADLOCKED"), webThread(o, t)::toString);
            assertTrue(Pattern.compile(Pattern.quote(t.name() + " is parked on " + REENTRANT_LOCK)
                    + "@[0-9a-f]{1,8}, held by " + Pattern.quote(owner.name())).matcher(o.report).find(), o.report);
        }
        // the header's counts end the sentence, or go on to the idle waits a JDK thread may have made
        assertTrue(Pattern.compile(", 1 deadlock[.;]").matcher(o.report).find(), o.report);
        String[] summary = (String[]) o.summary.get("deadlocks");
        assertEquals(1, summary.length, Arrays.toString(summary));
        assertTrue(summary[0].contains(a.name() + " parked on " + REENTRANT_LOCK), summary[0]);
        assertTrue(summary[0].contains(b.name() + " parked on " + REENTRANT_LOCK), summary[0]);
        JsonNode webD = o.web.path("deadlocks");
        assertEquals(1, webD.size(), webD::toString);
        for (JsonNode t : webD.get(0).path("threads")) {
            assertEquals(REENTRANT_LOCK, t.path("monitorClass").asText());
            assertTrue(t.path("stack").asLong() != 0, "the PARK's stack");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void mixedDeadlock(Jdks.Jdk jdk) throws Exception {
        Outputs o = run(jdk, MixedDeadlock.class);
        RecordedThread a = o.byId(o.field("aId"));
        RecordedThread b = o.byId(o.field("bId"));
        String monitor = MixedDeadlock.Monitor.class.getName();
        List<Deadlocks.Deadlock> ds = Deadlocks.find(o.r);
        assertEquals(1, ds.size(), ds::toString);
        assertEquals(java.util.Set.of(a, b), java.util.Set.copyOf(ds.get(0).threads()));
        assertEquals(ThreadStates.State.DEADLOCKED, lastSpan(o, a).state(), () -> spans(o, a).toString());
        assertEquals(ThreadStates.State.DEADLOCKED, lastSpan(o, b).state(), () -> spans(o, b).toString());
        // A parked on the lock B owns (exact), B blocked on the monitor A holds (exact where the recorder
        // read the owner at the enter, else inferred from the snapshot: the slice says which)
        JsonNode sa = last(slices(o, a));
        assertEquals(b.javaThreadId(), sa.path("args").path("owner_tid").asLong());
        assertTrue(sa.path("args").path("owner_exact").asBoolean());
        JsonNode sb = o.chrome.stream().filter(e -> e.path("ph").asText().equals("X")
                && e.path("cat").asText().equals("monitor") && e.path("tid").asLong() == b.javaThreadId()
                && e.path("args").path("monitor").asText().equals(monitor)).reduce((x, y) -> y).orElseThrow();
        assertEquals(a.javaThreadId(), sb.path("args").path("owner_tid").asLong(), sb::toString);
        assertTrue(sb.path("args").path("owner_exact").isBoolean(), "a monitor's owner is exact or inferred: " + sb);
        Element bEnter = TptpValidator.elements(o.tptp.getDocumentElement()).stream()
                .filter(e -> e.getTagName().equals("monContendedEnter")
                        && e.getAttribute("threadIdRef").equals(Long.toString(b.ringId())))
                .reduce((x, y) -> y).orElseThrow();
        assertEquals(Long.toString(a.ringId()), bEnter.getAttribute("threadOwner"));
        assertTrue(Pattern.compile(Pattern.quote(a.name() + " is parked on " + REENTRANT_LOCK)
                + "@[0-9a-f]{1,8}, held by " + Pattern.quote(b.name())).matcher(o.report).find(), o.report);
        assertTrue(Pattern.compile(Pattern.quote(b.name() + " is blocked on " + monitor)
                + "@[0-9a-f]{1,8}, held by " + Pattern.quote(a.name())).matcher(o.report).find(), o.report);
        String[] summary = (String[]) o.summary.get("deadlocks");
        assertEquals(1, summary.length, Arrays.toString(summary));
        assertTrue(summary[0].contains(a.name() + " parked on " + REENTRANT_LOCK), summary[0]);
        assertTrue(summary[0].contains(b.name() + " blocked on " + monitor), summary[0]);
        assertEquals("parked", summaryThread(o, a).get("state"));
        assertEquals("blocked", summaryThread(o, b).get("state"));
        JsonNode webD = o.web.path("deadlocks");
        assertEquals(1, webD.size(), webD::toString);
        Map<String, String> classes = new HashMap<>();
        webD.get(0).path("threads").forEach(t -> classes.put(t.path("name").asText(), t.path("monitorClass").asText()));
        assertEquals(Map.of(a.name(), REENTRANT_LOCK, b.name(), monitor), classes);
    }
}
