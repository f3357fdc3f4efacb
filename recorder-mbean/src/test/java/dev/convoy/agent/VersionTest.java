package dev.convoy.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Convoy's one version ({@link ConvoyAgent#VERSION}) is the Maven project's, as the build passes
 * it to this test ({@code convoy.project.version}); the recordings get it from there
 * ({@code VersionIT}: the snapshot's INFO, the MBean and the web view agree).
 */
class VersionTest {

    @Test
    void theVersionIsTheMavenProjects() {
        String project = System.getProperty("convoy.project.version");
        assertEquals(false, project == null || project.isEmpty(), "the build passes the project's version");
        assertEquals(project, ConvoyAgent.VERSION);
    }
}
