package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The JDKs integration tests run on: the JDK running the build (17 by default) and
 * Temurin 25 at {@code -Dconvoy.test.jdk25} (default /usr/lib/jvm/temurin-25-jdk-amd64).
 * A JDK that is absent skips its tests with a message saying where it was looked for.
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

    public static Stream<Jdk> all() {
        Map<String, Jdk> jdks = new LinkedHashMap<>();
        Path current = Paths.get(System.getProperty("java.home"));
        jdks.put(current.toString(), new Jdk("JDK " + Runtime.version().feature() + " (build JDK)", current));
        Path jdk25 = Paths.get(System.getProperty("convoy.test.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));
        jdks.putIfAbsent(jdk25.toString(), new Jdk("Temurin 25", jdk25));
        return jdks.values().stream();
    }
}
