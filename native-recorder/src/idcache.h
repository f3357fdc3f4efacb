/*
 * A platform thread's cache of the object ids of the last few objects it blocked, waited or parked on,
 * by the object's address (agent.c, "Object ids", says when this is sound: a collector that
 * moves and frees objects only in the pauses JVMTI reports).
 *
 * CONCURRENCY CONTRACT
 *  - A cache belongs to one thread (cv_thread's owner): only that thread reads or writes its
 *    entries; nothing in it is shared.
 *  - `started` and `finished` count the GC pauses begun and finished; the VM thread writes them
 *    (release, and a full fence after counting a start, before anything moves); readers load
 *    them with acquire. A pause is under way while they differ.
 *  - idcache_ref reads the object's address from its JNI handle only while no pause is under
 *    way, and answers 0 if a pause began meanwhile; an entry is used only with the pause count
 *    it was made under (between two pauses an address names one object), in its recording
 *    epoch, and while `current` says its id still names its object. An id kept after a pause
 *    began is never used: it carries the count of before.
 * Header-only: the event path inlines it; test/test_idcache.c checks the rules.
 */
#ifndef CONVOY_IDCACHE_H
#define CONVOY_IDCACHE_H

#include "arch.h"

#include <stdint.h>

#define CV_ID_CACHE 4

typedef struct {
    uintptr_t ref;      /* the object's address */
    uint64_t  id;
    uint64_t  gc;       /* pauses begun when it was made */
    uint32_t  epoch;    /* recording epoch */
} cv_id_cache;

/* The address in JNI handle `handle` and, in *gc, the pause count it is valid for; 0 while a
 * pause is under way or when one began while it was read. */
static inline uintptr_t idcache_ref(const uint64_t *started, const uint64_t *finished, const void *handle,
                                    uint64_t *gc) {
    uint64_t g = load_acquire(started);
    if (g != load_acquire(finished)) return 0;
    uintptr_t ref = load_relaxed((const uintptr_t *)((uintptr_t)handle & ~(uintptr_t)3));
    fence_acquire();
    if (load_relaxed(started) != g) return 0;
    *gc = g;
    return ref;
}

static inline cv_id_cache *idcache_entry(cv_id_cache *cache, uintptr_t ref) {
    return &cache[(ref >> 3) & (CV_ID_CACHE - 1)];
}

/* The cached id of the object at `ref`, or 0. */
static inline uint64_t idcache_find(cv_id_cache *cache, uintptr_t ref, uint64_t gc, uint32_t epoch,
                                    int (*current)(uint64_t)) {
    cv_id_cache *e = idcache_entry(cache, ref);
    return ref != 0 && e->ref == ref && e->gc == gc && e->epoch == epoch && current(e->id) ? e->id : 0;
}

/* Keeps `id` for the object at `ref`, read under pause count `gc`. */
static inline void idcache_put(cv_id_cache *cache, uintptr_t ref, uint64_t gc, uint32_t epoch, uint64_t id) {
    if (ref == 0 || id == 0) return;
    cv_id_cache *e = idcache_entry(cache, ref);
    e->ref = ref;
    e->id = id;
    e->gc = gc;
    e->epoch = epoch;
}

#endif
