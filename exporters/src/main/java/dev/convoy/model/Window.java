package dev.convoy.model;

import dev.convoy.snapshot.SnapshotFormat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A time window of a recording: the part of its history from {@code fromNs} to {@code toNs}
 * (the recorder's monotonic clock, both included), as every front-end cuts it ({@code --since},
 * {@code --from}, {@code --to}, the MBean's {@code dump} with a window).
 *
 * <p>{@link #cut} keeps the records in the window, the losses that overlap it (a loss is one
 * fact: it is kept whole, its time range may reach outside the window), the threads that have
 * either or were alive in it, and the monitor states of the snapshot if the window reaches its
 * end. INFO's start and snapshot times become the window's, {@code window} says which part of
 * which recording it is, and the record totals count the window; the whole recording's are kept
 * under {@code window.of.*}. Records outside the window are not losses: they are outside.
 *
 * @param fromNs first monotonic ns of the window
 * @param toNs   last monotonic ns of the window, at least {@code fromNs}
 */
public record Window(long fromNs, long toNs) {

    public Window {
        if (toNs < fromNs) {
            throw new IllegalArgumentException("a window ends before it begins: " + fromNs + " > " + toNs);
        }
    }

    /** Whether [from, to] overlaps this window. */
    public boolean overlaps(long from, long to) {
        return from <= toNs && to >= fromNs;
    }

    /** The window given on a command line or to the MBean, in {@code r}'s clock (see {@link #parse}). */
    public static Window of(Recording r, String since, String from, String to) {
        return parse(since, from, to, r.startMonotonicNs(), r.snapshotMonotonicNs(), epochOf(r, from != null || to != null),
                ZoneId.systemDefault());
    }

    private static long epochOf(Recording r, boolean needed) {
        long startEpoch = r.infoLong("start.epoch.ns", Long.MIN_VALUE);
        long startMono = r.infoLong("start.monotonic.ns", Long.MIN_VALUE);
        if (startEpoch == Long.MIN_VALUE || startMono == Long.MIN_VALUE) {
            if (!needed) {
                return 0;
            }
            throw new IllegalArgumentException("the recording has no wall-clock time (INFO start.epoch.ns), so it "
                    + "cannot be cut at a time of day; use --since");
        }
        return startEpoch - startMono;
    }

    private static final Pattern DURATION = Pattern.compile("([0-9]{1,9})(ms|s|m|h|d)");

    /**
     * Parses a duration: a whole number and a unit, {@code ms}, {@code s}, {@code m}, {@code h} or
     * {@code d} ({@code 90s}, {@code 10m}, {@code 2h}).
     *
     * @throws IllegalArgumentException naming what is allowed
     */
    public static long durationNs(String text) {
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration; write a whole number and ms, s, m, h "
                    + "or d, e.g. 10m");
        }
        long n = Long.parseLong(m.group(1));
        Duration d = switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
        return d.toNanos();
    }

    /**
     * The window {@code --since D} (the last D before the recording's end), or {@code --from T}
     * and/or {@code --to T} (a missing end is the recording's). T is an instant with its offset
     * ({@code 2026-11-28T14:05:00Z}, {@code 2026-11-28T15:05:00+01:00}), a local date and time
     * ({@code 2026-11-28T14:05}), a time of day ({@code 14:05}, {@code 14:05:30.250}: the last
     * such time at or before the recording's end), all in {@code zone} where no offset is given,
     * or a duration before the recording's end written {@code -10m}. The window is clipped to
     * the recording.
     *
     * @param startNs      the recording's first monotonic ns
     * @param endNs        its last (the snapshot's time)
     * @param epochMinusMono what to add to a monotonic ns to get ns since 1970 UTC
     * @throws IllegalArgumentException for a malformed time, since with from or to, or a window
     *         that misses the recording (the message names its times)
     */
    public static Window parse(String since, String from, String to, long startNs, long endNs, long epochMinusMono,
                               ZoneId zone) {
        if (since != null && (from != null || to != null)) {
            throw new IllegalArgumentException("--since takes the last part of the recording: give it alone, or "
                    + "--from and --to");
        }
        long lo = startNs;
        long hi = endNs;
        if (since != null) {
            lo = endNs - durationNs(since);
        } else {
            if (from != null) {
                lo = time("--from", from, endNs, epochMinusMono, zone);
            }
            if (to != null) {
                hi = time("--to", to, endNs, epochMinusMono, zone);
            }
        }
        if (hi >= lo && (hi < startNs || lo > endNs)) {
            throw new IllegalArgumentException("the window " + describe(lo, epochMinusMono, zone) + " to "
                    + describe(hi, epochMinusMono, zone) + " is outside the recording, which runs from "
                    + describe(startNs, epochMinusMono, zone) + " to " + describe(endNs, epochMinusMono, zone));
        }
        if (hi < lo) {
            String span = (from != null && to == null) || lo > endNs ? " (the recording runs from "
                    + describe(startNs, epochMinusMono, zone) + " to " + describe(endNs, epochMinusMono, zone) + ")" : "";
            throw new IllegalArgumentException("the window ends before it begins: " + describe(lo, epochMinusMono, zone)
                    + " to " + describe(hi, epochMinusMono, zone) + span);
        }
        return new Window(Math.max(lo, startNs), Math.min(hi, endNs));
    }

    private static long time(String what, String text, long endNs, long epochMinusMono, ZoneId zone) {
        String t = text.trim();
        if (t.startsWith("-")) {
            return endNs - durationNs(t.substring(1));
        }
        try {
            Instant instant;
            if (t.matches("\\d{1,2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?")) {
                LocalTime time = LocalTime.parse(t.length() == 4 ? "0" + t : t);
                Instant end = Instant.ofEpochSecond(0, endNs + epochMinusMono);
                LocalDate day = LocalDateTime.ofInstant(end, zone).toLocalDate();
                instant = day.atTime(time).atZone(zone).toInstant();
                if (instant.isAfter(end)) {
                    instant = day.minusDays(1).atTime(time).atZone(zone).toInstant();
                }
            } else if (t.endsWith("Z") || t.matches(".*[+-]\\d{2}:\\d{2}$")) {
                instant = OffsetDateTime.parse(t).toInstant();
            } else {
                instant = LocalDateTime.parse(t).atZone(zone).toInstant();
            }
            return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano())
                    - epochMinusMono;
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException(what + " '" + text + "' is not a time; write 2026-11-28T14:05:00Z, "
                    + "2026-11-28T14:05, 14:05 or -10m (before the recording's end)");
        } catch (DateTimeException e) {
            throw new IllegalArgumentException(what + " '" + text + "': " + e.getMessage());
        }
    }

    private static String describe(long mono, long epochMinusMono, ZoneId zone) {
        Instant i = Instant.ofEpochSecond(0, mono + epochMinusMono);
        return OffsetDateTime.ofInstant(i, zone).toLocalDateTime().withNano(i.getNano() / 1_000_000 * 1_000_000)
                .toString();
    }

    /** The part of {@code r} in this window (see the class comment). */
    public Recording cut(Recording r) {
        List<RecordedThread> threads = new ArrayList<>();
        long kept = 0;
        long overwritten = 0;
        long aged = 0;
        for (RecordedThread t : r.threads()) {
            int in = 0;
            for (int i = 0; i < t.eventCount(); i++) {
                long ts = t.ts(i);
                in += ts >= fromNs && ts <= toNs ? 1 : 0;
            }
            // the window's records only: a short window of a long history takes little heap
            ByteBuffer records = ByteBuffer.allocate(in * SnapshotFormat.RECORD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            int n = 0;
            for (int i = 0; i < t.eventCount(); i++) {
                long ts = t.ts(i);
                if (ts >= fromNs && ts <= toNs) {
                    t.copyRecord(i, records);
                    n++;
                }
            }
            records.flip();
            List<Loss> losses = new ArrayList<>();
            long lost = 0;
            for (Loss l : t.losses()) {
                if (overlaps(l.fromNs(), l.toNs())) {
                    losses.add(l);
                    lost += l.records();
                    if (l.kind() == SnapshotFormat.LOSS_AGED) {
                        aged += l.records();
                    } else {
                        overwritten += l.records();
                    }
                }
            }
            boolean alive = t.startNs() <= toNs && (t.endNs() == 0 || t.endNs() >= fromNs);
            if (n == 0 && losses.isEmpty() && !alive) {
                continue;
            }
            kept += n;
            threads.add(RecordedThread.ofRecords(t.ringId(), t.javaThreadId(), t.threadObject(), t.flags(),
                    t.startNs(), t.endNs(), n + lost, lost, t.dropped(), t.torn(), t.name(), t.group(),
                    t.parentGroup(), t.capacity(), records, n).withLosses(losses));
        }
        Map<String, String> info = new LinkedHashMap<>(r.info());
        long epochMinusMono = r.infoLong("start.epoch.ns", 0) - r.infoLong("start.monotonic.ns", 0);
        for (String key : List.of("records.written", "records.overwritten", "records.aged")) {
            if (info.containsKey(key)) {
                info.put("window.of." + key, info.get(key));
            }
        }
        info.put("records.written", Long.toString(kept + overwritten + aged));
        info.put("records.overwritten", Long.toString(overwritten));
        info.put("records.aged", Long.toString(aged));
        info.put("window", "from=" + fromNs + " to=" + toNs + " of=" + r.startMonotonicNs() + ".."
                + r.snapshotMonotonicNs());
        info.put("start.monotonic.ns", Long.toString(fromNs));
        info.put("start.epoch.ns", Long.toString(fromNs + epochMinusMono));
        info.put("snapshot.monotonic.ns", Long.toString(toNs));
        info.put("snapshot.epoch.ns", Long.toString(toNs + epochMinusMono));
        List<MonitorState> monitors = toNs >= r.snapshotMonotonicNs() ? r.monitors() : List.of();
        return new Recording(r.versionMajor(), r.versionMinor(), info, threads, r.stacks(), r.methods(),
                r.classes(), r.objects(), monitors).withIdleRules(r.idleRules());
    }
}
