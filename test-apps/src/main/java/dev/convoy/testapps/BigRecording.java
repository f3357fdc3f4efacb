package dev.convoy.testapps;

import java.io.IOException;

/**
 * A large recording in a small heap: two threads hand a token back and forth with
 * {@code wait}/{@code notify} N times (about four records a round trip), then the app prints
 * {@link #MARKER} and stays alive until its stdin ends, for tests that snapshot and dump it then.
 *
 * <p>Usage: {@code BigRecording [roundTrips=400000]}.
 */
public final class BigRecording {
    public static final String MARKER = "big-recording: recorded";
    public static final int DEFAULT_ROUND_TRIPS = 400_000;

    private static final Object TOKEN = new Object();
    private static boolean pingsTurn = true;

    private BigRecording() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_ROUND_TRIPS;
        Thread ping = new Thread(() -> play(n, true), "ping");
        Thread pong = new Thread(() -> play(n, false), "pong");
        ping.start();
        pong.start();
        ping.join();
        pong.join();
        System.out.println(MARKER + " " + n);
        System.out.flush();
        try {
            while (System.in.read() >= 0) {
                // hold until stdin ends
            }
        } catch (IOException e) {
            // stdin closed
        }
    }

    private static void play(int n, boolean ping) {
        for (int i = 0; i < n; i++) {
            synchronized (TOKEN) {
                while (pingsTurn != ping) {
                    try {
                        TOKEN.wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                pingsTurn = !ping;
                TOKEN.notifyAll();
            }
        }
    }
}
