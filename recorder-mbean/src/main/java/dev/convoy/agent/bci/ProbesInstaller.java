package dev.convoy.agent.bci;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;

import dev.convoy.agent.NativeRecorder;

/**
 * Defines {@code dev.convoy.probes.Probes} in the boot class loader and binds its native:
 * the class file (read from the agent jar) is defined with JNI DefineClass and no loader
 * ({@link NativeRecorder#defineBootClass}), then {@code record0} is bound, and only then its
 * {@code bound} flag is set (the early path ends).
 *
 * <p>Why not {@code Instrumentation.appendToBootstrapClassLoaderSearch}: appending to the
 * boot class path turns class data sharing off for application classes and makes the JVM
 * print a warning. A class defined in the boot loader is found the same way: class loaders
 * delegate parent-first, so every application loader resolves this boot copy (checked
 * here), not the copy the agent jar carries on the system class path. The agent itself
 * never names Probes in its code.
 */
final class ProbesInstaller {

    static final String RESOURCE = "/dev/convoy/probes/Probes.class";

    private ProbesInstaller() {
    }

    /**
     * @return the boot-loaded, bound Probes class
     * @throws IllegalStateException if any step fails (the message names it)
     */
    static Class<?> install() {
        Class<?> probes = bootProbes();
        if (probes == null) {
            try {
                probes = NativeRecorder.defineBootClass(ContentionTransformer.PROBES_CLASS.replace('.', '/'), classFile());
            } catch (LinkageError e) {
                probes = bootProbes(); // defined meanwhile by a concurrent switch
                if (probes == null) {
                    throw new IllegalStateException("cannot define " + ContentionTransformer.PROBES_CLASS
                            + " in the boot class loader: " + e, e);
                }
            }
        }
        try {
            Class<?> seen = Class.forName(ContentionTransformer.PROBES_CLASS, false, ClassLoader.getSystemClassLoader());
            if (seen != probes) {
                throw new IllegalStateException("the system class loader resolves " + ContentionTransformer.PROBES_CLASS
                        + " to a copy of its own, not the boot loader's");
            }
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the system class loader does not see the boot loader's "
                    + ContentionTransformer.PROBES_CLASS, e);
        }
        if (!isBound(probes)) {
            NativeRecorder.bindProbes(probes);
            try {
                Field bound = probes.getDeclaredField("bound");
                bound.setAccessible(true);
                bound.setBoolean(null, true);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalStateException("cannot switch " + ContentionTransformer.PROBES_CLASS
                        + " to its bound path: " + e, e);
            }
        }
        return probes;
    }

    private static boolean isBound(Class<?> probes) {
        try {
            return (Boolean) probes.getMethod("isBound").invoke(null);
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }

    private static Class<?> bootProbes() {
        try {
            return Class.forName(ContentionTransformer.PROBES_CLASS, true, null);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    private static byte[] classFile() {
        try (InputStream in = ProbesInstaller.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the agent jar does not contain " + RESOURCE + "; rebuild it with 'mvn package'");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + RESOURCE + " from the agent jar: " + e, e);
        }
    }
}
