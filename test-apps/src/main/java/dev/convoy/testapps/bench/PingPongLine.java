package dev.convoy.testapps.bench;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The one machine-readable line {@link PingPong} prints:
 * {@code PINGPONG roundtrips=N warmup=W nanos=T ns_per_roundtrip=X}. Keys may come in any order
 * and unknown keys are ignored; {@code warmup} is optional.
 */
public record PingPongLine(long roundtrips, long warmup, long nanos) {

    public static final String PREFIX = "PINGPONG";

    public PingPongLine {
        if (roundtrips <= 0) {
            throw new IllegalArgumentException("roundtrips must be > 0, got " + roundtrips);
        }
        if (nanos < 0) {
            throw new IllegalArgumentException("nanos must be >= 0, got " + nanos);
        }
    }

    public double nsPerRoundtrip() {
        return (double) nanos / roundtrips;
    }

    public String format() {
        return String.format(Locale.ROOT, "%s roundtrips=%d warmup=%d nanos=%d ns_per_roundtrip=%.1f",
                PREFIX, roundtrips, warmup, nanos, nsPerRoundtrip());
    }

    /**
     * Parses one line; throws {@link IllegalArgumentException} naming what is wrong if it is not
     * a PINGPONG line or lacks {@code roundtrips} or {@code nanos}.
     */
    public static PingPongLine parse(String line) {
        String[] parts = line.trim().split("\\s+");
        if (parts.length == 0 || !parts[0].equals(PREFIX)) {
            throw new IllegalArgumentException("not a " + PREFIX + " line: '" + line + "'");
        }
        Map<String, String> kv = new HashMap<>();
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("malformed field '" + parts[i] + "' in '" + line + "'");
            }
            kv.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
        }
        long roundtrips = number(kv, "roundtrips", line, true);
        long warmup = number(kv, "warmup", line, false);
        long nanos = number(kv, "nanos", line, true);
        return new PingPongLine(roundtrips, warmup, nanos);
    }

    /** The first PINGPONG line among {@code lines} (a child JVM's output), if any. */
    public static Optional<PingPongLine> find(List<String> lines) {
        for (String l : lines) {
            String t = l.trim();
            if (t.equals(PREFIX) || t.startsWith(PREFIX + " ")) {
                return Optional.of(parse(t));
            }
        }
        return Optional.empty();
    }

    private static long number(Map<String, String> kv, String key, String line, boolean required) {
        String v = kv.get(key);
        if (v == null) {
            if (required) {
                throw new IllegalArgumentException("missing '" + key + "=' in '" + line + "'");
            }
            return 0;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + key + "' is not an integer in '" + line + "'");
        }
    }
}
