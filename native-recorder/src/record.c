/* Event recording (record.h): the out-of-line parts. */
#include "record.h"

/* Stacks are interned straight from JVMTI's frame buffer. */
_Static_assert(sizeof(jvmtiFrameInfo) == sizeof(cv_frame), "frame layout");
_Static_assert(offsetof(jvmtiFrameInfo, location) == offsetof(cv_frame, location), "frame layout");

uint64_t record_peek_id(void *ctx) {
    const cv_id_key *k = ctx;
    return idcache_find(g_cv.ids, k->ref, k->stamp, objects_current);
}

void record_publish_id(void *ctx, uint64_t id) {
    const cv_id_key *k = ctx;
    idcache_put(g_cv.ids, k->ref, k->stamp, id);
}

/* A first sight's class, through the same cache. */
uint64_t record_cached_class_id(void *ctx, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls) {
    return cached_id(jvmti, jni, cls, ((const cv_id_key *)ctx)->epoch, OBJ_CLASS);
}

/* It met a GC pause if one was under way when it began or one began or ended before it ended. */
void lap_commit(cv_thread *t, int tev, cv_lap *lap) {
    uint64_t slept, preempted;
    timing_switches(&slept, &preempted);
    lap->slept = slept - lap->slept;
    lap->preempted = preempted - lap->preempted;
    uint64_t started = load_acquire(&g_cv.gc_started);
    uint64_t finished = load_acquire(&g_cv.gc_finished);
    int met_gc = lap->gc_started != lap->gc_finished || started != lap->gc_started || finished != lap->gc_finished;
    if (t->timing) timing_commit(t->timing, tev, lap, met_gc);
}

__attribute__((noinline)) void record_monitor_plain(jvmtiEnv *jvmti, JNIEnv *jni, const cv_monitor_event *e) {
    record_monitor(jvmti, jni, e, NULL);
}

void record_thread(JNIEnv *jni, cv_thread *t, uint8_t type) {
    cv_record r;
    r.ts = cv_now_ns();
    r.meta = cv_record_meta(type, 0, 0);
    r.obj = t->thread_obj;
    r.arg = t->java_tid;
    r.arg2 = threads_carrier(t);   /* a virtual thread's carrier; notes a platform thread's id */
    threads_write(jni, t, &r);
}

void record_gc(uint8_t type) {
    if (!cv_active()) return;
    /* One add per pause, by its one writer (the VM thread): for bench.timing=on's "met a GC". */
    if (type == EVENT_GC_START) {
        store_release(&g_cv.gc_started, load_relaxed(&g_cv.gc_started) + 1);
        /* Before the collector moves anything: the id cache's reader sees the count first. */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    } else {
        store_release(&g_cv.gc_finished, load_relaxed(&g_cv.gc_finished) + 1);
    }
    cv_record r;
    r.ts = cv_now_ns();
    r.meta = cv_record_meta(type, 0, 0);
    r.obj = 0;
    r.arg = r.arg2 = 0;
    ring_write(g_cv.gc_ring, &r);
}
