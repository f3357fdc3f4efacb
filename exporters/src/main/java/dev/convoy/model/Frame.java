package dev.convoy.model;

/**
 * One stack frame.
 *
 * @param methodId jmethodID as u64
 * @param location bytecode index, -1 for a native frame
 */
public record Frame(long methodId, long location) {
}
