package dev.convoy.agent.http;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Chromium for the web view's browser tests: Debian's {@code chromium} and
 * {@code chromium-driver} at {@code /usr/bin}. When they are missing and the tests run as
 * root with {@code apt-get} (CI, a fresh container), they are installed from the configured
 * Debian repositories, once per JVM, under a machine-wide lock file so that parallel forks and
 * builds do not run apt at the same time, with bounded time and the output in
 * {@code target/browser-install.log}. Otherwise, or when the install fails, the calling test is
 * skipped with a message that says what to install. Set {@code -Dconvoy.test.browserInstall=false}
 * to never install.
 *
 * <p>Nothing else is ever downloaded: Selenium is given {@code /usr/bin/chromedriver} and
 * {@code /usr/bin/chromium} explicitly, so Selenium Manager is not run (and would run offline
 * if it were).
 */
public final class Browsers {

    public static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    public static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Path APT_GET = Path.of("/usr/bin/apt-get");
    static final List<String> PACKAGES = List.of("chromium", "chromium-driver");
    static final String INSTALL_PROPERTY = "convoy.test.browserInstall";
    private static final long UPDATE_MINUTES = 5;
    private static final long INSTALL_MINUTES = 15;
    /** Selenium's own warnings (CDP version notes) are not test output; kept referenced so the level stays. */
    private static final Logger SELENIUM_LOG = Logger.getLogger("org.openqa.selenium");

    private static boolean checked;
    private static String unavailable;

    private Browsers() {
    }

    static {
        // Selenium Manager is never run (the driver and browser paths are given), and if anything did
        // run it, these make it use what is installed and download nothing (SE_* properties are passed to it).
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
        System.setProperty("SE_OFFLINE", "true");
        SELENIUM_LOG.setLevel(Level.SEVERE);
    }

    private static boolean present() {
        return Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    }

    /**
     * Skips the calling test (JUnit assumption) unless Chromium and its driver are installed or
     * could be installed now.
     */
    public static void assumeChromium() {
        String why = ensureInstalled();
        assumeTrue(why == null, () -> "headless Chromium not available (" + why + "): browser test skipped; "
                + "install Debian's packages to run it: apt-get install " + String.join(" ", PACKAGES));
    }

    /**
     * A new headless Chromium (skipping the test as {@link #assumeChromium()} does), 1400x1800,
     * downloading into {@code downloads} without asking. The caller quits it.
     */
    public static ChromeDriver chromium(Path downloads) {
        return chromium(downloads, false);
    }

    /**
     * Headless Chromium; with {@code networkLog} it keeps Chrome's performance log (the DevTools
     * Network events), read with {@link #requestedUrls}, and the console, read with
     * {@link #consoleMessages}.
     */
    public static ChromeDriver chromium(Path downloads, boolean networkLog) {
        assumeChromium();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1800", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-features=Translate,MediaRouter,OptimizationHints", "--metrics-recording-only",
                "--hide-scrollbars", "--force-device-scale-factor=1");
        Map<String, Object> prefs = new HashMap<>();
        prefs.put("download.default_directory", downloads.toAbsolutePath().toString());
        prefs.put("download.prompt_for_download", false);
        prefs.put("download.directory_upgrade", true);
        prefs.put("safebrowsing.enabled", false);
        options.setExperimentalOption("prefs", prefs);
        if (networkLog) {
            options.setCapability("goog:loggingPrefs", Map.of("performance", "ALL", "browser", "ALL"));
        }
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .withLogFile(targetDir().resolve("chromedriver.log").toFile())
                .build();
        return new ChromeDriver(service, options);
    }

    /**
     * The URLs the browser requested since the last call (Network.requestWillBeSent of the
     * performance log of a browser made with {@code networkLog}): pages, scripts, style sheets,
     * fetches, images, whether or not they succeeded.
     */
    public static List<String> requestedUrls(ChromeDriver browser) {
        List<String> urls = new ArrayList<>();
        for (org.openqa.selenium.logging.LogEntry e : browser.manage().logs().get("performance")) {
            com.fasterxml.jackson.databind.JsonNode m;
            try {
                m = PERF_LOG.readTree(e.getMessage()).path("message");
            } catch (IOException bad) {
                throw new IllegalStateException("unreadable performance log entry: " + e.getMessage(), bad);
            }
            if (m.path("method").asText().equals("Network.requestWillBeSent")) {
                urls.add(m.path("params").path("request").path("url").asText());
            }
        }
        return urls;
    }

    /**
     * The console messages since the last call (of a browser made with {@code networkLog}):
     * the page's own, and the browser's, such as a Content-Security-Policy violation.
     */
    public static List<String> consoleMessages(ChromeDriver browser) {
        List<String> messages = new ArrayList<>();
        for (org.openqa.selenium.logging.LogEntry e : browser.manage().logs().get("browser")) {
            messages.add(e.getLevel() + " " + e.getMessage());
        }
        return messages;
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper PERF_LOG =
            new com.fasterxml.jackson.databind.ObjectMapper();

    /** Null when Chromium and its driver are there (installed now if need be), else why not. */
    static synchronized String ensureInstalled() {
        if (!checked) {
            checked = true;
            unavailable = present() ? null : install();
            if (unavailable != null) {
                System.err.println("[browser tests] skipped: headless Chromium not available (" + unavailable
                        + "); to run them: apt-get install " + String.join(" ", PACKAGES));
            }
        }
        return unavailable;
    }

    private static String install() {
        String missing = "/usr/bin/chromium or /usr/bin/chromedriver missing";
        if (!Boolean.parseBoolean(System.getProperty(INSTALL_PROPERTY, "true"))) {
            return missing + ", and -D" + INSTALL_PROPERTY + "=false";
        }
        if (!Files.isExecutable(APT_GET)) {
            return missing + ", and no apt-get to install them";
        }
        if (!isRoot()) {
            return missing + ", and not root, so not installed by the tests";
        }
        Path log = targetDir().resolve("browser-install.log");
        Path lockFile = Path.of(System.getProperty("java.io.tmpdir"), "convoy-browser-install.lock");
        try {
            Files.createDirectories(log.getParent());
            try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock lock = ch.lock()) {
                if (present()) {
                    return null; // another fork or build installed them while this one waited
                }
                Files.writeString(log, Instant.now() + " installing " + PACKAGES + " with apt-get for the browser tests\n",
                        StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                System.err.println("[browser tests] installing Debian's " + String.join(" and ", PACKAGES)
                        + " with apt-get (once; output in " + log + ")");
                List<String> apt = List.of(APT_GET.toString(), "-q", "-o", "DPkg::Lock::Timeout=300",
                        "-o", "Acquire::Retries=2", "-o", "Acquire::http::Timeout=30");
                String failed = run(concat(apt, "update"), log, UPDATE_MINUTES);
                if (failed == null) {
                    failed = run(concat(apt, "install", "-y", "--no-install-recommends", PACKAGES.get(0),
                            PACKAGES.get(1)), log, INSTALL_MINUTES);
                }
                if (failed != null) {
                    return missing + ", and installing them failed: " + failed + " (see " + log + ")";
                }
                return present() ? null : missing + " even after apt-get install (see " + log + ")";
            }
        } catch (IOException e) {
            return missing + ", and installing them failed: " + e + " (see " + log + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return missing + ", and the install was interrupted";
        }
    }

    private static List<String> concat(List<String> a, String... b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(List.of(b));
        return all;
    }

    /** Runs a command with its output appended to {@code log}; null if it succeeded, else what happened. */
    private static String run(List<String> cmd, Path log, long minutes) throws IOException, InterruptedException {
        Files.writeString(log, "$ " + String.join(" ", cmd) + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
        Process p = pb.start();
        if (!p.waitFor(minutes, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
            return "'" + String.join(" ", cmd) + "' did not finish in " + minutes + " minutes";
        }
        return p.exitValue() == 0 ? null : "'" + String.join(" ", cmd) + "' exited with " + p.exitValue();
    }

    private static boolean isRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    /** This module's target directory (surefire and failsafe run in the module's base directory). */
    static Path targetDir() {
        return Path.of(System.getProperty("basedir", ".")).resolve("target");
    }
}
