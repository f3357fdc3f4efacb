package dev.convoy.snapshot;

import dev.convoy.model.ClassInfo;
import dev.convoy.model.Loss;
import dev.convoy.model.MethodInfo;
import dev.convoy.model.ObjectInfo;
import dev.convoy.model.RecordedThread;
import dev.convoy.model.Recording;
import dev.convoy.model.StackTrace;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A repository folder (agent option {@code repository}): the history's chunks as the recorder
 * sealed them, {@code chunk-NNNNNNNNNN.cvysnap}, each a snapshot of its own (schema/snapshot-format.md,
 * INFO {@code chunk}), read together as one recording.
 *
 * <p>{@link #read} merges the chunks in their order: a thread's records and losses in chunk order,
 * its identity from its newest chunk; the stack, method, class and object tables of all of them;
 * INFO from the newest, with the recording's start ({@code chunk.recording.start.ns} of the oldest).
 * Chunks are numbered from 1 in a run: when the oldest kept is not the first (older ones aged out
 * of the history, their files deleted), INFO {@code history.from.ns} says from when the history is
 * complete (the oldest kept chunk's first record); a number missing in between (a chunk the disk
 * had no room for) is named in INFO {@code repository.missing}.
 *
 * <p>What a thread's records the folder no longer holds is counted exactly, as LOSS_AGED losses:
 * each chunk says, per thread, how many of its records the chunks before it held (INFO
 * {@code chunk.prior}), so the records missing before a thread's first kept chunk (aged out) and
 * between two of its kept chunks (a missing chunk) are that number less what its kept chunks
 * before hold. The front loss runs from the thread's start (or the recording's) to its first kept
 * record or loss, a loss between from its newest record in the kept chunk before. A thread's
 * records in a missing chunk after its last kept one, or in chunks written without
 * {@code chunk.prior}, are not known: at least one record per missing chunk it was alive in.
 * The records of threads none of whose records is left in the folder are not any thread's loss:
 * INFO {@code records.aged} counts them with the rest, from each chunk's
 * {@code chunk.prior.total} (what all the chunks before it held).
 */
public final class Repository {

    private static final Pattern CHUNK = Pattern.compile("chunk-(\\d{10})\\.cvysnap");

    private Repository() {
    }

    /** Whether {@code dir} is a folder that holds chunk files. */
    public static boolean isRepository(Path dir) throws IOException {
        return Files.isDirectory(dir) && !chunks(dir).isEmpty();
    }

    /** The chunk files of the folder, in their order. */
    public static List<Path> chunks(Path dir) throws IOException {
        Map<Long, Path> bySeq = new java.util.TreeMap<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "chunk-*.cvysnap")) {
            for (Path p : files) {
                Matcher m = CHUNK.matcher(p.getFileName().toString());
                if (m.matches() && Files.isRegularFile(p)) {
                    bySeq.put(Long.parseLong(m.group(1)), p);
                }
            }
        }
        return new ArrayList<>(bySeq.values());
    }

    /**
     * The recording of every chunk in the folder.
     *
     * @throws IOException if the folder holds no chunk, or one cannot be read
     * @throws SnapshotFormatException if a chunk is not a valid snapshot (the message names it)
     */
    public static Recording read(Path dir) throws IOException {
        List<Path> files = chunks(dir);
        if (files.isEmpty()) {
            throw new IOException(dir + " holds no chunk of a repository (chunk-NNNNNNNNNN.cvysnap)");
        }
        List<Recording> parts = new ArrayList<>(files.size());
        List<Long> seqs = new ArrayList<>(files.size());
        for (Path f : files) {
            try {
                parts.add(SnapshotReader.read(f));
            } catch (SnapshotFormatException e) {
                throw new SnapshotFormatException(e.offset(), "in " + f.getFileName() + ": "
                        + e.getMessage().replaceFirst("^offset \\d+: ", ""));
            }
            Matcher m = CHUNK.matcher(f.getFileName().toString());
            m.matches();
            seqs.add(Long.parseLong(m.group(1)));
        }
        return merge(parts, seqs);
    }

    /** The recordings of consecutive chunks as one (see the class comment). */
    static Recording merge(List<Recording> parts, List<Long> seqs) {
        Recording newest = parts.get(parts.size() - 1);
        Map<String, String> info = new LinkedHashMap<>(newest.info());
        info.remove("chunk");
        long firstKept = parts.get(0).startMonotonicNs();
        long start = Math.min(firstKept, parts.get(0).infoLong("chunk.recording.start.ns", firstKept));
        long epochMinusMono = newest.startEpochNs() - newest.startMonotonicNs();
        List<Map<Long, Long>> priors = new ArrayList<>(parts.size());
        for (Recording p : parts) {
            priors.add(priors(p));
        }
        info.put("start.monotonic.ns", Long.toString(start));
        info.put("start.epoch.ns", Long.toString(start + epochMinusMono));
        List<Long> missing = new ArrayList<>();
        List<long[]> gaps = new ArrayList<>(); // {from, to} of missing chunks
        for (int i = 1; i < seqs.size(); i++) {
            for (long s = seqs.get(i - 1) + 1; s < seqs.get(i); s++) {
                missing.add(s);
            }
            if (seqs.get(i) > seqs.get(i - 1) + 1) {
                gaps.add(new long[] {parts.get(i - 1).snapshotMonotonicNs(), parts.get(i).startMonotonicNs()});
            }
        }
        if (seqs.get(0) > 1) {
            info.put("history.from.ns", Long.toString(firstKept));
        } else {
            info.remove("history.from.ns");
        }
        info.remove("chunk.prior");
        info.remove("chunk.prior.total");
        info.remove("chunk.recording.start.ns");
        info.put("repository", "chunks=" + parts.size() + " first=" + seqs.get(0) + " last=" + seqs.get(seqs.size() - 1));
        if (!missing.isEmpty()) {
            info.put("repository.missing", missing.toString().replaceAll("[\\[\\] ]", ""));
        }

        Map<Long, List<RecordedThread>> byRing = new LinkedHashMap<>();
        Map<Long, List<Integer>> partsOf = new LinkedHashMap<>();
        Map<Integer, StackTrace> stacks = new LinkedHashMap<>();
        Map<Long, MethodInfo> methods = new LinkedHashMap<>();
        Map<Long, ClassInfo> classes = new LinkedHashMap<>();
        Map<Long, ObjectInfo> objects = new LinkedHashMap<>();
        for (int pi = 0; pi < parts.size(); pi++) {
            Recording p = parts.get(pi);
            for (RecordedThread t : p.threads()) {
                byRing.computeIfAbsent(t.ringId(), k -> new ArrayList<>()).add(t);
                partsOf.computeIfAbsent(t.ringId(), k -> new ArrayList<>()).add(pi);
            }
            stacks.putAll(p.stacks());
            methods.putAll(p.methods());
            classes.putAll(p.classes());
            objects.putAll(p.objects());
        }
        List<RecordedThread> threads = new ArrayList<>();
        long written = 0;
        long overwritten = 0;
        long aged = 0;
        for (Map.Entry<Long, List<RecordedThread>> e : byRing.entrySet()) {
            List<RecordedThread> pieces = e.getValue();
            List<Integer> in = partsOf.get(e.getKey());
            RecordedThread last = pieces.get(pieces.size() - 1);
            int count = 0;
            for (RecordedThread t : pieces) {
                count += t.eventCount();
            }
            ByteBuffer records = ByteBuffer.allocate(count * SnapshotFormat.RECORD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            List<Loss> losses = new ArrayList<>();
            long threadWritten = 0;
            long dropped = 0;
            long torn = 0;
            for (RecordedThread t : pieces) {
                for (int i = 0; i < t.eventCount(); i++) {
                    t.copyRecord(i, records);
                }
                losses.addAll(t.losses());
                threadWritten += t.written();
                dropped = Math.max(dropped, t.dropped());
                torn += t.torn();
            }
            // Before each kept piece: what the chunks before it held of the thread, less what the kept ones hold.
            long accounted = 0;
            long exactUntil = Long.MIN_VALUE; // gaps before this time are counted exactly
            long prevEnd = 0;
            for (int j = 0; j < pieces.size(); j++) {
                RecordedThread t = pieces.get(j);
                Recording part = parts.get(in.get(j));
                Long prior = priors.get(in.get(j)) == null ? null : priors.get(in.get(j)).get(e.getKey());
                if (prior != null) {
                    long gone = prior - accounted;
                    if (gone > 0) {
                        long from = j == 0 ? frontFrom(t, start) : prevEnd;
                        long to = firstTime(t, part);
                        losses.add(new Loss(SnapshotFormat.LOSS_AGED, from, Math.max(from, to), gone));
                        threadWritten += gone;
                    }
                    accounted = Math.max(accounted, prior);
                    exactUntil = part.snapshotMonotonicNs();
                } else {
                    exactUntil = Long.MIN_VALUE;
                }
                accounted += t.written();
                prevEnd = lastTime(t, part, prevEnd);
            }
            // A missing chunk after its last exact one is a time this thread's records may have been in: unknown.
            for (long[] g : gaps) {
                if (g[1] > exactUntil && last.startNs() <= g[1] && (last.endNs() == 0 || last.endNs() >= g[0])) {
                    losses.add(new Loss(SnapshotFormat.LOSS_AGED, g[0], g[1], 1));
                    threadWritten += 1;
                }
            }
            losses.sort(java.util.Comparator.comparingLong(Loss::fromNs));
            List<Loss> merged = new ArrayList<>();
            for (Loss l : losses) {
                Loss prev = merged.isEmpty() ? null : merged.get(merged.size() - 1);
                if (prev != null && l.fromNs() <= prev.toNs()) {
                    merged.set(merged.size() - 1, new Loss(prev.kind(), prev.fromNs(), Math.max(prev.toNs(), l.toNs()),
                            prev.records() + l.records()));
                } else {
                    merged.add(l);
                }
            }
            long lost = 0;
            for (Loss l : merged) {
                lost += l.records();
                if (l.kind() == SnapshotFormat.LOSS_AGED) {
                    aged += l.records();
                } else {
                    overwritten += l.records();
                }
            }
            written += threadWritten;
            records.flip();
            threads.add(RecordedThread.ofRecords(last.ringId(), last.javaThreadId(), last.threadObject(), last.flags(),
                    pieces.get(0).startNs(), last.endNs(), threadWritten, lost, dropped, torn, last.name(),
                    last.group(), last.parentGroup(), last.capacity(), records, count).withLosses(merged));
        }
        // Over all threads, those none of whose records is left included: what the chunks before each kept one held,
        // less what the kept ones before it hold.
        long agedTotal = agedTotal(parts, seqs);
        if (agedTotal > aged) {
            written += agedTotal - aged;
            aged = agedTotal;
        }
        info.put("records.written", Long.toString(written));
        info.put("records.overwritten", Long.toString(overwritten));
        info.put("records.aged", Long.toString(aged));
        return new Recording(newest.versionMajor(), newest.versionMinor(), info, threads, stacks, methods, classes,
                objects, List.of());
    }

    /**
     * The records of every thread the folder lacks (INFO {@code chunk.prior.total}): before its first
     * kept chunk, and in each run of missing chunks; -1 if a chunk does not say (written before 1.7).
     */
    private static long agedTotal(List<Recording> parts, List<Long> seqs) {
        long[] prior = new long[parts.size()];
        for (int i = 0; i < parts.size(); i++) {
            prior[i] = parts.get(i).infoLong("chunk.prior.total", -1);
            if (prior[i] < 0) {
                return -1;
            }
        }
        long aged = prior[0];
        for (int i = 1; i < parts.size(); i++) {
            if (seqs.get(i) > seqs.get(i - 1) + 1) {
                long held = 0;
                for (RecordedThread t : parts.get(i - 1).threads()) {
                    held += t.written();
                }
                aged += Math.max(0, prior[i] - prior[i - 1] - held);
            }
        }
        return aged;
    }

    /** INFO {@code chunk.prior} of a chunk, {@code RING=N,...}, by ring id; null if absent or malformed. */
    private static Map<Long, Long> priors(Recording chunk) {
        String v = chunk.info().get("chunk.prior");
        if (v == null) {
            return null;
        }
        Map<Long, Long> out = new java.util.HashMap<>();
        if (v.isEmpty()) {
            return out;
        }
        try {
            for (String pair : v.split(",")) {
                int eq = pair.indexOf('=');
                out.put(Long.parseUnsignedLong(pair.substring(0, eq)), Long.parseUnsignedLong(pair.substring(eq + 1)));
            }
        } catch (RuntimeException e) {
            return null;
        }
        return out;
    }

    /** Where a thread's history begins: its start, or the recording's if it started before or unseen. */
    private static long frontFrom(RecordedThread t, long start) {
        return (t.flags() & SnapshotFormat.RING_LATE) != 0 || t.startNs() < start ? start : t.startNs();
    }

    /** The first time a piece of a thread holds: its first record, else its first loss's end, else the chunk's end. */
    private static long firstTime(RecordedThread t, Recording part) {
        if (t.eventCount() > 0) {
            return t.ts(0);
        }
        return t.losses().isEmpty() ? part.snapshotMonotonicNs() : t.losses().get(0).toNs();
    }

    /** The newest time a piece of a thread holds: its newest record, else its newest loss's end. */
    private static long lastTime(RecordedThread t, Recording part, long before) {
        long last = t.eventCount() > 0 ? t.ts(t.eventCount() - 1) : before;
        for (Loss l : t.losses()) {
            last = Math.max(last, l.toNs());
        }
        return last;
    }
}
