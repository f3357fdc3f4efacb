package dev.convoy.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.convoy.analysis.Interactions;
import dev.convoy.analysis.Interactions.Interaction;
import dev.convoy.analysis.Interactions.Kind;
import dev.convoy.model.Recording;

/**
 * What every interaction (arrow) of a recording's analysis must satisfy, whatever was lost
 * (exporters' test jar, for recorder-mbean's tests too):
 * <ul>
 * <li>no arrow from a thread to itself;</li>
 * <li>none backwards in time (from after to), but a notify recorded after the wake it is bound
 *     to (rule 3 of the notify binding, {@code docs/analysis.md}), whose window holds no loss;</li>
 * <li>none bound across a loss of records: no loss of any thread overlaps the window in which
 *     the cause of a notify (from the wait's start), an unpark, an interrupt or an inferred
 *     releaser had to be found (a releaser the VM recorded, FLAG_RELEASER, is a fact).</li>
 * </ul>
 */
public final class Arrows {
    private Arrows() {
    }

    /** Checks every arrow of the recording's analysis; returns how many there are. */
    public static int check(Recording r) {
        int n = 0;
        for (Interaction i : Interactions.of(r).all()) {
            if (i.kind() == Kind.TIMEOUT) {
                continue;
            }
            n++;
            assertNotSame(i.from(), i.to(), () -> "an arrow from a thread to itself: " + i);
            boolean notify = i.kind() == Kind.NOTIFY || i.kind() == Kind.NOTIFY_ALL;
            if (i.fromNs() > i.toNs()) {
                assertTrue(notify, () -> "an arrow backwards in time: " + i);
            }
            switch (i.kind()) {
                case NOTIFY, NOTIFY_ALL -> {
                    long from = i.ended() == null ? i.toNs() : i.ended().startNs();
                    assertFalse(r.anyLossOverlaps(from, Math.max(i.fromNs(), i.toNs())),
                            () -> "a notify bound across a loss: " + i);
                }
                case UNPARK, INTERRUPT -> assertFalse(r.anyLossOverlaps(i.fromNs(), i.toNs()),
                        () -> "bound across a loss: " + i);
                case HANDOFF -> {
                    if (!i.exact()) { // an exact one is the VM's record, whatever was lost
                        assertFalse(r.anyLossOverlaps(i.fromNs(), i.toNs()),
                                () -> "an inferred releaser across a loss: " + i);
                    }
                }
                default -> {
                }
            }
        }
        return n;
    }
}
