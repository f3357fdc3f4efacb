package dev.convoy.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A file cut and rewritten over and over on a thread of its own, for readers that must survive
 * their input changing under them: each round truncates it at a random length, then writes it
 * whole again. Closing stops the churn and waits for its thread.
 */
public final class FileChurn implements AutoCloseable {

    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    private FileChurn(Path file, byte[] whole, long seed) {
        thread = new Thread(() -> {
            Random random = new Random(seed);
            while (!stop.get()) {
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    ch.truncate(random.nextInt(whole.length)); // cut while a reader may be reading it
                    ch.write(ByteBuffer.wrap(whole), 0); // and whole again
                } catch (IOException e) {
                    return;
                }
            }
        }, "file-churn");
        thread.start();
    }

    /** Starts churning {@code file}, whose whole content is {@code whole}. */
    public static FileChurn start(Path file, byte[] whole, long seed) {
        return new FileChurn(file, whole, seed);
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join();
    }
}
