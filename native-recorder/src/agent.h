/*
 * The agent: JVMTI environment, capabilities, callbacks, recording on/off, VM death.
 * Its state is private to agent.c, set up once by agent_start() and never freed
 * (callbacks racing with VM death may still read it); the JNI natives (jni_bridge.c)
 * reach it only through the functions below.
 */
#ifndef CONVOY_AGENT_H
#define CONVOY_AGENT_H

#include <jni.h>
#include <stdint.h>

#include "counters.h"
#include "threads.h"
#include "log.h"
#include "buf.h"
#include "snapshot.h"

/*
 * The numbers of cv_config that the Java side hands over (NativeRecorder.start0's long[]), in
 * that array's order; NativeRecorder.NativeConfig names the same slots in the same order
 * (NativeConfigTest reads this list). X(SLOT, field): the slot's name and the field it sets.
 */
#define CV_CONFIG_NUMBERS(X) \
    X(BUFFER_BYTES, buffer_bytes) \
    X(MEMORY_CAP, memory_cap) \
    X(STACK_DEPTH, stack_depth) \
    X(RECORDING, recording) \
    X(EMPTY_CALLBACKS, empty_callbacks) \
    X(VM_OWNERS, vm_owners) \
    X(VTHREAD_EVENTS, vthread_events) \
    X(TIMING, timing) \
    X(STACK_CAPTURE, stack_capture) \
    X(ID_CACHE, id_cache) \
    X(STACK_CACHE, stack_cache) \
    X(HELD_REFS, held_refs) \
    X(HISTORY_BYTES, history_bytes) \
    X(HISTORY_AGE_NS, history_age_ns) \
    X(OWNER_STACKS_NS, owner_stacks_ns) \
    X(DISK_BYTES, disk_bytes)

enum {
#define CV_CONFIG_SLOT(slot, field) CV_CONFIG_##slot,
    CV_CONFIG_NUMBERS(CV_CONFIG_SLOT)
#undef CV_CONFIG_SLOT
    CV_CONFIG_COUNT
};

typedef struct {
    uint32_t buffer_bytes;    /* per-thread ring size */
    uint64_t memory_cap;      /* rings + tables */
    uint32_t stack_depth;     /* 0 = no stacks */
    int      recording;       /* record from the start */
    int      empty_callbacks; /* benchmark floor: callbacks that do nothing */
    int      vm_owners;       /* read monitor owners from the VM (owners.h) */
    int      vthread_events;  /* 1: VirtualThreadStart/End with can_support_virtual_threads (JDK 21+);
                                 2: the capability only (benchmark); 0: neither */
    int      timing;          /* benchmark only: timed callbacks (timing.h) */
    int      stack_capture;   /* CAPTURE_ASYNC or CAPTURE_JVMTI (capture.h) */
    int      id_cache;        /* shared cache of object ids (agent.c, "Object ids"):
                                 1 on; 0 off by option; 2 off: the collector moves objects
                                 outside its pauses */
    int      stack_cache;     /* per-thread cache of captured stacks (stackcache.h): 1 on, 0 off */
    int      held_refs;       /* first sights hold their object for the maker (objects.h, "Held
                                 references"): 1 on, 0 off */
    uint64_t history_bytes;   /* the history's bound (history.h): option maxsize */
    uint64_t history_age_ns;  /* and its age: option maxage, 0 = none */
    char     repository[1024]; /* directory the history's chunks are written to as files; "" none */
    uint64_t owner_stacks_ns; /* the owner's side of blocks this long (sampler.h); 0: off (option ownerstacks) */
    uint64_t disk_bytes;      /* the repository's bound on disk: option diskmaxsize */
    char     options[1024];   /* the option text in effect, for INFO */
    char     version[64];     /* Convoy's version, from the Java side (the Maven project's), for
                                 INFO agent.version; "" unknown */
} cv_config;

/* From JNI_OnLoad: obtains the JVMTI environment. Without it (JVMTI 1.2 unavailable)
 * agent_start fails later with the reason. */
int agent_on_load(JavaVM *vm, cv_error *err);
int agent_start(JNIEnv *jni, const cv_config *config, cv_error *err);
/* Serialized: the recording flag and the JVMTI event switch change together. */
int agent_set_recording(int on, cv_error *err);
/* Arms (1) or disarms (0) the read of monitor releasers from the VM, or turns it off (-1):
 * owners.h. Returns 1 armed, 0 not armed, -1 not available; -2 not started (err says why). */
int agent_set_releasers(JNIEnv *jni, int arm, cv_error *err);
int agent_is_recording(void);
/* 0 once VMDeath began. */
int agent_is_live(void);
/* Discards everything recorded so far: later snapshots hold only what follows, and the
 * object table is emptied (objects.h). Serialized with agent_set_recording. */
int agent_reset(JNIEnv *jni, cv_error *err);
/* bench.timing=on: times only the callbacks that begin from now on (timing.h, the timing window).
 * Fails (err says why) when the recorder is not started or timing is off. */
int agent_restart_timing(cv_error *err);
/* Binds Probes.record0 of the instrumentation's Probes class (on the boot class path). */
int agent_bind_probes(JNIEnv *jni, jclass probes, cv_error *err);
/* The counters of counters.h, indexed by CV_COUNTER_*; all 0 before start. Sweeps the object
 * table first (objects_sweep), so that the objects in use are the live ones. */
void agent_counters(JNIEnv *jni, int64_t out[CV_COUNTER_COUNT]);
/* threads_stalled (threads.h); 0 when the recorder is not started. */
size_t agent_stalled(cv_stalled *out, size_t cap);
/* The clock of the records (monotonic ns). */
uint64_t agent_now_ns(void);
/* A snapshot (schema/snapshot-format.md) of everything recorded, into `out`. */
int agent_snapshot(JNIEnv *jni, const cv_monitor_states *states, cv_buf *out, cv_error *err);

#endif
