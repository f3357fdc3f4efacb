package dev.convoy.agent.it;

import static dev.convoy.agent.it.Recordings.thread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.convoy.report.ContentionReport;
import dev.convoy.analysis.Deadlocks;
import dev.convoy.analysis.Interactions;
import dev.convoy.snapshot.SnapshotFormat;
import dev.convoy.analysis.Intervals;
import dev.convoy.analysis.Blockers;
import dev.convoy.analysis.Interactions.Interaction;
import dev.convoy.analysis.Interactions.Kind;
import dev.convoy.analysis.Interactions.Notification;
import dev.convoy.analysis.Interval;
import dev.convoy.analysis.MonitorStatistics;
import dev.convoy.analysis.MonitorStatistics.ClassRow;
import dev.convoy.analysis.MonitorStatistics.ThreadRow;
import dev.convoy.analysis.ThreadStates;
import dev.convoy.model.Event;
import dev.convoy.model.EventType;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.testapps.Deadlock;
import dev.convoy.testapps.HandoffChain;
import dev.convoy.testapps.InterruptWaiter;
import dev.convoy.testapps.JoinChain;
import dev.convoy.testapps.NotifyAllHerd;
import dev.convoy.testapps.ProducerConsumer;

/**
 * Ground truth: the test apps run under the agent with {@code contanalysis=on}, on every JDK
 * of {@link Jdks}, and the analysis ({@link Interactions}, {@link Deadlocks},
 * {@link MonitorStatistics}) must recover exactly what each app is known to do (its
 * Javadoc and the summary line it prints): who started, notified, interrupted, joined and
 * handed a lock to whom, in which order, and statistics equal to sums computed here from
 * the raw events. No assertion is on time itself.
 */
class GroundTruthIT {

    private static final String ON = ChildJvm.dumping("contanalysis=on");

    @TempDir
    Path work;

    static List<Jdks.Jdk> jdks() {
        return Jdks.all().toList();
    }

    private record Run(String stdout, Recording recording) {
    }

    private Run run(Jdks.Jdk jdk, Class<?> app, String... args) throws Exception {
        ChildJvm.Result res = ChildJvm.run(jdk, work, ON, app.getName(), args).assertSucceeded();
        assertTrue(res.stdout().contains(" OK "), res.stdout());
        return new Run(res.stdout(), res.recording());
    }

    /** An integer field {@code key=N} of the app's summary line. */
    private static int field(String stdout, String key) {
        Matcher m = Pattern.compile("\\b" + key + "=(\\d+)\\b").matcher(stdout);
        assertTrue(m.find(), () -> key + " in " + stdout);
        return Integer.parseInt(m.group(1));
    }

    private static String names(List<Interaction> is) {
        return is.stream().map(Interaction::toString).collect(Collectors.joining("\n"));
    }

    /** The interactions of a kind whose monitor is of the given class. */
    private static List<Interaction> on(Recording r, Interactions in, Kind kind, Class<?> monitorClass) {
        return in.of(kind).stream().filter(i -> r.objectClassName(i.monitor()).equals(monitorClass.getName()))
                .toList();
    }

    /** Each named thread was started by the expected starter (START, exactly once). */
    private static void assertStarts(Interactions in, Map<String, String> starterOf) {
        Map<String, List<String>> starters = new HashMap<>();
        for (Interaction i : in.of(Kind.START)) {
            starters.computeIfAbsent(i.to().name(), k -> new ArrayList<>()).add(i.from().name());
            assertTrue(i.fromNs() <= i.toNs(), i::toString);
        }
        starterOf.forEach((started, starter) -> assertEquals(List.of(starter), starters.get(started),
                () -> "starter of " + started + ": " + names(in.of(Kind.START))));
    }

    /**
     * Per thread, the blocked count and time as the sum over its MONITOR_ENTER .. MONITOR_ENTERED
     * pairs (and lock parks), and the waited count and time over MONITOR_WAIT .. MONITOR_WAITED
     * (and other parks), computed here from the raw events (an interval still open counts up to
     * the thread's end or the snapshot). A wait whose stack is in {@code Thread.join} is a join,
     * not counted (the JVM's exit joins the shutdown hooks); a wait the built-in idle rules call
     * idle is counted apart, as idle.
     */
    /** Adds one block (at 0), wait (2) or idle wait (4) of {@code ns} to a thread's and a class's sums. */
    private static void count(long[] v, Map<String, long[]> byClass, String cls, int at, long ns) {
        v[at]++;
        v[at + 1] += ns;
        long[] c = byClass.computeIfAbsent(cls, k -> new long[6]);
        c[at]++;
        c[at + 1] += ns;
    }

    private static void assertStatisticsFromRawEvents(Recording r) {
        MonitorStatistics stats = MonitorStatistics.of(r);
        dev.convoy.model.IdleRules.Classifier idle = r.idleRules().classifier(r);
        Map<String, long[]> byClass = new HashMap<>(); // blocked count, ns, waited count, ns, idle count, ns
        for (ThreadRow row : stats.threads()) {
            RecordedThread t = row.thread();
            long[] v = new long[6]; // blocked count, ns, waited count, ns, idle count, ns
            Event enter = null, wait = null, park = null;
            for (Event e : t.events()) {
                switch (e.type()) {
                    case PARK -> park = (e.flags() & SnapshotFormat.FLAG_LOCK) == 0 && idle.isIdle(t, e.stackId()) ? null : e;
                    case PARKED -> {
                        if (park != null && park.obj() == e.obj()) {
                            boolean lock = (park.flags() & SnapshotFormat.FLAG_LOCK) != 0;
                            count(v, byClass, parkClassOf(r, e.obj()), lock ? 0 : idle.isIdle(t, park.stackId()) ? 4 : 2,
                                    e.ts() - park.ts());
                        }
                        park = null;
                    }
                    case MONITOR_ENTER -> enter = e;
                    case MONITOR_ENTERED -> {
                        if (enter != null && enter.obj() == e.obj()) {
                            count(v, byClass, classOf(r, e.obj()), 0, e.ts() - enter.ts());
                        }
                        enter = null;
                    }
                    case MONITOR_WAIT -> wait = r.isJoinStack(e.stackId()) ? null : e;
                    case MONITOR_WAITED -> {
                        if (wait != null && wait.obj() == e.obj()) {
                            count(v, byClass, classOf(r, e.obj()), idle.isIdle(t, wait.stackId()) ? 4 : 2,
                                    e.ts() - wait.ts());
                        }
                        wait = null;
                    }
                    case JOIN -> throw new AssertionError("no joins expected: " + e);
                    default -> {
                    }
                }
            }
            long end = t.isEnded() && t.endNs() != 0 ? t.endNs() : r.snapshotMonotonicNs();
            if (enter != null) {
                count(v, byClass, classOf(r, enter.obj()), 0, end - enter.ts());
            }
            if (wait != null) {
                count(v, byClass, classOf(r, wait.obj()), idle.isIdle(t, wait.stackId()) ? 4 : 2, end - wait.ts());
            }
            if (park != null) {
                boolean lock = (park.flags() & SnapshotFormat.FLAG_LOCK) != 0;
                count(v, byClass, parkClassOf(r, park.obj()), lock ? 0 : idle.isIdle(t, park.stackId()) ? 4 : 2,
                        end - park.ts());
            }
            String n = t.name();
            assertEquals(List.of(v[0], v[1], v[2], v[3], v[4], v[5]), List.of(row.blockedCount(), row.blockedNs(),
                    row.waitedCount(), row.waitedNs(), row.idleCount(), row.idleNs()),
                    () -> "blocked, waited, idle count/ns of " + n);
        }
        for (ClassRow c : stats.classes()) {
            long[] v = byClass.getOrDefault(c.className(), new long[6]);
            assertEquals(List.of(v[0], v[1], v[2], v[3], v[4], v[5]), List.of(c.blocked().count(), c.blocked().totalNs(),
                    c.waited().count(), c.waited().totalNs(), c.idle().count(), c.idle().totalNs()), c.className());
            long callers = stats.blockCallers(c.className()).stream().mapToLong(x -> x.stats().totalNs()).sum();
            assertEquals(c.blocked().totalNs(), callers, "block callers add up for " + c.className());
        }
    }

    /** The class a park is counted under: its blocker's lock class ({@link Blockers}), or the name for an undescribed one. */
    private static String parkClassOf(Recording r, long blocker) {
        String c = Blockers.className(r, blocker);
        return c.isEmpty() ? MonitorStatistics.UNKNOWN_CLASS : c;
    }

    /** The class a monitor is counted under: its class name, or MonitorStatistics' name for an undescribed one. */
    private static String classOf(Recording r, long monitor) {
        String c = r.objectClassName(monitor);
        return c.isEmpty() ? MonitorStatistics.UNKNOWN_CLASS : c;
    }

    /**
     * The TIMEOUT interactions that ended a monitor wait (a park's timeouts are the j.u.c.
     * scenarios' to check, in ParkIT).
     */
    private static List<Interaction> monitorTimeouts(Interactions in) {
        return in.of(Kind.TIMEOUT).stream().filter(i -> !i.ended().isPark()).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void notifyAllFansOutToTheWholeHerd(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        int n = 4;
        Run run = run(jdk, NotifyAllHerd.class, String.valueOf(n));
        Recording r = run.recording();
        Interactions in = Interactions.of(r);
        List<Notification> calls = in.notifications();
        assertEquals(1, calls.size(), () -> "one notifyAll: " + calls);
        Notification all = calls.get(0);
        assertTrue(all.isNotifyAll());
        assertEquals("main", all.call().thread().name());
        Set<String> herd = new TreeSet<>();
        for (int i = 0; i < n; i++) {
            herd.add(NotifyAllHerd.THREAD_PREFIX + i);
        }
        // every wait of the herd ends by this notifyAll: one per wait() call the app counted
        assertEquals(field(run.stdout(), "waitCalls"), all.woke().size(), () -> names(all.woke()));
        assertEquals(herd, all.woke().stream().map(i -> i.to().name()).collect(Collectors.toCollection(TreeSet::new)));
        assertEquals(all.woke().size(), in.of(Kind.NOTIFY_ALL).size(), "no other NOTIFY_ALL interaction");
        for (Interaction i : all.woke()) {
            assertEquals(Kind.NOTIFY_ALL, i.kind());
            assertEquals(NotifyAllHerd.HerdLock.class.getName(), r.objectClassName(i.monitor()));
            assertEquals(Interval.Kind.WAITING, i.ended().kind());
        }
        assertEquals(List.of(), in.of(Kind.NOTIFY));
        assertEquals(List.of(), monitorTimeouts(in), "no monitor wait timed out");
        assertEquals(List.of(), in.of(Kind.INTERRUPT));
        Map<String, String> starts = new LinkedHashMap<>();
        herd.forEach(h -> starts.put(h, "main"));
        assertStarts(in, starts);
        assertStatisticsFromRawEvents(r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void handoffsFollowTheChainInOrder(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        int n = 5;
        Recording r = run(jdk, HandoffChain.class, String.valueOf(n)).recording();
        Interactions in = Interactions.of(r);
        List<Interaction> handoffs = on(r, in, Kind.HANDOFF, HandoffChain.HandoffLock.class);
        // handoff-0 got the lock from main, whose own acquisition was uncontended and so unrecorded:
        // main is known as the exact owner read from the VM at handoff-0's enter; then the chain
        // handoff-0 -> handoff-1 -> ... -> handoff-(n-1), in that order
        List<String> expected = new ArrayList<>();
        // main lets go as soon as handoff-0 shows BLOCKED, which HotSpot sets before it posts the
        // enter: when main was quicker than the recorder's read of the owner, the VM said "no owner"
        // (exact), and main's release, uncontended and unrecorded, is known to no one.
        RecordedThread first = Recordings.thread(r, HandoffChain.THREAD_PREFIX + 0);
        boolean ownerSeen = first.events().stream().anyMatch(e -> e.type() == EventType.MONITOR_ENTER
                && r.objectClassName(e.obj()).equals(HandoffChain.HandoffLock.class.getName())
                && (e.flags() & SnapshotFormat.FLAG_OWNER) != 0 && e.arg2() > 0);
        if (ownerSeen) {
            expected.add("main -> " + HandoffChain.THREAD_PREFIX + 0);
        }
        for (int i = 1; i < n; i++) {
            expected.add(HandoffChain.THREAD_PREFIX + (i - 1) + " -> " + HandoffChain.THREAD_PREFIX + i);
        }
        assertEquals(expected, handoffs.stream().map(i -> i.from().name() + " -> " + i.to().name()).toList(),
                () -> names(in.all()));
        for (Interaction h : handoffs) {
            assertEquals(Interval.Kind.BLOCKED, h.ended().kind());
            assertTrue(h.fromNs() <= h.toNs(), h::toString);
        }
        Map<String, String> starts = new LinkedHashMap<>();
        starts.put(HandoffChain.THREAD_PREFIX + 0, "main");
        for (int i = 1; i < n; i++) {
            starts.put(HandoffChain.THREAD_PREFIX + i, HandoffChain.THREAD_PREFIX + (i - 1));
        }
        assertStarts(in, starts);
        MonitorStatistics stats = MonitorStatistics.of(r);
        for (ThreadRow row : stats.threads()) {
            RecordedThread t = row.thread();
            if (t.name().startsWith(HandoffChain.THREAD_PREFIX)) {
                // one contended enter of the chain's lock each (a JDK monitor contended at start may add others)
                assertEquals(1, t.events().stream().filter(e -> e.type() == EventType.MONITOR_ENTER
                        && r.objectClassName(e.obj()).equals(HandoffChain.HandoffLock.class.getName())).count(),
                        t::toString);
            }
        }
        var callers = stats.blockCallers(HandoffChain.HandoffLock.class.getName());
        assertEquals(1, callers.size(), callers::toString);
        assertEquals(n, callers.get(0).stats().count());
        assertEquals(n, callers.get(0).threads());
        assertEquals(1, callers.get(0).monitors());
        assertTrue(callers.get(0).caller().startsWith(HandoffChain.class.getName() + ".lambda$"), callers::toString);
        assertStatisticsFromRawEvents(r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void joinsEndWhenTheJoinedThreadEnds(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        int n = 4;
        Recording r = run(jdk, JoinChain.class, String.valueOf(n)).recording();
        Interactions in = Interactions.of(r);
        // join-i joins join-(i+1); the tail joins nobody; main never joins
        List<String> expected = new ArrayList<>();
        for (int i = n - 2; i >= 0; i--) {
            expected.add(JoinChain.THREAD_PREFIX + (i + 1) + " -> " + JoinChain.THREAD_PREFIX + i);
        }
        // the chain's joins; the JVM's exit (DestroyJavaVM) joins the shutdown hooks besides
        List<Interaction> ends = in.of(Kind.JOIN_END).stream()
                .filter(i -> i.to().name().startsWith(JoinChain.THREAD_PREFIX)).toList();
        for (Interaction j : in.of(Kind.JOIN_END)) {
            assertTrue(j.to().name().startsWith(JoinChain.THREAD_PREFIX) || j.to().name().equals("DestroyJavaVM"),
                    j::toString);
        }
        assertEquals(expected, ends.stream().map(i -> i.from().name() + " -> " + i.to().name()).toList(),
                () -> names(in.all()));
        for (Interaction j : ends) {
            assertEquals(Interval.Kind.JOINING, j.ended().kind());
            assertEquals(j.from().threadObject(), j.monitor());
            assertTrue(j.fromNs() <= j.toNs(), j::toString);
        }
        // the waits inside the joins are the joins', not object waits (the JVM's own shutdown joins
        // the agent's exit hook from uninstrumented JDK code: that one stays an object wait)
        // (parks are waits of their own: the app's polling parks are not counted here)
        for (RecordedThread t : r.javaThreads()) {
            if (t.name().startsWith(JoinChain.THREAD_PREFIX)) {
                assertEquals(List.of(), Intervals.of(r, t, r.snapshotMonotonicNs()).stream()
                        .filter(i -> i.kind() == Interval.Kind.WAITING && !i.isPark()).toList(), t::toString);
            }
        }
        assertEquals(List.of(), in.of(Kind.NOTIFY));
        assertEquals(List.of(), in.of(Kind.NOTIFY_ALL));
        Map<String, String> starts = new LinkedHashMap<>();
        starts.put(JoinChain.THREAD_PREFIX + 0, "main");
        for (int i = 1; i < n; i++) {
            starts.put(JoinChain.THREAD_PREFIX + i, JoinChain.THREAD_PREFIX + (i - 1));
        }
        assertStarts(in, starts);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void deadlockMembersAndMonitors(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recording r = run(jdk, Deadlock.class).recording();
        List<Deadlocks.Deadlock> found = Deadlocks.find(r);
        assertEquals(1, found.size(), found::toString);
        Deadlocks.Deadlock d = found.get(0);
        Map<String, String> blockedOn = new LinkedHashMap<>();
        for (int i = 0; i < d.threads().size(); i++) {
            blockedOn.put(d.threads().get(i).name(), r.objectClassName(d.waits().get(i).object()));
        }
        assertEquals(Map.of(Deadlock.THREAD_A, Deadlock.LockB.class.getName(),
                Deadlock.THREAD_B, Deadlock.LockA.class.getName()), blockedOn);
        ThreadStates states = ThreadStates.of(r);
        assertEquals(Set.of(thread(r, Deadlock.THREAD_A), thread(r, Deadlock.THREAD_B)),
                states.threadsIn(ThreadStates.State.DEADLOCKED));
        String report = ContentionReport.of(r).text();
        assertTrue(report.contains(Deadlock.THREAD_A + " is blocked on " + Deadlock.LockB.class.getName() + "@"),
                report);
        assertTrue(report.contains("    at " + Deadlock.class.getName() + ".lockBoth("), report);
        Map<String, String> starts = Map.of(Deadlock.THREAD_A, "main", Deadlock.THREAD_B, "main");
        assertStarts(Interactions.of(r), starts);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void everyWakeOfTheBufferIsBoundToTheOtherSide(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        int producers = 2, consumers = 2, items = 300, capacity = 2;
        Run run = run(jdk, ProducerConsumer.class, String.valueOf(producers), String.valueOf(consumers),
                String.valueOf(items), String.valueOf(capacity));
        Recording r = run.recording();
        Interactions in = Interactions.of(r);
        String lock = ProducerConsumer.BufferLock.class.getName();

        // one notifyAll per item produced and per item consumed, nothing else
        List<Notification> calls = in.notifications();
        assertTrue(calls.stream().allMatch(Notification::isNotifyAll));
        assertTrue(calls.stream().allMatch(c -> r.objectClassName(c.call().obj()).equals(lock)));
        assertEquals(items, calls.stream().filter(c -> c.call().thread().name()
                .startsWith(ProducerConsumer.PRODUCER_PREFIX)).count());
        assertEquals(items, calls.stream().filter(c -> c.call().thread().name()
                .startsWith(ProducerConsumer.CONSUMER_PREFIX)).count());

        // each wait() call the app counted is one WAITING interval, and each ended by a notifyAll of
        // the other side: a consumer waits on an empty buffer, which only a producer's put (and its
        // notifyAll) ends; a producer waits on a full one, which only a consumer's take ends
        int consumerWaits = field(run.stdout(), "consumerWaits");
        int producerWaits = field(run.stdout(), "producerWaits");
        List<Interaction> wakes = on(r, in, Kind.NOTIFY_ALL, ProducerConsumer.BufferLock.class);
        List<Interaction> toConsumers = wakes.stream()
                .filter(i -> i.to().name().startsWith(ProducerConsumer.CONSUMER_PREFIX)).toList();
        List<Interaction> toProducers = wakes.stream()
                .filter(i -> i.to().name().startsWith(ProducerConsumer.PRODUCER_PREFIX)).toList();
        assertEquals(consumerWaits, toConsumers.size(), "every consumer wait bound");
        assertEquals(producerWaits, toProducers.size(), "every producer wait bound");
        for (Interaction i : toConsumers) {
            assertTrue(i.from().name().startsWith(ProducerConsumer.PRODUCER_PREFIX), i::toString);
        }
        for (Interaction i : toProducers) {
            assertTrue(i.from().name().startsWith(ProducerConsumer.CONSUMER_PREFIX), i::toString);
        }
        for (Interaction i : wakes) {
            assertTrue(i.cause().ts() >= i.ended().startNs() && i.cause().ts() <= i.toNs(), i::toString);
        }
        assertEquals(List.of(), monitorTimeouts(in), "no monitor wait timed out");
        assertEquals(List.of(), in.of(Kind.NOTIFY));

        MonitorStatistics stats = MonitorStatistics.of(r);
        ClassRow row = stats.classes().stream().filter(c -> c.className().equals(lock)).findFirst().orElseThrow();
        assertEquals(consumerWaits + producerWaits, row.waited().count());
        long consumerWaited = 0, producerWaited = 0;
        for (ThreadRow t : stats.threads()) {
            if (t.thread().name().startsWith(ProducerConsumer.CONSUMER_PREFIX)) {
                consumerWaited += t.waitedCount();
            } else if (t.thread().name().startsWith(ProducerConsumer.PRODUCER_PREFIX)) {
                producerWaited += t.waitedCount();
            }
        }
        assertEquals(consumerWaits, consumerWaited);
        assertEquals(producerWaits, producerWaited);

        Map<String, String> starts = new LinkedHashMap<>();
        for (int i = 0; i < producers; i++) {
            starts.put(ProducerConsumer.PRODUCER_PREFIX + i, "main");
        }
        for (int i = 0; i < consumers; i++) {
            starts.put(ProducerConsumer.CONSUMER_PREFIX + i, "main");
        }
        assertStarts(in, starts);
        assertStatisticsFromRawEvents(r);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void interruptOfTheWaiterByMain(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        Recording r = run(jdk, InterruptWaiter.class).recording();
        Interactions in = Interactions.of(r);
        List<Interaction> interrupts = in.of(Kind.INTERRUPT);
        assertEquals(1, interrupts.size(), () -> names(in.all()));
        Interaction i = interrupts.get(0);
        assertEquals("main", i.from().name());
        assertEquals(InterruptWaiter.THREAD_NAME, i.to().name());
        assertEquals(EventType.INTERRUPT_CALL, i.cause().type());
        assertNotNull(i.ended(), "the interrupt ended the wait");
        assertEquals(Interval.Kind.WAITING, i.ended().kind());
        assertEquals(InterruptWaiter.InterruptLock.class.getName(), r.objectClassName(i.ended().monitor()));
        assertEquals(List.of(), in.of(Kind.NOTIFY));
        assertEquals(List.of(), in.of(Kind.NOTIFY_ALL));
        assertEquals(List.of(), monitorTimeouts(in), "no monitor wait timed out");
        assertStarts(in, Map.of(InterruptWaiter.THREAD_NAME, "main"));
        assertStatisticsFromRawEvents(r);
    }
}
