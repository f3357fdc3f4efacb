package dev.convoy.cli;

import dev.convoy.export.AtomicFiles;
import dev.convoy.export.Output;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import java.io.OutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * Offline converter of a binary snapshot:
 * {@code java dev.convoy.cli.Convert FILE --format F [-o OUT]}, F one of {@link Output#names()}.
 *
 * <p>Without {@code -o} the output goes next to FILE, FILE's extension replaced by the
 * format's suffix ({@code .json}, {@code .trcxml}, {@code .meta.csv}+{@code .events.csv}+{@code .losses.csv},
 * {@code .cvysnap}). Prints the files written, one a line, on stdout. Exit codes:
 * 0 done, 1 unreadable or corrupt input or write failure (one line naming the file, and the
 * byte offset for a corrupt snapshot; {@code --debug} adds the stack trace of an internal
 * error), 2 bad arguments (usage on stderr). Nothing is half-written.
 */
public final class Convert {
    /** Exit code for success ({@link CommandLine#EXIT_OK}). */
    public static final int EXIT_OK = CommandLine.EXIT_OK;
    /** Exit code for an input or output error ({@link CommandLine#EXIT_FAILED}). */
    public static final int EXIT_ERROR = CommandLine.EXIT_FAILED;
    /** Exit code for bad arguments ({@link CommandLine#EXIT_USAGE}). */
    public static final int EXIT_USAGE = CommandLine.EXIT_USAGE;

    /** The command's declaration: its options and usage. */
    static final CommandLine.Command COMMAND = Commands.get("convert");

    private Convert() {
    }

    /** Runs and exits with {@link #run}'s code. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the converter; returns the exit code instead of exiting. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine.Parsed cl = CommandLine.parse(COMMAND, args, out, err);
        if (cl.exit() >= 0) {
            return cl.exit();
        }
        String file = cl.get("FILE");
        String format = cl.get("format");
        String output = cl.get("o");
        Set<Output> f;
        dev.convoy.model.IdleRules rules;
        try {
            f = Output.select(format);
            rules = CommandLine.idleRules(cl);
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        }
        Path in = Path.of(file);
        Path target = output != null ? Path.of(output) : defaultOutput(in, f);
        return Input.run("convert", in, cl.get("debug") != null, err, () -> {
            long size = Files.isDirectory(in) ? 0 : Files.size(in);
            boolean large = size >= PROGRESS_THRESHOLD;
            Progress progress = new Progress("convert", err, large);
            // memory-mapped: the records stay in the file's pages, not on the heap
            Recording r;
            try {
                r = CommandLine.withIdleRules(CommandLine.window(cl, Input.read(in, progress::read)), rules);
            } catch (IllegalArgumentException e) {
                return usage(err, e.getMessage());
            }
            progress.readDone(r, "analysing and writing");
            List<Path> written = AtomicFiles.withWrapper(progress::counting, () -> Output.write(r, f, target));
            progress.done();
            written.forEach(p -> out.println(p));
            return EXIT_OK;
        });
    }

    /**
     * The message for an analysis that did not fit the heap (nothing is written then: the
     * output goes to a temporary file renamed only when complete).
     */
    static String outOfMemory(String command, Path in) {
        long heapMiB = Runtime.getRuntime().maxMemory() >> 20;
        long events = -1;
        try {
            events = SnapshotReader.read(in).events().size();
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            // the count is only for the message
        }
        return CommandLine.prefix(command) + in + ": not enough memory for the analysis" + (events >= 0 ? " of " + events
                + " events" : "") + " in a heap of " + heapMiB + " MiB; run with a larger heap, e.g. "
                + "JDK_JAVA_OPTIONS=-Xmx" + Math.max(2, 2 * heapMiB / 1024 + 1) + "g ./convoy " + command + " ...";
    }

    /** Inputs at least this large (bytes) get progress lines on stderr. */
    public static final long PROGRESS_THRESHOLD = Long.getLong("convoy.convert.progressBytes", 64L << 20);

    /** Progress lines on stderr: every 10% of the input read and checked, every 64 MiB written. */
    static final class Progress {
        final String command;
        final PrintStream err;
        final boolean on;
        final long t0 = System.nanoTime();
        int lastTenth = -1;
        long written;
        long nextReport = 64L << 20;

        Progress(String command, PrintStream err, boolean on) {
            this.command = command;
            this.err = err;
            this.on = on;
        }

        void read(long done, long total) {
            int tenth = (int) (done * 10 / Math.max(1, total));
            if (on && tenth > lastTenth) {
                lastTenth = tenth;
                err.printf("%sreading %d%% (%d MiB of %d MiB)%n", CommandLine.prefix(command), tenth * 10, done >> 20, total >> 20);
            }
        }

        void readDone(Recording r, String next) {
            if (on) {
                err.printf("%s: %d events in %d threads; %s...%n", command, r.events().size(), r.threads().size(),
                        next);
            }
        }

        OutputStream counting(OutputStream os) {
            return new java.io.FilterOutputStream(os) {
                @Override
                public void write(int b) throws IOException {
                    out.write(b);
                    count(1);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                    count(len);
                }
            };
        }

        void count(long n) {
            written += n;
            if (on && written >= nextReport) {
                nextReport += 64L << 20;
                err.printf("%s: written %d MiB (%.1f s)%n", command, written >> 20, (System.nanoTime() - t0) / 1e9);
            }
        }

        void done() {
            if (on) {
                err.printf("%s: done, %d MiB written in %.1f s%n", command, written >> 20, (System.nanoTime() - t0) / 1e9);
            }
        }
    }

    /** FILE's extension replaced by the format's suffix, in FILE's directory (a snapshot's copy: NAME.copy.cvysnap). */
    static Path defaultOutput(Path in, Set<Output> f) {
        String name = in.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String base = dot > 0 ? name.substring(0, dot) : name;
        if (Output.defaultName(base, f).equals(name)) {
            base = base + ".copy";
        }
        return in.toAbsolutePath().resolveSibling(Output.defaultName(base, f));
    }

    private static int usage(PrintStream err, String problem) {
        return CommandLine.usageError(COMMAND, problem, err);
    }
}
