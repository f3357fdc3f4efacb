package dev.convoy.cli;

/**
 * A failure the command line reports as one message on stderr, with its exit code:
 * {@link ConvoyCli#EXIT_FAILED} for an operation that failed, {@link ConvoyCli#EXIT_USAGE}
 * for bad arguments (the usage follows the message).
 */
final class CliException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    private CliException(String message, int exitCode, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    /** The operation failed: exit code 1. */
    static CliException failed(String message) {
        return new CliException(message, ConvoyCli.EXIT_FAILED, null);
    }

    /** The operation failed because of {@code cause}: exit code 1. */
    static CliException failed(String message, Throwable cause) {
        return new CliException(message, ConvoyCli.EXIT_FAILED, cause);
    }

    /** Bad arguments: exit code 2, the usage is printed after the message. */
    static CliException usage(String message) {
        return new CliException(message, ConvoyCli.EXIT_USAGE, null);
    }

    int exitCode() {
        return exitCode;
    }
}
