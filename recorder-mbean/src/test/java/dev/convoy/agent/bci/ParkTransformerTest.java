package dev.convoy.agent.bci;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.util.CheckClassAdapter;

/** The LockSupport hook on the running JDK's LockSupport: verifiable, complete, applied once. */
class ParkTransformerTest {

    private static byte[] lockSupport() throws IOException {
        try (InputStream in = Object.class.getResourceAsStream("/java/util/concurrent/locks/LockSupport.class")) {
            return in.readAllBytes();
        }
    }

    /** Per method: the Probes methods it calls, in order, and whether it has a catch-all handler. */
    private static Map<String, List<String>> probeCalls(byte[] bytes) {
        Map<String, List<String>> calls = new TreeMap<>();
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exc) {
                List<String> list = new ArrayList<>();
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMethodInsn(int op, String owner, String n, String d, boolean itf) {
                        if (owner.equals(ContentionTransformer.PROBES)) {
                            list.add(n);
                        }
                    }

                    @Override
                    public void visitTryCatchBlock(org.objectweb.asm.Label s, org.objectweb.asm.Label e,
                                                   org.objectweb.asm.Label h, String type) {
                        if (type == null) {
                            list.add("catch-all");
                        }
                    }

                    @Override
                    public void visitEnd() {
                        if (!list.isEmpty()) {
                            calls.put(name + desc, list);
                        }
                    }
                };
            }
        }, 0);
        return calls;
    }

    @Test
    void everyParkIsWrappedAndUnparkProbedAndTheClassVerifies() throws IOException {
        byte[] out = ParkTransformer.rewrite(lockSupport());
        assertNotNull(out);
        StringWriter problems = new StringWriter();
        CheckClassAdapter.verify(new ClassReader(out), ClassLoader.getSystemClassLoader(), false,
                new PrintWriter(problems));
        assertEquals("", problems.toString());
        Map<String, List<String>> calls = probeCalls(out);
        assertEquals(List.of("unpark"), calls.get("unpark(Ljava/lang/Thread;)V"));
        for (String m : List.of("park()V", "park(Ljava/lang/Object;)V")) {
            List<String> c = calls.get(m);
            assertEquals("parkBegin", c.get(c.contains("catch-all") && c.get(0).equals("catch-all") ? 1 : 0), m);
            assertTrue(c.contains("catch-all") && c.stream().filter("parkEnd"::equals).count() >= 2, m + ": " + c);
        }
        for (String m : List.of("parkNanos(J)V", "parkNanos(Ljava/lang/Object;J)V")) {
            List<String> c = calls.get(m);
            assertTrue(c.contains("parkNanosBegin") && c.contains("catch-all")
                    && c.stream().filter("parkEnd"::equals).count() >= 2, m + ": " + c);
        }
        for (String m : List.of("parkUntil(J)V", "parkUntil(Ljava/lang/Object;J)V")) {
            List<String> c = calls.get(m);
            assertTrue(c.contains("parkUntilBegin") && c.contains("catch-all")
                    && c.stream().filter("parkUntilEnd"::equals).count() >= 2, m + ": " + c);
        }
        assertEquals(7, calls.size(), calls.toString());
    }

    @Test
    void hookedBytesAreLeftAsTheyAre() throws IOException {
        assertNull(ParkTransformer.rewrite(ParkTransformer.rewrite(lockSupport())));
    }

    @Test
    void onlyLockSupportOfTheBootLoaderIsTransformed() throws IOException {
        ParkTransformer t = new ParkTransformer();
        byte[] ls = lockSupport();
        assertNull(t.transform(getClass().getClassLoader(), ParkTransformer.LOCK_SUPPORT, null, null, ls));
        assertNull(t.transform(null, "java/lang/Object", null, null, ls));
        assertNotNull(t.transform(null, ParkTransformer.LOCK_SUPPORT, null, null, ls));
        assertEquals(1, t.applied());
        assertEquals(0, t.failures());
    }

    @Test
    void aFailureKeepsTheBytesAndIsCounted() {
        ParkTransformer t = new ParkTransformer();
        assertNull(t.transform(null, ParkTransformer.LOCK_SUPPORT, null, null, new byte[] {1, 2, 3}));
        assertEquals(1, t.failures());
        assertTrue(t.lastFailure().startsWith("java.util.concurrent.locks.LockSupport: "), t.lastFailure());
    }
}
