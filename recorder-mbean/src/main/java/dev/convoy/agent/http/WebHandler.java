package dev.convoy.agent.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.Map;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import dev.convoy.agent.AgentOptions;
import dev.convoy.analysis.ContentionIndex;
import dev.convoy.export.FlameGraph;
import dev.convoy.export.FlameStacks;
import dev.convoy.export.Output;
import dev.convoy.report.ContentionReport;
import dev.convoy.model.Frame;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.StackTrace;
import dev.convoy.model.Window;

/**
 * The web view's routes. Nothing here writes a file: downloads are produced in memory.
 *
 * <pre>
 * GET  /                       the page (index.html, app.js, app.css, timeline.js, overview.js; the flame graph's
 *                              flame-view.js and, from {@link FlameGraph}, d3.min.js,
 *                              d3-flamegraph.min.js, d3-flamegraph.css, flame.js, flame.css)
 * GET  /api/status             recording, counters, options, version, base name of downloads,
 *                              the Perfetto URL "Open in Perfetto" uses
 * POST /api/recording?on=B     start or stop recording (409 offline)
 * POST /api/contanalysis?on=B  contention analysis on or off (409 offline)
 * GET  /api/snapshot           takes (live) and freezes a snapshot, the view on its whole history;
 *                              its summary
 * GET  /api/overview?buckets=N the whole frozen history in N time buckets ({@link Overview}), cheap
 *                              whatever its size, and the window the view shows
 * POST /api/window?from=&amp;to=   the view on a window of the frozen history (ns since its start; neither
 *                              given: the whole history), its summary; refused when its analysis
 *                              would not fit the heap ({@link AnalysisBudget})
 * GET  /api/stacks/ID          frames of a stack of the frozen snapshot, as text
 * GET  /api/download?format=F  the view (the window, else the whole history) as one {@link Output}
 *                              (chrome, tptp, csv-meta, ...)
 * GET  /api/report?format=F    the view's contention report, text or markdown
 * GET  /api/flame              blocked and waited time by stack of the view, the
 *                              JSON of {@link FlameStacks#writeJson}
 * GET  /api/timeline?from=&amp;to=&amp;width=  the view's timeline for a part of it ({@link Timeline})
 * </pre>
 * Errors are JSON {@code {"error": "..."}}: 400 bad parameter, 401 missing or wrong token,
 * 403 foreign Host, or a request from a page of another origin to anything but the page and
 * the status ({@code Sec-Fetch-Site} or {@code Origin}), 404 unknown path, 405 wrong method, 409 impossible now,
 * 414 query or path longer than {@value #MAX_URI} characters, 503 busy or an analysis that does not fit the
 * heap (then with {@code "tooLarge": true}: a shorter window would do).
 */
final class WebHandler extends Handler.Abstract {

    static final String TOKEN_HEADER = "X-Convoy-Token";
    static final int MAX_URI = 1024;
    private static final String PAGE_DIR = "/dev/convoy/agent/http/";
    private static final Map<String, String> PAGES = Map.of(
            "/", "index.html", "/index.html", "index.html", "/app.js", "app.js", "/app.css", "app.css",
            "/timeline.js", "timeline.js", "/overview.js", "overview.js");
    /** The flame graph's scripts and styles: served path to class path resource. */
    private static final Map<String, String> ASSETS = Map.of(
            "/flame-view.js", PAGE_DIR + "flame-view.js", "/d3.min.js", FlameGraph.D3,
            "/d3-flamegraph.min.js", FlameGraph.RENDERER, "/d3-flamegraph.css", FlameGraph.RENDERER_CSS,
            "/flame.js", FlameGraph.SCRIPT, "/flame.css", FlameGraph.CSS);
    private static final Map<String, String> ROUTES = Map.of(
            "/api/status", "GET", "/api/recording", "POST", "/api/contanalysis", "POST", "/api/snapshot", "GET",
            "/api/download", "GET", "/api/report", "GET", "/api/flame", "GET", "/api/timeline", "GET",
            "/api/overview", "GET", "/api/window", "POST");
    private static final JsonFactory JSON = new JsonFactory();
    /**
     * The pages' Content-Security-Policy: everything from this server only. The one inline
     * style allowed is the one d3-flame-graph adds to the page when it loads (its
     * {@code <style>} element, the same rules as d3-flamegraph.css), by its hash.
     */
    static final String CSP = "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'"
            + rendererStyleHash() + "; frame-ancestors 'none'; form-action 'none'; base-uri 'none'";

    private final Source source;
    private final byte[] token;
    private final boolean loopback;
    private final String perfetto;
    /** The timeline of the last snapshot or window summarised or asked for, built once per snapshot or window. */
    private Timeline timeline;
    /** What the view shows; replaced when the source's frozen snapshot changes or a window is picked. */
    private Viewed viewed;
    /** The last overview asked for. */
    private Overview overview;
    /**
     * The recording the view shows or summarised last, held ({@link ContentionIndex#hold}): its
     * summary, timeline, report, flame graph and downloads share one analysis; one at a time.
     */
    private Recording heldRecording;
    private ContentionIndex.Hold hold;

    /**
     * The frozen snapshot, the window of its history the view shows (null: the whole history) and
     * what the routes describe: the window's cut of the snapshot ({@link Window#cut}), else the snapshot.
     */
    private record Viewed(Recording full, Window window, Recording recording) {
    }

    WebHandler(Source source, String token, boolean loopback, String perfetto) {
        this.source = source;
        this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
        this.loopback = loopback;
        this.perfetto = perfetto;
    }

    /** An answer other than 200. */
    static final class HttpError extends Exception {
        private static final long serialVersionUID = 1L;
        final int status;
        final String allow;

        HttpError(int status, String message) {
            this(status, message, null);
        }

        HttpError(int status, String message, String allow) {
            super(message, null, false, false);
            this.status = status;
            this.allow = allow;
        }
    }

    private record Reply(int status, String type, ByteBuffer body, String attachment) {
        static Reply json(JsonBody body) throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
                body.write(g);
            }
            return new Reply(200, "application/json", ByteBuffer.wrap(out.toByteArray()), null);
        }

        static Reply text(String type, String s) {
            return new Reply(200, type + "; charset=utf-8", ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)), null);
        }
    }

    @FunctionalInterface
    private interface JsonBody {
        void write(JsonGenerator g) throws IOException;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        Reply reply;
        try {
            reply = route(request);
        } catch (HttpError e) {
            reply = error(e.status, e.getMessage());
            if (e.allow != null) {
                reply = new Reply(reply.status(), reply.type(), reply.body(), e.allow);
            }
        } catch (Source.ConflictException e) {
            reply = error(409, e.getMessage());
        } catch (dev.convoy.agent.AnalysisBudget.TooLarge e) {
            reply = error(503, e.getMessage() + "; or pick a shorter window of the history on the overview", true);
        } catch (IllegalStateException e) {
            reply = error(503, e.getMessage()); // busy, or not enough heap for the analysis: said plainly
        } catch (IOException | RuntimeException e) {
            reply = error(500, "internal error: " + e);
        }
        response.setStatus(reply.status());
        response.getHeaders().put("Content-Type", reply.type());
        response.getHeaders().put("Cache-Control", "no-store");
        response.getHeaders().put("X-Content-Type-Options", "nosniff");
        response.getHeaders().put("Referrer-Policy", "no-referrer");
        if (reply.type().startsWith("text/html")) {
            response.getHeaders().put("Content-Security-Policy", CSP);
        }
        if (reply.status() == 405) {
            response.getHeaders().put("Allow", reply.attachment());
        } else if (reply.attachment() != null) {
            response.getHeaders().put("Content-Disposition", "attachment; filename=\"" + reply.attachment() + "\"");
        }
        response.write(true, reply.body().duplicate(), callback);
        return true;
    }

    private static Reply error(int status, String message) {
        return error(status, message, false);
    }

    /** An error answer; {@code tooLarge}: the analysis asked for would not fit the heap. */
    private static Reply error(int status, String message, boolean tooLarge) {
        try {
            Reply r = Reply.json(g -> {
                g.writeStartObject();
                g.writeStringField("error", message);
                if (tooLarge) {
                    g.writeBooleanField("tooLarge", true);
                }
                g.writeEndObject();
            });
            return new Reply(status, r.type(), r.body(), null);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private Reply route(Request request) throws HttpError, IOException {
        String rawPath = request.getHttpURI().getPath();
        String query = request.getHttpURI().getQuery();
        if ((rawPath != null && rawPath.length() > MAX_URI) || (query != null && query.length() > MAX_URI)) {
            throw new HttpError(414, "request URI too long: path and query may have at most " + MAX_URI
                    + " characters each");
        }
        Fields params;
        try {
            params = Request.extractQueryParameters(request);
        } catch (RuntimeException e) {
            throw new HttpError(400, "malformed query string");
        }
        checkToken(request, params);
        checkHost(request);
        String path = Request.getPathInContext(request);
        String method = request.getMethod();

        String page = PAGES.get(path);
        if (page != null) {
            requireMethod(method, "GET");
            return page(PAGE_DIR + page);
        }
        String asset = ASSETS.get(path);
        if (asset != null) {
            requireMethod(method, "GET");
            return page(asset);
        }
        if (path.startsWith("/api/stacks/")) {
            requireMethod(method, "GET");
            checkSameOrigin(request);
            return stack(path.substring("/api/stacks/".length()));
        }
        String allowed = ROUTES.get(path);
        if (allowed == null) {
            throw new HttpError(404, "no such page or endpoint: " + path);
        }
        requireMethod(method, allowed);
        if (!path.equals("/api/status")) {
            checkSameOrigin(request);
        }
        return switch (path) {
            case "/api/status" -> status();
            case "/api/recording" -> {
                source.setRecording(onParam(params));
                yield status();
            }
            case "/api/contanalysis" -> {
                source.setContentionAnalysis(onParam(params));
                yield status();
            }
            case "/api/snapshot" -> {
                Recording r = source.takeSnapshot();
                Viewed v = new Viewed(r, null, r);
                synchronized (this) {
                    viewed = v; // the new snapshot's whole history, even when its summary is refused
                }
                yield summary(v, "the snapshot's summary");
            }
            case "/api/overview" -> overview(params);
            case "/api/window" -> window(params);
            case "/api/download" -> download(params.getValue("format"));
            case "/api/report" -> report(params.getValue("format"));
            case "/api/flame" -> {
                Recording r = viewed().recording();
                try (var permit = dev.convoy.agent.AnalysisBudget.enter(r, "the flame graph")) {
                    FlameStacks stacks = FlameStacks.of(r);
                    yield Reply.json(stacks::writeJson);
                }
            }
            case "/api/timeline" -> timeline(params);
            default -> throw new HttpError(404, "no such endpoint: " + path);
        };
    }

    private static void requireMethod(String method, String allowed) throws HttpError {
        if (!allowed.equals(method) && !(allowed.equals("GET") && method.equals("HEAD"))) {
            throw new HttpError(405, "method " + method + " not allowed here; use " + allowed, allowed);
        }
    }

    private void checkToken(Request request, Fields params) throws HttpError {
        if (token == null) {
            return;
        }
        String given = request.getHeaders().get(TOKEN_HEADER);
        if (given == null) {
            given = params.getValue("token");
        }
        if (given == null || given.length() > 256
                || !MessageDigest.isEqual(token, given.getBytes(StandardCharsets.UTF_8))) {
            throw new HttpError(401, "missing or wrong access token: send header " + TOKEN_HEADER
                    + " or parameter ?token=");
        }
    }

    /** On a loopback bind, only loopback Host names (no DNS rebinding from a web page). */
    private void checkHost(Request request) throws HttpError {
        if (!loopback) {
            return;
        }
        String host = request.getHttpURI().getHost();
        if (host != null && !host.isEmpty() && !AgentOptions.isLoopback(host)) {
            throw new HttpError(403, "Host '" + host + "' is not a loopback name; open the page at 127.0.0.1");
        }
    }

    /**
     * A request that changes state or costs work (a switch, a snapshot, a download, a report,
     * stacks) is refused when a page of another origin sent it: by the browser's
     * {@code Sec-Fetch-Site} (anything but {@code same-origin}, or {@code none} for an address
     * typed by the user), or an {@code Origin} other than this server's. Clients that send
     * neither (curl, scripts) are not browsers acting for another page and are served.
     */
    private static void checkSameOrigin(Request request) throws HttpError {
        String site = request.getHeaders().get("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            throw new HttpError(403, "cross-site request refused (Sec-Fetch-Site " + site + "); open the page of "
                    + "this server instead");
        }
        String origin = request.getHeaders().get("Origin");
        if (origin == null) {
            return;
        }
        String host = request.getHeaders().get("Host");
        if (host == null || !origin.equals("http://" + host)) {
            throw new HttpError(403, "cross-origin request refused (Origin " + origin + ")");
        }
    }

    private static boolean onParam(Fields params) throws HttpError {
        String v = params.getValue("on");
        String n = v == null ? "" : v.trim().toLowerCase(Locale.ROOT);
        return switch (n) {
            case "true", "on" -> true;
            case "false", "off" -> false;
            default -> throw new HttpError(400, "parameter 'on' must be true or false, got "
                    + (v == null ? "nothing" : "'" + v + "'"));
        };
    }

    private Reply status() throws IOException {
        return Reply.json(g -> {
            g.writeStartObject();
            source.writeStatus(g);
            g.writeStringField("dumpName", source.baseName());
            g.writeStringField("perfetto", perfetto);
            g.writeEndObject();
        });
    }

    /**
     * " 'sha256-...'" of the text of the style element d3-flame-graph's script creates (a
     * template literal after {@code createElement("style")}), or "" if the script has none.
     */
    private static String rendererStyleHash() {
        String marker = "createElement(\"style\");";
        try (InputStream in = WebHandler.class.getResourceAsStream(FlameGraph.RENDERER)) {
            if (in == null) {
                return "";
            }
            String script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int at = script.indexOf(marker);
            int start = at < 0 ? -1 : script.indexOf('`', at);
            int end = start < 0 ? -1 : script.indexOf('`', start + 1);
            if (end < 0 || start - at > marker.length() + 20) {
                return "";
            }
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(script.substring(start + 1, end).getBytes(StandardCharsets.UTF_8));
            return " 'sha256-" + java.util.Base64.getEncoder().encodeToString(digest) + "'";
        } catch (IOException | java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot read " + FlameGraph.RENDERER, e);
        }
    }

    /** A page, script or style sheet from the class path. */
    private static Reply page(String resource) throws IOException, HttpError {
        String name = resource.substring(resource.lastIndexOf('/') + 1);
        try (InputStream in = WebHandler.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new HttpError(404, "page resource missing: " + name);
            }
            String type = name.endsWith(".html") ? "text/html" : name.endsWith(".js") ? "text/javascript" : "text/css";
            return new Reply(200, type + "; charset=utf-8", ByteBuffer.wrap(in.readAllBytes()), null);
        }
    }

    /** What the view shows now: the window picked of the source's frozen snapshot, else all of it. */
    private synchronized Viewed viewed() {
        Recording full = source.current();
        if (viewed == null || viewed.full() != full) {
            viewed = new Viewed(full, null, full);
        }
        hold(viewed.recording());
        return viewed;
    }

    /** Holds the analysis of {@code r} (and lets the one held before go). */
    private synchronized void hold(Recording r) {
        if (r != heldRecording) {
            ContentionIndex.Hold before = hold;
            hold = ContentionIndex.hold(r);
            heldRecording = r;
            if (before != null) {
                before.close();
            }
        }
    }

    /** The summary of what a view shows ({@link SnapshotJson}), its analysis under the heap's budget. */
    private Reply summary(Viewed v, String what) throws IOException {
        Recording r = v.recording();
        try (var permit = dev.convoy.agent.AnalysisBudget.enter(r, what)) {
            hold(r);
            Timeline t = timelineOf(r); // its index serves the summary and the timeline's requests after it
            return Reply.json(g -> SnapshotJson.write(g, r, t.index(), v.full()));
        }
    }

    private Reply overview(Fields params) throws HttpError, IOException {
        int buckets;
        try {
            buckets = Overview.parseBuckets(params.getValue("buckets"));
        } catch (IllegalArgumentException e) {
            throw new HttpError(400, e.getMessage());
        }
        Viewed v = viewed();
        Overview o;
        synchronized (this) {
            o = overview;
        }
        if (o == null || o.recording() != v.full() || o.buckets() != buckets) {
            o = Overview.of(v.full(), buckets); // one pass over the records, no analysis: no budget needed
            synchronized (this) {
                overview = o;
            }
        }
        Overview answer = o;
        return Reply.json(g -> answer.write(g, v.window()));
    }

    /**
     * Picks the window the view shows: {@code from} and {@code to} in ns since the history's start
     * (either missing: the history's start or end; both: the whole history). Its records are counted
     * first, so that a window whose analysis would not fit the heap is refused before it is cut.
     */
    private Reply window(Fields params) throws HttpError, IOException {
        Viewed cur = viewed();
        Recording full = cur.full();
        String from = params.getValue("from");
        String to = params.getValue("to");
        Viewed next;
        if (from == null && to == null) {
            next = new Viewed(full, null, full);
        } else {
            long duration = Math.max(1, full.snapshotMonotonicNs() - full.startMonotonicNs());
            long f;
            long t;
            try {
                f = from == null ? 0 : Timeline.number("from", from, 0, duration - 1);
                t = to == null ? duration : Math.min(duration, Timeline.number("to", to, 1, Long.MAX_VALUE));
            } catch (IllegalArgumentException e) {
                throw new HttpError(400, e.getMessage());
            }
            if (f >= t) {
                throw new HttpError(400, "parameter 'from' (" + f + ") must be less than 'to' (" + t + ")");
            }
            Window w = new Window(full.startMonotonicNs() + f, full.startMonotonicNs() + t);
            dev.convoy.agent.AnalysisBudget.check(recordsIn(full, w), "the window's summary");
            next = new Viewed(full, w, w.cut(full));
        }
        Reply reply = summary(next, "the window's summary");
        synchronized (this) {
            if (viewed == null || viewed.full() == full) { // unless a newer snapshot was taken meanwhile
                viewed = next;
            }
        }
        return reply;
    }

    /** The records of a recording with their time in a window. */
    private static long recordsIn(Recording r, Window w) {
        long n = 0;
        for (RecordedThread t : r.threads()) {
            for (int i = 0; i < t.eventCount(); i++) {
                long ts = t.ts(i);
                if (ts >= w.fromNs() && ts <= w.toNs()) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * One line that names the window a view shows and how much of the history it is, for the
     * report; "" for the whole history.
     */
    private static String windowLine(Viewed v) {
        if (v.window() == null) {
            return "";
        }
        Recording full = v.full();
        long origin = full.startMonotonicNs();
        long history = Math.max(1, full.snapshotMonotonicNs() - origin);
        long from = v.window().fromNs() - origin;
        long to = v.window().toNs() - origin;
        return String.format(Locale.ROOT, "Window: %s to %s since the history's start (%.1f %% of its %s; %d of "
                        + "its %d records)", seconds(from), seconds(to), 100.0 * (to - from) / history,
                seconds(history), dev.convoy.agent.AnalysisBudget.records(v.recording()),
                dev.convoy.agent.AnalysisBudget.records(full));
    }

    private static String seconds(long ns) {
        return ns >= 1_000_000_000L ? String.format(Locale.ROOT, "%.3f s", ns / 1e9)
                : ns >= 1_000_000 ? String.format(Locale.ROOT, "%.3f ms", ns / 1e6)
                : String.format(Locale.ROOT, "%.1f us", ns / 1e3);
    }

    private Reply stack(String idText) throws HttpError, IOException {
        if (!idText.matches("[0-9]{1,10}") || Long.parseLong(idText) > Integer.MAX_VALUE) {
            throw new HttpError(400, "stack id must be a positive whole number, got '" + idText + "'");
        }
        Recording r = viewed().full(); // a window's cut keeps the snapshot's stacks
        StackTrace s = r.stacks().get(Integer.parseInt(idText));
        if (s == null) {
            throw new HttpError(404, "no stack " + idText + " in the current snapshot");
        }
        StringBuilder b = new StringBuilder();
        for (Frame f : s.frames()) {
            b.append("at ").append(r.describe(f)).append('\n');
        }
        if (s.truncated()) {
            b.append("... (truncated at the stack depth)\n");
        }
        return Reply.text("text/plain", b.toString());
    }

    private Reply download(String format) throws HttpError, IOException {
        Output output;
        try {
            output = Output.one(format);
        } catch (IllegalArgumentException e) {
            throw new HttpError(400, e.getMessage());
        }
        Viewed v = viewed();
        String name = source.baseName();
        if (v.window() != null) {
            long origin = v.full().startMonotonicNs();
            name += "-window-" + (v.window().fromNs() - origin) / 1_000_000 + "ms-"
                    + (v.window().toNs() - origin) / 1_000_000 + "ms";
        }
        return new Reply(200, output.mediaType(), dev.convoy.agent.OffHeapOutput.of(output, v.recording()),
                name + output.suffix());
    }

    private Reply timeline(Fields params) throws HttpError, IOException {
        Recording r = viewed().recording();
        Timeline t;
        try (var permit = dev.convoy.agent.AnalysisBudget.enter(r, "the timeline")) {
            t = timelineOf(r);
        }
        Timeline.Query q;
        try {
            q = t.parse(params.getValue("from"), params.getValue("to"), params.getValue("width"));
        } catch (IllegalArgumentException e) {
            throw new HttpError(400, e.getMessage());
        }
        return Reply.json(g -> t.write(g, q));
    }

    private synchronized Timeline timelineOf(Recording r) {
        if (timeline == null || timeline.recording() != r) {
            timeline = Timeline.of(r);
        }
        return timeline;
    }

    private Reply report(String format) throws HttpError, IOException {
        ContentionReport.Style style;
        try {
            style = ContentionReport.Style.parse(format == null ? "text" : format);
        } catch (IllegalArgumentException e) {
            throw new HttpError(400, e.getMessage());
        }
        Viewed v = viewed();
        Recording r = v.recording();
        String text;
        try (var permit = dev.convoy.agent.AnalysisBudget.enter(r, "the report")) {
            text = ContentionReport.of(r).render(style);
        }
        String line = windowLine(v);
        if (!line.isEmpty()) {
            text = (style == ContentionReport.Style.MARKDOWN ? "> " + line + "\n\n" : line + "\n\n") + text;
        }
        return Reply.text(style == ContentionReport.Style.MARKDOWN ? "text/markdown" : "text/plain", text);
    }
}
