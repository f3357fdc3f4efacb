/*
 * Eviction order of per-thread states: which state the memory cap frees next.
 *
 * Pure C over intrusive nodes, no JVM calls (the "is its Thread object gone" test is the
 * caller's callback); unit-tested in test/test_victims.c. Not thread-safe: every call is
 * made under the caller's lock (threads.c: registry_lock).
 *
 * PRIORITY (exactly this; LifecycleIT checks it with virtual threads):
 *   1. unpinned states whose Thread object is gone (the weak reference is cleared): their
 *      thread ended without a ThreadEnd (virtual threads get none), so their end time is
 *      unknown; among them, the one found first, and found in creation order;
 *   2. then unpinned ended states, oldest end time first.
 * Live states (not ended, Thread object reachable) are never chosen; pinned states are
 * chosen only by victims_pick_pinned, which the caller asks when victims_pick finds none.
 *
 * QUEUES: a node is on at most one of three doubly linked queues, `queue` says which:
 *   WATCH  not ended, and may end without a ThreadEnd, so its Thread object may vanish;
 *          in the order added (creation order). Not tested for gone until a victim is
 *          needed and no unpinned gone state is known.
 *   GONE   found gone (a cleared weak reference never comes back); in the order found.
 *   ENDED  ended; ascending end_ns (inserted from the tail: O(1) when end times arrive in
 *          order, as they do under the caller's lock with a monotonic clock).
 *   NONE   on no queue: a live state whose thread is sure to get a ThreadEnd before its
 *          Thread object can be collected (never a victim until it has ended), or a node
 *          not yet added / already removed.
 *
 * victims_pick: the first unpinned node of GONE; else one pass over WATCH that tests every
 * unpinned node with `gone` and moves each gone one to GONE (pinned ones stay and are tested
 * again later), then the first unpinned node of GONE; else the first unpinned node of ENDED;
 * else none. Cost: the pinned nodes skipped, plus the WATCH pass, which runs only when no
 * unpinned gone node is known: one `gone` test per unpinned WATCH node, a pass that finds k
 * gone nodes paying for the next k picks. The pick does not remove the node: the caller
 * calls victims_remove when it frees or reuses it.
 *
 * victims_pick_pinned: the same order over every node, pinned or not: the first node of GONE;
 * else a pass over WATCH that tests every node and moves the gone ones to GONE, then the first
 * of GONE; else the first of ENDED. For the caller that cannot wait for a pin to go (a thread
 * starting while a snapshot pins every state) and retires the node instead of freeing it.
 */
#ifndef CONVOY_VICTIMS_H
#define CONVOY_VICTIMS_H

#include <stdint.h>

enum { CV_VQ_NONE = 0, CV_VQ_WATCH, CV_VQ_GONE, CV_VQ_ENDED, CV_VQ_COUNT };

typedef struct cv_victim {
    struct cv_victim *prev, *next;   /* on the queue `queue` */
    uint64_t end_ns;                 /* set by victims_ended */
    int      pins;                   /* > 0: never chosen (the caller counts its pins here) */
    int      queue;                  /* CV_VQ_*; CV_VQ_NONE (0) for a zeroed node */
} cv_victim;

typedef struct {
    cv_victim *head, *tail;
} cv_vqueue;

typedef struct {
    cv_vqueue q[CV_VQ_COUNT];        /* q[CV_VQ_NONE] is unused */
} cv_victims;

/* Returns nonzero if the node's Thread object is gone. */
typedef int (*cv_gone_fn)(cv_victim *n, void *ctx);

/* A new live state whose thread may end without a ThreadEnd: appended to WATCH.
 * `n` must be on no queue. */
void victims_watch(cv_victims *v, cv_victim *n);
/* The state's thread ended at end_ns: moved from whatever queue it is on to ENDED, in
 * end_ns order (after every node with end_ns <= this one). */
void victims_ended(cv_victims *v, cv_victim *n, uint64_t end_ns);
/* Takes the node off its queue, if any (queue becomes CV_VQ_NONE). */
void victims_remove(cv_victims *v, cv_victim *n);
/* The next victim by the priority above, or NULL; still on its queue. */
cv_victim *victims_pick(cv_victims *v, cv_gone_fn gone, void *ctx);
/* The next victim by the same priority, pinned nodes included, or NULL; still on its queue. */
cv_victim *victims_pick_pinned(cv_victims *v, cv_gone_fn gone, void *ctx);

#endif
