package dev.convoy.export;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import dev.convoy.model.Recording;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The {@code flamegraph} output: one self-contained HTML file, the flame graphs of blocked and
 * waited time by stack ({@link FlameStacks}), which loads nothing from anywhere. Drawn by
 * d3-flame-graph (Apache-2.0) on d3 (ISC), both inlined with their licenses; the data is
 * embedded as JSON ({@link FlameStacks#writeJson}); {@code flame.js} (shared with the web view)
 * gives the views (all, blocked, waited, one monitor class), search, reset zoom, and the panel
 * of stacks a click on a frame opens.
 *
 * <p>The resources are on the class path: {@link #D3} from the WebJar, the others under
 * {@link #DIR}. The web view serves the same files ({@link #resource}).
 */
public final class FlameGraph {
    /** The class path folder of d3-flame-graph, {@code flame.js}, {@code flame.css} and the page template. */
    public static final String DIR = "/dev/convoy/export/flame/";
    /** The version of the d3 WebJar (org.webjars.npm:d3); must match exporters' pom. */
    public static final String D3_VERSION = "7.9.0";
    /** d3's minified bundle in its WebJar. */
    public static final String D3 = "/META-INF/resources/webjars/d3/" + D3_VERSION + "/dist/d3.min.js";
    /** d3's license in its WebJar. */
    public static final String D3_LICENSE = "/META-INF/resources/webjars/d3/" + D3_VERSION + "/LICENSE";
    /** d3-flame-graph's bundle (version 5.0.0, see README.md beside it). */
    public static final String RENDERER = DIR + "d3-flamegraph.umd.min.js";
    /** d3-flame-graph's style sheet. */
    public static final String RENDERER_CSS = DIR + "d3-flamegraph.css";
    /** d3-flame-graph's license. */
    public static final String RENDERER_LICENSE = DIR + "LICENSE-d3-flame-graph.txt";
    /** Convoy's views and panels over d3-flame-graph ({@code ConvoyFlame.mount(element, data)}). */
    public static final String SCRIPT = DIR + "flame.js";
    /** The style of {@link #SCRIPT}'s controls and panels. */
    public static final String CSS = DIR + "flame.css";
    private static final String TEMPLATE = DIR + "flamegraph.html";
    private static final JsonFactory JSON = new JsonFactory();

    private FlameGraph() {
    }

    /**
     * The bytes of a class path resource this output uses.
     *
     * @throws IllegalStateException when it is missing (a broken build or class path)
     */
    public static byte[] resource(String path) {
        try (InputStream in = FlameGraph.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("flame graph resource missing from the class path: " + path);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read flame graph resource " + path + ": " + e, e);
        }
    }

    private static String text(String path) {
        return new String(resource(path), StandardCharsets.UTF_8);
    }

    /**
     * Writes the HTML page of a recording's flame graphs, under its title the records written and
     * lost ({@link Recording#lossSummary()}: the time of lost records is in no frame); the stream is
     * not closed.
     */
    public static void write(Recording r, OutputStream out) throws IOException {
        FlameStacks stacks = FlameStacks.of(r);
        write(stacks, title(r), r.lossSummary() + (stacks.wholeRun()
                ? " The frames count the whole run's blocks, waits and parks that ended, aged-out records included."
                : r.threadsWithLosses().isEmpty() ? "" : " The time of lost records is in no frame."), out);
    }

    /** The page's title: "Convoy flame graph: MAIN (pid N)". */
    static String title(Recording r) {
        String main = r.mainClass();
        long pid = r.pid();
        return "Convoy flame graph" + (main == null || main.isEmpty() ? "" : ": " + main)
                + (pid > 0 ? " (pid " + pid + ")" : "");
    }

    /** Writes the HTML page of some stacks under a title; the stream is not closed. */
    public static void write(FlameStacks stacks, String title, OutputStream out) throws IOException {
        write(stacks, title, "", out);
    }

    /**
     * Writes the HTML page of some stacks under a title and a line saying what was recorded and
     * lost (none when empty); the stream is not closed.
     */
    public static void write(FlameStacks stacks, String title, String records, OutputStream out) throws IOException {
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(json, JsonEncoding.UTF8)) {
            g.setCharacterEscapes(HtmlSafe.INSTANCE);
            stacks.writeJson(g);
        }
        String page = text(TEMPLATE)
                .replace("{{licenses}}", comment(text(D3_LICENSE)) + "\n" + comment(text(RENDERER_LICENSE)))
                .replace("{{title}}", html(title))
                .replace("{{records}}", records.isEmpty() ? "" : "<p class=\"small\" id=\"convoy-records\">"
                        + html(records) + "</p>")
                .replace("{{css}}", inline(text(RENDERER_CSS), "</style") + "\n" + inline(text(CSS), "</style"))
                .replace("{{scripts}}", "<script>" + inline(text(D3), "</script") + "</script>\n<script>"
                        + inline(text(RENDERER), "</script") + "</script>\n<script>" + inline(text(SCRIPT), "</script")
                        + "</script>");
        int at = page.indexOf("{{data}}");
        byte[] head = page.substring(0, at).getBytes(StandardCharsets.UTF_8);
        byte[] tail = page.substring(at + "{{data}}".length()).getBytes(StandardCharsets.UTF_8);
        out.write(head);
        json.writeTo(out);
        out.write(tail);
        out.flush();
    }

    /** Text put inside an element whose end tag it must not contain. */
    private static String inline(String text, String endTag) {
        if (text.toLowerCase(Locale.ROOT).contains(endTag)) {
            throw new IllegalStateException("cannot inline a resource that contains " + endTag);
        }
        return text;
    }

    private static String comment(String text) {
        return "<!--\n" + text.replace("--", "- -") + "\n-->";
    }

    private static String html(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** JSON escapes for text inside a script element: {@code < > &} as {@code \\u003c} etc. */
    private static final class HtmlSafe extends CharacterEscapes {
        private static final long serialVersionUID = 1L;
        static final HtmlSafe INSTANCE = new HtmlSafe();
        private final int[] escapes;

        private HtmlSafe() {
            escapes = CharacterEscapes.standardAsciiEscapesForJSON();
            escapes['<'] = CharacterEscapes.ESCAPE_STANDARD;
            escapes['>'] = CharacterEscapes.ESCAPE_STANDARD;
            escapes['&'] = CharacterEscapes.ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return escapes;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return null;
        }
    }
}
