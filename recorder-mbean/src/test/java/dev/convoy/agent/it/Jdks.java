package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

import org.junit.jupiter.params.provider.Arguments;

/**
 * The JDKs integration tests run on: the JDK running the build (17 by default) and
 * Temurin 25 at {@code -Dconvoy.test.jdk25} (default /usr/lib/jvm/temurin-25-jdk-amd64).
 * A JDK that is absent skips its tests with a message saying where it was looked for.
 * {@link #withCollectors()} pairs each with the collectors whose references the recorder reads
 * differently: G1 (plain addresses; the default) and ZGC (coloured, on JDK 25 in a form of
 * their own, see native-recorder/src/vmstructs.h).
 */
public final class Jdks {

    private Jdks() {
    }

    /** Test parameter: a label and a java home. */
    public record Jdk(String label, Path home) {
        public Path java() {
            return home.resolve("bin/java");
        }

        /** The feature version (17, 25, ...), from the JDK's {@code release} file. */
        public int feature() throws IOException {
            Properties release = new Properties();
            try (var in = Files.newInputStream(home.resolve("release"))) {
                release.load(in);
            }
            String v = release.getProperty("JAVA_VERSION", "\"17\"").replace("\"", "");
            return Integer.parseInt(v.split("[.+-]")[0]);
        }

        /** Skips the calling test, with a message, if this JDK is not installed. */
        public void assumePresent() {
            assumeTrue(Files.isExecutable(java()), () -> label + " not found at " + home + ": skipped (set -D"
                    + "convoy.test.jdk25=JAVA_HOME to test another install)");
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /** The collectors of {@link #withCollectors()}, as JVM options. */
    public static final List<String> COLLECTORS = List.of("-XX:+UseG1GC", "-XX:+UseZGC");

    /** Every JDK of {@link #all()} with every collector of {@link #COLLECTORS}: (Jdk, option). */
    public static Stream<Arguments> withCollectors() {
        List<Arguments> out = new ArrayList<>();
        for (Jdk jdk : all().toList()) {
            for (String gc : COLLECTORS) {
                out.add(Arguments.of(jdk, gc));
            }
        }
        return out.stream();
    }

    public static Stream<Jdk> all() {
        Map<String, Jdk> jdks = new LinkedHashMap<>();
        Path current = Paths.get(System.getProperty("java.home"));
        jdks.put(current.toString(), new Jdk("JDK " + Runtime.version().feature() + " (build JDK)", current));
        Path jdk25 = Paths.get(System.getProperty("convoy.test.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));
        jdks.putIfAbsent(jdk25.toString(), new Jdk("Temurin 25", jdk25));
        return jdks.values().stream();
    }
}
