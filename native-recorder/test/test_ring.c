#include "check.h"
#include "ring.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static cv_ring *new_ring(uint32_t cap) {
    cv_ring *r = malloc(ring_bytes(cap));
    ring_init(r, cap);
    return r;
}

static uint64_t get_le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--) v = (v << 8) | p[k];
    return v;
}

/* The records of ring_read_encoded, decoded back (since 0). */
static uint32_t ring_read(const cv_ring *ring, cv_record *out, uint32_t max, uint64_t *written, uint64_t *torn) {
    uint8_t *bytes = malloc((size_t)max * CV_RECORD_BYTES + 1);
    uint32_t n = ring_read_encoded(ring, bytes, max, 0, written, torn, NULL);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *p = bytes + (size_t)i * CV_RECORD_BYTES;
        cv_record r = {get_le64(p), get_le64(p + 8), get_le64(p + 16), (int64_t)get_le64(p + 24),
                       (int64_t)get_le64(p + 32)};
        out[i] = r;
    }
    free(bytes);
    return n;
}

static cv_record rec(uint64_t i) {
    cv_record r = {i * 10, cv_record_meta(3, 1, (uint32_t)i), i + 1, (int64_t)i * 7, -(int64_t)i};
    return r;
}

TEST(ring_keeps_records_in_order_until_full) {
    cv_ring *r = new_ring(8);
    for (uint64_t i = 0; i < 5; i++) {
        cv_record x = rec(i);
        ring_write(r, &x);
    }
    cv_record out[8];
    uint64_t written = 0, torn = 99;
    uint32_t n = ring_read(r, out, 8, &written, &torn);
    CHECK_EQ_U64(n, 5);
    CHECK_EQ_U64(written, 5);
    CHECK_EQ_U64(torn, 0);
    CHECK_EQ_U64(ring_overwritten(r), 0);
    for (uint32_t i = 0; i < n; i++) {
        CHECK_EQ_U64(out[i].ts, i * 10);
        CHECK_EQ_U64(out[i].obj, i + 1);
        CHECK_EQ_U64(out[i].meta >> 32, i);
        CHECK(out[i].arg2 == -(int64_t)i);
    }
    free(r);
}

TEST(ring_overwrites_oldest_and_counts_it) {
    cv_ring *r = new_ring(4);
    for (uint64_t i = 0; i < 11; i++) {
        cv_record x = rec(i);
        ring_write(r, &x);
    }
    cv_record out[4];
    uint64_t written = 0, torn = 0;
    uint32_t n = ring_read(r, out, 4, &written, &torn);
    CHECK_EQ_U64(n, 4);
    CHECK_EQ_U64(written, 11);
    CHECK_EQ_U64(ring_overwritten(r), 7);
    /* the newest four survive, oldest first */
    for (uint32_t i = 0; i < 4; i++) CHECK_EQ_U64(out[i].ts, (7 + i) * 10);
    free(r);
}

TEST(ring_counts_drops) {
    cv_ring *r = new_ring(2);
    ring_drop(r);
    ring_drop(r);
    CHECK_EQ_U64(ring_dropped(r), 2);
    free(r);
}

TEST(ring_capacity_for_inverts_ring_bytes) {
    CHECK_EQ_U64(ring_capacity_for(ring_bytes(100)), 100);
    CHECK_EQ_U64(ring_capacity_for(ring_bytes(100) + 47), 100);
    CHECK_EQ_U64(ring_capacity_for(10), 0);
}

/* A writer fills a small ring as fast as it can while a reader copies it over and
 * over: every record the reader accepts must be internally consistent (never torn)
 * and records must come out in strictly increasing sequence. */
typedef struct {
    cv_ring *ring;
    uint64_t total;
    int done;
} race_ctx;

static void *writer(void *p) {
    race_ctx *c = p;
    for (uint64_t i = 0; i < c->total; i++) {
        cv_record x = {i, i ^ 0xABCDEF, i * 3, (int64_t)(i * 5), (int64_t)(i * 7)};
        ring_write(c->ring, &x);
    }
    __atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

TEST(ring_reader_never_returns_torn_records) {
    race_ctx c = {new_ring(16), 2000000, 0};
    pthread_t w;
    pthread_create(&w, NULL, writer, &c);
    cv_record out[16];
    uint64_t reads = 0, accepted = 0, torn_total = 0, bad = 0;
    while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE) || reads == 0) {
        uint64_t written, torn;
        uint32_t n = ring_read(c.ring, out, 16, &written, &torn);
        reads++;
        torn_total += torn;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t s = out[i].ts;
            if (out[i].meta != (s ^ 0xABCDEF) || out[i].obj != s * 3 ||
                out[i].arg != (int64_t)(s * 5) || out[i].arg2 != (int64_t)(s * 7)) bad++;
            if (i > 0 && out[i].ts <= out[i - 1].ts) bad++;
            if (s >= written) bad++;
        }
        accepted += n;
    }
    pthread_join(w, NULL);
    /* While the writer ran, every read may have met it (a slow machine): once it has stopped,
     * the ring holds its last 16 records whole, in order. */
    uint64_t written_after, torn_after;
    uint32_t last = ring_read(c.ring, out, 16, &written_after, &torn_after);
    CHECK_EQ_U64(last, 16);
    CHECK_EQ_U64(torn_after, 0);
    for (uint32_t i = 0; i < last; i++) {
        if (out[i].ts != c.total - 16 + i || out[i].obj != out[i].ts * 3) bad++;
    }
    accepted += last;
    CHECK_EQ_U64(bad, 0);
    CHECK(accepted > 0);
    CHECK_EQ_U64(ring_written(c.ring), c.total);
    printf("     (%llu reads, %llu records accepted, %llu torn skipped)\n",
           (unsigned long long)reads, (unsigned long long)accepted, (unsigned long long)torn_total);
    free(c.ring);
}

/* ring_init leaves the slots alone: a block that held an earlier ring (valid-looking
 * sequence words of records 0..n) or garbage must read as an empty ring, then as exactly
 * the new records. */
TEST(ring_init_over_a_used_block_reads_only_new_records) {
    const uint32_t cap = 8;
    cv_ring *r = new_ring(cap);
    for (uint64_t i = 0; i < 13; i++) {
        cv_record x = rec(100 + i);
        ring_write(r, &x);
    }
    ring_init(r, cap);
    cv_record out[8];
    uint64_t written = 99, torn = 99;
    CHECK_EQ_U64(ring_read(r, out, cap, &written, &torn), 0);
    CHECK_EQ_U64(written, 0);
    CHECK_EQ_U64(torn, 0);
    CHECK_EQ_U64(ring_overwritten(r), 0);
    CHECK_EQ_U64(ring_dropped(r), 0);
    for (uint64_t i = 0; i < 3; i++) {
        cv_record x = rec(i);
        ring_write(r, &x);
    }
    uint32_t n = ring_read(r, out, cap, &written, &torn);
    CHECK_EQ_U64(n, 3);
    CHECK_EQ_U64(written, 3);
    CHECK_EQ_U64(torn, 0);
    for (uint32_t i = 0; i < n; i++) CHECK_EQ_U64(out[i].ts, i * 10);
    /* the same over bytes that were never a ring */
    memset(r->slots, 0xA5, cap * sizeof(cv_slot));
    ring_init(r, cap);
    CHECK_EQ_U64(ring_read(r, out, cap, &written, &torn), 0);
    for (uint64_t i = 0; i < cap + 2; i++) {
        cv_record x = rec(i);
        ring_write(r, &x);
    }
    n = ring_read(r, out, cap, &written, &torn);
    CHECK_EQ_U64(n, cap);
    CHECK_EQ_U64(torn, 0);
    for (uint32_t i = 0; i < n; i++) CHECK_EQ_U64(out[i].ts, (2 + i) * 10);
    free(r);
}

TEST(ring_read_encoded_writes_little_endian_records_since_a_time) {
    static uint64_t mem[(sizeof(cv_ring) + 8 * sizeof(cv_slot)) / 8 + 1];
    cv_ring *r = (cv_ring *)mem;
    ring_init(r, 8);
    for (int i = 1; i <= 10; i++) {
        cv_record rec = {.ts = (uint64_t)i * 100, .meta = cv_record_meta(3, 1, 7), .obj = 0x1122334455667788ull,
                         .arg = -i, .arg2 = i};
        ring_write(r, &rec);
    }
    uint8_t out[8 * CV_RECORD_BYTES + 1];   /* +1: the output needs no alignment */
    uint64_t written = 0, torn = 9;
    cv_record last = {0};
    uint32_t n = ring_read_encoded(r, out + 1, 8, 600, &written, &torn, &last);
    CHECK_EQ_U64(n, 5);                     /* 3..10 are in the ring, 6..10 are at or after 600 */
    CHECK_EQ_U64(written, 10);
    CHECK_EQ_U64(torn, 0);
    CHECK_EQ_U64(last.ts, 1000);
    const uint8_t *p = out + 1;
    CHECK_EQ_U64(p[0] | p[1] << 8, 600);
    CHECK_EQ_U64(p[8], 3);                  /* type */
    CHECK_EQ_U64(p[9], 1);                  /* flags */
    CHECK_EQ_U64(p[12], 7);                 /* stack id */
    CHECK_EQ_U64(p[16], 0x88);
    CHECK_EQ_U64(p[23], 0x11);
    CHECK_EQ_U64(p[24], 0xFA);              /* arg = -6, little-endian two's complement */
    CHECK_EQ_U64(p[31], 0xFF);
    CHECK_EQ_U64(p[32], 6);
    CHECK_EQ_U64(p[4 * CV_RECORD_BYTES] | p[4 * CV_RECORD_BYTES + 1] << 8, 1000);
    cv_record untouched = {.ts = 42};
    CHECK_EQ_U64(ring_read_encoded(r, out, 8, 5000, NULL, NULL, &untouched), 0);
    CHECK_EQ_U64(untouched.ts, 42);
}

TEST(ring_grows_before_it_wraps_keeping_every_record) {
    cv_ring *small = new_ring(4);
    for (uint64_t i = 0; i < 4; i++) {
        cv_record x = rec(i);
        ring_write(small, &x);
    }
    ring_drop(small);
    cv_ring *big = malloc(ring_bytes(8));
    ring_grow_into(small, big, 8);
    CHECK_EQ_U64(ring_written(big), 4);
    CHECK_EQ_U64(ring_overwritten(big), 0);
    CHECK_EQ_U64(ring_dropped(big), 1);
    for (uint64_t i = 4; i < 8; i++) {
        cv_record x = rec(i);
        ring_write(big, &x);
    }
    cv_record out[8];
    uint64_t written = 0, torn = 99;
    uint32_t n = ring_read(big, out, 8, &written, &torn);
    CHECK_EQ_U64(n, 8);
    CHECK_EQ_U64(torn, 0);
    for (uint64_t i = 0; i < 8; i++) {
        CHECK_EQ_U64(out[i].ts, rec(i).ts);
        CHECK_EQ_U64(out[i].arg2, (uint64_t)rec(i).arg2);
    }
    free(small);
    free(big);
}

/* A ring grown after it wrapped holds the newest records; the older ones count as overwritten,
 * and slots below base are never read, even when the block holds valid-looking records there. */
TEST(ring_grown_after_wrapping_reads_only_from_base) {
    cv_ring *small = new_ring(4);
    for (uint64_t i = 0; i < 10; i++) {
        cv_record x = rec(i);
        ring_write(small, &x);
    }
    /* The new block first holds an old ring whose records 0..7 look committed. */
    cv_ring *big = new_ring(8);
    for (uint64_t i = 0; i < 8; i++) {
        cv_record x = rec(100 + i);
        ring_write(big, &x);
    }
    ring_grow_into(small, big, 8);
    CHECK_EQ_U64(ring_written(big), 10);
    CHECK_EQ_U64(ring_overwritten(big), 6);
    cv_record out[8];
    uint64_t written = 0, torn = 99;
    uint32_t n = ring_read(big, out, 8, &written, &torn);
    CHECK_EQ_U64(n, 4);
    CHECK_EQ_U64(torn, 0);
    for (uint32_t k = 0; k < n; k++) CHECK_EQ_U64(out[k].ts, rec(6 + k).ts);
    for (uint64_t i = 10; i < 14; i++) {
        cv_record x = rec(i);
        ring_write(big, &x);
    }
    n = ring_read(big, out, 8, &written, &torn);
    CHECK_EQ_U64(n, 8);
    CHECK_EQ_U64(ring_overwritten(big), 6);
    for (uint32_t k = 0; k < n; k++) CHECK_EQ_U64(out[k].ts, rec(6 + k).ts);
    for (uint64_t i = 14; i < 20; i++) {
        cv_record x = rec(i);
        ring_write(big, &x);
    }
    CHECK_EQ_U64(ring_overwritten(big), 12);
    n = ring_read(big, out, 8, &written, &torn);
    CHECK_EQ_U64(n, 8);
    for (uint32_t k = 0; k < n; k++) CHECK_EQ_U64(out[k].ts, rec(12 + k).ts);
    free(small);
    free(big);
}

/* The debug assertions (CV_ASSERT) are on in this build: a read beyond the ring's write index,
 * or of a record the ring no longer holds, aborts instead of returning a slot's stale bytes. */
static void read_at_head(void *ring) {
    cv_record r;
    ring_read_at(ring, ring_written(ring), &r);
}

static void read_below_base(void *ring) {
    cv_record r;
    ring_read_at(ring, 0, &r);
}

TEST(ring_debug_assertions_guard_the_cursor_against_the_write_index) {
    cv_ring *small = malloc(ring_bytes(4));
    cv_ring *big = malloc(ring_bytes(8));
    ring_init(small, 4);
    for (uint64_t i = 0; i < 6; i++) {
        cv_record x = rec(i);
        ring_write(small, &x);
    }
    cv_record r;
    CHECK(ring_read_at(small, 5, &r) && r.ts == rec(5).ts);
    CHECK(cv_aborts(read_at_head, small));
    ring_grow_into(small, big, 8);   /* base 2: records 0 and 1 were overwritten before the growth */
    CHECK(ring_read_at(big, 2, &r) && r.ts == rec(2).ts);
    CHECK(cv_aborts(read_below_base, big));
    free(small);
    free(big);
}
