#include "threads.h"
#include "capture.h"
#include "arch.h"
#include "objects.h"
#include "snapshot_format.h"
#include "text.h"
#include "victims.h"

#include <linux/futex.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * Data structures, all under registry_lock (see threads.h for when it is taken):
 *   registry   every state, doubly linked through next/prev, newest first: snapshots and
 *              totals walk it; a state is unlinked in O(1) when evicted.
 *   victims    the eviction queues (victims.h): states created lazily or at enumeration
 *              (RING_LATE) are watched for a collected Thread object from creation; every
 *              state joins the ended queue, in end-time order, when its thread ends. A
 *              state created at ThreadStart is on no queue while its thread lives: ThreadEnd
 *              stays enabled from start-up to VM death and is posted, on the thread itself,
 *              before the VM lets go of its Thread object, so it is ended before it can be
 *              gone. A lazily created state gets no such promise (a virtual thread gets no
 *              ThreadStart/ThreadEnd; a thread may record an event after its ThreadEnd, e.g.
 *              on its Thread's monitor while exiting, and get a fresh state then), nor does
 *              an enumerated one (its thread may be ending while it is enumerated).
 * make_room asks victims_pick for the next victim: O(1) in the usual case (the oldest ended
 * state), plus one IsSameObject per watched state when no collected one is already known.
 */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static cv_thread *registry;
static cv_victims victims;
static uint64_t ring_budget;
static uint64_t memory_in_use;
static uint32_t ring_capacity;
static uint32_t frame_slots;
static uint64_t next_ring_id;
static uint64_t threads_seen;
static uint32_t virtual_capacity;  /* first capacity of a virtual thread's ring */
static jclass virtual_class;       /* java.lang.BaseVirtualThread (JDK 21+), else NULL */
static pthread_key_t carrier_key;  /* a carrier's frame buffer, freed when the OS thread exits */
static int carrier_key_ok;
static size_t carrier_bytes;       /* bytes of one carrier frame buffer */
static __thread jvmtiFrameInfo *carrier_frames;
static __thread int64_t os_thread_tid;   /* Java id of the platform thread of this OS thread, 0 unknown */
static uint64_t evicted;
static uint64_t retired;            /* evicted while pinned (threads_totals) */
static uint64_t evicted_written, evicted_dropped;
static uint64_t dropped_no_ring;
static size_t timing_bytes;                       /* sizeof(cv_timing) with bench.timing=on, else 0 */
static size_t stack_cache_bytes;                  /* sizeof(cv_stack_cache) with the stack cache, else 0 */
static uint64_t evicted_stack_hits;               /* under registry_lock */
static cv_timing_total evicted_timing[CV_TEV_COUNT]; /* under registry_lock */
static cv_timing_slow evicted_slowest[CV_TIMING_SLOWEST_REPORTED]; /* under registry_lock, slowest first */
static size_t evicted_slowest_count;

/* The history (threads.h, history.h). drain_lock serializes threads_drain, the reset's clear
 * and snapshots' pins: a state's cursor is written by a drain under drain_lock and the history's
 * lock, or by make_room under registry_lock and the history's lock; taken in that order:
 * drain_lock, registry_lock, the history's lock. */
static cv_history history;
static int history_on;
static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t owner_threshold_ns;   /* threads_owner_watch: 0 none; set before the drain starts */
static void (*owner_wake)(void);
static const cv_ring *gc_ring;
static cv_hist_cursor gc_cursor;      /* under the history's lock */
static uint64_t gc_base;
static uint64_t recording_start_ns;

/* bench.timing=on: whether t's accumulators belong to the current timing window (timing.h). */
static int in_window(cv_thread *t) {
    return t->timing && load_acquire(&t->timing->window) == timing_window();
}

/* Lowers *at to v if v is lower (THE DRAIN'S MARK in threads.h). */
static void lower_to(uint64_t *at, uint64_t v) {
    uint64_t g = __atomic_load_n(at, __ATOMIC_SEQ_CST);
    while (v < g && !__atomic_compare_exchange_n(at, &g, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
}

/* The drain's mark for a ring whose cursor is at `drained`: half a ring past it. */
static uint64_t mark_of(uint64_t drained, uint32_t capacity) {
    return drained + (capacity > 1 ? capacity / 2 : 1);
}

/* Thread-local storage value of a thread that could not get a state. */
static cv_thread no_ring;
/* Thread-local storage value of one of Convoy's own threads (web server, dump on exit):
 * never recorded, not counted as dropped. */
static cv_thread own_thread;
/* Thread-local storage value of a thread after its ThreadEnd. HotSpot posts ThreadEnd
 * before the thread's last exit steps, which can still post events (a contended enter on
 * its Thread object while it notifies its joiners): those are after the thread's end
 * record and are not recorded. Its state may already be freed by then (ended states are
 * eviction victims), so the storage must not point to it; and it must not be empty, or
 * the event would make a second, late state for the same thread. */
static cv_thread ended_thread;

/* How to read a Thread's Java id: the field Thread.tid, else (a JDK without it) the
 * method Thread.getId; both NULL if neither is found. Set once by threads_init. */
static jfieldID thread_tid;
static jmethodID thread_get_id;

static void find_thread_id_accessor(JNIEnv *jni) {
    jclass thread_class = (*jni)->FindClass(jni, "java/lang/Thread");
    if (!thread_class) {
        (*jni)->ExceptionClear(jni);
        return;
    }
    thread_tid = (*jni)->GetFieldID(jni, thread_class, "tid", "J");
    if (!thread_tid) {
        (*jni)->ExceptionClear(jni);
        thread_get_id = (*jni)->GetMethodID(jni, thread_class, "getId", "()J");
        if (!thread_get_id) (*jni)->ExceptionClear(jni);
    }
    (*jni)->DeleteLocalRef(jni, thread_class);
}

static void carrier_exit(void *p) {
    pthread_mutex_lock(&registry_lock);
    memory_in_use -= carrier_bytes;
    pthread_mutex_unlock(&registry_lock);
    free(p);
}

int threads_init(JNIEnv *jni, uint64_t budget, uint32_t buffer_bytes, uint32_t stack_depth, int timing,
                 int stack_cache) {
    find_thread_id_accessor(jni);
    ring_budget = budget;
    ring_capacity = ring_capacity_for(buffer_bytes);
    if (ring_capacity == 0) ring_capacity = 1;
    virtual_capacity = ring_capacity < CV_VIRTUAL_RING_RECORDS ? ring_capacity : CV_VIRTUAL_RING_RECORDS;
    frame_slots = stack_depth + CAPTURE_SLACK;
    carrier_bytes = frame_slots * sizeof(jvmtiFrameInfo);
    carrier_key_ok = pthread_key_create(&carrier_key, carrier_exit) == 0;
    jclass vc = (*jni)->FindClass(jni, "java/lang/BaseVirtualThread");
    if (vc) {
        virtual_class = (*jni)->NewGlobalRef(jni, vc);
        (*jni)->DeleteLocalRef(jni, vc);
    }
    (*jni)->ExceptionClear(jni);   /* JDK 17-20: no such class, no virtual threads */
    timing_bytes = timing ? sizeof(cv_timing) : 0;
    stack_cache_bytes = stack_cache ? sizeof(cv_stack_cache) : 0;
    return 0;
}

static char *dup_or_empty(const char *s) {
    return strdup(s ? s : "");
}

/* A name from JVMTI, kept to CV_NAME_MAX_BYTES (text.h). */
static char *dup_name(const char *s) {
    return cv_name_dup(s, CV_NAME_MAX_BYTES);
}

/* Bytes the names take, counted against the cap with the state's block. */
static uint64_t names_bytes(const char *name, const char *group, const char *parent) {
    return (name ? strlen(name) + 1 : 0) + (group ? strlen(group) + 1 : 0) + (parent ? strlen(parent) + 1 : 0);
}

/* Name, group and parent group of `thread`, freshly strdup'ed; *daemon: whether it is a daemon
 * thread (0 when GetThreadInfo fails). */
static void read_names(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                       char **name, char **group, char **parent, int *daemon) {
    *name = *group = *parent = NULL;
    *daemon = 0;
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof(info));
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE) return;
    *daemon = info.is_daemon ? 1 : 0;
    *name = dup_name(info.name);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
    if (info.thread_group) {
        jvmtiThreadGroupInfo gi;
        memset(&gi, 0, sizeof(gi));
        if ((*jvmti)->GetThreadGroupInfo(jvmti, info.thread_group, &gi) == JVMTI_ERROR_NONE) {
            *group = dup_name(gi.name);
            (*jvmti)->Deallocate(jvmti, (unsigned char *)gi.name);
            if (gi.parent) {
                jvmtiThreadGroupInfo pi;
                memset(&pi, 0, sizeof(pi));
                if ((*jvmti)->GetThreadGroupInfo(jvmti, gi.parent, &pi) == JVMTI_ERROR_NONE) {
                    *parent = dup_name(pi.name);
                    (*jvmti)->Deallocate(jvmti, (unsigned char *)pi.name);
                }
                (*jni)->DeleteLocalRef(jni, gi.parent);
            }
        }
        (*jni)->DeleteLocalRef(jni, info.thread_group);
    }
    if (info.context_class_loader) (*jni)->DeleteLocalRef(jni, info.context_class_loader);
}

int64_t threads_tid_field(JNIEnv *jni, jobject thread) {
    return thread_tid ? (int64_t)(*jni)->GetLongField(jni, thread, thread_tid) : 0;
}

static int64_t java_thread_id(JNIEnv *jni, jthread thread) {
    jlong tid = -1;
    if (thread_tid) {
        tid = (*jni)->GetLongField(jni, thread, thread_tid);
    } else if (thread_get_id) {
        tid = (*jni)->CallLongMethod(jni, thread, thread_get_id);
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni);
            tid = -1;
        }
    }
    return (int64_t)tid;
}

/* Releases what the state holds besides its own block. */
static void release_state(JNIEnv *jni, cv_thread *t) {
    if (t->thread_ref && jni) (*jni)->DeleteWeakGlobalRef(jni, t->thread_ref);
    if (t->grown_bytes) free(t->ring);
    t->grown_bytes = 0;
    free(t->spare);
    t->spare = NULL;
    t->spare_bytes = 0;
    free(t->name);
    free(t->group);
    free(t->parent_group);
}

/* A state whose Thread object has been collected: its thread ended without a ThreadEnd
 * (virtual threads get none, the recorder does not ask for their events). */
static int thread_gone(JNIEnv *jni, const cv_thread *t) {
    return jni && t->thread_ref && (*jni)->IsSameObject(jni, t->thread_ref, NULL);
}

static cv_thread *of_victim(cv_victim *v) {
    return (cv_thread *)((char *)v - offsetof(cv_thread, victim));
}

/* victims_pick's test; only watched states, never ended, are asked. */
static int victim_gone(cv_victim *v, void *jni) {
    return thread_gone((JNIEnv *)jni, of_victim(v));
}

/* The history's description of a state, its strings borrowed from `name`, `group`, `parent`. */
static cv_hist_thread describe(const cv_thread *t, uint32_t flags, uint64_t end_ns, const char *name,
                               const char *group, const char *parent) {
    cv_hist_thread d;
    memset(&d, 0, sizeof(d));
    d.ring_id = t->ring_id;
    d.java_tid = t->java_tid;
    d.thread_obj = t->thread_obj;
    d.flags = flags;
    d.start_ns = t->start_ns;
    d.end_ns = end_ns;
    d.written = ring_written(t->ring) + t->hist.added;   /* the recorder's own records count too */
    d.dropped = ring_dropped(t->ring);
    d.base = t->hist_base;
    d.name = name ? name : "";
    d.group = group ? group : "";
    d.parent_group = parent ? parent : "";
    return d;
}

/* Under registry_lock: a state about to be evicted leaves its last records, its losses and its
 * identity in the history, where its ring's content lives on. */
static void drain_evicted(cv_thread *t) {
    if (!history_on) return;
    cv_hist_thread d = describe(t, t->flags, t->victim.end_ns, t->name, t->group, t->parent_group);
    history_lock(&history);
    history_drain_ring(&history, t->ring, &t->hist, &d);
    history_flush_loss(&history, &d, &t->hist, t->victim.end_ns ? t->victim.end_ns : cv_now_ns());
    history_thread(&history, &d, &t->hist);
    history_unlock(&history);
}

/* Under registry_lock: evicts states of threads that are over until `need` more bytes fit
 * under the cap, in victims.h's order: first those whose Thread object is gone (their end
 * time is unknown), then the oldest ended; unpinned ones first. Returns 0 if they cannot be
 * made to fit. A state's bytes are its block plus its names. If `reuse` is given, an evicted
 * block of exactly `block` bytes is not freed but handed back in *reuse for the new state
 * (already counted out of memory_in_use, as if freed): every state has the same size, so
 * once the cap is full a new state takes over the memory of the one it evicts, and
 * malloc/free (and the page faults of memory the allocator gave back to the system) stay
 * off the thread-start path.
 *
 * When every state that is over is pinned (a snapshot copies the rings), one is evicted all
 * the same, but retired rather than freed: it leaves the registry and the queues and stops
 * counting against the cap, while its block stays as it is for the snapshots that pin it;
 * the last of them frees it (threads_unpin). A thread that starts during a snapshot at the cap
 * gets its ring; the retired blocks are memory of the snapshot, at most the states it pinned. */
static int make_room(JNIEnv *jni, uint64_t need, size_t block, cv_thread **reuse) {
    if (reuse) *reuse = NULL;
    while (memory_in_use + need > ring_budget) {
        cv_victim *v = victims_pick(&victims, victim_gone, jni);
        if (!v) v = victims_pick_pinned(&victims, victim_gone, jni);
        if (!v) {
            if (reuse) {
                free(*reuse);
                *reuse = NULL;
            }
            return 0;
        }
        cv_thread *t = of_victim(v);
        CV_ASSERT(!t->retired && t->victim.pins >= 0);
        drain_evicted(t);
        victims_remove(&victims, v);
        if (t->prev) t->prev->next = t->next; else registry = t->next;
        if (t->next) t->next->prev = t->prev;
        t->prev = t->next = NULL;
        CV_ASSERT(memory_in_use >= t->bytes + t->names_bytes + t->grown_bytes + t->spare_bytes);
        memory_in_use -= t->bytes + t->names_bytes + t->grown_bytes + t->spare_bytes;
        evicted++;
        evicted_written += ring_written(t->ring);
        evicted_dropped += ring_dropped(t->ring);
        if (t->stack_cache) evicted_stack_hits += load_relaxed(&t->stack_cache->hits);
        if (in_window(t)) {
            for (int i = 0; i < CV_TEV_COUNT; i++) timing_add(&evicted_timing[i], &t->timing->ev[i]);
            timing_slowest_merge(evicted_slowest, &evicted_slowest_count, CV_TIMING_SLOWEST_REPORTED,
                                 t->timing->slowest, CV_TIMING_SLOWEST);
        }
        if (t->victim.pins > 0) {
            t->retired = 1;
            retired++;
            continue;
        }
        CV_ASSERT(t->victim.pins == 0 && registry != t);   /* freed only unpinned, off the registry */
        release_state(jni, t);
        if (reuse && t->bytes == block && !*reuse) {
            *reuse = t;
        } else {
            free(t);
        }
    }
    return 1;
}

static int is_marker(const void *p) {
    return p == &no_ring || p == &own_thread || p == &ended_thread;
}

/* Marks a thread that gets no state (own thread, no memory), unless its storage is set already:
 * at attach the enumerating thread and the thread itself may both be in create_state for it, and
 * the one that finds no room must not overwrite the state the other has published meanwhile (the
 * thread would lose it: its events dropped, its end never recorded). Reading and setting the
 * storage in one registry_lock section orders the mark with create_state's publication. Returns
 * the state the storage already led to, else NULL (marked, or a marker already). If JVMTI refuses, the
 * thread stays unmarked and its next event comes back to create_state, which gives the same
 * answer again: nothing is lost but that event's extra look-up. */
static cv_thread *mark_without_state(jvmtiEnv *jvmti, jthread thread, void *marker) {
    pthread_mutex_lock(&registry_lock);
    void *p = NULL;
    jvmtiError e = (*jvmti)->GetThreadLocalStorage(jvmti, thread, &p);
    if (e == JVMTI_ERROR_NONE && p == NULL) {
        e = (*jvmti)->SetThreadLocalStorage(jvmti, thread, marker);
        (void)e; /* checked by contract above: either outcome is handled */
    }
    pthread_mutex_unlock(&registry_lock);
    return p && !is_marker(p) ? (cv_thread *)p : NULL;
}

/*
 * Creates and publishes the state of `thread` (the current thread, or one being enumerated
 * by another thread). Publication - reading the thread's storage, setting it to the new
 * state, linking the state into the registry - happens in one registry_lock section, so:
 *  - one thread never gets two live states: the enumerating thread and the thread itself
 *    (its ThreadStart, its ThreadEnd, its first event) may both come here for it at attach;
 *    whoever comes second finds the storage set and discards its unpublished state (or, if
 *    it finds it set before reserving, reserves nothing). Until then each holds a block of
 *    its own against the cap, so at the cap one of them may find no room because of the
 *    other's block: a state is then never lost to the no_ring marker. The one without room
 *    marks the thread only if its storage is still empty (mark_without_state), and the one
 *    with a state publishes it over a no_ring marker (nothing was allocated for it);
 *  - a state is never touched after the lock is let go unless it was published to the
 *    calling thread's own storage: were it linked first and its storage set afterwards, a
 *    failure of SetThreadLocalStorage (the thread has ended) would find a state that another
 *    thread's make_room could meanwhile have evicted and freed (RING_LATE states are
 *    eviction candidates as soon as their Thread object is collected).
 * Get/SetThreadLocalStorage under registry_lock may wait for a safepoint; every thread that
 * takes registry_lock does so in native state, so that cannot hold up the safepoint.
 */
static cv_thread *create_state(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, uint32_t flags) {
    char *name = NULL, *group = NULL, *parent = NULL;
    int daemon = 0;
    read_names(jvmti, jni, thread, &name, &group, &parent, &daemon);
    if (name && strncmp(name, CV_OWN_THREAD_PREFIX, strlen(CV_OWN_THREAD_PREFIX)) == 0) {
        free(name);
        free(group);
        free(parent);
        mark_without_state(jvmti, thread, &own_thread);
        return NULL;
    }
    int virt = virtual_class && thread && (*jni)->IsInstanceOf(jni, thread, virtual_class);
    uint32_t capacity = virt ? virtual_capacity : ring_capacity;
    size_t ring_size = ring_bytes(capacity);
    size_t frames_end = sizeof(cv_thread) + ring_size + (virt ? 0 : frame_slots * sizeof(jvmtiFrameInfo));
    size_t sc_bytes = virt ? 0 : stack_cache_bytes;
    size_t bytes = frames_end + sc_bytes + (virt ? 0 : timing_bytes);
    uint64_t nbytes = names_bytes(name, group, parent);
    cv_thread *t = NULL;
    int fresh = 0;

    pthread_mutex_lock(&registry_lock);
    /* Published by the other party since the caller looked: nothing to reserve. */
    void *published_first = NULL;
    if ((*jvmti)->GetThreadLocalStorage(jvmti, thread, &published_first) != JVMTI_ERROR_NONE) published_first = NULL;
    if (!published_first && make_room(jni, bytes + nbytes, bytes, &t)) {
        if (!t) {
            t = malloc(bytes);
            fresh = t != NULL;
        }
        if (t) memory_in_use += bytes + nbytes;
    }
    pthread_mutex_unlock(&registry_lock);

    if (published_first) {
        free(name);
        free(group);
        free(parent);
        return is_marker(published_first) ? NULL : (cv_thread *)published_first;
    }
    if (!t) {
        free(name);
        free(group);
        free(parent);
        cv_thread *other = mark_without_state(jvmti, thread, &no_ring);
        if (!other) fetch_add_relaxed(&dropped_no_ring, 1);
        return other;
    }
    /* A platform thread's fresh block is committed here, in ThreadStart, where the thread
     * holds no monitor, rather than page by page in its callbacks (arch.h, cv_commit). A
     * virtual thread's small ring is left to fault as it fills: there may be millions. Only
     * the struct is zeroed; ring_init sets the ring's header and leaves its slots as they
     * are (ring.h: never-written slots are never read); the frame buffer is written by
     * GetStackTrace before it is read. */
    if (fresh && !virt) cv_commit(t, bytes);
    memset(t, 0, sizeof(cv_thread));
    t->bytes = bytes;
    t->names_bytes = nbytes;
    t->ring = (cv_ring *)(t + 1);
    ring_init(t->ring, capacity);
    t->max_capacity = ring_capacity;
    t->grow_next = capacity < ring_capacity ? capacity : UINT64_MAX;
    /* The drain's first mark (threads.h, THE DRAIN'S MARK): a ring that cannot grow by itself. */
    uint64_t mark = history_on && capacity >= ring_capacity ? mark_of(0, capacity) : UINT64_MAX;
    store_relaxed(&t->wake_at, mark);
    store_relaxed(&t->grow_at, t->grow_next < mark ? t->grow_next : mark);
    t->frames = virt ? NULL : (jvmtiFrameInfo *)((char *)t->ring + ring_size);
    if (sc_bytes) {
        t->stack_cache = (cv_stack_cache *)((char *)t + frames_end);
        stackcache_clear(t->stack_cache);
    }
    if (!virt && timing_bytes) {
        t->timing = (cv_timing *)((char *)t + frames_end + sc_bytes);
        memset(t->timing, 0, timing_bytes);
    }
    t->flags = flags | (virt ? RING_VIRTUAL : 0) | (daemon ? RING_DAEMON : 0);
    t->is_virtual = (uint32_t)virt;
    t->start_ns = cv_now_ns();
    t->java_tid = java_thread_id(jni, thread);
    /* A virtual thread's Thread object is not tagged here: a program may have more virtual
     * threads alive than the object table has slots, and their tags would starve the monitors
     * of ids. A snapshot names the Thread objects still reachable then (snapshot.c). */
    t->thread_obj = virt ? 0 : objects_id(jvmti, jni, thread, OBJ_THREAD);
    t->thread_ref = (*jni)->NewWeakGlobalRef(jni, thread);
    if (!t->thread_ref && (*jni)->ExceptionCheck(jni)) {
        /* Out of memory: no OutOfMemoryError may reach the application thread from a JVMTI
         * callback. Without the reference the state cannot be found collected; it is still
         * freed when its thread ends. */
        (*jni)->ExceptionClear(jni);
    }
    t->name = name;
    t->group = group;
    t->parent_group = parent;

    cv_thread *result = t;
    int published = 0;
    pthread_mutex_lock(&registry_lock);
    void *p = NULL;
    jvmtiError e = (*jvmti)->GetThreadLocalStorage(jvmti, thread, &p);
    if (e == JVMTI_ERROR_NONE && p != NULL && p != &no_ring) {
        result = is_marker(p) ? NULL : (cv_thread *)p;   /* someone else came first */
    } else if (e == JVMTI_ERROR_NONE &&
               (*jvmti)->SetThreadLocalStorage(jvmti, thread, t) == JVMTI_ERROR_NONE) {
        published = 1;
        t->ring_id = ++next_ring_id;
        threads_seen++;
        t->prev = NULL;
        t->next = registry;
        if (registry) registry->prev = t;
        registry = t;
        if (flags & RING_LATE) victims_watch(&victims, &t->victim);
    } else {
        result = NULL;                                   /* the thread has ended */
    }
    if (!published) memory_in_use -= bytes + nbytes;
    pthread_mutex_unlock(&registry_lock);
    if (!published) {
        release_state(jni, t);
        free(t);
    }
    return result;
}

cv_thread *threads_current(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    void *p = NULL;
    if ((*jvmti)->GetThreadLocalStorage(jvmti, NULL, &p) != JVMTI_ERROR_NONE) return NULL;
    if (CV_LIKELY(p != NULL)) {
        if (CV_UNLIKELY(p == &no_ring)) {
            fetch_add_relaxed(&dropped_no_ring, 1);
            return NULL;
        }
        if (CV_UNLIKELY(p == &own_thread || p == &ended_thread)) return NULL;
        return (cv_thread *)p;
    }
    return create_state(jvmti, jni, thread, RING_LATE);
}

/* Owner thread: copies the ring into `neu` (nb bytes for `capacity` records, counted in
 * memory_in_use) and swaps it in unless a snapshot or the drain pins the state; the old ring, if
 * grown apart from the block, is then freed: no one else can reach it any more (threads.h: RING
 * OWNERSHIP AND GROWTH). Pinned: a spare goes back to the state (copied again next time), another
 * ring is given back; growth is tried again at `backoff`. */
static void swap_in(cv_thread *t, cv_ring *neu, size_t nb, uint32_t capacity, uint64_t backoff, int spare) {
    cv_ring *old = t->ring;
    ring_grow_into(old, neu, capacity);
    size_t old_grown = 0;
    pthread_mutex_lock(&registry_lock);
    int swapped = t->victim.pins == 0;
    if (swapped) {
        old_grown = t->grown_bytes;
        t->ring = neu;
        t->grown_bytes = nb;
        memory_in_use -= old_grown;
    } else if (spare) {
        t->spare = neu;
        t->spare_bytes = nb;
        t->spare_capacity = capacity;
    } else {
        memory_in_use -= nb;
    }
    pthread_mutex_unlock(&registry_lock);
    if (!swapped) {
        if (!spare) free(neu);
        t->grow_next = backoff;
        return;
    }
    if (old_grown) free(old);
    t->grow_next = capacity < t->max_capacity ? neu->base + capacity : UINT64_MAX;
}

/* Owner thread: the ring may grow, or take the drain's spare. */
static void grow(JNIEnv *jni, cv_thread *t);

void threads_grow(JNIEnv *jni, cv_thread *t) {
    uint64_t found = __atomic_load_n(&t->grow_at, __ATOMIC_SEQ_CST);
    uint64_t head = load_relaxed(&t->ring->head);
    uint64_t mark = __atomic_load_n(&t->wake_at, __ATOMIC_SEQ_CST);
    if (head >= mark) {
        /* The drain's mark: this ring fills faster than the drain's pace expected. A mark the
         * drain set again meanwhile stays. */
        __atomic_compare_exchange_n(&t->wake_at, &mark, UINT64_MAX, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        threads_drain_wake();
    }
    if (__atomic_exchange_n(&t->spare_ready, 0, __ATOMIC_SEQ_CST) || head >= t->grow_next) grow(jni, t);
    /* Raised from the value found, unless the drain lowered it meanwhile (a new mark, a spare);
     * then a mark or a spare the drain left since is honoured (THE DRAIN'S MARK). */
    uint64_t want = t->grow_next;
    uint64_t now_mark = __atomic_load_n(&t->wake_at, __ATOMIC_SEQ_CST);
    if (now_mark < want) want = now_mark;
    if (__atomic_compare_exchange_n(&t->grow_at, &found, want, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        lower_to(&t->grow_at, __atomic_load_n(&t->wake_at, __ATOMIC_SEQ_CST));
        if (__atomic_load_n(&t->spare_ready, __ATOMIC_SEQ_CST)) lower_to(&t->grow_at, 0);
    }
}

static void grow(JNIEnv *jni, cv_thread *t) {
    cv_ring *old = t->ring;
    uint64_t head = load_relaxed(&old->head);
    /* Tried again when as many records again have been written: a ring that cannot grow (no
     * room, or pinned by a snapshot) costs a lock only every so often. */
    uint64_t backoff = head + (head > old->capacity ? head : old->capacity);
    /* The spare the drain left for a thread that fills its ring fast, taken off the state. */
    pthread_mutex_lock(&registry_lock);
    cv_ring *spare = t->spare;
    size_t spare_bytes = t->spare_bytes;
    uint32_t spare_capacity = t->spare_capacity;
    t->spare = NULL;
    t->spare_bytes = 0;
    pthread_mutex_unlock(&registry_lock);
    if (spare) {
        swap_in(t, spare, spare_bytes, spare_capacity, backoff, 1);
        return;
    }
    if (old->capacity >= t->max_capacity) {
        t->grow_next = UINT64_MAX;
        return;
    }
    uint64_t cap64 = (uint64_t)old->capacity * 2;
    uint32_t capacity = cap64 > t->max_capacity ? t->max_capacity : (uint32_t)cap64;
    size_t nb = ring_bytes(capacity);
    pthread_mutex_lock(&registry_lock);
    int room = t->victim.pins == 0 && make_room(jni, nb, 0, NULL);
    if (room) memory_in_use += nb;
    pthread_mutex_unlock(&registry_lock);
    cv_ring *neu = room ? malloc(nb) : NULL;
    if (!neu) {
        if (room) {
            pthread_mutex_lock(&registry_lock);
            memory_in_use -= nb;
            pthread_mutex_unlock(&registry_lock);
        }
        t->grow_next = backoff;
        return;
    }
    swap_in(t, neu, nb, capacity, backoff, 0);
}

int64_t threads_carrier(const cv_thread *t) {
    if (t->is_virtual) return os_thread_tid;
    if (t->java_tid > 0) os_thread_tid = t->java_tid;
    return 0;
}

jvmtiFrameInfo *threads_frames(JNIEnv *jni, cv_thread *t) {
    if (CV_LIKELY(t->frames != NULL)) return t->frames;
    if (CV_LIKELY(carrier_frames != NULL)) return carrier_frames;
    if (!carrier_key_ok) return NULL;
    pthread_mutex_lock(&registry_lock);
    int room = make_room(jni, carrier_bytes, 0, NULL);
    if (room) memory_in_use += carrier_bytes;
    pthread_mutex_unlock(&registry_lock);
    if (!room) return NULL;
    jvmtiFrameInfo *f = malloc(carrier_bytes);
    if (!f || pthread_setspecific(carrier_key, f) != 0) {
        free(f);
        pthread_mutex_lock(&registry_lock);
        memory_in_use -= carrier_bytes;
        pthread_mutex_unlock(&registry_lock);
        return NULL;
    }
    carrier_frames = f;
    return f;
}

cv_thread *threads_on_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    /* HotSpot posts ThreadStart for the main thread after the agent, started from
     * premain on that thread, has already enumerated it: keep that state. */
    void *p = NULL;
    if ((*jvmti)->GetThreadLocalStorage(jvmti, NULL, &p) == JVMTI_ERROR_NONE && p != NULL) {
        return is_marker(p) ? NULL : (cv_thread *)p;
    }
    return create_state(jvmti, jni, thread, 0);
}

void threads_set_thread_obj(cv_thread *t, uint64_t thread_obj) {
    pthread_mutex_lock(&registry_lock);
    t->thread_obj = thread_obj;
    pthread_mutex_unlock(&registry_lock);
}

void threads_on_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, cv_thread *t) {
    CV_ASSERT(t != NULL && !is_marker(t));   /* a state, as threads_current gives it */
    char *name, *group, *parent;
    int daemon;
    read_names(jvmti, jni, thread, &name, &group, &parent, &daemon);
    pthread_mutex_lock(&registry_lock);
    /* The names at the end replace those of the start if their extra bytes fit the cap. */
    uint64_t old_bytes = t->names_bytes;
    uint64_t new_bytes = names_bytes(name ? name : t->name, group ? group : t->group,
                                     parent ? parent : t->parent_group);
    if (new_bytes <= old_bytes || make_room(jni, new_bytes - old_bytes, 0, NULL)) {
        if (name) { free(t->name); t->name = name; name = NULL; }
        if (group) { free(t->group); t->group = group; group = NULL; }
        if (parent) { free(t->parent_group); t->parent_group = parent; parent = NULL; }
        memory_in_use = memory_in_use - old_bytes + new_bytes;
        t->names_bytes = new_bytes;
    }
    t->flags |= RING_ENDED;
    victims_ended(&victims, &t->victim, cv_now_ns());
    pthread_mutex_unlock(&registry_lock);
    free(name);
    free(group);
    free(parent);
    /* From here on the storage must not lead to t (see ended_thread). If JVMTI refuses,
     * t is taken off the victim queues instead (never evicted: a few KiB kept for good, in
     * a case that should not happen), so that the thread's last events, if any, go into a
     * state that still exists. */
    if ((*jvmti)->SetThreadLocalStorage(jvmti, thread, &ended_thread) != JVMTI_ERROR_NONE) {
        pthread_mutex_lock(&registry_lock);
        victims_remove(&victims, &t->victim);
        pthread_mutex_unlock(&registry_lock);
    }
}

void threads_enumerate(jvmtiEnv *jvmti, JNIEnv *jni) {
    jint n = 0;
    jthread *all = NULL;
    jvmtiError e = (*jvmti)->GetAllThreads(jvmti, &n, &all);
    if (e != JVMTI_ERROR_NONE) {
        cv_log_warn("GetAllThreads failed: %s; running threads are recorded from their first event",
                    cv_jvmti_error_name(e));
        return;
    }
    for (jint i = 0; i < n; i++) {
        void *p = NULL;
        if ((*jvmti)->GetThreadLocalStorage(jvmti, all[i], &p) == JVMTI_ERROR_NONE && p == NULL) {
            create_state(jvmti, jni, all[i], RING_LATE);
        }
        (*jni)->DeleteLocalRef(jni, all[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
}

cv_thread_view *threads_pin_all(size_t *count) {
    pthread_mutex_lock(&registry_lock);
    size_t n = 0;
    for (cv_thread *t = registry; t; t = t->next) n++;
    cv_thread_view *v = calloc(n ? n : 1, sizeof(*v));
    size_t i = 0;
    if (v) {
        for (cv_thread *t = registry; t; t = t->next, i++) {
            t->victim.pins++;
            v[i].t = t;
            v[i].ring_id = t->ring_id;
            v[i].java_tid = t->java_tid;
            v[i].thread_obj = t->thread_obj;
            v[i].flags = t->flags;
            v[i].start_ns = t->start_ns;
            v[i].end_ns = t->victim.end_ns;
            v[i].name = dup_or_empty(t->name);
            v[i].group = dup_or_empty(t->group);
            v[i].parent_group = dup_or_empty(t->parent_group);
        }
    }
    pthread_mutex_unlock(&registry_lock);
    *count = i;
    return v;
}

/* Under registry_lock: lets go of one pin of t; a retired state no one pins any more joins *freed
 * (linked by `next`), which free_unpinned frees once the lock is let go. */
static void drop_pin(cv_thread *t, cv_thread **freed) {
    CV_ASSERT(t->victim.pins > 0);
    if (--t->victim.pins == 0 && t->retired) {
        t->next = *freed;
        *freed = t;
    }
}

static void free_unpinned(JNIEnv *jni, cv_thread *freed) {
    while (freed) {
        cv_thread *t = freed;
        freed = t->next;
        release_state(jni, t);
        free(t);
    }
}

void threads_unpin(JNIEnv *jni, cv_thread_view *v, size_t count) {
    cv_thread *freed = NULL;
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < count; i++) drop_pin(v[i].t, &freed);
    pthread_mutex_unlock(&registry_lock);
    free_unpinned(jni, freed);
    for (size_t i = 0; i < count; i++) {
        free(v[i].name);
        free(v[i].group);
        free(v[i].parent_group);
    }
    free(v);
}

void threads_totals(cv_thread_totals *out) {
    pthread_mutex_lock(&registry_lock);
    out->threads = 0;
    out->threads_seen = threads_seen;
    out->evicted = evicted;
    out->retired = retired;
    out->memory = memory_in_use;
    out->written = evicted_written;
    out->dropped = evicted_dropped;
    uint64_t not_drained = 0;
    for (cv_thread *t = registry; t; t = t->next) {
        out->threads++;
        out->written += ring_written(t->ring);
        out->dropped += ring_dropped(t->ring);
        if (!history_on) not_drained += ring_overwritten(t->ring);
    }
    pthread_mutex_unlock(&registry_lock);
    out->overwritten = not_drained;
    out->aged = out->history_bytes = 0;
    if (history_on) {
        cv_history_totals ht;
        history_lock(&history);
        history_totals(&history, &ht);
        history_unlock(&history);
        out->overwritten = ht.lost_records;
        out->aged = ht.aged_records;
        out->written += ht.added_records;   /* OWNER_SAMPLE records: written into no ring */
        out->history_bytes = ht.bytes;
    }
}

cv_thread_view *threads_find_live(cv_thread_view *views, size_t count, int64_t java_tid) {
    for (size_t i = 0; i < count; i++) {
        if (views[i].java_tid == java_tid && !(views[i].flags & RING_ENDED)) return &views[i];
    }
    return NULL;
}

uint64_t threads_stack_hits(void) {
    pthread_mutex_lock(&registry_lock);
    uint64_t n = evicted_stack_hits;
    for (cv_thread *t = registry; t; t = t->next) {
        if (t->stack_cache) n += load_relaxed(&t->stack_cache->hits);
    }
    pthread_mutex_unlock(&registry_lock);
    return n;
}

void threads_timing_restart(void) {
    pthread_mutex_lock(&registry_lock);
    timing_restart(cv_ticks());
    memset(evicted_timing, 0, sizeof(evicted_timing));
    evicted_slowest_count = 0;
    pthread_mutex_unlock(&registry_lock);
}

void threads_timing(cv_timing_total out[CV_TEV_COUNT]) {
    memset(out, 0, CV_TEV_COUNT * sizeof(out[0]));
    pthread_mutex_lock(&registry_lock);
    for (int i = 0; i < CV_TEV_COUNT; i++) timing_add_total(&out[i], &evicted_timing[i]);
    for (cv_thread *t = registry; t; t = t->next) {
        if (!in_window(t)) continue;
        for (int i = 0; i < CV_TEV_COUNT; i++) timing_add(&out[i], &t->timing->ev[i]);
    }
    pthread_mutex_unlock(&registry_lock);
}

size_t threads_timing_slowest(cv_timing_slow *out, size_t cap) {
    size_t n = 0;
    pthread_mutex_lock(&registry_lock);
    timing_slowest_merge(out, &n, cap, evicted_slowest, evicted_slowest_count);
    for (cv_thread *t = registry; t; t = t->next) {
        if (in_window(t)) timing_slowest_merge(out, &n, cap, t->timing->slowest, CV_TIMING_SLOWEST);
    }
    pthread_mutex_unlock(&registry_lock);
    return n;
}

uint64_t threads_dropped_no_ring(void) {
    return load_relaxed(&dropped_no_ring);
}

/* ---- Drain ---- */

void threads_history_init(uint64_t max_bytes, uint64_t max_age_ns, const cv_ring *gc, uint64_t start_ns) {
    history_init(&history, max_bytes, max_age_ns);
    history.totals_from = start_ns;
    gc_ring = gc;
    recording_start_ns = start_ns;
    history_on = 1;
}

cv_history *threads_history(void) {
    return &history;
}

static cv_hist_thread gc_describe(void) {
    cv_hist_thread d;
    memset(&d, 0, sizeof(d));
    d.ring_id = 0;
    d.java_tid = -1;
    d.flags = RING_SYSTEM;
    d.start_ns = recording_start_ns;
    d.written = ring_written(gc_ring);
    d.base = gc_base;
    d.name = "GC";
    d.group = d.parent_group = "";
    return d;
}

/* A state a drain pass pinned (pin_to_drain): its identity as of the pin, its names copied into
 * drain_names (offsets: the buffer may move while it fills). */
typedef struct {
    cv_thread *t;
    uint32_t flags;
    uint64_t end_ns;
    size_t   name, group, parent;
    uint8_t  hot;
} drain_view;

/* The drain pass's working memory, kept from pass to pass; under drain_lock. */
static drain_view *drain_views;
static size_t drain_views_cap;
static char *drain_names;
static size_t drain_names_len, drain_names_cap;
static uint64_t last_pass_ns;         /* when the last pass began (threads_drain_paced's rates) */
static uint64_t blocks_seen_ns;       /* when a pass last kept the begin of a block (history.blocks_kept) */

/* The owner's side looks for blocks that begin between passes at least once a threshold while
 * blocks came within this long, else only as the rings' pace brings the passes. */
#define DRAIN_BLOCKS_RECENT_NS 1000000000ull

/* Appends s (NUL-terminated, "" if NULL) to drain_names; its offset, or SIZE_MAX if no memory. */
static size_t keep_name(const char *s) {
    if (!s) s = "";
    size_t n = strlen(s) + 1;
    if (drain_names_len + n > drain_names_cap) {
        size_t cap = drain_names_cap ? drain_names_cap : 4096;
        while (cap < drain_names_len + n) cap *= 2;
        char *bigger = realloc(drain_names, cap);
        if (!bigger) return SIZE_MAX;
        drain_names = bigger;
        drain_names_cap = cap;
    }
    memcpy(drain_names + drain_names_len, s, n);
    size_t at = drain_names_len;
    drain_names_len += n;
    return at;
}

/* Under drain_lock: pins the states with records not yet drained or whose identity changed into
 * drain_views, copying their identity, in one walk of the registry; returns how many. The owner's
 * side (threads_owner_watch): *owner_due is set when a block kept as a thread's newest record is
 * due and not yet sampled; *due_ns is lowered to when the next block seen open becomes due, and,
 * while blocks came in the last DRAIN_BLOCKS_RECENT_NS, to a threshold from now (a block that
 * begins meanwhile). */
static size_t pin_to_drain(int *owner_due, uint64_t *due_ns) {
    size_t n = 0;
    drain_names_len = 0;
    pthread_mutex_lock(&registry_lock);
    uint64_t now = owner_threshold_ns ? cv_now_ns() : 0;
    if (owner_threshold_ns && blocks_seen_ns && now - blocks_seen_ns < DRAIN_BLOCKS_RECENT_NS &&
        now + owner_threshold_ns < *due_ns) {
        *due_ns = now + owner_threshold_ns;
    }
    for (cv_thread *t = registry; t; t = t->next) {
        /* The owner's side: a block kept as the newest record, not yet sampled. The cursor is the
         * drain's, read under drain_lock and registry_lock. */
        if (owner_threshold_ns && !(t->flags & RING_ENDED) &&
            (t->hist.open_kind == TOTAL_BLOCKED || t->hist.open_kind == TOTAL_PARKED_LOCK) &&
            t->hist.last_ts == t->hist.open_ts && t->owner_sampled != t->hist.open_ts) {
            uint64_t due = t->hist.open_ts + owner_threshold_ns;
            if (now >= due) *owner_due = 1;
            else if (due < *due_ns) *due_ns = due;
        }
        if (ring_written(t->ring) == t->hist.drained && t->flags == t->hist_flags) continue;
        if (n == drain_views_cap) {
            size_t cap = drain_views_cap ? drain_views_cap * 2 : 64;
            drain_view *bigger = realloc(drain_views, cap * sizeof(*bigger));
            if (!bigger) break;   /* the others wait for the next pass */
            drain_views = bigger;
            drain_views_cap = cap;
        }
        drain_view *v = &drain_views[n];
        v->name = keep_name(t->name);
        v->group = keep_name(t->group);
        v->parent = keep_name(t->parent_group);
        if (v->name == SIZE_MAX || v->group == SIZE_MAX || v->parent == SIZE_MAX) break;
        t->victim.pins++;
        v->t = t;
        v->flags = t->flags;
        v->end_ns = t->victim.end_ns;
        v->hot = 0;
        n++;
    }
    pthread_mutex_unlock(&registry_lock);
    return n;
}

/* Under drain_lock: lets go of the states pin_to_drain pinned (threads_unpin for drain_views). */
static void unpin_drained(JNIEnv *jni, size_t n) {
    cv_thread *freed = NULL;
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < n; i++) drop_pin(drain_views[i].t, &freed);
    pthread_mutex_unlock(&registry_lock);
    free_unpinned(jni, freed);
}

/* A pinned state whose ring the drain has just drained: its mark half a ring past the cursor, if
 * its ring cannot grow by itself any more and its thread has not ended (threads.h, THE DRAIN'S
 * MARK). The ring is not swapped while the state is pinned. */
static void set_mark(cv_thread *t, uint32_t flags) {
    const cv_ring *r = t->ring;
    if (r->capacity < t->max_capacity || (flags & RING_ENDED)) return;
    uint64_t mark = mark_of(t->hist.drained, r->capacity);
    if (__atomic_load_n(&t->wake_at, __ATOMIC_SEQ_CST) == mark) return;
    __atomic_store_n(&t->wake_at, mark, __ATOMIC_SEQ_CST);
    lower_to(&t->grow_at, mark);
}

/* The drain thread's sleep (threads_drain_sleep): DRAIN_AWAKE while it runs, DRAIN_ASLEEP in its
 * futex wait, DRAIN_CALLED once threads_drain_wake asked for a pass. */
#define DRAIN_ASLEEP 0u
#define DRAIN_AWAKE  1u
#define DRAIN_CALLED 2u
static uint32_t drain_state = DRAIN_AWAKE;

void threads_drain_wake(void) {
    if (__atomic_exchange_n(&drain_state, DRAIN_CALLED, __ATOMIC_SEQ_CST) == DRAIN_ASLEEP) {
        syscall(SYS_futex, &drain_state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

int threads_drain_sleep(uint64_t ns) {
    uint32_t awake = DRAIN_AWAKE;
    /* Called during the pass: a ring filled faster than expected, so no sleep. */
    if (__atomic_compare_exchange_n(&drain_state, &awake, DRAIN_ASLEEP, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
        syscall(SYS_futex, &drain_state, FUTEX_WAIT_PRIVATE, DRAIN_ASLEEP, &ts, NULL, 0);
    }
    return __atomic_exchange_n(&drain_state, DRAIN_AWAKE, __ATOMIC_SEQ_CST) == DRAIN_CALLED;
}

/* Largest ring the drain makes for a thread that fills its ring faster than the drain empties
 * it: 16 times `buffer`, and at most an eighth of the rings' budget. */
static uint32_t hot_capacity(void) {
    uint64_t cap = (uint64_t)ring_capacity * 16;
    uint32_t by_budget = ring_capacity_for((size_t)(ring_budget / 8));
    if (cap > by_budget) cap = by_budget;
    return cap < ring_capacity ? ring_capacity : (uint32_t)cap;
}

/* A pinned state whose ring took more than a quarter of its capacity between two passes, or lost
 * records: the drain makes it a ring four times as large (up to hot_capacity), committed, outside
 * every lock but for the accounting, and leaves it as the state's spare for the owner to take. */
static void make_spare(cv_thread *t) {
    pthread_mutex_lock(&registry_lock);
    uint32_t cur = t->ring->capacity;
    int wanted = !t->spare && !t->retired && !(t->flags & RING_ENDED);
    pthread_mutex_unlock(&registry_lock);
    uint32_t limit = hot_capacity();
    if (!wanted || cur >= limit) return;
    uint64_t cap64 = (uint64_t)cur * 4;
    uint32_t capacity = cap64 > limit ? limit : (uint32_t)cap64;
    size_t nb = ring_bytes(capacity);
    /* Only from room the cap has free, a quarter of it left over: a spare never takes the place of
     * a ring a thread that starts later would need, nor evicts an ended thread's. */
    pthread_mutex_lock(&registry_lock);
    int room = memory_in_use + nb <= ring_budget - ring_budget / 4;
    if (room) memory_in_use += nb;
    pthread_mutex_unlock(&registry_lock);
    if (!room) return;
    cv_ring *neu = malloc(nb);
    if (neu) cv_commit(neu, nb);
    pthread_mutex_lock(&registry_lock);
    int kept = neu && !t->spare && !t->retired && !(t->flags & RING_ENDED);
    if (kept) {
        t->spare = neu;
        t->spare_bytes = nb;
        t->spare_capacity = capacity;
        __atomic_store_n(&t->spare_ready, 1, __ATOMIC_SEQ_CST);
        lower_to(&t->grow_at, 0);
    } else {
        memory_in_use -= nb;
    }
    pthread_mutex_unlock(&registry_lock);
    if (!kept) free(neu);
}

/* Under the history's lock: moves a ring's new records; returns the share (thousandths) of its
 * capacity they were. */
static uint32_t drain_one(const cv_ring *ring, cv_hist_cursor *c, const cv_hist_thread *d) {
    uint64_t before = c->drained;
    history_drain_ring(&history, ring, c, d);
    uint64_t n = c->drained - before;
    uint64_t share = ring->capacity ? n * 1000 / ring->capacity : 0;
    return share > 1000 ? 1000 : (uint32_t)share;
}

/* A ring is hot when, at the rate this pass found, a quarter of it fills within this long: the
 * drain then leaves it a larger ring (make_spare). */
#define DRAIN_HOT_NS 10000000ull

/* One pass (threads_drain): returns the fullest share; *elapsed_ns the time since the last pass
 * began, *due_ns and the sampler's signal as pin_to_drain gives them. */
static uint32_t drain_pass(JNIEnv *jni, uint64_t *elapsed_ns, uint64_t *due_ns) {
    pthread_mutex_lock(&drain_lock);
    uint64_t start = cv_now_ns();
    uint64_t elapsed = last_pass_ns && start > last_pass_ns ? start - last_pass_ns : DRAIN_HOT_NS;
    last_pass_ns = start;
    int owner_due = 0;
    size_t n = pin_to_drain(&owner_due, due_ns);
    uint32_t fullest = 0;
    int any_hot = 0;
    history_lock(&history);
    uint64_t blocks = history.blocks_kept;
    for (size_t i = 0; i < n; i++) {
        drain_view *v = &drain_views[i];
        cv_thread *t = v->t;
        cv_hist_thread d = describe(t, v->flags, v->end_ns, drain_names + v->name, drain_names + v->group,
                                    drain_names + v->parent);
        if (v->flags != t->hist_flags) {
            history_thread(&history, &d, &t->hist);   /* it ended: a new 'T' entry */
            t->hist_flags = v->flags;
        }
        uint64_t lost = t->hist.lost;
        uint32_t share = drain_one(t->ring, &t->hist, &d);
        if (share > fullest) fullest = share;
        set_mark(t, v->flags);
        /* share / elapsed is its rate: a quarter of the ring within DRAIN_HOT_NS, or a loss */
        if ((uint64_t)share * DRAIN_HOT_NS > 250 * elapsed || t->hist.lost != lost) v->hot = 1, any_hot = 1;
    }
    if (gc_ring) {
        cv_hist_thread d = gc_describe();
        uint32_t share = drain_one(gc_ring, &gc_cursor, &d);
        if (share > fullest) fullest = share;
    }
    if (history.blocks_kept != blocks) blocks_seen_ns = start;
    history_age(&history, cv_now_ns());
    history_unlock(&history);
    for (size_t i = 0; any_hot && i < n; i++) {
        if (drain_views[i].hot) make_spare(drain_views[i].t);
    }
    unpin_drained(jni, n);
    pthread_mutex_unlock(&drain_lock);
    if (owner_due && owner_wake) owner_wake();
    *elapsed_ns = elapsed;
    return fullest;
}

uint32_t threads_drain(JNIEnv *jni) {
    if (!history_on) return 0;
    uint64_t elapsed, due = UINT64_MAX;
    return drain_pass(jni, &elapsed, &due);
}

uint64_t threads_drain_paced(JNIEnv *jni) {
    if (!history_on) return CV_DRAIN_MAX_NS;
    uint64_t elapsed, due = UINT64_MAX;
    uint32_t fullest = drain_pass(jni, &elapsed, &due);
    uint64_t ns = CV_DRAIN_MAX_NS;
    if (fullest > 0) {
        /* at this pass's rate, the fullest ring is an eighth full then */
        uint64_t fit = elapsed * 125 / fullest;
        if (fit < ns) ns = fit;
    }
    if (due != UINT64_MAX) {
        uint64_t now = cv_now_ns();
        uint64_t until = due > now ? due - now : 0;
        if (until < ns) ns = until;
    }
    return ns < CV_DRAIN_MIN_NS ? CV_DRAIN_MIN_NS : ns;
}

void threads_history_clear(void) {
    if (!history_on) return;
    pthread_mutex_lock(&drain_lock);
    pthread_mutex_lock(&registry_lock);
    history_lock(&history);
    history_clear(&history, cv_now_ns());
    /* What was written before is before the reset: not kept, not lost. */
    for (cv_thread *t = registry; t; t = t->next) {
        uint64_t head = ring_written(t->ring);
        memset(&t->hist, 0, sizeof(t->hist));
        t->hist.drained = head;
        t->hist_base = head;
        t->hist_flags = t->flags;
    }
    memset(&gc_cursor, 0, sizeof(gc_cursor));
    gc_cursor.drained = gc_base = ring_written(gc_ring);
    history_unlock(&history);
    pthread_mutex_unlock(&registry_lock);
    pthread_mutex_unlock(&drain_lock);
}

cv_thread_view *threads_history_pin(size_t *count, cv_hist_view *chunks, cv_hist_cursor *gc, cv_history_totals *totals,
                                    cv_total **run_totals, size_t *nrun_totals) {
    memset(chunks, 0, sizeof(*chunks));
    *run_totals = NULL;
    *nrun_totals = 0;
    pthread_mutex_lock(&drain_lock);
    size_t n = 0;
    cv_thread_view *v = threads_pin_all(&n);
    if (!v) {
        pthread_mutex_unlock(&drain_lock);
        *count = 0;
        return NULL;
    }
    pthread_mutex_lock(&registry_lock);
    history_lock(&history);
    for (size_t i = 0; i < n; i++) {
        v[i].hist = v[i].t->hist;
        v[i].hist_base = v[i].t->hist_base;
        v[i].dropped = ring_dropped(v[i].t->ring);
    }
    *gc = gc_cursor;
    history_totals(&history, totals);
    *run_totals = history_totals_copy(&history, nrun_totals);
    int failed = history_pin(&history, chunks);
    history_unlock(&history);
    pthread_mutex_unlock(&registry_lock);
    pthread_mutex_unlock(&drain_lock);
    if (failed) {
        threads_unpin(NULL, v, n);
        *count = 0;
        return NULL;
    }
    *count = n;
    return v;
}

void threads_history_unpin(JNIEnv *jni, cv_thread_view *views, size_t count, cv_hist_view *chunks) {
    history_unpin(&history, chunks);
    threads_unpin(jni, views, count);
}

/* The newest record of a live thread's ring, into *r; 0 when it ended, has none or the record
 * was overwritten while read. Called with registry_lock held: the ring is not replaced meanwhile
 * (RING OWNERSHIP AND GROWTH). */
static int newest_record(const cv_thread *t, cv_record *r) {
    if (t->flags & RING_ENDED) return 0;
    uint64_t head = ring_written(t->ring);
    return head != 0 && head - 1 >= ring_lost(t->ring, head) && ring_read_at(t->ring, head - 1, r);
}

size_t threads_stalled(cv_stalled *out, size_t cap) {
    size_t n = 0;
    pthread_mutex_lock(&registry_lock);
    for (cv_thread *t = registry; t; t = t->next) {
        cv_record r;
        if (!newest_record(t, &r)) continue;
        uint8_t type = (uint8_t)(r.meta & 0xFF);
        uint8_t flags = (uint8_t)((r.meta >> 8) & 0xFF);
        if (type != EVENT_MONITOR_ENTER && type != EVENT_MONITOR_WAIT && type != EVENT_PARK) continue;
        if (n < cap) {
            cv_stalled *x = &out[n];
            x->java_tid = t->java_tid;
            x->type = type;
            x->flags = flags;
            x->obj = r.obj;
            x->since_ns = r.ts;
            x->owner = type == EVENT_PARK ? r.arg2 : (type == EVENT_MONITOR_ENTER && (flags & FLAG_OWNER)) ? r.arg2 : 0;
        }
        n++;
    }
    pthread_mutex_unlock(&registry_lock);
    return n;
}

/* ---- The owner's side of long blocks (threads.h) ---- */

void threads_owner_watch(uint64_t threshold_ns, void (*wake)(void)) {
    owner_wake = wake;
    owner_threshold_ns = threshold_ns;
}

size_t threads_blocks(cv_block *out, size_t cap) {
    size_t n = 0;
    pthread_mutex_lock(&registry_lock);
    for (cv_thread *t = registry; t; t = t->next) {
        cv_record r;
        if (!newest_record(t, &r)) continue;
        uint8_t type = (uint8_t)(r.meta & 0xFF);
        uint8_t flags = (uint8_t)((r.meta >> 8) & 0xFF);
        int lock_park = type == EVENT_PARK && (flags & FLAG_LOCK);
        if (type != EVENT_MONITOR_ENTER && type != EVENT_MONITOR_ENTERED && !lock_park) continue;
        if (n < cap) {
            cv_block *x = &out[n];
            x->ring_id = t->ring_id;
            x->java_tid = t->java_tid;
            x->type = type;
            x->flags = flags;
            x->obj = r.obj;
            x->since_ns = r.ts;
            x->owner = type == EVENT_PARK || (type == EVENT_MONITOR_ENTER && (flags & FLAG_OWNER)) ? r.arg2 : 0;
            x->sampled = t->owner_sampled == r.ts;
        }
        n++;
    }
    pthread_mutex_unlock(&registry_lock);
    return n;
}

void threads_mark_sampled(uint64_t ring_id, uint64_t since_ns) {
    pthread_mutex_lock(&registry_lock);
    for (cv_thread *t = registry; t; t = t->next) {
        if (t->ring_id == ring_id) {
            t->owner_sampled = since_ns;
            break;
        }
    }
    pthread_mutex_unlock(&registry_lock);
}

/* Lets go of a state pinned by one of the functions below (threads_unpin for one state). */
static void unpin_one(JNIEnv *jni, cv_thread *t) {
    cv_thread *freed = NULL;
    pthread_mutex_lock(&registry_lock);
    drop_pin(t, &freed);
    pthread_mutex_unlock(&registry_lock);
    free_unpinned(jni, freed);
}

jobject threads_thread_ref(JNIEnv *jni, int64_t java_tid, cv_record *newest, int *has_newest) {
    *has_newest = 0;
    cv_thread *found = NULL;
    pthread_mutex_lock(&registry_lock);
    for (cv_thread *t = registry; t; t = t->next) {
        if (t->java_tid != java_tid || (t->flags & RING_ENDED) || !t->thread_ref) continue;
        uint64_t head = ring_written(t->ring);
        if (head > 0 && head - 1 >= ring_lost(t->ring, head) && ring_read_at(t->ring, head - 1, newest)) {
            *has_newest = 1;
        }
        t->victim.pins++;   /* its weak reference lives until the unpin */
        found = t;
        break;
    }
    pthread_mutex_unlock(&registry_lock);
    if (!found) return NULL;
    /* Outside the lock: NewLocalRef enters the VM, where it may wait for a safepoint. */
    jobject ref = (*jni)->NewLocalRef(jni, found->thread_ref);
    unpin_one(jni, found);
    return ref;
}

int threads_append_sample(JNIEnv *jni, uint64_t ring_id, uint64_t begin_ts, uint64_t begin_obj, const cv_record *r) {
    if (!history_on) return 0;
    pthread_mutex_lock(&drain_lock);
    cv_thread *t = NULL;
    uint32_t flags = 0;
    uint64_t end_ns = 0;
    char *name = NULL, *group = NULL, *parent = NULL;
    pthread_mutex_lock(&registry_lock);
    for (cv_thread *x = registry; x; x = x->next) {
        if (x->ring_id == ring_id) {
            t = x;
            t->victim.pins++;
            flags = t->flags;
            end_ns = t->victim.end_ns;
            name = dup_or_empty(t->name);
            group = dup_or_empty(t->group);
            parent = dup_or_empty(t->parent_group);
            break;
        }
    }
    pthread_mutex_unlock(&registry_lock);
    int appended = 0;
    if (t && name && group && parent) {
        /* As threads_drain does for this one state: its identity, its new records, then the sample. */
        cv_hist_thread d = describe(t, flags, end_ns, name, group, parent);
        history_lock(&history);
        if (flags != t->hist_flags) {
            history_thread(&history, &d, &t->hist);
            t->hist_flags = flags;
        }
        history_drain_ring(&history, t->ring, &t->hist, &d);
        appended = history_append(&history, &d, &t->hist, begin_ts, begin_obj, r);
        history_unlock(&history);
        set_mark(t, flags);
    }
    free(name);
    free(group);
    free(parent);
    if (t) unpin_one(jni, t);
    pthread_mutex_unlock(&drain_lock);
    return appended;
}
