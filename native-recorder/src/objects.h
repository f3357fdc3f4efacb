/*
 * Object identity: unique ids from JVMTI tags, with each object's identity hash code,
 * kind and class kept in a preallocated table indexed by id - 1.
 *
 * CONCURRENCY CONTRACT
 *
 * An id is described before it is visible: by the time any thread can read id N from
 * GetTag, entry N is published, and so is the entry of its class. A thread that holds
 * an id, from objects_id() or from a record written by a thread that called it, finds
 * the entry with objects_hash()/objects_foreach(). So a snapshot that copies the rings
 * first and enumerates the table afterwards describes every object its records name.
 *
 * objects_id() may run on any thread, in native state (a JVMTI callback or a JNI native).
 * Every later sight of an object is a GetTag only. The first sight gathers the identity
 * hash and, for a non-class, the class's id (objects_id on the class, which describes the
 * class first), then takes tag_lock, a short mutex, re-reads the tag and, if it is still
 * 0, in this order: takes id N = next_id + 1, writes entry N, publishes its `id` word with
 * a release store, and calls SetTag(N). tag_lock makes threads racing for the same new
 * object agree on its id; the VM's tag map lock orders SetTag before the GetTag that
 * returns N, which carries the entry's publication to the reader.
 *
 * Entries are never rewritten. If SetTag fails, the entry is withdrawn (`id` stored back
 * to 0) and N is never handed out again; no record can name it, as no GetTag returned it.
 * Readers acquire-load `id` and skip entries at 0. Ids past the table's capacity are
 * still handed out but have no entry: objects_dropped() counts them, and a snapshot's
 * records may name them undescribed.
 *
 *   method           field      writer (under tag_lock)       reader
 *   objects_id       entry      relaxed stores,               -
 *                    id         release store N,              -
 *                    tag        SetTag(N) (0 if it failed)    GetTag
 *                    next_id    plain, under tag_lock         -
 *   objects_foreach  next_id    -                             under tag_lock
 *   objects_hash     id         -                             acquire load, then fields
 *
 * Allocation: none on the event path except one JNI weak reference per described class
 * (to name it at snapshot time), created under tag_lock. A withdrawn class keeps its weak
 * reference (a snapshot may hold a copy of the entry).
 */
#ifndef CONVOY_OBJECTS_H
#define CONVOY_OBJECTS_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t id;        /* published last; 0 = not (yet) described */
    uint64_t class_id;
    uint32_t hash;
    uint32_t kind;      /* OBJ_* */
    jweak    ref;       /* OBJ_CLASS only: weak reference to the class */
} cv_object;

int objects_init(size_t bytes);
size_t objects_memory(void);

/* Id of obj, assigning one if it has none. Returns 0 if JVMTI fails. */
uint64_t objects_id(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind);

typedef void (*cv_object_visitor)(void *ctx, const cv_object *o);
void objects_foreach(cv_object_visitor visit, void *ctx);

/* Identity hash of a described object; 0 with *found = 0 if it is not described. */
uint32_t objects_hash(uint64_t id, int *found);
/* The only described non-class object with this identity hash, or 0 (none or several). */
uint64_t objects_find_by_hash(uint32_t hash);

uint64_t objects_count(void);
uint64_t objects_dropped(void);

#endif
