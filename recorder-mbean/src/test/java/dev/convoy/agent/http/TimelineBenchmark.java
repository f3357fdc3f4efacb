package dev.convoy.agent.http;

import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotWriter;
import dev.convoy.testing.SyntheticRecordings;

/**
 * The time of {@code /api/timeline} on a large recording (a benchmark, not a test; see
 * docs/performance.md, "Results: web view timeline"): writes a synthetic snapshot of
 * {@code events} events of {@code threads} threads ({@link SyntheticRecordings#synthetic}, seed 1,
 * 50 monitors), serves it offline as {@code ./convoy view} does, and times over HTTP on 127.0.0.1
 * the first request (which builds the timeline's index) and then {@code runs} requests of each of
 * three windows (the whole recording, a tenth, a thousandth) at 1200 pixels: min, median, max in
 * ms and the answer's size.
 *
 * <pre>
 * java -cp CP dev.convoy.agent.http.TimelineBenchmark [events] [threads] [runs]
 * </pre>
 */
public final class TimelineBenchmark {
    private TimelineBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        long events = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        Recording r = SyntheticRecordings.synthetic(events, threads, 50, 1).build();
        Path file = Files.createTempFile("timeline-bench", ".cvysnap");
        try (OutputStream os = Files.newOutputStream(file)) {
            SnapshotWriter.write(r, os);
        }
        long duration = r.snapshotMonotonicNs() - r.startMonotonicNs();
        System.out.printf(Locale.ROOT, "%d events, %d threads, %.1f ms recorded, snapshot %d bytes%n",
                r.threads().stream().mapToLong(t -> t.eventCount()).sum(), threads, duration / 1e6, Files.size(file));
        HttpClient client = HttpClient.newHttpClient();
        try (WebServer server = WebServer.start(new FileSource(file), "127.0.0.1", 0, null)) {
            String base = server.url() + "api/timeline?width=1200";
            long t0 = System.nanoTime();
            HttpResponse<byte[]> first = client.send(HttpRequest.newBuilder(URI.create(base)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            System.out.printf(Locale.ROOT, "first request (builds the index): %.0f ms, %d bytes, status %d%n",
                    (System.nanoTime() - t0) / 1e6, first.body().length, first.statusCode());
            for (long div : new long[] {1, 10, 1000}) {
                long from = duration / 2 - duration / div / 2;
                String url = base + "&from=" + from + "&to=" + (from + duration / div);
                double[] ms = new double[runs];
                int bytes = 0;
                for (int i = -5; i < runs; i++) {
                    long a = System.nanoTime();
                    HttpResponse<byte[]> resp = client.send(HttpRequest.newBuilder(URI.create(url)).build(),
                            HttpResponse.BodyHandlers.ofByteArray());
                    if (resp.statusCode() != 200) {
                        throw new IllegalStateException(new String(resp.body()));
                    }
                    if (i >= 0) {
                        ms[i] = (System.nanoTime() - a) / 1e6;
                    }
                    bytes = resp.body().length;
                }
                Arrays.sort(ms);
                System.out.printf(Locale.ROOT, "window 1/%d: min %.1f ms, median %.1f ms, max %.1f ms, %d bytes%n",
                        div, ms[0], ms[runs / 2], ms[runs - 1], bytes);
            }
        } finally {
            Files.delete(file);
        }
    }
}
