package dev.convoy.agent.http;

import static dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_ENTER;
import static dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_ENTERED;
import static dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_WAIT;
import static dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_WAITED;
import static dev.convoy.snapshot.SnapshotFormat.EVENT_OWNER_SAMPLE;
import static dev.convoy.snapshot.SnapshotFormat.FLAG_FRAME_EXACT;
import static dev.convoy.snapshot.SnapshotFormat.OSTATE_SLEEPING;
import static dev.convoy.snapshot.SnapshotFormat.OWNER_STATE_SHIFT;
import static dev.convoy.snapshot.SnapshotFormat.EVENT_THREAD_START;
import static dev.convoy.snapshot.SnapshotFormat.OBJ_PLAIN;
import static dev.convoy.snapshot.SnapshotFormat.OBJ_THREAD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static dev.convoy.agent.http.WebServerTest.T0;
import static dev.convoy.agent.http.WebServerTest.t;

import dev.convoy.export.Output;
import dev.convoy.model.Frame;
import dev.convoy.model.LineEntry;
import dev.convoy.model.MethodInfo;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.RecordingBuilder;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

/**
 * The flame graphs in headless Chromium ({@link Browsers}): the {@code flamegraph} file opened
 * from disk, and the web view's "Flame graph" section served in process, both over a recording
 * of known times. Checked from the DOM that d3-flame-graph draws (one {@code g.frame} per node,
 * named, its rect's width the node's time): the frames and their widths, the views, search,
 * zoom on a click (the frame then spans the whole width) and its reset, the stack panel a click
 * opens; and from Chrome's Network log that nothing was requested but the file or this server.
 */
class FlameGraphBrowserTest extends BrowserPage {
    static final long C_THREAD = 101, C_WORKER = 102, C_LOCK = 103, C_OBJECT = 104, C_MAIN = 105;
    static final long M_RUN = 0x7F00_0000_1000L, M_STEP = 0x7F00_0000_2000L, M_WAIT = 0x7F00_0000_3000L,
            M_MAIN = 0x7F00_0000_4000L;
    static final int S_STEP = 1, S_RUN = 2, S_WAIT = 3;
    static final long O_T = 1001, O_OWNER = 1002, LOCK = 2001, OBJ = 2002;

    /**
     * One thread: blocked on a Lock 600 us in main > run > step, 200 us in main > run; waited on
     * an Object 200 us in main > run > Object.wait. 1 ms in all. The first block's owner's side
     * was sampled: the owner holds the Lock in main > run (line 10), asleep; the held view has
     * those 600 us, and no other view.
     */
    static byte[] snapshot() {
        RecordingBuilder b = new RecordingBuilder()
                .info("java.command", "com.example.Main")
                .info("snapshot.monotonic.ns", Long.toString(t(10_000)))
                .clazz(C_THREAD, "Ljava/lang/Thread;", "Thread.java")
                .clazz(C_WORKER, "Lcom/example/Worker;", "Worker.java")
                .clazz(C_LOCK, "Lcom/example/Lock;", "Lock.java")
                .clazz(C_OBJECT, "Ljava/lang/Object;", "Object.java")
                .clazz(C_MAIN, "Lcom/example/Main;", "Main.java")
                .method(MethodInfo.of(M_RUN, C_WORKER, "run", "()V", new LineEntry(0, 10)))
                .method(MethodInfo.of(M_STEP, C_WORKER, "step", "()V", new LineEntry(0, 20)))
                .method(MethodInfo.of(M_MAIN, C_MAIN, "main", "([Ljava/lang/String;)V", new LineEntry(0, 5)))
                .method(new MethodInfo(M_WAIT, C_OBJECT, "wait", "(J)V", false, List.of()))
                .stack(S_STEP, false, new Frame(M_STEP, 1), new Frame(M_RUN, 2), new Frame(M_MAIN, 3))
                .stack(S_RUN, false, new Frame(M_RUN, 4), new Frame(M_MAIN, 3))
                .stack(S_WAIT, false, new Frame(M_WAIT, -1), new Frame(M_RUN, 6), new Frame(M_MAIN, 3))
                .object(O_T, 0x10000000, OBJ_THREAD, C_THREAD)
                .object(O_OWNER, 0x10000001, OBJ_THREAD, C_THREAD)
                .object(LOCK, 0xAAAA0001, OBJ_PLAIN, C_LOCK)
                .object(OBJ, 0xAAAA0002, OBJ_PLAIN, C_OBJECT);
        b.thread(1, 1, O_T, "main").span(T0, 0)
                .event(T0, EVENT_THREAD_START, 0, O_T, 1)
                .event(t(100), EVENT_MONITOR_ENTER, S_STEP, LOCK, 0)
                .event(t(200), EVENT_OWNER_SAMPLE, FLAG_FRAME_EXACT, 1 | OSTATE_SLEEPING << OWNER_STATE_SHIFT, S_RUN,
                        LOCK, 2, 0)
                .event(t(700), EVENT_MONITOR_ENTERED, 0, LOCK, 0)
                .event(t(800), EVENT_MONITOR_ENTER, S_RUN, LOCK, 0)
                .event(t(1000), EVENT_MONITOR_ENTERED, 0, LOCK, 0)
                .event(t(1100), EVENT_MONITOR_WAIT, S_WAIT, OBJ, 0)
                .event(t(1300), EVENT_MONITOR_WAITED, 0, OBJ, 0);
        b.thread(2, 2, O_OWNER, "owner").span(T0, 0)
                .event(T0, EVENT_THREAD_START, 0, O_OWNER, 2);
        return b.toBytes();
    }

    @BeforeEach
    void start() throws Exception {
        startBrowser(true);
    }

    /** The drawn frames: name to rect width (a name drawn twice keeps its widest). */
    private TreeMap<String, Double> frames() {
        return browser.findElements(By.cssSelector(".flame-chart svg g.frame")).stream()
                .collect(Collectors.toMap(g -> g.getDomAttribute("name"),
                        g -> rectWidth(g.findElement(By.tagName("rect")).getDomAttribute("width")),
                        Math::max, TreeMap::new));
    }

    /** A rect's width; -1 before its transition gave it one. */
    private static double rectWidth(String attribute) {
        return attribute == null ? -1 : Double.parseDouble(attribute);
    }

    private WebElement frame(String name) {
        return browser.findElement(By.cssSelector(".flame-chart svg g.frame[name='" + name + "']"));
    }

    /** Waits until the frames drawn are these, with these widths as fractions of the root's (±1 px). */
    private void awaitFrames(TreeMap<String, Double> fractions) {
        waiting().until(d -> {
            TreeMap<String, Double> drawn = frames();
            if (!drawn.keySet().equals(fractions.keySet())) {
                return false;
            }
            double all = drawn.get("all");
            return fractions.entrySet().stream().allMatch(e -> Math.abs(drawn.get(e.getKey()) - e.getValue() * all) <= 1);
        });
    }

    private static TreeMap<String, Double> fractions(Object... nameAndFraction) {
        TreeMap<String, Double> m = new TreeMap<>();
        for (int i = 0; i < nameAndFraction.length; i += 2) {
            m.put((String) nameAndFraction[i], ((Number) nameAndFraction[i + 1]).doubleValue());
        }
        return m;
    }

    static final TreeMap<String, Double> ALL = fractions("all", 1, "blocked", 0.8, "com.example.Lock", 0.8,
            "com.example.Main.main", 0.8, "com.example.Worker.run", 0.8, "com.example.Worker.step", 0.6,
            "waited", 0.2, "java.lang.Object", 0.2, "java.lang.Object.wait", 0.2);

    /** The checks both pages share: frames, views, search, zoom, reset, the stack panel. */
    private void checkFlameGraph() {
        // main and run are drawn twice (under blocked and waited): frames() keeps the widest
        awaitFrames(ALL);
        assertEquals(11, browser.findElements(By.cssSelector(".flame-chart svg g.frame")).size(),
                "all, blocked > Lock > main > run > step, waited > Object > main > run > wait");
        assertEquals("total 1.00 ms", browser.findElement(By.cssSelector(".flame-total")).getText());

        Select view = new Select(browser.findElement(By.cssSelector("select.flame-view")));
        assertEquals(List.of("contention: blocked and waited", "blocked only", "waited only", "idle only (not contention)",
                "all: contention and idle", "held: where the owners held the locks of long blocks",
                "class com.example.Lock (800.0 \u00b5s)",
                "class java.lang.Object (200.0 \u00b5s)"), view.getOptions().stream().map(WebElement::getText).toList());
        view.selectByValue("blocked");
        awaitFrames(fractions("all", 1, "blocked", 1, "com.example.Lock", 1, "com.example.Main.main", 1,
                "com.example.Worker.run", 1, "com.example.Worker.step", 0.75));
        view.selectByValue("class:java.lang.Object");
        awaitFrames(fractions("all", 1, "waited", 1, "java.lang.Object", 1, "com.example.Main.main", 1,
                "com.example.Worker.run", 1, "java.lang.Object.wait", 1));
        view.selectByValue("held");
        awaitFrames(fractions("all", 1, "held", 1, "com.example.Lock", 1, "com.example.Main.main", 1,
                "com.example.Worker.run [holding, line 10]", 1));
        view.selectByValue("all");
        awaitFrames(ALL);

        // search: the time of the matching frames
        WebElement search = browser.findElement(By.cssSelector("input.flame-search"));
        search.sendKeys("step");
        waiting().until(d -> d.findElement(By.cssSelector(".flame-details")).getText()
                .equals("search: 600.0 \u00b5s of 1.00 ms (60.0%) in 1 frames"));
        search.clear();

        // a click zooms: the waited frame spans the whole width, the blocked one is gone or 0 wide
        assertTrue(browser.findElement(By.cssSelector(".flame-stack")).getDomAttribute("hidden") != null);
        frame("waited").findElement(By.tagName("rect")).click();
        waiting().until(d -> Math.abs(width("waited") - width("all")) <= 1 && width("java.lang.Object.wait") > 0
                && (!frames().containsKey("blocked") || width("blocked") < 1));
        // ... and opens the stacks below it
        WebElement panel = browser.findElement(By.cssSelector(".flame-stack"));
        waiting().until(d -> panel.isDisplayed());
        assertEquals("waited", panel.findElement(By.cssSelector(".flame-stack-title")).getText());
        assertEquals("200.0 \u00b5s (20.0% of the view)", panel.findElement(By.cssSelector(".flame-stack-sum")).getText());
        List<WebElement> items = panel.findElements(By.cssSelector(".flame-stack-item"));
        assertEquals(List.of("waited on java.lang.Object: 200.0 \u00b5s"), items.stream().map(WebElement::getText).toList());
        assertEquals("at java.lang.Object.wait\nat com.example.Worker.run\nat com.example.Main.main",
                panel.findElement(By.cssSelector(".flame-stack-frames")).getText());

        // reset zoom: the widths of the whole view again, the panel closed
        browser.findElement(By.cssSelector("button.flame-reset")).click();
        awaitFrames(ALL);
        assertFalse(panel.isDisplayed());

        // a click on a frame with two stacks below lists both, the most time first
        frame("com.example.Lock").findElement(By.tagName("rect")).click();
        waiting().until(d -> panel.isDisplayed());
        assertEquals(List.of("blocked on com.example.Lock: 600.0 \u00b5s", "blocked on com.example.Lock: 200.0 \u00b5s"),
                panel.findElements(By.cssSelector(".flame-stack-item")).stream().map(WebElement::getText).toList());
        assertEquals(List.of("at com.example.Worker.step\nat com.example.Worker.run\nat com.example.Main.main",
                "at com.example.Worker.run\nat com.example.Main.main"),
                panel.findElements(By.cssSelector(".flame-stack-frames")).stream().map(WebElement::getText).toList());
    }

    private double svgWidth() {
        return Double.parseDouble(browser.findElement(By.cssSelector(".flame-chart svg")).getDomAttribute("width"));
    }

    private double width(String name) {
        return frames().getOrDefault(name, 0.0);
    }

    /** Every URL requested is one of these origins or schemes; and at least one was seen (the log works). */
    private static void assertOnly(List<String> urls, Function<String, Boolean> allowed, String seen) {
        assertTrue(urls.stream().anyMatch(u -> u.contains(seen)), () -> "the network log saw " + seen + ": " + urls);
        List<String> outside = urls.stream().filter(u -> !allowed.apply(u)).toList();
        assertEquals(List.of(), outside, "requests outside");
    }

    @Test
    void flameGraphFileDrawsZoomsAndOpensStacksOffline() throws Exception {
        Path html = dir.resolve("run.html");
        try (OutputStream out = Files.newOutputStream(html)) {
            Output.FLAMEGRAPH.write(SnapshotReader.read(snapshot()), out);
        }
        browser.get(html.toUri().toString());
        checkFlameGraph();

        // a narrower window draws the graph again at its width
        double wide = svgWidth();
        org.openqa.selenium.Dimension size = browser.manage().window().getSize();
        try {
            browser.manage().window().setSize(new org.openqa.selenium.Dimension(800, size.getHeight()));
            waiting().until(d -> svgWidth() < wide - 200);
            awaitFrames(ALL);
        } finally {
            browser.manage().window().setSize(size);
        }
        assertOnly(Browsers.requestedUrls(browser), u -> u.startsWith("file:") || u.startsWith("data:")
                || u.startsWith("about:"), "run.html");
    }

    @Test
    void webViewDrawsTheSnapshotsFlameGraph() throws Exception {
        serve(snapshot(), null);
        browser.get(server.url());
        checkFlameGraph();
        String origin = server.url().replaceAll("/$", "");
        List<String> urls = Browsers.requestedUrls(browser);
        assertOnly(urls, u -> u.startsWith(origin + "/") || u.startsWith("data:") || u.startsWith("about:"), "/api/flame");
        assertTrue(urls.containsAll(Set.of(origin + "/d3.min.js", origin + "/d3-flamegraph.min.js", origin + "/flame.js")),
                urls::toString);
        List<String> refused = Browsers.consoleMessages(browser).stream()
                .filter(m -> m.contains("Content Security Policy")).toList();
        assertTrue(refused.isEmpty(), () -> "the page's own policy refused part of it: " + refused);
    }
}
