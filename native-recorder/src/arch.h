/*
 * Atomics and clocks, wrapped once so that every call site names its memory ordering.
 * All shared words in the recorder are accessed through these helpers; a plain access
 * to a word another thread may touch concurrently is a bug.
 */
#ifndef CONVOY_ARCH_H
#define CONVOY_ARCH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define load_relaxed(p)        __atomic_load_n((p), __ATOMIC_RELAXED)
#define load_acquire(p)        __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define store_relaxed(p, v)    __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define store_release(p, v)    __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define fetch_add_relaxed(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define fence_acquire()        __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define fence_release()        __atomic_thread_fence(__ATOMIC_RELEASE)

/* Strong CAS; on failure *expected receives the current value. */
#define cas_acq_rel(p, expected, desired) \
    __atomic_compare_exchange_n((p), (expected), (desired), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)

static inline uint64_t cv_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t cv_epoch_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The wall-clock time `ms` from now, as pthread_cond_timedwait takes its deadline. */
static inline struct timespec cv_deadline_after_ms(uint32_t ms) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    return until;
}

/* A cheap, monotonic tick count for bench.timing=on (timing.h): the time-stamp counter where there
 * is one (x86: invariant on the CPUs HotSpot runs on today, the kernel's own clock source on
 * this machine class), else the monotonic clock in ns. Never used for a record's timestamp. */
static inline uint64_t cv_ticks(void) {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return cv_now_ns();
#endif
}

/* Maps every page of [p, p + n), fresh memory not in use yet (NULL: nothing), by storing a 0
 * in each, so that the kernel takes its page faults now rather than inside a callback: there
 * a first touch costs microseconds idle and tens of them on a busy machine, where it may also
 * wait for the process's mmap lock, held by whatever thread of the JVM is mapping memory. The
 * recorder's tables and each platform thread's block are committed when allocated (their
 * size is bounded by the memory cap). */
static inline void cv_commit(void *p, size_t n) {
    volatile char *c = (volatile char *)p;
    if (!c || n == 0) return;
    for (size_t o = 0; o < n; o += 4096) c[o] = 0;
    c[n - 1] = 0;
}

/* One round of a spin-wait. */
static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

#define CV_ALWAYS_INLINE inline __attribute__((always_inline))

#define CV_LIKELY(x)   __builtin_expect(!!(x), 1)
#define CV_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Debug-build assertions of invariants (the ring's, the registry's): compiled in with -DCV_DEBUG,
 * as the unit tests are built, where a failed one prints its condition and place and aborts;
 * nothing of them is in libconvoy.so (the condition is not even evaluated). */
#ifdef CV_DEBUG
void cv_assert_failed(const char *cond, const char *file, int line) __attribute__((noreturn, cold));
#define CV_ASSERT(cond)                                                  \
    do {                                                                 \
        if (CV_UNLIKELY(!(cond))) cv_assert_failed(#cond, __FILE__, __LINE__); \
    } while (0)
#else
#define CV_ASSERT(cond) ((void)sizeof(!(cond)))
#endif

#endif
