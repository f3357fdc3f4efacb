/*
 * Agent lifecycle and JVMTI callbacks.
 *
 * The library is loaded by the Java agent with System.load, both when the agent jar
 * starts with the JVM and when it is attached later; JNI_OnLoad (jni_bridge.c) only
 * obtains the JVMTI environment, through agent_on_load(). agent_start() then adds
 * capabilities (live phase), allocates the tables within the memory cap, enumerates
 * running threads and enables the events.
 *
 * Event path rules: a callback never blocks on another thread, never allocates (except
 * once per thread for its state and once per described class, or plain object without a held
 * entry, for its weak reference: objects.h, "Held references") and never causes a safepoint or
 * VM operation: GetThreadLocalStorage(current), the stack walk of capture.h (AsyncGetCallTrace,
 * or GetStackTrace of the current thread), GetObjectHashCode, IsSameObject,
 * Get/SetObjectArrayElement, NewWeakGlobalRef, clock_gettime.
 *
 * timing=on (benchmark only, timing.h): the monitor callbacks and park probes are registered
 * in timed copies. Each callback's body is one always-inline function taking a cv_lap; the
 * plain callback passes NULL, so the compiler drops every stamp from it: with timing off the
 * event path holds no timing code, not even a branch.
 */
#include "agent.h"
#include "arch.h"
#include "capture.h"
#include "dirs.h"
#include "history.h"
#include "idcache.h"
#include "objects.h"
#include "owners.h"
#include "ring.h"
#include "sampler.h"
#include "snapshot_format.h"
#include "stacks.h"
#include "threads.h"
#include "timing.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <stdio.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The agent's state: one instance, never freed. */
static struct {
    jvmtiEnv  *jvmti;
    cv_config  config;
    int        started;       /* agent_start done; guarded by the JNI caller being Java */
    int        live;          /* atomic: 0 after VMDeath */
    int        recording;     /* atomic: monitor and GC events are recorded */
    uint32_t   epoch;         /* atomic: incremented whenever recording starts */
    int        has_gc_events;
    int        has_vthread_events; /* VirtualThreadStart/End enabled (JDK 21+, vthread_events) */
    int        owner_oracle;  /* tests only: GetObjectMonitorUsage at each contended enter */
    uint64_t   reset_mono;    /* atomic: records before this are discarded by snapshots, 0 = none */
    uint64_t   start_mono;
    uint64_t   start_epoch;
    cv_stacks *stacks;
    cv_ring   *gc_ring;
    uint32_t   gc_capacity;
    uint64_t   gc_started;    /* atomic: GC pauses begun and finished while recording, */
    uint64_t   gc_finished;   /* written by the VM thread (timing=on tells a callback that met one;
                                 the id cache tells whether objects may have moved) */
    int        id_cache;      /* the cache of object ids is on ("Object ids") */
    cv_idcache *ids;          /* that cache while it is on, else NULL */
    const char *held_off;     /* why first sights make their own weak references (objects.h,
                                 "Held references"), NULL when the maker holds them */
    jobject    maker;         /* atomic: the maker's Thread (global reference), once made */
    jobject    drainer;       /* atomic: the drain thread's Thread (global reference), once made */
    jobject    sampler;       /* atomic: the owner-stack sampler's Thread (global reference), once made */
    int        has_bytecodes; /* can_get_bytecodes was added (option ownerstacks: holding frames) */
    int        drain_nice;    /* atomic: the drain thread's nice value, once it runs */
    int        stack_oracle;  /* CONVOY_TEST_STACK_ORACLE=1: cache hits are checked (capture.h) */
    uint32_t   gc_tracked;    /* atomic: the recording epoch whose GC pauses are all counted */
    uint64_t   timing_ticks0; /* timing=on: cv_ticks() and cv_now_ns() at start, to convert ticks */
    uint64_t   timing_mono0;
    double     stamp_ticks;   /* timing=on: what one cv_ticks() costs, in ticks (mean of a run) */
} g_cv;

#define GC_RING_RECORDS 4096

static int repo_fd = -1;   /* the repository's directory (option repository), -1 none */
static void repository_work(JNIEnv *jni);

/* Serializes agent_set_recording and agent_reset: the `recording` flag and the JVMTI event
 * switch are changed together, so that concurrent callers cannot leave them disagreeing. */
static pthread_mutex_t switch_lock = PTHREAD_MUTEX_INITIALIZER;

/* Stacks are interned straight from JVMTI's frame buffer. */
_Static_assert(sizeof(jvmtiFrameInfo) == sizeof(cv_frame), "frame layout");
_Static_assert(offsetof(jvmtiFrameInfo, location) == offsetof(cv_frame, location), "frame layout");

int agent_on_load(JavaVM *vm, cv_error *err) {
    jvmtiEnv *jvmti = NULL;
    jint rc = (*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2);
    if (rc != JNI_OK) return cv_fail(err, "JVMTI 1.2 is not available (GetEnv returned %d)", (int)rc);
    g_cv.jvmti = jvmti;
    return 0;
}

static inline int active(void) {
    return load_relaxed(&g_cv.recording) && load_relaxed(&g_cv.live);
}

/* timing=on: the time since the previous stamp goes to `stage`; nothing when lap is NULL
 * (the plain callbacks, where the compiler removes it). */
#define LAP(lap, stage)                                                   \
    do {                                                                  \
        if (lap) timing_lap((lap), CV_STAGE_##stage, cv_ticks());         \
    } while (0)

static CV_ALWAYS_INLINE void lap_begin(cv_lap *lap) {
    uint64_t slept, preempted;
    timing_switches(&slept, &preempted);   /* before the first stamp: not in the duration */
    lap->gc_started = load_acquire(&g_cv.gc_started);
    lap->gc_finished = load_acquire(&g_cv.gc_finished);
    timing_begin(lap, cv_ticks());
    lap->slept = slept;
    lap->preempted = preempted;
}

/* After the callback's last stamp: adds it to the thread's accumulators. It met a GC pause
 * if one was under way when it began or one began or ended before it ended. */
static void lap_commit(cv_thread *t, int tev, cv_lap *lap) {
    uint64_t slept, preempted;
    timing_switches(&slept, &preempted);
    lap->slept = slept - lap->slept;
    lap->preempted = preempted - lap->preempted;
    uint64_t started = load_acquire(&g_cv.gc_started);
    uint64_t finished = load_acquire(&g_cv.gc_finished);
    int met_gc = lap->gc_started != lap->gc_finished || started != lap->gc_started || finished != lap->gc_finished;
    if (t->timing) timing_commit(t->timing, tev, lap, met_gc);
}

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

/* Test oracle: the stack a cache hit gave against GetStackTrace's, interned (same id, same frames). */
static void oracle_cached(jvmtiEnv *jvmti, JNIEnv *jni, cv_thread *t, jint skip, uint32_t depth, uint32_t hit) {
    cv_frame *frames = (cv_frame *)threads_frames(jni, t);
    int count = frames ? capture_oracle_cached(jvmti, skip, depth, frames) : 0;
    if (count <= 0) return;
    capture_oracle_cached_result(jvmti, intern_captured(frames, count, depth) == hit, frames, count);
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
            /* timing=on: the look-up is the walk stage; interning, skipped, takes nothing. */
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

static uint32_t capture_stack(jvmtiEnv *jvmti, JNIEnv *jni, cv_thread *t, jint skip) {
    return capture_stack_lap(jvmti, jni, t, skip, 0, NULL);
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
/* A look-up's key in the id cache, for objects_id's hooks. */
typedef struct {
    uintptr_t ref;
    uint64_t  stamp;
    uint32_t  epoch;
} id_key;

static uint64_t cached_class_id(void *ctx, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls);

static uint64_t peek_id(void *ctx) {
    const id_key *k = ctx;
    return idcache_find(g_cv.ids, k->ref, k->stamp, objects_current);
}

static void publish_id(void *ctx, uint64_t id) {
    const id_key *k = ctx;
    idcache_put(g_cv.ids, k->ref, k->stamp, id);
}

static CV_ALWAYS_INLINE uint64_t cached_id(jvmtiEnv *jvmti, JNIEnv *jni, jobject object, uint32_t epoch,
                                           uint32_t kind) {
    id_key k;
    uint64_t gc = 0;
    k.ref = idcache_ref(&g_cv.gc_started, &g_cv.gc_finished, object, &gc);
    k.stamp = idcache_stamp(epoch, gc);
    k.epoch = epoch;
    uint64_t id = idcache_find(g_cv.ids, k.ref, k.stamp, objects_current);
    if (id != 0) return id;
    cv_id_hooks hooks = {cached_class_id, k.ref ? peek_id : NULL, k.ref ? publish_id : NULL, &k};
    id = objects_id_with(jvmti, jni, object, kind, &hooks);
    idcache_put(g_cv.ids, k.ref, k.stamp, id);
    return id;
}

static uint64_t ids_memory(void) {
    return g_cv.ids ? sizeof(cv_idcache) : 0;
}

/* A first sight's class, through the same cache. */
static uint64_t cached_class_id(void *ctx, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls) {
    return cached_id(jvmti, jni, cls, ((const id_key *)ctx)->epoch, OBJ_CLASS);
}

static CV_ALWAYS_INLINE uint64_t object_id(jvmtiEnv *jvmti, JNIEnv *jni, jobject object, uint32_t epoch) {
    if (!g_cv.ids || !object || load_acquire(&g_cv.gc_tracked) != epoch) {
        return objects_id(jvmti, jni, object, OBJ_PLAIN);
    }
    return cached_id(jvmti, jni, object, epoch, OBJ_PLAIN);
}

/* A thread blocks on, or waits on, one monitor at a time, and the MonitorContendedEntered
 * or MonitorWaited that ends it names the same object: the end event reuses the id the
 * begin event looked up, which saves a look-up per pair. The begin
 * must have been recorded in the current recording epoch, so that an end whose begin
 * was missed while recording was off never borrows an older id. */
static CV_ALWAYS_INLINE void record_monitor(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                            uint8_t type, uint8_t flags, int64_t arg, int64_t arg2,
                                            uint8_t begin_type, uintptr_t monitor, cv_lap *lap, int tev) {
    uint64_t ts = cv_now_ns();
    LAP(lap, CLOCK);
    if (type == EVENT_MONITOR_WAITED) owners_waited(jni, object);
    cv_thread *t = threads_current(jvmti, jni, thread);
    if (!t) {
        if (type == EVENT_MONITOR_ENTERED) owners_untracked_acquisition();
        return;
    }
    if (CV_UNLIKELY(!t->owner_registered)) {
        /* A thread running before the recorder: its stack, for owners.h. */
        t->owner_registered = 1;
        if (owners_need_threads()) owners_thread_started(jni, thread, t->java_tid, 1);
    }
    LAP(lap, THREAD);
    uint32_t epoch = load_relaxed(&g_cv.epoch);
    int begins = begin_type == type;
    cv_record r;
    r.ts = ts;
    if (!begins && t->pending_obj != 0 && t->pending_type == begin_type && t->pending_epoch == epoch) {
        r.obj = t->pending_obj;
        /* The ENTERED of the ENTER recorded last: who let the monitor go, as the VM recorded it. */
        if (type == EVENT_MONITOR_ENTERED) {
            if (!t->pending_monitor) {
                owners_untracked_acquisition();
            } else if (owners_releaser(jni, object, t->pending_monitor, t->java_tid, t->is_virtual, &arg)) {
                flags |= FLAG_RELEASER;
            }
        }
    } else {
        if (type == EVENT_MONITOR_ENTERED) owners_untracked_acquisition();
        r.obj = object_id(jvmti, jni, object, epoch);
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
    t->pending_monitor = begins ? monitor : 0;
    r.arg = arg;
    /* An end (ENTERED, WAITED) of a virtual thread names the carrier it resumed on. */
    r.arg2 = begins ? arg2 : threads_carrier(t);
    r.meta = cv_record_meta(type, flags, begins ? capture_stack_lap(jvmti, jni, t, 0, type == EVENT_MONITOR_WAIT, lap) : 0);
    /* MonitorWait is posted while the thread still holds the monitor, which it lets go only
     * when the callback returns: the wait starts then. A stack walk that met a safepoint
     * (a GC pause) would otherwise move the start before the release by the pause. */
    if (type == EVENT_MONITOR_WAIT) {
        r.ts = cv_now_ns();
        LAP(lap, CLOCK);
    }
    threads_write(jni, t, &r);
    if (lap) {
        LAP(lap, RING);
        lap_commit(t, tev, lap);
    }
}

/*
 * Test oracle (CONVOY_TEST_OWNER_ORACLE=1 in the environment; never a user option): with
 * every other thread suspended, the owner read from the VM (owners.h) again and the owner by
 * GetObjectMonitorUsage, a VM operation, are taken at one instant. The enter's arg gets the
 * oracle's owner (Java thread id, -1 none, 0 no answer) when the second read equals the
 * recorded one, else -2: the owner changed between the event and the check, so the recorded
 * owner and the oracle's are not of one instant.
 */
static pthread_mutex_t oracle_lock = PTHREAD_MUTEX_INITIALIZER;

static int64_t oracle_locked(jvmtiEnv *jvmti, JNIEnv *jni, jobject object, uint8_t flags, int64_t owner);

/* One oracle at a time: two threads suspending each other would never resume. */
static int64_t oracle_owner(jvmtiEnv *jvmti, JNIEnv *jni, jobject object, uint8_t flags, int64_t owner) {
    pthread_mutex_lock(&oracle_lock);
    int64_t oracle = oracle_locked(jvmti, jni, object, flags, owner);
    pthread_mutex_unlock(&oracle_lock);
    return oracle;
}

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

/* The plain callbacks' one out-of-line copy of the body, as before timing existed. */
static __attribute__((noinline)) void record_monitor_plain(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                                                           jobject object, uint8_t type, uint8_t flags, int64_t arg,
                                                           int64_t arg2, uint8_t begin_type, uintptr_t monitor) {
    record_monitor(jvmti, jni, thread, object, type, flags, arg, arg2, begin_type, monitor, NULL, 0);
}

/* The owner is read first, as close to the moment the thread blocked as can be. */
static CV_ALWAYS_INLINE void monitor_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                           cv_lap *lap) {
    int64_t owner = 0;
    uintptr_t monitor = 0;
    uint8_t flags = owners_read(jni, object, &owner, &monitor) ? FLAG_OWNER : 0;
    int64_t arg = CV_UNLIKELY(g_cv.owner_oracle) ? oracle_owner(jvmti, jni, object, flags, owner) : 0;
    if (lap) {
        LAP(lap, OWNER);
        record_monitor(jvmti, jni, thread, object, EVENT_MONITOR_ENTER, flags, arg, owner, EVENT_MONITOR_ENTER, monitor,
                       lap, CV_TEV_MONITOR_ENTER);
    } else {
        record_monitor_plain(jvmti, jni, thread, object, EVENT_MONITOR_ENTER, flags, arg, owner, EVENT_MONITOR_ENTER,
                             monitor);
    }
}

static void JNICALL on_monitor_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object) {
    if (!active()) return;
    monitor_enter(jvmti, jni, thread, object, NULL);
}

/* Runs while the monitor is held: no stack, nothing but the record. */
static void JNICALL on_monitor_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object) {
    if (!active()) return;
    record_monitor_plain(jvmti, jni, thread, object, EVENT_MONITOR_ENTERED, 0, 0, 0, EVENT_MONITOR_ENTER, 0);
}

static void JNICALL on_monitor_wait(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                    jlong timeout) {
    if (!active()) return;
    record_monitor_plain(jvmti, jni, thread, object, EVENT_MONITOR_WAIT, 0, (int64_t)timeout, 0, EVENT_MONITOR_WAIT, 0);
}

static void JNICALL on_monitor_waited(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                      jboolean timed_out) {
    if (!active()) return;
    record_monitor_plain(jvmti, jni, thread, object, EVENT_MONITOR_WAITED,
                         timed_out ? FLAG_TIMED_OUT : 0, 0, 0, EVENT_MONITOR_WAIT, 0);
}

/* timing=on: the same callbacks, stamped (timing.h). */
static void JNICALL on_monitor_enter_timed(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object) {
    if (!active()) return;
    cv_lap lap;
    lap_begin(&lap);
    monitor_enter(jvmti, jni, thread, object, &lap);
}

static void JNICALL on_monitor_entered_timed(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object) {
    if (!active()) return;
    cv_lap lap;
    lap_begin(&lap);
    record_monitor(jvmti, jni, thread, object, EVENT_MONITOR_ENTERED, 0, 0, 0, EVENT_MONITOR_ENTER, 0, &lap,
                   CV_TEV_MONITOR_ENTERED);
}

static void JNICALL on_monitor_wait_timed(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                          jlong timeout) {
    if (!active()) return;
    cv_lap lap;
    lap_begin(&lap);
    record_monitor(jvmti, jni, thread, object, EVENT_MONITOR_WAIT, 0, (int64_t)timeout, 0, EVENT_MONITOR_WAIT, 0,
                   &lap, CV_TEV_MONITOR_WAIT);
}

static void JNICALL on_monitor_waited_timed(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                                            jboolean timed_out) {
    if (!active()) return;
    cv_lap lap;
    lap_begin(&lap);
    record_monitor(jvmti, jni, thread, object, EVENT_MONITOR_WAITED, timed_out ? FLAG_TIMED_OUT : 0, 0, 0,
                   EVENT_MONITOR_WAIT, 0, &lap, CV_TEV_MONITOR_WAITED);
}

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

/*
 * Instrumentation events, from dev.convoy.probes.Probes.record0(type, obj, arg) on the
 * calling thread. The stack skips record0 and the Probes method that called it, so it
 * starts at the application's call site.
 */
static void JNICALL probe_record(JNIEnv *jni, jclass cls, jint type, jobject obj, jlong arg) {
    (void)cls;
    if (!active()) return;
    jvmtiEnv *jvmti = g_cv.jvmti;
    uint64_t ts = cv_now_ns();
    cv_thread *t = probe_thread(jvmti, jni);
    if (!t) return;
    int thread_target = type == EVENT_START_CALL || type == EVENT_INTERRUPT_CALL || type == EVENT_JOIN ||
                        type == EVENT_JOINED;
    int with_stack = type != EVENT_SLEPT && type != EVENT_JOINED;
    cv_record r;
    r.ts = ts;
    r.obj = obj ? objects_id(jvmti, jni, obj, thread_target ? OBJ_THREAD : OBJ_PLAIN) : 0;
    if (CV_UNLIKELY(obj && r.obj == 0)) {
        ring_drop(t->ring); /* the object could not be tagged */
        return;
    }
    r.arg = (int64_t)arg;
    r.arg2 = 0;
    if (thread_target && obj) r.arg2 = threads_tid_field(jni, obj);
    r.meta = cv_record_meta((uint8_t)type, 0, with_stack ? capture_stack(jvmti, jni, t, 2) : 0);
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
    uint64_t ts = cv_now_ns();
    LAP(lap, CLOCK);
    cv_thread *t = probe_thread(jvmti, jni);
    if (!t) return 0;
    LAP(lap, THREAD);
    cv_record r;
    r.ts = ts;
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
    t->park_ts = ts;
    t->park_obj = r.obj;
    t->park_epoch = load_relaxed(&g_cv.epoch);
    threads_write(jni, t, &r);
    if (lap) {
        LAP(lap, RING);
        lap_commit(t, CV_TEV_PARK, lap);
    }
    return (jlong)ts;
}

static CV_ALWAYS_INLINE void parked(JNIEnv *jni, jlong start, jobject blocker, jlong timeout, jint flags,
                                    jobject self, cv_lap *lap) {
    jvmtiEnv *jvmti = g_cv.jvmti;
    uint64_t ts = cv_now_ns();
    LAP(lap, CLOCK);
    cv_thread *t = probe_thread(jvmti, jni);
    if (!t) return;
    LAP(lap, THREAD);
    cv_record r;
    r.ts = ts;
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
    if (timeout > 0 && ts - (uint64_t)start >= (uint64_t)timeout) f |= FLAG_TIMED_OUT;
    if (self && thread_interrupted && (*jni)->GetBooleanField(jni, self, thread_interrupted)) f |= FLAG_INTERRUPTED;
    r.arg = 0;
    r.arg2 = threads_carrier(t);   /* a virtual thread's carrier, where it resumed */
    r.meta = cv_record_meta(EVENT_PARKED, f, 0);
    threads_write(jni, t, &r);
    if (lap) {
        LAP(lap, RING);
        lap_commit(t, CV_TEV_PARKED, lap);
    }
}

static CV_ALWAYS_INLINE void unpark(JNIEnv *jni, jobject target, cv_lap *lap) {
    jvmtiEnv *jvmti = g_cv.jvmti;
    uint64_t ts = cv_now_ns();
    LAP(lap, CLOCK);
    cv_thread *t = probe_thread(jvmti, jni);
    if (!t) return;
    LAP(lap, THREAD);
    cv_record r;
    r.ts = ts;
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
    if (lap) {
        LAP(lap, RING);
        lap_commit(t, CV_TEV_UNPARK, lap);
    }
}

static jlong JNICALL probe_park(JNIEnv *jni, jclass cls, jobject blocker, jobject owner, jlong timeout,
                                jint flags) {
    (void)cls;
    if (!active()) return 0;
    return park(jni, blocker, owner, timeout, flags, NULL);
}

static void JNICALL probe_parked(JNIEnv *jni, jclass cls, jlong start, jobject blocker, jlong timeout,
                                 jint flags, jobject self) {
    (void)cls;
    if (start == 0 || !active()) return;
    parked(jni, start, blocker, timeout, flags, self, NULL);
}

static void JNICALL probe_unpark(JNIEnv *jni, jclass cls, jobject target) {
    (void)cls;
    if (!target || !active()) return;
    unpark(jni, target, NULL);
}

/* timing=on: the same probes, stamped (timing.h). */
static jlong JNICALL probe_park_timed(JNIEnv *jni, jclass cls, jobject blocker, jobject owner, jlong timeout,
                                      jint flags) {
    (void)cls;
    if (!active()) return 0;
    cv_lap lap;
    lap_begin(&lap);
    return park(jni, blocker, owner, timeout, flags, &lap);
}

static void JNICALL probe_parked_timed(JNIEnv *jni, jclass cls, jlong start, jobject blocker, jlong timeout,
                                       jint flags, jobject self) {
    (void)cls;
    if (start == 0 || !active()) return;
    cv_lap lap;
    lap_begin(&lap);
    parked(jni, start, blocker, timeout, flags, self, &lap);
}

static void JNICALL probe_unpark_timed(JNIEnv *jni, jclass cls, jobject target) {
    (void)cls;
    if (!target || !active()) return;
    cv_lap lap;
    lap_begin(&lap);
    unpark(jni, target, &lap);
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

static void record_thread(JNIEnv *jni, cv_thread *t, uint8_t type) {
    cv_record r;
    r.ts = cv_now_ns();
    r.meta = cv_record_meta(type, 0, 0);
    r.obj = t->thread_obj;
    r.arg = t->java_tid;
    r.arg2 = threads_carrier(t);   /* a virtual thread's carrier; notes a platform thread's id */
    threads_write(jni, t, &r);
}

/* Whether `thread` is the recorder's maker: JVMTI posts ThreadStart and ThreadEnd for agent
 * threads too, and the maker is no thread of the program's (no state, no ring, no record). */
static int is_maker(JNIEnv *jni, jthread thread) {
    jobject maker = load_acquire(&g_cv.maker);
    jobject drainer = load_acquire(&g_cv.drainer);
    jobject sampler = load_acquire(&g_cv.sampler);
    return (maker && (*jni)->IsSameObject(jni, maker, thread) == JNI_TRUE) ||
           (drainer && (*jni)->IsSameObject(jni, drainer, thread) == JNI_TRUE) ||
           (sampler && (*jni)->IsSameObject(jni, sampler, thread) == JNI_TRUE);
}

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    if (!load_relaxed(&g_cv.live) || is_maker(jni, thread)) return;
    cv_thread *t = threads_on_start(jvmti, jni, thread);
    /* A thread without a ring may still own monitors: registered either way. */
    if (owners_need_threads()) owners_thread_started(jni, thread, t ? t->java_tid : threads_tid_field(jni, thread), 1);
    if (t) {
        t->owner_registered = 1;
        record_thread(jni, t, EVENT_THREAD_START);
    }
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    if (!load_relaxed(&g_cv.live) || is_maker(jni, thread)) return;
    if (owners_need_threads()) owners_thread_ended(threads_tid_field(jni, thread));
    cv_thread *t = threads_current(jvmti, jni, thread);
    if (!t) return;
    /* The id taken at the start is stale after a reset: the end names the object as it is now. */
    uint64_t obj = objects_id(jvmti, jni, thread, OBJ_THREAD);
    if (obj != 0 && obj != t->thread_obj) threads_set_thread_obj(t, obj);
    record_thread(jni, t, EVENT_THREAD_END);
    threads_on_end(jvmti, jni, thread, t);
}

/* GC callbacks run on the VM thread at a safepoint: no JNI, no JVMTI; only the GC
 * ring, whose single writer is that thread. */
static void record_gc(uint8_t type) {
    if (!active()) return;
    /* One add per pause, by its one writer (the VM thread): for timing=on's "met a GC". */
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

static void JNICALL on_gc_start(jvmtiEnv *jvmti) { (void)jvmti; record_gc(EVENT_GC_START); }
static void JNICALL on_gc_finish(jvmtiEnv *jvmti) { (void)jvmti; record_gc(EVENT_GC_FINISH); }

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni) {
    (void)jvmti;
    /* State is never freed: callbacks already past the check finish safely. */
    store_release(&g_cv.live, 0);
    objects_hold_wake();
    sampler_wake();
    if (repo_fd >= 0) {
        /* The repository gets the history's last records too: drained, sealed, written. */
        threads_drain(jni);
        cv_history *h = threads_history();
        history_lock(h);
        history_seal(h);
        history_unlock(h);
        repository_work(jni);
    }
}

/* The maker of held objects' weak references (objects.h, "Held references"): a round every
 * 10 ms while first sights come, every 100 ms once a round found none, sooner when a shard's
 * entries fill up; until VMDeath. */
static void JNICALL maker_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg) {
    (void)jvmti; (void)arg;
    while (load_acquire(&g_cv.live)) objects_hold_wait(objects_hold_make(jni) ? 10 : 100);
}

/* ---- The repository: the history's sealed chunks as files (history.h) ---- */

static pthread_mutex_t repo_lock = PTHREAD_MUTEX_INITIALIZER;  /* one writer at a time */
static uint64_t repo_failures;                             /* under repo_lock */

static void chunk_name(char *out, size_t n, uint64_t seq, int tmp) {
    snprintf(out, n, "chunk-%010llu.cvysnap%s", (unsigned long long)seq, tmp ? ".tmp" : "");
}

/* Writes the chunk's file whole or not at all: a temporary file, synced, renamed into place, the
 * directory synced. 0, or -errno. */
static int write_chunk_file(uint64_t seq, const cv_buf *b) {
    char tmp[64], name[64];
    chunk_name(tmp, sizeof(tmp), seq, 1);
    chunk_name(name, sizeof(name), seq, 0);
    int fd = openat(repo_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return -errno;
    size_t off = 0;
    int rc = 0;
    while (off < b->len) {
        ssize_t w = write(fd, b->data + off, b->len - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            rc = -errno;
            break;
        }
        off += (size_t)w;
    }
    if (rc == 0 && fsync(fd) != 0) rc = -errno;
    if (close(fd) != 0 && rc == 0) rc = -errno;
    if (rc == 0 && renameat(repo_fd, tmp, repo_fd, name) != 0) rc = -errno;
    if (rc != 0) {
        unlinkat(repo_fd, tmp, 0);
        return rc;
    }
    fsync(repo_fd);
    return 0;
}

static void fill_source(cv_snapshot_source *src);

/* Deletes the files of chunks that aged out and writes those sealed since; on the drain thread
 * after each pass, and at VMDeath. A chunk that cannot be written (a full disk) stays in memory;
 * its file is never half there. */
static void repository_work(JNIEnv *jni) {
    if (repo_fd < 0) return;
    pthread_mutex_lock(&repo_lock);
    cv_history *h = threads_history();
    uint64_t doomed[64];
    size_t n;
    do {
        history_lock(h);
        n = history_take_doomed(h, doomed, 64);
        history_unlock(h);
        for (size_t i = 0; i < n; i++) {
            char name[64];
            chunk_name(name, sizeof(name), doomed[i], 0);
            unlinkat(repo_fd, name, 0);
        }
    } while (n == 64);
    for (;;) {
        uint32_t used = 0;
        history_lock(h);
        cv_chunk *c = history_next_to_write(h, &used);
        history_unlock(h);
        if (!c) break;
        cv_snapshot_source src;
        fill_source(&src);
        src.chunk = c;
        cv_buf b;
        buf_init(&b);
        b.limit = CV_SNAPSHOT_MAX_BYTES;
        cv_error err;
        memset(&err, 0, sizeof(err));
        int rc = snapshot_encode_chunk(jni, &src, c, used, &b, &err) == 0 ? write_chunk_file(c->seq, &b) : -ENOMEM;
        history_file_done(h, c, rc == 0);
        buf_free(&b);
        if (rc != 0 && repo_failures++ % 100 == 0) {
            cv_log_warn("the history's chunk %llu was not written to the repository (%s): it is kept in memory only "
                        "(%llu not written so far)", (unsigned long long)c->seq,
                        rc == -ENOMEM ? err.message : strerror(-rc), (unsigned long long)repo_failures);
        }
    }
    pthread_mutex_unlock(&repo_lock);
}

/* The drain (threads.h, "The history"): passes 5 ms apart while no ring has new records, at most
 * 2 ms apart while some have, sooner while they fill fast, so that the fullest ring would be a
 * quarter full at the next pass (down to 1 ms); until VMDeath. A snapshot drains once more itself. */
static void JNICALL drain_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg) {
    (void)jvmti; (void)arg;
    /* A drain that waits for a CPU behind the program's busy threads lets their rings wrap: it
     * asks for a higher priority (nice -10; refused without CAP_SYS_NICE, then it keeps the
     * default). It runs briefly and holds no lock a callback takes but registry_lock, which
     * callbacks take only to grow a ring. */
    pid_t tid = (pid_t)syscall(SYS_gettid);
    errno = 0;
    if (setpriority(PRIO_PROCESS, (id_t)tid, -10) == 0) store_relaxed(&g_cv.drain_nice, -10);
    else store_relaxed(&g_cv.drain_nice, getpriority(PRIO_PROCESS, (id_t)tid));
    uint64_t last = cv_now_ns();
    while (load_acquire(&g_cv.live)) {
        uint32_t fullest = threads_drain(jni);
        repository_work(jni);
        uint64_t now = cv_now_ns();
        uint64_t elapsed = now - last;
        last = now;
        uint64_t ns = 5000000;
        if (fullest > 0) {
            /* Busy: a thread that bursts from here fills a 64k ring in about 2 ms at the fastest. */
            uint64_t fit = elapsed * 250 / fullest;
            ns = fit < 2000000 ? fit : 2000000;
        }
        if (ns < 1000000) ns = 1000000;
        struct timespec ts = {0, (long)ns};
        nanosleep(&ts, NULL);
    }
}

/* Starts an agent thread (left out of the recording: is_maker) named `name` running `run`; its
 * Thread's global reference is stored in *slot first. NULL, or why it could not start. */
static const char *start_agent_thread(jvmtiEnv *jvmti, JNIEnv *jni, const char *name, jvmtiStartFunction run,
                                      jobject *slot) {
    jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID init = cls ? (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V") : NULL;
    jstring jname = init ? (*jni)->NewStringUTF(jni, name) : NULL;
    jobject thread = jname ? (*jni)->NewObject(jni, cls, init, jname) : NULL;
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    jobject global = thread ? (*jni)->NewGlobalRef(jni, thread) : NULL;
    if (global) store_release(slot, global);   /* before RunAgentThread: its ThreadStart */
    const char *off = NULL;
    if (!global) {
        off = "cannot create the Thread";
    } else {
        jvmtiError e = (*jvmti)->RunAgentThread(jvmti, thread, run, NULL, JVMTI_THREAD_NORM_PRIORITY);
        if (e != JVMTI_ERROR_NONE) off = "RunAgentThread failed";
    }
    if (thread) (*jni)->DeleteLocalRef(jni, thread);
    if (jname) (*jni)->DeleteLocalRef(jni, jname);
    if (cls) (*jni)->DeleteLocalRef(jni, cls);
    return off;
}

/* Starts the maker, an agent thread (left out of the recording: is_maker), then the held
 * array. NULL, or why first sights keep making their own weak references. */
static const char *start_maker(jvmtiEnv *jvmti, JNIEnv *jni) {
    const char *failed = start_agent_thread(jvmti, jni, "Convoy object references", maker_main, &g_cv.maker);
    if (failed && !load_acquire(&g_cv.maker)) return "off: cannot create the maker's Thread";
    if (failed) return "off: RunAgentThread failed";
    if (objects_hold_start(jni) != 0) return "off: cannot allocate the held array";   /* the maker idles */
    return NULL;
}

/* The owner's side of long blocks (sampler.h), when the option asks for it; never fails the agent. */
static void start_sampler(jvmtiEnv *jvmti, JNIEnv *jni, const cv_config *config) {
    if (!config->owner_stacks_ns) return;   /* INFO says "off: option ownerstacks=off" */
    if (sampler_init(jvmti, jni, config->owner_stacks_ns, config->stack_depth, g_cv.stacks, g_cv.has_bytecodes)) {
        cv_log_warn("the owner's side of long blocks is off: no memory for its sampler");
        return;
    }
    const char *failed = start_agent_thread(jvmti, jni, "Convoy owner stacks", sampler_main, &g_cv.sampler);
    if (failed) {
        sampler_off("off: its thread did not start");
        cv_log_warn("the owner's side of long blocks is off: its thread did not start (%s)", failed);
    } else {
        threads_owner_watch(config->owner_stacks_ns, sampler_wake);
    }
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

/*
 * JDK 21+ names, absent from the JDK 17 jvmti.h the library is compiled against (the JVMTI
 * spec fixes their values): the capability can_support_virtual_threads is the bit that follows
 * can_generate_sampled_object_alloc_events, the events are 87 and 88, and their callbacks follow
 * SampledObjectAlloc in jvmtiEventCallbacks. Used only when GetVersionNumber says 21 or later.
 */
#define CV_JVMTI_VERSION_21 0x30150000
#define CV_EVENT_VIRTUAL_THREAD_START ((jvmtiEvent)87)
#define CV_EVENT_VIRTUAL_THREAD_END ((jvmtiEvent)88)

typedef void (JNICALL *cv_vthread_callback)(jvmtiEnv *jvmti, JNIEnv *jni, jthread vthread);

typedef struct {
    jvmtiEventCallbacks base;                 /* events 50..86, as in JDK 17 */
    cv_vthread_callback VirtualThreadStart;   /* 87 */
    cv_vthread_callback VirtualThreadEnd;     /* 88 */
} cv_callbacks21;

/* The byte and bit of can_support_virtual_threads: the bit after
 * can_generate_sampled_object_alloc_events, found by setting that one (gcc on x86_64 allocates
 * bit-fields from the least significant bit up). 0 if it is the top bit of its unit. */
static int vthread_capability_bit(size_t *byte, uint8_t *mask) {
    jvmtiCapabilities c;
    memset(&c, 0, sizeof(c));
    c.can_generate_sampled_object_alloc_events = 1;
    const uint8_t *p = (const uint8_t *)&c;
    for (size_t i = 0; i < sizeof(c); i++) {
        if (p[i] == 0) continue;
        if (p[i] & 0x80) {
            /* The next bit is in the next byte (bit 0), still in the same 32-bit unit. */
            if ((i + 1) % 4 == 0) return 0;
            *byte = i + 1;
            *mask = 1;
        } else {
            *byte = i;
            *mask = (uint8_t)(p[i] << 1);
        }
        return 1;
    }
    return 0;
}

static int jvmti_version_at_least(jvmtiEnv *jvmti, jint version) {
    jint v = 0;
    if ((*jvmti)->GetVersionNumber(jvmti, &v) != JVMTI_ERROR_NONE) return 0;
    jint want_major = (version & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR;
    jint major = (v & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR;
    return (v & JVMTI_VERSION_MASK_INTERFACE_TYPE) == JVMTI_VERSION_INTERFACE_JVMTI && major >= want_major;
}

static int add_capabilities(jvmtiEnv *jvmti, cv_error *err) {
    jvmtiCapabilities potential, caps;
    memset(&potential, 0, sizeof(potential));
    CV_JVMTI_OR_FAIL(err, (*jvmti)->GetPotentialCapabilities(jvmti, &potential),
                     "GetPotentialCapabilities");
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_monitor_events = 1;
    caps.can_get_line_numbers = 1;
    caps.can_get_source_file_name = 1;
    if (!potential.can_generate_monitor_events) {
        return cv_fail(err, "this JVM cannot generate monitor events in the live phase");
    }
    caps.can_get_line_numbers = potential.can_get_line_numbers;
    caps.can_get_source_file_name = potential.can_get_source_file_name;
    const char *oracle = getenv("CONVOY_TEST_OWNER_ORACLE");
    if (oracle && strcmp(oracle, "1") == 0 && potential.can_get_monitor_info && potential.can_suspend) {
        caps.can_get_monitor_info = 1;
        caps.can_suspend = 1;
        g_cv.owner_oracle = 1;
        cv_log_warn("test oracle: GetObjectMonitorUsage at every contended enter (CONVOY_TEST_OWNER_ORACLE)");
    }
    caps.can_generate_garbage_collection_events = potential.can_generate_garbage_collection_events;
    /* The owner's side of long blocks reads methods' bytecodes for the frame that holds a monitor. */
    caps.can_get_bytecodes = g_cv.config.owner_stacks_ns && !g_cv.config.empty_callbacks && potential.can_get_bytecodes;
    size_t vt_byte = 0;
    uint8_t vt_mask = 0;
    int want_vthreads = g_cv.config.vthread_events && !g_cv.config.empty_callbacks &&
                        jvmti_version_at_least(jvmti, CV_JVMTI_VERSION_21) &&
                        vthread_capability_bit(&vt_byte, &vt_mask) &&
                        (((const uint8_t *)&potential)[vt_byte] & vt_mask);
    if (want_vthreads) ((uint8_t *)&caps)[vt_byte] |= vt_mask;
    jvmtiError added = (*jvmti)->AddCapabilities(jvmti, &caps);
    if (added != JVMTI_ERROR_NONE && want_vthreads) {
        cv_log_warn("can_support_virtual_threads refused (%s): virtual threads' start and end are not recorded",
                    cv_jvmti_error_name(added));
        want_vthreads = 0;
        ((uint8_t *)&caps)[vt_byte] &= (uint8_t)~vt_mask;
        added = (*jvmti)->AddCapabilities(jvmti, &caps);
    }
    CV_JVMTI_OR_FAIL(err, added, "AddCapabilities");
    g_cv.has_vthread_events = want_vthreads && g_cv.config.vthread_events == 1;
    g_cv.has_gc_events = caps.can_generate_garbage_collection_events;
    g_cv.has_bytecodes = caps.can_get_bytecodes;
    if (!g_cv.has_gc_events) cv_log_warn("GC pause events are not available in this JVM; not recorded");
    if (!caps.can_get_line_numbers) cv_log_warn("line numbers are not available; stacks show bytecode indexes only");
    return 0;
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

static int set_callbacks(jvmtiEnv *jvmti, int empty, int timed, cv_error *err) {
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

static int set_event(jvmtiEnv *jvmti, jvmtiEventMode mode, jvmtiEvent ev, const char *name, cv_error *err) {
    jvmtiError e = (*jvmti)->SetEventNotificationMode(jvmti, mode, ev, NULL);
    if (e != JVMTI_ERROR_NONE) return cv_fail_jvmti(err, e, name, __FILE__, __LINE__);
    return 0;
}

static int set_recording_events(int on, cv_error *err) {
    jvmtiEnv *jvmti = g_cv.jvmti;
    jvmtiEventMode mode = on ? JVMTI_ENABLE : JVMTI_DISABLE;
    if (set_event(jvmti, mode, JVMTI_EVENT_MONITOR_CONTENDED_ENTER, "enable MonitorContendedEnter", err) ||
        set_event(jvmti, mode, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, "enable MonitorContendedEntered", err) ||
        set_event(jvmti, mode, JVMTI_EVENT_MONITOR_WAIT, "enable MonitorWait", err) ||
        set_event(jvmti, mode, JVMTI_EVENT_MONITOR_WAITED, "enable MonitorWaited", err)) {
        return -1;
    }
    if (g_cv.has_gc_events && !g_cv.config.empty_callbacks &&
        (set_event(jvmti, mode, JVMTI_EVENT_GARBAGE_COLLECTION_START, "enable GarbageCollectionStart", err) ||
         set_event(jvmti, mode, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, "enable GarbageCollectionFinish", err))) {
        return -1;
    }
    return 0;
}

static int set_recording_locked(int on, cv_error *err) {
    if (on) {
        fetch_add_relaxed(&g_cv.epoch, 1);
        store_release(&g_cv.recording, 1);
        if (set_recording_events(1, err) == 0) {
            /* From here on every pause is counted: the id cache may be used in this epoch. */
            if (g_cv.has_gc_events) store_release(&g_cv.gc_tracked, load_relaxed(&g_cv.epoch));
            return 0;
        }
        /* Not every event could be enabled: back to off, so flag and events agree. */
        store_release(&g_cv.recording, 0);
        cv_error ignored;
        set_recording_events(0, &ignored);
        return -1;
    }
    store_release(&g_cv.recording, 0);
    return set_recording_events(0, err);
}

int agent_set_recording(int on, cv_error *err) {
    if (!load_acquire(&g_cv.started)) return cv_fail(err, "the recorder is not started");
    pthread_mutex_lock(&switch_lock);
    int rc = set_recording_locked(on, err);
    pthread_mutex_unlock(&switch_lock);
    return rc;
}

int agent_set_releasers(JNIEnv *jni, int arm, cv_error *err) {
    if (!load_acquire(&g_cv.started)) {
        cv_fail(err, "the recorder is not started");
        return -2;
    }
    return owners_releasers_arm(g_cv.jvmti, jni, arm);
}

int agent_reset(JNIEnv *jni, cv_error *err) {
    if (!load_acquire(&g_cv.started) || g_cv.config.empty_callbacks) {
        return cv_fail(err, "the recorder is not started");
    }
    pthread_mutex_lock(&switch_lock);
    /* Writers are never stopped: the rings keep their records and snapshots skip the old
     * ones. The object table is emptied first (objects.h, Reset): an id a writer looked up
     * before is stale from then on and names no object; the time is taken after, so every
     * record a snapshot keeps was timestamped after the table was emptied. A new epoch stops
     * an end event from reusing the id its begin looked up before the reset. */
    objects_reset(jni);
    threads_history_clear();
    uint32_t epoch = fetch_add_relaxed(&g_cv.epoch, 1) + 1;
    /* Recording goes on with its GC events enabled: the id cache carries on in the new epoch. */
    if (load_acquire(&g_cv.recording) && g_cv.has_gc_events) store_release(&g_cv.gc_tracked, epoch);
    store_release(&g_cv.reset_mono, cv_now_ns());
    pthread_mutex_unlock(&switch_lock);
    return 0;
}

int agent_restart_timing(cv_error *err) {
    if (!load_acquire(&g_cv.started)) return cv_fail(err, "the recorder is not started");
    if (!g_cv.config.timing) return cv_fail(err, "callback timing is off (agent option bench.timing=on turns it on)");
    threads_timing_restart();
    return 0;
}

/* timing=on: the origin of the tick-to-ns conversion, and what one stamp costs (the mean of
 * a run of back-to-back reads; the stamps' cost is inside the stages they delimit). */
static void timing_calibrate_start(void) {
    enum { STAMPS = 4096 };
    uint64_t first = cv_ticks(), last = first;
    for (int i = 0; i < STAMPS; i++) last = cv_ticks();
    g_cv.stamp_ticks = (double)(last - first) / STAMPS;
    g_cv.timing_ticks0 = cv_ticks();
    g_cv.timing_mono0 = cv_now_ns();
}

/* Nanoseconds per tick, measured over the time since timing_calibrate_start. */
static double timing_ns_per_tick(void) {
#if defined(__x86_64__) || defined(__i386__)
    uint64_t ticks = cv_ticks() - g_cv.timing_ticks0;
    uint64_t ns = cv_now_ns() - g_cv.timing_mono0;
    return ticks ? (double)ns / (double)ticks : 0;
#else
    return 1.0; /* cv_ticks is the monotonic clock */
#endif
}

static uint64_t clamp(uint64_t v, uint64_t lo, uint64_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

int agent_start(JNIEnv *jni, const cv_config *config, cv_error *err) {
    if (g_cv.started) return cv_fail(err, "the recorder is already started in this JVM");
    jvmtiEnv *jvmti = g_cv.jvmti;
    if (!jvmti) return cv_fail(err, "no JVMTI environment (JVMTI 1.2 unavailable)");
    g_cv.config = *config;

    if (add_capabilities(jvmti, err)) return -1;
    int stack_cache = 0;
    if (!config->empty_callbacks && config->stack_depth > 0) {
        capture_init(jni, jvmti, config->stack_capture);
        stack_cache = capture_cache_init(jvmti, jni, config->stack_cache);
        g_cv.stack_oracle = capture_oracle_compares();
    }
    g_cv.id_cache = config->id_cache == 1 && g_cv.has_gc_events;
    if (g_cv.id_cache && !config->empty_callbacks) {
        /* Never freed: callbacks may still read it while the agent stops. */
        if (!g_cv.ids) {
            g_cv.ids = calloc(1, sizeof(cv_idcache));
            cv_commit(g_cv.ids, sizeof(cv_idcache));
        }
        if (!g_cv.ids) g_cv.id_cache = 0;
    }

    if (!config->empty_callbacks) {
        uint64_t cap = config->memory_cap;
        uint64_t stack_bytes = config->stack_depth ? clamp(cap / 8, 64 * 1024, 32ull << 20) : 4096;
        uint64_t object_bytes = clamp(cap / 16, 64 * 1024, 16ull << 20);
        g_cv.gc_capacity = GC_RING_RECORDS;
        uint64_t gc_bytes = ring_bytes(g_cv.gc_capacity);
        if (stack_bytes + object_bytes + gc_bytes + config->buffer_bytes > cap) {
            return cv_fail(err, "memory cap of %llu bytes is too small for the tables and one ring",
                           (unsigned long long)cap);
        }
        g_cv.stacks = stacks_create(stack_bytes);
        g_cv.gc_ring = malloc(gc_bytes);
        cv_commit(g_cv.gc_ring, gc_bytes);
        if (!g_cv.stacks || !g_cv.gc_ring || objects_init(object_bytes)) {
            return cv_fail(err, "cannot allocate the recorder's tables");
        }
        ring_init(g_cv.gc_ring, g_cv.gc_capacity);
        owners_init(jvmti, jni, config->vm_owners, cap);
        uint64_t used = stacks_memory(g_cv.stacks) + objects_memory() + gc_bytes + owners_memory() + ids_memory();
        threads_init(jni, cap > used ? cap - used : 0, config->buffer_bytes, config->stack_depth, config->timing,
                     stack_cache);
        if (config->timing) timing_calibrate_start();
    }

    g_cv.start_mono = cv_now_ns();
    g_cv.start_epoch = cv_epoch_ns();
    if (!config->empty_callbacks) {
        threads_history_init(config->history_bytes, config->history_age_ns, g_cv.gc_ring, g_cv.start_mono);
        if (config->repository[0]) {
            int fd = cv_dir_open(config->repository);
            if (fd < 0) {
                return cv_fail(err, "cannot open the repository %s: %s", config->repository, strerror(-fd));
            }
            repo_fd = fd;
            cv_history *h = threads_history();
            history_lock(h);
            history_files(h, 1);
            history_unlock(h);
        }
    }
    store_release(&g_cv.live, 1);

    if (set_callbacks(jvmti, config->empty_callbacks, config->timing && !config->empty_callbacks, err)) return -1;
    if (!config->empty_callbacks) {
        if (set_event(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, "enable VMDeath", err) ||
            set_event(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, "enable ThreadStart", err) ||
            set_event(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_END, "enable ThreadEnd", err)) {
            return -1;
        }
        if (g_cv.has_vthread_events &&
            (set_event(jvmti, JVMTI_ENABLE, CV_EVENT_VIRTUAL_THREAD_START, "enable VirtualThreadStart", err) ||
             set_event(jvmti, JVMTI_ENABLE, CV_EVENT_VIRTUAL_THREAD_END, "enable VirtualThreadEnd", err))) {
            return -1;
        }
        if (capture_async()) {
            /* ClassPrepare first: a class prepared while the loaded ones are listed is not missed. */
            if (set_event(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_LOAD, "enable ClassLoad", err) ||
                set_event(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, "enable ClassPrepare", err)) {
                return -1;
            }
            capture_preload(jvmti, jni);
        }
        threads_enumerate(jvmti, jni);
        owners_register_running(jvmti, jni);
        /* After the enumeration: the maker is not one of the program's threads (no state, no ring). */
        g_cv.held_off = config->held_refs ? start_maker(jvmti, jni) : "off: option bench.heldrefs=off";
        start_sampler(jvmti, jni, config);   /* before the drain, which wakes it */
        const char *no_drain = start_agent_thread(jvmti, jni, "Convoy history", drain_main, &g_cv.drainer);
        if (no_drain) {
            /* Snapshots still drain: the history holds what the rings still had then. */
            cv_log_warn("the history's drain thread did not start (%s): records a ring overwrites before a "
                        "snapshot are lost, and counted", no_drain);
        }
    }
    store_release(&g_cv.started, 1);
    if (config->recording) return agent_set_recording(1, err);
    return 0;
}

int agent_is_recording(void) {
    return load_acquire(&g_cv.recording);
}

int agent_is_live(void) {
    return load_acquire(&g_cv.live);
}

void agent_counters(JNIEnv *jni, int64_t out[CV_COUNTER_COUNT]) {
    memset(out, 0, CV_COUNTER_COUNT * sizeof(out[0]));
    if (!g_cv.started || g_cv.config.empty_callbacks) return;
    objects_sweep(jni);   /* objects in use: the live ones */
    cv_thread_totals t;
    threads_totals(&t);
    out[CV_COUNTER_RECORDS_WRITTEN] = (int64_t)(t.written + ring_written(g_cv.gc_ring));
    out[CV_COUNTER_RECORDS_OVERWRITTEN] = (int64_t)t.overwritten;
    out[CV_COUNTER_RECORDS_AGED] = (int64_t)t.aged;
    out[CV_COUNTER_HISTORY_BYTES] = (int64_t)t.history_bytes;
    out[CV_COUNTER_RECORDS_DROPPED] = (int64_t)(t.dropped + threads_dropped_no_ring());
    out[CV_COUNTER_THREADS_RECORDED] = (int64_t)t.threads;
    out[CV_COUNTER_THREADS_SEEN] = (int64_t)t.threads_seen;
    out[CV_COUNTER_THREADS_EVICTED] = (int64_t)t.evicted;
    out[CV_COUNTER_MEMORY_IN_USE] = (int64_t)(t.memory + stacks_memory(g_cv.stacks) + objects_memory() +
                                              ring_bytes(g_cv.gc_capacity) + owners_memory() + ids_memory());
    out[CV_COUNTER_START_EPOCH_NS] = (int64_t)g_cv.start_epoch;
    out[CV_COUNTER_STACKS_DROPPED] = (int64_t)stacks_dropped(g_cv.stacks);
    out[CV_COUNTER_OBJECTS_DROPPED] = (int64_t)objects_dropped();
    out[CV_COUNTER_OBJECTS_IN_USE] = (int64_t)objects_count();
    out[CV_COUNTER_OBJECTS_CAPACITY] = (int64_t)objects_capacity();
    out[CV_COUNTER_STACK_FALLBACKS] = (int64_t)capture_fallbacks();
}

size_t agent_stalled(cv_stalled *out, size_t cap) {
    if (!g_cv.started || g_cv.config.empty_callbacks) return 0;
    return threads_stalled(out, cap);
}

uint64_t agent_now_ns(void) {
    return cv_now_ns();
}

/* What the encoder needs of the agent (snapshot.h). */
static void fill_source(cv_snapshot_source *src) {
    memset(src, 0, sizeof(*src));
    src->jvmti = g_cv.jvmti;
    src->agent_version = g_cv.config.version[0] ? g_cv.config.version : "unknown";
    src->options = g_cv.config.options;
    src->id_cache = g_cv.id_cache ? "on"
                    : g_cv.config.id_cache == 0 ? "off: option bench.idcache=off"
                    : g_cv.config.id_cache == 2 ? "off: the collector moves objects outside its pauses"
                                                : "off: no GC events";
    src->held_off = g_cv.held_off;
    src->stack_depth = g_cv.config.stack_depth;
    src->buffer_bytes = g_cv.config.buffer_bytes;
    src->buffer_capacity = ring_capacity_for(g_cv.config.buffer_bytes);
    src->drain_nice = load_relaxed(&g_cv.drain_nice);
    src->repository = g_cv.config.repository[0] ? g_cv.config.repository : NULL;
    src->memory_cap = g_cv.config.memory_cap;
    src->start_mono = g_cv.start_mono;
    src->start_epoch = g_cv.start_epoch;
    src->reset_mono = load_acquire(&g_cv.reset_mono);
    src->gc_ring = g_cv.gc_ring;
    src->stacks = g_cv.stacks;
    if (g_cv.config.timing) {
        src->timing = 1;
        src->timing_ticks0 = g_cv.timing_ticks0;
        src->timing_mono0 = g_cv.timing_mono0;
        src->timing_ns_per_tick = timing_ns_per_tick();
        src->timing_seconds = (double)(cv_now_ns() - g_cv.timing_mono0) / 1e9;
        src->timing_stamp_ns = g_cv.stamp_ticks * src->timing_ns_per_tick;
    }
}

int agent_snapshot(JNIEnv *jni, const cv_monitor_states *states, cv_buf *out, cv_error *err) {
    if (!g_cv.started || g_cv.config.empty_callbacks) {
        return cv_fail(err, "the recorder is not started (or runs with empty callbacks)");
    }
    cv_snapshot_source src;
    fill_source(&src);
    return snapshot_encode(jni, &src, states, out, err);
}
