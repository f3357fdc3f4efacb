package dev.convoy.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;
import java.util.Properties;

import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;

/**
 * A running JVM on this machine, attached through the Attach API, with its platform MBean
 * server reached over the local JMX connector ({@link VirtualMachine#startLocalManagementAgent}).
 *
 * <p>Before attaching, the pid is checked to be a JVM this user may attach to: on Linux the
 * Attach API signals the target with SIGQUIT to wake its attach listener, and SIGQUIT kills a
 * process that is not a JVM, so an unknown process is never attached to.
 */
final class TargetJvm implements AutoCloseable {

    /** The system property in which a failed {@code agentmain} leaves its reason. */
    static final String ATTACH_ERROR_PROPERTY = "convoy.attach.error";

    private final long pid;
    private final VirtualMachine vm;
    private JMXConnector connector;
    private MBeanServerConnection connection;

    private TargetJvm(long pid, VirtualMachine vm) {
        this.pid = pid;
        this.vm = vm;
    }

    long pid() {
        return pid;
    }

    /**
     * Attaches to the JVM with this pid.
     *
     * @throws CliException naming the reason: no such process, not a JVM, another user's JVM,
     *         attach disabled, no answer
     */
    static TargetJvm attach(long pid) throws CliException {
        check(pid);
        try {
            return new TargetJvm(pid, VirtualMachine.attach(Long.toString(pid)));
        } catch (AttachNotSupportedException e) {
            String m = String.valueOf(e.getMessage());
            if (m.contains("does not support the attach mechanism")) {
                throw CliException.failed("the JVM with pid " + pid + " refuses to be attached to: it was started "
                        + "with -XX:+DisableAttachMechanism (restart it without that option, or with "
                        + "-javaagent:convoy-agent.jar to record from the start)", e);
            }
            throw CliException.failed("cannot attach to pid " + pid + ": " + m + " (is it a HotSpot JVM? a JVM "
                    + "started with -Xrs, or still starting, does not answer)", e);
        } catch (IOException e) {
            throw CliException.failed("cannot attach to pid " + pid + ": " + e.getMessage(), e);
        }
    }

    /**
     * Refuses, before any signal is sent, a pid that is this process, no process, a process
     * that is not a JVM, or another user's process (unless this user is root).
     */
    static void check(long pid) throws CliException {
        if (pid == ProcessHandle.current().pid()) {
            throw CliException.failed("pid " + pid + " is this convoy command itself; ./convoy list shows the "
                    + "other JVMs");
        }
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        if (process.isEmpty() || !process.get().isAlive()) {
            throw noSuchJvm(pid);
        }
        boolean listed = VirtualMachine.list().stream().anyMatch(d -> d.id().equals(Long.toString(pid)));
        String me = System.getProperty("user.name");
        Optional<String> owner = process.get().info().user();
        if (owner.isPresent() && !owner.get().equals(me) && !"root".equals(me)) {
            throw CliException.failed("cannot attach to pid " + pid + ": it runs as user " + owner.get()
                    + " and you are " + me + "; the Attach API only lets a user attach to its own JVMs: run "
                    + "./convoy as " + owner.get());
        }
        if (listed) {
            return;
        }
        // Not advertised (another user, -XX:-UsePerfData, -XX:+DisableAttachMechanism) or no JVM at all.
        Path maps = Paths.get("/proc", Long.toString(pid), "maps");
        if (!Files.isDirectory(Paths.get("/proc/self"))) {
            throw CliException.failed("pid " + pid + " is not a JVM that accepts attaching (" + command(process.get())
                    + "); ./convoy list shows them");
        }
        boolean jvm;
        try (BufferedReader r = Files.newBufferedReader(maps, StandardCharsets.ISO_8859_1)) {
            // procfs reports size 0: read it as a stream, never by its size
            jvm = r.lines().anyMatch(l -> l.endsWith("/libjvm.so"));
        } catch (NoSuchFileException e) {
            throw noSuchJvm(pid);
        } catch (AccessDeniedException e) {
            if (owner.isPresent() && !owner.get().equals(me)) {
                throw CliException.failed("cannot attach to pid " + pid + ": it runs as user " + owner.get()
                        + " and you are " + me + "; run ./convoy as " + owner.get());
            }
            throw CliException.failed("cannot tell whether pid " + pid + " (" + command(process.get())
                    + ") is a JVM: reading " + maps + " is not permitted; ./convoy list shows the JVMs");
        } catch (IOException | UncheckedIOException e) {
            throw CliException.failed("cannot inspect pid " + pid + ": " + e.getMessage(), e);
        }
        if (!jvm) {
            throw CliException.failed("pid " + pid + " is not a JVM (" + command(process.get())
                    + "); ./convoy list shows the JVMs");
        }
    }

    static CliException noSuchJvm(long pid) {
        return CliException.failed("no JVM with pid " + pid + "; ./convoy list shows them");
    }

    private static String command(ProcessHandle p) {
        return p.info().commandLine().or(() -> p.info().command()).orElse("command unknown");
    }

    /** The target's system properties. */
    Properties systemProperties() throws CliException {
        try {
            return vm.getSystemProperties();
        } catch (IOException e) {
            throw lost(e);
        }
    }

    /**
     * Loads the agent jar with these options into the target.
     *
     * @throws CliException with the agent's own reason (from {@value #ATTACH_ERROR_PROPERTY})
     *         if it failed to start
     */
    void loadAgent(Path agentJar, String options) throws CliException {
        try {
            vm.loadAgent(agentJar.toString(), options);
        } catch (AgentInitializationException e) {
            String reason = null;
            try {
                reason = vm.getSystemProperties().getProperty(ATTACH_ERROR_PROPERTY);
            } catch (IOException ignored) {
                // fall back to the Attach API's message
            }
            throw CliException.failed("Convoy failed to start in " + pid + ": "
                    + (reason != null ? reason : e.getMessage() + " (see the JVM's output for the reason)"), e);
        } catch (AgentLoadException e) {
            throw CliException.failed("pid " + pid + " could not load the agent " + agentJar + ": " + e.getMessage(),
                    e);
        } catch (IOException e) {
            throw lost(e);
        }
    }

    /** The target's platform MBean server over its local JMX connector, started if needed. */
    MBeanServerConnection mbeans() throws CliException {
        if (connection == null) {
            try {
                String address = vm.startLocalManagementAgent();
                connector = JMXConnectorFactory.connect(new JMXServiceURL(address));
                connection = connector.getMBeanServerConnection();
            } catch (IOException | RuntimeException e) {
                throw CliException.failed("cannot open a JMX connection to pid " + pid + ": " + e.getMessage(), e);
            }
        }
        return connection;
    }

    CliException lost(IOException e) {
        return CliException.failed("lost the connection to pid " + pid + " (did it exit?): " + e.getMessage(), e);
    }

    @Override
    public void close() {
        if (connector != null) {
            try {
                connector.close();
            } catch (IOException ignored) {
                // the target may have exited
            }
        }
        try {
            vm.detach();
        } catch (IOException ignored) {
            // the target may have exited
        }
    }
}
