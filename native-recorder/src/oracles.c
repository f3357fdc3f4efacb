/* Test oracles (oracles.h): never on the production path. */
#include "oracles.h"
#include "record.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t oracle_lock = PTHREAD_MUTEX_INITIALIZER;

static int64_t oracle_locked(jvmtiEnv *jvmti, JNIEnv *jni, jobject object, uint8_t flags, int64_t owner) {
    jint n = 0;
    jthread *all = NULL;
    jthread self = NULL;
    if ((*jni)->PushLocalFrame(jni, 16) != 0) {
        (*jni)->ExceptionClear(jni);
        return 0;
    }
    if ((*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE ||
        (*jvmti)->GetAllThreads(jvmti, &n, &all) != JVMTI_ERROR_NONE) {
        (*jni)->PopLocalFrame(jni, NULL);
        return 0;
    }
    jint others = 0;
    for (jint i = 0; i < n; i++) {
        if ((*jni)->IsSameObject(jni, all[i], self)) continue;
        all[others++] = all[i];
    }
    jvmtiError *results = calloc((size_t)(others ? others : 1), sizeof(jvmtiError));
    int suspended = results && (*jvmti)->SuspendThreadList(jvmti, others, all, results) == JVMTI_ERROR_NONE;
    int64_t again = 0;
    uintptr_t monitor_again = 0;
    uint8_t flags_again = owners_read(jni, object, &again, &monitor_again) ? FLAG_OWNER : 0;
    jvmtiMonitorUsage usage;
    memset(&usage, 0, sizeof(usage));
    int64_t oracle = 0;
    if ((*jvmti)->GetObjectMonitorUsage(jvmti, object, &usage) == JVMTI_ERROR_NONE) {
        oracle = usage.owner ? threads_tid_field(jni, usage.owner) : -1;
        if (usage.waiters) (*jvmti)->Deallocate(jvmti, (unsigned char *)usage.waiters);
        if (usage.notify_waiters) (*jvmti)->Deallocate(jvmti, (unsigned char *)usage.notify_waiters);
    }
    if (suspended) {
        jint k = 0;
        for (jint i = 0; i < others; i++) {
            if (results[i] == JVMTI_ERROR_NONE) all[k++] = all[i];
        }
        (*jvmti)->ResumeThreadList(jvmti, k, all, results);
    }
    free(results);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
    (*jni)->PopLocalFrame(jni, NULL);   /* the thread references */
    if (!suspended) return 0;
    return flags_again == flags && again == owner ? oracle : -2;
}

int64_t oracle_owner(jvmtiEnv *jvmti, JNIEnv *jni, jobject object, uint8_t flags, int64_t owner) {
    pthread_mutex_lock(&oracle_lock);
    int64_t oracle = oracle_locked(jvmti, jni, object, flags, owner);
    pthread_mutex_unlock(&oracle_lock);
    return oracle;
}

void oracle_cached(jvmtiEnv *jvmti, JNIEnv *jni, cv_thread *t, jint skip, uint32_t depth, uint32_t hit) {
    cv_frame *frames = (cv_frame *)threads_frames(jni, t);
    int count = frames ? capture_oracle_cached(jvmti, skip, depth, frames) : 0;
    if (count <= 0) return;
    capture_oracle_cached_result(jvmti, intern_captured(frames, count, depth) == hit, frames, count);
}
