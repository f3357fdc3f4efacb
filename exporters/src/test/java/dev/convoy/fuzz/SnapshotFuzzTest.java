package dev.convoy.fuzz;

import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.convoy.testing.Fixtures;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz tests of the snapshot reader, the outputs, the contention report and the command-line
 * tools ({@link SnapshotContract}), with Jazzer.
 *
 * <p>{@code mvn verify} runs both in regression mode, on the empty input, the fixture
 * snapshots of {@link #fixtures()} and every file of the inputs directory (Jazzer's layout,
 * under {@code src/test/resources/dev/convoy/fuzz/}): {@code SnapshotFuzzTestInputs/*} for
 * both methods (real snapshots recorded with the agent from the test apps),
 * {@code SnapshotFuzzTestInputs/<method>/**} for one (Jazzer writes the crashes it finds
 * there; keep each, minimised, once its bug is fixed).
 * It then fuzzes {@link #snapshotContract} for a few seconds. Fuzzing longer:
 * docs/testing.md, "Fuzzing".
 */
class SnapshotFuzzTest {

    /**
     * The seeds: hand-built snapshots, and when fuzzing, the real snapshots of
     * {@code SnapshotFuzzTestInputs/} too (Jazzer runs that directory in regression mode but
     * gives the fuzzer only {@code SnapshotFuzzTestInputs/<method>/}).
     */
    static Stream<Arguments> seeds() throws IOException {
        Stream<Arguments> real = Stream.empty();
        if (fuzzing()) {
            URL dir = SnapshotFuzzTest.class.getResource("SnapshotFuzzTestInputs");
            try (Stream<Path> files = Files.list(Path.of(URI.create(dir.toString())))) {
                List<Arguments> list = new ArrayList<>();
                for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                    list.add(arguments(named(f.getFileName().toString(), Files.readAllBytes(f))));
                }
                real = list.stream();
            }
        }
        return Stream.concat(fixtures(), real);
    }

    /** Whether Jazzer fuzzes (JAZZER_FUZZ set to true, 1 or yes). */
    private static boolean fuzzing() {
        String v = System.getenv("JAZZER_FUZZ");
        return v != null && (v.equalsIgnoreCase("true") || v.equals("1") || v.equalsIgnoreCase("yes"));
    }

    /** Hand-built snapshots with known facts. */
    static Stream<Arguments> fixtures() {
        return Stream.of(
                arguments(named("fixture all", Fixtures.all().toBytes())),
                arguments(named("fixture base", Fixtures.base().toBytes())),
                arguments(named("fixture deadlock", Fixtures.deadlock(Fixtures.base()).toBytes())),
                arguments(named("fixture waitNotify", Fixtures.waitNotify(Fixtures.base()).toBytes())),
                arguments(named("fixture handoffChain", Fixtures.handoffChain(Fixtures.base()).toBytes())),
                arguments(named("fixture gc", Fixtures.gc(Fixtures.base()).toBytes())),
                arguments(named("fixture overwritten", Fixtures.overwritten(Fixtures.base()).toBytes())),
                arguments(named("fixture contention", Fixtures.contention(Fixtures.base()).toBytes())),
                arguments(named("fixture losses", Fixtures.losses(Fixtures.base()).toBytes())));
    }

    /** Reader, every output and the report, in memory: the fast target, fuzzed in the build. */
    @MethodSource("seeds")
    @FuzzTest(maxDuration = "10s")
    void snapshotContract(byte[] data) throws Exception {
        SnapshotContract.readAndWriteEverything(data);
    }

    /** {@code convert} with every format and {@code report} in both styles, on a file. */
    @MethodSource("seeds")
    @FuzzTest(maxDuration = "10s")
    void commandLine(byte[] data) throws Exception {
        SnapshotContract.commandLine(data);
    }
}
