package dev.convoy.cli;

import dev.convoy.export.AtomicFiles;
import dev.convoy.report.ContentionReport;
import dev.convoy.report.ContentionReport.Style;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The contention report of a binary snapshot ({@link ContentionReport}):
 * {@code java dev.convoy.cli.Report FILE [--markdown] [-o OUT]}.
 *
 * <p>Prints the report on stdout, or writes it into OUT (whole or absent, parent
 * directories created) and prints OUT's path. Exit codes as {@link Convert}: 0 done, 1
 * unreadable or corrupt input or write failure, 2 bad arguments (usage on stderr).
 */
public final class Report {

    static final String USAGE = "usage: report FILE [--markdown] [-o OUT] [--since D | --from T --to T]"
            + " [--idle-rules FILE]\n"
            + "  FILE          a Convoy binary snapshot (.cvysnap), or a repository folder\n"
            + "  --markdown    Markdown instead of plain text (--text: plain text, the default)\n"
            + "  -o OUT        write the report into OUT instead of stdout\n"
            + CommandLine.WINDOW_USAGE
            + CommandLine.IDLE_USAGE
            + "  --debug       on an internal error, print its stack trace";

    private Report() {
    }

    /** Runs and exits with {@link #run}'s code. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the report; returns the exit code instead of exiting. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine.Parsed p = new CommandLine("report", USAGE).valued("output", "-o", "--output")
                .valued("format", "--format").fixed("--markdown", "format", "markdown").fixed("--md", "format", "markdown")
                .fixed("--text", "format", "text").windowed().withIdleRules().fixed("--debug", "debug", "true").parse(args, out, err);
        if (p.exit() >= 0) {
            return p.exit();
        }
        String file = p.file();
        String output = p.get("output");
        Style style;
        dev.convoy.model.IdleRules rules;
        try {
            style = p.get("format") == null ? Style.TEXT : Style.parse(p.get("format"));
            rules = CommandLine.idleRules(p);
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        }
        Path in = Path.of(file);
        return Input.run("report", in, p.get("debug") != null, err, () -> {
            Convert.Progress progress = new Convert.Progress("report", err,
                    !Files.isDirectory(in) && Files.size(in) >= Convert.PROGRESS_THRESHOLD);
            Recording r;
            try {
                r = CommandLine.withIdleRules(CommandLine.window(p, Input.read(in, progress::read)), rules); // memory-mapped, as convert reads it
            } catch (IllegalArgumentException e) {
                return usage(err, e.getMessage());
            }
            progress.readDone(r, "analysing");
            String report = ContentionReport.of(r).render(style);
            if (output == null) {
                out.print(report);
                out.flush();
            } else {
                Path target = Path.of(output).toAbsolutePath();
                AtomicFiles.write(target, os -> os.write(report.getBytes(StandardCharsets.UTF_8)));
                out.println(target);
            }
            return Convert.EXIT_OK;
        });
    }

    private static int usage(PrintStream err, String problem) {
        err.println("report: " + problem);
        err.println(USAGE);
        return Convert.EXIT_USAGE;
    }
}
