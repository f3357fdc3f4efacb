package dev.convoy.agent.bci;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.util.CheckClassAdapter;

import dev.convoy.bcifixtures.CallSites;
import dev.convoy.bcifixtures.HidingThread;
import dev.convoy.bcifixtures.NoCallSites;
import dev.convoy.bcifixtures.SubWorker;
import dev.convoy.bcifixtures.Worker;
import dev.convoy.probes.Probes;

/** The transformer on fixture classes' bytes, checked with ASM's CheckClassAdapter. */
@Timeout(60)
class ContentionTransformerTest {

    private static final ClassLoader LOADER = ContentionTransformerTest.class.getClassLoader();

    private final ContentionTransformer transformer = new ContentionTransformer(Probes.class);

    private static String internal(Class<?> c) {
        return c.getName().replace('.', '/');
    }

    static byte[] bytes(Class<?> c) throws IOException {
        try (InputStream in = LOADER.getResourceAsStream(internal(c) + ".class")) {
            return in.readAllBytes();
        }
    }

    private byte[] transform(Class<?> c) throws IOException {
        return transformer.transform(LOADER, internal(c), null, c.getProtectionDomain(), bytes(c));
    }

    /** One method instruction: opcode, owner, name, descriptor. */
    private record Call(String method, int opcode, String owner, String name, String desc) {
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
                        calls.add(new Call(method, op, owner, n, d));
                    }
                };
            }
        }, 0);
        return calls;
    }

    private static String verify(byte[] classBytes) {
        StringWriter out = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(classBytes), LOADER, false, new PrintWriter(out));
        return out.toString();
    }

    /** What the rewrite of {@code c} must be, or null if it must stay. */
    private static Call expected(Call c) {
        String thread = "java/lang/Thread";
        boolean threadOwner = c.owner().equals(thread) || c.owner().equals(internal(Worker.class));
        String key = c.name() + c.desc();
        if ((c.opcode() == Opcodes.INVOKEVIRTUAL || c.opcode() == Opcodes.INVOKEINTERFACE)
                && List.of("notify()V", "notifyAll()V", "wait()V", "wait(J)V", "wait(JI)V").contains(key)) {
            return new Call(c.method(), Opcodes.INVOKESTATIC, ContentionTransformer.PROBES, c.name(),
                    "(Ljava/lang/Object;" + c.desc().substring(1));
        }
        if (c.opcode() == Opcodes.INVOKEVIRTUAL && threadOwner
                && List.of("start()V", "interrupt()V", "join()V", "join(J)V", "join(JI)V").contains(key)) {
            return new Call(c.method(), Opcodes.INVOKESTATIC, ContentionTransformer.PROBES, c.name(),
                    "(Ljava/lang/Thread;" + c.desc().substring(1));
        }
        if (c.opcode() == Opcodes.INVOKESTATIC && threadOwner && c.name().equals("sleep")) {
            return new Call(c.method(), Opcodes.INVOKESTATIC, ContentionTransformer.PROBES, c.name(), c.desc());
        }
        return null;
    }

    @Test
    void callSitesBecomeProbeCallsAndNothingElseChanges() throws Exception {
        byte[] original = bytes(CallSites.class);
        byte[] out = transform(CallSites.class);
        assertNotNull(out, "CallSites has call sites to rewrite");
        assertEquals("", verify(out), "the transformed class verifies");

        List<Call> before = calls(original);
        List<Call> after = calls(out);
        assertEquals(before.size(), after.size(), "one invoke replaces one invoke");
        int rewritten = 0;
        for (int i = 0; i < before.size(); i++) {
            Call want = expected(before.get(i));
            if (want == null) {
                assertEquals(before.get(i), after.get(i), "untouched call");
            } else {
                assertEquals(want, after.get(i));
                rewritten++;
            }
        }
        assertEquals(CallSites.PROBED_CALL_SITES, rewritten);
        assertTrue(after.stream().anyMatch(c -> c.owner().equals(internal(HidingThread.class))),
                "the hiding static sleep stays: " + after);
        assertTrue(after.stream().anyMatch(c -> c.owner().equals(internal(SubWorker.class))
                && c.name().equals("sleep")), "a sleep inherited from the hiding class stays");
        assertEquals(1, transformer.instrumentedClasses());
        assertEquals(0, transformer.failures());

        // Everything but code is as it was: same methods, fields, constant-pool-independent shape.
        ClassReader a = new ClassReader(original);
        ClassReader b = new ClassReader(out);
        assertEquals(a.getClassName(), b.getClassName());
        assertEquals(a.getSuperName(), b.getSuperName());
        assertArrayEquals(a.getInterfaces(), b.getInterfaces());
        assertEquals(a.getAccess(), b.getAccess());
    }

    @Test
    void transformedClassRunsLikeTheOriginalThroughTheEarlyPath() throws Exception {
        List<String> plain = CallSites.run();
        byte[] out = transform(CallSites.class);
        ClassLoader child = new ClassLoader(LOADER) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (name.equals(CallSites.class.getName())) {
                    synchronized (getClassLoadingLock(name)) {
                        Class<?> c = findLoadedClass(name);
                        return c != null ? c : defineClass(name, out, 0, out.length);
                    }
                }
                if (name.startsWith(CallSites.class.getName() + "$")) {
                    try (InputStream in = LOADER.getResourceAsStream(name.replace('.', '/') + ".class")) {
                        synchronized (getClassLoadingLock(name)) {
                            Class<?> c = findLoadedClass(name);
                            if (c != null) {
                                return c;
                            }
                            byte[] b = in.readAllBytes();
                            return defineClass(name, b, 0, b.length);
                        }
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                return super.loadClass(name, resolve);
            }
        };
        Class<?> instrumented = child.loadClass(CallSites.class.getName());
        assertTrue(instrumented != CallSites.class);
        @SuppressWarnings("unchecked")
        List<String> result = (List<String>) instrumented.getMethod("run").invoke(null);
        assertEquals(plain, result);
        assertEquals(List.of("worker ran=true", "waiter done", "fixture-sleeper-interrupted", "hidden sleeps=2",
                "IllegalMonitorStateException"), result);
        assertFalse(Probes.isBound(), "no natives in a unit test JVM: the early path ran");
    }

    @Test
    void classesWithoutCallSitesAreLeftAlone() throws Exception {
        assertNull(transform(NoCallSites.class));
        assertNull(transform(Worker.class), "Worker declares run() but calls none of the probed methods");
        assertEquals(0, transformer.instrumentedClasses());
        assertEquals(0, transformer.failures());
    }

    @Test
    void jdkAndConvoyClassesAreNeverTouched() throws Exception {
        byte[] b = bytes(CallSites.class);
        assertNull(transformer.transform(null, internal(CallSites.class), null, null, b), "boot loader");
        assertNull(transformer.transform(ClassLoader.getPlatformClassLoader(), internal(CallSites.class), null, null,
                b), "platform loader");
        for (String own : List.of("dev/convoy/agent/X", "dev/convoy/probes/Probes", "dev/convoy/export/X",
                "dev/convoy/shaded/org/objectweb/asm/X")) {
            assertNull(transformer.transform(LOADER, own, null, null, b), own);
        }
        assertNull(transformer.transform(LOADER, "dev/convoy/bcifixtures/CallSites$$Lambda/0x0000000801001234", null,
                null, b), "hidden class");
        assertNull(transformer.transform(LOADER, null, null, null, b), "unnamed class");
        assertEquals(0, transformer.failures());
    }

    @Test
    void aFailureReturnsTheOriginalAndIsCounted() {
        byte[] corrupt = {(byte) 0xCA, (byte) 0xFE, (byte) 0xBA, (byte) 0xBE, 0, 0, 0, 61, 0x7F, 0x7F, 1, 2, 3};
        assertNull(transformer.transform(LOADER, "com/example/Broken", null, null, corrupt));
        assertEquals(1, transformer.failures());
        assertTrue(transformer.lastFailure().startsWith("com/example/Broken: "), transformer.lastFailure());
        assertNull(transformer.transform(LOADER, "com/example/Empty", null, null, new byte[0]));
        assertEquals(2, transformer.failures());
    }

    @Test
    void inactiveTransformerRestoresTheOriginal() throws Exception {
        assertNotNull(transform(CallSites.class));
        assertEquals(1, transformer.instrumentedClasses());
        transformer.setActive(false);
        assertNull(transformer.transform(LOADER, internal(CallSites.class), CallSites.class, null,
                bytes(CallSites.class)));
        assertEquals(0, transformer.instrumentedClasses(), "the retransformed class has its original bytes");
    }

    @Test
    void aLoaderThatDoesNotSeeTheProbesClassIsLeftAlone() throws Exception {
        ClassLoader isolated = new ClassLoader(null) {
        };
        assertNull(transformer.transform(isolated, internal(CallSites.class), null, null, bytes(CallSites.class)));
        assertEquals(0, transformer.failures());
    }

    @Test
    void hierarchyIsReadFromClassFilesAndUnknownOwnersStay() throws Exception {
        ThreadHierarchy h = new ThreadHierarchy();
        String w = internal(Worker.class);
        assertTrue(h.resolvesToThread(LOADER, w, "start", "()V", false, null, null));
        assertTrue(h.resolvesToThread(LOADER, w, "sleep", "(J)V", true, null, null));
        assertFalse(h.resolvesToThread(LOADER, internal(SubWorker.class), "sleep", "(J)V", true, null, null));
        assertTrue(h.resolvesToThread(LOADER, internal(SubWorker.class), "sleep", "(JI)V", true, null, null));
        assertTrue(h.resolvesToThread(LOADER, "java/util/concurrent/ForkJoinWorkerThread", "interrupt", "()V", false,
                null, null), "JDK subclasses of Thread are read too");
        assertFalse(h.resolvesToThread(LOADER, "java/lang/String", "join", "()V", false, null, null));
        assertFalse(h.resolvesToThread(LOADER, "com/example/Missing", "start", "()V", false, null, null),
                "an owner whose class file cannot be read keeps its call");
        assertFalse(h.resolvesToThread(new ClassLoader(null) {
        }, w, "start", "()V", false, null, null), "not visible from that loader");
    }
}
