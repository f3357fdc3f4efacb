package dev.convoy.agent.http;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * What the browser tests share: headless Chromium ({@link Browsers}; a test is skipped with a
 * message when it cannot be had), the web server over a snapshot file in the test's folder, both
 * (and whatever else a test opened) closed after each test, and the waits and reads of the page's
 * {@code data-} attributes.
 */
abstract class BrowserPage {

    @TempDir
    Path dir;
    ChromeDriver browser;
    WebServer server;
    private final List<AutoCloseable> others = new ArrayList<>();

    /** Starts the browser, with its performance log (the requests it made) if asked. */
    void startBrowser(boolean performanceLog) throws Exception {
        browser = Browsers.chromium(Files.createDirectories(dir.resolve("downloads")), performanceLog);
    }

    /** Serves {@code snapshot}, written to {@code run.cvysnap}, with Perfetto at {@code perfetto} (null: its own). */
    void serve(byte[] snapshot, String perfetto) throws Exception {
        Path file = dir.resolve("run.cvysnap");
        Files.write(file, snapshot);
        server = perfetto == null ? WebServer.start(new FileSource(file), "127.0.0.1", 0, null)
                : WebServer.start(new FileSource(file), "127.0.0.1", 0, null, perfetto);
    }

    /** Closed after the test, before the server and the browser. */
    <T extends AutoCloseable> T closing(T c) {
        others.add(c);
        return c;
    }

    @AfterEach
    void closeAll() throws Exception {
        try (WebServer s = server) {
            for (AutoCloseable c : others) {
                c.close();
            }
        } finally {
            if (browser != null) {
                browser.quit();
            }
        }
    }

    WebDriverWait waiting() {
        return new WebDriverWait(browser, Duration.ofSeconds(30));
    }

    /** The element's {@code data-KEY} attribute (null if absent). */
    String data(String element, String key) {
        return browser.findElement(By.id(element)).getDomAttribute("data-" + key);
    }

    long number(String element, String key) {
        return Long.parseLong(data(element, key));
    }
}
