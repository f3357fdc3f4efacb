package dev.convoy.export;

import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.JfrCheck;
import dev.convoy.testing.SyntheticRecordings;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JFR output read back with the JDK's {@code jdk.jfr.consumer}, event by event against the CSV event log. */
class JfrWriterTest {

    @TempDir
    Path dir;

    static Recording read(byte[] bytes) throws Exception {
        return SnapshotReader.read(bytes);
    }

    void sameAsCsv(Recording r) throws Exception {
        Path jfr = dir.resolve("r.jfr");
        Output.write(r, Set.of(Output.JFR), jfr);
        Output.write(r, Output.select("csv"), dir.resolve("r.csv"));
        List<String> csv = JfrCheck.csvLines(dir.resolve("r.meta.csv"), dir.resolve("r.events.csv"));
        List<String> fromJfr = JfrCheck.jfrLines(jfr, r.startEpochNs());
        assertFalse(csv.isEmpty());
        java.nio.file.Files.write(dir.resolve("csv.txt"), csv);
        java.nio.file.Files.write(dir.resolve("jfr.txt"), fromJfr);
        if (!csv.equals(fromJfr)) {
            java.nio.file.Files.write(Path.of("target", "jfr-vs-csv.txt"),
                    List.of(String.join("\n", csv), "----", String.join("\n", fromJfr)));
        }
        assertEquals(String.join("\n", csv), String.join("\n", fromJfr));
    }

    @Test
    void everyFixtureEventAsInTheCsv() throws Exception {
        sameAsCsv(read(Fixtures.all().toBytes()));
    }

    @Test
    void parksAsInTheCsv() throws Exception {
        sameAsCsv(read(Fixtures.parks(Fixtures.base()).toBytes()));
    }

    @Test
    void syntheticAsInTheCsv() throws Exception {
        sameAsCsv(read(SyntheticRecordings.synthetic(20_000, 8, 4, 7).toBytes()));
    }
}
