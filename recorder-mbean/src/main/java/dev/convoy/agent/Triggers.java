package dev.convoy.agent;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import dev.convoy.export.Output;
import dev.convoy.model.Recording;
import dev.convoy.model.Window;
import dev.convoy.snapshot.SnapshotFormat;

/**
 * Dumps a window of the history when it matters, with no one at a console (option {@code dumpon}):
 * when a deadlock is seen, when a thread has been blocked on one monitor or lock longer than a
 * threshold, and periodically. Each dump is a binary snapshot of the window from
 * {@code dumpwindow} before its trigger to {@link #AFTER_NS} after it, written into the dump
 * directory as {@code NAME-REASON-yyyyMMdd-HHmmss.cvysnap}; the newest {@code dumpkeep} of them are
 * kept. Listeners (the MBean's notification) hear of each.
 *
 * <p>One daemon thread, {@code convoy-triggers} (Convoy's own: not recorded), looks every
 * {@link #PERIOD_MS} ms at the threads the recorder sees stalled ({@link NativeRecorder#stalled()}:
 * their rings' newest records, no VM call). A cycle of threads each blocked on a monitor or lock
 * the next one owned when it blocked is a deadlock candidate, confirmed by
 * {@code ThreadMXBean.findDeadlockedThreads} (a VM operation, only then); each deadlock, block and
 * period triggers once. A trigger that comes while a dump waits for its after-window joins it.
 */
public final class Triggers {

    /** How often the stalled threads are looked at. */
    static final long PERIOD_MS = 250;
    /** History after its trigger that a dump holds (what the blocked threads did next). */
    public static final long AFTER_NS = 2_000_000_000L;

    /**
     * What triggers a dump (option {@code dumpon}).
     *
     * @param deadlock  a deadlock among monitors and owned locks
     * @param blockNs   a thread blocked on one monitor or lock longer than this (0: not a trigger)
     * @param everyNs   a dump this often (0: none)
     */
    public record Spec(boolean deadlock, long blockNs, long everyNs) {
        /** No trigger. */
        public static final Spec NONE = new Spec(false, 0, 0);

        public boolean isEmpty() {
            return !deadlock && blockNs == 0 && everyNs == 0;
        }

        @Override
        public String toString() {
            List<String> parts = new ArrayList<>();
            if (deadlock) {
                parts.add("deadlock");
            }
            if (blockNs > 0) {
                parts.add("block:" + AgentOptions.humanDuration(blockNs));
            }
            if (everyNs > 0) {
                parts.add("every:" + AgentOptions.humanDuration(everyNs));
            }
            return parts.isEmpty() ? "none" : String.join("+", parts);
        }
    }

    /**
     * A dump written by a trigger.
     *
     * @param file   the binary snapshot written
     * @param reason deadlock, block or periodic
     * @param detail what was seen (the threads and monitors)
     */
    public record Dump(Path file, String reason, String detail) {
    }

    private final ConvoyAgent agent;
    private final Spec spec;
    private final long beforeNs;
    private final int keep;
    private final List<Consumer<Dump>> listeners = new CopyOnWriteArrayList<>();
    private final Set<Set<Long>> deadlocksSeen = new HashSet<>();
    private final Map<Long, Long> blocksSeen = new HashMap<>(); // thread -> since of the block triggered
    private Thread thread;
    private long lastPeriodicNs;
    /** The dump waiting for its after-window: its trigger time, reasons and details; 0 when none. */
    private long pendingAtNs;
    private final List<String> pendingReasons = new ArrayList<>();
    private final List<String> pendingDetails = new ArrayList<>();

    Triggers(ConvoyAgent agent, Spec spec, long beforeNs, int keep) {
        this.agent = agent;
        this.spec = spec;
        this.beforeNs = beforeNs;
        this.keep = keep;
    }

    /** Listens to the dumps written (called on the trigger thread). */
    public void addListener(Consumer<Dump> listener) {
        listeners.add(listener);
    }

    synchronized void start() {
        if (thread != null || spec.isEmpty()) {
            return;
        }
        lastPeriodicNs = NativeRecorder.nowNs();
        thread = new Thread(this::loop, "convoy-triggers");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(PERIOD_MS);
                check(NativeRecorder.nowNs(), NativeRecorder.stalled());
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException | OutOfMemoryError e) {
                System.err.println("[convoy] dump trigger: " + e);
            }
        }
    }

    /** One look: triggers what is due, writes the pending dump once its after-window has passed. */
    void check(long now, List<NativeRecorder.Stalled> stalled) {
        if (spec.deadlock()) {
            for (Set<Long> cycle : cycles(stalled)) {
                if (!deadlocksSeen.contains(cycle) && confirmed(cycle)) {
                    deadlocksSeen.add(cycle);
                    trigger(now, "deadlock", "threads " + cycle + " wait for each other");
                }
            }
        }
        if (spec.blockNs() > 0) {
            Set<Long> still = new HashSet<>();
            for (NativeRecorder.Stalled s : stalled) {
                if (!contended(s)) {
                    continue;
                }
                still.add(s.javaThreadId());
                Long seen = blocksSeen.get(s.javaThreadId());
                if (now - s.sinceNs() >= spec.blockNs() && (seen == null || seen != s.sinceNs())) {
                    blocksSeen.put(s.javaThreadId(), s.sinceNs());
                    trigger(now, "block", "thread " + s.javaThreadId() + " blocked on object " + s.object() + " for "
                            + (now - s.sinceNs()) / 1_000_000 + " ms" + (s.owner() > 0 ? ", owned by thread "
                            + s.owner() : ""));
                }
            }
            blocksSeen.keySet().retainAll(still);
        }
        if (spec.everyNs() > 0 && now - lastPeriodicNs >= spec.everyNs()) {
            lastPeriodicNs = now;
            trigger(now, "periodic", "every " + AgentOptions.humanDuration(spec.everyNs()));
        }
        if (pendingAtNs != 0 && now - pendingAtNs >= AFTER_NS) {
            write();
        }
    }

    /** A block that delays work: a contended monitor enter, or a park that acquires a lock. */
    static boolean contended(NativeRecorder.Stalled s) {
        return s.type() == SnapshotFormat.EVENT_MONITOR_ENTER
                || s.type() == SnapshotFormat.EVENT_PARK && (s.flags() & SnapshotFormat.FLAG_LOCK) != 0;
    }

    /** Cycles of threads each blocked on what the next one owned when it blocked. */
    static List<Set<Long>> cycles(List<NativeRecorder.Stalled> stalled) {
        Map<Long, Long> waitsFor = new HashMap<>();
        for (NativeRecorder.Stalled s : stalled) {
            if (contended(s) && s.owner() > 0 && s.owner() != s.javaThreadId()) {
                waitsFor.put(s.javaThreadId(), s.owner());
            }
        }
        List<Set<Long>> out = new ArrayList<>();
        Set<Long> done = new HashSet<>();
        for (Long start : waitsFor.keySet()) {
            List<Long> path = new ArrayList<>();
            Long t = start;
            while (t != null && !done.contains(t) && !path.contains(t)) {
                path.add(t);
                t = waitsFor.get(t);
            }
            if (t != null && path.contains(t)) {
                out.add(Set.copyOf(path.subList(path.indexOf(t), path.size())));
            }
            done.addAll(path);
        }
        return out;
    }

    /** Whether the JVM finds these threads deadlocked (a VM operation: only for a candidate). */
    private static boolean confirmed(Set<Long> cycle) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long[] dead = mx.isSynchronizerUsageSupported() ? mx.findDeadlockedThreads() : mx.findMonitorDeadlockedThreads();
        if (dead == null) {
            return false;
        }
        Set<Long> found = new HashSet<>();
        for (long id : dead) {
            found.add(id);
        }
        return found.containsAll(cycle);
    }

    private void trigger(long now, String reason, String detail) {
        if (pendingAtNs == 0) {
            pendingAtNs = now;
        }
        if (!pendingReasons.contains(reason)) {
            pendingReasons.add(reason);
        }
        pendingDetails.add(detail);
    }

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)
            .withZone(ZoneId.systemDefault());

    /** Writes the pending dump: the window around its trigger, as a binary snapshot. */
    private void write() {
        long at = pendingAtNs;
        String reason = String.join("+", pendingReasons);
        String detail = String.join("; ", pendingDetails);
        pendingAtNs = 0;
        pendingReasons.clear();
        pendingDetails.clear();
        try {
            Recording r = agent.session().take();
            long from = Math.max(r.startMonotonicNs(), at - beforeNs);
            long to = Math.min(r.snapshotMonotonicNs(), at + AFTER_NS);
            Recording cut = new Window(from, Math.max(from, to)).cut(r);
            long epoch = r.startEpochNs() - r.startMonotonicNs();
            String name = agent.options().dumpName() + "-" + reason.replace('+', '-') + "-"
                    + STAMP.format(Instant.ofEpochSecond(0, at + epoch));
            String file = unique(name);
            List<Path> written = agent.dumpDirectory().write(file, Set.of(Output.SNAPSHOT), cut);
            prune();
            for (Path p : written) {
                System.err.println("[convoy] dump on " + reason + ": wrote " + p + " (" + detail + ")");
                for (Consumer<Dump> l : listeners) {
                    l.accept(new Dump(p, reason, detail));
                }
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("[convoy] dump on " + reason + " not written: " + e.getMessage());
        }
    }

    /** NAME.cvysnap, or NAME-2.cvysnap, ... if taken (two triggers in one second). */
    private String unique(String name) {
        Path dir = agent.dumpDirectory().path();
        String suffix = Output.defaultName("", Set.of(Output.SNAPSHOT));
        String candidate = name + suffix;
        for (int i = 2; Files.exists(dir.resolve(candidate)); i++) {
            candidate = name + "-" + i + suffix;
        }
        return candidate;
    }

    /** Deletes the oldest triggered dumps beyond {@code dumpkeep}. */
    private void prune() throws IOException {
        Path dir = agent.dumpDirectory().path();
        String prefix = agent.options().dumpName() + "-";
        List<Path> mine = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, prefix + "*.cvysnap")) {
            for (Path p : files) {
                String rest = p.getFileName().toString().substring(prefix.length());
                if (rest.matches("(deadlock|block|periodic)(-(deadlock|block|periodic))*-\\d{8}-\\d{6}(-\\d+)?\\.cvysnap")
                        && Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    mine.add(p);
                }
            }
        }
        mine.sort((a, b) -> {
            try {
                return Files.getLastModifiedTime(a).compareTo(Files.getLastModifiedTime(b));
            } catch (IOException e) {
                return a.compareTo(b);
            }
        });
        for (int i = 0; i < mine.size() - keep; i++) {
            Files.deleteIfExists(mine.get(i));
        }
    }
}
