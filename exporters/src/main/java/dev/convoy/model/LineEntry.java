package dev.convoy.model;

/** One entry of a method's line number table: from {@code startLocation} on, {@code lineNumber}. */
public record LineEntry(long startLocation, int lineNumber) {
}
