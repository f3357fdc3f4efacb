package dev.convoy.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.model.Recording;
import dev.convoy.report.ContentionReport;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * Every output of the checked-in snapshots of real test-app runs (the fuzz tests' seed inputs)
 * and of the built scenarios ({@link Fixtures}), byte for byte: the SHA-256 of each against
 * {@code output-digests.txt}. A refactoring that must not change what Convoy writes keeps them all; a change of an output that is meant shows
 * here as the list of files that differ, and the digests are written anew with
 * {@code -Dconvoy.digests.update=true} (then review the difference of the outputs themselves).
 * The pprof profile is digested gunzipped: its compressed bytes depend on the JDK's zlib.
 */
class OutputDigestsTest {
    private static final Path INPUTS = Path.of("src/test/resources/dev/convoy/fuzz/SnapshotFuzzTestInputs");
    private static final Path DIGESTS = Path.of("src/test/resources/dev/convoy/export/output-digests.txt");

    @Test
    void everyOutputOfTheFixturesIsAsBefore() throws Exception {
        List<Path> snapshots;
        try (Stream<Path> s = Files.walk(INPUTS)) {
            snapshots = s.filter(p -> p.toString().endsWith(".cvysnap")).sorted().toList();
        }
        assertTrue(snapshots.size() >= 8, "the fixtures are found in " + INPUTS.toAbsolutePath());
        Map<String, byte[]> inputs = new java.util.LinkedHashMap<>();
        for (Path p : snapshots) {
            inputs.put(INPUTS.relativize(p).toString().replace('\\', '/'), Files.readAllBytes(p));
        }
        // the built scenarios: joins with their inner waits, parks, losses of every kind
        inputs.put("built/all", Fixtures.all().toBytes());
        inputs.put("built/contention", Fixtures.contention(Fixtures.base()).toBytes());
        inputs.put("built/parks", Fixtures.parks(Fixtures.parkBase(Fixtures.base())).toBytes());
        inputs.put("built/losses", Fixtures.losses(Fixtures.base()).toBytes());
        Map<String, String> got = new TreeMap<>();
        for (Map.Entry<String, byte[]> in : inputs.entrySet()) {
            String name = in.getKey();
            Recording r = SnapshotReader.read(in.getValue());
            for (Output o : Output.values()) {
                if (o == Output.SNAPSHOT) {
                    continue;
                }
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                o.write(r, out);
                byte[] b = out.toByteArray();
                if (o == Output.PPROF) {
                    b = new GZIPInputStream(new ByteArrayInputStream(b)).readAllBytes();
                }
                got.put(name + " " + o.id(), sha256(b));
            }
            for (ContentionReport.Style style : ContentionReport.Style.values()) {
                got.put(name + " report-" + style.name().toLowerCase(java.util.Locale.ROOT),
                        sha256(ContentionReport.of(r).render(style).getBytes(StandardCharsets.UTF_8)));
            }
        }
        if (Boolean.getBoolean("convoy.digests.update")) {
            StringBuilder b = new StringBuilder("# fixture output sha256 (OutputDigestsTest)\n");
            got.forEach((k, v) -> b.append(k).append(' ').append(v).append('\n'));
            Files.writeString(DIGESTS, b);
        }
        Map<String, String> expected = new TreeMap<>();
        for (String line : Files.readAllLines(DIGESTS)) {
            if (!line.isBlank() && !line.startsWith("#")) {
                int sp = line.lastIndexOf(' ');
                expected.put(line.substring(0, sp), line.substring(sp + 1));
            }
        }
        List<String> differ = new ArrayList<>();
        for (String k : got.keySet()) {
            if (!got.get(k).equals(expected.get(k))) {
                differ.add(k);
            }
        }
        for (String k : expected.keySet()) {
            if (!got.containsKey(k)) {
                differ.add(k + " (not written)");
            }
        }
        assertEquals(List.of(), differ, "outputs that differ from output-digests.txt (if meant: "
                + "-Dconvoy.digests.update=true, and review the outputs)");
    }

    private static String sha256(byte[] b) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }
}
