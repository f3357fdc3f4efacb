package dev.convoy.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import org.junit.jupiter.api.Test;

/**
 * What the shaded agent jar holds: Convoy's classes and its relocated dependencies under
 * {@code dev/convoy/}, and {@code META-INF/}; nothing of the test dependencies (Selenium, JUnit,
 * Awaitility, the test apps, exporters' test fixtures), nothing unrelocated that could clash
 * with the application.
 */
class AgentJarIT {

    @Test
    void onlyConvoyClassesAndNoTestDependency() throws Exception {
        try (JarFile jar = new JarFile(ChildJvm.agentJar().toFile())) {
            List<String> names = jar.stream().map(ZipEntry::getName).toList();
            assertTrue(names.contains("dev/convoy/agent/Agent.class"), "the agent itself");
            List<String> foreign = names.stream()
                    .filter(n -> !n.startsWith("dev/convoy/") && !n.startsWith("META-INF/") && !n.equals("dev/"))
                    .toList();
            assertEquals(List.of(), foreign, "entries outside dev/convoy/ and META-INF/");
            List<String> testOnly = names.stream()
                    .filter(n -> n.matches("(?i).*(openqa|selenium|junit|awaitility|hamcrest|opentelemetry|bytebuddy"
                            + "|/testapps/|dev/convoy/testing/).*"))
                    .toList();
            assertEquals(List.of(), testOnly, "test dependencies in the agent jar");
            assertEquals(System.getProperty("convoy.project.version"),
                    jar.getManifest().getMainAttributes().getValue("Implementation-Version"), "the project's version");
        }
    }
}
