package dev.convoy.agent.bci;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The park hook: rewrites {@code java.util.concurrent.locks.LockSupport} (and no other class)
 * so that each {@code park*} method calls {@code dev.convoy.probes.Probes} at its entry and at
 * each of its exits, and {@code unpark} at its entry:
 *
 * <pre>
 * park(Object blocker) / park()                   (blocker-less overloads: b = getBlocker(currentThread()))
 *   b = blocker; owner = b instanceof AbstractOwnableSynchronizer ? b.getExclusiveOwnerThread() : null
 *   token = Probes.parkBegin(b, owner)            | parkNanosBegin(b, owner, nanos) | parkUntilBegin(b, owner, deadline)
 *   try { original body; at each return: Probes.parkEnd(token, b, 0 | nanos) | parkUntilEnd(token, b, deadline) }
 *   catch (Throwable t) { the same end call; throw t; }
 * unpark(Thread thread)
 *   Probes.unpark(thread); original body
 * </pre>
 *
 * The exclusive owner is read inline, in LockSupport's own code: LockSupport and
 * {@code AbstractOwnableSynchronizer} share their package, so its protected final
 * {@code getExclusiveOwnerThread()} is accessible there (a field load once inlined), and no
 * package of java.base has to be opened to anyone. The blocker, timeout and token live in
 * locals past the method's own; frames are computed by ASM ({@link #commonSuperClass}
 * answers from the boot loader's classes, all java.base).
 *
 * <p>Retransform-capable and kept registered: when any agent retransforms or redefines
 * LockSupport, the JVM runs this transformer again and the hook is re-applied. Bytes that
 * already call Probes (an agent redefining with the current, hooked bytes) are left as they
 * are. Any failure returns null (the class keeps the bytes it is given: no parks recorded),
 * is counted and printed once per failure on stderr.
 */
public final class ParkTransformer implements ClassFileTransformer {

    static final String LOCK_SUPPORT = "java/util/concurrent/locks/LockSupport";
    private static final String AOS = "java/util/concurrent/locks/AbstractOwnableSynchronizer";
    private static final String PROBES = ContentionTransformer.PROBES;

    private enum Kind { PARK, NANOS, UNTIL, UNPARK }

    /** The hooked methods: name + descriptor to their kind. */
    private static final Map<String, Kind> METHODS = Map.of(
            "park()V", Kind.PARK,
            "park(Ljava/lang/Object;)V", Kind.PARK,
            "parkNanos(J)V", Kind.NANOS,
            "parkNanos(Ljava/lang/Object;J)V", Kind.NANOS,
            "parkUntil(J)V", Kind.UNTIL,
            "parkUntil(Ljava/lang/Object;J)V", Kind.UNTIL,
            "unpark(Ljava/lang/Thread;)V", Kind.UNPARK);

    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong applied = new AtomicLong();
    private volatile String lastFailure;

    /** Transforms of LockSupport that failed (it kept the bytes it had: no parks recorded). */
    public long failures() {
        return failures.get();
    }

    /** Times the hook was applied (1 after start; more when LockSupport was retransformed). */
    public long applied() {
        return applied.get();
    }

    /** The last failure, or null. */
    public String lastFailure() {
        return lastFailure;
    }

    void countFailure(Throwable t) {
        failures.incrementAndGet();
        lastFailure = LOCK_SUPPORT.replace('/', '.') + ": " + t;
        System.err.println("[convoy] parks are not recorded: LockSupport could not be instrumented: " + t);
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> classBeingRedefined,
                            ProtectionDomain protectionDomain, byte[] classfileBuffer) {
        if (loader != null || !LOCK_SUPPORT.equals(className)) {
            return null;
        }
        try {
            byte[] out = rewrite(classfileBuffer);
            if (out != null) {
                applied.incrementAndGet();
            }
            return out;
        } catch (Throwable t) {
            countFailure(t);
            return null;
        }
    }

    /**
     * LockSupport's bytes with the hook, or null if they already call Probes.
     *
     * @throws IllegalStateException if a hooked method is missing (another JDK's LockSupport)
     */
    static byte[] rewrite(byte[] bytes) {
        ClassReader reader = new ClassReader(bytes);
        if (callsProbes(reader, bytes)) {
            return null;
        }
        Map<String, Integer> maxLocals = new HashMap<>();
        reader.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exc) {
                String key = name + desc;
                if (!METHODS.containsKey(key) || (access & Opcodes.ACC_STATIC) == 0) {
                    return null;
                }
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMaxs(int maxStack, int locals) {
                        maxLocals.put(key, locals);
                    }
                };
            }
        }, ClassReader.SKIP_FRAMES | ClassReader.SKIP_DEBUG);
        if (!maxLocals.keySet().equals(METHODS.keySet())) {
            throw new IllegalStateException("LockSupport lacks static methods to hook: found " + maxLocals.keySet());
        }
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
            @Override
            protected String getCommonSuperClass(String a, String b) {
                return commonSuperClass(a, b);
            }
        };
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exc) {
                MethodVisitor mv = super.visitMethod(access, name, desc, sig, exc);
                Kind kind = (access & Opcodes.ACC_STATIC) != 0 ? METHODS.get(name + desc) : null;
                return kind == null ? mv : new Hook(mv, kind, desc.startsWith("(Ljava/lang/Object;"),
                        maxLocals.get(name + desc));
            }
        }, ClassReader.SKIP_FRAMES);
        return writer.toByteArray();
    }

    /** Whether the constant pool already names Probes (bytes hooked before). */
    private static boolean callsProbes(ClassReader reader, byte[] b) {
        char[] buf = new char[reader.getMaxStringLength()];
        for (int i = 1; i < reader.getItemCount(); i++) {
            int off = reader.getItem(i);
            if (off != 0 && b[off - 1] == 7 && PROBES.equals(reader.readUTF8(off, buf))) { // CONSTANT_Class
                return true;
            }
        }
        return false;
    }

    /** The nearest common superclass of two classes of java.base (the only ones LockSupport's frames name). */
    static String commonSuperClass(String a, String b) {
        if (a.equals(b)) {
            return a;
        }
        if (a.equals("java/lang/Object") || b.equals("java/lang/Object")) {
            return "java/lang/Object";
        }
        try {
            Class<?> ca = Class.forName(a.replace('/', '.'), false, null);
            Class<?> cb = Class.forName(b.replace('/', '.'), false, null);
            if (ca.isInterface() || cb.isInterface()) {
                return "java/lang/Object";
            }
            for (Class<?> c = ca; c != null; c = c.getSuperclass()) {
                if (c.isAssignableFrom(cb)) {
                    return c.getName().replace('.', '/');
                }
            }
            return "java/lang/Object";
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("cannot compute the frames of LockSupport: " + a + " or " + b
                    + " is not a class of the boot loader", e);
        }
    }

    /** The hook in one method; its locals start at the method's own max locals. */
    private static final class Hook extends MethodVisitor {
        private final Kind kind;
        private final boolean blockerArg;
        private final int blocker;
        private final int time;
        private final int token;
        private final Label start = new Label();
        private final Label end = new Label();

        Hook(MethodVisitor mv, Kind kind, boolean blockerArg, int firstFree) {
            super(Opcodes.ASM9, mv);
            this.kind = kind;
            this.blockerArg = blockerArg;
            this.blocker = firstFree;
            this.time = firstFree + 1;
            this.token = firstFree + 3;
        }

        @Override
        public void visitCode() {
            super.visitCode();
            if (kind == Kind.UNPARK) {
                super.visitVarInsn(Opcodes.ALOAD, 0);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, PROBES, "unpark", "(Ljava/lang/Thread;)V", false);
                return;
            }
            if (blockerArg) {
                super.visitVarInsn(Opcodes.ALOAD, 0);
            } else {
                super.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/Thread", "currentThread",
                        "()Ljava/lang/Thread;", false);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, LOCK_SUPPORT, "getBlocker",
                        "(Ljava/lang/Thread;)Ljava/lang/Object;", false);
            }
            super.visitVarInsn(Opcodes.ASTORE, blocker);
            if (kind != Kind.PARK) {
                super.visitVarInsn(Opcodes.LLOAD, blockerArg ? 1 : 0);
                super.visitVarInsn(Opcodes.LSTORE, time);
            }
            super.visitVarInsn(Opcodes.ALOAD, blocker);
            // owner = blocker instanceof AbstractOwnableSynchronizer ? getExclusiveOwnerThread() : null
            Label none = new Label();
            Label owner = new Label();
            super.visitVarInsn(Opcodes.ALOAD, blocker);
            super.visitTypeInsn(Opcodes.INSTANCEOF, AOS);
            super.visitJumpInsn(Opcodes.IFEQ, none);
            super.visitVarInsn(Opcodes.ALOAD, blocker);
            super.visitTypeInsn(Opcodes.CHECKCAST, AOS);
            super.visitMethodInsn(Opcodes.INVOKEVIRTUAL, AOS, "getExclusiveOwnerThread", "()Ljava/lang/Thread;", false);
            super.visitJumpInsn(Opcodes.GOTO, owner);
            super.visitLabel(none);
            super.visitInsn(Opcodes.ACONST_NULL);
            super.visitLabel(owner);
            switch (kind) {
                case PARK -> super.visitMethodInsn(Opcodes.INVOKESTATIC, PROBES, "parkBegin",
                        "(Ljava/lang/Object;Ljava/lang/Thread;)J", false);
                case NANOS -> {
                    super.visitVarInsn(Opcodes.LLOAD, time);
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, PROBES, "parkNanosBegin",
                            "(Ljava/lang/Object;Ljava/lang/Thread;J)J", false);
                }
                default -> {
                    super.visitVarInsn(Opcodes.LLOAD, time);
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, PROBES, "parkUntilBegin",
                            "(Ljava/lang/Object;Ljava/lang/Thread;J)J", false);
                }
            }
            super.visitVarInsn(Opcodes.LSTORE, token);
            super.visitLabel(start);
        }

        private void end() {
            super.visitVarInsn(Opcodes.LLOAD, token);
            super.visitVarInsn(Opcodes.ALOAD, blocker);
            switch (kind) {
                case PARK -> {
                    super.visitInsn(Opcodes.LCONST_0);
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, PROBES, "parkEnd", "(JLjava/lang/Object;J)V", false);
                }
                case NANOS -> {
                    super.visitVarInsn(Opcodes.LLOAD, time);
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, PROBES, "parkEnd", "(JLjava/lang/Object;J)V", false);
                }
                default -> {
                    super.visitVarInsn(Opcodes.LLOAD, time);
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, PROBES, "parkUntilEnd", "(JLjava/lang/Object;J)V",
                            false);
                }
            }
        }

        @Override
        public void visitInsn(int opcode) {
            if (kind != Kind.UNPARK && opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN) {
                end();
            }
            super.visitInsn(opcode);
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            if (kind != Kind.UNPARK) {
                Label handler = new Label();
                super.visitLabel(end);
                super.visitLabel(handler);
                end();
                super.visitInsn(Opcodes.ATHROW);
                super.visitTryCatchBlock(start, end, handler, null);
            }
            super.visitMaxs(maxStack, maxLocals);
        }
    }
}
