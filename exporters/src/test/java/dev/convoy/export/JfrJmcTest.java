package dev.convoy.export;

import static org.junit.jupiter.api.Assertions.*;

import dev.convoy.model.Recording;
import dev.convoy.snapshot.SnapshotReader;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.JfrCheck;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;
import org.openjdk.jmc.flightrecorder.rules.IResult;
import org.openjdk.jmc.flightrecorder.rules.IRule;
import org.openjdk.jmc.flightrecorder.rules.RuleRegistry;
import org.openjdk.jmc.flightrecorder.rules.Severity;

/** The JFR output read with JDK Mission Control's parser and judged by its rule engine. */
class JfrJmcTest {

    @TempDir
    Path dir;

    /** Events per type as JMC's parser reads them. */
    static Map<String, Integer> jmcCounts(IItemCollection items) {
        Map<String, Integer> n = new TreeMap<>();
        for (IItemIterable it : items) {
            if (it.getItemCount() > 0) {
                n.merge(it.getType().getIdentifier(), (int) it.getItemCount(), Integer::sum);
            }
        }
        return n;
    }

    /** Runs one rule of JMC's rule engine on the items. */
    static IResult evaluate(IItemCollection items, String ruleId) throws Exception {
        for (IRule rule : RuleRegistry.getRules()) {
            if (rule.getId().equals(ruleId)) {
                var f = rule.createEvaluation(items, org.openjdk.jmc.common.util.IPreferenceValueProvider.DEFAULT_VALUES,
                        null);
                f.run();
                return f.get();
            }
        }
        throw new AssertionError("no rule " + ruleId);
    }

    @Test
    void jmcReadsEveryEventAndItsBlockingRuleApplies() throws Exception {
        Recording r = SnapshotReader.read(Fixtures.all().toBytes());
        Path jfr = dir.resolve("all.jfr");
        Output.write(r, Set.of(Output.JFR), jfr);
        IItemCollection items = JfrLoaderToolkit.loadEvents(jfr.toFile());
        Map<String, Integer> jdk = JfrCheck.jfrCounts(jfr);
        assertTrue(jdk.getOrDefault("jdk.JavaMonitorEnter", 0) > 0, jdk.toString());
        assertEquals(jdk, jmcCounts(items));
        IResult blocking = evaluate(items, "JavaBlocking");
        assertNotEquals(Severity.NA, blocking.getSeverity(), blocking.getSummary());
        System.out.println("JavaBlocking: " + blocking.getSeverity() + ": " + blocking.getSummary());
    }
}
