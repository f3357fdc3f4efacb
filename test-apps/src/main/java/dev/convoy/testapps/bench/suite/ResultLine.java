package dev.convoy.testapps.bench.suite;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The one machine-readable line a suite workload prints: {@code SUITE key=value key=value ...}.
 * Values contain no blanks. Keys keep their order; a key given twice is an error.
 */
public final class ResultLine {

    public static final String PREFIX = "SUITE";

    private ResultLine() {
    }

    /** Formats {@code kv} (values via {@link #value(Object)}) as one line. */
    public static String format(Map<String, ?> kv) {
        StringBuilder sb = new StringBuilder(PREFIX);
        for (Map.Entry<String, ?> e : kv.entrySet()) {
            if (!e.getKey().matches("[A-Za-z0-9_.-]+")) {
                throw new IllegalArgumentException("bad key '" + e.getKey() + "'");
            }
            String v = value(e.getValue());
            if (v.isEmpty() || v.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("value of '" + e.getKey() + "' is empty or has blanks: '" + v + "'");
            }
            sb.append(' ').append(e.getKey()).append('=').append(v);
        }
        return sb.toString();
    }

    /** Doubles with 3 decimals (no exponent), everything else with toString. */
    static String value(Object o) {
        if (o instanceof Double || o instanceof Float) {
            return String.format(Locale.ROOT, "%.3f", ((Number) o).doubleValue());
        }
        return String.valueOf(o);
    }

    /** Parses a SUITE line; throws {@link IllegalArgumentException} naming what is wrong. */
    public static Map<String, String> parse(String line) {
        String[] parts = line.trim().split("\\s+");
        if (parts.length == 0 || !parts[0].equals(PREFIX)) {
            throw new IllegalArgumentException("not a " + PREFIX + " line: '" + line + "'");
        }
        Map<String, String> kv = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq <= 0 || eq == parts[i].length() - 1) {
                throw new IllegalArgumentException("malformed field '" + parts[i] + "' in '" + line + "'");
            }
            if (kv.put(parts[i].substring(0, eq), parts[i].substring(eq + 1)) != null) {
                throw new IllegalArgumentException("key '" + parts[i].substring(0, eq) + "' given twice");
            }
        }
        return kv;
    }

    /** The last SUITE line among a child's output lines, parsed. */
    public static Optional<Map<String, String>> find(List<String> lines) {
        Map<String, String> found = null;
        for (String l : lines) {
            String t = l.trim();
            if (t.startsWith(PREFIX + " ")) {
                found = parse(t);
            }
        }
        return Optional.ofNullable(found);
    }

    /** A numeric field; throws if absent or not a number. */
    public static double number(Map<String, String> kv, String key) {
        String v = kv.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing '" + key + "' in " + kv);
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + key + "' is not a number: '" + v + "'");
        }
    }
}
