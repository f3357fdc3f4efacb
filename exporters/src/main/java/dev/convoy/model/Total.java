package dev.convoy.model;

/**
 * One entry of the whole run's totals (SECTION_TOTALS): the blocks, waits or parks of one thread
 * on one object from one stack that ended, and their time.
 *
 * @param ringId  the thread's ring (its records may have aged out of the recording)
 * @param kind    SnapshotFormat.TOTAL_*
 * @param object  the monitor's or blocker's object id, 0 none
 * @param stackId the stack of their begin record, 0 none
 * @param count   how many ended
 * @param totalNs their time, summed
 * @param maxNs   the longest
 */
public record Total(long ringId, int kind, long object, int stackId, long count, long totalNs, long maxNs) {
}
