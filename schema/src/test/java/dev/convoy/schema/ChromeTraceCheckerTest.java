package dev.convoy.schema;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChromeTraceCheckerTest {

    static final String META = "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\u00e9 \uD83D\uDE00\"}}";

    static List<String> problems(String json) {
        FormatViolation v = assertThrows(FormatViolation.class,
                () -> ChromeTraceChecker.check(json.getBytes(StandardCharsets.UTF_8), "t.json"));
        return v.problems();
    }

    static String trace(String... events) {
        return "{\"traceEvents\":[" + META + (events.length == 0 ? "" : "," + String.join(",", events)) + "]}";
    }

    static String ev(String ph, String name, String ts, long tid, String more) {
        return "{\"name\":\"" + name + "\",\"cat\":\"c\",\"ph\":\"" + ph + "\",\"ts\":" + ts + ",\"pid\":1,\"tid\":" + tid
                + (more.isEmpty() ? "" : "," + more) + "}";
    }

    static final String GOOD_FLOW = String.join(",",
            ev("X", "a", "0", 1, "\"dur\":10"),
            ev("X", "b", "5", 2, "\"dur\":7.5"),
            ev("I", "rel", "10", 1, "\"s\":\"t\""),
            ev("s", "h", "10", 1, "\"id\":1"),
            ev("I", "acq", "12.5", 2, "\"s\":\"t\""),
            ev("f", "h", "12.5", 2, "\"id\":1,\"bp\":\"e\""));

    @Test
    void acceptsAWellFormedTrace() {
        String sorted = trace(ev("X", "a", "0", 1, "\"dur\":10"), ev("X", "inner", "1", 1, "\"dur\":9"),
                ev("X", "b", "5", 2, "\"dur\":7.5"), ev("I", "rel", "10", 1, "\"s\":\"t\""),
                ev("s", "h", "10", 1, "\"id\":1"), ev("I", "acq", "12.5", 2, "\"s\":\"t\""),
                ev("f", "h", "12.5", 2, "\"id\":1,\"bp\":\"e\""));
        assertEquals(8, ChromeTraceChecker.check(sorted.getBytes(StandardCharsets.UTF_8), "ok").size());
    }

    @Test
    void fileLevelRules() {
        assertTrue(problems("{\"metadata\":{},\"traceEvents\":[]}").stream().anyMatch(p -> p.contains("first key")));
        assertTrue(problems("\uFEFF" + trace()).stream().anyMatch(p -> p.contains("BOM")));
        assertTrue(problems(trace().replace("\uD83D\uDE00", "\\uD83D\\uDE00")).stream().anyMatch(p -> p.contains("surrogate")));
        assertEquals(List.of(), ChromeTraceChecker.surrogateEscapes("\"a\\\\uD800\""), "an escaped backslash, not an escape");
        assertTrue(problems("{\"traceEvents\":[}").stream().anyMatch(p -> p.contains("not strict JSON")));
    }

    @Test
    void eventRules() {
        assertTrue(problems(trace(ev("X", "", "0", 1, "\"dur\":1"))).stream().anyMatch(p -> p.contains("name")));
        assertTrue(problems(trace(ev("X", "a", "-1", 1, "\"dur\":1"))).stream().anyMatch(p -> p.contains("ts negative")));
        assertTrue(problems(trace(ev("X", "a", "0.0001", 1, "\"dur\":1"))).stream().anyMatch(p -> p.contains("3 decimals")));
        assertTrue(problems(trace(ev("I", "a", "5", 1, "\"s\":\"t\""), ev("I", "b", "4", 1, "\"s\":\"t\"")))
                .stream().anyMatch(p -> p.contains("not sorted")));
        assertTrue(problems(trace(ev("X", "a", "0", 4294967296L, "\"dur\":1"))).stream().anyMatch(p -> p.contains("tid")));
        assertTrue(problems(trace(ev("i", "a", "0", 1, "\"s\":\"t\""))).stream().anyMatch(p -> p.contains("ph 'i'")));
        assertTrue(problems(trace(ev("I", "a", "0", 1, "\"s\":\"x\""))).stream().anyMatch(p -> p.contains("scope")));
        assertTrue(problems(trace(ev("X", "a", "0", 1, "\"dur\":10"), ev("X", "b", "5", 1, "\"dur\":10")))
                .stream().anyMatch(p -> p.contains("partial overlap")));
        assertTrue(problems(trace(META.replace("\"pid\"", "\"ts\":0,\"pid\""))).stream().anyMatch(p -> p.contains("with a ts")));
    }

    @Test
    void flowRules() {
        assertEquals(7, ChromeTraceChecker.check(trace(GOOD_FLOW).getBytes(StandardCharsets.UTF_8), "ok").size());
        assertTrue(problems(trace(GOOD_FLOW.replace(",\"bp\":\"e\"", ""))).stream().anyMatch(p -> p.contains("bp")));
        assertTrue(problems(trace(GOOD_FLOW.replace("\"name\":\"h\",\"cat\":\"c\",\"ph\":\"f\"", "\"name\":\"h2\",\"cat\":\"c\",\"ph\":\"f\"")))
                .stream().anyMatch(p -> p.contains("differ in cat or name")));
        assertTrue(problems(trace(GOOD_FLOW.replace("\"id\":1,\"bp\"", "\"id\":2,\"bp\""))).stream()
                .anyMatch(p -> p.contains("has no f")));
        assertTrue(problems(trace(GOOD_FLOW.replace("\"id\":1}", "\"id\":\"flow-1\"}"))).stream()
                .anyMatch(p -> p.contains("hex string")));
        String unbound = trace(ev("X", "a", "0", 1, "\"dur\":1"), ev("s", "h", "3", 1, "\"id\":1"),
                ev("X", "b", "3", 2, "\"dur\":1"), ev("f", "h", "3", 2, "\"id\":1,\"bp\":\"e\""));
        List<String> p = problems(unbound);
        assertTrue(p.stream().anyMatch(x -> x.contains("flow_no_enclosing_slice")), p.toString());
        assertEquals(1, p.size(), "the f is enclosed by b at its start, same cat: " + p);
    }
}
