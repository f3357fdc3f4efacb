package dev.convoy.testapps.bench.soak;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javax.imageio.ImageIO;

import dev.convoy.testapps.bench.BenchArgs;
import dev.convoy.testapps.bench.ChildProcess;

/**
 * The soak benchmark (not run by the tests): the agent always on, for an hour by default,
 * under {@link SoakWorkload}'s churn of threads and lock objects, with a snapshot and two
 * dumps every half minute, its history also rotating through a repository on disk; then the
 * repository read back whole ({@code dev.convoy.cli.Report} of the agent jar), a table
 * ({@code --out}, Markdown) and a chart ({@code --plot},
 * PNG) of memory in use against the cap and of events recorded against time.
 *
 * <pre>
 * SoakRunner --agent convoy-agent.jar --work DIR [--minutes 60] [--options memory=8m,buffer=16k,maxsize=4m]
 *            [--repository yes|no]   (yes: the history also written to a repository under DIR, default)
 *            [--out docs/bench/soak.md] [--plot docs/bench/soak.png] [--java JAVA] [--garbage-kb 64]
 *            [--report-only yes]     (the table and chart of the run already in --work, without running)
 * </pre>
 */
public final class SoakRunner {

    /** One line of samples.csv. */
    record Sample(double seconds, long memoryInUse, long memoryCap, long eventsRecorded, long eventsDropped,
                  long threadsRecorded, long objectsDropped, long stacksDropped, long threadsStarted,
                  long locksMade, long eventsOverwritten, long eventsAgedOut, long historyBytes, long historyMaxBytes,
                  long repositoryBytes) {
        static Sample parse(String line) {
            String[] f = line.split(",");
            if (f.length != 15) {
                throw new IllegalArgumentException("a sample has 15 fields, got " + f.length + ": " + line);
            }
            long[] v = new long[14];
            for (int i = 0; i < v.length; i++) {
                v[i] = Long.parseLong(f[i + 1]);
            }
            return new Sample(Double.parseDouble(f[0]), v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9],
                    v[10], v[11], v[12], v[13]);
        }
    }

    /** One line of dumps.csv. */
    record Dump(double seconds, double snapshotMs, double dumpSnapshotMs, double dumpChromeMs, long snapshotBytes,
                long chromeBytes, long recordsDropped) {
        static Dump parse(String line) {
            String[] f = line.split(",");
            if (f.length != 7) {
                throw new IllegalArgumentException("a dump line has 7 fields, got " + f.length + ": " + line);
            }
            return new Dump(Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2]),
                    Double.parseDouble(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]));
        }
    }

    /** The options, each with a value ({@code ./convoy bench soak} declares them for the user, but --agent, --work). */
    public static final List<String> OPTIONS = List.of("--agent", "--work", "--minutes", "--options", "--out", "--plot",
            "--java", "--garbage-kb", "--report-only", "--repository");

    private SoakRunner() {
    }

    public static void main(String[] argv) throws Exception {
        BenchArgs a;
        try {
            a = BenchArgs.parse(argv, OPTIONS, List.of());
        } catch (IllegalArgumentException e) {
            System.err.println("soak: " + e.getMessage());
            System.err.println("usage: ./convoy bench soak --help");
            System.exit(2);
            return;
        }
        Path agent = Path.of(a.required("--agent", "(convoy-agent.jar)"));
        Path work = Path.of(a.required("--work", "(a scratch folder)"));
        int minutes = a.intArg("--minutes", 60, 1);
        String options = a.get("--options", "memory=8m,buffer=16k,maxsize=4m");
        boolean withRepository = !"no".equals(a.get("--repository", "yes"));
        Path repository = work.resolve("repository");
        String java = a.get("--java", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Path dumps = work.resolve("dumps");
        Files.createDirectories(dumps);
        String classpath = Path.of(SoakWorkload.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
        boolean reportOnly = a.get("--report-only") != null;
        if (withRepository && !reportOnly) {
            deleteTree(repository);
            Files.createDirectories(repository);
        }
        String agentOptions = options + ",dumpdir=" + dumps + (withRepository ? ",repository=" + repository + ",diskmaxsize=8m" : "");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-javaagent:" + agent + "=" + agentOptions,
                "-cp", classpath, SoakWorkload.class.getName(), "--seconds", Integer.toString(minutes * 60),
                "--out", work.toString(), "--dumpdir", dumps.toString(), "--garbage-kb", a.get("--garbage-kb", "64")));
        if (withRepository) {
            cmd.addAll(List.of("--repository", repository.toString()));
        }
        if (!reportOnly) {
            System.err.println("soak: " + minutes + " min with " + options + " (samples in " + work + ")");
        }
        ChildProcess.Output run = reportOnly ? new ChildProcess.Output(0, List.of())
                : ChildProcess.run(cmd, work.toFile(), minutes + 10L);
        if (run.exitCode() != 0) {
            System.err.println("soak: the workload failed (exit " + run.exitCode() + "):\n"
                    + String.join("\n", run.lines()));
            System.exit(1);
        }
        String readBack = "";
        if (withRepository) {
            readBack = readBack(java, agent, repository, work.resolve("repository-report.txt"));
        }
        List<Sample> samples = read(work.resolve("samples.csv"), Sample::parse);
        List<Dump> dumpLines = read(work.resolve("dumps.csv"), Dump::parse);
        String java17or25 = System.getProperty("java.specification.version");
        String table = table(samples, dumpLines, options, minutes, java17or25, readBack);
        System.out.print(table);
        String out = a.get("--out");
        if (out != null) {
            Files.writeString(Path.of(out), table, StandardCharsets.UTF_8);
        }
        String plot = a.get("--plot");
        if (plot != null) {
            ImageIO.write(render(samples, "Convoy soak, " + minutes + " min, " + options), "png", new File(plot));
        }
    }

    /**
     * Reads the repository the run left (its one recording folder) back whole with the agent
     * jar's report, as {@code ./convoy report FOLDER} does: a table row saying how many chunk
     * files it held and what the report says was kept and lost.
     */
    static String readBack(String java, Path agent, Path repository, Path reportFile)
            throws IOException, InterruptedException {
        List<Path> folders;
        try (java.util.stream.Stream<Path> list = Files.list(repository)) {
            folders = list.filter(Files::isDirectory).toList();
        }
        if (folders.size() != 1) {
            return "| repository read back | expected one recording folder in " + repository.getFileName() + ", found "
                    + folders.size() + " |\n";
        }
        long chunks;
        try (java.util.stream.Stream<Path> list = Files.list(folders.get(0))) {
            chunks = list.filter(f -> f.getFileName().toString().endsWith(".cvysnap")).count();
        }
        ChildProcess.Output report = ChildProcess.run(List.of(java, "-Xmx1g", "-cp", agent.toString(),
                "dev.convoy.cli.Report", folders.get(0).toString(), "-o", reportFile.toString()),
                repository.toFile(), 10);
        if (report.exitCode() != 0) {
            return "| repository read back | " + chunks + " chunk files; the report failed (exit " + report.exitCode()
                    + "): " + String.join(" ", report.lines()).replace('|', '/') + " |\n";
        }
        String losses = Files.readAllLines(reportFile, StandardCharsets.UTF_8).stream()
                .filter(l -> l.startsWith("Records: ")).findFirst().orElse("(no Records line)");
        return "| repository read back (`./convoy report FOLDER`) | " + chunks + " chunk files, exit 0: "
                + losses.replace('|', '/') + " |\n";
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    static <T> List<T> read(Path csv, java.util.function.Function<String, T> parse) throws IOException {
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        List<T> out = new ArrayList<>();
        for (String l : lines.subList(1, lines.size())) {
            if (!l.isBlank()) {
                out.add(parse.apply(l));
            }
        }
        return out;
    }

    private static double mib(long b) {
        return b / (1024.0 * 1024.0);
    }

    /** The Markdown summary of a run. */
    static String table(List<Sample> s, List<Dump> d, String options, int minutes, String javaVersion,
                        String readBack) {
        if (s.isEmpty()) {
            throw new IllegalArgumentException("no samples");
        }
        Sample last = s.get(s.size() - 1);
        long maxMem = s.stream().mapToLong(Sample::memoryInUse).max().orElse(0);
        long over = s.stream().filter(x -> x.memoryInUse() > x.memoryCap()).count();
        double snapMax = d.stream().mapToDouble(Dump::snapshotMs).max().orElse(0);
        double chromeMax = d.stream().mapToDouble(Dump::dumpChromeMs).max().orElse(0);
        long snapBytes = d.stream().mapToLong(Dump::snapshotBytes).max().orElse(0);
        StringBuilder b = new StringBuilder();
        b.append("# Soak run\n\n");
        b.append(String.format(Locale.ROOT, "Java %s, %d min, agent options `%s`, %d samples, %d snapshots "
                + "with a binary and a Chrome dump each.%n%n", javaVersion, minutes, options, s.size(), d.size()));
        b.append("| measure | value |\n|---|---|\n");
        b.append(String.format(Locale.ROOT, "| memory cap | %.1f MiB |%n", mib(last.memoryCap())));
        b.append(String.format(Locale.ROOT, "| memory in use, largest sample | %.2f MiB (%.0f %% of the cap) |%n",
                mib(maxMem), 100.0 * maxMem / last.memoryCap()));
        b.append(String.format(Locale.ROOT, "| samples above the cap | %d |%n", over));
        b.append(String.format(Locale.ROOT, "| events recorded | %,d (%.0f per second) |%n", last.eventsRecorded(),
                last.eventsRecorded() / Math.max(1, last.seconds())));
        b.append(String.format(Locale.ROOT, "| threads started, lock objects made | %,d, %,d |%n",
                last.threadsStarted(), last.locksMade()));
        b.append(String.format(Locale.ROOT, "| events dropped (no ring) | %,d |%n", last.eventsDropped()));
        b.append(String.format(Locale.ROOT, "| objects dropped (object table full) | %,d |%n", last.objectsDropped()));
        b.append(String.format(Locale.ROOT, "| stacks dropped (stack table full) | %,d |%n", last.stacksDropped()));
        b.append(String.format(Locale.ROOT, "| threads with a ring at the end | %d |%n", last.threadsRecorded()));
        b.append(String.format(Locale.ROOT, "| snapshot: longest, largest | %.0f ms, %.2f MiB |%n", snapMax,
                mib(snapBytes)));
        b.append(String.format(Locale.ROOT, "| Chrome dump: longest | %.0f ms |%n", chromeMax));
        long histMax = s.stream().mapToLong(Sample::historyBytes).max().orElse(0);
        long repoMax = s.stream().mapToLong(Sample::repositoryBytes).max().orElse(0);
        b.append(String.format(Locale.ROOT, "| history in memory, largest sample | %.2f MiB of maxsize %.2f MiB |%n",
                mib(histMax), mib(last.historyMaxBytes())));
        b.append(String.format(Locale.ROOT, "| events overwritten in rings, aged out of the history | %,d, %,d |%n",
                last.eventsOverwritten(), last.eventsAgedOut()));
        if (repoMax > 0) {
            b.append(String.format(Locale.ROOT, "| repository on disk, largest sample | %.2f MiB (%.1f × maxsize) |%n",
                    mib(repoMax), repoMax / (double) Math.max(1, last.historyMaxBytes())));
        }
        b.append(readBack);
        b.append("\n![memory in use against the cap, events recorded against time](soak.png)\n");
        return b.toString();
    }

    /**
     * Three panels over time: memory in use and the cap (MiB); events recorded (millions); the
     * history in memory, the repository on disk and maxsize (MiB).
     */
    static BufferedImage render(List<Sample> s, String title) {
        int w = 900;
        int panel = 260;
        BufferedImage img = new BufferedImage(w, 40 + 3 * (panel + 30), BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, img.getWidth(), img.getHeight());
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString(title, 12, 22);
        double tMax = Math.max(1, s.get(s.size() - 1).seconds() / 60.0);
        double memMax = s.stream().mapToDouble(x -> Math.max(mib(x.memoryInUse()), mib(x.memoryCap()))).max()
                .orElse(1) * 1.1;
        double evMax = Math.max(1e-6, s.get(s.size() - 1).eventsRecorded() / 1e6) * 1.05;
        drawPanel(g, s, 40, panel, tMax, memMax, "MiB: memory in use (blue), cap (red)",
                List.of(x -> mib(x.memoryCap()), x -> mib(x.memoryInUse())), List.of(new Color(200, 40, 40),
                        new Color(40, 90, 200)));
        drawPanel(g, s, 40 + panel + 30, panel, tMax, evMax, "millions of events recorded",
                List.of(x -> x.eventsRecorded() / 1e6), List.of(new Color(30, 140, 60)));
        double histMax = s.stream().mapToDouble(x -> Math.max(mib(x.repositoryBytes()),
                Math.max(mib(x.historyBytes()), mib(x.historyMaxBytes())))).max().orElse(1) * 1.1;
        drawPanel(g, s, 40 + 2 * (panel + 30), panel, tMax, Math.max(histMax, 1e-6),
                "MiB: history in memory (green), repository on disk (orange), maxsize (red)",
                List.of(x -> mib(x.historyMaxBytes()), x -> mib(x.historyBytes()), x -> mib(x.repositoryBytes())),
                List.of(new Color(200, 40, 40), new Color(30, 140, 60), new Color(230, 140, 20)));
        g.dispose();
        return img;
    }

    /** A tick label: three significant digits, no trailing zeros. */
    static String number(double v) {
        if (v == 0) {
            return "0";
        }
        String t = new java.math.BigDecimal(v).round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
        return t;
    }

    private static void drawPanel(Graphics2D g, List<Sample> s, int y0, int h, double tMax, double yMax, String label,
                                  List<java.util.function.ToDoubleFunction<Sample>> series, List<Color> colors) {
        int x0 = 70;
        int x1 = 880;
        int top = y0 + 20;
        int bottom = y0 + h - 20;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.setColor(Color.DARK_GRAY);
        g.drawString(label, x0, y0 + 12);
        g.setColor(new Color(220, 220, 220));
        for (int i = 0; i <= 4; i++) {
            int y = bottom - (bottom - top) * i / 4;
            g.drawLine(x0, y, x1, y);
            g.setColor(Color.DARK_GRAY);
            g.drawString(number(yMax * i / 4), 12, y + 4);
            g.setColor(new Color(220, 220, 220));
        }
        g.setColor(Color.DARK_GRAY);
        g.drawLine(x0, bottom, x1, bottom);
        for (int i = 0; i <= 6; i++) {
            int x = x0 + (x1 - x0) * i / 6;
            g.drawString(number(tMax * i / 6) + " min", x - 14, bottom + 15);
        }
        g.setStroke(new BasicStroke(2f));
        for (int k = 0; k < series.size(); k++) {
            g.setColor(colors.get(k));
            int px = -1;
            int py = -1;
            for (Sample x : s) {
                int cx = x0 + (int) ((x1 - x0) * (x.seconds() / 60.0) / tMax);
                int cy = bottom - (int) ((bottom - top) * series.get(k).applyAsDouble(x) / yMax);
                if (px >= 0) {
                    g.drawLine(px, py, cx, cy);
                }
                px = cx;
                py = cy;
            }
        }
        g.setStroke(new BasicStroke(1f));
    }
}
