#include "addrmap.h"
#include "check.h"

#include <pthread.h>
#include <sched.h>

#define MIB (1ull << 20)

TEST(addrmap_finds_points_and_ranges) {
    cv_addrmap *m = addrmap_create(10);
    CHECK(m != NULL);
    uint64_t jt = 0x7f0012345678ull;
    CHECK(addrmap_add(m, jt, jt + 1, 7) == 0);
    /* A stack of 1 MiB not aligned to a granule: two granules. */
    uint64_t lo = 0x7e0000080000ull, hi = lo + MIB;
    CHECK(addrmap_add(m, lo, hi, 9) == 0);
    CHECK_EQ_U64(addrmap_find(m, jt), 7);
    CHECK_EQ_U64(addrmap_find(m, jt + 1), 0);
    CHECK_EQ_U64(addrmap_find(m, jt - 1), 0);
    CHECK_EQ_U64(addrmap_find(m, lo), 9);
    CHECK_EQ_U64(addrmap_find(m, hi - 8), 9);
    CHECK_EQ_U64(addrmap_find(m, lo + MIB / 2), 9);
    CHECK_EQ_U64(addrmap_find(m, hi), 0);
    CHECK_EQ_U64(addrmap_find(m, lo - 1), 0);
    CHECK(addrmap_has(m, 9));
    CHECK_EQ_U64(addrmap_ranges(m), 2);
    addrmap_remove(m, 9);
    CHECK_EQ_U64(addrmap_find(m, lo), 0);
    CHECK_EQ_U64(addrmap_find(m, jt), 7);
    CHECK(!addrmap_has(m, 9));
    addrmap_destroy(m);
}

TEST(addrmap_keeps_neighbours_in_one_granule_apart) {
    /* Small stacks: four threads in one granule. */
    cv_addrmap *m = addrmap_create(8);
    uint64_t base = 0x600000000000ull;
    for (int i = 0; i < 4; i++) {
        CHECK(addrmap_add(m, base + (uint64_t)i * 256 * 1024, base + (uint64_t)(i + 1) * 256 * 1024, 100 + i) == 0);
    }
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_U64(addrmap_find(m, base + (uint64_t)i * 256 * 1024 + 4096), 100 + i);
    }
    addrmap_remove(m, 101);
    CHECK_EQ_U64(addrmap_find(m, base + 256 * 1024 + 4096), 0);
    CHECK_EQ_U64(addrmap_find(m, base + 2 * 256 * 1024 + 4096), 102);
    addrmap_destroy(m);
}

TEST(addrmap_refuses_bad_and_oversized_ranges_and_fills_up) {
    cv_addrmap *m = addrmap_create(6);   /* 64 slots, 16 ranges, 48 usable slots */
    CHECK(addrmap_add(m, 10, 10, 1) == -1);
    CHECK(addrmap_add(m, 10, 5, 1) == -1);
    CHECK(addrmap_add(m, 10, 11, 0) == -1);
    CHECK(addrmap_add(m, 0, 65 * MIB, 1) == -1);   /* over 64 granules */
    int added = 0;
    for (int i = 1; i <= 40; i++) {
        if (addrmap_add(m, (uint64_t)i * 16 * MIB, (uint64_t)i * 16 * MIB + 1, i) == 0) added++;
    }
    CHECK_EQ_U64(added, 16);   /* the range list is full */
    for (int i = 1; i <= 16; i++) CHECK_EQ_U64(addrmap_find(m, (uint64_t)i * 16 * MIB), i);
    addrmap_destroy(m);
}

TEST(addrmap_rebuilds_after_churn) {
    cv_addrmap *m = addrmap_create(6);
    /* Far more adds and removes than slots: tombstones must be reclaimed. */
    for (int round = 0; round < 500; round++) {
        int64_t tid = 1000 + round;
        uint64_t lo = (uint64_t)(round % 37) * 3 * MIB + 4096;
        CHECK(addrmap_add(m, lo, lo + 2 * MIB, tid) == 0);
        CHECK_EQ_U64(addrmap_find(m, lo + MIB), tid);
        if (round >= 3) addrmap_remove(m, tid - 3);
    }
    CHECK_EQ_U64(addrmap_ranges(m), 3);
    addrmap_destroy(m);
}

/* Readers racing a writer: every answer is a thread registered for that address, or 0. */
typedef struct {
    cv_addrmap *m;
    int stop;
    int bad;
    long found;
    long lookups;
} race;

static void *reader(void *p) {
    race *r = p;
    while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
        for (uint64_t k = 0; k < 8; k++) {
            int64_t tid = addrmap_find(r->m, k * 4 * MIB + MIB);
            if (tid != 0 && (tid % 8) != (int64_t)k) __atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED);
            if (tid != 0) __atomic_fetch_add(&r->found, 1, __ATOMIC_RELAXED);
        }
        __atomic_fetch_add(&r->lookups, 8, __ATOMIC_RELAXED);
    }
    return NULL;
}

TEST(addrmap_readers_never_see_a_wrong_thread) {
    race r = {addrmap_create(8), 0, 0, 0, 0};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, reader, &r);
    /* Slot k (4 MiB apart) is owned by threads whose id is k modulo 8. The writer goes on
     * until the readers have made many look-ups, however the threads were scheduled. */
    for (int64_t tid = 8; tid < 8 + 20000 || __atomic_load_n(&r.lookups, __ATOMIC_RELAXED) < 200000; tid++) {
        uint64_t k = (uint64_t)(tid % 8);
        addrmap_remove(r.m, tid - 8);
        CHECK(addrmap_add(r.m, k * 4 * MIB, k * 4 * MIB + 2 * MIB, tid) == 0);
    }
    /* While the writer ran, every look-up may have met a write and answered 0 (a slow machine);
     * once it has stopped, the map holds 8 ranges and a full round of look-ups must find them. */
    long settled = __atomic_load_n(&r.lookups, __ATOMIC_RELAXED) + 2 * 8 * 2;
    while (__atomic_load_n(&r.lookups, __ATOMIC_RELAXED) < settled) sched_yield();
    __atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    CHECK_EQ_U64(r.bad, 0);
    CHECK(r.found > 0);
    addrmap_destroy(r.m);
}
