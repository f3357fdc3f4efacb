package dev.convoy.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The minimal crashing inputs of bugs the fuzz test found whose fix is not merged yet
 * ({@link KnownBugs}), kept in {@code src/test/resources/dev/convoy/fuzz/known-crashes/}.
 * Once a fix is merged, move its files to
 * {@code SnapshotFuzzTestInputs/snapshotContract/} (where the fuzz test's regression run
 * picks them up) and remove its {@link KnownBugs} entry; when the directory is empty,
 * delete it and this test.
 */
@Disabled("known crashes (KnownBugs): Deadlocks.cycleFrom, ContentionReport.duration; enable once their fixes are merged")
class KnownCrashesTest {

    static final Path DIR = Path.of("src/test/resources/dev/convoy/fuzz/known-crashes");

    static Stream<Path> inputs() throws IOException {
        try (Stream<Path> files = Files.list(DIR)) {
            return files.filter(Files::isRegularFile).sorted().toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inputs")
    void readAndWriteEverything(Path input) throws IOException {
        SnapshotContract.readAndWriteEverything(Files.readAllBytes(input));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inputs")
    void commandLine(Path input) throws IOException {
        SnapshotContract.commandLine(Files.readAllBytes(input));
    }
}
