package dev.convoy.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page in headless Chromium, if {@code /usr/bin/chromium} is installed (skipped with a
 * message otherwise; install Debian's {@code chromium} to run it): loads it from the
 * in-process server over the test snapshot and checks that the script filled every table.
 * Only 127.0.0.1 is opened.
 */
class WebPageBrowserTest {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    @TempDir
    Path dir;

    private String chromium(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--disable-extensions", "--disable-background-networking",
                "--user-data-dir=" + dir.resolve("profile"), "--virtual-time-budget=10000"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(dir.resolve("chromium.err").toFile()).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish");
        }
        assertEquals(0, p.exitValue(), () -> readErr());
        return new String(out, StandardCharsets.UTF_8);
    }

    private String readErr() {
        try {
            return Files.readString(dir.resolve("chromium.err"));
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Test
    void pageLoadsAndFillsItsTables() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), "headless Chromium not installed at " + CHROMIUM
                + ": browser test skipped (apt-get install chromium to run it)");
        Path file = dir.resolve("run.cvysnap");
        Files.write(file, WebServerTest.snapshot());
        try (WebServer server = WebServer.start(new FileSource(file), "127.0.0.1", 0, null)) {
            String dom = chromium("--dump-dom", server.url());
            assertTrue(dom.contains("<body class=\"offline\">"), dom);
            assertTrue(dom.contains("offline: run.cvysnap"), dom);
            assertTrue(dom.contains("main blocked on com.example.Lock#2002"), dom); // deadlocks
            assertTrue(dom.contains("com.example.Lock@aaaa0001"), dom); // monitors table
            assertTrue(dom.contains("com.example.Worker.run"), dom); // callers table
            assertTrue(dom.contains("worker-2"), dom); // threads table
            assertTrue(dom.contains("class=\"stack-link\""), dom); // numbers link to stacks
            assertTrue(dom.contains("href=\"/api/download?format=chrome\""), dom);
        }
    }
}
