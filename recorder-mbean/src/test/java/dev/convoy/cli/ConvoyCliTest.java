package dev.convoy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import dev.convoy.export.Output;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import javax.management.MBeanException;
import javax.management.RuntimeMBeanException;

import org.junit.jupiter.api.Test;

import dev.convoy.agent.AgentOptions;

/** The command line without a target JVM: arguments, usage, and every refusal before attaching. */
class ConvoyCliTest {

    /** What one run printed and returned. */
    record Run(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ConvoyCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static void assertUsage(Run r, String message) {
        assertEquals(ConvoyCli.EXIT_USAGE, r.code(), r::toString);
        assertTrue(r.err().contains(message), r::toString);
        assertTrue(r.err().contains("usage: ./convoy"), () -> "usage follows the problem: " + r);
        assertEquals("", r.out(), r::toString);
    }

    /** A pid that no process has right now. */
    static long freePid() throws IOException {
        // readAllLines: procfs files report size 0, which readString does not always cope with
        long max = Long.parseLong(Files.readAllLines(Path.of("/proc/sys/kernel/pid_max")).get(0).trim());
        Set<Long> used = ProcessHandle.allProcesses().map(ProcessHandle::pid).collect(Collectors.toSet());
        for (long pid = max - 1; pid > 1; pid--) {
            if (!used.contains(pid) && ProcessHandle.of(pid).isEmpty()) {
                return pid;
            }
        }
        throw new AssertionError("no free pid below " + max);
    }

    @Test
    void noArgumentsPrintsTheUsage() {
        Run r = run();
        assertEquals(ConvoyCli.EXIT_OK, r.code(), r::toString);
        assertEquals(Commands.usage() + "\n", r.out());
        assertEquals("", r.err());
    }

    /** Every command of the table is dispatched: its --help is its own usage, --bogus its refusal. */
    @Test
    void everyCommandAnswersHelpWithItsUsageAndRefusesAnUnknownOption() {
        for (CommandLine.Command c : Commands.all()) {
            String[] words = c.name().split(" ");
            for (String help : new String[] {"--help", "-h"}) {
                Run r = run(with(words, help));
                assertEquals(ConvoyCli.EXIT_OK, r.code(), () -> c.name() + " " + help + ": " + r);
                assertEquals(c.usage() + "\n", r.out(), c.name());
                assertEquals("", r.err(), c.name());
            }
            Run r = run(with(words, "--bogus"));
            assertEquals(ConvoyCli.EXIT_USAGE, r.code(), () -> c.name() + ": " + r);
            assertEquals("convoy: " + c.name() + ": unknown option '--bogus'\n" + c.usage() + "\n", r.err(), c.name());
            assertEquals("", r.out(), c.name());
        }
    }

    /** A required argument left out: its own message and the usage, for every command that has one. */
    @Test
    void aMissingArgumentIsAUsageErrorForEveryCommand() {
        for (CommandLine.Command c : Commands.all()) {
            if (c.arguments().stream().anyMatch(CommandLine.Argument::required)) {
                Run r = run(c.name().split(" "));
                assertEquals(ConvoyCli.EXIT_USAGE, r.code(), () -> c.name() + ": " + r);
                String first = c.arguments().get(0).missing();
                assertTrue(r.err().startsWith("convoy: " + c.name() + ": " + first + "\nusage: ./convoy " + c.name()),
                        r::toString);
            }
        }
    }

    /** A value out of its range, for each kind of check the table has. */
    @Test
    void aBadValueIsAUsageError() {
        assertUsage(run("view", "f.cvysnap", "--port", "70000"),
                "view: --port needs a number from 0 (any free port) to 65535, got '70000'");
        assertUsage(run("bench", "--runs", "0"), "bench: --runs needs a number from 1 up, got '0'");
        assertUsage(run("bench", "suite", "--gc", "zgc"), "bench suite: --gc takes serial|parallel|g1, got 'zgc'");
        assertUsage(run("bench", "soak", "--repository", "maybe"), "bench soak: --repository takes yes|no, got 'maybe'");
        assertUsage(run("demo", "--out"), "demo: --out needs a value (DIR)");
        assertUsage(run("convert", "f", "--format", "pdf"), "convert: unknown format 'pdf'");
        assertUsage(run("report", "f", "--format", "pdf"), "report: unknown report format 'pdf'");
        assertUsage(run("dump", "1", "--format", "chrome", "--since", "soon"), "dump: --since 'soon' is not a duration");
        assertUsage(run("help", "me"), "help: unexpected argument 'me'");
        assertUsage(run("build", "now"), "build: unexpected argument 'now'");
    }

    /**
     * The benchmark runners (test apps) take exactly the options ./convoy declares for them, with
     * those ./convoy adds itself (the agent jar, the scratch folders).
     */
    @Test
    void theBenchmarkRunnersTakeTheOptionsTheTableDeclares() {
        check("bench", dev.convoy.testapps.bench.BenchmarkRunner.OPTIONS,
                dev.convoy.testapps.bench.BenchmarkRunner.FLAGS);
        check("bench suite", dev.convoy.testapps.bench.suite.SuiteRunner.OPTIONS,
                dev.convoy.testapps.bench.suite.SuiteRunner.FLAGS);
        check("bench soak", dev.convoy.testapps.bench.soak.SoakRunner.OPTIONS, java.util.List.of());
    }

    private static void check(String command, java.util.List<String> options, java.util.List<String> flags) {
        CommandLine.Command c = Commands.get(command);
        Set<String> valued = new java.util.TreeSet<>();
        Set<String> flagged = new java.util.TreeSet<>();
        for (CommandLine.Option o : c.options()) {
            (o.takesValue() ? valued : flagged).addAll(o.names());
        }
        Set<String> runnerValued = new java.util.TreeSet<>(options);
        runnerValued.removeAll(Bench.LAUNCHER_OPTIONS);
        assertEquals(runnerValued, valued, command);
        assertEquals(new java.util.TreeSet<>(flags), flagged, command);
    }

    private static String[] with(String[] words, String arg) {
        String[] all = java.util.Arrays.copyOf(words, words.length + 1);
        all[words.length] = arg;
        return all;
    }

    @Test
    void unknownCommandIsAUsageError() {
        assertUsage(run("frobnicate", "1"), "unknown command 'frobnicate'");
    }

    /** The usage's formats of dump are the one list of outputs: every name, pprof and jfr among them. */
    @Test
    void usageNamesEveryFormatDumpTakes() {
        Run r = run("help");
        String dump = r.out().substring(r.out().indexOf("dump PID")).replaceAll("\\s+", " ");
        assertTrue(dump.contains("one of " + Output.names() + ";"), dump);
        assertTrue(dump.contains(" jfr,") && dump.contains(" pprof;"), dump);
        for (String line : r.out().split("\n")) {
            assertTrue(line.length() <= 100, () -> "a usage line of at most 100 characters: " + line);
        }
    }

    @Test
    void helpPrintsTheUsageOnStdout() {
        Run r = run("help");
        assertEquals(ConvoyCli.EXIT_OK, r.code(), r::toString);
        for (String command : new String[] {"list", "attach PID [OPTIONS]", "status PID", "start PID", "stop PID",
            "contanalysis PID on|off", "dump PID --format F [-o OUT]"}) {
            assertTrue(r.out().contains(command), () -> command + " in " + r);
        }
    }

    @Test
    void missingOrMalformedPidIsAUsageError() {
        for (String command : new String[] {"attach", "status", "start", "stop", "contanalysis", "dump"}) {
            assertUsage(run(command), command + ": the pid of a JVM is missing");
            assertUsage(run(command, "12ab"), command + ": '12ab' is not a pid");
            assertUsage(run(command, "-5"), command + ": '-5' is not a pid");
            assertUsage(run(command, "0"), command + ": '0' is not a pid");
        }
    }

    @Test
    void extraArgumentsAreUsageErrors() {
        assertUsage(run("list", "now"), "list: unexpected argument 'now'");
        assertUsage(run("status", "123", "456"), "status: unexpected argument '456'");
        assertUsage(run("contanalysis", "123", "on", "off"), "contanalysis: unexpected argument 'off'");
        assertUsage(run("dump", "123", "--format", "chrome", "extra"), "dump: unexpected argument 'extra'");
    }

    @Test
    void contanalysisTakesOnOrOff() {
        assertUsage(run("contanalysis", "123"), "contanalysis: say on or off after the pid");
        assertUsage(run("contanalysis", "123", "maybe"), "contanalysis: 'maybe' is neither on nor off");
    }

    @Test
    void dumpNeedsAKnownFormat() {
        assertUsage(run("dump", "123"), "dump: --format is missing (chrome, tptp, csv, csv-ext, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof)");
        assertUsage(run("dump", "123", "--format", "xml", "-o", "x"),
                "dump: unknown format 'xml'; allowed: chrome, tptp, csv, csv-ext, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof");
        assertUsage(run("dump", "123", "--format=csv-metadata"), "unknown format 'csv-metadata'");
        assertUsage(run("dump", "123", "--format"), "dump: --format needs a value");
        assertUsage(run("dump", "123", "--format", "chrome", "-o"), "dump: -o needs a value");
    }

    /** A file name Convoy cannot write is refused before attaching, naming the limit. */
    @Test
    void dumpRefusesAFileNameTooLongToWrite() {
        String longest = "n".repeat(221 - ".json".length()) + ".json";
        assertUsage(run("dump", "123", "--format", "chrome", "-o", "/tmp/n" + longest),
                "dump: -o the file name 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...' has 222 bytes; Convoy writes file "
                        + "names of at most 221 bytes (a file name has at most 255, and each file is first written "
                        + "under a temporary name 34 bytes longer)");
        assertUsage(run("dump", "123", "--format", "csv", "-o", "c".repeat(212)), "dump: -o the file name 'cccc");
    }

    @Test
    void parsedCommandsCarryTheirArguments() throws CliException {
        ConvoyCli.Command dump = ConvoyCli.Command.parse(new String[] {"dump", "42", "-o", "x/y", "--format", "CSV"});
        assertEquals(42, dump.pid());
        assertEquals(Output.select("csv"), dump.format());
        assertEquals(java.util.EnumSet.of(Output.CSV_META),
                ConvoyCli.Command.parse(new String[] {"dump", "42", "--format", "csv-meta"}).format(),
                "one file of the pair alone, as everywhere a format is taken");
        assertEquals("x/y", dump.output());
        ConvoyCli.Command attach = ConvoyCli.Command.parse(new String[] {"attach", "42", "stackdepth=16", "buffer=8k"});
        assertEquals("stackdepth=16,buffer=8k", attach.options(), "several option words are joined with commas");
        assertEquals("", ConvoyCli.Command.parse(new String[] {"attach", "42"}).options());
        assertEquals("off", ConvoyCli.Command.parse(new String[] {"contanalysis", "42", "OFF"}).value());
    }

    @Test
    void noSuchPidIsReportedWithTheWayToFindJvms() throws IOException {
        long pid = freePid();
        for (String command : new String[] {"status", "start", "stop", "attach"}) {
            Run r = run(command, Long.toString(pid));
            assertEquals(ConvoyCli.EXIT_FAILED, r.code(), r::toString);
            assertEquals("convoy: " + command + ": no JVM with pid " + pid + "; ./convoy list shows them\n", r.err(),
                    r::toString);
        }
        Run dump = run("dump", Long.toString(pid), "--format", "chrome", "-o", "never-written.json");
        assertEquals(ConvoyCli.EXIT_FAILED, dump.code(), dump::toString);
        assertTrue(dump.err().contains("no JVM with pid " + pid), dump::toString);
        assertTrue(Files.notExists(Path.of("never-written.json")));
    }

    @Test
    void theCommandItselfIsNoTarget() {
        Run r = run("status", Long.toString(ProcessHandle.current().pid()));
        assertEquals(ConvoyCli.EXIT_FAILED, r.code(), r::toString);
        assertTrue(r.err().contains("is this convoy command itself"), r::toString);
    }

    /**
     * The Attach API wakes a target with SIGQUIT, which kills a process that is not a JVM:
     * such a pid is refused before anything is sent to it, and it lives on.
     */
    @Test
    void aProcessThatIsNotAJvmIsRefusedAndLeftAlone() throws Exception {
        Process sleep = new ProcessBuilder("sleep", "120").start();
        try {
            Run r = run("status", Long.toString(sleep.pid()));
            assertEquals(ConvoyCli.EXIT_FAILED, r.code(), r::toString);
            assertTrue(r.err().startsWith("convoy: status: pid " + sleep.pid() + " is not a JVM (")
                    && r.err().contains("sleep"), r::toString);
            assertTrue(r.err().contains("./convoy list shows the JVMs"), r::toString);
            assertTrue(sleep.isAlive(), "never signalled");
            Run attach = run("attach", Long.toString(sleep.pid()), "stackdepth=16");
            assertEquals(ConvoyCli.EXIT_FAILED, attach.code(), attach::toString);
            assertTrue(attach.err().contains("is not a JVM"), attach::toString);
            assertTrue(sleep.isAlive(), "never signalled");
        } finally {
            sleep.destroy();
            sleep.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void badOptionsAreRejectedBeforeAttaching() throws Exception {
        // A pid that does not exist: had the options reached the attach step, the error would name the pid.
        String pid = Long.toString(freePid());
        Run unknown = run("attach", pid, "stackdepth=16,foo=1");
        assertUsage(unknown, "attach: unknown option 'foo'; options: recording, buffer, memory, maxsize, maxage, repository, diskmaxsize, stackdepth");
        assertTrue(!unknown.err().contains("no JVM"), unknown::toString);
        assertUsage(run("attach", pid, "stackdepth=lots"), "option 'stackdepth': 'lots' is not a whole number");
        assertUsage(run("attach", pid, "buffer=1m,memory=1m"), "must be at most a quarter of option 'memory'");
        assertUsage(run("attach", pid, "stackdepth=16", "stackdepth=32"), "option 'stackdepth' is given twice");
    }

    @Test
    void effectiveOptionsUseTheTargetsPidForTheDefaultDumpName() {
        String e = ConvoyCli.effectiveOptions("stackdepth=16", 4242);
        assertTrue(e.contains("stackdepth=16"), e);
        assertTrue(e.contains("dumpname=convoy-4242"), e);
        assertTrue(ConvoyCli.effectiveOptions("", 4242).contains("dumpname=convoy-4242"));
        String named = ConvoyCli.effectiveOptions("DumpName=app, stackdepth=16", 4242);
        assertTrue(named.contains("dumpname=app") && !named.contains("convoy-4242"), named);
        assertEquals(AgentOptions.parse("stackdepth=16,dumpname=convoy-4242").effective(), e);
    }

    @Test
    void mbeanFailuresReportTheMBeansOwnReason() {
        IllegalStateException cause = new IllegalStateException("contention analysis is not available");
        assertEquals("contention analysis is not available",
                RecorderClient.reason(new MBeanException(cause, "wrapped")));
        assertEquals("contention analysis is not available",
                RecorderClient.reason(new RuntimeMBeanException(new IllegalStateException(cause.getMessage()))));
        assertEquals("java.lang.IllegalStateException", RecorderClient.reason(new IllegalStateException()));
    }

    @Test
    void listNeverShowsTheCommandItself() {
        Run r = run("list");
        assertEquals(ConvoyCli.EXIT_OK, r.code(), r::toString);
        String self = Long.toString(ProcessHandle.current().pid());
        assertTrue(r.out().lines().noneMatch(l -> l.split("\\s+")[0].equals(self)), r::toString);
    }

    @Test
    void byteCountsAreHumanReadable() {
        assertEquals("512 bytes", ConvoyCli.bytes(512));
        assertEquals("64.0 KiB", ConvoyCli.bytes(64 << 10));
        assertEquals("1.5 MiB", ConvoyCli.bytes(3L << 19));
        assertEquals("16.0 GiB", ConvoyCli.bytes(16L << 30));
        assertEquals("?", ConvoyCli.bytes(null));
    }
}
