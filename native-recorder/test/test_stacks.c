#include "check.h"
#include "stacks.h"

#include <pthread.h>
#include <stdlib.h>

static void fill(cv_frame *f, uint32_t depth, uint64_t seed) {
    for (uint32_t i = 0; i < depth; i++) {
        f[i].method = 0x1000 + seed * 100 + i;
        f[i].location = (int64_t)(i * 3);
    }
}

typedef struct { uint32_t seen; uint32_t depth_sum; } count_ctx;

static void count_visit(void *p, uint32_t id, uint32_t flags, const cv_frame *f, uint32_t depth) {
    count_ctx *c = p;
    (void)id; (void)flags; (void)f;
    c->seen++;
    c->depth_sum += depth;
}

TEST(stacks_deduplicate_equal_stacks) {
    cv_stacks *t = stacks_create(1 << 20);
    cv_frame a[5], b[5];
    fill(a, 5, 1);
    fill(b, 5, 2);
    uint32_t ia = stacks_intern(t, a, 5, 0);
    uint32_t ib = stacks_intern(t, b, 5, 0);
    CHECK(ia != 0);
    CHECK(ib != 0);
    CHECK(ia != ib);
    CHECK_EQ_U64(stacks_intern(t, a, 5, 0), ia);
    CHECK(stacks_intern(t, a, 4, 0) != ia);           /* a prefix is another stack */
    CHECK(stacks_intern(t, a, 5, CV_STACK_TRUNCATED) != ia);
    count_ctx c = {0, 0};
    stacks_foreach(t, count_visit, &c);
    CHECK_EQ_U64(c.seen, 4);
    CHECK_EQ_U64(c.depth_sum, 19);
    stacks_destroy(t);
}

TEST(stacks_full_table_returns_zero_and_counts) {
    cv_stacks *t = stacks_create(4096);
    cv_frame f[64];
    uint32_t zero = 0;
    for (uint64_t s = 0; s < 200; s++) {
        fill(f, 64, s);
        if (stacks_intern(t, f, 64, 0) == 0) zero++;
    }
    CHECK(zero > 0);
    CHECK_EQ_U64(stacks_dropped(t), zero);
    stacks_destroy(t);
}

typedef struct { cv_stacks *t; uint32_t ids[64]; } intern_ctx;

static void *interner(void *p) {
    intern_ctx *c = p;
    cv_frame f[8];
    for (int round = 0; round < 200; round++) {
        for (uint64_t s = 0; s < 64; s++) {
            fill(f, 8, s);
            c->ids[s] = stacks_intern(c->t, f, 8, 0);
        }
    }
    return NULL;
}

TEST(stacks_concurrent_interning_agrees_on_ids) {
    cv_stacks *t = stacks_create(1 << 20);
    intern_ctx c[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        c[i].t = t;
        pthread_create(&th[i], NULL, interner, &c[i]);
    }
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    for (int s = 0; s < 64; s++) {
        CHECK(c[0].ids[s] != 0);
        for (int i = 1; i < 4; i++) CHECK_EQ_U64(c[i].ids[s], c[0].ids[s]);
    }
    count_ctx cc = {0, 0};
    stacks_foreach(t, count_visit, &cc);
    CHECK_EQ_U64(cc.seen, 64);
    stacks_destroy(t);
}
