package dev.convoy.agent.http;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.CountDownLatch;

/**
 * {@code ./convoy view FILE|FOLDER [--port N]}: serves the web view of a saved snapshot, or of a
 * repository folder (agent option {@code repository}) read as one recording, on 127.0.0.1, offline
 * (recording controls answer 409), until interrupted. Exit codes: 2 bad arguments, 1 a file that
 * cannot be read whole (truncated, replaced or changed while it was read, not a snapshot: one
 * line naming it).
 */
public final class ViewMain {

    static final String USAGE = "usage: ./convoy view FILE.cvysnap|FOLDER [--port N]";

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
            throw new Failure(2, "no such file or folder: " + p);
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
        static Args parse(String... args) {
            Path file = null;
            int port = 0;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--port")) {
                    if (i + 1 >= args.length || !args[i + 1].matches("[0-9]{1,5}")
                            || Integer.parseInt(args[i + 1]) > 65535) {
                        throw new IllegalArgumentException("--port needs a number from 0 (any free port) to 65535; "
                                + USAGE);
                    }
                    port = Integer.parseInt(args[++i]);
                } else if (a.startsWith("-")) {
                    throw new IllegalArgumentException("unknown argument '" + a + "'; " + USAGE);
                } else if (file == null) {
                    file = Paths.get(a);
                } else {
                    throw new IllegalArgumentException("only one snapshot file; " + USAGE);
                }
            }
            if (file == null) {
                throw new IllegalArgumentException("no snapshot file given; " + USAGE);
            }
            return new Args(file, port);
        }
    }

    public static void main(String[] argv) throws InterruptedException {
        Args args;
        FileSource source;
        try {
            args = Args.parse(argv);
            source = source(args);
        } catch (IllegalArgumentException e) {
            System.err.println("convoy view: " + e.getMessage());
            System.exit(2);
            return;
        } catch (Failure e) {
            System.err.println("convoy view: " + e.getMessage());
            System.exit(e.code);
            return;
        }
        WebServer server;
        try {
            server = WebServer.start(source, "127.0.0.1", args.port(), null);
        } catch (RuntimeException e) {
            System.err.println("convoy view: " + e.getMessage());
            System.exit(1);
            return;
        }
        System.err.println("[convoy] web view at " + server.url() + " (offline: " + args.file().getFileName()
                + "; Ctrl-C to stop)");
        new CountDownLatch(1).await(); // the server's threads are daemons: keep the JVM up
    }
}
