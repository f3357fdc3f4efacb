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

    /** The command's declaration: its options and usage. */
    static final CommandLine.Command COMMAND = Commands.get("report");

    private Report() {
    }

    /** Runs and exits with {@link #run}'s code. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the report; returns the exit code instead of exiting. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine.Parsed p = CommandLine.parse(COMMAND, args, out, err);
        if (p.exit() >= 0) {
            return p.exit();
        }
        String file = p.get("FILE");
        String output = p.get("o");
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
        return CommandLine.usageError(COMMAND, problem, err);
    }
}
