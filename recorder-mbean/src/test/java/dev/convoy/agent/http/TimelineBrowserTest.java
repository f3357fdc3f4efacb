package dev.convoy.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.interactions.WheelInput;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.support.ui.ExpectedConditions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The web view's timeline in headless Chromium ({@link Browsers}; skipped with a message when
 * it cannot be had), served in process over the test snapshot of {@link WebServerTest}: three
 * threads over 10 ms, worker-2 blocked on com.example.Lock #2001 from 100 to 250 us. Checks the
 * rows, the canvas's pixels where that interval is drawn, zoom by button and wheel (each
 * re-queries the endpoint), a click that opens the interval's stack, and, from Chromium's
 * performance log, that the page requested nothing but this server.
 */
class TimelineBrowserTest extends BrowserPage {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long BLOCKED_FROM = 100_000, BLOCKED_TO = 250_000;

    /** The browser, with its performance log, and the server over the test snapshot. */
    private void open() throws Exception {
        open(WebServerTest.snapshot());
    }

    private void open(byte[] snapshot) throws Exception {
        startBrowser(true);
        serve(snapshot, null);
    }

    private String summary(String key) {
        return data("tl-summary", key);
    }

    private long number(String key) {
        return Long.parseLong(summary(key));
    }

    /** Waits until the page has received more than {@code n} timeline answers; returns the count. */
    private long awaitRequests(long n) {
        waiting().until(d -> summary("requests") != null && number("requests") > n);
        return number("requests");
    }

    /** Canvas coordinates (CSS pixels) of a time on a row's middle. */
    private double[] at(long ns, int row) {
        double from = number("view-from");
        double to = number("view-to");
        double x = number("plot-left") + (ns - from) * number("plot-width") / (to - from);
        double y = number("rows-top") + row * number("row-height") + number("row-height") / 2.0 - 1;
        return new double[] {x, y};
    }

    /** The canvas pixel at CSS coordinates, as "rgb(r, g, b)". */
    private String pixel(double[] p) {
        return (String) browser.executeScript("const c = document.getElementById('tl-canvas');"
                + "const d = window.devicePixelRatio || 1;"
                + "const v = c.getContext('2d').getImageData(Math.round(arguments[0] * d), Math.round(arguments[1] * d), 1, 1).data;"
                + "return 'rgb(' + v[0] + ', ' + v[1] + ', ' + v[2] + ')';", p[0], p[1]);
    }

    private String legend(String state) {
        return (String) browser.executeScript("return getComputedStyle(document.querySelector("
                + "'.tl-legend i[data-state=' + arguments[0] + ']')).backgroundColor;", state);
    }

    /** Moves the mouse to CSS coordinates of the canvas (Selenium's offsets are from its centre). */
    private Actions mouseAt(double[] p) {
        WebElement canvas = browser.findElement(By.id("tl-canvas"));
        int w = canvas.getRect().getWidth();
        int h = canvas.getRect().getHeight();
        return new Actions(browser).moveToElement(canvas, (int) Math.round(p[0] - w / 2.0),
                (int) Math.round(p[1] - h / 2.0));
    }

    @Test
    void gcPausesAreDrawnAcrossEveryRow() throws Exception {
        open(WebServerTest.snapshotWithGc());
        browser.get(server.url());
        awaitRequests(0);
        assertEquals(3, number("rows"), "the GC ring is no row");
        assertEquals(1, number("gc"));
        assertTrue(browser.findElement(By.id("tl-window")).getText().contains("1 GC pause"),
                () -> browser.findElement(By.id("tl-window")).getText());
        // worker-2 has ended at 900 us: the ended colour, except under the pause from 2 to 3 ms
        String dead = legend("DEAD");
        assertEquals(dead, pixel(at(5_000_000, 2)));
        assertFalse(dead.equals(pixel(at(2_500_000, 2))), "the pause's band is over the row");
        assertEquals(pixel(at(2_500_000, 2)), pixel(at(2_200_000, 2)), "one band");
        String deadlocked = legend("DEADLOCKED");
        assertEquals(deadlocked, pixel(at(5_000_000, 0)));
        assertFalse(deadlocked.equals(pixel(at(2_500_000, 0))), "across every row");
    }

    /**
     * A thread's lost records ({@code Fixtures.losses}: lost-early's 10 to 400 us, the notifier's
     * 150 to 350 us) are drawn hatched, in no state's colour, and their tooltip says how many
     * records were lost and how.
     */
    @Test
    void lostRecordsAreDrawnAsUnknownAndSaySo() throws Exception {
        open(dev.convoy.testing.Fixtures.losses(dev.convoy.testing.Fixtures.base()).toBytes());
        browser.get(server.url());
        awaitRequests(0);
        List<String> rows = browser.findElements(By.cssSelector("#tl-rows li")).stream()
                .map(e -> e.getDomProperty("textContent")).toList();
        assertEquals(List.of("lost-early", "waiter", "notifier", "parker", "blocked"), rows);
        List<String> states = new ArrayList<>();
        for (String st : List.of("RUNNING", "BLOCKED", "WAITING", "SLEEPING", "JOINING", "DEADLOCKED", "DEAD")) {
            states.add(legend(st));
        }
        for (long ns : new long[] {100_000, 250_000, 380_000}) {
            String p = pixel(at(ns, 0));
            assertFalse(states.contains(p), () -> "lost-early at " + ns + " ns is drawn " + p + ", a state's colour");
        }
        assertTrue(states.contains(pixel(at(700_000, 0))), "running after its history is complete");
        assertFalse(states.contains(pixel(at(250_000, 2))), "the notifier's loss");
        assertEquals(legend("BLOCKED"), pixel(at(145_000, 2)), "blocked until its records were lost");
        mouseAt(at(100_000, 0)).perform();
        waiting().until(d -> browser.findElement(By.id("tl-canvas")).getDomAttribute("title") != null
                && browser.findElement(By.id("tl-canvas")).getDomAttribute("title").contains("unknown"));
        String title = browser.findElement(By.id("tl-canvas")).getDomAttribute("title");
        assertTrue(title.startsWith("lost-early: unknown: 300 records lost (100 aged, 200 overwritten), what the "
                + "thread did then is not known, 390.0 \u00b5s from 10.0 \u00b5s"), title);
        assertTrue(browser.findElement(By.id("records-lost")).getText()
                .startsWith("Records: 1500 written, 800 lost (700 overwritten"), () ->
                browser.findElement(By.id("records-lost")).getText());
    }

    @Test
    void timelineDrawsTheRecordingZoomsAndOpensStacksFetchingOnlyFromTheServer() throws Exception {
        open();
        browser.get(server.url());
        long requests = awaitRequests(0);
        List<String> rows = browser.findElements(By.cssSelector("#tl-rows li")).stream()
                .map(e -> e.getDomProperty("textContent")).toList();
        assertEquals(List.of("main", "worker-1", "worker-2"), rows, "one row per thread of the recording");
        assertEquals(3, number("rows"));
        assertEquals(0, number("view-from"));
        assertEquals(10_000_000, number("view-to"), "the whole recording");
        assertTrue(number("spans") >= 7, () -> "spans drawn: " + summary("spans"));

        // worker-2's blocked interval is drawn in the blocked colour, its running time around it in the running one
        String blocked = legend("BLOCKED");
        String running = legend("RUNNING");
        assertFalse(blocked.equals(running));
        assertEquals(blocked, pixel(at((BLOCKED_FROM + BLOCKED_TO) / 2, 2)));
        assertEquals(running, pixel(at(600_000, 2)), "worker-2 runs from 250 to 900 us");
        assertEquals(legend("DEAD"), pixel(at(5_000_000, 2)), "and has ended at 5 ms");
        assertEquals(legend("DEADLOCKED"), pixel(at(5_000_000, 0)), "main is deadlocked from 300 us");
        assertFalse(blocked.equals(pixel(at((BLOCKED_FROM + BLOCKED_TO) / 2, 1))), "worker-1 is not blocked then");

        // zoom in by the button: half the window around its middle, asked for again
        browser.findElement(By.id("tl-zoom-in")).click();
        requests = awaitRequests(requests);
        assertEquals(2_500_000, number("from"));
        assertEquals(7_500_000, number("to"));

        // drag 100 pixels to the left: the window moves 100 pixels' worth of time later, asked for again
        double nsPerPx = 5_000_000.0 / number("plot-width");
        mouseAt(at(5_000_000, 1)).clickAndHold().moveByOffset(-50, 0).moveByOffset(-50, 0).release().perform();
        requests = awaitRequests(requests);
        long dragged = number("from");
        assertTrue(Math.abs(dragged - (2_500_000 + 100 * nsPerPx)) <= 2 * nsPerPx, () -> "from " + dragged);
        assertTrue(Math.abs(number("to") - number("from") - 5_000_000) <= 1, "the same zoom");
        assertEquals("", summary("selected"), "a drag selects nothing");

        // back to the whole, then the wheel over the blocked interval zooms in around it
        browser.findElement(By.id("tl-reset")).click();
        waiting().until(d -> number("from") == 0 && number("to") == 10_000_000);
        requests = number("requests");
        double[] middle = at((BLOCKED_FROM + BLOCKED_TO) / 2, 2);
        WebElement canvas = browser.findElement(By.id("tl-canvas"));
        int w = canvas.getRect().getWidth();
        int h = canvas.getRect().getHeight();
        new Actions(browser).scrollFromOrigin(WheelInput.ScrollOrigin.fromElement(canvas,
                (int) Math.round(middle[0] - w / 2.0), (int) Math.round(middle[1] - h / 2.0)), 0, -120).perform();
        requests = awaitRequests(requests);
        long from = number("from");
        long to = number("to");
        assertTrue(to - from < 10_000_000 && from < BLOCKED_FROM && to > BLOCKED_TO,
                () -> "zoomed around the blocked interval: " + from + " to " + to);
        assertEquals(blocked, pixel(at((BLOCKED_FROM + BLOCKED_TO) / 2, 2)), "still drawn where it is");

        // a click on it selects it and opens its stack
        mouseAt(at((BLOCKED_FROM + BLOCKED_TO) / 2, 2)).click().perform();
        waiting().until(ExpectedConditions.visibilityOfElementLocated(By.id("stack-panel")));
        waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("stack-body"),
                "at com.example.Worker.run(Worker.java:14)"));
        String title = browser.findElement(By.id("stack-title")).getText();
        assertTrue(title.startsWith("worker-2: blocked on com.example.Lock #" + WebServerTest.L1 + ", 150.0 \u00b5s"), title);
        assertEquals("2:" + BLOCKED_FROM + "-" + BLOCKED_TO, summary("selected"));

        // every request the page made went to this server
        List<String> urls = new ArrayList<>();
        for (LogEntry e : browser.manage().logs().get("performance")) {
            JsonNode m = JSON.readTree(e.getMessage()).get("message");
            if (m.get("method").asText().equals("Network.requestWillBeSent")) {
                urls.add(m.get("params").get("request").get("url").asText());
            }
        }
        assertTrue(urls.stream().filter(u -> u.startsWith(server.url() + "api/timeline?")).count() >= 4,
                () -> "the log holds the timeline's requests: " + urls);
        assertTrue(urls.contains(server.url() + "timeline.js"), urls::toString);
        for (String u : urls) {
            assertTrue(u.startsWith(server.url()), () -> "a request outside the server: " + u + " in " + urls);
        }
    }
}
