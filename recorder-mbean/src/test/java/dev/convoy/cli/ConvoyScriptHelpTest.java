package dev.convoy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import dev.convoy.export.Output;

/**
 * The launcher script's help ({@code ./convoy help}, {@code ./convoy COMMAND --help}): run with
 * bash as a user would. Help needs neither Java nor a build, so these run the script only.
 */
class ConvoyScriptHelpTest {

    private static final Path SCRIPT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent()
            .resolve("convoy");

    record Run(int code, String out, String err) {}

    private static Run convoy(String... args) throws IOException, InterruptedException {
        List<String> cmd = new java.util.ArrayList<>(List.of("bash", SCRIPT.toString()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("convoy-help", ".out");
        Path err = Files.createTempFile("convoy-help", ".err");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the script answered");
            return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "demo, --help, '  demo [--out DIR]'",
        "view, -h, '  view FILE [--port N]'",
        "dump, --help, '  dump PID --format F'",
        "stop, --help, '  start PID | stop PID'",
        "attach, --help, '  attach PID [OPTIONS]'",
        "list, --help, '  list '",
        "bench, --help, '  bench [ARGS]'",
        "'bench suite', --help, '  bench suite [ARGS]'",
        "'bench soak', -h, '  bench soak [--minutes N]'",
    })
    void commandHelpPrintsThatCommandsUsage(String command, String flag, String line) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of(command.split(" ")));
        args.add(flag);
        Run r = convoy(args.toArray(String[]::new));
        assertEquals(0, r.code(), r::toString);
        assertEquals("", r.err(), r::toString);
        assertTrue(r.out().startsWith(line), r::toString);
        assertTrue(r.out().contains("README.md") || r.out().contains("docs/performance.md"), r::toString);
        assertTrue(!r.out().contains("usage: ./convoy COMMAND"), () -> "only that command's lines: " + r);
    }

    @Test
    void helpNamesEveryOutputFormatForConvertAndDump() throws Exception {
        Run r = convoy("help");
        assertEquals(0, r.code(), r::toString);
        String text = r.out().replaceAll("\\s+", " ");
        String convert = text.substring(text.indexOf("convert FILE"), text.indexOf("report FILE"));
        String dump = text.substring(text.indexOf("dump PID"), text.indexOf("Record any application"));
        for (String name : Output.names().split(", ")) {
            assertTrue(convert.contains(name), () -> "convert's line names " + name + ": " + convert);
            assertTrue(dump.contains(name), () -> "dump's line names " + name + ": " + dump);
        }
    }

    /** Bad arguments exit 2, as README promises for every command; the demo says so before building anything. */
    @ParameterizedTest(name = "demo {0}")
    @CsvSource({
        "--bogus, 'convoy: demo: unknown argument ''--bogus'' (usage: ./convoy demo [--out DIR])'",
        "--out, 'convoy: demo: --out needs a directory'",
    })
    void demoRefusesABadArgumentWithExitCode2(String arg, String message) throws Exception {
        Run r = convoy("demo", arg);
        assertEquals(2, r.code(), r::toString);
        assertEquals(message + "\n", r.err(), r::toString);
        assertEquals("", r.out(), r::toString);
    }

    @Test
    void anUnknownCommandIsRefusedWithTheUsage() throws Exception {
        Run r = convoy("frobnicate", "--help");
        assertEquals(2, r.code(), r::toString);
        assertTrue(r.err().startsWith("convoy: unknown command 'frobnicate'"), r::toString);
    }
}
