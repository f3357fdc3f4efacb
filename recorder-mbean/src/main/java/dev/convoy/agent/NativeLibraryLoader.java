package dev.convoy.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;

/**
 * Finds and loads {@code libconvoy.so}: the file named by the system property
 * {@code convoy.library} if set, otherwise the copy packaged in the agent jar, extracted
 * to {@code convoy.tmpdir} (default {@code java.io.tmpdir}) under a name derived from
 * its content, so JVMs of different Convoy versions never overwrite each other's copy.
 *
 * <p>On JDK 24 and later {@code System.load} from the class path prints a
 * restricted-method warning unless the user passed {@code --enable-native-access}; the
 * {@code Enable-Native-Access} manifest attribute is honoured for executable JARs only,
 * not for agent JARs. When the agent's {@link Instrumentation} is at hand, the library is
 * therefore loaded through {@code internal.LibraryTrampoline} (see there), and any
 * failure of that path falls back to {@code System.load}.
 */
final class NativeLibraryLoader {

    static final String RESOURCE = "/META-INF/native/linux-x86_64/libconvoy.so";
    static final String LIBRARY_PROPERTY = "convoy.library";
    static final String TMPDIR_PROPERTY = "convoy.tmpdir";

    private NativeLibraryLoader() {
    }

    static void load(Instrumentation inst) {
        String explicit = System.getProperty(LIBRARY_PROPERTY);
        if (explicit != null) {
            loadFile(inst, Paths.get(explicit), "-D" + LIBRARY_PROPERTY + "=" + explicit);
            return;
        }
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (!os.startsWith("Linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new IllegalStateException("Convoy's native recorder is built for Linux x86_64 only; this JVM runs on "
                    + os + " " + arch);
        }
        byte[] bytes;
        try (InputStream in = NativeLibraryLoader.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the agent jar does not contain " + RESOURCE
                        + "; rebuild it with 'mvn package' (the native-recorder module builds the library)");
            }
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + RESOURCE + " from the agent jar: " + e.getMessage(), e);
        }
        Path dir = Paths.get(System.getProperty(TMPDIR_PROPERTY, System.getProperty("java.io.tmpdir")));
        Path target;
        try {
            Files.createDirectories(dir);
            target = dir.resolve("libconvoy-" + shortHash(bytes) + ".so");
            if (!Files.exists(target) || Files.size(target) != bytes.length) {
                Path tmp = Files.createTempFile(dir, "libconvoy-", ".so.tmp");
                Files.write(tmp, bytes);
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot extract the native recorder to " + dir + ": " + e
                    + "; choose a writable directory with -D" + TMPDIR_PROPERTY + "=DIR", e);
        }
        loadFile(inst, target, "extracted to " + dir);
    }

    private static void loadFile(Instrumentation inst, Path file, String origin) {
        Throwable quietFailure = null;
        if (inst != null && wouldWarn()) {
            try {
                loadQuietly(inst, file);
                return;
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                quietFailure = e;
            }
        }
        try {
            System.load(file.toAbsolutePath().toString());
        } catch (UnsatisfiedLinkError e) {
            String hint = String.valueOf(e.getMessage()).contains("failed to map segment")
                    || String.valueOf(e.getMessage()).contains("operation not permitted")
                    ? "; the directory is probably mounted noexec: choose an executable one with -D"
                            + TMPDIR_PROPERTY + "=DIR"
                    : "; set -D" + TMPDIR_PROPERTY + "=DIR to extract elsewhere, or -D" + LIBRARY_PROPERTY
                            + "=FILE to load a library built by 'make' in native-recorder";
            IllegalStateException ex = new IllegalStateException(
                    "cannot load the native recorder " + file + " (" + origin + "): " + e.getMessage() + hint, e);
            if (quietFailure != null) {
                ex.addSuppressed(quietFailure);
            }
            throw ex;
        }
    }

    /** JDK 24+ warns on System.load unless native access is enabled for unnamed modules. */
    private static boolean wouldWarn() {
        if (Runtime.version().feature() < 24) {
            return false;
        }
        try {
            Method enabled = Module.class.getMethod("isNativeAccessEnabled");
            return !(Boolean) enabled.invoke(NativeLibraryLoader.class.getModule());
        } catch (ReflectiveOperationException e) {
            return true;
        }
    }

    private static void loadQuietly(Instrumentation inst, Path file) throws ReflectiveOperationException {
        URL codeSource = NativeLibraryLoader.class.getProtectionDomain().getCodeSource().getLocation();
        // A loader of its own: the trampoline's unnamed module is the only one java.lang opens to.
        @SuppressWarnings("resource") // stays open: the JVM may resolve the class again
        URLClassLoader isolated = new URLClassLoader(new URL[] {codeSource}, ClassLoader.getPlatformClassLoader());
        Class<?> trampoline = isolated.loadClass("dev.convoy.agent.internal.LibraryTrampoline");
        inst.redefineModule(Object.class.getModule(), Set.of(), Map.of(),
                Map.of("java.lang", Set.of(trampoline.getModule())), Set.of(), Map.of());
        trampoline.getMethod("load", Class.class, java.io.File.class)
                .invoke(null, NativeRecorder.class, file.toAbsolutePath().toFile());
    }

    private static String shortHash(byte[] bytes) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(bytes);
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("SHA-256 is always available", e);
        }
    }
}
