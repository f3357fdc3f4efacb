package dev.convoy.model;

import static dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_WAIT;
import static dev.convoy.snapshot.SnapshotFormat.EVENT_MONITOR_WAITED;
import static dev.convoy.testing.Fixtures.M3;
import static dev.convoy.testing.Fixtures.S_RUN;
import static dev.convoy.testing.Fixtures.S_WAIT;
import static dev.convoy.testing.Fixtures.t;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.analysis.MonitorStatistics;
import dev.convoy.testing.Fixtures;
import dev.convoy.testing.RecordingBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rules that tell idle waits from contention: their grammar, their order, their effect on the statistics. */
class IdleRulesTest {

    /** Two threads waiting with S_WAIT (Object.wait in com.example.Worker.run) and one with S_RUN. */
    private static Recording recording() {
        RecordingBuilder b = Fixtures.base();
        b.thread(10, 21, 0, "pool-a").span(t(0), 0)
                .event(t(10), EVENT_MONITOR_WAIT, S_WAIT, M3, 0).event(t(20), EVENT_MONITOR_WAITED, 0, M3, 0);
        b.thread(11, 22, 0, "worker").span(t(0), 0)
                .event(t(10), EVENT_MONITOR_WAIT, S_WAIT, M3, 0).event(t(40), EVENT_MONITOR_WAITED, 0, M3, 0);
        b.thread(12, 23, 0, "other").span(t(0), 0)
                .event(t(10), EVENT_MONITOR_WAIT, S_RUN, M3, 0).event(t(15), EVENT_MONITOR_WAITED, 0, M3, 0);
        return b.build();
    }

    private static RecordedThread thread(Recording r, String name) {
        return r.threads().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aFrameRuleMakesAWaitIdleAndAContentionRuleWins() {
        Recording r = recording();
        IdleRules rules = IdleRules.parse("idle frame com.example.Worker.r*  # the worker's loop\n"
                + "contention thread worker\n", "test.rules");
        IdleRules.Classifier c = rules.classifier(r);
        assertTrue(c.isIdle(thread(r, "pool-a"), S_WAIT));
        assertFalse(c.isIdle(thread(r, "worker"), S_WAIT), "a contention rule wins over an idle rule");
        assertEquals("contention thread worker", c.rule(thread(r, "worker"), S_WAIT).toString());
        assertTrue(c.isIdle(thread(r, "other"), S_RUN), "any frame of the stack matches");
        assertNull(IdleRules.DEFAULT.classifier(r).rule(thread(r, "worker"), S_WAIT), "no built-in rule matches");
        assertEquals("built-in rules and test.rules", rules.source());
    }

    @Test
    void theStatisticsCountIdleWaitsApart() {
        Recording r = recording().withIdleRules(IdleRules.parse("idle thread pool-*", "x"));
        MonitorStatistics s = MonitorStatistics.of(r);
        MonitorStatistics.ThreadRow pool = s.threads().stream().filter(x -> x.thread().name().equals("pool-a"))
                .findFirst().orElseThrow();
        assertEquals(List.of(0L, 0L, 1L, 10_000L), List.of(pool.waitedCount(), pool.waitedNs(), pool.idleCount(),
                pool.idleNs()));
        MonitorStatistics.ClassRow cls = s.classes().get(0);
        assertEquals(2, cls.waited().count());
        assertEquals(1, cls.idle().count());
        MonitorStatistics plain = MonitorStatistics.of(recording());
        assertEquals(3, plain.classes().get(0).waited().count(), "without the rule every wait is contention");
    }

    @Test
    void resetDropsTheBuiltInRules() {
        assertTrue(IdleRules.DEFAULT.rules().size() > 5);
        IdleRules r = IdleRules.parse("reset\nidle group mine\n", "r");
        assertEquals(List.of("idle group mine"), r.rules().stream().map(Object::toString).toList());
    }

    @Test
    void aMalformedRuleNamesItsFileAndLine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> IdleRules.parse("# fine\nidle frame a.B.c\nsleepy frame x\n", "my.rules"));
        assertEquals("my.rules line 3: a rule starts with 'idle' or 'contention', not 'sleepy'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> IdleRules.parse("idle frame\n", "my.rules"));
        assertTrue(e.getMessage().startsWith("my.rules line 1: expected 'idle|contention frame|thread|group PATTERN'"),
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> IdleRules.parse("idle method x\u0001\n", "f"));
        assertEquals("f line 1: a rule matches a 'frame', 'thread' or 'group', not 'method'", e.getMessage());
    }
}
