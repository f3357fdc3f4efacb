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
import org.openjdk.jmc.common.item.IItem;
import org.openjdk.jmc.common.item.IItemCollection;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.common.item.IMemberAccessor;
import org.openjdk.jmc.common.unit.IQuantity;
import org.openjdk.jmc.flightrecorder.jdk.JdkAttributes;
import org.openjdk.jmc.flightrecorder.jdk.JdkFilters;
import org.openjdk.jmc.flightrecorder.rules.TypedResult;
import org.openjdk.jmc.flightrecorder.rules.jdk.latency.JavaBlockingRule;
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

    /**
     * JMC reads every event; it reads each enter's monitor address as an address (the JDK's
     * {@code @MemoryAddress}), so that its lock instances (JavaBlocking's balance by instance)
     * exist, and JavaBlocking scores the blocking instead of saying it found none. (That the
     * verdict is the one JMC gives the JDK's own recording of the same program is
     * {@code JfrAsTheJdkIT}'s.)
     */
    @Test
    void jmcReadsEveryEventAndItsBlockingRuleScoresTheBlocking() throws Exception {
        Recording r = SnapshotReader.read(Fixtures.all().toBytes());
        Path jfr = dir.resolve("all.jfr");
        Output.write(r, Set.of(Output.JFR), jfr);
        IItemCollection items = JfrLoaderToolkit.loadEvents(jfr.toFile());
        Map<String, Integer> jdk = JfrCheck.jfrCounts(jfr);
        assertTrue(jdk.getOrDefault("jdk.JavaMonitorEnter", 0) > 0, jdk.toString());
        assertEquals(jdk, jmcCounts(items));
        int enters = 0;
        for (IItemIterable it : items.apply(JdkFilters.MONITOR_ENTER)) {
            IMemberAccessor<IQuantity, IItem> address = JdkAttributes.MONITOR_ADDRESS.getAccessor(it.getType());
            assertNotNull(address, "JMC reads jdk.JavaMonitorEnter.address as an address");
            for (IItem item : it) {
                enters++;
                assertNotNull(address.getMember(item));
            }
        }
        assertEquals(jdk.get("jdk.JavaMonitorEnter"), enters);
        assertNotNull(items.getAggregate(JavaBlockingRule.MONITOR_BALANCE_BY_INSTANCE), "lock instances");
        IResult blocking = evaluate(items, "JavaBlocking");
        assertNotEquals(Severity.NA, blocking.getSeverity(), blocking.getSummary());
        assertNotNull(blocking.getResult(TypedResult.SCORE), () -> "a score, not \"no problems found\": "
                + blocking.getSummary());
    }
}
