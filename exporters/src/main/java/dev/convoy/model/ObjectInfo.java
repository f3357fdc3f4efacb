package dev.convoy.model;

/**
 * An object of SECTION_OBJECTS.
 *
 * @param objectId     the recorder's tag, non-zero
 * @param identityHash {@code System.identityHashCode}
 * @param kind         {@code OBJ_*}
 * @param classId      class of the object
 */
public record ObjectInfo(long objectId, int identityHash, int kind, long classId) {
}
