package dev.convoy.testapps.bench.suite;

import dev.convoy.testapps.bench.Stats;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javax.imageio.ImageIO;

/**
 * Draws the suite's overhead chart with java.awt (headless): one panel per workload, one
 * horizontal bar per configuration, the median overhead against no agent in percent, with a
 * whisker from the best to the worst run.
 */
public final class Plot {

    /** One bar: label, median, best and worst overhead in percent. */
    public record Bar(String label, double median, double low, double high, Color color) {
    }

    /** One panel. */
    public record Panel(String title, List<Bar> bars) {
    }

    static final int PANEL_W = 620;
    static final int ROW_H = 22;
    static final int LABEL_W = 230;

    private Plot() {
    }

    /** The colour of a configuration's tool. */
    static Color color(SuiteConfig c) {
        return switch (c.tool()) {
            case NONE -> Color.GRAY;
            case FLOOR -> new Color(150, 150, 150);
            case CONVOY -> new Color(31, 119, 180);
            case JFR -> new Color(255, 127, 14);
            case ASYNC -> new Color(44, 160, 44);
        };
    }

    /** The panel of a workload: every configuration but no agent, overhead against no agent. */
    public static Panel panel(Measurements m) {
        List<Bar> bars = new ArrayList<>();
        Stats none = m.stats(SuiteConfig.NONE);
        if (none == null) {
            return new Panel(m.spec().title(), bars);
        }
        for (SuiteConfig c : m.configs()) {
            Stats s = m.stats(c);
            if (c == SuiteConfig.NONE || c.timed() || s == null) {
                continue; // bench.timing=on measures the recorder, it is not a configuration to compare
            }
            double a = m.overheadPercent(s.min(), none.median());
            double b = m.overheadPercent(s.max(), none.median());
            bars.add(new Bar(c.label(), m.overheadPercent(s.median(), none.median()), Math.min(a, b), Math.max(a, b),
                    color(c)));
        }
        return new Panel(m.spec().title(), bars);
    }

    /**
     * The axis range [lo, hi] of a panel: covers every median and 0, with 10 % headroom; whiskers
     * beyond it are clipped (drawn to the edge).
     */
    static double[] range(List<Bar> bars) {
        double lo = 0;
        double hi = 1;
        for (Bar b : bars) {
            lo = Math.min(lo, b.median());
            hi = Math.max(hi, b.median());
        }
        double pad = 0.1 * (hi - lo);
        return new double[] {lo < 0 ? lo - pad : 0, hi + pad};
    }

    public static BufferedImage render(String title, List<Panel> panels) {
        int columns = 2;
        int rows = (panels.size() + columns - 1) / columns;
        int maxBars = 1;
        for (Panel p : panels) {
            maxBars = Math.max(maxBars, p.bars().size());
        }
        int panelH = 50 + maxBars * ROW_H + 30;
        int w = columns * PANEL_W + 20;
        int h = 50 + rows * panelH + 10;
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, w, h);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString(title, 10, 28);
        for (int i = 0; i < panels.size(); i++) {
            drawPanel(g, panels.get(i), 10 + (i % columns) * PANEL_W, 45 + (i / columns) * panelH, panelH);
        }
        g.dispose();
        return img;
    }

    private static void drawPanel(Graphics2D g, Panel p, int x0, int y0, int panelH) {
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        g.drawString(p.title(), x0, y0 + 14);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        double[] r = range(p.bars());
        int plotX = x0 + LABEL_W;
        int plotW = PANEL_W - LABEL_W - 30;
        int top = y0 + 24;
        int bottom = top + p.bars().size() * ROW_H;
        java.util.function.DoubleFunction<Integer> px = v -> plotX
                + (int) Math.round((Math.max(r[0], Math.min(r[1], v)) - r[0]) / (r[1] - r[0]) * plotW);
        // grid: 0 and the ends
        g.setColor(new Color(220, 220, 220));
        for (double t : ticks(r[0], r[1])) {
            int gx = px.apply(t);
            g.drawLine(gx, top - 2, gx, bottom);
            g.setColor(Color.DARK_GRAY);
            g.drawString(String.format(Locale.ROOT, "%s%%", trim(t)), gx - 10, bottom + 14);
            g.setColor(new Color(220, 220, 220));
        }
        int zero = px.apply(0);
        for (int i = 0; i < p.bars().size(); i++) {
            Bar b = p.bars().get(i);
            int y = top + i * ROW_H;
            g.setColor(Color.BLACK);
            g.drawString(b.label(), x0, y + 15);
            int xm = px.apply(b.median());
            g.setColor(b.color());
            g.fillRect(Math.min(zero, xm), y + 4, Math.max(1, Math.abs(xm - zero)), ROW_H - 8);
            g.setColor(Color.BLACK);
            g.setStroke(new BasicStroke(1));
            int xl = px.apply(b.low());
            int xh = px.apply(b.high());
            g.drawLine(xl, y + ROW_H / 2, xh, y + ROW_H / 2);
            g.drawLine(xl, y + 7, xl, y + ROW_H - 7);
            g.drawLine(xh, y + 7, xh, y + ROW_H - 7);
            g.drawString(String.format(Locale.ROOT, "%+.1f%%", b.median()), Math.max(xm, zero) + 4 > plotX + plotW - 40
                    ? plotX + plotW - 40 : Math.max(xm, zero) + 4, y + 15);
        }
        g.setColor(Color.BLACK);
        g.drawLine(zero, top - 2, zero, bottom);
        g.setColor(Color.DARK_GRAY);
        g.drawString("overhead vs no agent (median; whisker: best..worst run)", plotX, bottom + 28);
    }

    /** About five round tick values covering [lo, hi]. */
    static List<Double> ticks(double lo, double hi) {
        double span = hi - lo;
        double step = Math.pow(10, Math.floor(Math.log10(span / 4)));
        if (span / step > 8) {
            step *= 2;
        }
        if (span / step > 8) {
            step *= 2.5;
        }
        List<Double> t = new ArrayList<>();
        for (double v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) {
            t.add(Math.abs(v) < 1e-9 ? 0 : v);
        }
        return t;
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    public static void write(Path png, String title, List<Panel> panels) throws IOException {
        System.setProperty("java.awt.headless", "true");
        ImageIO.write(render(title, panels), "png", png.toFile());
    }
}
