package dev.convoy.agent.bci;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.zip.ZipEntry;

import dev.convoy.agent.NativeRecorder;

/**
 * Puts {@code dev.convoy.probes.Probes} on the boot class path and binds its native: writes
 * a jar holding only {@code dev/convoy/probes/Probes.class} (read from the agent jar) into
 * the extraction directory of the native library ({@code -Dconvoy.tmpdir}, default
 * {@code java.io.tmpdir}; named by a hash of its content like {@code libconvoy-*.so}),
 * appends it with {@link Instrumentation#appendToBootstrapClassLoaderSearch}, loads the
 * class through the boot loader, binds {@code record0}, and only then sets its
 * {@code bound} flag (the early path ends).
 *
 * <p>The agent jar holds Probes.class too, on the system class path; class loaders delegate
 * parent-first, so once the boot loader finds it every application loader resolves the
 * boot one, which is checked here. The agent itself never names Probes in its code.
 */
final class ProbesInstaller {

    static final String RESOURCE = "/dev/convoy/probes/Probes.class";
    /** The property NativeLibraryLoader extracts the native library under. */
    static final String TMPDIR_PROPERTY = "convoy.tmpdir";

    private ProbesInstaller() {
    }

    /**
     * @return the boot-loaded, bound Probes class
     * @throws IllegalStateException if any step fails (the message names it)
     */
    static Class<?> install(Instrumentation inst) {
        Class<?> probes = bootProbes();
        if (probes == null) {
            Path jar = writeJar();
            try (JarFile jf = new JarFile(jar.toFile())) {
                inst.appendToBootstrapClassLoaderSearch(jf);
            } catch (IOException e) {
                throw new IllegalStateException("cannot open " + jar + " for the boot class path: " + e, e);
            }
            probes = bootProbes();
            if (probes == null) {
                throw new IllegalStateException("the boot class loader does not find " + ContentionTransformer.PROBES_CLASS
                        + " in " + jar);
            }
        }
        try {
            Class<?> seen = Class.forName(ContentionTransformer.PROBES_CLASS, false, ClassLoader.getSystemClassLoader());
            if (seen != probes) {
                throw new IllegalStateException("the system class loader resolves " + ContentionTransformer.PROBES_CLASS
                        + " to a copy of its own, not the boot class path's");
            }
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the system class loader does not see the boot class path", e);
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

    private static Path writeJar() {
        byte[] bytes;
        try (InputStream in = ProbesInstaller.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the agent jar does not contain " + RESOURCE + "; rebuild it with 'mvn package'");
            }
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + RESOURCE + " from the agent jar: " + e, e);
        }
        Path dir = Paths.get(System.getProperty(TMPDIR_PROPERTY, System.getProperty("java.io.tmpdir")));
        try {
            Files.createDirectories(dir);
            Path target = dir.resolve("convoy-probes-" + shortHash(bytes) + ".jar");
            if (!Files.exists(target)) {
                Path tmp = Files.createTempFile(dir, "convoy-probes-", ".jar.tmp");
                try (OutputStream os = Files.newOutputStream(tmp); JarOutputStream jar = new JarOutputStream(os)) {
                    ZipEntry e = new ZipEntry(RESOURCE.substring(1));
                    e.setTime(0);
                    jar.putNextEntry(e);
                    jar.write(bytes);
                    jar.closeEntry();
                }
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
            return target;
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the probes jar to " + dir + ": " + e
                    + "; choose a writable directory with -D" + TMPDIR_PROPERTY + "=DIR", e);
        }
    }

    private static String shortHash(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("SHA-256 is always available", e);
        }
    }
}
