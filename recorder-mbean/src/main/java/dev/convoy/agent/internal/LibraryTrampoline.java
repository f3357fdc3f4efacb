package dev.convoy.agent.internal;

import java.io.File;
import java.lang.reflect.Method;

/**
 * Loads a native library for a given class without going through {@code System.load},
 * so that JDK 24 and later print no restricted-method warning for the agent.
 *
 * <p>This class is loaded by a class loader of its own (see NativeLibraryLoader), so it
 * lives in an unnamed module that holds nothing else; the agent opens {@code java.lang}
 * to that module only, with {@code Instrumentation.redefineModule}. The application's
 * modules gain no access. The library's JNI_OnLoad registers the natives explicitly,
 * so binding them prints no warning either.
 */
public final class LibraryTrampoline {

    private LibraryTrampoline() {
    }

    /** Loads {@code file} into the class loader of {@code owner}. */
    public static void load(Class<?> owner, File file) throws ReflectiveOperationException {
        Method m = ClassLoader.class.getDeclaredMethod("loadLibrary", Class.class, File.class);
        m.setAccessible(true);
        if (m.invoke(null, owner, file) == null) {
            throw new UnsatisfiedLinkError("cannot load " + file);
        }
    }
}
