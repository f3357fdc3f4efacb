/*
 * A platform thread's cache of the stacks it captured last: each entry is an interned stack id
 * and the chain of frames (frames.h) the thread's stack was when it was captured. A capture
 * whose chain still holds, check for check, is that stack again: the thread takes the id
 * without walking or interning (agent.c, capture_stack_lap; docs/architecture.md, "Stack
 * capture").
 *
 * CONCURRENCY CONTRACT
 *  - A cache belongs to one thread (its cv_thread's owner): only that thread reads or writes
 *    its entries; the checks are about that thread's own stack and JavaThread.
 *  - `hits` is written by the owner (relaxed store) and read by anyone (relaxed load) for INFO.
 *  - Stack ids are never reused (stacks.h: entries are never removed), so an entry's id stays
 *    valid for the recorder's life.
 * Header-only: the event path inlines the look-up; test/test_stackcache.c checks the rules.
 */
#ifndef CONVOY_STACKCACHE_H
#define CONVOY_STACKCACHE_H

#include "arch.h"
#include "frames.h"

#include <stdint.h>

#define CV_STACK_CACHE 4
#define CV_STACK_CACHE_CHECKS 160

typedef struct {
    uint32_t id;      /* interned stack id; 0: empty */
    uint16_t n;       /* checks */
    uint16_t skip;    /* frames skipped at the top when it was captured */
    frames_check checks[CV_STACK_CACHE_CHECKS];
} cv_stack_entry;

typedef struct {
    uint64_t hits;
    uint32_t next;    /* the entry a miss replaces next */
    cv_stack_entry e[CV_STACK_CACHE];
} cv_stack_cache;

typedef int (*cv_chain_read)(void *ctx, frames_check *out, int cap);

/* Empties the cache (a new or reused state): only the words a look-up reads first. */
static inline void stackcache_clear(cv_stack_cache *c) {
    c->hits = 0;
    c->next = 0;
    for (int i = 0; i < CV_STACK_CACHE; i++) c->e[i].id = 0;
}

/* The id of the stack whose chain holds now, captured with the same skip, or 0. */
static inline uint32_t stackcache_find(cv_stack_cache *c, uint32_t skip) {
    for (int i = 0; i < CV_STACK_CACHE; i++) {
        cv_stack_entry *e = &c->e[i];
        if (e->id != 0 && e->skip == skip && frames_hold(e->checks, e->n)) {
            store_relaxed(&c->hits, c->hits + 1);
            return e->id;
        }
    }
    return 0;
}

/* After a capture interned as `id`: keeps it with the chain `read` gives, in the next entry in
 * turn. Returns the chain's length or its (negative) refusal; a refused chain leaves the
 * entry empty. */
static inline int stackcache_put(cv_stack_cache *c, uint32_t skip, uint32_t id, cv_chain_read read, void *ctx) {
    cv_stack_entry *e = &c->e[c->next];
    c->next = (c->next + 1) % CV_STACK_CACHE;
    e->id = 0;
    if (id == 0) return 0;
    int n = read(ctx, e->checks, CV_STACK_CACHE_CHECKS);
    if (n <= 0) return n;
    e->n = (uint16_t)n;
    e->skip = (uint16_t)skip;
    e->id = id;
    return n;
}

#endif
