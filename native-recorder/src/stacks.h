/*
 * Deduplicating stack trace table.
 *
 * A stack is a sequence of (method id, location) frames, top first. stacks_intern()
 * returns a small non-zero id, the same for the same frames, or 0 when the table is
 * full (counted in stacks_dropped()).
 *
 * Concurrency: lock-free and allocation-free after stacks_init(). Entries live in a
 * preallocated arena claimed with a relaxed fetch-add; an entry is written completely
 * before it is published by a release CAS of its offset into an open-addressing bucket
 * array. Readers (snapshots) acquire-load buckets and only ever see complete entries.
 * Entries are never removed or changed once published. Two threads interning the same
 * new stack concurrently both write an entry, one wins the bucket, the loser's arena
 * space is wasted (counted in stacks_wasted_words()).
 */
#ifndef CONVOY_STACKS_H
#define CONVOY_STACKS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t method;
    int64_t  location;
} cv_frame;

typedef struct cv_stacks cv_stacks;

#define CV_STACK_TRUNCATED 1u

/* Returns NULL if memory cannot be had. `bytes` bounds arena plus buckets. */
cv_stacks *stacks_create(size_t bytes);
void stacks_destroy(cv_stacks *t);

uint32_t stacks_intern(cv_stacks *t, const cv_frame *frames, uint32_t depth, uint32_t flags);

/* Visits every published stack. The frame pointer is valid during the call only. */
typedef void (*cv_stack_visitor)(void *ctx, uint32_t id, uint32_t flags,
                                 const cv_frame *frames, uint32_t depth);
void stacks_foreach(cv_stacks *t, cv_stack_visitor visit, void *ctx);

uint64_t stacks_dropped(const cv_stacks *t);
uint64_t stacks_wasted_words(const cv_stacks *t);
size_t stacks_memory(const cv_stacks *t);

#endif
