package dev.convoy.testapps;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;

import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Samples Convoy's {@code MemoryInUseBytes} from its MBean ({@code dev.convoy:type=Recorder}, plain
 * JMX: no dependency on the agent) on a platform daemon thread while a scenario runs, so that the
 * app can print the largest value it saw next to the cap. Without Convoy in the JVM it samples
 * nothing and reports -1. How often it samples decides only how many samples there are, never an
 * outcome.
 */
final class ConvoyMemory implements AutoCloseable {

    private static final String MBEAN = "dev.convoy:type=Recorder";

    private final AtomicLong max = new AtomicLong(-1);
    private final AtomicLong samples = new AtomicLong();
    private final long cap;
    private final Thread sampler;
    private volatile boolean stop;

    ConvoyMemory() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name;
        long c = -1;
        try {
            name = new ObjectName(MBEAN);
            if (server.isRegistered(name)) {
                c = ((Number) server.getAttribute(name, "MemoryCapBytes")).longValue();
            } else {
                name = null;
            }
        } catch (Exception e) {
            name = null;
        }
        cap = c;
        ObjectName n = name;
        sampler = new Thread(() -> {
            while (n != null && !stop) {
                sample(server, n);
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "memory-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    private void sample(MBeanServer server, ObjectName n) {
        try {
            long v = ((Number) server.getAttribute(n, "MemoryInUseBytes")).longValue();
            max.accumulateAndGet(v, Math::max);
            samples.incrementAndGet();
        } catch (Exception e) {
            stop = true;
        }
    }

    /** Largest MemoryInUseBytes seen, -1 without Convoy. */
    long max() {
        return max.get();
    }

    long samples() {
        return samples.get();
    }

    /** MemoryCapBytes, -1 without Convoy. */
    long cap() {
        return cap;
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        sampler.interrupt();
        sampler.join();
        if (cap >= 0) {
            sample(ManagementFactory.getPlatformMBeanServer(), objectName());
        }
    }

    private static ObjectName objectName() {
        try {
            return new ObjectName(MBEAN);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
