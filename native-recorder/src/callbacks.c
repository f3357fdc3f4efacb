/*
 * The JVMTI callbacks: monitor events (plain and, with bench.timing=on, timed copies), thread start
 * and end (platform and virtual), GC pauses and VM death; and their registration. Every
 * monitor callback begins with callback_begin (agent_state.h), the event path's one prologue,
 * and records through record.h.
 */
#include "agent_state.h"
#include "capture.h"
#include "objects.h"
#include "record.h"
#include "sampler.h"

#include <string.h>

/* The owner is read first, as close to the moment the thread blocked as can be. */
static CV_ALWAYS_INLINE void monitor_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                           cv_lap *lap) {
    cv_monitor_event e = {thread, object, EVENT_MONITOR_ENTER, EVENT_MONITOR_ENTER, 0, 0, 0, 0};
    e.flags = owners_read(jni, object, &e.arg2, &e.monitor) ? FLAG_OWNER : 0;
    if (CV_UNLIKELY(g_cv.owner_oracle)) e.arg = oracle_owner(jvmti, jni, object, e.flags, e.arg2);
    if (lap) {
        LAP(lap, OWNER);
        record_monitor(jvmti, jni, &e, lap);
    } else {
        record_monitor_plain(jvmti, jni, &e);
    }
}

/* The other monitor events: the plain callbacks call the one out-of-line copy, as before timing
 * existed; the timed ones inline record_monitor with their lap. */
static CV_ALWAYS_INLINE void monitor_event(jvmtiEnv *jvmti, JNIEnv *jni, const cv_monitor_event *e, cv_lap *lap) {
    if (lap) {
        record_monitor(jvmti, jni, e, lap);
    } else {
        record_monitor_plain(jvmti, jni, e);
    }
}

/* Runs while the monitor is held: no stack, nothing but the record. */
static CV_ALWAYS_INLINE void monitor_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                             cv_lap *lap) {
    cv_monitor_event e = {thread, object, EVENT_MONITOR_ENTERED, EVENT_MONITOR_ENTER, 0, 0, 0, 0};
    monitor_event(jvmti, jni, &e, lap);
}

static CV_ALWAYS_INLINE void monitor_wait(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                          jlong timeout, cv_lap *lap) {
    cv_monitor_event e = {thread, object, EVENT_MONITOR_WAIT, EVENT_MONITOR_WAIT, 0, (int64_t)timeout, 0, 0};
    monitor_event(jvmti, jni, &e, lap);
}

static CV_ALWAYS_INLINE void monitor_waited(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                            jboolean timed_out, cv_lap *lap) {
    cv_monitor_event e = {thread, object, EVENT_MONITOR_WAITED, EVENT_MONITOR_WAIT,
                          timed_out ? FLAG_TIMED_OUT : 0, 0, 0, 0};
    monitor_event(jvmti, jni, &e, lap);
}

static void JNICALL on_monitor_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object) {
    if (callback_begin(NULL)) monitor_enter(jvmti, jni, thread, object, NULL);
}

static void JNICALL on_monitor_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object) {
    if (callback_begin(NULL)) monitor_entered(jvmti, jni, thread, object, NULL);
}

static void JNICALL on_monitor_wait(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                    jlong timeout) {
    if (callback_begin(NULL)) monitor_wait(jvmti, jni, thread, object, timeout, NULL);
}

static void JNICALL on_monitor_waited(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                      jboolean timed_out) {
    if (callback_begin(NULL)) monitor_waited(jvmti, jni, thread, object, timed_out, NULL);
}

/* bench.timing=on: the same callbacks, stamped (timing.h). */
static void JNICALL on_monitor_enter_timed(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object) {
    cv_lap lap;
    if (callback_begin(&lap)) monitor_enter(jvmti, jni, thread, object, &lap);
}

static void JNICALL on_monitor_entered_timed(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object) {
    cv_lap lap;
    if (callback_begin(&lap)) monitor_entered(jvmti, jni, thread, object, &lap);
}

static void JNICALL on_monitor_wait_timed(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                          jlong timeout) {
    cv_lap lap;
    if (callback_begin(&lap)) monitor_wait(jvmti, jni, thread, object, timeout, &lap);
}

static void JNICALL on_monitor_waited_timed(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                            jboolean timed_out) {
    cv_lap lap;
    if (callback_begin(&lap)) monitor_waited(jvmti, jni, thread, object, timed_out, &lap);
}

/* Whether `thread` is one of the recorder's own agent threads (the maker, the drain, the
 * sampler, the repository's writer): JVMTI posts ThreadStart and ThreadEnd for agent threads too, and they are no
 * threads of the program's (no state, no ring, no record). */
static int is_agent_thread(JNIEnv *jni, jthread thread) {
    jobject maker = load_acquire(&g_cv.maker);
    jobject drainer = load_acquire(&g_cv.drainer);
    jobject sampler = load_acquire(&g_cv.sampler);
    jobject writer = load_acquire(&g_cv.writer);
    return (maker && (*jni)->IsSameObject(jni, maker, thread) == JNI_TRUE) ||
           (drainer && (*jni)->IsSameObject(jni, drainer, thread) == JNI_TRUE) ||
           (sampler && (*jni)->IsSameObject(jni, sampler, thread) == JNI_TRUE) ||
           (writer && (*jni)->IsSameObject(jni, writer, thread) == JNI_TRUE);
}

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    if (!load_relaxed(&g_cv.live) || is_agent_thread(jni, thread)) return;
    cv_thread *t = threads_on_start(jvmti, jni, thread);
    /* A thread without a ring may still own monitors: registered either way. */
    if (owners_need_threads()) owners_thread_started(jni, thread, t ? t->java_tid : threads_tid_field(jni, thread), 1);
    if (t) {
        t->owner_registered = 1;
        record_thread(jni, t, EVENT_THREAD_START);
    }
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    if (!load_relaxed(&g_cv.live) || is_agent_thread(jni, thread)) return;
    if (owners_need_threads()) owners_thread_ended(threads_tid_field(jni, thread));
    cv_thread *t = threads_current(jvmti, jni, thread);
    if (!t) return;
    /* The id taken at the start is stale after a reset: the end names the object as it is now. */
    uint64_t obj = objects_id(jvmti, jni, thread, OBJ_THREAD);
    if (obj != 0 && obj != t->thread_obj) threads_set_thread_obj(t, obj);
    record_thread(jni, t, EVENT_THREAD_END);
    threads_on_end(jvmti, jni, thread, t);
}

/* VirtualThreadStart, on the virtual thread: its state, made at its real start. */
static void JNICALL on_vthread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread vthread) {
    if (!load_relaxed(&g_cv.live)) return;
    cv_thread *t = threads_on_start(jvmti, jni, vthread);
    if (t) {
        t->owner_registered = 1;   /* owners.h registers no virtual thread */
        record_thread(jni, t, EVENT_THREAD_START);
    }
}

/* VirtualThreadEnd, on the virtual thread: its end record, then its state is over (victims.h:
 * an ended state, evicted oldest first when the cap needs room). Its Thread object is not
 * tagged (see threads.c): the end names the id it had, if any. */
static void JNICALL on_vthread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread vthread) {
    if (!load_relaxed(&g_cv.live)) return;
    /* A virtual thread met by no event (it ran before an attach and never blocked) gets no
     * state just to record its end. */
    void *p = NULL;
    if ((*jvmti)->GetThreadLocalStorage(jvmti, NULL, &p) != JVMTI_ERROR_NONE || p == NULL) return;
    cv_thread *t = threads_current(jvmti, jni, vthread);
    if (!t) return;
    record_thread(jni, t, EVENT_THREAD_END);
    threads_on_end(jvmti, jni, vthread, t);
}

static void JNICALL on_gc_start(jvmtiEnv *jvmti) { (void)jvmti; record_gc(EVENT_GC_START); }
static void JNICALL on_gc_finish(jvmtiEnv *jvmti) { (void)jvmti; record_gc(EVENT_GC_FINISH); }

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni) {
    (void)jvmti;
    /* State is never freed: callbacks already past the check finish safely. */
    store_release(&g_cv.live, 0);
    objects_hold_wake();
    sampler_wake();
    threads_drain_wake();
    repository_writer_wake();
    repository_final(jni);
}

/* The benchmark floor: JVMTI dispatch with callbacks that do nothing. */
static void JNICALL empty_monitor(jvmtiEnv *j, JNIEnv *e, jthread t, jobject o) {
    (void)j; (void)e; (void)t; (void)o;
}
static void JNICALL empty_wait(jvmtiEnv *j, JNIEnv *e, jthread t, jobject o, jlong x) {
    (void)j; (void)e; (void)t; (void)o; (void)x;
}
static void JNICALL empty_waited(jvmtiEnv *j, JNIEnv *e, jthread t, jobject o, jboolean x) {
    (void)j; (void)e; (void)t; (void)o; (void)x;
}

/* JDK 21+: the callbacks of events 87 and 88 follow SampledObjectAlloc in jvmtiEventCallbacks
 * (absent from the JDK 17 jvmti.h the library is compiled against; agent_state.h). */
typedef void (JNICALL *cv_vthread_callback)(jvmtiEnv *jvmti, JNIEnv *jni, jthread vthread);

typedef struct {
    jvmtiEventCallbacks base;                 /* events 50..86, as in JDK 17 */
    cv_vthread_callback VirtualThreadStart;   /* 87 */
    cv_vthread_callback VirtualThreadEnd;     /* 88 */
} cv_callbacks21;

int callbacks_set(jvmtiEnv *jvmti, int empty, int timed, cv_error *err) {
    cv_callbacks21 all;
    memset(&all, 0, sizeof(all));
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof(cb));
    if (empty) {
        cb.MonitorContendedEnter = empty_monitor;
        cb.MonitorContendedEntered = empty_monitor;
        cb.MonitorWait = empty_wait;
        cb.MonitorWaited = empty_waited;
    } else {
        cb.ThreadStart = on_thread_start;
        cb.ThreadEnd = on_thread_end;
        cb.MonitorContendedEnter = timed ? on_monitor_enter_timed : on_monitor_enter;
        cb.MonitorContendedEntered = timed ? on_monitor_entered_timed : on_monitor_entered;
        cb.MonitorWait = timed ? on_monitor_wait_timed : on_monitor_wait;
        cb.MonitorWaited = timed ? on_monitor_waited_timed : on_monitor_waited;
        cb.GarbageCollectionStart = on_gc_start;
        cb.GarbageCollectionFinish = on_gc_finish;
        cb.VMDeath = on_vm_death;
        if (capture_async()) {
            cb.ClassLoad = capture_on_class_load;
            cb.ClassPrepare = capture_on_class_prepare;
        }
    }
    all.base = cb;
    jint size = (jint)sizeof(cb);
    if (!empty && g_cv.has_vthread_events) {
        all.VirtualThreadStart = on_vthread_start;
        all.VirtualThreadEnd = on_vthread_end;
        size = (jint)sizeof(all);
    }
    CV_JVMTI_OR_FAIL(err, (*jvmti)->SetEventCallbacks(jvmti, &all.base, size), "SetEventCallbacks");
    return 0;
}
