package dev.convoy.agent.jmx;

import javax.management.openmbean.CompositeData;
import javax.management.openmbean.OpenDataException;

import dev.convoy.model.Recording;

/** Test access to the MBean's {@code snapshot()} summary of a recording, for the integration tests. */
public final class Summaries {

    private Summaries() {
    }

    /** What {@code snapshot()} returns for this recording. */
    public static CompositeData of(Recording r) throws OpenDataException {
        return SnapshotSummary.of(r);
    }
}
