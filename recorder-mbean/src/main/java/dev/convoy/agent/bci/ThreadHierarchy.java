package dev.convoy.agent.bci;

import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Decides, without loading classes, whether a method reference whose owner is not
 * {@code java/lang/Thread} (javac names the receiver's static type) still resolves to
 * Thread's method: the owner must be a subclass of Thread, and for a static method (sleep)
 * no class between the owner and Thread may declare one of the same name and descriptor
 * (it would hide Thread's). Super classes are read with ASM from the {@code .class}
 * resources of the class loader defining the call site (JDK classes included: their class
 * files are never encapsulated), and cached per loader.
 *
 * <p>Fallback: if a class file in the chain cannot be found or read (generated classes,
 * loaders that do not serve class files as resources), the answer is "no" and the call
 * site keeps its original instruction: no event, never a wrong call.
 */
final class ThreadHierarchy {

    static final String THREAD = "java/lang/Thread";
    private static final int MAX_DEPTH = 64;

    /** A class's super name and its declared methods named like Thread's probed ones. */
    private record Info(String superName, Set<String> declared) {
    }

    private static final Info MISSING = new Info(null, Set.of());

    private final Map<ClassLoader, Map<String, Info>> cache = Collections.synchronizedMap(new WeakHashMap<>());

    /**
     * Whether {@code owner.name desc} resolves to {@code java.lang.Thread}'s method for code
     * defined by {@code loader}. {@code self}/{@code selfBytes}: the class being transformed,
     * read from its bytes rather than from a resource.
     */
    boolean resolvesToThread(ClassLoader loader, String owner, String name, String desc, boolean isStatic,
                             String self, ClassReader selfBytes) {
        if (THREAD.equals(owner)) {
            return true;
        }
        if (owner.startsWith("[")) {
            return false;
        }
        String c = owner;
        for (int depth = 0; depth < MAX_DEPTH && c != null; depth++) {
            if (THREAD.equals(c)) {
                return true;
            }
            if ("java/lang/Object".equals(c)) {
                return false;
            }
            Info info = c.equals(self) ? read(selfBytes) : info(loader, c);
            if (info == MISSING) {
                return false;
            }
            if (isStatic && info.declared().contains(name + desc)) {
                return false; // hides Thread's static method
            }
            c = info.superName();
        }
        return false;
    }

    private Info info(ClassLoader loader, String name) {
        Map<String, Info> perLoader;
        synchronized (cache) {
            perLoader = cache.computeIfAbsent(loader, l -> Collections.synchronizedMap(new HashMap<>()));
        }
        Info info = perLoader.get(name);
        if (info == null) {
            info = load(loader, name);
            perLoader.put(name, info);
        }
        return info;
    }

    private static Info load(ClassLoader loader, String name) {
        String resource = name + ".class";
        try (InputStream in = loader != null ? loader.getResourceAsStream(resource)
                : ClassLoader.getSystemResourceAsStream(resource)) {
            if (in == null) {
                return MISSING;
            }
            return read(new ClassReader(in.readAllBytes()));
        } catch (IOException | RuntimeException e) {
            return MISSING;
        }
    }

    private static Info read(ClassReader reader) {
        Set<String> declared = new HashSet<>();
        reader.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String signature,
                                             String[] exceptions) {
                if (name.equals("sleep")) {
                    declared.add(name + desc);
                }
                return null;
            }
        }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return new Info(reader.getSuperName(), Set.copyOf(declared));
    }
}
