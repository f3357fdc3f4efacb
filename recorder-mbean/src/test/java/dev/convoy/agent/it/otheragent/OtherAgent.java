package dev.convoy.agent.it.otheragent;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Another Java agent, as a user may run next to Convoy: it rewrites
 * {@code java.util.concurrent.locks.LockSupport} with its own retransform-capable transformer
 * (ASM: a call of {@link ParkCounts#count()} at the entry of {@code park()} and
 * {@code park(Object)}) and retransforms the class, at start-up ({@code premain}) or attached
 * ({@code agentmain}). Prints {@value #INSTALLED} with how many times it rewrote the class and
 * whether the bytes it was given already called Convoy's probes; at exit, the per-thread counts
 * ({@link ParkCounts#report()}).
 *
 * <p>Packaged at test time by {@code ParkRetransformIT}, with ASM inside and {@link ParkCounts}
 * in a jar of its own on the boot class path.
 */
public final class OtherAgent {

    public static final String INSTALLED = "OTHER-AGENT installed";
    private static final String LOCK_SUPPORT = "java/util/concurrent/locks/LockSupport";
    private static final String COUNTS = ParkCounts.class.getName().replace('.', '/');

    private OtherAgent() {
    }

    public static void premain(String args, Instrumentation inst) throws Exception {
        install(inst);
    }

    public static void agentmain(String args, Instrumentation inst) throws Exception {
        install(inst);
    }

    private static void install(Instrumentation inst) throws Exception {
        if (ParkCounts.class.getClassLoader() != null) {
            throw new IllegalStateException("ParkCounts is not on the boot class path");
        }
        Module javaBase = Object.class.getModule();
        inst.redefineModule(javaBase, Set.of(ParkCounts.class.getModule()), Map.of(), Map.of(), Set.of(), Map.of());
        ParkCounts.link();
        Counting counting = new Counting();
        inst.addTransformer(counting, true);
        inst.retransformClasses(LockSupport.class);
        if (counting.rewritten == 0) {
            throw new IllegalStateException("LockSupport was not rewritten");
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println(ParkCounts.report());
            System.out.flush();
        }, "other-agent-report"));
        System.out.println(INSTALLED + " rewritten=" + counting.rewritten + " sawConvoyHook=" + counting.sawConvoyHook);
        System.out.flush();
    }

    /** Inserts {@code ParkCounts.count()} at the entry of LockSupport's untimed parks. */
    static final class Counting implements ClassFileTransformer {
        volatile int rewritten;
        volatile boolean sawConvoyHook;

        @Override
        public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain pd,
                                byte[] bytes) {
            if (loader != null || !LOCK_SUPPORT.equals(className)) {
                return null;
            }
            try {
                ClassReader reader = new ClassReader(bytes);
                ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
                reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
                    @Override
                    public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exc) {
                        MethodVisitor mv = super.visitMethod(access, name, desc, sig, exc);
                        boolean untimedPark = (access & Opcodes.ACC_STATIC) != 0 && name.equals("park")
                                && (desc.equals("()V") || desc.equals("(Ljava/lang/Object;)V"));
                        return !untimedPark ? mv : new MethodVisitor(Opcodes.ASM9, mv) {
                            @Override
                            public void visitCode() {
                                super.visitCode();
                                super.visitMethodInsn(Opcodes.INVOKESTATIC, COUNTS, "count", "()V", false);
                            }
                        };
                    }
                }, 0);
                sawConvoyHook = new String(bytes, StandardCharsets.ISO_8859_1).contains("dev/convoy/probes/Probes");
                rewritten++;
                return writer.toByteArray();
            } catch (Throwable t) {
                t.printStackTrace();
                return null;
            }
        }
    }
}
