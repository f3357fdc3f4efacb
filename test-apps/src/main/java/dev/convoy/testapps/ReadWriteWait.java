package dev.convoy.testapps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A {@link ReentrantReadWriteLock} (nonfair) in two deterministic phases. First R readers hold
 * the read lock while a writer asks for the write lock: the writer parks, the lock held shared
 * (no exclusive owner). The readers release only once the writer is seen parked. Then the writer
 * holds the write lock while a late reader asks for the read lock: the reader parks with the
 * writer as the lock's exclusive owner; the writer releases once the reader is seen parked.
 *
 * <p>Threads: {@code rw-reader-0 .. rw-reader-(R-1)}, {@code rw-writer}, {@code rw-late-reader}.
 * Blocker class: {@code java.util.concurrent.locks.ReentrantReadWriteLock$NonfairSync}.
 */
public final class ReadWriteWait implements Scenario {

    public static final String NAME = "rw-wait";
    public static final String READER_PREFIX = "rw-reader-";
    public static final String WRITER = "rw-writer";
    public static final String LATE_READER = "rw-late-reader";
    public static final String BLOCKER = "java.util.concurrent.locks.ReentrantReadWriteLock$NonfairSync";
    public static final int DEFAULT_READERS = 3;

    /**
     * @param writerWaitedForReaders    the writer was seen parked while the readers held the lock
     * @param lateReaderWaitedForWriter the late reader was seen parked while the writer held it
     */
    public record Result(int readers, boolean writerWaitedForReaders, boolean lateReaderWaitedForWriter,
                         long writerId, long lateReaderId) implements ScenarioResult {

        @Override
        public boolean ok() {
            return writerWaitedForReaders && lateReaderWaitedForWriter;
        }

        @Override
        public String summary() {
            return ScenarioResult.line(NAME, ok(), "readers", readers, "writerWaitedForReaders",
                    writerWaitedForReaders, "lateReaderWaitedForWriter", lateReaderWaitedForWriter,
                    "writerId", writerId, "lateReaderId", lateReaderId);
        }
    }

    private final int readers;

    private ReadWriteWait(int readers) {
        if (readers < 1) {
            throw new IllegalArgumentException("readers must be >= 1");
        }
        this.readers = readers;
    }

    public static ReadWriteWait create(int readers) {
        return new ReadWriteWait(readers);
    }

    public static ReadWriteWait create() {
        return create(DEFAULT_READERS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Result run() {
        ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
        CountDownLatch held = new CountDownLatch(readers);
        CountDownLatch readersGo = new CountDownLatch(1);
        CountDownLatch writerGo = new CountDownLatch(1);
        Threads.Failures failures = new Threads.Failures();
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            all.add(Threads.start(READER_PREFIX + i, failures, () -> {
                rw.readLock().lock();
                try {
                    held.countDown();
                    await(readersGo);
                } finally {
                    rw.readLock().unlock();
                }
            }));
        }
        Threads.require(() -> held.getCount() == 0, "readers holding the read lock");
        Thread writer = Threads.start(WRITER, failures, () -> {
            rw.writeLock().lock();
            try {
                await(writerGo);
            } finally {
                rw.writeLock().unlock();
            }
        });
        all.add(writer);
        boolean writerWaited = Threads.await(() -> rw.hasQueuedThread(writer) && Threads.isParkedOn(writer, BLOCKER),
                Threads.TIMEOUT) && rw.getReadLockCount() == readers;
        readersGo.countDown();
        Threads.require(rw::isWriteLocked, "the writer holding the write lock");
        Thread lateReader = Threads.start(LATE_READER, failures, () -> {
            rw.readLock().lock();
            rw.readLock().unlock();
        });
        all.add(lateReader);
        boolean readerWaited = Threads.await(() -> rw.hasQueuedThread(lateReader)
                && Threads.isParkedOn(lateReader, BLOCKER), Threads.TIMEOUT) && rw.isWriteLocked();
        writerGo.countDown();
        Threads.awaitTermination(all);
        failures.check();
        return new Result(readers, writerWaited, readerWaited, writer.getId(), lateReader.getId());
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        if (!latch.await(Threads.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("never released");
        }
    }

    public static void main(String[] args) {
        Cli.exit(Cli.execute(System.out, NAME, "ReadWriteWait [readers=" + DEFAULT_READERS + "]", () -> {
            Cli.maxArgs(args, 1);
            return create(Cli.intArg(args, 0, "readers", DEFAULT_READERS, 1));
        }));
    }
}
