package dev.convoy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What {@code exporters} makes public is what the other modules use (their code or tests), and
 * the few types its own packages share with each other, which Java cannot make visible to one
 * module only: those are listed in {@link #SHARED_INSIDE}, each with why it is shared. A public
 * type that only its own package uses fails here (make it package-private), and so does one that
 * only other packages of {@code exporters} use and the list does not name.
 */
class PublicSurfaceTest {
    /** Public types used only inside {@code exporters}, by another package than their own: why each is. */
    private static final Map<String, String> SHARED_INSIDE = Map.of(
            "dev.convoy.model.ClassInfo", "a model type: Recording.classes() hands it to every reader of classes",
            "dev.convoy.model.RadixSort", "the one sort of record keys, used by the model's merge and the analysis",
            "dev.convoy.analysis.LongMap", "the analysis' primitive map, also the writers' (no boxing per object id)",
            "dev.convoy.analysis.RecordFacts", "the analysis' facts per record for the streaming writers (CSV, TPTP)",
            "dev.convoy.export.Text", "the writers' text rules (well-formed UTF-16), the JFR writer's too",
            "dev.convoy.export.jfr.JfrWriter", "the JFR writer, called through Output.JFR");
    private static final Path ROOT = Path.of("..");
    private static final Path MAIN = ROOT.resolve("exporters/src/main/java");
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public (?:final |abstract |sealed |non-sealed )*(?:class|enum|record|interface|@interface) (\\w+)",
            Pattern.MULTILINE);

    /** A source file: its package's folder and its text without comment lines. */
    private record Source(Path dir, String code) {
    }

    private static List<Source> sources(Path root) {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(root)) {
            List<Source> out = new ArrayList<>();
            for (Path p : s.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                StringBuilder code = new StringBuilder();
                for (String line : Files.readAllLines(p)) {
                    String t = line.strip();
                    if (!t.startsWith("*") && !t.startsWith("//") && !t.startsWith("/*")) {
                        code.append(line).append('\n');
                    }
                }
                out.add(new Source(root.relativize(p.getParent()), code.toString()));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void everyPublicTypeIsUsedOutsideItsPackage() {
        List<Source> main = sources(MAIN);
        List<Source> elsewhere = new ArrayList<>();
        for (String module : List.of("recorder-mbean", "test-apps")) {
            elsewhere.addAll(sources(ROOT.resolve(module + "/src/main/java")));
            elsewhere.addAll(sources(ROOT.resolve(module + "/src/test/java")));
        }
        assertTrue(main.size() > 40 && elsewhere.size() > 40, "the sources are found from " + ROOT.toAbsolutePath());
        Map<String, Path> publicTypes = new TreeMap<>();
        for (Source s : main) {
            Matcher m = PUBLIC_TYPE.matcher(s.code());
            if (m.find()) {
                publicTypes.put(m.group(1), s.dir());
            }
        }
        List<String> unused = new ArrayList<>();
        List<String> inside = new ArrayList<>();
        for (Map.Entry<String, Path> t : publicTypes.entrySet()) {
            Pattern use = Pattern.compile("\\b" + t.getKey() + "\\b");
            String name = t.getValue().toString().replace('/', '.') + "." + t.getKey();
            if (elsewhere.stream().anyMatch(s -> use.matcher(s.code()).find())) {
                continue;
            }
            if (main.stream().anyMatch(s -> !s.dir().equals(t.getValue()) && use.matcher(s.code()).find())) {
                inside.add(name);
            } else {
                unused.add(name);
            }
        }
        assertEquals(List.of(), unused, "public types of exporters used only in their own package: make them "
                + "package-private");
        inside.sort(null);
        assertEquals(new TreeMap<>(SHARED_INSIDE).keySet().stream().toList(), inside, "public types of exporters "
                + "that only its own packages use, against SHARED_INSIDE (a new one: say why it is shared, or move "
                + "it to the package that uses it)");
    }
}
