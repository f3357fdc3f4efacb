package dev.convoy.agent.http;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.Awaitility;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A stand-in for ui.perfetto.dev on 127.0.0.1 (another port, so another origin than the web
 * view), for the browser tests: its page speaks the opened window's side of Perfetto's
 * postMessage protocol (answers the opener's 'PING' with 'PONG' to '*' once loaded, then takes
 * {@code {perfetto: {buffer, title, fileName}}}) and posts what it got back to this server.
 */
public final class StubPerfetto implements AutoCloseable {

    /** What the stub page was handed. */
    public record Received(byte[] buffer, String type, String title, String fileName, int pings) {
    }

    static final String PAGE = """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>stub Perfetto</title></head>
            <body><h1>stub Perfetto</h1><p id="pings">0</p><p id="state">waiting for a trace</p>
            <script>
            'use strict';
            let pings = 0;
            window.addEventListener('message', async (e) => {
              if (e.source !== window.opener) return;
              if (e.data === 'PING') {
                document.getElementById('pings').textContent = String(++pings);
                if (document.readyState === 'complete') window.opener.postMessage('PONG', '*');
                return;
              }
              const p = e.data && e.data.perfetto;
              if (!p) return;
              const type = Object.prototype.toString.call(p.buffer);
              const q = new URLSearchParams({ type: type, title: p.title, fileName: p.fileName || '', pings: pings });
              await fetch('/received?' + q, { method: 'POST', body: p.buffer });
              document.getElementById('state').textContent = 'received ' + p.buffer.byteLength + ' bytes';
            });
            </script></body></html>
            """;

    private final HttpServer server;
    private final AtomicReference<Received> received = new AtomicReference<>();

    public StubPerfetto() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/perfetto.html", x -> reply(x, 200, "text/html; charset=utf-8",
                PAGE.getBytes(StandardCharsets.UTF_8)));
        server.createContext("/received", x -> {
            Map<String, String> q = query(x.getRequestURI().getRawQuery());
            received.set(new Received(x.getRequestBody().readAllBytes(), q.get("type"), q.get("title"),
                    q.get("fileName"), Integer.parseInt(q.getOrDefault("pings", "0"))));
            reply(x, 204, "text/plain", new byte[0]);
        });
        server.start();
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> m = new HashMap<>();
        if (raw != null) {
            for (String kv : raw.split("&")) {
                int eq = kv.indexOf('=');
                m.put(URLDecoder.decode(kv.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return m;
    }

    private static void reply(HttpExchange x, int status, String type, byte[] body) throws IOException {
        x.getResponseHeaders().set("Content-Type", type);
        x.sendResponseHeaders(status, status == 204 ? -1 : body.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(body);
        }
    }

    /** The page the web view opens instead of ui.perfetto.dev. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/perfetto.html";
    }

    /** Waits (bounded, generously) until the stub page was handed a trace. */
    public Received awaitTrace() {
        return Awaitility.await("the stub Perfetto page to receive the trace").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20)).until(received::get, r -> r != null);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
