package dev.convoy.agent.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The page in headless Chromium (Debian's, see {@link Browsers}: installed when missing and
 * possible, else skipped with a message), served in process over the test snapshot, offline:
 * the script fills every table, a number opens its stacks, and "Open in Perfetto" hands the
 * Chrome trace to the window it opens with Perfetto's postMessage protocol, here a
 * {@link StubPerfetto} on another local port. Only 127.0.0.1 is opened. The live page, with
 * clicks on real data, is {@code WebViewBrowserIT}.
 */
class WebPageBrowserTest extends BrowserPage {

    StubPerfetto perfetto;

    @BeforeEach
    void start() throws Exception {
        startBrowser(false);
        perfetto = closing(new StubPerfetto());
        serve(WebServerTest.snapshot(), perfetto.url());
    }

    private List<String> column(String table, int index) {
        return browser.findElements(By.cssSelector("#" + table + " tbody tr td:nth-child(" + index + ")")).stream()
                .map(WebElement::getText).toList();
    }

    @Test
    void pageLoadsOfflineFillsItsTablesAndOpensStacks() {
        browser.get(server.url());
        waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("mode"), "offline: run.cvysnap"));
        waiting().until(d -> !column("threads", 1).isEmpty());
        assertEquals("offline", browser.findElement(By.tagName("body")).getDomAttribute("class"));
        assertFalse(browser.findElement(By.id("toggle-recording")).isDisplayed(), "no recording control offline");
        assertTrue(browser.findElement(By.id("deadlocks")).getText().contains("main blocked on com.example.Lock#2002"));
        assertTrue(column("monitors", 1).contains("com.example.Lock@aaaa0001"), column("monitors", 1)::toString);
        assertTrue(column("callers", 3).contains("com.example.Worker.run"));
        assertEquals(List.of("main", "worker-1", "worker-2"), column("threads", 1));
        assertEquals("/api/download?format=chrome", browser.findElement(By.id("dl-chrome")).getDomAttribute("href"));

        // worker-2's one block links to the stack behind it
        WebElement blocks = browser.findElement(By.xpath(
                "//table[@id='threads']//tr[td[1]='worker-2']/td[5]/a[@class='stack-link']"));
        assertEquals("1", blocks.getText());
        blocks.click();
        waiting().until(ExpectedConditions.visibilityOfElementLocated(By.id("stack-panel")));
        waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("stack-body"),
                "at com.example.Worker.run(Worker.java:14)"));
        assertEquals("Thread worker-2", browser.findElement(By.id("stack-title")).getText());
        browser.findElement(By.id("stack-close")).click();
        waiting().until(ExpectedConditions.invisibilityOfElementLocated(By.id("stack-panel")));
    }

    @Test
    void openInPerfettoHandsTheChromeTraceToTheOpenedWindow() throws Exception {
        browser.get(server.url());
        waiting().until(d -> !column("threads", 1).isEmpty());
        String page = browser.getWindowHandle();
        browser.findElement(By.id("open-perfetto")).click();

        StubPerfetto.Received got = perfetto.awaitTrace();
        HttpResponse<byte[]> served = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(server.url() + "api/download?format=chrome")).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, served.statusCode());
        assertArrayEquals(served.body(), got.buffer(), "the trace handed over is the one the server serves");
        assertEquals("[object ArrayBuffer]", got.type());
        assertEquals("Convoy offline: run.cvysnap", got.title());
        assertEquals("run.json", got.fileName());
        assertTrue(got.pings() >= 1, "PING before the trace");
        waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"),
                "trace handed to Perfetto (" + got.buffer().length + " bytes)"));

        // the stub opened in a new window, which shows what it got
        assertEquals(2, browser.getWindowHandles().size());
        WebDriver stub = browser.switchTo().window(browser.getWindowHandles().stream()
                .filter(h -> !h.equals(page)).findFirst().orElseThrow());
        assertEquals(perfetto.url(), stub.getCurrentUrl());
        waiting().until(ExpectedConditions.textToBe(By.id("state"), "received " + got.buffer().length + " bytes"));
        browser.close();
        browser.switchTo().window(page);
    }
}
