package dev.convoy.export;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The output formats, with the name used on command lines and the default file suffix. */
public enum Format {
    /** Chrome trace JSON for Perfetto (ui.perfetto.dev) and chrome://tracing: one file. */
    CHROME("chrome", ".json"),
    /** Eclipse TPTP trace XML ({@code .trcxml}), valid against {@code schema/convoy-trace.dtd}: one file. */
    TPTP("tptp", ".trcxml"),
    /**
     * The CSV meta log and event log ({@code schema/csv-log-format.md}): for output path
     * {@code P} (a trailing {@code .csv} removed) the files {@code P.meta.csv} and
     * {@code P.events.csv}.
     */
    CSV("csv", ""),
    /** The binary snapshot itself ({@code schema/snapshot-format.md}): one file. */
    SNAPSHOT("snapshot", ".cvysnap");

    private final String id;
    private final String suffix;

    Format(String id, String suffix) {
        this.id = id;
        this.suffix = suffix;
    }

    /** Command-line name: chrome, tptp, csv, snapshot. */
    public String id() {
        return id;
    }

    /** Suffix appended to a base name for the default output path ("" for CSV, which adds its own). */
    public String suffix() {
        return suffix;
    }

    /**
     * The format of a command-line name, case-insensitive.
     *
     * @throws IllegalArgumentException naming the value and listing the allowed ones
     */
    public static Format parse(String name) {
        for (Format f : values()) {
            if (name != null && f.id.equalsIgnoreCase(name.trim())) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown format '" + name + "'; allowed: " + allowed());
    }

    /** "chrome, tptp, csv, snapshot". */
    public static String allowed() {
        return Arrays.stream(values()).map(Format::id).collect(Collectors.joining(", "));
    }

    @Override
    public String toString() {
        return id.toLowerCase(Locale.ROOT);
    }
}
