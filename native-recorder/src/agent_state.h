/*
 * The agent's state and the event path's one prologue, shared by the files of the agent:
 * agent.c (lifecycle: start, capabilities, recording on/off, counters, snapshots), callbacks.c
 * (the JVMTI callbacks), record.h/.c (event recording), probes.c (the JNI natives of Probes),
 * repository.c (the drain thread and the repository's files) and oracles.c (test oracles).
 * Nothing outside those files includes it: the rest of the library and jni_bridge.c reach the
 * agent through agent.h.
 *
 * The state is one instance, set up once by agent_start() and never freed (callbacks racing
 * with VM death may still read it). It is hidden to the linker, so the event path reads it
 * as one file's static would be read (no indirection through the GOT).
 *
 * bench.timing=on (benchmark only, timing.h): the monitor callbacks and park probes are registered
 * in timed copies. Each callback's body is one always-inline function taking a cv_lap; the
 * plain callback passes NULL, so the compiler drops every stamp from it: with timing off the
 * event path holds no timing code, not even a branch.
 */
#ifndef CONVOY_AGENT_STATE_H
#define CONVOY_AGENT_STATE_H

#include "agent.h"
#include "arch.h"
#include "idcache.h"
#include "ring.h"
#include "stacks.h"
#include "timing.h"

#include <jvmti.h>
#include <stdint.h>

#define CV_HIDDEN __attribute__((visibility("hidden")))

typedef struct {
    jvmtiEnv  *jvmti;
    cv_config  config;
    int        started;       /* agent_start done; guarded by the JNI caller being Java */
    int        live;          /* atomic: 0 after VMDeath */
    int        recording;     /* atomic: monitor and GC events are recorded */
    uint32_t   epoch;         /* atomic: incremented whenever recording starts */
    int        has_gc_events;
    int        has_vthread_events; /* VirtualThreadStart/End enabled (JDK 21+, vthread_events) */
    int        owner_oracle;  /* tests only: GetObjectMonitorUsage at each contended enter (oracles.h) */
    uint64_t   reset_mono;    /* atomic: records before this are discarded by snapshots, 0 = none */
    uint64_t   start_mono;
    uint64_t   start_epoch;
    cv_stacks *stacks;
    cv_ring   *gc_ring;
    uint32_t   gc_capacity;
    uint64_t   gc_started;    /* atomic: GC pauses begun and finished while recording, */
    uint64_t   gc_finished;   /* written by the VM thread (bench.timing=on tells a callback that met one;
                                 the id cache tells whether objects may have moved) */
    int        id_cache;      /* the cache of object ids is on (record.h, "Object ids") */
    cv_idcache *ids;          /* that cache while it is on, else NULL */
    const char *held_off;     /* why first sights make their own weak references (objects.h,
                                 "Held references"), NULL when the maker holds them */
    jobject    maker;         /* atomic: the maker's Thread (global reference), once made */
    jobject    drainer;       /* atomic: the drain thread's Thread (global reference), once made */
    jobject    sampler;       /* atomic: the owner-stack sampler's Thread (global reference), once made */
    jobject    writer;        /* atomic: the repository writer's Thread (global reference), once made */
    int        has_bytecodes; /* can_get_bytecodes was added (option ownerstacks: holding frames) */
    int        drain_nice;    /* atomic: the drain thread's nice value, once it runs */
    int        stack_oracle;  /* CONVOY_TEST_STACK_ORACLE=1: cache hits are checked (oracles.h) */
    uint32_t   gc_tracked;    /* atomic: the recording epoch whose GC pauses are all counted */
    uint64_t   timing_ticks0; /* bench.timing=on: cv_ticks() and cv_now_ns() at start, to convert ticks */
    uint64_t   timing_mono0;
    double     stamp_ticks;   /* bench.timing=on: what one cv_ticks() costs, in ticks (mean of a run) */
} cv_agent_state;

extern cv_agent_state g_cv CV_HIDDEN;

/*
 * JDK 21+ names, absent from the JDK 17 jvmti.h the library is compiled against (the JVMTI
 * spec fixes their values): the events are 87 and 88. Used only when GetVersionNumber says 21
 * or later (agent.c).
 */
#define CV_EVENT_VIRTUAL_THREAD_START ((jvmtiEvent)87)
#define CV_EVENT_VIRTUAL_THREAD_END ((jvmtiEvent)88)

/* Whether events are recorded: recording on and the VM not dying. */
static inline int cv_active(void) {
    return load_relaxed(&g_cv.recording) && load_relaxed(&g_cv.live);
}

/* bench.timing=on: the time since the previous stamp goes to `stage`; nothing when lap is NULL
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

/*
 * The one prologue of every monitor callback and park probe, plain and timed: 0 when nothing
 * is to be recorded (recording off, or the VM dying); else 1, the lap begun when there is one.
 * The plain copies pass NULL, and nothing of timing is left in them.
 */
static CV_ALWAYS_INLINE int callback_begin(cv_lap *lap) {
    if (!cv_active()) return 0;
    if (lap) lap_begin(lap);
    return 1;
}

/* After the callback's last stamp (the RING stage's, taken here): adds the lap to the thread's
 * accumulators as event `tev` (record.c). Nothing without a lap. */
struct cv_thread;
void lap_commit(struct cv_thread *t, int tev, cv_lap *lap);
#define LAP_END(lap, t, tev)                 \
    do {                                     \
        if (lap) {                           \
            LAP(lap, RING);                  \
            lap_commit((t), (tev), (lap));   \
        }                                    \
    } while (0)

/* callbacks.c: registers the JVMTI callbacks (empty: the benchmark floor; timed: bench.timing=on). */
int callbacks_set(jvmtiEnv *jvmti, int empty, int timed, cv_error *err);

/* agent.c: what the snapshot encoder needs of the agent (snapshot.h). */
void agent_fill_source(cv_snapshot_source *src);

/* repository.c: the history's sealed chunks as files in the directory of option repository,
 * and the drain thread. repository_open opens the directory (0, or -1 with err set) and sets
 * the bounds of its files (bytes, and age in ns, 0: none): they outlive the chunks in memory.
 * repository_work deletes the files of a reset's chunks and those beyond the bounds, and writes
 * those sealed since (a no-op without a repository). It runs on the writer thread
 * (writer_main, "Convoy repository"), which the drain wakes after a pass that sealed a chunk
 * or met a reset, and once a second for the age bound; so the drain never waits for the disk.
 * Without a writer thread (it could not start) the drain calls it itself after each pass.
 * repository_writer_started says the writer runs; repository_final, at VMDeath, drains, seals
 * and writes the last of the history. drain_main is the drain thread's body (threads.h, "The
 * history"). */
int repository_open(const char *dir, uint64_t max_bytes, uint64_t max_age_ns, cv_error *err);
int repository_on(void);
void repository_work(JNIEnv *jni);
void repository_final(JNIEnv *jni);
void repository_writer_started(void);
int repository_writer_runs(void);
void repository_writer_wake(void);
void JNICALL writer_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg);
void JNICALL drain_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg);

#endif
