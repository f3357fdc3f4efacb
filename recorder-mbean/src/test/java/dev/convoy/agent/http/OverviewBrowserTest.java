package dev.convoy.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The history strip in headless Chromium ({@link Browsers}; skipped with a message when it cannot
 * be had), over the test snapshot of {@link WebServerTest} (10 ms; main and worker-1 blocked from
 * 300 us to the end): the strip draws the blocked time in the legend's colour; a drag over it
 * picks a window, which the server then shows (its overview says so) and the timeline and the
 * page's note describe; typed times pick an exact window; "Whole history" goes back.
 */
class OverviewBrowserTest extends BrowserPage {

    /** The strip's pixel at CSS coordinates, as "rgb(r, g, b)". */
    private String pixel(double x, double y) {
        return (String) browser.executeScript("const c = document.getElementById('ov-canvas');"
                + "const d = window.devicePixelRatio || 1;"
                + "const v = c.getContext('2d').getImageData(Math.round(arguments[0] * d), Math.round(arguments[1] * d), 1, 1).data;"
                + "return 'rgb(' + v[0] + ', ' + v[1] + ', ' + v[2] + ')';", x, y);
    }

    private JsonNode serverOverview() throws Exception {
        WebServerTest http = new WebServerTest();
        http.server = server;
        return WebServerTest.json(http.get("/api/overview"));
    }

    @Test
    void aDragOverTheHistoryPicksTheWindowEverythingThenDescribes() throws Exception {
        startBrowser(false);
        serve(WebServerTest.snapshot(), null);
        browser.get(server.url());
        waiting().until(d -> data("ov-summary", "requests") != null && data("tl-summary", "requests") != null);
        assertEquals("true", data("ov-summary", "whole"));
        assertEquals(10_000_000, number("ov-summary", "duration-ns"));
        assertTrue(browser.findElement(By.id("window-note")).getText().startsWith("The whole history: 7 records"),
                () -> browser.findElement(By.id("window-note")).getText());
        long width = number("ov-summary", "width");
        long height = number("ov-summary", "height");
        String blocked = (String) browser.executeScript("return getComputedStyle(document.querySelector("
                + "'.ov-legend i[data-ov=blocked]')).backgroundColor;");
        assertEquals(blocked, pixel(width / 2.0, height - 2), "main and worker-1 blocked at 5 ms");

        // drag from 2 ms to 6 ms
        WebElement canvas = browser.findElement(By.id("ov-canvas"));
        int cw = canvas.getRect().getWidth();
        int ch = canvas.getRect().getHeight();
        int x2 = (int) Math.round(width * 0.2);
        int x6 = (int) Math.round(width * 0.6);
        new Actions(browser).moveToElement(canvas, x2 - cw / 2, 10 - ch / 2).clickAndHold()
                .moveByOffset((x6 - x2) / 2, 0).moveByOffset(x6 - x2 - (x6 - x2) / 2, 0).release().perform();
        waiting().until(d -> "false".equals(data("ov-summary", "whole")));
        long from = number("ov-summary", "window-from");
        long to = number("ov-summary", "window-to");
        double nsPerPx = 10_000_000.0 / width;
        assertTrue(Math.abs(from - 2_000_000) <= 2 * nsPerPx && Math.abs(to - 6_000_000) <= 2 * nsPerPx,
                () -> "picked " + from + " to " + to);
        JsonNode shown = serverOverview().get("window");
        assertEquals(from, shown.get("fromNs").asLong(), "the server shows the window picked");
        assertEquals(to, shown.get("toNs").asLong());
        waiting().until(d -> number("tl-summary", "to") == to - from);
        assertTrue(browser.findElement(By.id("window-note")).getText().startsWith("Window "),
                () -> browser.findElement(By.id("window-note")).getText());

        // typed: exactly 1 to 3 ms
        browser.findElement(By.id("ov-from")).clear();
        browser.findElement(By.id("ov-from")).sendKeys("1ms");
        browser.findElement(By.id("ov-to")).clear();
        browser.findElement(By.id("ov-to")).sendKeys("3ms");
        browser.findElement(By.id("ov-apply")).click();
        waiting().until(d -> number("ov-summary", "window-from") == 1_000_000);
        assertEquals(3_000_000, number("ov-summary", "window-to"));
        waiting().until(d -> number("tl-summary", "to") == 2_000_000);
        assertTrue(browser.findElement(By.id("ov-window")).getText().contains("20.0 % of the history"),
                () -> browser.findElement(By.id("ov-window")).getText());

        browser.findElement(By.id("ov-whole")).click();
        waiting().until(d -> "true".equals(data("ov-summary", "whole")));
        waiting().until(d -> number("tl-summary", "to") == 10_000_000);
        assertTrue(serverOverview().get("window").get("whole").asBoolean());
        assertEquals("", browser.findElement(By.id("message")).getText(), "no error shown");
    }
}
