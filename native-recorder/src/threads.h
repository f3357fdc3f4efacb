/*
 * Per-thread recorder state, found through JVMTI thread-local storage.
 *
 * Each Java thread the recorder meets gets one cv_thread: its ring, a scratch frame
 * buffer for stack capture, its identity (Java thread id, Thread object id, names, each
 * name cut to CV_NAME_MAX_BYTES; the names' bytes count against the cap). The
 * block is allocated once, when the thread starts (ThreadStart) or, for a thread that
 * was running before the recorder, when it is enumerated at start-up or first records
 * an event. Recording a record never allocates.
 *
 * Registry: all states are on one list under `registry_lock`, taken only at thread
 * start and end and by snapshots to pin states; never while recording a record.
 * States of ended threads stay on the list (a snapshot still shows them) until the
 * memory cap needs their space: then a state of a thread that is over is evicted, in the
 * order of victims.h (first those whose Thread object is gone, then the oldest ended), and
 * the new state takes over its memory. An unpinned one goes first; if a snapshot pins them
 * all, one is retired instead (off the list and out of the cap, freed when the snapshot
 * lets go of it). Besides the list, the states that can be evicted are kept on victims.h's
 * queues (same lock), so that finding the victim costs no walk over the registry;
 * threads.c says which state is on which queue. A thread that cannot get a ring within
 * the cap (every other state belongs to a live thread) records nothing; its events are
 * counted as dropped.
 *
 * Virtual threads (JDK 21+) get a state of their own too, found through the same thread-local
 * storage (JVMTI keeps it per virtual thread, whichever carrier it is mounted on), but sized
 * for many short lives: a ring of CV_VIRTUAL_RING_RECORDS records that grows, by doubling, up
 * to `buffer` (threads_write), and no frame buffer of its own: its stacks are captured into
 * a buffer of the carrier (the OS thread), which one callback uses at a time. See
 * docs/architecture.md, "Virtual threads".
 *
 * THE DRAIN'S MARK: after draining a ring that cannot grow by itself any more (capacity at least
 * max_capacity), the drain sets wake_at half a ring past its cursor, and lowers grow_at to it; a
 * state starts with the mark half a ring from its start. The event path is unchanged (its one
 * comparison, head >= grow_at, was there for growth): a thread that fills its ring faster than
 * the drain's pace expected reaches the mark, and threads_grow clears the mark and wakes the
 * drain (threads_drain_wake: one futex wake, only if the drain sleeps) before raising grow_at
 * again. So the drain may sleep long while rings fill slowly, and a burst after a quiet spell
 * still gets it back before the ring wraps. The owner raises grow_at only by a CAS from the value
 * it found when it came in, and then re-reads wake_at and spare_ready; the drain stores wake_at
 * (or spare_ready) and then lowers grow_at; all sequentially consistent: whichever comes second
 * sees the other's write, so neither a mark nor a spare is lost to a concurrent raise.
 *
 * RING OWNERSHIP AND GROWTH (concurrency contract of `ring`): the state's ring has one
 * writer, its thread; for a virtual thread that is the virtual thread, whose successive
 * mounts on carriers are ordered by the JVM (an unmount happens-before the next mount), so
 * the ring stays single-writer even when a contended enter and its entered run on different
 * carriers (JEP 491). The owner reads `ring` without a lock. It replaces it (growth) only
 * under registry_lock and only while the state is not pinned; other threads read `ring`
 * under registry_lock (totals) or while they hold a pin (snapshots), so they never see a
 * ring being replaced or freed. The old ring is freed after the swap, outside the lock: no
 * one but the owner can still reach it.
 *
 * Convoy's own threads (named CV_OWN_THREAD_PREFIX... when they start: the web server's
 * pool, the dump-on-exit hook) get no state and record nothing, so the recording shows
 * the application, not the recorder serving it.
 */
#ifndef CONVOY_THREADS_H
#define CONVOY_THREADS_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

#include "history.h"
#include "stackcache.h"
#include "log.h"
#include "ownerside.h"
#include "ring.h"
#include "timing.h"
#include "victims.h"

#define CV_OWN_THREAD_PREFIX "convoy-"
/* Records in a virtual thread's first ring: a start, an end and one block fit. */
#define CV_VIRTUAL_RING_RECORDS 4

typedef struct cv_thread {
    struct cv_thread *next;   /* registry list, newest first; under registry_lock */
    struct cv_thread *prev;
    cv_victim victim;         /* eviction queue, end time (end_ns) and snapshot pins (pins);
                                 under registry_lock */
    uint64_t ring_id;
    int64_t  java_tid;
    uint64_t thread_obj;      /* written under registry_lock, by the owner (an object id can go
                                 stale after a reset: threads_set_thread_obj) */
    uint32_t flags;           /* RING_*; under registry_lock */
    uint32_t retired;         /* evicted while pinned: off the registry, freed at the last unpin;
                                 under registry_lock */
    uint64_t start_ns;
    jweak    thread_ref;      /* deleted when the state is freed */
    char    *name;            /* under registry_lock; names are cut to CV_NAME_MAX_BYTES (text.h) */
    char    *group;
    char    *parent_group;
    size_t   bytes;           /* size of this block, counted against the cap */
    uint64_t names_bytes;     /* bytes of name, group, parent_group, counted too; under registry_lock */
    jvmtiFrameInfo *frames;   /* stack_depth + CAPTURE_SLACK entries (capture.h), owner only; NULL for a virtual thread
                                 (threads_frames: the carrier's) */
    uint64_t pending_obj;     /* owner only: monitor id of the last recorded ENTER or WAIT, */
    uint32_t pending_type;    /* its type, */
    uint32_t pending_epoch;   /* and the recording epoch it was recorded in */
    uintptr_t pending_monitor; /* owner only: of an ENTER, the ObjectMonitor owners_read found (0: none) */
    cv_stack_cache *stack_cache; /* platform threads, when the stack cache is on: after the frames,
                                 owner only but `hits` (stackcache.h); else NULL */
    uint32_t owner_registered; /* owner only: owners.h knows this thread (and its stack) */
    uint64_t bottom_method;   /* owner only: the method of its bottom frame (capture_walk), 0 unknown */
    uint32_t is_virtual;      /* a virtual thread; set before publication, never changed */
    uint64_t park_ts;         /* owner only: time of the last recorded PARK (0 = none), */
    uint64_t park_obj;        /* its blocker's id, */
    uint32_t park_epoch;      /* and its recording epoch (agent.c: the PARKED reuses the id) */
    uint32_t max_capacity;    /* the ring grows up to this many records */
    uint64_t grow_at;         /* head at which the owner next calls threads_grow: the lower of
                                 grow_next and wake_at, or 0 when the drain left a spare (see THE
                                 DRAIN'S MARK); atomic: the owner raises it only by a CAS from the
                                 value it found, the drain only lowers it */
    uint64_t grow_next;       /* owner only: head at which it next tries to grow its ring (UINT64_MAX:
                                 never) */
    uint64_t wake_at;         /* the drain's mark (UINT64_MAX: none): the head at which the owner
                                 wakes the drain; atomic, set by the drain, cleared by the owner */
    cv_ring *spare;           /* a larger ring the drain made for a thread that fills its ring
                                 faster than the drain empties it, taken by the owner at its next
                                 write (threads_grow); under registry_lock, counted against the cap */
    size_t   spare_bytes;
    uint32_t spare_capacity;
    uint32_t spare_ready;     /* atomic: the drain left a spare, set before it lowers grow_at to 0;
                                 the owner clears it in threads_grow before it looks for the spare */
    size_t   grown_bytes;     /* bytes of a ring allocated apart from the block (grown), else 0;
                                 under registry_lock, counted against the cap */
    cv_timing *timing;        /* bench.timing=on, platform threads only (else NULL): the callbacks'
                                 accumulators (timing.h), at the end of the block; owner-written,
                                 read by anyone */
    cv_hist_cursor hist;      /* the drain's position in the ring (history.h); under the history's
                                 lock, and `drained` also under registry_lock (threads.c, "Drain") */
    uint64_t hist_base;       /* records written before the history was last cleared (a reset); same */
    uint32_t hist_flags;      /* flags as the thread's newest 'T' entry in the history gives them;
                                 under the drain's lock */
    uint64_t owner_sampled;   /* the time of the block whose owner's side the sampler took or gave up
                                 on last (sampler.h), 0 none; under registry_lock */
    cv_ring *ring;            /* see RING OWNERSHIP AND GROWTH; at first the ring in the block,
                                 right after this struct */
} cv_thread;

/* A copy of a state's identity taken under the lock, for a snapshot. */
typedef struct {
    cv_thread *t;
    uint64_t ring_id;
    int64_t  java_tid;
    uint64_t thread_obj;
    uint32_t flags;
    uint64_t start_ns, end_ns;
    char    *name, *group, *parent_group;   /* strdup'ed, freed by threads_unpin */
    cv_hist_cursor hist;     /* threads_history_pin: the drain's cursor as the snapshot sees it */
    uint64_t hist_base;
    uint64_t dropped;        /* ring_dropped when pinned */
} cv_thread_view;

/* Owner thread, head >= grow_at: the ring reached the drain's mark (it wakes the drain), or it is
 * full (head >= grow_next), or the drain left a spare; then it moves the ring into the spare, or
 * else into one twice as large (up to max_capacity), if the state is not pinned and the cap has
 * room, else tries again later. */
void threads_grow(JNIEnv *jni, cv_thread *t);

/* Owner thread: writes one record into the thread's ring, growing it first when due. */
static inline void threads_write(JNIEnv *jni, cv_thread *t, const cv_record *r) {
    if (__builtin_expect(__atomic_load_n(&t->ring->head, __ATOMIC_RELAXED) >= __atomic_load_n(&t->grow_at, __ATOMIC_RELAXED), 0)) {
        threads_grow(jni, t);
    }
    ring_write(t->ring, r);
}

/* Owner thread, in a callback: for a virtual thread, the Java id of the platform thread it is
 * mounted on (its carrier), 0 if unknown; for a platform thread 0, after noting its id as the
 * OS thread's (an OS thread runs one platform thread; a carrier's ThreadStart notes it). */
int64_t threads_carrier(const cv_thread *t);

/* Owner thread: the buffer to capture a stack into (stack_depth + CAPTURE_SLACK frames): the state's own,
 * or for a virtual thread the carrier's, made on first use within the cap (NULL: no room,
 * capture no stack). */
jvmtiFrameInfo *threads_frames(JNIEnv *jni, cv_thread *t);

/* Also looks up how to read a Thread's id (the field Thread.tid, else Thread.getId). With
 * `timing`, every platform thread's state gets its cv_timing (counted against the cap with its
 * block); virtual threads' callbacks are not timed. With `stack_cache`, every platform thread's state
 * gets a cv_stack_cache (stackcache.h), counted with its block too. */
int threads_init(JNIEnv *jni, uint64_t ring_budget, uint32_t buffer_bytes, uint32_t stack_depth, int timing,
                 int stack_cache);

/* ---- The history (history.h): records leave the rings into it ----
 * The drain (threads_drain) moves the new records of every ring into the history: the agent's
 * drain thread calls it at the pace threads_drain_paced sets, a snapshot once more before it reads. A state
 * is drained once more, and its identity written, before make_room evicts it, so an ended
 * thread's records outlive its ring. The GC ring is drained as the stream of ring id 0. */
void threads_history_init(uint64_t max_bytes, uint64_t max_age_ns, const cv_ring *gc_ring, uint64_t start_ns);
/* The history itself (for the repository's writer, which takes its lock). */
cv_history *threads_history(void);
/* Moves what is new in every ring into the history, ages it (max_age); serialized with itself.
 * Returns the fullest ring's share, in thousandths, of its capacity that this pass found new. */
uint32_t threads_drain(JNIEnv *jni);
/* The drain thread's pass (threads_drain), then how long it may sleep before the next, in ns:
 * until the ring filling fastest (by its rate since the last pass) would be an eighth full, at
 * most CV_DRAIN_MAX_NS, and no later than the owner's side needs a look (threads_owner_watch:
 * when a block seen open becomes due, and at most the threshold, for blocks that begin
 * meanwhile); at least CV_DRAIN_MIN_NS. */
uint64_t threads_drain_paced(JNIEnv *jni);
/* The drain thread sleeps up to `ns`, or until an owner reaches its ring's mark (THE DRAIN'S MARK)
 * or threads_drain_wake is called; 1 if it was called (before or while it slept), 0 if not. */
int threads_drain_sleep(uint64_t ns);
/* Wakes the drain thread if it sleeps (VMDeath; an owner at its mark): an atomic exchange, and a
 * futex wake only if the drain sleeps and no one woke it yet. */
void threads_drain_wake(void);
#define CV_DRAIN_MIN_NS 1000000ull
#define CV_DRAIN_MAX_NS 20000000ull
/* A reset: everything drained first, then the history emptied; what follows starts afresh. */
void threads_history_clear(void);
/* Snapshot: pins every state (threads_pin_all) and the history's chunks together, with each
 * view's cursor as of the pin. Unpin both with threads_history_unpin. *gc receives the GC
 * ring's cursor, *run_totals a copy of the whole-run totals (free it; NULL if none). */
cv_thread_view *threads_history_pin(size_t *count, cv_hist_view *chunks, cv_hist_cursor *gc, cv_history_totals *totals,
                                    cv_total **run_totals, size_t *nrun_totals);
void threads_history_unpin(JNIEnv *jni, cv_thread_view *views, size_t count, cv_hist_view *chunks);
/* The field Thread.tid of `thread`, or 0 if this JDK has no such field. Calls no Java
 * code: usable on the event path. */
int64_t threads_tid_field(JNIEnv *jni, jobject thread);

/* The calling thread's state, created if it has none yet. NULL: record nothing
 * (the drop has been counted). `thread` is the current thread. */
cv_thread *threads_current(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread);

/* ThreadStart: creates the state of the starting (current) thread. */
cv_thread *threads_on_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread);
/* ThreadEnd: marks the state ended, refreshes its name, and sets the thread-local storage
 * to a marker: events the thread still posts after ThreadEnd are not recorded. */
void threads_on_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, cv_thread *t);
/* Owner thread: its Thread object's id, looked up again (ids go stale at a reset). */
void threads_set_thread_obj(cv_thread *t, uint64_t thread_obj);
/* Creates states for threads already running (at start-up or attach). */
void threads_enumerate(jvmtiEnv *jvmti, JNIEnv *jni);

/* Snapshot: pins every state and copies its identity. Free with threads_unpin. A pinned state
 * stays readable until unpinned, even if the memory cap evicts it meanwhile (it is retired:
 * off the registry, and freed by the unpin that lets go of it last). */
cv_thread_view *threads_pin_all(size_t *count);
void threads_unpin(JNIEnv *jni, cv_thread_view *views, size_t count);

typedef struct {
    uint64_t threads;           /* states on the list */
    uint64_t threads_seen;      /* states ever created */
    uint64_t evicted;
    uint64_t retired;           /* of them, evicted while a snapshot pinned them */
    uint64_t memory;            /* bytes of states on the list */
    uint64_t written, dropped;   /* incl. evicted states */
    uint64_t overwritten;       /* records lost before the drain moved them (history.h) */
    uint64_t aged;              /* records aged out of the history */
    uint64_t history_bytes;     /* the history's chunks */
} cv_thread_totals;

void threads_totals(cv_thread_totals *out);
/* The pinned view of the live thread with this Java thread id, or NULL. */
cv_thread_view *threads_find_live(cv_thread_view *views, size_t count, int64_t java_tid);
/* bench.timing=on: starts a new timing window (timing.h) and empties the evicted states'
 * accumulators; each thread empties its own at its next timed callback. */
void threads_timing_restart(void);
/* bench.timing=on: the callbacks' accumulators of the current timing window summed over every
 * state, evicted ones included, into out[CV_TEV_COUNT] (zeroed first). All zero when timing is off. */
void threads_timing(cv_timing_total out[CV_TEV_COUNT]);
/* bench.timing=on: the slowest callbacks over every state, evicted ones included, slowest first,
 * at most cap; returns how many. */
size_t threads_timing_slowest(cv_timing_slow *out, size_t cap);
/* Captures the stack caches answered, over every state, evicted ones included. */
uint64_t threads_stack_hits(void);
/* A thread whose newest record begins a block, wait or park that has not ended (threads_stalled). */
typedef struct {
    int64_t  java_tid;
    uint32_t type;        /* EVENT_MONITOR_ENTER, EVENT_MONITOR_WAIT or EVENT_PARK */
    uint32_t flags;       /* the record's flags (FLAG_OWNER, FLAG_LOCK) */
    uint64_t obj;         /* the monitor or blocker */
    uint64_t since_ns;    /* the record's time */
    int64_t  owner;       /* ENTER with FLAG_OWNER, PARK: the owner's Java thread id as recorded then
                             (-1 none); else 0 (unknown) */
} cv_stalled;

/* Live threads whose newest record is an ENTER, WAIT or PARK, as read from their rings now (no VM
 * call, no lock a callback takes but registry_lock): at most cap into out; returns how many there
 * are (possibly more than cap). The record may be a moment from its end: its thread may be taking
 * the monitor as it is read. */
size_t threads_stalled(cv_stalled *out, size_t cap);

/* ---- The owner's side of long blocks (sampler.h, ownerside.h) ---- */
/* Before the drain thread starts: at each pass the drain calls wake() (on its own thread, after
 * the pass) when some thread's newest record kept is a block (ENTER, lock PARK) at least
 * threshold_ns old that was not sampled yet: the sampler sleeps until then. */
void threads_owner_watch(uint64_t threshold_ns, void (*wake)(void));
/* Live threads whose newest record is an ENTER, a lock PARK (FLAG_LOCK) or an ENTERED, read as
 * threads_stalled reads them: at most cap into out; returns how many there are. `sampled` says
 * whether the block is the one threads_mark_sampled named last for the thread. */
size_t threads_blocks(cv_block *out, size_t cap);
/* The block of ring `ring_id` that began at since_ns has had its sample (or will get none). */
void threads_mark_sampled(uint64_t ring_id, uint64_t since_ns);
/* A local reference to the Thread of the live thread with this Java thread id, NULL if none (or
 * its Thread is gone); *newest its newest record and *has_newest whether there is one. */
jobject threads_thread_ref(JNIEnv *jni, int64_t java_tid, cv_record *newest, int *has_newest);
/* Drains ring `ring_id`'s new records into the history, then appends `r` to its stream if its
 * newest record is still the block that began at begin_ts on begin_obj (history_append). 1 if
 * appended, 0 if not (the block ended, the thread is gone, no memory). */
int threads_append_sample(JNIEnv *jni, uint64_t ring_id, uint64_t begin_ts, uint64_t begin_obj, const cv_record *r);

/* Events that found no ring at all (no state could be had within the cap). */
uint64_t threads_dropped_no_ring(void);

#endif
