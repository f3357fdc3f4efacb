package dev.convoy.agent.bci;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.util.CheckClassAdapter;

import dev.convoy.bcifixtures.LambdaSites;
import dev.convoy.bcifixtures.Sleepy;
import dev.convoy.probes.Probes;

/**
 * The transformer on classes of odd shapes, each checked three ways: the output verifies
 * with ASM's {@link CheckClassAdapter} (data flow included), the probed call sites call
 * {@code dev/convoy/probes/Probes}, and the transformed class, defined in a fresh class
 * loader, behaves like the original (no natives are bound in a unit test JVM: the Probes
 * early path performs the original calls). The loading also runs the JVM's own verifier:
 * the type-checking one for classes with stack map frames, the type-inferring one for
 * class files of version 49 and below.
 *
 * <p>Shapes: class files of versions 45.3, 48 and 49 with jsr/ret subroutines and no stack
 * map frames; methods at the 64 KiB code limit (invokevirtual sites keep the size exactly,
 * invokeinterface sites shrink it, a far subroutine needs jsr_w); a constant pool that
 * cannot take the Probes entries (the class comes back unchanged and is a failure); an
 * interface with static, default and private methods, generated and compiled by javac; and
 * lambdas / method references / indy string concatenation compiled by javac.
 */
@Timeout(120)
class OddShapesTransformTest {

    private static final ClassLoader LOADER = OddShapesTransformTest.class.getClassLoader();
    private static final String GEN = "dev/convoy/bcifixtures/gen/";
    private static final String OBJECT = "java/lang/Object";
    private static final String THREAD = "java/lang/Thread";
    private static final int MAX_CODE = 65535;
    private static final int MAX_CONSTANT_POOL_COUNT = 65535;

    private final ContentionTransformer transformer = new ContentionTransformer(Probes.class);

    // ---------------------------------------------------------------- helpers

    /** Defines the given classes (binary name to bytes) itself, child-first; the rest comes from the test loader. */
    private static final class BytesLoader extends ClassLoader {
        private final Map<String, byte[]> classes;

        BytesLoader(Map<String, byte[]> classes) {
            super(LOADER);
            this.classes = classes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            byte[] b = classes.get(name);
            if (b == null) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                return c != null ? c : defineClass(name, b, 0, b.length);
            }
        }
    }

    private static BytesLoader loader(String internalName, byte[] bytes, Object... more) {
        Map<String, byte[]> m = new HashMap<>();
        m.put(internalName.replace('/', '.'), bytes);
        for (int i = 0; i < more.length; i += 2) {
            m.put(((String) more[i]).replace('/', '.'), (byte[]) more[i + 1]);
        }
        return new BytesLoader(m);
    }

    private static String internal(Class<?> c) {
        return c.getName().replace('.', '/');
    }

    private static byte[] resource(Class<?> c) throws IOException {
        try (InputStream in = LOADER.getResourceAsStream(internal(c) + ".class")) {
            return in.readAllBytes();
        }
    }

    private byte[] transform(String internalName, byte[] bytes) {
        return transformer.transform(LOADER, internalName, null, null, bytes);
    }

    /** CheckClassAdapter's report on the class (empty: it verifies); {@code loader} resolves the types it names. */
    private static String verify(byte[] classBytes, ClassLoader loader) {
        StringWriter out = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(classBytes), loader, false, new PrintWriter(out));
        return out.toString();
    }

    /** One method instruction: the method it is in, opcode, owner, name, descriptor, owner is an interface. */
    private record Call(String method, int opcode, String owner, String name, String desc, boolean itf) {
        boolean probe() {
            return owner.equals(ContentionTransformer.PROBES);
        }
    }

    private static List<Call> calls(byte[] classBytes) {
        List<Call> calls = new ArrayList<>();
        new ClassReader(classBytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
                String method = name + desc;
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMethodInsn(int op, String owner, String n, String d, boolean itf) {
                        calls.add(new Call(method, op, owner, n, d, itf));
                    }
                };
            }
        }, 0);
        return calls;
    }

    private static long probeCalls(byte[] classBytes) {
        List<Call> calls = calls(classBytes);
        for (Call c : calls) {
            if (c.probe()) {
                assertEquals(Opcodes.INVOKESTATIC, c.opcode(), c.toString());
                assertFalse(c.itf(), "Probes is a class: " + c);
            }
        }
        return calls.stream().filter(Call::probe).count();
    }

    /** Probed call sites left in the class (they must all have become Probes calls). */
    private static List<Call> unprobed(byte[] classBytes) {
        List<String> probed = List.of("notify()V", "notifyAll()V", "wait()V", "wait(J)V", "wait(JI)V", "start()V",
                "join()V", "join(J)V", "sleep(J)V", "sleep(JI)V", "interrupt()V");
        return calls(classBytes).stream().filter(c -> !c.probe() && probed.contains(c.name() + c.desc())
                && (c.owner().equals(OBJECT) || c.owner().equals(THREAD) || c.opcode() == Opcodes.INVOKEINTERFACE))
                .toList();
    }

    /** Stack map frames in the class (read as-is). */
    private static int frames(byte[] classBytes) {
        int[] n = {0};
        new ClassReader(classBytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitFrame(int type, int numLocal, Object[] local, int numStack, Object[] stack) {
                        n[0]++;
                    }
                };
            }
        }, 0);
        return n[0];
    }

    private static int version(byte[] classBytes) {
        return ((classBytes[6] & 0xFF) << 8) | (classBytes[7] & 0xFF);
    }

    /** code_length of each method's Code attribute, by name + descriptor, read from the class file. */
    static Map<String, Integer> codeLengths(byte[] b) {
        ClassReader r = new ClassReader(b);
        char[] buf = new char[r.getMaxStringLength()];
        Map<String, Integer> lengths = new HashMap<>();
        int u = r.header + 6; // access_flags, this_class, super_class
        u += 2 + 2 * r.readUnsignedShort(u); // interfaces
        int fields = r.readUnsignedShort(u);
        u += 2;
        for (int f = 0; f < fields; f++) {
            int attrs = r.readUnsignedShort(u + 6);
            u += 8;
            for (int a = 0; a < attrs; a++) {
                u += 6 + r.readInt(u + 2);
            }
        }
        int methods = r.readUnsignedShort(u);
        u += 2;
        for (int m = 0; m < methods; m++) {
            String key = r.readUTF8(u + 2, buf) + r.readUTF8(u + 4, buf);
            int attrs = r.readUnsignedShort(u + 6);
            u += 8;
            for (int a = 0; a < attrs; a++) {
                if (r.readUTF8(u, buf).equals("Code")) {
                    lengths.put(key, r.readInt(u + 10)); // name u2, length u4, max_stack u2, max_locals u2
                }
                u += 6 + r.readInt(u + 2);
            }
        }
        return lengths;
    }

    private static Object invoke(Class<?> c, String name, Object target, Object... args) throws Throwable {
        for (Method m : c.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == args.length) {
                try {
                    return m.invoke(target, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
        }
        throw new NoSuchMethodException(c.getName() + "." + name);
    }

    private static String outcome(Class<?> c, String name, Object target, Object... args) {
        try {
            return String.valueOf(invoke(c, name, target, args));
        } catch (Throwable t) {
            return t.getClass().getSimpleName();
        }
    }

    /** The common checks: transformed, verifies, every probed site rewritten, same version, original verifies too. */
    private byte[] transformAndCheck(String name, byte[] original, ClassLoader verifyLoader, long probedSites) {
        assertEquals("", verify(original, verifyLoader), "the generated original verifies");
        byte[] out = transform(name, original);
        assertNotNull(out, name + " has call sites to rewrite (failure: " + transformer.lastFailure() + ")");
        assertEquals(0, transformer.failures(), transformer.lastFailure());
        assertEquals("", verify(out, verifyLoader), "the transformed class verifies");
        assertEquals(probedSites, probeCalls(out), "call sites now calling Probes");
        assertEquals(List.of(), unprobed(out), "probed call sites left");
        assertEquals(version(original), version(out), "class file version kept");
        assertEquals(calls(original).size(), calls(out).size(), "one invoke replaces one invoke");
        return out;
    }

    // ---------------------------------------------------------------- old class files: jsr/ret, no frames

    /**
     * Old javac's try/finally: the finally block is a subroutine entered with jsr from the
     * normal exit and from each handler, ending with ret. Probed calls in the protected
     * code, in a handler's path and in the subroutine itself.
     *
     * <pre>
     * static String run(Object lock, long millis)   // monitorenter; sleep, notify, wait(1) ... finally { notifyAll; monitorexit }
     * static String unheld(Object o)                // notify without the monitor, catch IMSE ... finally { sleep(0) }
     * static boolean startJoin(Thread t)            // start ... finally { join }
     * </pre>
     */
    static byte[] oldJsrClass(String name, int version) {
        ClassWriter cw = new ClassWriter(0);
        cw.visit(version, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, name, null, OBJECT, null);
        MethodVisitor init = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, OBJECT, "<init>", "()V", false);
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(1, 1);
        init.visitEnd();

        // run: locals 0 lock, 1-2 millis, 3 return address, 4 throwable, 5 result
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "run",
                "(Ljava/lang/Object;J)Ljava/lang/String;", null, null);
        mv.visitCode();
        Label start = new Label();
        Label end = new Label();
        Label interrupted = new Label();
        Label any = new Label();
        Label sub = new Label();
        mv.visitTryCatchBlock(start, end, interrupted, "java/lang/InterruptedException");
        mv.visitTryCatchBlock(start, end, any, null);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.MONITORENTER);
        mv.visitLabel(start);
        mv.visitVarInsn(Opcodes.LLOAD, 1);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, THREAD, "sleep", "(J)V", false);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, OBJECT, "notify", "()V", false);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.LCONST_1);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, OBJECT, "wait", "(J)V", false);
        mv.visitLdcInsn("ok");
        mv.visitVarInsn(Opcodes.ASTORE, 5);
        mv.visitJumpInsn(Opcodes.JSR, sub);
        mv.visitVarInsn(Opcodes.ALOAD, 5);
        mv.visitInsn(Opcodes.ARETURN);
        mv.visitLabel(end);
        mv.visitLabel(interrupted);
        mv.visitInsn(Opcodes.POP);
        mv.visitLdcInsn("interrupted");
        mv.visitVarInsn(Opcodes.ASTORE, 5);
        mv.visitJumpInsn(Opcodes.JSR, sub);
        mv.visitVarInsn(Opcodes.ALOAD, 5);
        mv.visitInsn(Opcodes.ARETURN);
        mv.visitLabel(any);
        mv.visitVarInsn(Opcodes.ASTORE, 4);
        mv.visitJumpInsn(Opcodes.JSR, sub);
        mv.visitVarInsn(Opcodes.ALOAD, 4);
        mv.visitInsn(Opcodes.ATHROW);
        mv.visitLabel(sub);
        mv.visitVarInsn(Opcodes.ASTORE, 3);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, OBJECT, "notifyAll", "()V", false);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.MONITOREXIT);
        mv.visitVarInsn(Opcodes.RET, 3);
        mv.visitMaxs(3, 6);
        mv.visitEnd();

        // unheld: locals 0 o, 1 result, 2 return address, 3 throwable
        mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "unheld", "(Ljava/lang/Object;)Ljava/lang/String;",
                null, null);
        mv.visitCode();
        start = new Label();
        end = new Label();
        Label imse = new Label();
        any = new Label();
        sub = new Label();
        mv.visitTryCatchBlock(start, end, imse, "java/lang/IllegalMonitorStateException");
        mv.visitTryCatchBlock(start, end, any, null);
        mv.visitLabel(start);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, OBJECT, "notify", "()V", false);
        mv.visitLdcInsn("no exception");
        mv.visitVarInsn(Opcodes.ASTORE, 1);
        mv.visitJumpInsn(Opcodes.JSR, sub);
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitInsn(Opcodes.ARETURN);
        mv.visitLabel(end);
        mv.visitLabel(imse);
        mv.visitInsn(Opcodes.POP);
        mv.visitLdcInsn("IllegalMonitorStateException");
        mv.visitVarInsn(Opcodes.ASTORE, 1);
        mv.visitJumpInsn(Opcodes.JSR, sub);
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitInsn(Opcodes.ARETURN);
        mv.visitLabel(any);
        mv.visitVarInsn(Opcodes.ASTORE, 3);
        mv.visitJumpInsn(Opcodes.JSR, sub);
        mv.visitVarInsn(Opcodes.ALOAD, 3);
        mv.visitInsn(Opcodes.ATHROW);
        mv.visitLabel(sub);
        mv.visitVarInsn(Opcodes.ASTORE, 2);
        mv.visitInsn(Opcodes.LCONST_0);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, THREAD, "sleep", "(J)V", false);
        mv.visitVarInsn(Opcodes.RET, 2);
        mv.visitMaxs(2, 4);
        mv.visitEnd();

        // startJoin: locals 0 t, 1 return address
        mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "startJoin", "(Ljava/lang/Thread;)Z", null, null);
        mv.visitCode();
        sub = new Label();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, THREAD, "start", "()V", false);
        mv.visitJumpInsn(Opcodes.JSR, sub);
        mv.visitInsn(Opcodes.ICONST_1);
        mv.visitInsn(Opcodes.IRETURN);
        mv.visitLabel(sub);
        mv.visitVarInsn(Opcodes.ASTORE, 1);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, THREAD, "join", "()V", false);
        mv.visitVarInsn(Opcodes.RET, 1);
        mv.visitMaxs(1, 2);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    /** What the jsr class does, observed through reflection. */
    private static List<String> exerciseOldJsr(Class<?> c) throws Throwable {
        List<String> log = new ArrayList<>();
        Object lock = new Object();
        long t0 = System.nanoTime();
        log.add("run " + invoke(c, "run", null, lock, 20L));
        log.add("slept>=20 " + ((System.nanoTime() - t0) / 1_000_000 >= 20));
        Thread.currentThread().interrupt();
        t0 = System.nanoTime();
        log.add("run interrupted " + invoke(c, "run", null, lock, 60_000L));
        log.add("interrupt cleared " + !Thread.interrupted() + ", quick " + (System.nanoTime() - t0 < 30_000_000_000L));
        log.add("unheld " + invoke(c, "unheld", null, new Object()));
        AtomicBoolean ran = new AtomicBoolean();
        Thread t = new Thread(() -> ran.set(true), "jsr-started");
        log.add("startJoin " + invoke(c, "startJoin", null, t) + " ran=" + ran.get() + " " + t.getState());
        log.add("run null " + outcome(c, "run", null, null, 1L));
        return log;
    }

    @ParameterizedTest(name = "class file version {0}")
    @ValueSource(ints = {Opcodes.V1_1, Opcodes.V1_4, Opcodes.V1_5})
    void oldClassFilesWithJsrRetAndNoFrames(int version) throws Throwable {
        String name = GEN + "OldJsr";
        byte[] original = oldJsrClass(name, version);
        assertEquals(0, frames(original));
        byte[] out = transformAndCheck(name, original, loader(name, original), 8);
        assertEquals(0, frames(out), "no stack map frames added to an old class file");
        assertEquals(codeLengths(original), codeLengths(out), "same code sizes");

        Class<?> plain = loader(name, original).loadClass(name.replace('/', '.'));
        Class<?> instrumented = loader(name, out).loadClass(name.replace('/', '.'));
        List<String> expected = List.of("run ok", "slept>=20 true", "run interrupted interrupted",
                "interrupt cleared true, quick true", "unheld IllegalMonitorStateException",
                "startJoin true ran=true TERMINATED", "run null NullPointerException");
        assertEquals(expected, exerciseOldJsr(plain));
        assertEquals(expected, exerciseOldJsr(instrumented));
        assertFalse(Probes.isBound(), "no natives in a unit test JVM: the early path ran");
    }

    // ---------------------------------------------------------------- methods at the 64 KiB limit

    private enum Site {
        /** {@code aload_0; invokevirtual Object.notify()V; iinc 1 1}: 7 bytes, 3 of them replaced by 3. */
        VIRTUAL(7),
        /** {@code aload_0; invokeinterface Runnable.notify()V; iinc 1 1}: 9 bytes, 5 of them replaced by 3. */
        INTERFACE(9);

        final int size;

        Site(int size) {
            this.size = size;
        }
    }

    /**
     * {@code static int big(Runnable lock)}: monitorenter, then probed notify sites each
     * counted in local 1, padded with nops to exactly {@code codeLength} bytes, monitorexit,
     * returns the count. With {@code farSubroutine} (for an old class file) the count is
     * returned by a subroutine at the end of the method, entered by a jsr_w from its start.
     */
    /** Bytes of big() besides the sites and the nops. */
    private static int fixedBytes(boolean farSubroutine) {
        // aload_0 monitorenter, iconst_0 istore_1, aload_0 monitorexit, iload_1 ireturn: 1 byte each;
        // jsr_w (ASM's second pass widens the jsr), astore_2, iinc 1 100, ret 2
        return 8 + (farSubroutine ? 5 + 1 + 3 + 2 : 0);
    }

    private static int sites(Site site, boolean farSubroutine) {
        return (MAX_CODE - fixedBytes(farSubroutine)) / site.size;
    }

    static byte[] bigClass(String name, int version, Site site, int codeLength, boolean farSubroutine) {
        ClassWriter cw = new ClassWriter(0);
        cw.visit(version, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, name, null, OBJECT, null);
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "big", "(Ljava/lang/Runnable;)I",
                null, null);
        mv.visitCode();
        Label sub = new Label();
        int fixed = fixedBytes(farSubroutine);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.MONITORENTER);
        mv.visitInsn(Opcodes.ICONST_0);
        mv.visitVarInsn(Opcodes.ISTORE, 1);
        if (farSubroutine) {
            mv.visitJumpInsn(Opcodes.JSR, sub);
        }
        int sites = (codeLength - fixed) / site.size;
        for (int i = 0; i < sites; i++) {
            mv.visitVarInsn(Opcodes.ALOAD, 0);
            if (site == Site.VIRTUAL) {
                mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, OBJECT, i % 2 == 0 ? "notify" : "notifyAll", "()V", false);
            } else {
                mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, "java/lang/Runnable", i % 2 == 0 ? "notify" : "notifyAll",
                        "()V", true);
            }
            mv.visitIincInsn(1, 1);
        }
        for (int i = sites * site.size + fixed; i < codeLength; i++) {
            mv.visitInsn(Opcodes.NOP);
        }
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.MONITOREXIT);
        mv.visitVarInsn(Opcodes.ILOAD, 1);
        mv.visitInsn(Opcodes.IRETURN);
        if (farSubroutine) {
            mv.visitLabel(sub);
            mv.visitVarInsn(Opcodes.ASTORE, 2);
            mv.visitIincInsn(1, 100);
            mv.visitVarInsn(Opcodes.RET, 2);
        }
        mv.visitMaxs(1, 3);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    private static Object runBig(Class<?> c) throws Throwable {
        Runnable lock = () -> {
        };
        return invoke(c, "big", null, lock);
    }

    @Test
    void aMethodOfExactly65535BytesKeepsItsSize() throws Throwable {
        String name = GEN + "BigVirtual";
        byte[] original = bigClass(name, Opcodes.V17, Site.VIRTUAL, MAX_CODE, false);
        assertEquals(MAX_CODE, codeLengths(original).get("big(Ljava/lang/Runnable;)I"));
        int sites = sites(Site.VIRTUAL, false);
        byte[] out = transformAndCheck(name, original, LOADER, sites);
        assertEquals(codeLengths(original), codeLengths(out),
                "invokevirtual to invokestatic: 3 bytes for 3, the method stays at the limit");
        assertEquals(sites, runBig(loader(name, original).loadClass(name.replace('/', '.'))));
        assertEquals(sites, runBig(loader(name, out).loadClass(name.replace('/', '.'))));
    }

    @Test
    void invokeinterfaceSitesShrinkAMethodAtTheLimit() throws Throwable {
        String name = GEN + "BigInterface";
        byte[] original = bigClass(name, Opcodes.V17, Site.INTERFACE, MAX_CODE, false);
        assertEquals(MAX_CODE, codeLengths(original).get("big(Ljava/lang/Runnable;)I"));
        int sites = sites(Site.INTERFACE, false);
        byte[] out = transformAndCheck(name, original, LOADER, sites);
        assertEquals(MAX_CODE - 2 * sites, codeLengths(out).get("big(Ljava/lang/Runnable;)I"),
                "invokeinterface (5 bytes) to invokestatic (3 bytes)");
        assertEquals(sites, runBig(loader(name, original).loadClass(name.replace('/', '.'))));
        assertEquals(sites, runBig(loader(name, out).loadClass(name.replace('/', '.'))));
    }

    @Test
    void anOldMethodAtTheLimitWithAFarSubroutineKeepsItsJsrW() throws Throwable {
        String name = GEN + "BigOldJsr";
        byte[] original = bigClass(name, Opcodes.V1_4, Site.VIRTUAL, MAX_CODE, true);
        assertEquals(MAX_CODE, codeLengths(original).get("big(Ljava/lang/Runnable;)I"), "jsr_w, not jsr");
        int sites = sites(Site.VIRTUAL, true);
        byte[] out = transformAndCheck(name, original, LOADER, sites);
        assertEquals(0, frames(out));
        assertEquals(codeLengths(original), codeLengths(out), "the method stays at the limit, jsr_w kept");
        assertEquals(sites + 100, runBig(loader(name, original).loadClass(name.replace('/', '.'))));
        assertEquals(sites + 100, runBig(loader(name, out).loadClass(name.replace('/', '.'))));
    }

    /**
     * {@code static int sw(Runnable lock, int k)}: an invokeinterface site (shrinking by 2
     * bytes) before a tableswitch and a lookupswitch, whose 0-3 padding bytes then change;
     * version 17, stack map frames at every case.
     */
    static byte[] switchClass(String name) {
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, name, null, OBJECT, null);
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "sw", "(Ljava/lang/Runnable;I)I",
                null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.MONITORENTER);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, "java/lang/Runnable", "notifyAll", "()V", true);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitInsn(Opcodes.MONITOREXIT);
        Label[] cases = {new Label(), new Label(), new Label()};
        Label other = new Label();
        Label lookup = new Label();
        mv.visitVarInsn(Opcodes.ILOAD, 1);
        mv.visitTableSwitchInsn(0, 2, lookup, cases);
        for (int i = 0; i < cases.length; i++) {
            mv.visitLabel(cases[i]);
            mv.visitIntInsn(Opcodes.BIPUSH, 10 + i);
            mv.visitInsn(Opcodes.IRETURN);
        }
        mv.visitLabel(lookup);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, "java/lang/Runnable", "notify", "()V", true); // not held
        Label big = new Label();
        mv.visitVarInsn(Opcodes.ILOAD, 1);
        mv.visitLookupSwitchInsn(other, new int[] {-7, 1000}, new Label[] {big, big});
        mv.visitLabel(big);
        mv.visitIntInsn(Opcodes.BIPUSH, 99);
        mv.visitInsn(Opcodes.IRETURN);
        mv.visitLabel(other);
        mv.visitInsn(Opcodes.ICONST_M1);
        mv.visitInsn(Opcodes.IRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    @Test
    void switchPaddingAfterAShrinkingSite() throws Throwable {
        String name = GEN + "Switches";
        byte[] original = switchClass(name);
        byte[] out = transformAndCheck(name, original, LOADER, 2);
        assertTrue(frames(out) > 0);
        int before = codeLengths(original).get("sw(Ljava/lang/Runnable;I)I");
        int after = codeLengths(out).get("sw(Ljava/lang/Runnable;I)I");
        assertTrue(after < before && after >= before - 4, before + " -> " + after);
        for (byte[] b : List.of(original, out)) {
            Class<?> c = loader(name, b).loadClass(name.replace('/', '.'));
            List<String> results = new ArrayList<>();
            for (int k : new int[] {-7, -1, 0, 1, 2, 3, 1000}) {
                results.add(outcome(c, "sw", null, (Runnable) () -> {
                }, k));
            }
            assertEquals(List.of("IllegalMonitorStateException", "IllegalMonitorStateException", "10", "11", "12",
                    "IllegalMonitorStateException", "IllegalMonitorStateException"), results);
        }
    }

    // ---------------------------------------------------------------- a constant pool with no room for Probes

    /** {@code static String poke(Object o)}: notify on o (monitor held by the caller), padded with unused Utf8 constants. */
    static byte[] poolClass(String name, int padding) {
        ClassWriter cw = new ClassWriter(0);
        cw.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, name, null, OBJECT, null);
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "poke",
                "(Ljava/lang/Object;)Ljava/lang/String;", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, OBJECT, "notify", "()V", false);
        mv.visitLdcInsn("poked");
        mv.visitInsn(Opcodes.ARETURN);
        mv.visitMaxs(1, 1);
        mv.visitEnd();
        for (int i = 0; i < padding; i++) {
            cw.newUTF8("pad" + i);
        }
        cw.visitEnd();
        return cw.toByteArray();
    }

    @Test
    void aConstantPoolWithoutRoomForProbesIsAFailureAndKeepsTheOriginal() throws Throwable {
        String name = GEN + "FullPool";
        byte[] small = poolClass(name, 0);
        byte[] smallOut = transform(name, small);
        assertNotNull(smallOut);
        int base = new ClassReader(small).getItemCount();
        int added = new ClassReader(smallOut).getItemCount() - base;
        assertTrue(added > 0 && added < 10, "entries the Probes call adds: " + added);

        // Exactly room for them: transformed, at the limit, and it runs.
        byte[] fits = poolClass(name, MAX_CONSTANT_POOL_COUNT - added - base);
        byte[] out = transform(name, fits);
        assertNotNull(out, "failure: " + transformer.lastFailure());
        assertEquals(MAX_CONSTANT_POOL_COUNT, new ClassReader(out).getItemCount());
        assertEquals("", verify(out, LOADER));
        assertEquals(1, probeCalls(out));
        Object monitor = new Object();
        synchronized (monitor) {
            assertEquals("poked", invoke(loader(name, out).loadClass(name.replace('/', '.')), "poke", null, monitor));
        }
        assertEquals(0, transformer.failures());
        assertTrue(transformer.isInstrumented(LOADER, name));

        // One entry too many: ASM cannot write the class; the original stays, counted as a failure.
        byte[] full = poolClass(name, MAX_CONSTANT_POOL_COUNT - added - base + 1);
        assertEquals(MAX_CONSTANT_POOL_COUNT - added + 1, new ClassReader(full).getItemCount());
        assertNull(transform(name, full), "the class is loaded unchanged");
        assertEquals(1, transformer.failures());
        assertTrue(transformer.lastFailure().startsWith(name + ": ")
                && transformer.lastFailure().contains("ClassTooLargeException"), transformer.lastFailure());
        assertFalse(transformer.isInstrumented(LOADER, name), "its loaded bytes are the original ones");
        Class<?> plain = loader(name, full).loadClass(name.replace('/', '.'));
        assertEquals("IllegalMonitorStateException", outcome(plain, "poke", null, new Object()));
    }

    // ---------------------------------------------------------------- interfaces

    /**
     * A version 52 interface: {@code static nap(long)} calling Thread.sleep, {@code default
     * poke()} calling notify through invokeinterface on the interface itself (legal, javac
     * never writes it), {@code default pokeAll()} with invokevirtual Object.notifyAll,
     * {@code default await(long)} with wait(J), {@code static startJoin(Thread)}; and a class
     * implementing it.
     */
    static byte[] generatedInterface(String name) {
        ClassWriter cw = new ClassWriter(0);
        cw.visit(Opcodes.V1_8, Opcodes.ACC_PUBLIC | Opcodes.ACC_INTERFACE | Opcodes.ACC_ABSTRACT, name, null, OBJECT,
                null);
        cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_ABSTRACT, "value", "()I", null, null).visitEnd();

        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "nap", "(J)V", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.LLOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, THREAD, "sleep", "(J)V", false);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(2, 2);
        mv.visitEnd();

        mv = cw.visitMethod(Opcodes.ACC_PUBLIC, "poke", "()I", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, name, "notify", "()V", true);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, name, "value", "()I", true);
        mv.visitInsn(Opcodes.IRETURN);
        mv.visitMaxs(1, 1);
        mv.visitEnd();

        mv = cw.visitMethod(Opcodes.ACC_PUBLIC, "pokeAll", "()V", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, OBJECT, "notifyAll", "()V", false);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(1, 1);
        mv.visitEnd();

        mv = cw.visitMethod(Opcodes.ACC_PUBLIC, "await", "(J)V", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitVarInsn(Opcodes.LLOAD, 1);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, OBJECT, "wait", "(J)V", false);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(3, 3);
        mv.visitEnd();

        mv = cw.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, "startJoin", "(Ljava/lang/Thread;)V", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, THREAD, "start", "()V", false);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, THREAD, "join", "()V", false);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(1, 1);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    static byte[] implementation(String name, String itf) {
        ClassWriter cw = new ClassWriter(0);
        cw.visit(Opcodes.V1_8, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, name, null, OBJECT, new String[] {itf});
        MethodVisitor mv = cw.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        mv.visitCode();
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKESPECIAL, OBJECT, "<init>", "()V", false);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitMaxs(1, 1);
        mv.visitEnd();
        mv = cw.visitMethod(Opcodes.ACC_PUBLIC, "value", "()I", null, null);
        mv.visitCode();
        mv.visitIntInsn(Opcodes.BIPUSH, 42);
        mv.visitInsn(Opcodes.IRETURN);
        mv.visitMaxs(1, 1);
        mv.visitEnd();
        cw.visitEnd();
        return cw.toByteArray();
    }

    private static List<String> exerciseInterface(ClassLoader l, String itf, String impl) throws Throwable {
        Class<?> i = l.loadClass(itf.replace('/', '.'));
        assertTrue(i.isInterface());
        Object o = l.loadClass(impl.replace('/', '.')).getConstructor().newInstance();
        List<String> log = new ArrayList<>();
        long t0 = System.nanoTime();
        invoke(i, "nap", null, 20L);
        log.add("napped>=20 " + ((System.nanoTime() - t0) / 1_000_000 >= 20));
        log.add("poke unheld " + outcome(i, "poke", o));
        log.add("pokeAll unheld " + outcome(i, "pokeAll", o));
        synchronized (o) {
            log.add("poke " + invoke(i, "poke", o));
            invoke(i, "pokeAll", o);
            invoke(i, "await", o, 1L);
        }
        log.add("held ok");
        Thread t = new Thread(() -> {
        }, "itf-started");
        invoke(i, "startJoin", null, t);
        log.add(t.getState().toString());
        return log;
    }

    @Test
    void aGeneratedInterfaceWithStaticAndDefaultMethods() throws Throwable {
        String itf = GEN + "Iface";
        String impl = GEN + "IfaceImpl";
        byte[] original = generatedInterface(itf);
        byte[] implBytes = implementation(impl, itf);
        byte[] out = transformAndCheck(itf, original, loader(itf, original, impl, implBytes), 6);
        assertEquals("", verify(out, loader(itf, out, impl, implBytes)));
        assertEquals(codeLengths(original).get("poke()I") - 2, codeLengths(out).get("poke()I"),
                "invokeinterface notify became a 3-byte invokestatic");
        assertTrue((new ClassReader(out).getAccess() & Opcodes.ACC_INTERFACE) != 0);
        assertNull(transform(impl, implBytes), "the implementation has no call site");

        List<String> expected = List.of("napped>=20 true", "poke unheld IllegalMonitorStateException",
                "pokeAll unheld IllegalMonitorStateException", "poke 42", "held ok", "TERMINATED");
        assertEquals(expected, exerciseInterface(loader(itf, original, impl, implBytes), itf, impl));
        assertEquals(expected, exerciseInterface(loader(itf, out, impl, implBytes), itf, impl));
    }

    @Test
    void aJavacInterfaceWithStaticDefaultPrivateMethodsAndLambdas() throws Throwable {
        String name = internal(Sleepy.class);
        byte[] original = resource(Sleepy.class);
        byte[] out = transformAndCheck(name, original, LOADER, Sleepy.PROBED_CALL_SITES);
        assertTrue(frames(out) > 0, "javac's stack map frames are kept");
        assertTrue(calls(out).stream().anyMatch(c -> c.probe() && c.method().startsWith("lambda$")),
                "a lambda body of the interface calls Probes");

        List<String> plain = Sleepy.run();
        Class<?> instrumented = loader(name, out).loadClass(Sleepy.class.getName());
        assertTrue(instrumented != Sleepy.class);
        assertEquals(plain, invoke(instrumented, "run", null));
        assertEquals(List.of("lambda-sleepy poked", "IllegalMonitorStateException", "napped>=5 true",
                "sleepy-thread TERMINATED"), plain);
    }

    // ---------------------------------------------------------------- lambdas and invokedynamic

    @Test
    void lambdaBodiesAreInstrumentedAndMethodReferencesAndIndyAreKept() throws Throwable {
        String name = internal(LambdaSites.class);
        byte[] original = resource(LambdaSites.class);
        byte[] out = transformAndCheck(name, original, LOADER, LambdaSites.PROBED_CALL_SITES);
        assertEquals(LambdaSites.PROBED_IN_LAMBDAS,
                calls(out).stream().filter(c -> c.probe() && c.method().startsWith("lambda$")).count());

        // The invokedynamic instructions and their bootstrap arguments are as they were:
        // Thread::start stays a method handle to Thread.start (not a call site).
        List<String> before = indys(original);
        List<String> after = indys(out);
        assertEquals(before, after);
        assertTrue(after.stream().anyMatch(s -> s.contains("java/lang/Thread.start()V")), after.toString());
        assertTrue(after.stream().anyMatch(s -> s.startsWith("makeConcatWithConstants")), after.toString());

        List<String> plain = LambdaSites.run();
        Class<?> instrumented = loader(name, out).loadClass(LambdaSites.class.getName());
        assertTrue(instrumented != LambdaSites.class);
        assertEquals(plain, invoke(instrumented, "run", null));
        assertEquals(List.of("inner ran", "ref ran", "notified Object", "slept 3"), plain);
        assertFalse(Probes.isBound());
    }

    /** Each invokedynamic: name, descriptor, bootstrap method arguments. */
    private static List<String> indys(byte[] classBytes) {
        List<String> indys = new ArrayList<>();
        new ClassReader(classBytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] ex) {
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitInvokeDynamicInsn(String n, String d, Handle bsm, Object... args) {
                        StringBuilder s = new StringBuilder(n).append(d).append(' ').append(bsm.getName());
                        for (Object a : args) {
                            s.append(' ').append(a instanceof Handle h ? h.getOwner() + "." + h.getName() + h.getDesc()
                                    : String.valueOf(a));
                        }
                        indys.add(s.toString());
                    }
                };
            }
        }, 0);
        return indys;
    }
}
