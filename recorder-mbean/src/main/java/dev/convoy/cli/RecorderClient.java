package dev.convoy.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.LinkedHashMap;
import java.util.Map;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.JMException;
import javax.management.MBeanException;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.ReflectionException;
import javax.management.RuntimeErrorException;
import javax.management.RuntimeMBeanException;
import javax.management.RuntimeOperationsException;

/**
 * The Convoy MBean ({@value #NAME}) of a target JVM, through plain {@code javax.management}
 * calls: attribute and operation names only, no class of the agent.
 */
final class RecorderClient {

    /** The MBean's name in the target's platform MBean server. */
    static final String NAME = "dev.convoy:type=Recorder";

    private static final ObjectName OBJECT_NAME;

    static {
        try {
            OBJECT_NAME = new ObjectName(NAME);
        } catch (MalformedObjectNameException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final TargetJvm target;
    private final MBeanServerConnection mbs;

    private RecorderClient(TargetJvm target, MBeanServerConnection mbs) {
        this.target = target;
        this.mbs = mbs;
    }

    /** Whether the target has the Convoy MBean, i.e. whether Convoy runs in it. */
    static boolean isLoaded(TargetJvm target) throws CliException {
        try {
            return target.mbeans().isRegistered(OBJECT_NAME);
        } catch (IOException e) {
            throw target.lost(e);
        }
    }

    /**
     * The MBean of a target in which Convoy runs.
     *
     * @throws CliException "Convoy is not loaded in PID" otherwise
     */
    static RecorderClient of(TargetJvm target) throws CliException {
        if (!isLoaded(target)) {
            throw CliException.failed("Convoy is not loaded in " + target.pid() + "; run ./convoy attach "
                    + target.pid() + " first");
        }
        return new RecorderClient(target, target.mbeans());
    }

    Object get(String attribute) throws CliException {
        try {
            return mbs.getAttribute(OBJECT_NAME, attribute);
        } catch (JMException | RuntimeException e) {
            throw failed("cannot read " + attribute, e);
        } catch (IOException e) {
            throw target.lost(e);
        }
    }

    /** The attributes that could be read, by name, in the order asked; unreadable ones are left out. */
    Map<String, Object> getAll(String... attributes) throws CliException {
        try {
            AttributeList list = mbs.getAttributes(OBJECT_NAME, attributes);
            Map<String, Object> values = new LinkedHashMap<>();
            for (Attribute a : list.asList()) {
                values.put(a.getName(), a.getValue());
            }
            return values;
        } catch (JMException | RuntimeException e) {
            throw failed("cannot read the recorder's attributes", e);
        } catch (IOException e) {
            throw target.lost(e);
        }
    }

    void set(String attribute, Object value) throws CliException {
        try {
            mbs.setAttribute(OBJECT_NAME, new Attribute(attribute, value));
        } catch (JMException | RuntimeException e) {
            throw failed("cannot set " + attribute + " to " + value, e);
        } catch (IOException e) {
            throw target.lost(e);
        }
    }

    Object invoke(String operation, Object[] params, String[] signature) throws CliException {
        try {
            return mbs.invoke(OBJECT_NAME, operation, params, signature);
        } catch (JMException | RuntimeException e) {
            throw failed(operation + " failed", e);
        } catch (IOException e) {
            throw target.lost(e);
        }
    }

    /**
     * Copies the stream {@code openStream(format)} into {@code out}, chunk by chunk, and
     * always closes it in the target.
     */
    void copyStream(String format, OutputStream out) throws CliException, IOException {
        long id = (Long) invoke("openStream", new Object[] {format}, new String[] {String.class.getName()});
        try {
            Object[] idParam = {id};
            String[] idSig = {long.class.getName()};
            byte[] chunk;
            while ((chunk = (byte[]) invoke("readStream", idParam, idSig)) != null) {
                out.write(chunk);
            }
        } finally {
            try {
                invoke("closeStream", new Object[] {id}, new String[] {long.class.getName()});
            } catch (CliException ignored) {
                // the stream is gone with the target, or was already closed at its end
            }
        }
    }

    private CliException failed(String what, Throwable e) {
        return CliException.failed(what + " in pid " + target.pid() + ": " + reason(e), e);
    }

    /** The message of the innermost meaningful cause: the MBean's own exception, not JMX's wrappers. */
    static String reason(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && (c instanceof MBeanException || c instanceof RuntimeMBeanException
                || c instanceof RuntimeOperationsException || c instanceof ReflectionException
                || c instanceof RuntimeErrorException || c instanceof UndeclaredThrowableException
                || c instanceof InvocationTargetException)) {
            c = c.getCause();
        }
        String m = c.getMessage();
        return m == null || m.isBlank() ? c.getClass().getName() : m;
    }
}
