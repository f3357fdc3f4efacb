package dev.convoy.testapps.bench;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command line of the benchmark runners: {@code --key value} options, each at most once,
 * and flags without a value. Problems throw {@link IllegalArgumentException} with a message
 * naming the argument.
 */
public final class BenchArgs {
    private final Map<String, String> values = new LinkedHashMap<>();
    private final Set<String> flags = new HashSet<>();

    private BenchArgs() {
    }

    /** Parses args: {@code keys} take a value, {@code flagNames} do not; anything else is an error. */
    public static BenchArgs parse(String[] args, List<String> keys, List<String> flagNames) {
        BenchArgs a = new BenchArgs();
        for (int i = 0; i < args.length; i++) {
            String k = args[i];
            if (flagNames.contains(k)) {
                a.flags.add(k);
                continue;
            }
            if (!keys.contains(k)) {
                throw new IllegalArgumentException("unknown argument '" + k + "'");
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(k + " needs a value");
            }
            if (a.values.put(k, args[++i]) != null) {
                throw new IllegalArgumentException(k + " is given twice");
            }
        }
        return a;
    }

    /** The value of an option, null when absent. */
    public String get(String key) {
        return values.get(key);
    }

    /** The value of an option, {@code dflt} when absent. */
    public String get(String key, String dflt) {
        return values.getOrDefault(key, dflt);
    }

    /** The value of an option that must be given. */
    public String required(String key, String what) {
        String v = values.get(key);
        if (v == null) {
            throw new IllegalArgumentException(key + " " + what + " is required");
        }
        return v;
    }

    /** Whether a flag was given. */
    public boolean flag(String name) {
        return flags.contains(name);
    }

    /** An integer option, at least {@code min}; {@code dflt} when absent. */
    public int intArg(String key, int dflt, int min) {
        String v = values.get(key);
        if (v == null) {
            return dflt;
        }
        int n;
        try {
            n = Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be an integer, got '" + v + "'");
        }
        if (n < min) {
            throw new IllegalArgumentException(key + " must be >= " + min + ", got " + n);
        }
        return n;
    }
}
