package dev.convoy.testapps.bench.suite;

import java.lang.management.ManagementFactory;
import java.util.Map;

/**
 * The thread-lifecycle workloads of {@link Workloads}: {@code churn} (short-lived platform threads
 * started and joined one after another) and {@code vchurn} (short-lived virtual threads, JDK 21+,
 * started a batch at a time).
 */
final class ThreadWorkloads {

    private ThreadWorkloads() {
    }

    static void churn(int threads, Map<String, Object> out) throws InterruptedException {
        Object lock = new Object();
        long[] sink = new long[1];
        Runnable body = () -> {
            synchronized (lock) {
                sink[0]++;
            }
        };
        for (int i = 0; i < Math.max(200, threads / 10); i++) { // warm-up
            Thread t = new Thread(body, "churn-warm");
            t.start();
            t.join();
        }
        long start = System.nanoTime();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(body, "churn-" + i);
            t.start();
            t.join();
        }
        long nanos = System.nanoTime() - start;
        out.put("threads", threads);
        out.put("us_per_thread", nanos / 1000.0 / threads);
    }

    /**
     * Virtual-thread churn (JDK 21+): {@code threads} virtual threads, started {@code batch} at a
     * time and joined, each entering one (rarely contended) {@code synchronized} block and ending.
     * Measures the cost per virtual thread of what the recorder does at each start and end: the
     * JVM's CPU time per thread ({@code cpu_us_per_thread}, all its threads: less sensitive than
     * wall time to other processes on a shared machine), and wall time ({@code us_per_thread}).
     */
    static void virtualChurn(int threads, int batch, Map<String, Object> out) throws InterruptedException {
        Object lock = new Object();
        long[] sink = new long[1];
        Runnable body = () -> {
            synchronized (lock) {
                sink[0]++;
            }
        };
        Thread[] running = new Thread[batch];
        for (int round = 0; round < 2; round++) {
            int n = round == 0 ? Math.max(2_000, threads / 10) : threads; // warm-up, then measured
            long start = System.nanoTime();
            long cpu0 = processCpuNanos();
            for (int i = 0; i < n; i += batch) {
                int k = Math.min(batch, n - i);
                for (int j = 0; j < k; j++) {
                    running[j] = dev.convoy.testapps.VirtualThreadChurn.virtualThread(body);
                    running[j].start();
                }
                for (int j = 0; j < k; j++) {
                    running[j].join();
                }
            }
            long nanos = System.nanoTime() - start;
            long cpu = processCpuNanos() - cpu0;
            if (round == 1) {
                out.put("threads", threads);
                out.put("us_per_thread", nanos / 1000.0 / threads);
                out.put("cpu_us_per_thread", cpu / 1000.0 / threads);
            }
        }
    }

    /** CPU time of this JVM, all threads, in ns (-1 if the platform does not say). */
    static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean s ? s.getProcessCpuTime() : -1;
    }
}
