/*
 * Event recording: what the callbacks (callbacks.c) and probes (probes.c) write into the
 * calling thread's ring: the object's id, the stack's id, the record. The functions on the
 * event path are always inline, so that each callback is compiled as one function with its
 * body (and, with a NULL lap, without any timing code); record_monitor_plain is the plain
 * monitor callbacks' one out-of-line copy of record_monitor.
 *
 * Event path rules: a callback never blocks on another thread, never allocates (except
 * once per thread for its state and once per described class, or plain object without a held
 * entry, for its weak reference: objects.h, "Held references") and never causes a safepoint or
 * VM operation: GetThreadLocalStorage(current), the stack walk of capture.h (AsyncGetCallTrace,
 * or GetStackTrace of the current thread), GetObjectHashCode, IsSameObject,
 * Get/SetObjectArrayElement, NewWeakGlobalRef, clock_gettime.
 */
#ifndef CONVOY_RECORD_H
#define CONVOY_RECORD_H

#include "agent_state.h"
#include "capture.h"
#include "objects.h"
#include "oracles.h"
#include "owners.h"
#include "snapshot_format.h"
#include "threads.h"

/* The id of `count` (> 0) captured frames, at most depth + 1 of them: one more than depth
 * marks the stack truncated at depth. */
static CV_ALWAYS_INLINE uint32_t intern_captured(const cv_frame *frames, int count, uint32_t depth) {
    uint32_t flags = 0;
    if ((uint32_t)count > depth) {
        count = (int)depth;
        flags = CV_STACK_TRUNCATED;
    }
    return stacks_intern(g_cv.stacks, frames, (uint32_t)count, flags);
}

/* Skips `skip` frames at the top (the probe's own frames for instrumentation events). A platform
 * thread whose stack is one it captured lately, as its stack cache proves (stackcache.h), takes
 * that stack's id; otherwise the walk is capture.h's (AsyncGetCallTrace with stacks=async, or
 * GetStackTrace) and the stack interned is kept in the cache. */
static CV_ALWAYS_INLINE uint32_t capture_stack_lap(jvmtiEnv *jvmti, JNIEnv *jni, cv_thread *t, jint skip,
                                                   int holds_monitor, cv_lap *lap) {
    uint32_t depth = g_cv.config.stack_depth;
    if (depth == 0) return 0;
    cv_stack_cache *cache = t->stack_cache;
    if (cache) {
        uint32_t hit = capture_cache_find(cache, (uint32_t)skip);
        if (hit != 0) {
            if (CV_UNLIKELY(g_cv.stack_oracle)) oracle_cached(jvmti, jni, t, skip, depth, hit);
            /* bench.timing=on: the look-up is the walk stage; interning, skipped, takes nothing. */
            LAP(lap, WALK);
            LAP(lap, INTERN);
            return hit;
        }
    }
    cv_frame *frames = (cv_frame *)threads_frames(jni, t);
    if (!frames) return 0;
    int count = capture_walk(jvmti, jni, (int)t->is_virtual, holds_monitor, skip, depth, frames, &t->bottom_method);
    LAP(lap, WALK);
    if (count <= 0) return 0;
    uint32_t id = intern_captured(frames, count, depth);
    if (cache) capture_cache_store(cache, jni, (uint32_t)skip, id);
    LAP(lap, INTERN);
    return id;
}

/*
 * Object ids. A begin event (MonitorContendedEnter, MonitorWait, a park) names its object by
 * the id objects_id keeps for it (objects.h): a look-up there computes the identity hash and
 * takes a shard lock, and enters the VM at least twice (GetObjectHashCode, IsSameObject),
 * where it waits for a safepoint under way. So the look-up goes first to the id cache
 * (idcache.h, whose rules these are): one table, shared by all threads, of the ids of the
 * objects and classes met since the last collection, by address. Only a miss calls
 * objects_id. That is sound only where objects move and die only during
 * the collector's pauses, which JVMTI reports (GarbageCollectionStart/Finish: gc_started,
 * gc_finished): between two pauses an address names one object. The Java side turns the cache
 * on only for such collectors (Serial, Parallel, G1), never for ZGC or Shenandoah, which
 * relocate while the program runs.
 *
 * record_gc fences after counting a pause's start, so a handle the collector updated is never
 * read with the count of before. Pauses are counted while recording, once the GC events are
 * enabled: gc_tracked is the epoch since whose enabling every pause was counted, and the cache
 * waits for it. An entry's id must still name its object (objects_current: no reset, no reuse
 * of the slot since).
 */
/* A look-up's key in the id cache, for objects_id's hooks (record.c). */
typedef struct {
    uintptr_t ref;
    uint64_t  stamp;
    uint32_t  epoch;
} cv_id_key;

uint64_t record_cached_class_id(void *ctx, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls);
uint64_t record_peek_id(void *ctx);
void record_publish_id(void *ctx, uint64_t id);

static CV_ALWAYS_INLINE uint64_t cached_id(jvmtiEnv *jvmti, JNIEnv *jni, jobject object, uint32_t epoch,
                                           uint32_t kind) {
    cv_id_key k;
    uint64_t gc = 0;
    k.ref = idcache_ref(&g_cv.gc_started, &g_cv.gc_finished, object, &gc);
    k.stamp = idcache_stamp(epoch, gc);
    k.epoch = epoch;
    uint64_t id = idcache_find(g_cv.ids, k.ref, k.stamp, objects_current);
    if (id != 0) return id;
    cv_id_hooks hooks = {record_cached_class_id, k.ref ? record_peek_id : NULL, k.ref ? record_publish_id : NULL, &k};
    id = objects_id_with(jvmti, jni, object, kind, &hooks);
    idcache_put(g_cv.ids, k.ref, k.stamp, id);
    return id;
}

static CV_ALWAYS_INLINE uint64_t object_id(jvmtiEnv *jvmti, JNIEnv *jni, jobject object, uint32_t epoch) {
    if (!g_cv.ids || !object || load_acquire(&g_cv.gc_tracked) != epoch) {
        return objects_id(jvmti, jni, object, OBJ_PLAIN);
    }
    return cached_id(jvmti, jni, object, epoch, OBJ_PLAIN);
}

/* A monitor event as its callback saw it: what record_monitor records. */
typedef struct {
    jthread   thread;      /* the current thread */
    jobject   object;      /* the monitor */
    uint8_t   type;        /* EVENT_MONITOR_ENTER, _ENTERED, _WAIT or _WAITED */
    uint8_t   begin_type;  /* the type that begins its pair: EVENT_MONITOR_ENTER or EVENT_MONITOR_WAIT */
    uint8_t   flags;       /* FLAG_OWNER, FLAG_TIMED_OUT */
    int64_t   arg;         /* the record's arg (a WAIT's timeout, the owner oracle's answer) */
    int64_t   arg2;        /* of an ENTER: the owner read from the VM */
    uintptr_t monitor;     /* of an ENTER: the ObjectMonitor owners_read found (0: none) */
} cv_monitor_event;

/* bench.timing=on: the timing event of a monitor event's type. */
static CV_ALWAYS_INLINE int monitor_tev(uint8_t type) {
    return type == EVENT_MONITOR_ENTER   ? CV_TEV_MONITOR_ENTER
           : type == EVENT_MONITOR_ENTERED ? CV_TEV_MONITOR_ENTERED
           : type == EVENT_MONITOR_WAIT    ? CV_TEV_MONITOR_WAIT
                                           : CV_TEV_MONITOR_WAITED;
}

/* A thread blocks on, or waits on, one monitor at a time, and the MonitorContendedEntered
 * or MonitorWaited that ends it names the same object: the end event reuses the id the
 * begin event looked up, which saves a look-up per pair. The begin
 * must have been recorded in the current recording epoch, so that an end whose begin
 * was missed while recording was off never borrows an older id. */
static CV_ALWAYS_INLINE void record_monitor(jvmtiEnv *jvmti, JNIEnv *jni, const cv_monitor_event *e, cv_lap *lap) {
    uint8_t type = e->type;
    uint8_t flags = e->flags;
    int64_t arg = e->arg;
    uint64_t ts = cv_now_ns();
    LAP(lap, CLOCK);
    if (type == EVENT_MONITOR_WAITED) owners_waited(jni, e->object);
    cv_thread *t = threads_current(jvmti, jni, e->thread);
    if (!t) {
        if (type == EVENT_MONITOR_ENTERED) owners_untracked_acquisition();
        return;
    }
    if (CV_UNLIKELY(!t->owner_registered)) {
        /* A thread running before the recorder: its stack, for owners.h. */
        t->owner_registered = 1;
        if (owners_need_threads()) owners_thread_started(jni, e->thread, t->java_tid, 1);
    }
    LAP(lap, THREAD);
    uint32_t epoch = load_relaxed(&g_cv.epoch);
    int begins = e->begin_type == type;
    cv_record r;
    r.ts = ts;
    if (!begins && t->pending_obj != 0 && t->pending_type == e->begin_type && t->pending_epoch == epoch) {
        r.obj = t->pending_obj;
        /* The ENTERED of the ENTER recorded last: who let the monitor go, as the VM recorded it. */
        if (type == EVENT_MONITOR_ENTERED) {
            if (!t->pending_monitor) {
                owners_untracked_acquisition();
            } else if (owners_releaser(jni, e->object, t->pending_monitor, t->java_tid, t->is_virtual, &arg)) {
                flags |= FLAG_RELEASER;
            }
        }
    } else {
        if (type == EVENT_MONITOR_ENTERED) owners_untracked_acquisition();
        r.obj = object_id(jvmti, jni, e->object, epoch);
        if (CV_UNLIKELY(r.obj == 0)) {
            /* JVMTI could not tag the monitor: a record naming no object is no fact. */
            t->pending_obj = 0;
            ring_drop(t->ring);
            return;
        }
    }
    LAP(lap, OBJECT);
    t->pending_obj = begins ? r.obj : 0;
    t->pending_type = type;
    t->pending_epoch = epoch;
    t->pending_monitor = begins ? e->monitor : 0;
    r.arg = arg;
    /* An end (ENTERED, WAITED) of a virtual thread names the carrier it resumed on. */
    r.arg2 = begins ? e->arg2 : threads_carrier(t);
    r.meta = cv_record_meta(type, flags, begins ? capture_stack_lap(jvmti, jni, t, 0, type == EVENT_MONITOR_WAIT, lap) : 0);
    /* MonitorWait is posted while the thread still holds the monitor, which it lets go only
     * when the callback returns: the wait starts then. A stack walk that met a safepoint
     * (a GC pause) would otherwise move the start before the release by the pause. */
    if (type == EVENT_MONITOR_WAIT) {
        r.ts = cv_now_ns();
        LAP(lap, CLOCK);
    }
    threads_write(jni, t, &r);
    LAP_END(lap, t, monitor_tev(type));
}

/* The plain monitor callbacks' one out-of-line copy of record_monitor (no lap). */
void record_monitor_plain(jvmtiEnv *jvmti, JNIEnv *jni, const cv_monitor_event *e);
/* A thread's start or end record (EVENT_THREAD_START, EVENT_THREAD_END), on that thread. */
void record_thread(JNIEnv *jni, cv_thread *t, uint8_t type);
/* A GC pause's start or finish, on the VM thread at a safepoint: no JNI, no JVMTI; only the GC
 * ring, whose single writer is that thread. */
void record_gc(uint8_t type);

#endif
