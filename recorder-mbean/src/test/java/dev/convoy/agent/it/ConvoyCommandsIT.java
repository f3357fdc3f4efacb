package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.convoy.cli.Commands;

/**
 * Every {@code ./convoy} command refuses an argument it does not know, a missing argument and a bad
 * value the same way: exit code 2, the reason in one line on stderr and the command's usage (as
 * {@link Commands} generates it), nothing on stdout, nothing started (the script runs against the
 * agent jar the build just made).
 */
class ConvoyCommandsIT {

    @TempDir
    Path work;

    /** What one run of the script printed and returned. */
    record Run(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    private Run convoy(String... args) throws Exception {
        Path root = dev.convoy.agent.OptionDocsTest.root();
        List<String> cmd = new ArrayList<>(List.of(root.resolve("convoy").toString()));
        cmd.addAll(List.of(args));
        Path out = work.resolve("out");
        Path err = work.resolve("err");
        Process p = new ProcessBuilder(cmd).directory(work.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        p.getOutputStream().close();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "ended");
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "{0} --bogus")
    @ValueSource(strings = {"demo", "convert", "report", "view", "list", "attach", "status", "start", "stop",
            "contanalysis", "dump", "build", "help", "bench", "bench suite", "bench soak"})
    void anUnknownArgumentExits2WithTheUsage(String command) throws Exception {
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.add("--bogus");
        Run r = convoy(args.toArray(String[]::new));
        assertEquals(2, r.code(), r::toString);
        assertEquals("", r.out(), command);
        assertEquals("convoy: " + command + ": unknown option '--bogus'\n" + Commands.get(command).usage() + "\n",
                r.err(), command);
    }

    /** A required argument left out, and a value a check refuses: exit 2, the line and the usage. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "convert;                              convoy: convert: no input file",
        "convert in.cvysnap;                   convoy: convert: --format is missing (chrome, ",
        "convert in.cvysnap --format pdf;      convoy: convert: unknown format 'pdf'",
        "report;                               convoy: report: no input file",
        "report in.cvysnap --since soon;       convoy: report: --since 'soon' is not a duration",
        "view;                                 convoy: view: no snapshot file given",
        "view in.cvysnap --port 65536;         convoy: view: --port needs a number from 0 (any free port) to 65535",
        "status;                               convoy: status: the pid of a JVM is missing",
        "attach 12ab;                          convoy: attach: '12ab' is not a pid",
        "attach 1 stackdepth=lots;             convoy: attach: option 'stackdepth': 'lots' is not a whole number",
        "contanalysis 1;                       convoy: contanalysis: say on or off after the pid",
        "contanalysis 1 maybe;                 convoy: contanalysis: 'maybe' is neither on nor off",
        "dump 1 --format chrome --since 1m --from 14:05; convoy: dump: --since takes the last part",
        "demo --out;                           convoy: demo: --out needs a value (DIR)",
        "bench --runs 0;                       convoy: bench: --runs needs a number from 1 up",
        "bench suite --gc zgc;                 convoy: bench suite: --gc takes serial|parallel|g1",
        "bench soak --minutes many;            convoy: bench soak: --minutes needs a number from 1 up",
        "help me;                              convoy: help: unexpected argument 'me'",
    })
    void aMissingArgumentOrABadValueExits2WithTheUsage(String line, String message) throws Exception {
        Run r = convoy(line.split(" "));
        String command = Commands.find(line.split(" ")).name();
        assertEquals(2, r.code(), r::toString);
        assertEquals("", r.out(), r::toString);
        assertTrue(r.err().startsWith(message), r::toString);
        assertTrue(r.err().endsWith("\n" + Commands.get(command).usage() + "\n"), r::toString);
        assertEquals(1, r.err().lines().takeWhile(l -> !l.startsWith("usage: ")).count(), () -> "one line: " + r);
    }

    @Test
    void helpAndNoCommandPrintTheOverallUsageAndAnUnknownCommandExits2() throws Exception {
        for (String[] args : new String[][] {{}, {"help"}, {"--help"}}) {
            Run r = convoy(args);
            assertEquals(0, r.code(), r::toString);
            assertEquals(Commands.usage() + "\n", r.out(), r::toString);
        }
        Run r = convoy("frobnicate", "--help");
        assertEquals(2, r.code(), r::toString);
        assertEquals("convoy: unknown command 'frobnicate'\n" + Commands.usage() + "\n", r.err(), r::toString);
        Run build = convoy("build");
        assertEquals(0, build.code(), build::toString);
        assertTrue(build.out().trim().endsWith("convoy-agent.jar"), build::toString);
    }
}
