package dev.convoy.testapps.bench.suite;

import static dev.convoy.testapps.bench.suite.Workloads.MBEAN;
import static dev.convoy.testapps.bench.suite.Workloads.convoyPresent;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import javax.management.ObjectName;

/**
 * The {@code memory} workload of {@link Workloads}: resident memory (VmRSS) and Convoy's own
 * memory as live threads with events grow phase by phase, then after as many short-lived threads
 * again.
 */
final class MemoryWorkload {

    private MemoryWorkload() {
    }

    /** Each phase: this many threads alive, each having done 50 timed waits (with stacks). */
    static void memory(String phases, Map<String, Object> out) throws Exception {
        int[] counts = Arrays.stream(phases.split(",")).mapToInt(Integer::parseInt).toArray();
        List<Thread> alive = new ArrayList<>();
        CountDownLatch release = new CountDownLatch(1);
        out.put("rss_kb_start", rssKb());
        putConvoyMemory(out, "start");
        for (int p = 0; p < counts.length; p++) {
            int target = counts[p];
            CountDownLatch did = new CountDownLatch(target - alive.size());
            while (alive.size() < target) {
                Object own = new Object();
                Thread t = new Thread(() -> {
                    try {
                        for (int w = 0; w < 50; w++) {
                            synchronized (own) {
                                own.wait(1);
                            }
                        }
                        did.countDown();
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "mem-" + alive.size());
                t.setDaemon(true);
                t.start();
                alive.add(t);
            }
            did.await();
            System.gc();
            out.put("threads_p" + p, target);
            out.put("rss_kb_p" + p, rssKb());
            putConvoyMemory(out, "p" + p);
        }
        // churn: end them all, then as many short-lived threads again, one batch of 64 at a time
        release.countDown();
        for (Thread t : alive) {
            t.join();
        }
        int churn = counts[counts.length - 1];
        for (int i = 0; i < churn; i += 64) {
            List<Thread> batch = new ArrayList<>();
            for (int j = 0; j < 64; j++) {
                Object own = new Object();
                Thread t = new Thread(() -> {
                    try {
                        for (int w = 0; w < 10; w++) {
                            synchronized (own) {
                                own.wait(1);
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "mem-churn-" + (i + j));
                t.start();
                batch.add(t);
            }
            for (Thread t : batch) {
                t.join();
            }
        }
        System.gc();
        out.put("rss_kb_churn", rssKb());
        putConvoyMemory(out, "churn");
    }

    private static void putConvoyMemory(Map<String, Object> out, String phase) throws Exception {
        if (convoyPresent()) {
            out.put("convoy_memory_" + phase, ManagementFactory.getPlatformMBeanServer()
                    .getAttribute(new ObjectName(MBEAN), "MemoryInUseBytes"));
        }
    }

    static long rssKb() throws IOException {
        return parseRssKb(Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.UTF_8));
    }

    /** VmRSS in kB from the lines of /proc/PID/status; -1 if absent. */
    static long parseRssKb(List<String> status) {
        for (String l : status) {
            if (l.startsWith("VmRSS:")) {
                return Long.parseLong(l.substring(6).trim().split("\\s+")[0]);
            }
        }
        return -1;
    }
}
