package dev.convoy.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./convoy demo [--out DIR]}: the demo scenarios of the test apps run under the agent, which
 * dumps every format on exit into DIR; then the report, the list of files and how to open each.
 */
final class Demo {

    /** The checkout's root, set by {@code ./convoy}: the test apps and the default output folder are under it. */
    static final String ROOT_PROPERTY = "convoy.root";

    private Demo() {
    }

    /** The checkout {@code ./convoy} runs from. */
    static Path root() throws CliException {
        String root = System.getProperty(ROOT_PROPERTY);
        if (root == null || root.isBlank()) {
            throw CliException.failed("this command runs from ./convoy in a Convoy checkout (-D" + ROOT_PROPERTY
                    + " is not set)");
        }
        return Paths.get(root).toAbsolutePath();
    }

    /** This JVM's java, which runs the children too. */
    static String java() {
        return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Runs {@code cmd} with this process's standard streams; returns its exit code. */
    static int runChild(List<String> cmd, Path dir) throws CliException {
        try {
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).inheritIO().start();
            return p.waitFor();
        } catch (IOException e) {
            throw CliException.failed("cannot run " + cmd.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CliException.failed("interrupted while " + cmd.get(0) + " ran");
        }
    }

    static int run(CommandLine.Parsed p, PrintStream out, PrintStream err) throws CliException {
        Path root = root();
        Path dir = p.has("out") ? Paths.get(p.get("out")).toAbsolutePath() : root.resolve("convoy-out");
        try {
            Files.createDirectories(dir);
            try (DirectoryStream<Path> old = Files.newDirectoryStream(dir, "demo.*")) {
                for (Path f : old) {
                    Files.deleteIfExists(f);
                }
            }
        } catch (IOException e) {
            throw CliException.failed("cannot create " + dir + ": " + e.getMessage(), e);
        }
        Path jar = ConvoyCli.agentJar();
        err.println(CommandLine.prefix("demo") + "running the demo scenarios under the recorder...");
        err.flush();
        out.flush();
        int code = runChild(List.of(java(), "-javaagent:" + jar + "=contanalysis=on,dumponexit=all,dumpdir=" + dir
                + ",dumpname=demo", "-cp", root.resolve("test-apps/target/classes").toString(),
                "dev.convoy.testapps.Scenarios", "demo"), Paths.get("").toAbsolutePath());
        if (code != 0) {
            throw CliException.failed("the demo scenarios failed (exit " + code + ")");
        }
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        if (Report.run(new String[] {dir.resolve("demo.cvysnap").toString(), "--markdown", "-o",
            dir.resolve("demo.report.md").toString()}, quiet, err) != CommandLine.EXIT_OK) {
            throw CliException.failed("could not write the report");
        }
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> written = Files.newDirectoryStream(dir, "demo.*")) {
            written.forEach(files::add);
        } catch (IOException e) {
            throw CliException.failed("cannot list " + dir + ": " + e.getMessage(), e);
        }
        files.sort(null);
        out.println();
        out.println("Wrote into " + dir + ":");
        for (Path f : files) {
            long size;
            try {
                size = Files.size(f);
            } catch (IOException e) {
                size = -1;
            }
            out.println("  " + f.getFileName() + "  (" + size + " bytes)");
        }
        out.print(HOW.replace("$OUT", dir.toString()));
        return CommandLine.EXIT_OK;
    }

    /** How to open each file the demo writes. */
    private static final String HOW = """

            How to open them:
              demo.json          Chrome trace: open https://ui.perfetto.dev and drag the file in
                                 (or chrome://tracing > Load). One track per Java thread, GC on its own;
                                 the rls-N and abq-* tracks show java.util.concurrent parks (blocked on
                                 ReentrantLock with its exact owner, parked on a queue's condition) and
                                 unpark arrows from the releasing thread to the one it woke.
              demo.trcxml        Eclipse TPTP trace XML: in Eclipse with TPTP, File > Import >
                                 Profiling file, choose the file, "Show full data".
              demo.meta.csv, demo.events.csv
                                 the CSV meta log and event log of the JVMTI backend's CSV
                                 specification, for tools built on it; demo.losses.csv lists
                                 what was lost; demo.events-ext.csv is the event log with
                                 Convoy's own lines (owner kinds, parks, unparks) among the
                                 specification's (docs/formats.md).
              demo.html          the flame graph of blocked and waited time by stack: open it in a
                                 browser (offline); click a frame to zoom in and list its stacks.
              demo.collapsed.txt the same as folded stacks (ns per stack) for flamegraph.pl,
                                 speedscope or a profiling server.
              demo.pb.gz         the same as a pprof profile (contentions and delay by stack, labelled
                                 by thread, lock class, state and kind): go tool pprof -top demo.pb.gz,
                                 go tool pprof -http=: demo.pb.gz, or a profiling server (Pyroscope, Parca).
              demo.jfr           JFR: open it in JDK Mission Control (File > Open File: Lock
                                 Instances, Threads, Automated Analysis), or jfr summary / jfr print.
              demo.report.md     the contention report: most contended monitors, who waited on
                                 whom, deadlocks, the critical path (./convoy report FILE)
              demo.cvysnap       the binary snapshot; convert it again later with
                                 ./convoy convert $OUT/demo.cvysnap --format chrome
            """;
}
