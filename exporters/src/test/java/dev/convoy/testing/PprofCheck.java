package dev.convoy.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * Reads a pprof profile the way its specification puts it (github.com/google/pprof,
 * {@code proto/profile.proto}), independently of the writer: the gzip-compressed message is
 * decoded field by field with protobuf-java's {@link CodedInputStream}, the field numbers taken
 * from the specification here, and profile.proto's rules are checked ({@link #read}). Also runs
 * {@code go tool pprof} on a file, where Go is installed ({@link #goTotal}).
 */
public final class PprofCheck {

    private PprofCheck() {
    }

    /** A {@code ValueType}: type and unit as strings. */
    public record ValueType(String type, String unit) {
    }

    /** A {@code Sample}: location ids leaf first, values, string labels (key to value). */
    public record Sample(List<Long> locationIds, List<Long> values, Map<String, String> labels) {
    }

    /** A {@code Location}: its mapping and its lines ({function id, line}). */
    public record Location(long id, long mappingId, long address, List<long[]> lines) {
    }

    /** A {@code Function}, its strings resolved. */
    public record Function(long id, String name, String systemName, String filename, long startLine) {
    }

    /** A {@code Mapping}. */
    public record Mapping(long id, String filename, boolean hasFunctions, boolean hasFilenames, boolean hasLineNumbers) {
    }

    /** A decoded profile, every string index resolved. */
    public record Profile(List<ValueType> sampleTypes, List<Sample> samples, List<Mapping> mappings,
                          Map<Long, Location> locations, Map<Long, Function> functions, List<String> strings,
                          long timeNanos, long durationNanos, ValueType periodType, long period, List<String> comments,
                          String defaultSampleType) {

        /** The index of a sample type by name. */
        public int valueIndex(String type) {
            for (int i = 0; i < sampleTypes.size(); i++) {
                if (sampleTypes.get(i).type().equals(type)) {
                    return i;
                }
            }
            throw new AssertionError("no sample type " + type + " in " + sampleTypes);
        }

        /** The sum of one sample type's values over the samples with a label of that value (any when key is null). */
        public long total(String type, String key, String value) {
            int i = valueIndex(type);
            long sum = 0;
            for (Sample s : samples) {
                if (key == null || value.equals(s.labels().get(key))) {
                    sum += s.values().get(i);
                }
            }
            return sum;
        }

        /** A sample's function names, leaf first (the first line of each location). */
        public List<String> frames(Sample s) {
            List<String> names = new ArrayList<>();
            for (long id : s.locationIds()) {
                names.add(functions.get(locations.get(id).lines().get(0)[0]).name());
            }
            return names;
        }
    }

    /** Decodes a gzip-compressed profile file and checks profile.proto's rules. */
    public static Profile read(Path file) throws IOException {
        return read(Files.readAllBytes(file));
    }

    /**
     * Decodes a gzip-compressed profile and checks profile.proto's rules: gzip on disk;
     * {@code string_table[0]} is "" and every string index is within the table; every id of a
     * mapping, location and function is nonzero and unique; every sample's location ids name a
     * location and each line a function, every nonzero mapping id a mapping; every sample has one
     * value per sample type; a label has a string or a number, not both, and a unit only with a
     * number; the default sample type is one of the sample types; a count sample type, if any,
     * comes first.
     */
    public static Profile read(byte[] gz) throws IOException {
        assertTrue(gz.length >= 2 && (gz[0] & 0xff) == 0x1f && (gz[1] & 0xff) == 0x8b, "gzip-compressed on disk");
        byte[] bytes;
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
            bytes = in.readAllBytes();
        }
        Raw raw = new Raw();
        CodedInputStream in = CodedInputStream.newInstance(bytes);
        for (int tag; (tag = in.readTag()) != 0; ) {
            int field = WireFormat.getTagFieldNumber(tag);
            switch (field) {
                case 1 -> raw.sampleTypes.add(valueType(in.readBytes().newCodedInput()));
                case 2 -> raw.samples.add(sample(in.readBytes().newCodedInput()));
                case 3 -> raw.mappings.add(message(in.readBytes().newCodedInput()));
                case 4 -> raw.locations.add(location(in.readBytes().newCodedInput()));
                case 5 -> raw.functions.add(message(in.readBytes().newCodedInput()));
                case 6 -> raw.strings.add(in.readStringRequireUtf8());
                case 7, 8, 9, 10, 12, 14, 15 -> raw.scalars.put(field, in.readInt64());
                case 11 -> raw.periodType = valueType(in.readBytes().newCodedInput());
                case 13 -> readInts(in, tag, raw.comments);
                default -> in.skipField(tag);
            }
        }
        return raw.resolve();
    }

    private static final class Raw {
        final List<long[]> sampleTypes = new ArrayList<>();
        final List<RawSample> samples = new ArrayList<>();
        final List<Map<Integer, Long>> mappings = new ArrayList<>();
        final List<RawLocation> locations = new ArrayList<>();
        final List<Map<Integer, Long>> functions = new ArrayList<>();
        final List<String> strings = new ArrayList<>();
        final Map<Integer, Long> scalars = new HashMap<>();
        final List<Long> comments = new ArrayList<>();
        long[] periodType = {0, 0};

        String s(long index) {
            assertTrue(index >= 0 && index < strings.size(), () -> "string index " + index + " of " + strings.size());
            return strings.get((int) index);
        }

        Profile resolve() {
            assertFalse(strings.isEmpty(), "a string table");
            assertEquals("", strings.get(0), "string_table[0] must always be \"\"");
            List<ValueType> types = sampleTypes.stream().map(t -> new ValueType(s(t[0]), s(t[1]))).toList();
            for (int i = 1; i < types.size(); i++) {
                assertFalse(types.get(i).unit().equals("count"), "the count value is at index 0 by convention");
            }
            List<Mapping> maps = new ArrayList<>();
            Set<Long> mappingIds = new HashSet<>();
            for (Map<Integer, Long> m : mappings) {
                long id = m.getOrDefault(1, 0L);
                assertTrue(id != 0 && mappingIds.add(id), "a unique nonzero mapping id: " + id);
                maps.add(new Mapping(id, s(m.getOrDefault(5, 0L)), m.getOrDefault(7, 0L) != 0,
                        m.getOrDefault(8, 0L) != 0, m.getOrDefault(9, 0L) != 0));
                s(m.getOrDefault(6, 0L)); // build id
            }
            Map<Long, Function> fns = new HashMap<>();
            for (Map<Integer, Long> f : functions) {
                long id = f.getOrDefault(1, 0L);
                assertTrue(id != 0 && !fns.containsKey(id), "a unique nonzero function id: " + id);
                fns.put(id, new Function(id, s(f.getOrDefault(2, 0L)), s(f.getOrDefault(3, 0L)),
                        s(f.getOrDefault(4, 0L)), f.getOrDefault(5, 0L)));
            }
            Map<Long, Location> locs = new HashMap<>();
            for (RawLocation l : locations) {
                assertTrue(l.id != 0 && !locs.containsKey(l.id), "a unique nonzero location id: " + l.id);
                assertTrue(l.mappingId == 0 || mappingIds.contains(l.mappingId), "location " + l.id
                        + "'s mapping " + l.mappingId + " exists");
                for (long[] line : l.lines) {
                    assertTrue(fns.containsKey(line[0]), "location " + l.id + "'s function " + line[0] + " exists");
                    assertTrue(line[1] >= 0, "a line number");
                }
                locs.put(l.id, new Location(l.id, l.mappingId, l.address, l.lines));
            }
            List<Sample> out = new ArrayList<>();
            for (RawSample rs : samples) {
                assertEquals(types.size(), rs.values.size(), "one value per sample type");
                assertFalse(rs.locationIds.isEmpty(), "a sample has a stack");
                for (long id : rs.locationIds) {
                    assertTrue(locs.containsKey(id), "sample location " + id + " exists");
                }
                Map<String, String> labels = new HashMap<>();
                for (long[] l : rs.labels) {
                    assertTrue(l[1] == 0 || l[2] == 0, "a label has a string or a number, not both");
                    assertTrue(l[3] == 0 || l[2] != 0 || l[1] == 0, "a unit only with a number");
                    String key = s(l[0]);
                    assertFalse(key.isEmpty(), "a label key");
                    s(l[3]);
                    if (l[1] != 0) {
                        assertTrue(labels.put(key, s(l[1])) == null, "label " + key + " once per sample");
                    }
                }
                out.add(new Sample(rs.locationIds, rs.values, labels));
            }
            List<String> texts = comments.stream().map(this::s).toList();
            ValueType period = new ValueType(s(periodType[0]), s(periodType[1]));
            String dflt = s(scalars.getOrDefault(14, 0L));
            assertTrue(dflt.isEmpty() || types.stream().anyMatch(t -> t.type().equals(dflt)),
                    "the default sample type is a sample type: " + dflt);
            s(scalars.getOrDefault(7, 0L));
            s(scalars.getOrDefault(8, 0L));
            return new Profile(types, out, maps, locs, fns, List.copyOf(strings), scalars.getOrDefault(9, 0L),
                    scalars.getOrDefault(10, 0L), period, scalars.getOrDefault(12, 0L), texts, dflt);
        }
    }

    private record RawSample(List<Long> locationIds, List<Long> values, List<long[]> labels) {
    }

    private record RawLocation(long id, long mappingId, long address, List<long[]> lines) {
    }

    /** Repeated varints, packed or not. */
    private static void readInts(CodedInputStream in, int tag, List<Long> out) throws IOException {
        if (WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
            int limit = in.pushLimit(in.readRawVarint32());
            while (in.getBytesUntilLimit() > 0) {
                out.add(in.readRawVarint64());
            }
            in.popLimit(limit);
        } else {
            out.add(in.readRawVarint64());
        }
    }

    /** A message of varint fields only (the last value of each), as field number to value. */
    private static Map<Integer, Long> message(CodedInputStream in) throws IOException {
        Map<Integer, Long> m = new HashMap<>();
        for (int tag; (tag = in.readTag()) != 0; ) {
            if (WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_VARINT) {
                m.put(WireFormat.getTagFieldNumber(tag), in.readRawVarint64());
            } else {
                in.skipField(tag);
            }
        }
        return m;
    }

    private static long[] valueType(CodedInputStream in) throws IOException {
        Map<Integer, Long> m = message(in);
        return new long[] {m.getOrDefault(1, 0L), m.getOrDefault(2, 0L)};
    }

    private static RawSample sample(CodedInputStream in) throws IOException {
        List<Long> locations = new ArrayList<>();
        List<Long> values = new ArrayList<>();
        List<long[]> labels = new ArrayList<>();
        for (int tag; (tag = in.readTag()) != 0; ) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> readInts(in, tag, locations);
                case 2 -> readInts(in, tag, values);
                case 3 -> {
                    Map<Integer, Long> l = message(in.readBytes().newCodedInput());
                    labels.add(new long[] {l.getOrDefault(1, 0L), l.getOrDefault(2, 0L), l.getOrDefault(3, 0L),
                        l.getOrDefault(4, 0L)});
                }
                default -> in.skipField(tag);
            }
        }
        return new RawSample(locations, values, labels);
    }

    private static RawLocation location(CodedInputStream in) throws IOException {
        long id = 0, mapping = 0, address = 0;
        List<long[]> lines = new ArrayList<>();
        for (int tag; (tag = in.readTag()) != 0; ) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> id = in.readUInt64();
                case 2 -> mapping = in.readUInt64();
                case 3 -> address = in.readUInt64();
                case 4 -> {
                    Map<Integer, Long> l = message(in.readBytes().newCodedInput());
                    lines.add(new long[] {l.getOrDefault(1, 0L), l.getOrDefault(2, 0L)});
                }
                default -> in.skipField(tag);
            }
        }
        return new RawLocation(id, mapping, address, lines);
    }

    /** The {@code go} command on the PATH, if Go is installed (Debian: golang-go). */
    public static Optional<Path> go() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "go");
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Why a test that needs {@code go tool pprof} is skipped. */
    public static final String NO_GO = "go tool pprof not run: no 'go' command on the PATH (Debian: apt-get install golang-go)";

    private static final Pattern SHOWING = Pattern.compile(
            "Showing nodes accounting for ([0-9.]+)(?:ns)?, [0-9.]+% of ([0-9.]+)(?:ns)? total");

    /**
     * What {@code go tool pprof -top} says a file's total is, for one sample type ({@code delay} in
     * nanoseconds, {@code contentions}), over the samples with the label {@code tag} ({@code
     * state=blocked}; all when null): its header's "Showing nodes accounting for N" with no node
     * left out ({@code -nodefraction=0}), and with no focus its "of N total".
     */
    public static long goTotal(Path go, Path file, String sampleType, String tag) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(go.toString(), "tool", "pprof", "-top", "-unit=ns", "-nodefraction=0",
                "-sample_index=" + sampleType));
        if (tag != null) {
            cmd.add("-tagfocus=" + tag);
        }
        cmd.add(file.toString());
        Path out = Files.createTempFile("pprof", ".out");
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
            Process p = pb.start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("go tool pprof did not finish in 120 s: " + cmd);
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), () -> String.join(" ", cmd) + "\n" + text);
            assertFalse(text.contains("Dropped "), () -> "no node left out\n" + text);
            Matcher m = SHOWING.matcher(text);
            if (!m.find()) {
                if (tag != null && text.contains("TagFocus expression matched no samples")) {
                    return 0;
                }
                fail("no totals in go tool pprof's output:\n" + text);
            }
            BigDecimal shown = new BigDecimal(m.group(1));
            if (tag == null) {
                assertEquals(0, shown.compareTo(new BigDecimal(m.group(2))), () -> "every node shown\n" + text);
            }
            return shown.longValueExact();
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
