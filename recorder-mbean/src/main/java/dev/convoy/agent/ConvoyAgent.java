package dev.convoy.agent;

import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.convoy.agent.bci.ContentionAnalysis;
import dev.convoy.agent.bci.ParkHook;
import dev.convoy.export.Output;
import dev.convoy.model.Recording;
import dev.convoy.model.Window;

/**
 * The running agent: options, native recorder, its {@link RecorderSession}, contention
 * analysis, dumps. One per JVM, created by {@link #initialize}, usable as a library through
 * {@link #get()}. The front-ends (the MBean, the web view) are started by {@link Agent} on
 * top of it; this class knows none of them.
 *
 * <p>An agent started with {@link #initializeOrOff} whose native library could not be loaded
 * is off for good: {@link #offReason()} says why, nothing is recorded, instrumented or
 * dumped, the counters stay 0, and every operation that needs the recorder throws an
 * {@link IllegalStateException} "recorder off: why".
 */
public final class ConvoyAgent {

    /**
     * Convoy's version: the Maven project's ({@code ${project.version}}), written into the resource
     * {@value #VERSION_RESOURCE} by the build; the one version the MBean, the web view, the CLI's
     * {@code status} and the recordings (INFO {@code agent.version}, through the native recorder)
     * show. The agent jar's manifest carries the same ({@code Implementation-Version}).
     */
    public static final String VERSION = version();
    /** The class path resource with {@code version=}, filled in by Maven's resource filtering. */
    static final String VERSION_RESOURCE = "/dev/convoy/agent/version.properties";

    private static ConvoyAgent instance;

    private final AgentOptions options;
    private final ContentionAnalysis contentionAnalysis;
    private final ParkHook parkHook = new ParkHook();
    private final RecorderSession session;
    private final DumpDirectory dumpDirectory;
    private final Triggers triggers;
    private final String offReason;

    private ConvoyAgent(AgentOptions options, Instrumentation inst, String offReason) {
        this.options = options;
        this.offReason = offReason;
        this.contentionAnalysis = new ContentionAnalysis(inst);
        this.session = new RecorderSession(offReason, options.idleRules());
        this.dumpDirectory = new DumpDirectory(options.dumpDir());
        this.triggers = new Triggers(this, options.dumpOn(), options.dumpWindowNs(), options.dumpKeep());
    }

    /**
     * Parses the options, loads and starts the native recorder, switches contention analysis
     * on if {@code contanalysis=on} (instrumenting call sites needs {@code inst}) and installs
     * the dump on exit. Idempotent for equal options.
     *
     * @throws AgentOptions.InvalidOptionException for a bad option
     * @throws IllegalStateException if the recorder cannot start, is off for good in this JVM,
     *         or runs already with other options
     */
    public static synchronized ConvoyAgent initialize(String args, Instrumentation inst) {
        return initialize(args, inst, false);
    }

    /**
     * Like {@link #initialize}, except that a native library that cannot be loaded (a full or
     * unwritable temporary directory, one mounted noexec, another platform) leaves an agent
     * whose recorder is off for good, with the reason in {@link #offReason()}, instead of
     * throwing: the JVM start uses it so that the application runs all the same.
     *
     * @throws AgentOptions.InvalidOptionException for a bad option
     * @throws IllegalStateException if the loaded recorder cannot start
     */
    public static synchronized ConvoyAgent initializeOrOff(String args, Instrumentation inst) {
        return initialize(args, inst, true);
    }

    private static ConvoyAgent initialize(String args, Instrumentation inst, boolean offIfNotLoaded) {
        AgentOptions options = AgentOptions.parse(args);
        if (instance != null) {
            if (instance.offReason != null) {
                if (offIfNotLoaded) {
                    return instance;
                }
                throw new IllegalStateException(offMessage(instance.offReason));
            }
            if (instance.options.effective().equals(options.effective())) {
                return instance;
            }
            throw new IllegalStateException("Convoy already runs in this JVM with options "
                    + instance.options.effective() + "; it cannot be restarted with " + options.effective());
        }
        try {
            NativeRecorder.load(inst);
        } catch (RuntimeException | LinkageError e) {
            if (!offIfNotLoaded) {
                throw e;
            }
            instance = new ConvoyAgent(options, inst, oneLine(e));
            return instance;
        }
        NativeRecorder.start(options, runRepository(options), VERSION);
        ConvoyAgent agent = new ConvoyAgent(options, inst, null);
        agent.dumpDirectory.removeStaleTemporaryFiles();
        if (!options.emptyCallbacks()) {
            agent.parkHook.install(inst); // parks are recorded with or without contention analysis
        }
        if (options.contentionAnalysis()) {
            agent.setContentionAnalysis(true);
        }
        Releasers.start(options);
        agent.triggers.start();
        if (!options.dumpOnExit().isEmpty()) {
            Runtime.getRuntime().addShutdownHook(new Thread(agent::dumpOnExit, "convoy-dump-on-exit"));
        }
        instance = agent;
        return agent;
    }

    /**
     * This run's folder of the repository (option repository): {@code DIR/yyyyMMdd-HHmmss-PID}, made
     * now (0700), into which the native recorder writes the history's chunks; null without the option.
     *
     * @throws IllegalStateException if it cannot be made
     */
    static String runRepository(AgentOptions options) {
        if (options.repository() == null) {
            return null;
        }
        String name = java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", java.util.Locale.ROOT)
                .format(java.time.LocalDateTime.now()) + "-" + ProcessHandle.current().pid();
        Path dir = options.repository().toAbsolutePath().resolve(name);
        try {
            java.nio.file.Files.createDirectories(options.repository());
            java.nio.file.Files.createDirectory(dir, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        } catch (IOException | UnsupportedOperationException e) {
            throw new IllegalStateException("cannot make the repository's folder " + dir + ": " + e
                    + "; choose a directory you can write with option repository");
        }
        return dir.toString();
    }

    /** The collectors that move and free objects only in their pauses, by their MXBean names. */
    private static final java.util.Set<String> PAUSE_ONLY_COLLECTORS = java.util.Set.of("Copy", "MarkSweepCompact",
            "PS Scavenge", "PS MarkSweep", "G1 Young Generation", "G1 Old Generation", "G1 Concurrent GC");

    /**
     * Whether this JVM's collector moves and frees objects only in the pauses JVMTI reports
     * (Serial, Parallel, G1), which the shared cache of object ids relies on; not ZGC nor
     * Shenandoah, which relocate while the program runs, nor an unknown collector.
     */
    static boolean collectsInPausesOnly() {
        var beans = java.lang.management.ManagementFactory.getGarbageCollectorMXBeans();
        return !beans.isEmpty() && beans.stream().allMatch(b -> PAUSE_ONLY_COLLECTORS.contains(b.getName()));
    }

    private static String version() {
        java.util.Properties p = new java.util.Properties();
        try (java.io.InputStream in = ConvoyAgent.class.getResourceAsStream(VERSION_RESOURCE)) {
            if (in != null) {
                p.load(in);
            }
        } catch (java.io.IOException e) {
            // the version is then unknown, nothing else
        }
        String v = p.getProperty("version", "").strip();
        return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
    }

    /** The running agent, or null if none was initialized. */
    public static synchronized ConvoyAgent get() {
        return instance;
    }

    public AgentOptions options() {
        return options;
    }

    /** Why the recorder is off for good in this JVM (its native library could not be loaded); null if it runs. */
    public String offReason() {
        return offReason;
    }

    /** "recorder off: why", the message of everything refused while the recorder is off. */
    static String offMessage(String reason) {
        return "recorder off: " + reason;
    }

    /** The exception's message on one line (a reason goes into a single line of stderr). */
    private static String oneLine(Throwable e) {
        String m = e.getMessage() != null ? e.getMessage() : e.toString();
        return m.replaceAll("\\s*\\R\\s*", " ").strip();
    }

    /**
     * Switches contention analysis on or off at runtime: instruments (or restores) the call
     * sites of Thread.start/interrupt/join/sleep and Object.notify/notifyAll/wait in the
     * application's classes, loaded ones included (see {@link ContentionAnalysis} for the
     * cost). Failures of single classes are counted, never thrown.
     *
     * @throws IllegalStateException if instrumentation is impossible (recorder off, no
     *         Instrumentation, bench.callbacks=empty, the Probes class cannot be installed)
     */
    public void setContentionAnalysis(boolean on) {
        if (offReason != null) {
            if (on) {
                throw new IllegalStateException(offMessage(offReason));
            }
            return;
        }
        if (on && options.emptyCallbacks()) {
            throw new IllegalStateException("contention analysis needs a recording, but bench.callbacks=empty records nothing");
        }
        if (on) {
            contentionAnalysis.enable();
        } else {
            contentionAnalysis.disable();
        }
    }

    /** Whether contention analysis is on. */
    public boolean contentionAnalysis() {
        return contentionAnalysis.isEnabled();
    }

    /** Classes whose call sites are instrumented now. */
    public long instrumentedClasses() {
        return contentionAnalysis.instrumentedClasses();
    }

    /**
     * Classes that could not be transformed or retransformed (they keep their bytes): those of
     * contention analysis plus failures to hook LockSupport (then no parks are recorded).
     */
    public long transformFailures() {
        return contentionAnalysis.transformFailures() + parkHook.failures();
    }

    /** Whether LockSupport is hooked: parks are recorded while recording is on. */
    public boolean parksHooked() {
        return parkHook.isInstalled();
    }

    /** Snapshots, counters and the recording switch, for the front-ends. */
    public RecorderSession session() {
        return session;
    }

    /** The dumps written by themselves when it matters (option dumpon); started with the recorder. */
    public Triggers triggers() {
        return triggers;
    }

    /** The directory dumps go to, and how they are written there. */
    public DumpDirectory dumpDirectory() {
        return dumpDirectory;
    }

    /**
     * What a dump wrote, and what it could not write.
     *
     * @param failed per output group that failed (its names joined, e.g. "csv"), the reason
     */
    public record DumpResult(List<Path> written, Map<String, Exception> failed) {
    }

    /**
     * Writes one snapshot, read once, in each of the given outputs into the dump directory,
     * named {@code dumpname} plus the output's suffix: the binary snapshot first (it holds
     * everything, and every other format can be made from it later), then the others. Each
     * file appears whole or not at all; a failure of one output (a full disk) does not stop
     * the others.
     *
     * @throws IllegalStateException if the recorder is off or cannot take a snapshot
     */
    public DumpResult dump(Set<Output> outputs) {
        return dump(outputs, 0);
    }

    /**
     * Like {@link #dump(Set)}, of the last {@code lastNs} of the history only (0: all of it):
     * the window's records and the losses that touch it ({@link Window#cut}).
     */
    public DumpResult dump(Set<Output> outputs, long lastNs) {
        Recording r = session.take();
        if (lastNs > 0) {
            long to = r.snapshotMonotonicNs();
            r = new Window(Math.max(r.startMonotonicNs(), to - lastNs), to).cut(r);
        }
        List<Set<Output>> groups = new ArrayList<>(Output.groups(outputs));
        groups.sort(Comparator.comparing((Set<Output> g) -> !g.contains(Output.SNAPSHOT)));
        List<Path> written = new ArrayList<>();
        Map<String, Exception> failed = new LinkedHashMap<>();
        for (Set<Output> group : groups) {
            try {
                written.addAll(dumpDirectory.write(Output.defaultName(options.dumpName(), group), group, r));
            } catch (IOException | RuntimeException e) {
                failed.put(Output.join(group), e);
            } catch (OutOfMemoryError e) { // a heap the budget's estimate missed: this output, not the exit
                failed.put(Output.join(group), new IllegalStateException("out of heap: " + e.getMessage()));
            }
        }
        return new DumpResult(written, failed);
    }

    private void dumpOnExit() {
        try {
            DumpResult result = dump(options.dumpOnExit(), options.exitWindowNs());
            for (Path p : result.written()) {
                System.err.println("[convoy] wrote " + p);
            }
            result.failed().forEach((what, e) -> System.err.println("[convoy] dump on exit: " + what
                    + " not written: " + (e.getMessage() != null ? e.getMessage() : e.toString())));
        } catch (RuntimeException | OutOfMemoryError e) {
            System.err.println("[convoy] dump on exit failed: " + e);
        }
    }
}
