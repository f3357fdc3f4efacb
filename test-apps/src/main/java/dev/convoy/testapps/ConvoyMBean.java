package dev.convoy.testapps;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Convoy's MBean in this JVM, reached through plain JMX by name: the test apps do not depend on
 * the agent's classes. Every failure of a call is an {@link IllegalStateException} that names
 * the attribute or operation.
 */
public final class ConvoyMBean {

    /** The MBean's object name. */
    public static final String NAME = "dev.convoy:type=Recorder";

    private final MBeanServer server;
    private final ObjectName name;

    private ConvoyMBean(MBeanServer server, ObjectName name) {
        this.server = server;
        this.name = name;
    }

    /** The MBean, or null if no Convoy agent runs in this JVM. */
    public static ConvoyMBean find() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = objectName();
        return server.isRegistered(name) ? new ConvoyMBean(server, name) : null;
    }

    /** The MBean's {@link ObjectName}. */
    public static ObjectName objectName() {
        try {
            return new ObjectName(NAME);
        } catch (JMException e) {
            throw new IllegalStateException(NAME, e);
        }
    }

    public Object attribute(String attribute) {
        try {
            return server.getAttribute(name, attribute);
        } catch (JMException e) {
            throw new IllegalStateException("reading " + attribute + " of " + NAME + ": " + e, e);
        }
    }

    public long longAttribute(String attribute) {
        return ((Number) attribute(attribute)).longValue();
    }

    /** Calls an operation whose parameters are all strings. */
    public Object invoke(String operation, String... args) {
        String[] signature = new String[args.length];
        Arrays.fill(signature, String.class.getName());
        try {
            return server.invoke(name, operation, args, signature);
        } catch (JMException e) {
            throw new IllegalStateException("calling " + operation + " of " + NAME + ": " + e, e);
        }
    }
}
