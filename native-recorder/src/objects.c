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

static void describe(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint64_t id, uint32_t kind) {
    if (id > capacity) {
        fetch_add_relaxed(&dropped, 1);
        return;
    }
    cv_object *e = &table[id - 1];
    jint hash = 0;
    if ((*jvmti)->GetObjectHashCode(jvmti, obj, &hash) != JVMTI_ERROR_NONE) hash = 0;
    uint64_t class_id = 0;
    jweak ref = NULL;
    if (kind == OBJ_CLASS) {
        ref = (*jni)->NewWeakGlobalRef(jni, obj);
    } else {
        jclass cls = (*jni)->GetObjectClass(jni, obj);
        if (cls) {
            class_id = objects_id(jvmti, jni, cls, OBJ_CLASS);
            (*jni)->DeleteLocalRef(jni, cls);
        }
    }
    store_relaxed(&e->class_id, class_id);
    store_relaxed(&e->hash, (uint32_t)hash);
    store_relaxed(&e->kind, kind);
    store_relaxed(&e->ref, ref);
    store_release(&e->id, id);
}

uint64_t objects_id(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind) {
    if (obj == NULL) return 0;
    jlong tag = 0;
    if ((*jvmti)->GetTag(jvmti, obj, &tag) != JVMTI_ERROR_NONE) return 0;
    if (tag != 0) return (uint64_t)tag;
    uint64_t id = 0;
    pthread_mutex_lock(&tag_lock);
    if ((*jvmti)->GetTag(jvmti, obj, &tag) == JVMTI_ERROR_NONE) {
        if (tag != 0) {
            id = (uint64_t)tag;
        } else {
            uint64_t fresh = next_id + 1;
            if ((*jvmti)->SetTag(jvmti, obj, (jlong)fresh) == JVMTI_ERROR_NONE) {
                next_id = fresh;
                id = fresh;
                tag = -1; /* marks: we assigned it, describe below */
            }
        }
    }
    pthread_mutex_unlock(&tag_lock);
    if (tag == -1) describe(jvmti, jni, obj, id, kind);
    return id;
}

void objects_foreach(cv_object_visitor visit, void *ctx) {
    uint64_t n;
    pthread_mutex_lock(&tag_lock);
    n = next_id;
    pthread_mutex_unlock(&tag_lock);
    if (n > capacity) n = capacity;
    for (uint64_t i = 0; i < n; i++) {
        if (load_acquire(&table[i].id) == 0) continue;
        cv_object copy = table[i];
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
