package dev.convoy.agent.http;

import dev.convoy.cli.CommandLine;
import dev.convoy.cli.Commands;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code ./convoy view FILE [--port N]} ({@link Commands}): serves the web view of a saved snapshot, or of a
 * repository folder (agent option {@code repository}) read as one recording, on 127.0.0.1, offline
 * (recording controls answer 409), until interrupted. Exit codes: 2 bad arguments, 1 a file that
 * cannot be read whole (truncated, replaced or changed while it was read, not a snapshot: one
 * line naming it).
 */
public final class ViewMain {

    /** The command's declaration: its arguments and usage. */
    static final CommandLine.Command COMMAND = Commands.get("view");

    /** Why the view cannot start: the message, one line, and the exit code. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        final int code;

        Failure(int code, String message) {
            super(message);
            this.code = code;
        }
    }

    /** What {@code args} name, read whole. */
    static FileSource source(Args args) throws Failure {
        Path p = args.file();
        if (!Files.isRegularFile(p) && !Files.isDirectory(p)) {
            throw new Failure(1, "no such file or folder: " + p);
        }
        try {
            return new FileSource(p);
        } catch (IOException | RuntimeException e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage().replace('\n', ' ');
            throw new Failure(1, p + ": " + why);
        } catch (OutOfMemoryError e) {
            throw new Failure(1, p + ": the JVM's heap is too small to read it (" + e.getMessage()
                    + "): give the view more, e.g. JAVA_TOOL_OPTIONS=-Xmx4g");
        }
    }

    private ViewMain() {
    }

    /** Parsed arguments. */
    record Args(Path file, int port) {
        /**
         * The arguments of {@code view}, as {@link Commands} declares them.
         *
         * @throws IllegalArgumentException with the one-line problem
         */
        static Args parse(String... args) {
            Map<String, String> v = CommandLine.parse(COMMAND, args);
            if (v == null) {
                throw new IllegalArgumentException("--help is not a snapshot");
            }
            return of(v);
        }

        static Args of(Map<String, String> v) {
            return new Args(Paths.get(v.get("FILE")), v.containsKey("port") ? Integer.parseInt(v.get("port")) : 0);
        }
    }

    public static void main(String[] argv) {
        System.exit(run(argv, System.out, System.err));
    }

    /**
     * Serves the view until the JVM is stopped; returns the exit code when it cannot start
     * ({@code --help}: the usage, 0).
     */
    public static int run(String[] argv, PrintStream out, PrintStream err) {
        CommandLine.Parsed p = CommandLine.parse(COMMAND, argv, out, err);
        if (p.exit() >= 0) {
            return p.exit();
        }
        Args args = Args.of(p.values());
        FileSource source;
        try {
            source = source(args);
        } catch (Failure e) {
            err.println(CommandLine.prefix(COMMAND.name()) + e.getMessage());
            return e.code;
        }
        WebServer server;
        try {
            server = WebServer.start(source, "127.0.0.1", args.port(), null);
        } catch (RuntimeException e) {
            err.println(CommandLine.prefix(COMMAND.name()) + e.getMessage());
            return 1;
        }
        err.println("[convoy] web view at " + server.url() + " (offline: " + args.file().getFileName()
                + "; Ctrl-C to stop)");
        err.flush();
        try {
            new CountDownLatch(1).await(); // the server's threads are daemons: keep the JVM up
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }
}
