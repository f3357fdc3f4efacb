/*
 * Benchmark-only timing of the recorder's own callbacks (agent option bench.timing=on; off by
 * default). With it on, agent.c registers timed copies of the monitor callbacks and park
 * probes, which stamp the time-stamp counter between the stages of each callback; with it
 * off the plain callbacks are registered and carry no timing code at all.
 *
 * A callback's stages are consecutive intervals between stamps (cv_lap): each stage is the
 * time from the stamp before it to its own, so the stages of one callback add up exactly to
 * its whole duration (first stamp to last), the stamps' own cost spread over them. A stage a
 * callback does not run (no stack on an end event, stackdepth=0, the owner read outside
 * MonitorContendedEnter) is not counted for it.
 *
 * Accumulators are per thread (cv_timing, in the thread's state), written by the owning
 * thread only with relaxed stores, and summed by readers (snapshots) with relaxed loads into
 * a cv_timing_total: no cache line shared between threads is written per event. A sum taken
 * while threads record may miss the fields of the event being committed; taken when they
 * are quiet it is exact. Everything is in ticks of cv_ticks() (arch.h); the reader converts
 * to nanoseconds with the calibration the agent keeps.
 *
 * Context switches: a timed callback also reads its thread's voluntary and involuntary context
 * switch counts (getrusage, RUSAGE_THREAD) before its first stamp and after its last, outside
 * its measured duration. A callback that switched voluntarily slept (on a lock, a safepoint,
 * a page fault that waited): something it called made it wait. One that switched
 * involuntarily was preempted: the kernel gave its CPU to another thread, which no code of
 * the recorder's can prevent on a machine with more runnable threads than CPUs. The steady
 * histogram and maximum leave the preempted callbacks out, so that a report can show both
 * what a callback costs and what the machine added.
 *
 * Durations also go into a histogram per event type: log2 buckets, each cut into
 * CV_HIST_SUB linear sub-buckets (so a bucket is at most 1/CV_HIST_SUB of its lower bound
 * wide: 12.5 %), values below CV_HIST_SUB exact, values of 2^CV_HIST_MAX_BITS ticks and more
 * in the last bucket (the exact maximum is kept apart).
 *
 * The event and stage lists are defined once, here; their names (lower case) are those of
 * the snapshot's INFO keys (schema/snapshot-format.md), and TimingNamesTest (test-apps) holds
 * the harness's parser, dev.convoy.testapps.bench.CallbackTiming, to them.
 */
#ifndef CONVOY_TIMING_H
#define CONVOY_TIMING_H

#include <stddef.h>
#include <stdint.h>

#define CV_TIMING_EVENTS(X) \
    X(MONITOR_ENTER)        \
    X(MONITOR_ENTERED)      \
    X(MONITOR_WAIT)         \
    X(MONITOR_WAITED)       \
    X(PARK)                 \
    X(PARKED)               \
    X(UNPARK)

/* In the order a monitor callback runs them (the owner read comes first in
 * MonitorContendedEnter, and MonitorWait reads the clock a second time before the ring). */
#define CV_TIMING_STAGES(X)                                                                  \
    X(CLOCK)    /* cv_now_ns(): the record's timestamp */                                   \
    X(THREAD)   /* threads_current(): the thread's state through thread-local storage */    \
    X(OWNER)    /* owners_read(): the monitor's owner from the VM (MonitorContendedEnter) */ \
    X(OBJECT)   /* objects_id(), or the id its begin event looked up */                     \
    X(WALK)     /* the stack walk of capture.h on the current thread */                    \
    X(INTERN)   /* stacks_intern() */                                                       \
    X(RING)     /* the record's other fields (JNI reads of thread ids, flags), ring_write() */

enum {
#define CV_TEV_INDEX(name) CV_TEV_##name,
    CV_TIMING_EVENTS(CV_TEV_INDEX)
#undef CV_TEV_INDEX
    CV_TEV_COUNT
};

enum {
#define CV_STAGE_INDEX(name) CV_STAGE_##name,
    CV_TIMING_STAGES(CV_STAGE_INDEX)
#undef CV_STAGE_INDEX
    CV_STAGE_COUNT
};

#define CV_HIST_SUB_BITS 3
#define CV_HIST_SUB      (1u << CV_HIST_SUB_BITS)
#define CV_HIST_MAX_BITS 40
/* Values < CV_HIST_SUB: one bucket each; then CV_HIST_SUB buckets for each power of two
 * from 2^CV_HIST_SUB_BITS to 2^(CV_HIST_MAX_BITS - 1). */
#define CV_HIST_BUCKETS  ((CV_HIST_MAX_BITS - CV_HIST_SUB_BITS + 1) * CV_HIST_SUB)

/* One thread's accumulators for one event type; owner-written (relaxed), read by anyone. */
typedef struct {
    uint64_t events;                     /* callbacks that recorded a record */
    uint64_t ticks;                      /* their whole durations */
    uint64_t max;                        /* the longest */
    uint64_t gc;                         /* those that overlapped a GC pause */
    uint64_t gc_max;                     /* the longest of them */
    uint64_t stage_count[CV_STAGE_COUNT];
    uint64_t stage_ticks[CV_STAGE_COUNT];
    uint64_t stage_max[CV_STAGE_COUNT];
    uint64_t slept;                      /* callbacks with a voluntary context switch */
    uint64_t preempted;                  /* callbacks with an involuntary one */
    uint64_t steady_max;                 /* the longest not preempted */
    uint32_t hist[CV_HIST_BUCKETS];      /* whole durations; saturate at UINT32_MAX */
    uint32_t steady_hist[CV_HIST_BUCKETS];   /* those not preempted */
} cv_timing_event;

/* One of the slowest callbacks: when it began, how long it took, its event type, its longest
 * stage and whether it met a GC pause. `seq` is a seqlock word (odd while the owner rewrites
 * the entry), so that a reader skips an entry it caught half written. */
typedef struct {
    uint64_t seq;
    uint64_t start;          /* ticks */
    uint64_t ticks;          /* whole duration */
    uint64_t stage_ticks;    /* of its longest stage */
    uint32_t tev;
    uint16_t stage;
    uint16_t gc;
    uint16_t slept;          /* its voluntary context switches (at most 65535) */
    uint16_t preempted;      /* its involuntary ones */
} cv_timing_slow;

/* The slowest callbacks kept per thread, and over all threads in a snapshot. */
#define CV_TIMING_SLOWEST 8
#define CV_TIMING_SLOWEST_REPORTED 32

typedef struct {
    cv_timing_event ev[CV_TEV_COUNT];
    cv_timing_slow  slowest[CV_TIMING_SLOWEST];   /* owner-written; unordered, ticks 0 = unused */
    uint32_t        window;    /* the timing window its accumulators belong to (release-stored by the owner) */
} cv_timing;

/* A sum over threads (or the accumulators of evicted threads). */
typedef struct {
    uint64_t events, ticks, max, gc, gc_max;
    uint64_t stage_count[CV_STAGE_COUNT];
    uint64_t stage_ticks[CV_STAGE_COUNT];
    uint64_t stage_max[CV_STAGE_COUNT];
    uint64_t slept, preempted, steady_max;
    uint64_t hist[CV_HIST_BUCKETS];
    uint64_t steady_hist[CV_HIST_BUCKETS];
} cv_timing_total;

/* One callback's stamps, on its stack. */
typedef struct {
    uint64_t start, last;
    uint64_t gc_started, gc_finished;    /* the agent's GC counters at the start */
    uint32_t done;                       /* bit per stage run */
    uint64_t stage[CV_STAGE_COUNT];
    uint64_t slept, preempted;           /* context switches: counts at the start, then deltas */
} cv_lap;

static inline void timing_begin(cv_lap *l, uint64_t now) {
    l->start = l->last = now;
    l->done = 0;
    l->slept = l->preempted = 0;
    for (int i = 0; i < CV_STAGE_COUNT; i++) l->stage[i] = 0;
}

/* The time since the previous stamp goes to `stage` (twice the same stage adds up). A clock
 * that went back (another core's counter) counts 0. */
static inline void timing_lap(cv_lap *l, int stage, uint64_t now) {
    if (now > l->last) {
        l->stage[stage] += now - l->last;
        l->last = now;
    }
    l->done |= 1u << stage;
}

/* The calling thread's voluntary and involuntary context switches so far (0, 0 where the
 * system cannot say). A system call: timed callbacks only. */
void timing_switches(uint64_t *voluntary, uint64_t *involuntary);

/*
 * The timing window: callbacks are timed from the agent's start, or from the last
 * timing_restart (MBean restartTiming: a benchmark's measured phase after its warm-up). A
 * restart stores the tick it starts at and then, with a release store, a new window number.
 * A callback that began before the window's start is not counted. A thread's accumulators
 * carry the window they belong to: the owner, at its first commit in a new window, empties
 * them and then release-stores the window's number; a reader (threads.c) acquire-loads that
 * number and skips accumulators of an older window, so what it sums began in the current one.
 */
void timing_restart(uint64_t now_ticks);
uint32_t timing_window(void);
/* The start of the current window in ticks (0: the agent's start). */
uint64_t timing_window_start(void);

/* Owner thread: adds one recorded callback of type `tev`, whose last stamp was its end, to its
 * thread's accumulators, and to the thread's slowest if it is slower than one of them; nothing
 * if it began before the current window (above). */
void timing_commit(cv_timing *t, int tev, const cv_lap *l, int met_gc);

/* Any thread: adds a thread's accumulators (relaxed loads), or another total, into `sum`. */
void timing_add(cv_timing_total *sum, const cv_timing_event *e);
void timing_add_total(cv_timing_total *sum, const cv_timing_total *t);

/* Any thread: adds the consistent entries of a thread's slowest (copies) to `top`, which holds
 * *n entries sorted slowest first and keeps at most `cap`. */
void timing_slowest_merge(cv_timing_slow *top, size_t *n, size_t cap, const cv_timing_slow *entries, size_t count);

/* The bucket of a duration, and a bucket's bounds in ticks: low inclusive, high inclusive
 * (the last bucket's high is UINT64_MAX). */
uint32_t timing_bucket(uint64_t ticks);
uint64_t timing_bucket_low(uint32_t bucket);
uint64_t timing_bucket_high(uint32_t bucket);

/* The q-quantile (0 < q <= 1) of the durations: the high bound of the bucket that holds the
 * ceil(q * events)-th shortest, but never above the exact maximum; 0 without events. */
uint64_t timing_quantile(const cv_timing_total *t, double q);
/* The same over the callbacks not preempted (steady_hist, steady_max). */
uint64_t timing_steady_quantile(const cv_timing_total *t, double q);

/* Writes the INFO value of one event type (grammar in schema/snapshot-format.md, INFO keys)
 * into out, NUL-terminated; ns_per_tick converts. Returns the length it needed (like
 * snprintf: output is cut if that is >= cap). */
size_t timing_format(const cv_timing_total *t, double ns_per_tick, char *out, size_t cap);

/* Writes the INFO value timing.slowest: the entries of `top` (slowest first) as
 * event:start_ns:ns:stage:stage_ns:gc:slept:preempted, comma-separated, start in the monotonic clock (ns), from
 * ticks with mono0 + (start - ticks0) * ns_per_tick. Returns the length needed, as timing_format. */
size_t timing_format_slowest(const cv_timing_slow *top, size_t n, uint64_t ticks0, uint64_t mono0,
                             double ns_per_tick, char *out, size_t cap);

/* The lower-case name of an event type or stage ("monitor_enter", "walk") into out; -1 if out
 * of range or cut (out then holds what fit, or nothing). */
int timing_event_name(int tev, char *out, size_t cap);
int timing_stage_name(int stage, char *out, size_t cap);

#endif
