/*
 * The owner's side of a long block: the pure parts (no JVMTI, no JNI), unit-tested on their own.
 * sampler.h takes the samples; this file decides which blocks are due, who their owner is,
 * which frame of the owner's stack holds the lock, how the owner's state reads, how fast samples
 * may be taken, and how a sample is encoded as an OWNER_SAMPLE record
 * (schema/snapshot-format.md).
 *
 * Holding frame. JVMTI's GetOwnedMonitorStackDepthInfo needs a capability that HotSpot grants
 * only in the OnLoad phase, and Convoy's library is loaded in the live phase; so the frame is
 * found from facts any agent has: a frame can hold a monitor because its method is synchronized
 * (ACC_SYNCHRONIZED: a static one holds its class object, an instance one its receiver, which
 * must be an instance of the declaring class), or because its current bytecode index lies inside
 * a synchronized block: the monitorenter depth there, found by following the method's bytecodes
 * (GetBytecodes) from its start along every branch (ownerside_monitor_depths). Exception
 * handlers are not reached that way (JVMTI gives no exception table): a frame executing a catch
 * block counts as holding nothing.
 */
#ifndef CONVOY_OWNERSIDE_H
#define CONVOY_OWNERSIDE_H

#include <stddef.h>
#include <stdint.h>

#include "ring.h"

/* Samples per second (the rate limit) and the burst it allows. */
#define CV_OWNER_RATE 20
/* Bytecode depth map: a bytecode index the walk did not reach; the mark of a monitorenter's own
 * index (its depth in the low bits). */
#define CV_DEPTH_UNKNOWN 0xFF
#define CV_DEPTH_ENTER   0x80

/* A token bucket: at most `rate` takes a second, `rate` at once after a pause. Not thread-safe
 * (the sampler's thread alone uses it). */
typedef struct {
    uint32_t rate;
    double   tokens;
    uint64_t last_ns;
} cv_limiter;

void ownerside_limiter_init(cv_limiter *l, uint32_t rate, uint64_t now_ns);
/* 1 and one token taken, or 0 (none left now). */
int ownerside_limiter_take(cv_limiter *l, uint64_t now_ns);

/* A thread's newest record, as the sampler's scan reads it (threads_blocks). */
typedef struct {
    uint64_t ring_id;
    int64_t  java_tid;
    uint32_t type;      /* EVENT_MONITOR_ENTER, EVENT_PARK (with FLAG_LOCK) or EVENT_MONITOR_ENTERED */
    uint32_t flags;
    uint64_t obj;
    uint64_t since_ns;  /* the record's time */
    int64_t  owner;     /* ENTER with FLAG_OWNER, PARK: the owner recorded then (-1 none); else 0 */
    int      sampled;   /* this block was sampled already (or given up on) */
} cv_block;

/* Whether blocks[i] is a block due for a sample at now_ns: an ENTER or a lock PARK, not yet
 * sampled, at least threshold_ns old. */
int ownerside_due(const cv_block *b, uint64_t now_ns, uint64_t threshold_ns);
/* Indexes of the due blocks of `blocks`, oldest block first, into out (at most cap); returns how many. */
size_t ownerside_select(const cv_block *blocks, size_t n, uint64_t now_ns, uint64_t threshold_ns, size_t *out,
                        size_t cap);
/* The owner of the monitor blocks[self] (an ENTER) is blocked on, as the newest exact fact of the
 * scan says: an owner the VM gave at an ENTER on that monitor (FLAG_OWNER, > 0, not the entering
 * thread itself), or a thread whose newest record is an ENTERED of it; of those, the latest.
 * 0 if none, and never the blocked thread itself. */
int64_t ownerside_monitor_owner(const cv_block *blocks, size_t n, size_t self);

/* Owner states (OSTATE_* of snapshot_format.h) from a JVMTI thread state word. */
uint32_t ownerside_state(int32_t jvmti_state);

/* The monitorenter depth before each instruction of `code` (len bytes), into depth[len]
 * (CV_DEPTH_UNKNOWN where no walk from index 0 arrives, or inside an instruction); capped at
 * 126, CV_DEPTH_ENTER added at a monitorenter. Returns 0, or -1 if the bytecodes are malformed
 * (then depth is all unknown). */
int ownerside_monitor_depths(const uint8_t *code, uint32_t len, uint8_t *depth);
/* The monitors a frame at bytecode index `location` holds through synchronized blocks, from its
 * method's depth map; -1 unknown. `blocked_top`: the frame is the top frame of a thread blocked
 * entering a monitor, which HotSpot's interpreter reports one past its monitorenter (it steps
 * the bytecode pointer before it locks): that monitor is not held yet. */
int ownerside_frame_depth(const uint8_t *depth, uint32_t len, int64_t location, int blocked_top);

/* A frame of the owner's stack, as the sampler judged it: */
#define CV_HOLD_NONE   0   /* holds no monitor it could be blocked on */
#define CV_HOLD_MAYBE  1   /* inside a synchronized block, or an instance method synchronized on a
                              receiver that may be the monitor */
#define CV_HOLD_SURE   2   /* a static synchronized method of the class that is the monitor */
/* The holding frame among n judged frames (top first): the innermost SURE one, else the only
 * MAYBE one (*exact = 1), else the outermost MAYBE one (*exact = 0); -1 if none. */
int ownerside_holding_frame(const uint8_t *judged, size_t n, int *exact);

/* The OWNER_SAMPLE record: `lock` the monitor or lock the ring's thread is blocked on, `owner`
 * its owner's Java thread id, `state` OSTATE_*, `frame` the holding frame's depth (-1 none),
 * `exact` whether it is FLAG_FRAME_EXACT, `on` what the owner itself is blocked on, waits on or
 * is parked on (0 none), `stack` the owner's stack id. */
cv_record ownerside_record(uint64_t ts, uint64_t lock, int64_t owner, uint32_t state, int frame, int exact,
                           uint64_t on, uint32_t stack);
/* The state and the holding frame's depth (-1 none) back from a record's aux bits. */
uint32_t ownerside_record_state(const cv_record *r);
int ownerside_record_frame(const cv_record *r);

#endif
