package dev.convoy.agent.it;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;

import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import org.awaitility.Awaitility;

/** The JVM's standard remote JMX agent on loopback, as JConsole reaches it, for child JVMs. */
final class RemoteJmx {

    final int port;

    private RemoteJmx(int port) {
        this.port = port;
    }

    /** A free loopback port (a race with other processes is possible but harmless here). */
    static RemoteJmx onFreePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return new RemoteJmx(s.getLocalPort());
        }
    }

    /** JVM arguments that start the remote JMX agent on 127.0.0.1 without authentication. */
    List<String> jvmArgs() {
        return List.of(
                "-Dcom.sun.management.jmxremote.port=" + port,
                "-Dcom.sun.management.jmxremote.rmi.port=" + port,
                "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                "-Djava.rmi.server.hostname=127.0.0.1",
                "-Dcom.sun.management.jmxremote.authenticate=false",
                "-Dcom.sun.management.jmxremote.ssl=false");
    }

    /** Connects with javax.management only, waiting (bounded) for the child's agent to listen. */
    JMXConnector connect() throws IOException {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
        return Awaitility.await("JMX connection on port " + port).atMost(Duration.ofSeconds(30))
                .ignoreExceptions().until(() -> JMXConnectorFactory.connect(url), x -> x != null);
    }
}
