/*
 * The object-id cache: one table, shared by every thread, of the ids of the objects (and
 * classes) the recorder looked up since the last GC pause, by the object's address. A hit
 * costs no JVMTI or JNI call and no lock (objects_id's look-up takes both). agent.c ("Object
 * ids") says when this is sound: a collector that moves and frees objects only in the pauses
 * JVMTI reports, so that between two pauses an address names one object.
 *
 * CONCURRENCY CONTRACT
 *  - Any thread in a callback or native looks up and inserts; nobody waits for anybody: a
 *    look-up that meets a half-written entry, a table being emptied or a full probe run
 *    answers "miss", and an insert in the same cases keeps nothing.
 *  - `started` and `finished` count the GC pauses begun and finished; the VM thread writes
 *    them (release, and a full fence after counting a start, before anything moves); readers
 *    load them with acquire. A pause is under way while they differ. idcache_ref reads the
 *    object's address from its JNI handle only while no pause is under way, and answers 0 if
 *    a pause began meanwhile.
 *  - The table holds the entries of one stamp (recording epoch << 32 | pauses begun). The
 *    first thread to come with a later stamp empties it: it CASes `stamp` to CLEARING, stores
 *    0 in every entry, release-stores `round` + 1 and release-stores the new stamp. Threads
 *    with an older stamp, or that find CLEARING, neither read nor write it: a key is made of
 *    the `round` read between two reads of `stamp` that both equal the thread's stamp.
 *  - Entries are written once per round: CAS of `key` from 0 to BUSY, relaxed store of `id`,
 *    release store of the key. A key holds the address and the round's low bits, so an entry
 *    a late writer (one that read `stamp` before the table was emptied) finishes after the
 *    emptying never matches a key of a later round.
 *  - A reader acquire-loads the key, loads the id, fences (acquire) and loads the key again:
 *    an entry emptied or rewritten meanwhile has another key (a rewrite is of another round),
 *    so an unchanged key means the id read is its own. The id must also still name its
 *    object (`current`: its slot neither reused nor reset since).
 * Header-only: the event path inlines it; test/test_idcache.c checks the rules.
 */
#ifndef CONVOY_IDCACHE_H
#define CONVOY_IDCACHE_H

#include "arch.h"

#include <stdint.h>

#define CV_IDCACHE_BITS   12
#define CV_IDCACHE_SIZE   (1u << CV_IDCACHE_BITS)   /* 4096 entries, 64 KB */
#define CV_IDCACHE_PROBES 8
#define CV_IDCACHE_CLEARING UINT64_MAX
#define CV_IDCACHE_BUSY   (1ull << 63)
#define CV_IDCACHE_ADDRESS_BITS 47                   /* user-space addresses on x86_64 */
/* Test hook: test/test_idcache.c empties the table between idcache_key's loads. */
#ifndef CV_IDCACHE_BETWEEN_LOADS
#define CV_IDCACHE_BETWEEN_LOADS(c) ((void)(c))
#endif

typedef struct {
    uint64_t key;     /* atomic: (address >> 3) | round << 44; 0 empty; BUSY being written */
    uint64_t id;      /* atomic (relaxed) */
} cv_idcache_entry;

typedef struct {
    uint64_t stamp;   /* atomic: the stamp of the entries, or CLEARING */
    uint64_t round;   /* atomic: incremented by each emptying; read after `stamp` */
    cv_idcache_entry entry[CV_IDCACHE_SIZE];
} cv_idcache;

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

static inline uint64_t idcache_stamp(uint32_t epoch, uint64_t gc) {
    return (uint64_t)epoch << 32 | (gc & 0xFFFFFFFFu);
}

/* Empties the table for `stamp` unless another thread is at it or is there already. */
static inline void idcache_clear(cv_idcache *c, uint64_t seen, uint64_t stamp) {
    if (seen == CV_IDCACHE_CLEARING || seen >= stamp) return;
    if (!cas_acq_rel(&c->stamp, &seen, CV_IDCACHE_CLEARING)) return;
    for (uint32_t i = 0; i < CV_IDCACHE_SIZE; i++) {
        store_relaxed(&c->entry[i].key, 0);
        store_relaxed(&c->entry[i].id, 0);
    }
    store_release(&c->round, load_relaxed(&c->round) + 1);
    store_release(&c->stamp, stamp);
}

/* The key of `ref` in this round, or 0 when the table is not at `stamp` (emptied on the way
 * if it is behind) or the address does not fit a key. */
static inline uint64_t idcache_key(cv_idcache *c, uintptr_t ref, uint64_t stamp) {
    if (ref == 0 || (ref & 7) != 0 || (ref >> CV_IDCACHE_ADDRESS_BITS) != 0) return 0;
    uint64_t seen = load_acquire(&c->stamp);
    if (seen != stamp) {
        idcache_clear(c, seen, stamp);
        return 0;   /* a miss: the caller looks up and inserts afresh */
    }
    CV_IDCACHE_BETWEEN_LOADS(c);
    uint64_t round = load_acquire(&c->round) & ((1u << 19) - 1);
    /* Emptied since `stamp` was read? Then `round` may be the later table's, and a key of it
     * would let this thread, behind, read and write that table. Seeing the later round
     * (acquire, against idcache_clear's release) means seeing the stamp it set, or CLEARING. */
    if (load_acquire(&c->stamp) != stamp) return 0;
    return ((uint64_t)ref >> 3) | round << 44;
}

static inline uint32_t idcache_home(uintptr_t ref) {
    uint64_t h = (uint64_t)ref * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> (64 - CV_IDCACHE_BITS));
}

/* The cached id of the object at `ref` under `stamp`, or 0. */
static inline uint64_t idcache_find(cv_idcache *c, uintptr_t ref, uint64_t stamp, int (*current)(uint64_t)) {
    uint64_t key = idcache_key(c, ref, stamp);
    if (key == 0) return 0;
    uint32_t home = idcache_home(ref);
    for (uint32_t i = 0; i < CV_IDCACHE_PROBES; i++) {
        cv_idcache_entry *e = &c->entry[(home + i) & (CV_IDCACHE_SIZE - 1)];
        uint64_t k = load_acquire(&e->key);
        if (k == 0) return 0;
        if (k != key) continue;
        uint64_t id = load_relaxed(&e->id);
        fence_acquire();
        if (load_relaxed(&e->key) != key || id == 0 || !current(id)) return 0;
        return id;
    }
    return 0;
}

/* Keeps `id` for the object at `ref`, whose address was read under `stamp`. */
static inline void idcache_put(cv_idcache *c, uintptr_t ref, uint64_t stamp, uint64_t id) {
    if (id == 0) return;
    uint64_t key = idcache_key(c, ref, stamp);
    if (key == 0) return;
    uint32_t home = idcache_home(ref);
    for (uint32_t i = 0; i < CV_IDCACHE_PROBES; i++) {
        cv_idcache_entry *e = &c->entry[(home + i) & (CV_IDCACHE_SIZE - 1)];
        uint64_t k = load_relaxed(&e->key);
        if (k == 0) {
            if (cas_acq_rel(&e->key, &k, CV_IDCACHE_BUSY)) {
                store_relaxed(&e->id, id);
                store_release(&e->key, key);
                return;
            }
            /* k now holds the winner's key (or BUSY) */
        }
        if (k == key) return;   /* another thread kept it first */
    }
}

#endif
