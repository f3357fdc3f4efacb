/*
 * Object identity: unique ids from JVMTI tags, with each object's identity hash code,
 * kind and class kept in a preallocated table indexed by id - 1.
 *
 * Concurrency: objects_id() may run on any thread. The first sight of an object takes a
 * short mutex around GetTag/SetTag (JVMTI tagging takes the VM's tag map lock anyway)
 * so that two threads contending for the same new monitor agree on its id; every later
 * sight is a GetTag only. The entry is written before its `id` word is published with a
 * release store; readers acquire-load `id` and skip entries still at 0. Entries are
 * never changed once published. The table does not allocate on the event path, except
 * one JNI weak reference per distinct class (to name it at snapshot time).
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
