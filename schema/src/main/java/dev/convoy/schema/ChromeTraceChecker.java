package dev.convoy.schema;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Structural checks of a Chrome trace JSON file, following
 * {@code schema/chrome-trace.md} (what the Perfetto, DevTools and catapult importers
 * accept).
 *
 * <ul>
 * <li>File: strict UTF-8 JSON, no BOM; an object whose first key is {@code traceEvents}
 *     (or a bare array); no {@code \}{@code uD800..\}{@code uDFFF} surrogate escapes;
 *     {@code metadata}, if present, an object of scalars.</li>
 * <li>Every event: non-empty string {@code name}, a {@code ph} the importers all draw
 *     ({@code X B E I M C s t f}), integer {@code pid} and {@code tid} in 0..2^32-1,
 *     {@code args} (if present) an object.</li>
 * <li>{@code M} events have no {@code ts}; {@code thread_name}/{@code process_name} a
 *     non-empty string {@code args.name}, the sort indexes an integer
 *     {@code args.sort_index}. Every other event a numeric {@code ts} &ge; 0 with at most 3
 *     decimals, in non-decreasing order.</li>
 * <li>{@code X}: {@code dur} &ge; 0 with at most 3 decimals; slices on one (pid, tid) nest
 *     properly (no partial overlap), at most 512 deep. {@code I}: {@code s} is t, p or g.
 *     {@code C}: numeric args.</li>
 * <li>Flow arrows ({@code s}/{@code t}/{@code f}): integer (or hex string) {@code id},
 *     unique per {@code s}; every {@code s} has exactly one {@code f} and vice versa, with
 *     the same {@code cat} and {@code name}; {@code f} has {@code "bp":"e"}; both bind to an
 *     enclosing slice at their ts on their thread (an {@code X} covering the ts or a
 *     thread-scoped {@code I} at the ts), and that slice or instant has the same ts, pid,
 *     tid and cat (what DevTools needs).</li>
 * </ul>
 */
public final class ChromeTraceChecker {

    /** Phases drawn by all three importers; the others are ignored by at least one. */
    public static final Set<String> PHASES = Set.of("X", "B", "E", "I", "M", "C", "s", "t", "f");
    /** Slice nesting Perfetto supports. */
    public static final int MAX_DEPTH = 512;

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private ChromeTraceChecker() {
    }

    /**
     * Checks a file and returns its events in file order.
     *
     * @throws FormatViolation listing every problem found
     * @throws IOException when the file cannot be read
     */
    public static List<JsonNode> check(Path file) throws IOException {
        return check(Files.readAllBytes(file), file.toString());
    }

    /**
     * Checks a trace given as bytes and returns its events in file order.
     *
     * @param source what to name in the message (e.g. the file)
     * @throws FormatViolation listing every problem found
     */
    public static List<JsonNode> check(byte[] bytes, String source) {
        List<String> problems = new ArrayList<>();
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            problems.add("not UTF-8: " + e);
            text = new String(bytes, StandardCharsets.UTF_8);
        }
        if (text.startsWith("\uFEFF")) {
            problems.add("starts with a BOM (Perfetto sniffs the first bytes for {\" or [{\")");
            text = text.substring(1);
        }
        if (!(text.startsWith("{\"") || text.startsWith("[{\"") || text.equals("[]"))) {
            problems.add("does not start with {\" or [{\" (Perfetto sniffs the first 128 bytes for them)");
        }
        problems.addAll(surrogateEscapes(text));
        JsonNode root;
        try {
            root = MAPPER.readTree(text);
        } catch (IOException e) {
            problems.add("not strict JSON: " + e.getMessage());
            throw new FormatViolation(source, problems, e);
        }
        JsonNode array;
        if (root != null && root.isObject()) {
            Iterator<String> keys = root.fieldNames();
            String first = keys.hasNext() ? keys.next() : null;
            if (!"traceEvents".equals(first)) {
                problems.add("first key is " + first + ", not traceEvents");
            }
            array = root.get("traceEvents");
            JsonNode metadata = root.get("metadata");
            if (metadata != null) {
                if (!metadata.isObject()) {
                    problems.add("metadata is not an object");
                } else {
                    metadata.fields().forEachRemaining(m -> {
                        if (m.getValue().isContainerNode()) {
                            problems.add("metadata." + m.getKey() + " is not a scalar");
                        }
                    });
                }
            }
        } else {
            array = root;
        }
        if (array == null || !array.isArray()) {
            problems.add("traceEvents is not an array");
            throw new FormatViolation(source, problems);
        }
        List<JsonNode> events = new ArrayList<>();
        array.forEach(events::add);
        checkEvents(events, problems);
        FormatViolation.throwIfAny(source, problems);
        return events;
    }

    /** {@code \}{@code uD800..\}{@code uDFFF} escapes, which Perfetto's parser rejects. */
    static List<String> surrogateEscapes(String text) {
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < text.length() - 1; i++) {
            if (text.charAt(i) != '\\') {
                continue;
            }
            char next = text.charAt(i + 1);
            if (next == 'u' && i + 6 <= text.length()) {
                String hex = text.substring(i + 2, i + 6);
                if (hex.matches("[dD][89a-fA-F][0-9a-fA-F]{2}")) {
                    problems.add("surrogate escape \\u" + hex + " at char " + i + " (write the raw character)");
                }
            }
            i++; // skip the escaped character (so "\\\\uD800" is not an escape)
        }
        return problems;
    }

    private static String brief(JsonNode e) {
        String s = e.toString();
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    private static boolean isU32(JsonNode n) {
        return n != null && n.isIntegralNumber() && n.canConvertToLong() && n.asLong() >= 0 && n.asLong() <= 0xFFFF_FFFFL;
    }

    /** A non-negative number with at most 3 decimals (ns in microseconds). */
    private static String badMicros(JsonNode n) {
        if (n == null || !n.isNumber()) {
            return "missing or not a number";
        }
        BigDecimal v = n.decimalValue();
        if (v.signum() < 0) {
            return "negative";
        }
        if (v.stripTrailingZeros().scale() > 3) {
            return "more than 3 decimals";
        }
        return null;
    }

    private record Slice(int index, BigDecimal start, BigDecimal end) {
    }

    private record Key(long pid, long tid) {
    }

    private record At(long pid, long tid, BigDecimal ts) {
    }

    private static void checkEvents(List<JsonNode> events, List<String> problems) {
        BigDecimal prev = BigDecimal.ZERO;
        Map<Key, List<Slice>> slices = new HashMap<>();
        // thread-scoped instants and slice starts by (pid, tid, ts): the cats found there
        Map<At, Set<String>> instants = new HashMap<>();
        Map<At, Set<String>> sliceStarts = new HashMap<>();
        List<Integer> flows = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            JsonNode e = events.get(i);
            String where = "event " + i + " " + brief(e) + ": ";
            if (!e.isObject()) {
                problems.add(where + "not an object");
                continue;
            }
            if (!e.path("name").isTextual() || e.path("name").asText().isEmpty()) {
                problems.add(where + "no non-empty string name");
            }
            String ph = e.path("ph").asText("");
            if (!e.path("ph").isTextual() || !PHASES.contains(ph)) {
                problems.add(where + "ph '" + ph + "' is not one all importers draw (X B E I M C s t f)");
            }
            if (!isU32(e.get("pid"))) {
                problems.add(where + "pid is not an integer in 0..2^32-1");
            }
            if (!isU32(e.get("tid"))) {
                problems.add(where + "tid is not an integer in 0..2^32-1");
            }
            if (e.has("args") && !e.get("args").isObject()) {
                problems.add(where + "args is not an object");
            }
            if (ph.equals("M")) {
                if (e.has("ts")) {
                    problems.add(where + "metadata event with a ts");
                }
                String name = e.path("name").asText();
                if ((name.equals("thread_name") || name.equals("process_name"))
                        && (!e.path("args").path("name").isTextual() || e.path("args").path("name").asText().isEmpty())) {
                    problems.add(where + name + " without a non-empty string args.name");
                }
                if ((name.equals("thread_sort_index") || name.equals("process_sort_index"))
                        && !e.path("args").path("sort_index").isIntegralNumber()) {
                    problems.add(where + name + " without an integer args.sort_index");
                }
                continue;
            }
            String badTs = badMicros(e.get("ts"));
            if (badTs != null) {
                problems.add(where + "ts " + badTs);
                continue;
            }
            BigDecimal ts = e.get("ts").decimalValue();
            if (ts.compareTo(prev) < 0) {
                problems.add(where + "not sorted by ts (previous ts " + prev.toPlainString() + ")");
            }
            prev = ts.max(prev);
            Key key = new Key(e.path("pid").asLong(), e.path("tid").asLong());
            At at = new At(key.pid(), key.tid(), ts.stripTrailingZeros());
            String cat = e.path("cat").asText("");
            switch (ph) {
                case "X" -> {
                    String badDur = badMicros(e.get("dur"));
                    if (badDur != null) {
                        problems.add(where + "dur " + badDur);
                    } else {
                        slices.computeIfAbsent(key, k -> new ArrayList<>())
                                .add(new Slice(i, ts, ts.add(e.get("dur").decimalValue())));
                        sliceStarts.computeIfAbsent(at, k -> new HashSet<>()).add(cat);
                    }
                }
                case "I" -> {
                    String s = e.path("s").asText("");
                    if (!Set.of("t", "p", "g").contains(s)) {
                        problems.add(where + "instant scope s '" + s + "' is not t, p or g");
                    }
                    if (s.equals("t")) {
                        instants.computeIfAbsent(at, k -> new HashSet<>()).add(cat);
                    }
                }
                case "C" -> e.path("args").fields().forEachRemaining(a -> {
                    if (!a.getValue().isNumber()) {
                        problems.add(where + "counter arg " + a.getKey() + " is not a number");
                    }
                });
                case "s", "t", "f" -> flows.add(i);
                default -> {
                }
            }
        }
        for (Map.Entry<Key, List<Slice>> track : slices.entrySet()) {
            checkNesting(events, track.getKey(), track.getValue(), problems);
        }
        checkFlows(events, flows, slices, instants, sliceStarts, problems);
    }

    /** Proper nesting on one track: sorted by start (longest first), each slice ends within every open one. */
    private static void checkNesting(List<JsonNode> events, Key key, List<Slice> track, List<String> problems) {
        List<Slice> sorted = new ArrayList<>(track);
        sorted.sort(Comparator.comparing(Slice::start).thenComparing(Slice::end, Comparator.reverseOrder())
                .thenComparingInt(Slice::index));
        List<Slice> open = new ArrayList<>();
        for (Slice s : sorted) {
            while (!open.isEmpty() && open.get(open.size() - 1).end().compareTo(s.start()) <= 0) {
                open.remove(open.size() - 1);
            }
            if (!open.isEmpty()) {
                Slice parent = open.get(open.size() - 1);
                if (s.end().compareTo(parent.end()) > 0) {
                    problems.add("pid " + key.pid() + " tid " + key.tid() + ": partial overlap of slices, event "
                            + parent.index() + " " + brief(events.get(parent.index())) + " and event " + s.index() + " "
                            + brief(events.get(s.index())));
                    continue; // Perfetto moves it to an overflow track
                }
            }
            open.add(s);
            if (open.size() > MAX_DEPTH) {
                problems.add("pid " + key.pid() + " tid " + key.tid() + ": slices nested deeper than " + MAX_DEPTH
                        + " at event " + s.index());
            }
        }
    }

    private static void checkFlows(List<JsonNode> events, List<Integer> flows, Map<Key, List<Slice>> slices,
                                   Map<At, Set<String>> instants, Map<At, Set<String>> sliceStarts,
                                   List<String> problems) {
        Map<String, Integer> starts = new HashMap<>();
        Map<String, Integer> ends = new HashMap<>();
        for (int i : flows) {
            JsonNode e = events.get(i);
            String ph = e.path("ph").asText();
            String where = "event " + i + " " + brief(e) + ": ";
            JsonNode id = e.get("id");
            boolean validId = id != null && (id.isIntegralNumber()
                    || id.isTextual() && id.asText().matches("0[xX][0-9a-fA-F]+"));
            if (!validId) {
                problems.add(where + "flow id is neither an integer nor a hex string");
                continue;
            }
            String idKey = id.isIntegralNumber() ? id.bigIntegerValue().toString()
                    : new java.math.BigInteger(id.asText().substring(2), 16).toString();
            if (ph.equals("s") && starts.put(idKey, i) != null) {
                problems.add(where + "flow id " + idKey + " is not unique (Perfetto keeps the first s)");
            }
            if (ph.equals("f") && ends.put(idKey, i) != null) {
                problems.add(where + "flow id " + idKey + " ends twice");
            }
            if (ph.equals("f") && !"e".equals(e.path("bp").asText(null))) {
                problems.add(where + "f without \"bp\":\"e\" binds to the next slice, not the enclosing one");
            }
            if (!ph.equals("t")) {
                checkBinding(e, where, slices, instants, sliceStarts, problems);
            }
        }
        for (Map.Entry<String, Integer> s : starts.entrySet()) {
            JsonNode start = events.get(s.getValue());
            Integer f = ends.get(s.getKey());
            if (f == null) {
                problems.add("event " + s.getValue() + " " + brief(start) + ": flow " + s.getKey() + " has no f");
                continue;
            }
            JsonNode end = events.get(f);
            if (!start.path("cat").equals(end.path("cat")) || !start.path("name").equals(end.path("name"))) {
                problems.add("flow " + s.getKey() + ": s and f differ in cat or name: " + brief(start) + " / " + brief(end));
            }
        }
        for (Map.Entry<String, Integer> f : ends.entrySet()) {
            if (!starts.containsKey(f.getKey())) {
                problems.add("event " + f.getValue() + " " + brief(events.get(f.getValue())) + ": flow " + f.getKey()
                        + " has no s");
            }
        }
    }

    /** An enclosing slice at the flow's ts on its thread, and one with exactly its ts, pid, tid and cat. */
    private static void checkBinding(JsonNode e, String where, Map<Key, List<Slice>> slices,
                                     Map<At, Set<String>> instants, Map<At, Set<String>> sliceStarts,
                                     List<String> problems) {
        if (badMicros(e.get("ts")) != null || !isU32(e.get("pid")) || !isU32(e.get("tid"))) {
            return; // reported already
        }
        BigDecimal ts = e.get("ts").decimalValue();
        Key key = new Key(e.get("pid").asLong(), e.get("tid").asLong());
        At at = new At(key.pid(), key.tid(), ts.stripTrailingZeros());
        String cat = e.path("cat").asText("");
        boolean enclosed = instants.containsKey(at) || slices.getOrDefault(key, List.of()).stream()
                .anyMatch(s -> s.start().compareTo(ts) <= 0 && ts.compareTo(s.end()) <= 0);
        if (!enclosed) {
            problems.add(where + "no enclosing slice or thread instant at its ts on its thread (flow_no_enclosing_slice)");
            return;
        }
        boolean exact = instants.getOrDefault(at, Set.of()).contains(cat)
                || sliceStarts.getOrDefault(at, Set.of()).contains(cat);
        if (!exact) {
            problems.add(where + "no slice or instant with exactly its ts, pid, tid and cat (DevTools drops the arrow)");
        }
    }
}
