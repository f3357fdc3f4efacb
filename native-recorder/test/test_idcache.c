#include "check.h"

#include <stdint.h>

/* Armed by a test: the next idcache_key empties the table for this stamp between its loads. */
static uint64_t empty_between_loads;
static void between_loads(void *c);
#define CV_IDCACHE_BETWEEN_LOADS(c) between_loads(c)
#include "idcache.h"

static void between_loads(void *c) {
    uint64_t stamp = empty_between_loads;
    if (stamp == 0) return;
    empty_between_loads = 0;
    cv_idcache *t = c;
    idcache_clear(t, load_relaxed(&t->stamp), stamp);
}

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* What objects_current answers in these tests: ids below `stale_from` still name their object. */
static uint64_t stale_from = UINT64_MAX;
static int current(uint64_t id) {
    return id < stale_from;
}

typedef struct {
    uint64_t started, finished;
    uintptr_t slot;   /* a JNI handle's slot: the object's address */
} fixture;

static cv_idcache *cache;

static void init(fixture *f, uintptr_t address) {
    memset(f, 0, sizeof(*f));
    f->slot = address;
    stale_from = UINT64_MAX;
    if (!cache) cache = malloc(sizeof(cv_idcache));
    memset(cache, 0, sizeof(*cache));
}

/* The look-up agent.c makes: the address, the cached id or the one "JVMTI" gives, kept. */
static uint64_t lookup(fixture *f, uint32_t epoch, uint64_t jvmti_id, int *hit) {
    uint64_t gc = 0;
    uintptr_t ref = idcache_ref(&f->started, &f->finished, &f->slot, &gc);
    uint64_t stamp = idcache_stamp(epoch, gc);
    uint64_t id = idcache_find(cache, ref, stamp, current);
    *hit = id != 0;
    if (id) return id;
    idcache_put(cache, ref, stamp, jvmti_id);
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

TEST(idcache_many_objects_stay_apart_and_a_later_stamp_empties_the_table) {
    fixture f;
    init(&f, 0x7f0000001000u);
    int hit, hits = 0;
    for (uint64_t i = 0; i < 1000; i++) {
        f.slot = 0x7f0000001000u + 16 * i;
        CHECK_EQ_U64(lookup(&f, 1, 1000 + i, &hit), 1000 + i);
    }
    for (uint64_t i = 0; i < 1000; i++) {
        f.slot = 0x7f0000001000u + 16 * i;
        uint64_t id = lookup(&f, 1, 5000 + i, &hit);
        CHECK(id == 1000 + i || (!hit && id == 5000 + i));   /* a full probe run keeps nothing */
        hits += hit;
    }
    CHECK(hits > 900);
    f.started = f.finished = 1;
    f.slot = 0x7f0000001000u;
    CHECK_EQ_U64(lookup(&f, 1, 7, &hit), 7);
    CHECK(!hit);
    uint64_t used = 0;
    for (uint32_t i = 0; i < CV_IDCACHE_SIZE; i++) used += cache->entry[i].key != 0;
    CHECK_EQ_U64(used, 1);   /* emptied, then the look-up that found it behind kept its id */
    CHECK_EQ_U64(cache->stamp, idcache_stamp(1, 1));
    CHECK_EQ_U64(lookup(&f, 1, 8, &hit), 7);
    CHECK(hit);
}

TEST(idcache_an_entry_finished_after_the_table_was_emptied_never_matches) {
    fixture f;
    init(&f, 0x7f0000001000u);
    int hit;
    lookup(&f, 1, 42, &hit);                 /* the table is at stamp (1, 0) */
    uint64_t old_stamp = idcache_stamp(1, 0);
    uint64_t late_key = idcache_key(cache, f.slot, old_stamp);   /* a writer reads its key... */
    CHECK(late_key != 0);
    idcache_clear(cache, load_relaxed(&cache->stamp), idcache_stamp(1, 1));   /* ...a pause... */
    /* ...and the writer finishes into the emptied table, as idcache_put would */
    cv_idcache_entry *e = &cache->entry[idcache_home(f.slot)];
    e->id = 42;
    e->key = late_key;
    f.started = f.finished = 1;
    CHECK_EQ_U64(lookup(&f, 1, 77, &hit), 77);   /* the same address, another object */
    CHECK(!hit);
}

TEST(idcache_a_thread_behind_neither_reads_nor_writes_a_later_table) {
    fixture f;
    init(&f, 0x7f0000001000u);
    int hit;
    f.started = f.finished = 3;
    lookup(&f, 1, 42, &hit);
    uint64_t behind = idcache_stamp(1, 2);
    CHECK_EQ_U64(idcache_find(cache, f.slot, behind, current), 0);
    idcache_put(cache, f.slot, behind, 55);
    CHECK_EQ_U64(cache->stamp, idcache_stamp(1, 3));
    CHECK_EQ_U64(lookup(&f, 1, 99, &hit), 42);
    CHECK(hit);
}

TEST(idcache_a_table_emptied_between_a_threads_reads_is_neither_read_nor_written) {
    fixture f;
    init(&f, 0x7f0000001000u);
    int hit;
    lookup(&f, 1, 42, &hit);                      /* the table is at stamp (1, 0) */
    uint64_t behind = idcache_stamp(1, 0);
    uint64_t later = idcache_stamp(1, 1);
    /* A thread of the later pause keeps another object's id at the same address... */
    empty_between_loads = later;
    CHECK_EQ_U64(idcache_find(cache, f.slot, behind, current), 0);   /* emptied under a reader */
    CHECK_EQ_U64(cache->stamp, later);
    idcache_put(cache, f.slot, later, 77);
    /* ...a thread still behind, emptied under again, must not find that id */
    CHECK_EQ_U64(idcache_find(cache, f.slot, behind, current), 0);
    /* and what a thread keeps while the table moves on under it is not found later */
    uint64_t next = idcache_stamp(1, 2);
    empty_between_loads = next;
    idcache_put(cache, f.slot, later, 42);
    CHECK_EQ_U64(cache->stamp, next);
    CHECK_EQ_U64(idcache_find(cache, f.slot, next, current), 0);
    idcache_put(cache, f.slot, next, 99);
    CHECK_EQ_U64(idcache_find(cache, f.slot, next, current), 99);
}

/* Writers keep ids for shared addresses while readers look them up and the stamp moves on:
 * a reader gets 0 or the id of that address under its stamp, never another. */
#define RACE_THREADS 4
#define RACE_OBJECTS 512
#define RACE_ROUNDS 4000

static uint64_t race_stamp_gc;   /* atomic */
static uint64_t race_wrong;      /* atomic */

static uint64_t race_id(uintptr_t ref, uint64_t gc) {
    return (gc << 20) | (ref >> 4);   /* the "JVMTI" id of the object at ref under gc */
}

static int always(uint64_t id) {
    (void)id;
    return 1;
}

static void *race_thread(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg;
    for (int r = 0; r < RACE_ROUNDS; r++) {
        uint64_t gc = load_acquire(&race_stamp_gc);
        uint64_t stamp = idcache_stamp(1, gc);
        for (int i = 0; i < 8; i++) {
            uintptr_t ref = 0x7f0000100000u + 16 * (uintptr_t)(rand_r(&seed) % RACE_OBJECTS);
            uint64_t id = idcache_find(cache, ref, stamp, always);
            if (id != 0 && id != race_id(ref, gc)) fetch_add_relaxed(&race_wrong, 1);
            if (id == 0) idcache_put(cache, ref, stamp, race_id(ref, gc));
        }
        if (seed % RACE_THREADS == 0 && r % 50 == 0) fetch_add_relaxed(&race_stamp_gc, 1);
    }
    return NULL;
}

TEST(idcache_concurrent_writers_readers_and_emptyings_never_give_another_id) {
    fixture f;
    init(&f, 0);
    race_stamp_gc = 0;
    race_wrong = 0;
    pthread_t t[RACE_THREADS];
    for (uintptr_t i = 0; i < RACE_THREADS; i++) CHECK(pthread_create(&t[i], NULL, race_thread, (void *)(i + 1)) == 0);
    for (int i = 0; i < RACE_THREADS; i++) pthread_join(t[i], NULL);
    CHECK_EQ_U64(race_wrong, 0);
}
