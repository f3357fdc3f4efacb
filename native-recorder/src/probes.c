/*
 * The natives of dev.convoy.probes.Probes, bound by agent_bind_probes: instrumentation events
 * (record0) and the LockSupport hook's parks (park0, parked0, unpark0; plain and, with
 * bench.timing=on, timed copies). Each begins with callback_begin (agent_state.h), the event path's
 * one prologue, then probe_begin: the record's time and the calling thread's state.
 */
#include "agent_state.h"
#include "record.h"

/* The calling thread's state, for the natives of Probes (which get no jthread). */
static cv_thread *probe_thread(jvmtiEnv *jvmti, JNIEnv *jni) {
    void *p = NULL;
    if ((*jvmti)->GetThreadLocalStorage(jvmti, NULL, &p) == JVMTI_ERROR_NONE && p != NULL) {
        return threads_current(jvmti, jni, NULL);
    }
    jthread self = NULL;
    if ((*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE || self == NULL) return NULL;
    cv_thread *t = threads_current(jvmti, jni, self);
    (*jni)->DeleteLocalRef(jni, self);
    return t;
}

/* After the prologue: the record's time into r->ts, then the calling thread's state (NULL:
 * nothing to record). */
static CV_ALWAYS_INLINE cv_thread *probe_begin(JNIEnv *jni, cv_record *r, cv_lap *lap) {
    r->ts = cv_now_ns();
    LAP(lap, CLOCK);
    cv_thread *t = probe_thread(g_cv.jvmti, jni);
    if (t) LAP(lap, THREAD);
    return t;
}

/*
 * Instrumentation events, from dev.convoy.probes.Probes.record0(type, obj, arg) on the
 * calling thread. The stack skips record0 and the Probes method that called it, so it
 * starts at the application's call site.
 */
static void JNICALL probe_record(JNIEnv *jni, jclass cls, jint type, jobject obj, jlong arg) {
    (void)cls;
    if (!callback_begin(NULL)) return;
    jvmtiEnv *jvmti = g_cv.jvmti;
    cv_record r;
    cv_thread *t = probe_begin(jni, &r, NULL);
    if (!t) return;
    int thread_target = type == EVENT_START_CALL || type == EVENT_INTERRUPT_CALL || type == EVENT_JOIN ||
                        type == EVENT_JOINED;
    int with_stack = type != EVENT_SLEPT && type != EVENT_JOINED;
    r.obj = obj ? objects_id(jvmti, jni, obj, thread_target ? OBJ_THREAD : OBJ_PLAIN) : 0;
    if (CV_UNLIKELY(obj && r.obj == 0)) {
        ring_drop(t->ring); /* the object could not be tagged */
        return;
    }
    r.arg = (int64_t)arg;
    r.arg2 = 0;
    if (thread_target && obj) r.arg2 = threads_tid_field(jni, obj);
    r.meta = cv_record_meta((uint8_t)type, 0, with_stack ? capture_stack_lap(jvmti, jni, t, 2, 0, NULL) : 0);
    threads_write(jni, t, &r);
}

/*
 * Parks, from the LockSupport hook (dev.convoy.agent.bci.ParkTransformer) through Probes on
 * the parking thread; see the spec's EVENT_PARK. park0 returns the PARK's time, the token
 * the hook hands back to parked0 (0: nothing recorded, and parked0 records nothing).
 * The PARKED reuses the blocker id its PARK looked up (no look-up) when the thread's last
 * PARK is that token's, in the current epoch; a park nested in between (a virtual thread's
 * park may park again while it schedules its wake-up) makes it look the id up again.
 */
static jfieldID thread_interrupted; /* Thread.interrupted (JDK 14+); NULL: FLAG_INTERRUPTED unknown */

static CV_ALWAYS_INLINE jlong park(JNIEnv *jni, jobject blocker, jobject owner, jlong timeout, jint flags,
                                   cv_lap *lap) {
    jvmtiEnv *jvmti = g_cv.jvmti;
    cv_record r;
    cv_thread *t = probe_begin(jni, &r, lap);
    if (!t) return 0;
    r.obj = blocker ? object_id(jvmti, jni, blocker, load_relaxed(&g_cv.epoch)) : 0;
    if (CV_UNLIKELY(blocker && r.obj == 0)) {
        ring_drop(t->ring);
        return 0;
    }
    LAP(lap, OBJECT);
    r.arg = (int64_t)timeout;
    r.arg2 = owner ? threads_tid_field(jni, owner) : -1;
    LAP(lap, RING);
    /* Skips park0 and the Probes method: the stack starts at the LockSupport method. */
    r.meta = cv_record_meta(EVENT_PARK, (uint8_t)(flags & FLAG_LOCK), capture_stack_lap(jvmti, jni, t, 2, 0, lap));
    t->park_ts = r.ts;
    t->park_obj = r.obj;
    t->park_epoch = load_relaxed(&g_cv.epoch);
    threads_write(jni, t, &r);
    LAP_END(lap, t, CV_TEV_PARK);
    return (jlong)r.ts;
}

static CV_ALWAYS_INLINE void parked(JNIEnv *jni, jlong start, jobject blocker, jlong timeout, jint flags,
                                    jobject self, cv_lap *lap) {
    jvmtiEnv *jvmti = g_cv.jvmti;
    cv_record r;
    cv_thread *t = probe_begin(jni, &r, lap);
    if (!t) return;
    if (t->park_ts == (uint64_t)start && t->park_epoch == load_relaxed(&g_cv.epoch)) {
        r.obj = t->park_obj;
    } else {
        r.obj = blocker ? object_id(jvmti, jni, blocker, load_relaxed(&g_cv.epoch)) : 0;
        if (CV_UNLIKELY(blocker && r.obj == 0)) {
            ring_drop(t->ring);
            return;
        }
    }
    LAP(lap, OBJECT);
    t->park_ts = 0;
    uint8_t f = (uint8_t)(flags & FLAG_TIMED_OUT);
    if (timeout > 0 && r.ts - (uint64_t)start >= (uint64_t)timeout) f |= FLAG_TIMED_OUT;
    if (self && thread_interrupted && (*jni)->GetBooleanField(jni, self, thread_interrupted)) f |= FLAG_INTERRUPTED;
    r.arg = 0;
    r.arg2 = threads_carrier(t);   /* a virtual thread's carrier, where it resumed */
    r.meta = cv_record_meta(EVENT_PARKED, f, 0);
    threads_write(jni, t, &r);
    LAP_END(lap, t, CV_TEV_PARKED);
}

static CV_ALWAYS_INLINE void unpark(JNIEnv *jni, jobject target, cv_lap *lap) {
    jvmtiEnv *jvmti = g_cv.jvmti;
    cv_record r;
    cv_thread *t = probe_begin(jni, &r, lap);
    if (!t) return;
    r.obj = objects_id(jvmti, jni, target, OBJ_THREAD);
    if (CV_UNLIKELY(r.obj == 0)) {
        ring_drop(t->ring);
        return;
    }
    LAP(lap, OBJECT);
    r.arg = 0;
    r.arg2 = threads_tid_field(jni, target);
    r.meta = cv_record_meta(EVENT_UNPARK, 0, 0);
    threads_write(jni, t, &r);
    LAP_END(lap, t, CV_TEV_UNPARK);
}

static jlong JNICALL probe_park(JNIEnv *jni, jclass cls, jobject blocker, jobject owner, jlong timeout,
                                jint flags) {
    (void)cls;
    return callback_begin(NULL) ? park(jni, blocker, owner, timeout, flags, NULL) : 0;
}

static void JNICALL probe_parked(JNIEnv *jni, jclass cls, jlong start, jobject blocker, jlong timeout,
                                 jint flags, jobject self) {
    (void)cls;
    if (start != 0 && callback_begin(NULL)) parked(jni, start, blocker, timeout, flags, self, NULL);
}

static void JNICALL probe_unpark(JNIEnv *jni, jclass cls, jobject target) {
    (void)cls;
    if (target && callback_begin(NULL)) unpark(jni, target, NULL);
}

/* bench.timing=on: the same probes, stamped (timing.h). */
static jlong JNICALL probe_park_timed(JNIEnv *jni, jclass cls, jobject blocker, jobject owner, jlong timeout,
                                      jint flags) {
    (void)cls;
    cv_lap lap;
    return callback_begin(&lap) ? park(jni, blocker, owner, timeout, flags, &lap) : 0;
}

static void JNICALL probe_parked_timed(JNIEnv *jni, jclass cls, jlong start, jobject blocker, jlong timeout,
                                       jint flags, jobject self) {
    (void)cls;
    cv_lap lap;
    if (start != 0 && callback_begin(&lap)) parked(jni, start, blocker, timeout, flags, self, &lap);
}

static void JNICALL probe_unpark_timed(JNIEnv *jni, jclass cls, jobject target) {
    (void)cls;
    cv_lap lap;
    if (target && callback_begin(&lap)) unpark(jni, target, &lap);
}

int agent_bind_probes(JNIEnv *jni, jclass probes, cv_error *err) {
    if (!g_cv.started || g_cv.config.empty_callbacks) return cv_fail(err, "the recorder is not started");
    jclass thread_class = (*jni)->FindClass(jni, "java/lang/Thread");
    if (thread_class) {
        thread_interrupted = (*jni)->GetFieldID(jni, thread_class, "interrupted", "Z");
        (*jni)->DeleteLocalRef(jni, thread_class);
    }
    if (!thread_interrupted) {
        (*jni)->ExceptionClear(jni);
        cv_log_warn("this JDK has no field Thread.interrupted: parks are recorded without FLAG_INTERRUPTED");
    }
    int timed = g_cv.config.timing;
    const JNINativeMethod methods[] = {
        {"record0", "(ILjava/lang/Object;J)V", (void *)probe_record},
        {"park0", "(Ljava/lang/Object;Ljava/lang/Thread;JI)J", timed ? (void *)probe_park_timed : (void *)probe_park},
        {"parked0", "(JLjava/lang/Object;JILjava/lang/Thread;)V",
         timed ? (void *)probe_parked_timed : (void *)probe_parked},
        {"unpark0", "(Ljava/lang/Thread;)V", timed ? (void *)probe_unpark_timed : (void *)probe_unpark},
    };
    if ((*jni)->RegisterNatives(jni, probes, methods, (jint)(sizeof(methods) / sizeof(methods[0]))) != JNI_OK) {
        (*jni)->ExceptionClear(jni);
        return cv_fail(err, "cannot bind the natives of the Probes class (RegisterNatives failed)");
    }
    return 0;
}
