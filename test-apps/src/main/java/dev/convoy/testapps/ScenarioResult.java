package dev.convoy.testapps;

import java.util.List;

/**
 * Facts a scenario reports after {@code run()}. Every result can render itself as the one-line
 * summary that the scenario's {@code main} prints on stdout.
 */
public interface ScenarioResult {

    /** Whether the scenario's own invariants held (the summary line says {@code OK} or {@code FAIL}). */
    boolean ok();

    /** One line, {@code "<scenario-name> OK|FAIL key=value key=value ..."}, no line breaks. */
    String summary();

    /**
     * Builds a summary line from alternating keys and values. Lists are rendered comma separated
     * without spaces so every value is a single whitespace-free token.
     */
    static String line(String scenario, boolean ok, Object... keyValues) {
        if (keyValues.length % 2 != 0) {
            throw new IllegalArgumentException("keyValues must come in pairs");
        }
        StringBuilder sb = new StringBuilder(scenario).append(ok ? " OK" : " FAIL");
        for (int i = 0; i < keyValues.length; i += 2) {
            Object v = keyValues[i + 1];
            String rendered = v instanceof List<?> list
                    ? String.join(",", list.stream().map(String::valueOf).toList())
                    : String.valueOf(v);
            sb.append(' ').append(keyValues[i]).append('=').append(rendered);
        }
        return sb.toString();
    }
}
