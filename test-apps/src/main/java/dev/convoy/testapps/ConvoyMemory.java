package dev.convoy.testapps;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Samples Convoy's {@code MemoryInUseBytes} from its MBean ({@link ConvoyMBean}, plain JMX: no
 * dependency on the agent) on a platform daemon thread while a scenario runs, so that the app
 * can print the largest value it saw next to the cap. Without Convoy in the JVM it samples
 * nothing and reports -1. How often it samples decides only how many samples there are, never an
 * outcome.
 */
final class ConvoyMemory implements AutoCloseable {

    private final AtomicLong max = new AtomicLong(-1);
    private final AtomicLong samples = new AtomicLong();
    private final ConvoyMBean convoy;
    private final long cap;
    private final Thread sampler;
    private volatile boolean stop;

    ConvoyMemory() {
        ConvoyMBean found;
        long c = -1;
        try {
            found = ConvoyMBean.find();
            if (found != null) {
                c = found.longAttribute("MemoryCapBytes");
            }
        } catch (RuntimeException e) {
            found = null;
        }
        convoy = found;
        cap = c;
        sampler = new Thread(() -> {
            while (convoy != null && !stop) {
                sample();
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

    private void sample() {
        try {
            long v = convoy.longAttribute("MemoryInUseBytes");
            max.accumulateAndGet(v, Math::max);
            samples.incrementAndGet();
        } catch (RuntimeException e) {
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
        if (convoy != null) {
            sample();
        }
    }
}
