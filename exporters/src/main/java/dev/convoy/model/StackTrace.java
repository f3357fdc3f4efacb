package dev.convoy.model;

import java.util.List;

/**
 * A stack of SECTION_STACKS.
 *
 * @param id        stack id (non-zero)
 * @param truncated cut at the configured depth
 * @param frames    top frame first
 */
public record StackTrace(int id, boolean truncated, List<Frame> frames) {
    public StackTrace {
        frames = List.copyOf(frames);
    }
}
