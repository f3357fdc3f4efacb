package dev.convoy.model;

/**
 * A thread blocked or waiting on a monitor at snapshot time (SECTION_MONITORS).
 *
 * @param ringId        the thread's ring
 * @param state         {@code MSTATE_BLOCKED} or {@code MSTATE_WAITING}
 * @param object        the monitor's object id, 0 if it could not be tied to a recorded object
 * @param identityHash  the monitor's identity hash code
 * @param ownerThreadId Java thread id of the monitor's owner at that moment, -1 if none
 */
public record MonitorState(long ringId, int state, long object, int identityHash, long ownerThreadId) {
}
