package dev.convoy.testapps;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/** Argument parsing and exit handling shared by the scenario {@code main} methods. */
final class Cli {

    /** Exit code when the scenario failed. */
    static final int FAILED = 1;
    /** Exit code for bad command-line arguments. */
    static final int USAGE = 2;

    private Cli() {
    }

    /** Thrown for bad arguments; the message is printed with the usage line. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }

    /** Positional integer argument {@code index}, or {@code def} if absent; must be {@code >= min}. */
    static int intArg(String[] args, int index, String name, int def, int min) {
        if (args.length <= index) {
            return def;
        }
        int v;
        try {
            v = Integer.parseInt(args[index].trim());
        } catch (NumberFormatException e) {
            throw new UsageException(name + " must be an integer, got '" + args[index] + "'");
        }
        if (v < min) {
            throw new UsageException(name + " must be >= " + min + ", got " + v);
        }
        return v;
    }

    /** Rejects more than {@code max} positional arguments. */
    static void maxArgs(String[] args, int max) {
        if (args.length > max) {
            throw new UsageException("expected at most " + max + " arguments, got " + args.length);
        }
    }

    /**
     * Builds the scenario from {@code args}, runs it and prints its one-line summary (or
     * {@code "<name> FAIL error=..."}) to {@code out}. Returns the process exit code.
     */
    static int execute(PrintStream out, String name, String usage, Callable<Scenario> factory) {
        Scenario scenario;
        try {
            scenario = factory.call();
        } catch (UsageException | IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("usage: " + usage);
            return USAGE;
        } catch (Exception e) {
            out.println(name + " FAIL error=" + oneLine(e));
            return FAILED;
        }
        return runAndPrint(out, scenario);
    }

    /** Runs {@code scenario}, prints its summary line and returns the exit code. */
    static int runAndPrint(PrintStream out, Scenario scenario) {
        try {
            ScenarioResult result = scenario.run();
            out.println(result.summary());
            out.flush();
            return result.ok() ? 0 : FAILED;
        } catch (Exception e) {
            out.println(scenario.name() + " FAIL error=" + oneLine(e));
            out.flush();
            return FAILED;
        }
    }

    static String oneLine(Throwable e) {
        return String.valueOf(e).replaceAll("\\s+", "_");
    }

    /**
     * Exits the JVM with {@code code} if non-zero. On success it simply returns, and the JVM ends
     * because every scenario thread is a daemon.
     */
    static void exit(int code) {
        System.out.flush();
        if (code != 0) {
            System.exit(code);
        }
    }
}
