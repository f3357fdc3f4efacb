#include "objects.h"
#include "arch.h"
#include "snapshot_format.h"

#include <pthread.h>
#include <stdlib.h>

static cv_object *table;
static uint64_t capacity;
static uint64_t next_id;       /* last id handed out; under tag_lock */
static uint64_t dropped;
static pthread_mutex_t tag_lock = PTHREAD_MUTEX_INITIALIZER;

int objects_init(size_t bytes) {
    capacity = bytes / sizeof(cv_object);
    if (capacity < 1024) capacity = 1024;
    table = calloc(capacity, sizeof(cv_object));
    return table ? 0 : -1;
}

size_t objects_memory(void) {
    return capacity * sizeof(cv_object);
}

/*
 * Under tag_lock, obj still untagged: takes the next id, describes and publishes its entry,
 * and only then tags obj, so that no thread can read the id from GetTag before its entry.
 * The id is used up even if SetTag fails: the entry is withdrawn (`id` back to 0) but never
 * rewritten, because a snapshot may be copying it, and its weak reference is not deleted
 * for the same reason (a snapshot may hold a copy of it).
 *
 * NewWeakGlobalRef and SetTag may block for a safepoint while tag_lock is held. That is
 * safe because every caller of objects_id runs in a JVMTI callback or a JNI native, in
 * native state, so a thread waiting for tag_lock does not hold up the safepoint (and no
 * caller runs in the VM thread or inside a safepoint).
 */
static uint64_t assign(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind, uint32_t hash,
                       uint64_t class_id) {
    uint64_t fresh = next_id + 1;
    next_id = fresh;
    cv_object *e = NULL;
    if (fresh <= capacity) {
        e = &table[fresh - 1];
        jweak ref = NULL;
        if (kind == OBJ_CLASS) {
            ref = (*jni)->NewWeakGlobalRef(jni, obj);
            /* Out of memory: the class stays described, unnamed. No exception is pending when
             * a callback or native calls objects_id, so the OutOfMemoryError is ours to clear. */
            if (!ref && (*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
        }
        store_relaxed(&e->class_id, class_id);
        store_relaxed(&e->hash, hash);
        store_relaxed(&e->kind, kind);
        store_relaxed(&e->ref, ref);
        store_release(&e->id, fresh);
    }
    if ((*jvmti)->SetTag(jvmti, obj, (jlong)fresh) != JVMTI_ERROR_NONE) {
        if (e) store_relaxed(&e->id, 0);
        return 0;
    }
    if (!e) fetch_add_relaxed(&dropped, 1);
    return fresh;
}

uint64_t objects_id(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind) {
    if (obj == NULL) return 0;
    jlong tag = 0;
    if ((*jvmti)->GetTag(jvmti, obj, &tag) != JVMTI_ERROR_NONE) return 0;
    if (tag != 0) return (uint64_t)tag;
    /* First sight. What describes obj is gathered before tag_lock: the class's own
     * objects_id takes the lock, and a thread that loses the race only wasted the look-up. */
    jint hash = 0;
    if ((*jvmti)->GetObjectHashCode(jvmti, obj, &hash) != JVMTI_ERROR_NONE) hash = 0;
    uint64_t class_id = 0;
    if (kind != OBJ_CLASS) {
        jclass cls = (*jni)->GetObjectClass(jni, obj);
        if (cls) {
            class_id = objects_id(jvmti, jni, cls, OBJ_CLASS);
            (*jni)->DeleteLocalRef(jni, cls);
        }
    }
    uint64_t id = 0;
    pthread_mutex_lock(&tag_lock);
    if ((*jvmti)->GetTag(jvmti, obj, &tag) == JVMTI_ERROR_NONE) {
        id = tag != 0 ? (uint64_t)tag : assign(jvmti, jni, obj, kind, (uint32_t)hash, class_id);
    }
    pthread_mutex_unlock(&tag_lock);
    return id;
}

void objects_foreach(cv_object_visitor visit, void *ctx) {
    uint64_t n;
    pthread_mutex_lock(&tag_lock);
    n = next_id;
    pthread_mutex_unlock(&tag_lock);
    if (n > capacity) n = capacity;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t id = load_acquire(&table[i].id);
        if (id == 0) continue;
        /* Not `copy = table[i]`: a withdrawal may store `id` concurrently (see assign). */
        cv_object copy = {.id = id, .class_id = table[i].class_id, .hash = table[i].hash,
                          .kind = table[i].kind, .ref = table[i].ref};
        visit(ctx, &copy);
    }
}

uint32_t objects_hash(uint64_t id, int *found) {
    *found = 0;
    if (id == 0 || id > capacity || load_acquire(&table[id - 1].id) == 0) return 0;
    *found = 1;
    return table[id - 1].hash;
}

uint64_t objects_find_by_hash(uint32_t hash) {
    uint64_t n = objects_count();
    if (n > capacity) n = capacity;
    uint64_t match = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (load_acquire(&table[i].id) == 0 || table[i].kind == OBJ_CLASS || table[i].hash != hash) continue;
        if (match) return 0;
        match = i + 1;
    }
    return match;
}

uint64_t objects_count(void) {
    pthread_mutex_lock(&tag_lock);
    uint64_t n = next_id;
    pthread_mutex_unlock(&tag_lock);
    return n;
}

uint64_t objects_dropped(void) {
    return load_relaxed(&dropped);
}
