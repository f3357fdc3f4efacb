package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.interactions.WheelInput;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.w3c.dom.Document;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.convoy.agent.http.Browsers;
import dev.convoy.agent.http.StubPerfetto;
import dev.convoy.analysis.Deadlocks;
import dev.convoy.model.Recording;
import dev.convoy.schema.CsvLogReader;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testapps.Deadlock;
import dev.convoy.testapps.Scenarios;

/**
 * The live web view in headless Chromium ({@link Browsers}: Debian's, installed by the test
 * setup when missing and possible, else skipped with a message): a child JVM runs the demo
 * scenarios under the real agent jar with {@code http=127.0.0.1:0} and holds, deadlocked; the
 * browser loads the page, checks the tables hold that recording, sorts them by clicking
 * headers, follows a number to its stacks, downloads every format (checked whole against the
 * API and parsed), hands the trace to "Perfetto" (a {@link StubPerfetto} on another local port,
 * named to the agent by the test-only system property) and toggles recording and contention
 * analysis, checking the page and the server; on the timeline, checks a row per thread and
 * that a click on a span an interaction ended draws its arrows and opens its stack panel. On the build JDK only (the page does not depend
 * on the JVM; {@code WebViewIT} covers the API on every JDK). Nothing but 127.0.0.1 is opened.
 *
 * <p>It also saves a screenshot of the dashboard (the timeline drawn, the mouse on a woken
 * span) to {@code target/web-view.png}, and to the
 * path in {@code -Dconvoy.test.screenshot} if given (how {@code docs/web-view.png} is made).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WebViewBrowserIT {

    private static final Pattern URL = Pattern.compile("\\[convoy] web view at (http://127\\.0\\.0\\.1:[0-9]+/)");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @TempDir
    static Path work;
    Path downloads;
    RunningJvm app;
    StubPerfetto perfetto;
    ChromeDriver browser;
    String base;

    @BeforeAll
    void start() throws Exception {
        Browsers.assumeChromium();
        perfetto = new StubPerfetto();
        downloads = Files.createDirectories(work.resolve("downloads"));
        Path dumps = Files.createDirectories(work.resolve("dumps"));
        app = RunningJvm.start(Jdks.all().findFirst().orElseThrow(), work, List.of(
                "-javaagent:" + ChildJvm.agentJar() + "=dumpdir=" + dumps + ",stackdepth=16,contanalysis=on,"
                        + "http=127.0.0.1:0",
                "-Dconvoy.tmpdir=" + work.resolve("lib"),
                "-Dconvoy.test.perfettoUrl=" + perfetto.url()),
                Scenarios.class.getName(), Scenarios.DEMO, "--hold-until-stdin-eof", "--hold-ms=300000");
        app.awaitLineStartingWith(Scenarios.FINAL_LINE_PREFIX + " OK");
        base = Awaitility.await("web view URL on stderr").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20)).until(() -> {
                    for (String line : app.stderr()) {
                        Matcher m = URL.matcher(line);
                        if (m.find()) {
                            return m.group(1);
                        }
                    }
                    return null;
                }, u -> u != null);
        browser = Browsers.chromium(downloads, true);
    }

    @AfterAll
    void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        if (perfetto != null) {
            perfetto.close();
        }
        if (app != null) {
            assertEquals(0, app.finish(), app::output);
            app.close();
        }
    }

    private WebDriverWait waiting() {
        return new WebDriverWait(browser, Duration.ofSeconds(30));
    }

    private HttpResponse<byte[]> api(String method, String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(base).resolve(path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private JsonNode status() throws Exception {
        HttpResponse<byte[]> r = api("GET", "/api/status");
        assertEquals(200, r.statusCode());
        return JSON.readTree(r.body());
    }

    /** Opens the page and waits until the script has filled the tables from a fresh snapshot. */
    private void load() {
        browser.get(base);
        waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("mode"), "live, pid " + app.pid()));
        waiting().until(d -> !rows("threads").isEmpty() && !rows("monitors").isEmpty());
    }

    private List<WebElement> rows(String table) {
        return browser.findElements(By.cssSelector("#" + table + " tbody tr"));
    }

    /** A column's cells, the rows folded under "show all" included (their text content). */
    private List<String> texts(String table, int column) {
        return browser.findElements(By.cssSelector("#" + table + " tbody tr td:nth-child(" + column + ")")).stream()
                .map(td -> td.getDomProperty("textContent")).toList();
    }

    /** The sort keys of a column: the cells' data-value (nanoseconds, counts), as the page sorts them. */
    private List<Long> numbers(String table, int column) {
        return browser.findElements(By.cssSelector("#" + table + " tbody tr td:nth-child(" + column + ")")).stream()
                .map(td -> Long.parseLong(td.getDomAttribute("data-value"))).toList();
    }

    private WebElement header(String table, String key) {
        return browser.findElement(By.cssSelector("#" + table + " th[data-key='" + key + "']"));
    }

    private String summary(String key) {
        return browser.findElement(By.id("tl-summary")).getDomAttribute("data-" + key);
    }

    private long number(String key) {
        return Long.parseLong(summary(key));
    }

    /** Opens the page and waits until the timeline is drawn too. */
    private void loadTimeline() {
        load();
        waiting().until(d -> summary("requests") != null && number("requests") > 0);
    }

    /**
     * The mouse on the middle of a span of the drawn timeline that an interaction between two
     * threads ended (a thread woken, handed a lock, unparked, joined), at least 6 pixels wide, found
     * in the answer of /api/timeline for the window and width the page shows; null if none is.
     */
    private Actions mouseOnAWokenSpan() throws Exception {
        double[] found = wokenSpan();
        return found[0] < 6 ? null : mouseAt(found[1], found[2]);
    }

    /**
     * {@code [width px, x, y]}: a span of the page's window that an interaction between two
     * threads ended (its row is the woken thread's, it holds the interaction's end), a whole span
     * (not merged from narrower ones), the widest on screen, x and y the middle of its visible
     * part in the canvas; if none is at least 6 pixels wide, the widest such span's width (0 for
     * a merged one) and the point where its interaction ends, to zoom in on; width -1 if no
     * interaction between two threads ends in the window.
     */
    private double[] wokenSpan() throws Exception {
        JsonNode t = JSON.readTree(api("GET", "/api/timeline?from=" + summary("from") + "&to=" + summary("to")
                + "&width=" + summary("width")).body());
        double from = t.get("from").asDouble();
        double to = t.get("to").asDouble();
        double width = t.get("width").asDouble();
        double perNs = width / (to - from);
        double left = number("plot-left");
        double top = number("rows-top");
        double rowHeight = number("row-height");
        double[] whole = {-1, 0, 0};
        double[] any = {-1, 0, 0};
        for (JsonNode a : t.get("arrows")) {
            int row = a.get(3).asInt();
            long end = a.get(4).asLong();
            if (row == a.get(1).asInt() || end < from || end > to) {
                continue;
            }
            double y = top + row * rowHeight + rowHeight / 2.0;
            for (JsonNode s : t.get("rows").get(row).get("spans")) {
                long s0 = s.get(0).asLong();
                long s1 = s.get(1).asLong();
                if (s0 < end && end <= s1) {
                    double a0 = Math.max(s0, from);
                    double a1 = Math.min(s1, to);
                    double px = (a1 - a0) * perNs;
                    if (s.get(3).asInt() == 1 && px > whole[0]) {
                        whole = new double[] {px, left + ((a0 + a1) / 2 - from) * perNs, y};
                    }
                    if (px > any[0]) {
                        double x = Math.min(left + width - 2, Math.max(left + 1, left + (end - from) * perNs));
                        any = new double[] {s.get(3).asInt() == 1 ? px : 0, x, y};
                    }
                }
            }
        }
        return whole[0] >= 6 || any[0] < 0 ? whole : any;
    }

    /**
     * The viewport point of canvas coordinates, after scrolling the timeline's box (and the page)
     * so that it is in view: a row far down the box is hidden until scrolled to.
     */
    private int[] reveal(double x, double y) {
        @SuppressWarnings("unchecked")
        List<Number> p = (List<Number>) browser.executeScript("const s = document.getElementById('tl-scroll');"
                + "s.scrollIntoView({block: 'center'});"
                + "s.scrollTop = Math.max(0, arguments[1] - s.clientHeight / 2);"
                + "const r = document.getElementById('tl-canvas').getBoundingClientRect();"
                + "return [Math.round(r.left + arguments[0]), Math.round(r.top + arguments[1])];", x, y);
        return new int[] {p.get(0).intValue(), p.get(1).intValue()};
    }

    private Actions mouseAt(double x, double y) {
        int[] p = reveal(x, y);
        return new Actions(browser).moveToLocation(p[0], p[1]);
    }

    /** Zooms in with the mouse wheel on the widest woken span until it is 6 pixels wide; the mouse on it. */
    private Actions zoomToAWokenSpan() throws Exception {
        for (int i = 0; i < 60; i++) {
            double[] found = wokenSpan();
            assertTrue(found[0] >= 0, "the timeline's window holds the end of an interaction between threads");
            if (found[0] >= 6) {
                return mouseAt(found[1], found[2]);
            }
            long requests = number("requests");
            int[] p = reveal(found[1], found[2]);
            new Actions(browser).scrollFromOrigin(WheelInput.ScrollOrigin.fromViewport(p[0], p[1]), 0, -100).perform();
            waiting().until(d -> number("requests") > requests);
        }
        throw new AssertionError("no woken span got 6 pixels wide in 60 steps of zoom");
    }

    @Test
    @Order(1)
    void dashboardScreenshot() throws Exception {
        loadTimeline();
        Actions onSpan = mouseOnAWokenSpan();
        if (onSpan != null) { // the picture shows the arrows of a selected span
            onSpan.click().perform();
            waiting().until(d -> number("arrows") > 0);
            browser.findElement(By.id("stack-close")).click();
        }
        new Actions(browser).moveToLocation(1, 1).perform();
        browser.executeScript("window.scrollTo(0, 0);"); // the timeline's box stays on the selected row
        // a 1400x1800 viewport whatever the window decorations
        browser.executeCdpCommand("Emulation.setDeviceMetricsOverride",
                Map.of("width", 1400, "height", 1800, "deviceScaleFactor", 1, "mobile", false));
        byte[] png;
        try {
            png = browser.getScreenshotAs(OutputType.BYTES);
        } finally {
            browser.executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
        }
        assertEquals(0x89, png[0] & 0xFF);
        assertEquals("PNG", new String(png, 1, 3, StandardCharsets.US_ASCII));
        Path target = Path.of(System.getProperty("basedir", ".")).resolve("target/web-view.png");
        Files.write(target, png);
        String copy = System.getProperty("convoy.test.screenshot");
        if (copy != null && !copy.isBlank()) {
            Files.copy(target, Path.of(copy), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Test
    @Order(2)
    void tablesHoldTheLiveRecordingAndSortOnClick() {
        load();
        assertTrue(browser.findElement(By.id("toggle-recording")).isDisplayed(), "controls shown live");
        assertEquals("on", browser.findElement(By.id("recording-state")).getText());
        String deadlocks = browser.findElement(By.id("deadlocks")).getText();
        assertTrue(deadlocks.contains(Deadlock.THREAD_A) && deadlocks.contains(Deadlock.THREAD_B), deadlocks);
        assertTrue(rows("monitors").size() >= 5, () -> texts("monitors", 1).toString());
        assertTrue(texts("monitors", 1).stream().anyMatch(c -> c.startsWith("dev.convoy.testapps.LockStorm$")),
                () -> texts("monitors", 1).toString());
        assertTrue(texts("callers", 3).contains("dev.convoy.testapps.LockStorm.work"), () -> texts("callers", 3).toString());
        List<String> threads = texts("threads", 1);
        assertTrue(threads.contains(Deadlock.THREAD_A) && threads.contains(Deadlock.THREAD_B), threads::toString);
        assertTrue(texts("counters", 1).contains("eventsRecorded"));
        assertFalse(browser.findElement(By.id("critical-summary")).getText().isEmpty());

        // a long table shows its first 15 rows and a button for the rest
        List<WebElement> all = rows("threads");
        assertTrue(all.size() > 15, () -> "the demo has more threads than a page: " + all.size());
        assertEquals(15, all.stream().filter(WebElement::isDisplayed).count(), "the first page of threads");
        WebElement more = browser.findElement(By.cssSelector("#threads + button.more-rows"));
        assertEquals("show all " + all.size() + " rows", more.getText());
        more.click();
        assertEquals(all.size(), rows("threads").stream().filter(WebElement::isDisplayed).count(), "all threads");
        assertEquals("show the first 15 rows", more.getText());

        // a number column: ascending, then descending on the second click
        WebElement blocked = header("threads", "blockedNs");
        blocked.click();
        List<Long> up = numbers("threads", 6);
        List<Long> sortedUp = new ArrayList<>(up);
        Collections.sort(sortedUp);
        assertEquals(sortedUp, up, "blocked time ascending");
        assertEquals("asc", blocked.getDomAttribute("class"));
        assertTrue(up.get(0) < up.get(up.size() - 1), () -> "the recording has threads blocked for different times: " + up);
        blocked.click();
        List<Long> down = numbers("threads", 6);
        List<Long> sortedDown = new ArrayList<>(up);
        sortedDown.sort(Collections.reverseOrder());
        assertEquals(sortedDown, down, "blocked time descending");
        assertEquals("desc", blocked.getDomAttribute("class"));

        // a text column: the names in order, then reversed
        WebElement name = header("threads", "name");
        name.click();
        List<String> names = texts("threads", 1);
        assertEquals("asc", name.getDomAttribute("class"));
        assertEquals("", blocked.getDomAttribute("class"), "one sorted column at a time");
        for (int i = 1; i < names.size(); i++) {
            String a = names.get(i - 1).toLowerCase(Locale.ROOT), b = names.get(i).toLowerCase(Locale.ROOT);
            assertTrue(a.charAt(0) <= b.charAt(0), () -> "names ascending: " + names);
        }
        name.click();
        List<String> reversed = new ArrayList<>(names);
        Collections.reverse(reversed);
        if (reversed.stream().distinct().count() == reversed.size()) {
            assertEquals(reversed, texts("threads", 1), "names descending");
        }

        // the sort order survives a new snapshot
        header("monitors", "blockedCount").click();
        header("monitors", "blockedCount").click();
        browser.findElement(By.id("refresh")).click();
        waiting().until(d -> browser.findElement(By.id("message")).getText().isEmpty());
        List<Long> counts = numbers("monitors", 3);
        List<Long> countsDown = new ArrayList<>(counts);
        countsDown.sort(Collections.reverseOrder());
        assertEquals(countsDown, counts, "still by blocks, descending, after a new snapshot");
        assertTrue(counts.get(0) > 0, counts::toString);

        // a number links to its stacks: deadlock-A's one block, in Deadlock.lockBoth
        WebElement blocks = browser.findElement(By.xpath(
                "//table[@id='threads']//tr[td[1]='" + Deadlock.THREAD_A + "']/td[5]/a[@class='stack-link']"));
        blocks.click();
        waiting().until(ExpectedConditions.visibilityOfElementLocated(By.id("stack-panel")));
        waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("stack-body"),
                "at " + Deadlock.class.getName() + ".lockBoth("));
        assertEquals("Thread " + Deadlock.THREAD_A, browser.findElement(By.id("stack-title")).getText());
        browser.findElement(By.id("stack-close")).click();
        waiting().until(ExpectedConditions.invisibilityOfElementLocated(By.id("stack-panel")));
    }

    @Test
    @Order(3)
    void downloadsEveryFormatWhole() throws Exception {
        load(); // froze a snapshot: the links download it, as does the API now
        String name = status().get("dumpName").asText();
        assertEquals("convoy-" + app.pid(), name);
        record Link(String id, String format, String file) {
        }
        List<Link> links = List.of(new Link("dl-chrome", "chrome", name + ".json"),
                new Link("dl-tptp", "tptp", name + ".trcxml"),
                new Link("dl-csv-meta", "csv-meta", name + ".meta.csv"),
                new Link("dl-csv-events", "csv-events", name + ".events.csv"),
                new Link("dl-csv-losses", "csv-losses", name + ".losses.csv"),
                new Link("dl-csv-events-ext", "csv-events-ext", name + ".events-ext.csv"),
                new Link("dl-jfr", "jfr", name + ".jfr"),
                new Link("dl-snapshot", "snapshot", name + ".cvysnap"),
                new Link("dl-flamegraph", "flamegraph", name + ".html"),
                new Link("dl-collapsed", "collapsed", name + ".collapsed.txt"),
                new Link("dl-pprof", "pprof", name + ".pb.gz"));
        assertEquals(links.size(), browser.findElements(By.cssSelector("a[data-format]")).size(), "every format offered");
        for (Link link : links) {
            browser.findElement(By.id(link.id())).click();
            Path file = downloads.resolve(link.file());
            byte[] got = Awaitility.await("download of " + link.file()).atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> complete(file), b -> b != null);
            HttpResponse<byte[]> served = api("GET", "/api/download?format=" + link.format());
            assertEquals(200, served.statusCode());
            assertArrayEquals(served.body(), got, link.file() + ": the whole download, as the server serves it");
            check(link.format(), got);
        }
    }

    /** The file's bytes once Chromium has finished it (no partial .crdownload left), else null. */
    private byte[] complete(Path file) throws IOException {
        try (var partial = Files.list(downloads)) {
            if (partial.anyMatch(p -> p.getFileName().toString().endsWith(".crdownload"))) {
                return null;
            }
        }
        return Files.isRegularFile(file) ? Files.readAllBytes(file) : null;
    }

    private static void check(String format, byte[] bytes) throws Exception {
        String text = new String(bytes, StandardCharsets.UTF_8);
        switch (format) {
            case "chrome" -> {
                JsonNode trace = JSON.readTree(bytes);
                assertTrue(trace.get("traceEvents").size() > 100, "a trace with the demo's events");
                assertTrue(text.contains(Deadlock.THREAD_A));
            }
            case "tptp" -> {
                DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
                f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
                f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
                Document doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(bytes));
                assertEquals("TRACE", doc.getDocumentElement().getTagName());
                assertTrue(doc.getElementsByTagName("threadStart").getLength() > 0, "threads in the TPTP trace");
            }
            case "csv-meta" -> {
                assertTrue(text.endsWith("\n"), "whole lines");
                List<String> lines = Arrays.asList(text.split("\n"));
                assertTrue(lines.contains("Ldev/convoy/testapps/Deadlock;,Deadlock.java"), "the Deadlock class line");
                for (String line : lines) {
                    int fields = line.split(",", -1).length;
                    assertTrue(fields == 2 || (fields >= 5 && line.matches("[0-9A-F]{16},.*")), line);
                }
            }
            case "csv-events" -> {
                assertTrue(text.endsWith("\n"), "whole lines");
                List<String> lines = Arrays.asList(text.split("\n"));
                assertTrue(lines.size() > 100);
                for (String line : lines) {
                    assertTrue(line.matches("[0-9]+\\.[0-9]{9},[A-Za-z]+,.*"), line);
                }
                assertTrue(lines.stream().anyMatch(l -> l.split(",")[1].equals("MonitorContendedEnter")));
                assertTrue(lines.stream().noneMatch(l -> CsvLogReader.EXTENSION.contains(l.split(",")[1])),
                        "the specification's events only");
            }
            case "csv-events-ext" -> {
                assertTrue(text.endsWith("\n"), "whole lines");
                assertTrue(Arrays.stream(text.split("\n")).anyMatch(l -> l.split(",")[1].equals("MonitorOwner")),
                        "Convoy's lines among the specification's");
            }
            case "csv-losses" -> assertTrue(text.startsWith("Records,") && text.endsWith("\n"), text);
            case "collapsed" -> {
                assertTrue(text.endsWith("\n"), "whole lines");
                for (String line : text.split("\n")) {
                    assertTrue(line.matches("(blocked|waited|idle);[^; ]+(;[^; ]+)+ [1-9][0-9]*"), line);
                }
                assertTrue(text.contains("blocked;" + Deadlock.LockA.class.getName() + ";"), "deadlock-B's block on LockA");
            }
            case "flamegraph" -> {
                assertTrue(text.startsWith("<!DOCTYPE html>") && text.contains("ConvoyFlame.mount"), "the page");
                assertTrue(text.contains(Deadlock.LockB.class.getName()), "the demo's data in the page");
            }
            case "jfr" -> {
                Path jfr = Files.createTempFile("convoy-download", ".jfr");
                try {
                    Files.write(jfr, bytes);
                    List<jdk.jfr.consumer.RecordedEvent> events = jdk.jfr.consumer.RecordingFile.readAllEvents(jfr);
                    assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("jdk.JavaMonitorEnter")),
                            "contended enters in the downloaded JFR file");
                    assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("jdk.ThreadStart")
                            && Deadlock.THREAD_A.equals(e.getThread("thread").getJavaName())), "deadlock-A started");
                } finally {
                    Files.delete(jfr);
                }
            }
            case "pprof" -> {
                dev.convoy.testing.PprofCheck.Profile p = dev.convoy.testing.PprofCheck.read(bytes);
                assertTrue(p.samples().stream().anyMatch(s -> Deadlock.THREAD_A.equals(s.labels().get("thread"))
                        && Deadlock.LockB.class.getName().equals(s.labels().get("lock_class"))),
                        "deadlock-A's block on LockB in the downloaded profile");
            }
            default -> {
                assertEquals("CVYSNAP\0", new String(bytes, 0, 8, StandardCharsets.US_ASCII), "snapshot magic");
                Recording r = SnapshotReader.read(bytes);
                assertEquals(1, Deadlocks.find(r).size(), "the demo's deadlock, in the downloaded snapshot");
            }
        }
    }

    /**
     * The flame graph section draws the live snapshot: frames named as in /api/flame (the same
     * frozen snapshot), among them the deadlocked threads' lock classes; a click on one zooms it
     * to the whole width and lists its stacks, in Deadlock's code; nothing requested but this
     * server (and the Perfetto stub of another test).
     */
    @Test
    @Order(4)
    void flameGraphDrawsTheLiveSnapshot() throws Exception {
        load();
        By frames = By.cssSelector("#flame svg g.frame");
        waiting().until(d -> d.findElements(frames).size() > 10);
        HttpResponse<byte[]> flame = api("GET", "/api/flame");
        assertEquals(200, flame.statusCode());
        List<String> names = new ArrayList<>();
        JSON.readTree(flame.body()).get("frames").forEach(n -> names.add(n.asText()));
        List<String> drawn = browser.findElements(frames).stream().map(g -> g.getDomAttribute("name")).toList();
        for (String n : drawn) {
            assertTrue(n.equals("all") || names.contains(n), () -> n + " not in /api/flame's frames");
        }
        String lockB = Deadlock.LockB.class.getName();
        assertTrue(drawn.containsAll(List.of("all", "blocked", "waited", lockB)), drawn::toString);

        WebElement frame = browser.findElement(By.cssSelector("#flame svg g.frame[name='" + lockB + "']"));
        frame.findElement(By.tagName("rect")).click();
        // both widths read afresh each time: the chart is redrawn when the page's width changes (the
        // stacks panel opening can bring a scrollbar), and the renderer may redraw its elements
        By lockBRect = By.cssSelector("#flame svg g.frame[name='" + lockB + "'] rect");
        By allRect = By.cssSelector("#flame svg g.frame[name='all'] rect");
        waiting().ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(d -> {
            double all = Double.parseDouble(d.findElement(allRect).getDomAttribute("width"));
            return d.findElements(lockBRect).stream()
                    .anyMatch(r -> Math.abs(Double.parseDouble(r.getDomAttribute("width")) - all) <= 1);
        });
        WebElement panel = browser.findElement(By.cssSelector("#flame .flame-stack"));
        waiting().until(d -> panel.isDisplayed());
        assertEquals("blocked on " + lockB, panel.findElement(By.cssSelector(".flame-stack-title")).getText());
        String stacks = panel.findElements(By.cssSelector(".flame-stack-frames")).stream().map(WebElement::getText)
                .reduce("", String::concat);
        assertTrue(stacks.contains("at " + Deadlock.class.getName() + "."), stacks);

        for (String url : Browsers.requestedUrls(browser)) {
            assertTrue(url.startsWith(base) || url.startsWith(perfetto.url()) || url.startsWith("data:")
                    || url.startsWith("about:"), url);
        }
    }

    @Test
    @Order(5)
    void openInPerfettoHandsTheTraceToTheWindowItOpens() throws Exception {
        load();
        assertEquals(perfetto.url(), status().get("perfetto").asText(), "the test's stub, not ui.perfetto.dev");
        String page = browser.getWindowHandle();
        browser.findElement(By.id("open-perfetto")).click();
        StubPerfetto.Received got = perfetto.awaitTrace();
        HttpResponse<byte[]> served = api("GET", "/api/download?format=chrome");
        assertArrayEquals(served.body(), got.buffer(), "Perfetto got the Chrome trace the server serves");
        assertEquals("[object ArrayBuffer]", got.type());
        assertEquals("Convoy live, pid " + app.pid(), got.title());
        assertEquals("convoy-" + app.pid() + ".json", got.fileName());
        assertTrue(JSON.readTree(got.buffer()).has("traceEvents"));
        waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "trace handed to Perfetto"));
        for (String h : browser.getWindowHandles()) {
            if (!h.equals(page)) {
                browser.switchTo().window(h).close();
            }
        }
        browser.switchTo().window(page);
    }

    @Test
    @Order(5)
    void timelineShowsEveryThreadAndOpensTheStackOfAClickedSpan() throws Exception {
        loadTimeline();
        Recording r = SnapshotReader.read(api("GET", "/api/download?format=snapshot").body());
        List<String> rows = browser.findElements(By.cssSelector("#tl-rows li")).stream()
                .map(e -> e.getDomProperty("textContent")).toList();
        assertEquals(r.threads().stream().filter(t -> !t.isSystem()).map(t -> t.label()).toList(), rows,
                "a row per Java thread of the frozen snapshot, as the other outputs name them");
        assertTrue(rows.contains(Deadlock.THREAD_A), rows::toString);
        assertTrue(number("path-segments") > 0, "the critical path is drawn");
        assertTrue(number("spans") >= rows.size());

        zoomToAWokenSpan().click().perform();
        waiting().until(d -> !summary("selected").isEmpty());
        assertTrue(number("arrows") > 0, "the arrows of the selected span are drawn");
        waiting().until(ExpectedConditions.visibilityOfElementLocated(By.id("stack-panel")));
        String title = browser.findElement(By.id("stack-title")).getText();
        assertTrue(title.startsWith(rows.get(Integer.parseInt(summary("selected").split(":")[0])) + ": "), title);
        assertTrue(title.contains(" from "), title);
        browser.findElement(By.id("stack-close")).click();
    }

    @Test
    @Order(6)
    void togglesChangeThePageAndTheServer() throws Exception {
        load();
        assertTrue(status().get("recording").asBoolean());
        WebElement toggle = browser.findElement(By.id("toggle-recording"));
        assertEquals("Stop recording", toggle.getText());
        toggle.click();
        waiting().until(ExpectedConditions.textToBe(By.id("recording-state"), "off"));
        assertEquals("Start recording", toggle.getText());
        assertFalse(status().get("recording").asBoolean(), "the agent stopped recording");
        toggle.click();
        waiting().until(ExpectedConditions.textToBe(By.id("recording-state"), "on"));
        assertEquals("Stop recording", toggle.getText());
        assertTrue(status().get("recording").asBoolean(), "the agent records again");

        assertTrue(status().get("contentionAnalysis").asBoolean());
        WebElement analysis = browser.findElement(By.id("toggle-contanalysis"));
        assertEquals("Turn off", analysis.getText());
        analysis.click();
        waiting().until(ExpectedConditions.textToBe(By.id("contanalysis-state"), "off"));
        assertFalse(status().get("contentionAnalysis").asBoolean());
        analysis.click();
        waiting().until(ExpectedConditions.textToBe(By.id("contanalysis-state"), "on"));
        assertTrue(status().get("contentionAnalysis").asBoolean());
        assertEquals("", browser.findElement(By.id("message")).getText(), "no error shown");
        List<String> refused = Browsers.consoleMessages(browser).stream()
                .filter(m -> m.contains("Content Security Policy")).toList();
        assertTrue(refused.isEmpty(), () -> "in this class's pages, the page's own policy refused: " + refused);
    }
}
