package dev.convoy.export;

import dev.convoy.analysis.ContentionIndex;
import dev.convoy.export.jfr.JfrWriter;
import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The outputs Convoy writes: one constant per file kind, with its name, file suffix, media
 * type and writer. Every front-end takes these names: {@code convoy convert} and {@code dump},
 * the MBean's {@code dump} and {@code openStream}, {@code dumponexit}, the web view's downloads.
 *
 * <p>A name selects outputs: each constant's own name selects it; {@code csv} selects the
 * CSV logs as the JVMTI backend's specification has them ({@link #CSV_META},
 * {@link #CSV_EVENTS}) with the file that says what was lost ({@link #CSV_LOSSES}), and
 * {@code csv-ext} the same with Convoy's extended event log ({@link #CSV_EVENTS_EXT}) in place
 * of the specification's ({@code schema/csv-log-format.md}). A new format is one new constant
 * here and its writer.
 */
public enum Output {
    /** Chrome trace JSON for Perfetto (ui.perfetto.dev) and chrome://tracing. */
    CHROME("chrome", ".json", "application/json") {
        @Override
        public void write(Recording r, OutputStream out) throws IOException {
            new ChromeTraceWriter().write(r, out);
        }
    },
    /** Eclipse TPTP trace XML, valid against {@code schema/convoy-trace.dtd}. */
    TPTP("tptp", ".trcxml", "application/xml") {
        @Override
        public void write(Recording r, OutputStream out) throws IOException {
            new TptpXmlWriter().write(r, out);
        }
    },
    /** The CSV meta log ({@code schema/csv-log-format.md}): threads, monitors, methods, classes. */
    CSV_META("csv-meta", ".meta.csv", "text/csv; charset=utf-8") {
        @Override
        public void write(Recording r, OutputStream out) throws IOException {
            new CsvLogWriter().writeMeta(r, out);
        }
    },
    /**
     * The CSV event log ({@code schema/csv-log-format.md}), read with its meta log: the
     * specification's events only, for tools built on that specification.
     */
    CSV_EVENTS("csv-events", ".events.csv", "text/csv; charset=utf-8") {
        @Override
        public void write(Recording r, OutputStream out) throws IOException {
            new CsvLogWriter().writeEvents(r, out);
        }
    },
    /**
     * The extended CSV event log ({@code schema/csv-log-format.md}, "Extension"): every line of
     * {@link #CSV_EVENTS} and, among them, Convoy's own lines (owner kinds, parks, unparks).
     */
    CSV_EVENTS_EXT("csv-events-ext", ".events-ext.csv", "text/csv; charset=utf-8") {
        @Override
        public void write(Recording r, OutputStream out) throws IOException {
            new CsvLogWriter().writeEvents(r, out, true);
        }
    },
    /** What the CSV logs lack ({@code schema/csv-log-format.md}, "Losses"): the records lost, per thread and time. */
    CSV_LOSSES("csv-losses", ".losses.csv", "text/csv; charset=utf-8") {
        @Override
        public void write(Recording r, OutputStream out) throws IOException {
            new CsvLogWriter().writeLosses(r, out);
        }
    },
    /**
     * A JFR recording ({@code docs/formats.md}, "JFR") for JDK Mission Control, the JDK's
     * {@code jfr} tool and {@code jdk.jfr.consumer}: the JDK's event types, written by
     * {@link JfrWriter}.
     */
    JFR("jfr", ".jfr", "application/octet-stream") {
        @Override
        public void write(Recording r, OutputStream out) throws IOException {
            new JfrWriter().write(r, out);
        }
    },
    /**
     * The binary snapshot ({@code schema/snapshot-format.md}): the bytes the recording was
     * read from, unchanged; a recording made in memory is encoded by {@link SnapshotWriter}.
     */
    SNAPSHOT("snapshot", ".cvysnap", "application/octet-stream") {
        @Override
        public void write(Recording r, OutputStream out) throws IOException {
            Optional<ByteBuffer> bytes = r.bytes();
            if (bytes.isPresent()) {
                WritableByteChannel ch = Channels.newChannel(out);
                ByteBuffer b = bytes.get();
                while (b.hasRemaining()) {
                    ch.write(b);
                }
            } else {
                SnapshotWriter.write(r, out);
            }
        }
    },
    /**
     * Folded stacks of blocked and waited time ({@link FlameStacks}): one line per stack,
     * {@code blocked;CLASS;frame;...;frame NANOSECONDS}, for flamegraph.pl, speedscope and
     * profiling servers.
     */
    COLLAPSED("collapsed", ".collapsed.txt", "text/plain; charset=utf-8") {
        @Override
        public void write(Recording r, OutputStream out) throws IOException {
            FlameStacks.of(r).writeCollapsed(out);
        }
    },
    /** The flame graphs of blocked and waited time as one self-contained HTML page ({@link FlameGraph}). */
    FLAMEGRAPH("flamegraph", ".html", "text/html; charset=utf-8") {
        @Override
        public void write(Recording r, OutputStream out) throws IOException {
            FlameGraph.write(r, out);
        }
    },
    /**
     * Blocked and waited time by stack as a gzip-compressed pprof profile ({@link PprofWriter}), for
     * {@code go tool pprof} and the continuous profilers: Go's contention sample types, labelled
     * by thread, lock class, state and kind.
     */
    PPROF("pprof", ".pb.gz", "application/octet-stream") {
        @Override
        public void write(Recording r, OutputStream out) throws IOException {
            new PprofWriter().write(r, out);
        }
    };

    /** The name that selects the CSV logs of the specification and the losses file. */
    public static final String CSV = "csv";

    /** The name that selects the CSV meta log, the extended event log and the losses file. */
    public static final String CSV_EXT = "csv-ext";

    /** The names that select several CSV files, and what each selects. */
    private static final Map<String, Set<Output>> CSV_SETS = Map.of(
            CSV, EnumSet.of(CSV_META, CSV_EVENTS, CSV_LOSSES),
            CSV_EXT, EnumSet.of(CSV_META, CSV_EVENTS_EXT, CSV_LOSSES));

    /** The names of {@link #CSV_SETS} in the order they are listed. */
    private static final List<String> CSV_SET_NAMES = List.of(CSV, CSV_EXT);

    /** Every CSV file: those selected together are written together. */
    private static final Set<Output> CSV_FILES = EnumSet.of(CSV_META, CSV_EVENTS, CSV_EVENTS_EXT, CSV_LOSSES);

    private final String id;
    private final String suffix;
    private final String mediaType;

    Output(String id, String suffix, String mediaType) {
        this.id = id;
        this.suffix = suffix;
        this.mediaType = mediaType;
    }

    /** The name on command lines, in options and in the APIs: chrome, tptp, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, ..., pprof. */
    public String id() {
        return id;
    }

    /** The suffix of the file name: {@code .json}, {@code .trcxml}, {@code .meta.csv}, ... */
    public String suffix() {
        return suffix;
    }

    /** The media type of the file (HTTP Content-Type). */
    public String mediaType() {
        return mediaType;
    }

    /** Writes the recording in this output's format to a stream, which is not closed. */
    public abstract void write(Recording r, OutputStream out) throws IOException;

    /**
     * The outputs a name selects, case-insensitive: one constant's name, {@value #CSV} for the
     * CSV meta log, event log and losses file, or {@value #CSV_EXT} for the meta log, the
     * extended event log and the losses file.
     *
     * @throws IllegalArgumentException naming the value and listing the allowed names
     */
    public static Set<Output> select(String name) {
        String n = normalizedName(name);
        Set<Output> set = CSV_SETS.get(n);
        if (set != null) {
            return EnumSet.copyOf(set);
        }
        for (Output o : values()) {
            if (o.id.equals(n)) {
                return EnumSet.of(o);
            }
        }
        throw new IllegalArgumentException("unknown format " + quotedName(name) + "; allowed: " + names());
    }

    /**
     * The one output a name selects, for a single stream or download.
     *
     * @throws IllegalArgumentException for an unknown name, or {@value #CSV} or {@value #CSV_EXT},
     *                                  which are several files
     */
    public static Output one(String name) {
        String n = normalizedName(name);
        for (Output o : values()) {
            if (o.id.equals(n)) {
                return o;
            }
        }
        Set<Output> set = CSV_SETS.get(n);
        throw new IllegalArgumentException("unknown format " + quotedName(name) + "; allowed: " + singleNames()
                + (set == null ? "" : " (" + n + " is " + set.size() + " files: ask for "
                        + set.stream().map(Output::id).collect(Collectors.joining(", ")) + " one at a time)"));
    }

    /**
     * A name as compared: lower case, without the spaces around it; a name with a control
     * character ({@code chrome%00} in a URL) is no name of a format, not one with a part cut off.
     */
    public static String normalizedName(String name) {
        if (name == null) {
            return "";
        }
        return name.chars().anyMatch(Character::isISOControl) ? "" : name.strip().toLowerCase(Locale.ROOT);
    }

    /** The name as given, quoted, its control characters written as {@code \\uXXXX}. */
    public static String quotedName(String name) {
        if (name == null) {
            return "(none given)";
        }
        StringBuilder sb = new StringBuilder("'");
        for (char c : name.toCharArray()) {
            sb.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return sb.append('\'').toString();
    }

    /**
     * The names {@link #select} takes: "chrome, tptp, csv, csv-ext, csv-meta, csv-events,
     * csv-events-ext, csv-losses, jfr, snapshot, collapsed, flamegraph, pprof".
     */
    public static String names() {
        List<String> all = new ArrayList<>();
        for (Output o : values()) {
            if (o == CSV_META) {
                all.addAll(CSV_SET_NAMES);
            }
            all.add(o.id);
        }
        return String.join(", ", all);
    }

    /** The names {@link #one} takes: "chrome, tptp, csv-meta, csv-events, csv-events-ext, csv-losses, jfr, ..., pprof". */
    public static String singleNames() {
        return Arrays.stream(values()).map(Output::id).collect(Collectors.joining(", "));
    }

    /**
     * A selection written back as names joined by {@code +}, the CSV files as {@value #CSV}
     * and {@value #CSV_EXT} where all of theirs are selected: "chrome+csv", "csv+csv-ext".
     */
    public static String join(Set<Output> outputs) {
        List<String> names = new ArrayList<>();
        Set<Output> covered = EnumSet.noneOf(Output.class);
        for (Output o : values()) {
            if (o == CSV_META) {
                for (String set : CSV_SET_NAMES) {
                    if (outputs.containsAll(CSV_SETS.get(set))) {
                        names.add(set);
                        covered.addAll(CSV_SETS.get(set));
                    }
                }
            }
            if (outputs.contains(o) && !covered.contains(o)) {
                names.add(o.id);
            }
        }
        return String.join("+", names);
    }

    /**
     * The files of a selection written to {@code path}: a single output is written to
     * {@code path} itself; several are written to {@code path} (a trailing {@code .csv}
     * removed) plus each one's suffix, so {@code csv} to {@code x.csv} writes
     * {@code x.meta.csv}, {@code x.events.csv} and {@code x.losses.csv}.
     */
    public static Map<Output, Path> files(Set<Output> outputs, Path path) {
        Map<Output, Path> files = new LinkedHashMap<>();
        if (outputs.size() == 1) {
            files.put(outputs.iterator().next(), path);
            return files;
        }
        String name = path.getFileName().toString();
        if (name.toLowerCase(Locale.ROOT).endsWith(".csv")) {
            name = name.substring(0, name.length() - ".csv".length());
        }
        for (Output o : values()) {
            if (outputs.contains(o)) {
                files.put(o, path.resolveSibling(name + o.suffix));
            }
        }
        return files;
    }

    /**
     * Refuses a path whose files ({@link #files}) would have names too long to write
     * ({@link AtomicFiles#MAX_NAME_BYTES}), before any work is done for them.
     *
     * @throws IllegalArgumentException naming the limit
     */
    public static void checkFileNames(Set<Output> outputs, Path path) {
        for (Path f : files(outputs, path).values()) {
            Path name = f.getFileName();
            if (name != null) {
                AtomicFiles.checkName(name.toString());
            }
        }
    }

    /**
     * A selection cut into the groups written together, in this enum's order: the CSV files
     * selected are one group (its first file, the meta log when selected, is the group's
     * commit mark, {@link AtomicFiles}), every other output a group of its own.
     */
    public static List<Set<Output>> groups(Set<Output> outputs) {
        List<Set<Output>> groups = new ArrayList<>();
        boolean csv = false;
        for (Output o : values()) {
            if (!outputs.contains(o)) {
                continue;
            }
            if (CSV_FILES.contains(o)) {
                if (!csv) {
                    Set<Output> group = EnumSet.copyOf(CSV_FILES);
                    group.retainAll(outputs);
                    groups.add(group);
                    csv = true;
                }
            } else {
                groups.add(EnumSet.of(o));
            }
        }
        return groups;
    }

    /**
     * The default file of a selection for a base name: the base plus the suffix of a single
     * output, the base alone for several (their suffixes are added by {@link #files}).
     */
    public static String defaultName(String base, Set<Output> outputs) {
        return outputs.size() == 1 ? base + outputs.iterator().next().suffix : base;
    }

    /**
     * Writes a selection to {@code path} ({@link #files}), all or nothing: every file is
     * written to a temporary name and the renames happen once all are written
     * ({@link AtomicFiles}). The outputs share one analysis of the recording ({@link ContentionIndex#hold}).
     *
     * @return the files written, in this enum's order
     */
    public static List<Path> write(Recording r, Set<Output> outputs, Path path) throws IOException {
        Map<Path, AtomicFiles.Content> contents = new LinkedHashMap<>();
        for (Map.Entry<Output, Path> f : files(outputs, path).entrySet()) {
            Output o = f.getKey();
            contents.put(f.getValue(), os -> o.write(r, os));
        }
        try (ContentionIndex.Hold hold = ContentionIndex.hold(r)) {
            return AtomicFiles.write(contents);
        }
    }

    @Override
    public String toString() {
        return id;
    }
}
