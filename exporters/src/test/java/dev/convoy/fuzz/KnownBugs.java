package dev.convoy.fuzz;

import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Predicate;

/**
 * Crashes the fuzz test has found whose fix is not merged yet, each recognised by its
 * exception and the class it is thrown from. Their minimal inputs are kept in
 * {@code src/test/resources/dev/convoy/fuzz/known-crashes/} and checked by
 * {@link KnownCrashesTest} (disabled until the fix is in).
 *
 * <p>Only the short fuzzing run of {@code mvn verify} tolerates them (system property
 * {@code convoy.fuzz.knownBugs=tolerate}), so that a bug already reported does not turn the
 * build red at random; the regression run and the longer fuzzing runs report every crash.
 * Remove an entry when its fix is merged.
 */
final class KnownBugs {
    /** Set to {@code tolerate} by the short fuzzing run in {@code mvn verify}. */
    static final boolean TOLERATED = "tolerate".equals(System.getProperty("convoy.fuzz.knownBugs"));

    private record Bug(String name, Predicate<Throwable> matches) {
    }

    private static final List<Bug> BUGS = List.of(
            // known-crashes/deadlocks-*: a BLOCKED entry of SECTION_MONITORS whose owner is no
            // live Java thread counts as a deadlock of its own ring; when that ring is not in
            // SECTION_THREADS, Deadlocks.cycleFrom calls orElseThrow() on an empty Optional.
            new Bug("Deadlocks: blocked monitor entry of a ring without a thread",
                    t -> t instanceof NoSuchElementException && thrownFrom(t, "Deadlocks", "cycleFrom")),
            // known-crashes/report-duration-*: a recording window of exactly Long.MIN_VALUE ns
            // (start and snapshot times from INFO or thread spans, subtraction overflowing):
            // ContentionReport.duration(-ns) recurses forever, -Long.MIN_VALUE being negative.
            new Bug("ContentionReport.duration(Long.MIN_VALUE): unbounded recursion",
                    t -> t instanceof StackOverflowError && thrownFrom(t, "ContentionReport", "duration")));

    private KnownBugs() {
    }

    /** Whether {@code t} is one of the known bugs and the run tolerates them. */
    static boolean tolerated(Throwable t) {
        return TOLERATED && BUGS.stream().anyMatch(b -> b.matches().test(t));
    }

    /** Whether a frame of {@code t} is {@code method} of a class named {@code simpleName} (any package). */
    private static boolean thrownFrom(Throwable t, String simpleName, String method) {
        return Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getMethodName().equals(method)
                && (f.getClassName().equals(simpleName) || f.getClassName().endsWith("." + simpleName)));
    }
}
