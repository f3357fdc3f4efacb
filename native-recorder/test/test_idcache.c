#include "check.h"
#include "idcache.h"

#include <string.h>

/* What objects_current answers in these tests: ids below `stale_from` still name their object. */
static uint64_t stale_from = UINT64_MAX;
static int current(uint64_t id) {
    return id < stale_from;
}

typedef struct {
    uint64_t started, finished;
    cv_id_cache cache[CV_ID_CACHE];
    uintptr_t slot;   /* a JNI handle's slot: the object's address */
} fixture;

static void init(fixture *f, uintptr_t address) {
    memset(f, 0, sizeof(*f));
    f->slot = address;
    stale_from = UINT64_MAX;
}

/* The look-up agent.c makes: the address, the cached id or the one "JVMTI" gives, kept. */
static uint64_t lookup(fixture *f, uint32_t epoch, uint64_t jvmti_id, int *hit) {
    uint64_t gc = 0;
    uintptr_t ref = idcache_ref(&f->started, &f->finished, &f->slot, &gc);
    uint64_t id = idcache_find(f->cache, ref, gc, epoch, current);
    *hit = id != 0;
    if (id) return id;
    idcache_put(f->cache, ref, gc, epoch, jvmti_id);
    return jvmti_id;
}

TEST(idcache_the_same_object_between_two_pauses_hits) {
    fixture f;
    init(&f, 0x7f0000001000u);
    int hit;
    CHECK_EQ_U64(lookup(&f, 1, 42, &hit), 42);
    CHECK(!hit);
    CHECK_EQ_U64(lookup(&f, 1, 99, &hit), 42);
    CHECK(hit);
}

TEST(idcache_an_address_reused_after_a_pause_is_another_object) {
    fixture f;
    init(&f, 0x7f0000001000u);
    int hit;
    lookup(&f, 1, 42, &hit);
    f.started++;
    f.finished++;   /* a pause: the address may now hold another object */
    CHECK_EQ_U64(lookup(&f, 1, 77, &hit), 77);
    CHECK(!hit);
    CHECK_EQ_U64(lookup(&f, 1, 99, &hit), 77);
    CHECK(hit);
}

TEST(idcache_nothing_is_read_or_kept_while_a_pause_is_under_way) {
    fixture f;
    init(&f, 0x7f0000001000u);
    uint64_t gc = 0;
    f.started = 1;  /* begun, not finished */
    CHECK_EQ_U64(idcache_ref(&f.started, &f.finished, &f.slot, &gc), 0);
    int hit;
    CHECK_EQ_U64(lookup(&f, 1, 42, &hit), 42);
    CHECK(!hit);
    f.finished = 1;
    CHECK_EQ_U64(lookup(&f, 1, 43, &hit), 43);
    CHECK(!hit);    /* nothing was kept during the pause */
}

TEST(idcache_another_epoch_or_a_stale_id_misses) {
    fixture f;
    init(&f, 0x7f0000001000u);
    int hit;
    lookup(&f, 1, 42, &hit);
    CHECK_EQ_U64(lookup(&f, 2, 43, &hit), 43);   /* recording switched on again, or reset */
    CHECK(!hit);
    stale_from = 43;                              /* the slot of id 43 was reused or reset */
    CHECK_EQ_U64(lookup(&f, 2, 44, &hit), 44);
    CHECK(!hit);
}

TEST(idcache_objects_in_different_entries_stay_apart) {
    fixture f;
    init(&f, 0x7f0000001000u);
    int hit;
    lookup(&f, 1, 42, &hit);
    uintptr_t other = 0x7f0000001008u;  /* the next entry */
    f.slot = other;
    CHECK_EQ_U64(lookup(&f, 1, 43, &hit), 43);
    CHECK(!hit);
    f.slot = 0x7f0000001000u;
    CHECK_EQ_U64(lookup(&f, 1, 99, &hit), 42);
    CHECK(hit);
    f.slot = 0x7f0000001000u + 8 * CV_ID_CACHE;  /* the same entry as the first: replaces it */
    CHECK_EQ_U64(lookup(&f, 1, 44, &hit), 44);
    CHECK(!hit);
    f.slot = 0x7f0000001000u;
    CHECK_EQ_U64(lookup(&f, 1, 45, &hit), 45);
    CHECK(!hit);
}
