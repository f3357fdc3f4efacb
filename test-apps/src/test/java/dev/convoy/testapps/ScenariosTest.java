package dev.convoy.testapps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class ScenariosTest {

    @Test
    void allPrintsOneOkLinePerScenarioThenTheFinalLine() {
        List<String> lines = runSet(Scenarios.ALL);
        List<String> names = Scenarios.names();
        assertEquals(names.size() + 1, lines.size(), String.join("\n", lines));
        for (int i = 0; i < names.size(); i++) {
            assertTrue(lines.get(i).startsWith(names.get(i) + " OK "), lines.get(i));
        }
        assertEquals("SCENARIOS OK ran=" + names.size() + " failed=0", lines.get(names.size()));
    }

    @Test
    void demoRunsTheRepresentativeSet() {
        List<String> lines = runSet(Scenarios.DEMO);
        assertTrue(lines.get(lines.size() - 1).startsWith("SCENARIOS OK "), String.join("\n", lines));
        for (String name : List.of(LockStorm.NAME, ProducerConsumer.NAME, TimedWaits.NAME,
                HandoffChain.NAME, JoinChain.NAME, JucBlocking.NAME, Deadlock.NAME)) {
            assertTrue(lines.stream().anyMatch(l -> l.startsWith(name + " OK ")), name + " in " + lines);
        }
        assertTrue(lines.get(lines.size() - 2).startsWith("deadlock OK "), "deadlock runs last");
    }

    @Test
    void registryNamesMatchScenarioNames() {
        assertEquals(Scenarios.names(), Scenarios.all().stream().map(Scenario::name).toList());
        assertEquals(Deadlock.NAME, Scenarios.names().get(Scenarios.names().size() - 1));
    }

    @Test
    void unknownHoldOptionIsAUsageError() {
        assertEquals(2, Scenarios.runSet(Scenarios.ALL, new String[] {"--nope"},
                new PrintStream(new ByteArrayOutputStream()), new ByteArrayInputStream(new byte[0])));
    }

    private static List<String> runSet(String set) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = Scenarios.runSet(set, new String[0], new PrintStream(out, true, StandardCharsets.UTF_8),
                new ByteArrayInputStream(new byte[0]));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, text);
        return text.lines().toList();
    }
}
