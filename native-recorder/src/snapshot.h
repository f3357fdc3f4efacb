/*
 * Snapshot encoder: copies every ring and table, concurrently with the application,
 * into the binary format of schema/snapshot-format.md. Runs on the calling Java thread
 * (in native state), stops no thread, takes the registry lock only to pin thread
 * states and the tag mutex only to read the object count.
 */
#ifndef CONVOY_SNAPSHOT_H
#define CONVOY_SNAPSHOT_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "log.h"
#include "ring.h"
#include "stacks.h"

/* Threads blocked, waiting or parked when the caller looked, as parallel arrays of
 * `count` entries: Java thread id, MSTATE_* (MSTATE_WAITING for a wait or a park with a
 * blocker: the encoder tells them apart by the thread's newest record), identity hash of
 * the monitor or blocker, owner's Java thread id or -1. The Java side reads them from ThreadMXBean.getThreadInfo without
 * stack traces, which HotSpot serves without a safepoint. They fill SECTION_MONITORS. */
typedef struct {
    size_t         count;
    const int64_t *thread_ids;
    const int32_t *states;
    const int32_t *hashes;
    const int64_t *owners;
} cv_monitor_states;

/* What the encoder needs of the agent, which owns it. */
typedef struct {
    jvmtiEnv      *jvmti;
    const char    *agent_version;
    const char    *options;        /* the option text in effect */
    const char    *id_cache;       /* INFO objects.idcache */
    const char    *held_off;       /* INFO objects.held: NULL (held references on) or why off */
    uint32_t       stack_depth;
    uint32_t       buffer_bytes;
    uint32_t       buffer_capacity; /* records in a ring of buffer_bytes */
    int            drain_nice;      /* the drain thread's nice value (INFO history) */
    const struct cv_chunk *chunk;   /* snapshot_encode_chunk: the chunk encoded (INFO chunk) */
    const char    *repository;      /* the repository's directory, NULL none (INFO history) */
    int            repository_writer; /* its files are written by a thread of their own (1) or the drain (0) */
    uint64_t       memory_cap;
    uint64_t       start_mono;     /* when the recorder started: monotonic ns, */
    uint64_t       start_epoch;    /* and ns since 1970 UTC */
    uint64_t       reset_mono;     /* records before this are left out; 0 = no reset */
    const cv_ring *gc_ring;
    cv_stacks     *stacks;
    int            timing;              /* bench.timing=on: INFO gets the timing.* keys */
    double         timing_ns_per_tick;  /* ticks (timing.h) to ns, */
    double         timing_seconds;      /* measured over this long, */
    double         timing_stamp_ns;     /* and what one stamp costs; */
    uint64_t       timing_ticks0;       /* ticks at the monotonic time timing_mono0 */
    uint64_t       timing_mono0;
} cv_snapshot_source;

/* The largest snapshot: what a Java byte[] can hold (HotSpot refuses arrays within a few
 * words of Integer.MAX_VALUE). AgentOptions bounds memory= so that a snapshot fits. */
#define CV_SNAPSHOT_MAX_BYTES ((size_t)0x7FFFFFF0u)

int snapshot_encode(JNIEnv *jni, const cv_snapshot_source *src, const cv_monitor_states *states,
                    cv_buf *out, cv_error *err);

/* One chunk of the history (its first `used` bytes, pinned) as a self-contained snapshot file of the
 * repository: its threads (identity as its 'T' entries give them), records and losses, only the
 * stacks and objects they name (and every class), no monitor state; INFO start.monotonic.ns and
 * snapshot.monotonic.ns are its first and last record's times, `chunk` names it (src->chunk). */
int snapshot_encode_chunk(JNIEnv *jni, const cv_snapshot_source *src, const struct cv_chunk *chunk, uint32_t used,
                          cv_buf *out, cv_error *err);

#endif
