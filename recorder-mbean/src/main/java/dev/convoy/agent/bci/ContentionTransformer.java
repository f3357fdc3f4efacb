package dev.convoy.agent.bci;

import java.lang.instrument.ClassFileTransformer;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Rewrites the call sites of contention analysis in application classes into calls of
 * {@code dev.convoy.probes.Probes}, with the receiver as first argument:
 *
 * <pre>
 * invokevirtual   Thread.start()V / interrupt()V / join()V / join(J)V / join(JI)V / join(Duration)Z
 * invokestatic    Thread.sleep(J)V / sleep(JI)V / sleep(Duration)V
 * invokevirtual|invokeinterface  X.notify()V / notifyAll()V / wait()V / wait(J)V / wait(JI)V
 *   --> invokestatic Probes.NAME((receiver type) + original arguments)
 * </pre>
 *
 * notify, notifyAll and wait are final in Object, so any owner (a class, an interface, an
 * array type) with that name and descriptor is Object's. Thread's methods may be named
 * with a Thread subclass as owner; {@link ThreadHierarchy} decides that without loading
 * classes. One invoke replaces another with the same stack effect, so the class is written
 * with {@code COMPUTE_MAXS} and its stack map frames stay valid (no {@code COMPUTE_FRAMES},
 * which would load classes).
 *
 * <p>Never instrumented: classes of the boot and platform loaders (the JDK), Convoy's own
 * classes, hidden classes, classes of a loader that does not see the boot-loaded Probes
 * class (e.g. an OSGi bundle without boot delegation for it), and classes without a
 * matching call site (returned unchanged: null). Method references ({@code Thread::start})
 * and reflective calls are not call sites of the class and are not instrumented.
 *
 * <p><b>Odd shapes</b> (tested in {@code OddShapesTransformTest}). Code never grows: an
 * invokevirtual becomes an invokestatic of the same 3 bytes, an invokeinterface (5 bytes)
 * becomes a 3-byte invokestatic, and the alignment padding of a later switch can only take
 * up such a shrink. So a method at the 64 KiB code limit stays within it; ASM re-widens
 * jsr_w/goto_w whose offsets still need it. Class files of version 49 and below (jsr/ret
 * subroutines, no stack map frames) stay without frames; {@code COMPUTE_MAXS} follows
 * subroutines. Static, default and private interface methods and lambda bodies (javac's
 * {@code lambda$} methods) are rewritten like any other method; invokedynamic instructions
 * and their bootstrap arguments (e.g. the method handle of {@code Thread::start}) are kept.
 *
 * <p><b>Failures.</b> Any {@code Throwable} while transforming returns null (the original
 * bytes) and is counted in {@link #failures()}, the last one kept in {@link #lastFailure()}.
 * A class that cannot be written back within the class file's limits is such a failure, not
 * a skip: in practice a constant pool with no room for the entries naming the Probes method
 * (ASM's {@code ClassTooLargeException}); {@code MethodTooLargeException} would be too, though
 * by the above it cannot happen. A failure, because that class's events are missing from the
 * recording and its user must be able to see it; "skipped" (null, not counted) is only for
 * classes that are not eligible or have no call site.
 *
 * <p>While inactive ({@link #setActive}) every call returns null: retransforming a class
 * then gives it back its original bytes.
 */
public final class ContentionTransformer implements ClassFileTransformer {

    static final String PROBES = "dev/convoy/probes/Probes";
    static final String PROBES_CLASS = "dev.convoy.probes.Probes";

    /** Class name prefixes of Convoy itself (the agent jar), never instrumented. */
    private static final List<String> OWN_PACKAGES = List.of("dev/convoy/agent/", "dev/convoy/probes/",
            "dev/convoy/shaded/", "dev/convoy/cli/", "dev/convoy/export/", "dev/convoy/model/",
            "dev/convoy/snapshot/", "dev/convoy/analysis/");

    private static final Set<String> OBJECT_METHODS = Set.of("notify()V", "notifyAll()V", "wait()V", "wait(J)V",
            "wait(JI)V");
    private static final Set<String> THREAD_VIRTUAL = Set.of("start()V", "interrupt()V", "join()V", "join(J)V",
            "join(JI)V", "join(Ljava/time/Duration;)Z");
    private static final Set<String> THREAD_STATIC = Set.of("sleep(J)V", "sleep(JI)V", "sleep(Ljava/time/Duration;)V");
    private static final byte[][] NAMES = {utf8("start"), utf8("interrupt"), utf8("join"), utf8("sleep"),
            utf8("notify"), utf8("notifyAll"), utf8("wait")};

    private final Class<?> probes;
    private final ThreadHierarchy hierarchy = new ThreadHierarchy();
    private final Map<ClassLoader, Boolean> seesProbes = Collections.synchronizedMap(new WeakHashMap<>());
    /** Classes whose current bytes are instrumented, by defining loader. */
    private final Map<ClassLoader, Set<String>> instrumented = Collections.synchronizedMap(new WeakHashMap<>());
    private final AtomicLong failures = new AtomicLong();
    private volatile String lastFailure;
    private volatile boolean active = true;

    /**
     * @param probes the Probes class instrumented code must resolve to (the boot-loaded one
     *        in the agent); a class whose loader resolves another one is left alone
     */
    public ContentionTransformer(Class<?> probes) {
        this.probes = probes;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public void setActive(boolean on) {
        active = on;
    }

    public boolean isActive() {
        return active;
    }

    /** Transforms that failed (the class kept its original bytes). */
    public long failures() {
        return failures.get();
    }

    /** Counts a failure that happened outside {@link #transform} (a retransform). */
    void countFailure(String className, Throwable t) {
        failures.incrementAndGet();
        lastFailure = className + ": " + t;
    }

    /** The last failure, {@code "class: exception"}, or null. */
    public String lastFailure() {
        return lastFailure;
    }

    /** Classes whose loaded bytes are instrumented now. */
    public long instrumentedClasses() {
        synchronized (instrumented) {
            return instrumented.values().stream().mapToLong(Set::size).sum();
        }
    }

    /** Whether {@code className} of {@code loader} is instrumented now. */
    boolean isInstrumented(ClassLoader loader, String className) {
        synchronized (instrumented) {
            Set<String> s = instrumented.get(loader);
            return s != null && s.contains(className);
        }
    }

    /** Whether the class may be instrumented at all (not JDK, not Convoy, not hidden). */
    static boolean eligible(ClassLoader loader, String className) {
        if (loader == null || loader == ClassLoader.getPlatformClassLoader() || className == null) {
            return false;
        }
        if (className.contains("/0x") || className.contains("$$Lambda")) {
            return false; // hidden classes (lambda proxies call their host's method, which is instrumented)
        }
        for (String p : OWN_PACKAGES) {
            if (className.startsWith(p)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> classBeingRedefined,
                            ProtectionDomain protectionDomain, byte[] classfileBuffer) {
        try {
            byte[] out = active && eligible(loader, className) ? rewrite(loader, className, classfileBuffer) : null;
            if (loader != null && className != null) {
                mark(loader, className, out != null);
            }
            return out;
        } catch (Throwable t) {
            countFailure(className, t);
            if (loader != null && className != null) {
                mark(loader, className, false);
            }
            return null;
        }
    }

    private void mark(ClassLoader loader, String className, boolean on) {
        synchronized (instrumented) {
            if (on) {
                instrumented.computeIfAbsent(loader, l -> new HashSet<>()).add(className);
            } else {
                Set<String> s = instrumented.get(loader);
                if (s != null) {
                    s.remove(className);
                }
            }
        }
    }

    /** The rewritten class, or null if it has no call site to rewrite. */
    byte[] rewrite(ClassLoader loader, String className, byte[] bytes) {
        ClassReader reader = new ClassReader(bytes);
        if (!mentionsProbedName(reader, bytes) || !loaderSeesProbes(loader)) {
            return null;
        }
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        int[] rewritten = {0};
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String signature,
                                             String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, desc, signature, exceptions);
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String mName, String mDesc, boolean itf) {
                        String probe = probeDescriptor(loader, className, reader, opcode, owner, mName, mDesc);
                        if (probe == null) {
                            super.visitMethodInsn(opcode, owner, mName, mDesc, itf);
                        } else {
                            rewritten[0]++;
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, PROBES, mName, probe, false);
                        }
                    }
                };
            }
        }, 0);
        return rewritten[0] == 0 ? null : writer.toByteArray();
    }

    /** The Probes method's descriptor replacing this call, or null to keep it. */
    private String probeDescriptor(ClassLoader loader, String self, ClassReader selfBytes, int opcode, String owner,
                                   String name, String desc) {
        String key = name + desc;
        if ((opcode == Opcodes.INVOKEVIRTUAL || opcode == Opcodes.INVOKEINTERFACE) && OBJECT_METHODS.contains(key)) {
            return "(Ljava/lang/Object;" + desc.substring(1);
        }
        if (opcode == Opcodes.INVOKEVIRTUAL && THREAD_VIRTUAL.contains(key)
                && hierarchy.resolvesToThread(loader, owner, name, desc, false, self, selfBytes)) {
            return "(Ljava/lang/Thread;" + desc.substring(1);
        }
        if (opcode == Opcodes.INVOKESTATIC && THREAD_STATIC.contains(key)
                && hierarchy.resolvesToThread(loader, owner, name, desc, true, self, selfBytes)) {
            return desc;
        }
        return null;
    }

    /** Cheap pre-check: does the constant pool hold one of the probed method names at all? */
    static boolean mentionsProbedName(ClassReader reader, byte[] b) {
        for (int i = 1; i < reader.getItemCount(); i++) {
            int off = reader.getItem(i);
            if (off == 0 || b[off - 1] != 1) { // CONSTANT_Utf8
                continue;
            }
            int len = ((b[off] & 0xFF) << 8) | (b[off + 1] & 0xFF);
            for (byte[] n : NAMES) {
                if (n.length == len && java.util.Arrays.equals(b, off + 2, off + 2 + len, n, 0, len)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether code of {@code loader} resolves Probes to the class this transformer calls. */
    private boolean loaderSeesProbes(ClassLoader loader) {
        Boolean sees = seesProbes.get(loader);
        if (sees == null) {
            try {
                sees = Class.forName(PROBES_CLASS, false, loader) == probes;
            } catch (Throwable t) {
                sees = false;
            }
            seesProbes.put(loader, sees);
        }
        return sees;
    }
}
