package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every {@code ./convoy} command refuses an argument it does not know the same way: exit code 2,
 * the reason on stderr and the command's usage, nothing on stdout, nothing started (the script
 * runs against the agent jar the build just made).
 */
class ConvoyCommandsIT {

    @TempDir
    Path work;

    @ParameterizedTest(name = "{0} --bogus")
    @ValueSource(strings = {"demo", "convert", "report", "view", "list", "attach", "status", "start", "stop",
            "contanalysis", "dump", "build", "help", "bench", "bench suite", "bench soak"})
    void anUnknownArgumentExits2WithTheUsage(String command) throws Exception {
        Path root = dev.convoy.agent.OptionDocsTest.root();
        List<String> cmd = new ArrayList<>(List.of(root.resolve("convoy").toString()));
        cmd.addAll(List.of(command.split(" ")));
        cmd.add("--bogus");
        Path out = work.resolve("out");
        Path err = work.resolve("err");
        Process p = new ProcessBuilder(cmd).directory(work.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        p.getOutputStream().close();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "ended");
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertEquals(2, p.exitValue(), () -> command + ": " + stderr);
        assertEquals("", Files.readString(out, StandardCharsets.UTF_8), command);
        assertTrue(stderr.contains("--bogus"), () -> command + " names the argument: " + stderr);
        assertTrue(stderr.contains("usage"), () -> command + " gives its usage: " + stderr);
    }
}
