/*
 * The agent's global state and configuration. One instance, `g_cv`, set up once by
 * agent_start() and never freed: callbacks racing with VM death may still read it.
 */
#ifndef CONVOY_H
#define CONVOY_H

#include <jvmti.h>
#include <stdint.h>

#include "log.h"
#include "ring.h"
#include "stacks.h"

#define CV_VERSION "0.1.0"

typedef struct {
    uint32_t buffer_bytes;    /* per-thread ring size */
    uint64_t memory_cap;      /* rings + tables */
    uint32_t stack_depth;     /* 0 = no stacks */
    int      recording;       /* record from the start */
    int      empty_callbacks; /* benchmark floor: callbacks that do nothing */
    char     options[1024];   /* the option text in effect, for INFO */
} cv_config;

typedef struct {
    JavaVM    *vm;
    jvmtiEnv  *jvmti;
    cv_config  config;
    int        started;       /* agent_start done; guarded by the JNI caller being Java */
    int        live;          /* atomic: 0 after VMDeath */
    int        recording;     /* atomic: monitor and GC events are recorded */
    uint32_t   epoch;         /* atomic: incremented whenever recording starts */
    int        has_gc_events;
    uint64_t   reset_mono;    /* atomic: records before this are discarded by snapshots, 0 = none */
    uint64_t   start_mono;
    uint64_t   start_epoch;
    cv_stacks *stacks;
    cv_ring   *gc_ring;
    uint32_t   gc_capacity;
    jfieldID   thread_tid;    /* java.lang.Thread.tid, or NULL */
    jmethodID  thread_get_id; /* fallback */
} cv_agent;

extern cv_agent g_cv;

int agent_start(JNIEnv *jni, const cv_config *config, cv_error *err);
int agent_set_recording(int on, cv_error *err);
/* Discards everything recorded so far: later snapshots hold only what follows. */
int agent_reset(cv_error *err);
/* Binds Probes.record0 of the instrumentation's Probes class (on the boot class path). */
int agent_bind_probes(JNIEnv *jni, jclass probes, cv_error *err);
int jni_register_natives(JNIEnv *jni);

#endif
