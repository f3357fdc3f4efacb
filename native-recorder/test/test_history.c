#include "check.h"
#include "history.h"
#include "snapshot_format.h"

#include <stdlib.h>
#include <string.h>

static cv_ring *new_ring(uint32_t capacity) {
    cv_ring *r = malloc(ring_bytes(capacity));
    ring_init(r, capacity);
    return r;
}

static cv_record rec(uint64_t ts, uint8_t type, uint32_t stack, uint64_t obj, int64_t arg, int64_t arg2) {
    cv_record r = {ts, cv_record_meta(type, 1, stack), obj, arg, arg2};
    return r;
}

static cv_hist_thread desc(uint64_t ring_id, const char *name) {
    cv_hist_thread d;
    memset(&d, 0, sizeof(d));
    d.ring_id = ring_id;
    d.java_tid = (int64_t)ring_id + 10;
    d.flags = 0;
    d.start_ns = 5;
    d.name = name;
    d.group = "main";
    d.parent_group = "";
    return d;
}

/* What a pinned history holds for one ring: its records, its losses, its last name. */
typedef struct {
    cv_record records[4096];   /* the first 4096 */
    cv_record last;
    size_t    n;                /* all of them */
    uint64_t  loss_from[16], loss_to[16], loss_records[16];
    size_t    nloss;
    char      name[64];
    int       described_before_use;
} ring_content;

static void read_ring(cv_history *h, uint64_t ring_id, ring_content *out) {
    memset(out, 0, sizeof(*out));
    out->described_before_use = 1;
    cv_hist_view v;
    history_lock(h);
    CHECK_EQ_INT(history_pin(h, &v), 0);
    history_unlock(h);
    for (size_t i = 0; i < v.count; i++) {
        cv_hist_reader r;
        history_reader(&r, v.chunks[i]->data, v.used[i]);
        int kind, described = 0;
        while ((kind = history_next(&r)) > 0) {
            if (kind == HIST_THREAD && r.thread.ring_id == ring_id) {
                described = 1;
                size_t n = r.thread.name_len < 63 ? r.thread.name_len : 63;
                memcpy(out->name, r.thread.name, n);
                out->name[n] = 0;
            } else if (kind == HIST_RUN && r.ring_id == ring_id) {
                if (!described) out->described_before_use = 0;
                cv_record x;
                while (history_record(&r, &x) > 0) {
                    if (out->n < 4096) out->records[out->n] = x;
                    out->last = x;
                    out->n++;
                }
            } else if (kind == HIST_LOSS && r.ring_id == ring_id) {
                if (!described) out->described_before_use = 0;
                if (out->nloss < 16) {
                    out->loss_from[out->nloss] = r.from_ns;
                    out->loss_to[out->nloss] = r.to_ns;
                    out->loss_records[out->nloss] = r.records;
                    out->nloss++;
                }
            }
        }
        CHECK_EQ_INT(kind, 0);
    }
    history_unpin(h, &v);
}

TEST(history_moves_records_and_reads_them_back_exactly) {
    cv_history h;
    history_init(&h, 1 << 20, 0);
    cv_ring *ring = new_ring(64);
    cv_hist_cursor c = {0};
    cv_hist_thread d = desc(1, "worker-1");
    cv_record in[5] = {
        rec(1000, 3, 7, 42, 0, -1),
        rec(999, 4, 0, 42, 17, 0),               /* time may go back: a signed delta */
        rec(UINT64_MAX - 5, 5, 0xFFFFFF, UINT64_MAX, INT64_MIN, INT64_MAX),
        rec(2000, 25, 1, 1, -5, 3),
        rec(2001, 26, 0, 0, 0, 0),
    };
    for (int i = 0; i < 5; i++) ring_write(ring, &in[i]);
    history_lock(&h);
    CHECK_EQ_U64(history_drain_ring(&h, ring, &c, &d), 5);
    CHECK_EQ_U64(history_drain_ring(&h, ring, &c, &d), 0);
    history_unlock(&h);
    ring_content got;
    read_ring(&h, 1, &got);
    CHECK_EQ_U64(got.n, 5);
    for (int i = 0; i < 5 && i < (int)got.n; i++) CHECK(memcmp(&got.records[i], &in[i], sizeof(cv_record)) == 0);
    CHECK_EQ_U64(got.nloss, 0);
    CHECK(strcmp(got.name, "worker-1") == 0);
    CHECK(got.described_before_use);
    CHECK_EQ_U64(c.lost, 0);
    free(ring);
    history_destroy(&h);
}

TEST(history_counts_records_a_ring_overwrote_before_the_drain_as_a_loss_between_the_kept_ones) {
    cv_history h;
    history_init(&h, 1 << 20, 0);
    cv_ring *ring = new_ring(8);
    cv_hist_cursor c = {0};
    cv_hist_thread d = desc(3, "t");
    /* 20 records before the first drain: the first 12 are overwritten. */
    for (uint64_t i = 0; i < 20; i++) {
        cv_record r = rec(100 + i, 3, 0, 1, 0, 0);
        ring_write(ring, &r);
    }
    history_lock(&h);
    CHECK_EQ_U64(history_drain_ring(&h, ring, &c, &d), 8);
    history_unlock(&h);
    /* 4 drained in time, then 30 more: 22 lost in the middle. */
    for (uint64_t i = 20; i < 24; i++) {
        cv_record r = rec(100 + i, 3, 0, 1, 0, 0);
        ring_write(ring, &r);
    }
    history_lock(&h);
    CHECK_EQ_U64(history_drain_ring(&h, ring, &c, &d), 4);
    history_unlock(&h);
    for (uint64_t i = 24; i < 54; i++) {
        cv_record r = rec(100 + i, 3, 0, 1, 0, 0);
        ring_write(ring, &r);
    }
    history_lock(&h);
    CHECK_EQ_U64(history_drain_ring(&h, ring, &c, &d), 8);
    history_unlock(&h);
    ring_content got;
    read_ring(&h, 3, &got);
    CHECK_EQ_U64(got.n, 20);
    CHECK_EQ_U64(got.nloss, 2);
    CHECK_EQ_U64(got.loss_from[0], 0);        /* from the thread's start */
    CHECK_EQ_U64(got.loss_to[0], 112);        /* the first record kept */
    CHECK_EQ_U64(got.loss_records[0], 12);
    CHECK_EQ_U64(got.loss_from[1], 123);      /* the last record kept before */
    CHECK_EQ_U64(got.loss_to[1], 146);        /* the first kept after */
    CHECK_EQ_U64(got.loss_records[1], 22);
    CHECK_EQ_U64(c.lost, 34);
    CHECK_EQ_U64(h.lost_records, 34);
    free(ring);
    history_destroy(&h);
}

TEST(history_keeps_within_max_bytes_and_counts_exactly_what_aged_out) {
    cv_history h;
    history_init(&h, 4 * 64 * 1024, 0);   /* four chunks of 64 KiB */
    CHECK_EQ_U64(h.chunk_bytes, 64 * 1024);
    cv_ring *rings[3];
    cv_hist_cursor c[3];
    cv_hist_thread d[3];
    const char *names[3] = {"a", "b", "c"};
    for (int t = 0; t < 3; t++) {
        rings[t] = new_ring(1024);
        memset(&c[t], 0, sizeof(c[t]));
        d[t] = desc((uint64_t)t + 1, names[t]);
    }
    uint64_t total = 0, ts = 1;
    for (int round = 0; round < 200; round++) {
        for (int t = 0; t < 3; t++) {
            for (int i = 0; i < 100; i++) {
                cv_record r = rec(ts++, 3, (uint32_t)(i % 5), (uint64_t)(i % 3) + 1, i, -1);
                ring_write(rings[t], &r);
            }
        }
        history_lock(&h);
        for (int t = 0; t < 3; t++) total += history_drain_ring(&h, rings[t], &c[t], &d[t]);
        CHECK(h.bytes <= h.max_bytes);
        history_unlock(&h);
    }
    CHECK_EQ_U64(total, 60000);
    CHECK(h.aged_records > 0);
    CHECK(h.from_ns > 0);
    ring_content got[3];
    uint64_t kept = 0;
    for (int t = 0; t < 3; t++) {
        read_ring(&h, (uint64_t)t + 1, &got[t]);
        kept += got[t].n;
        CHECK(got[t].described_before_use);   /* each chunk names the threads it holds */
        CHECK(got[t].n > 0);
        CHECK(got[t].records[0].ts <= h.from_ns + 300);
        CHECK(got[t].last.ts >= ts - 300);
    }
    CHECK_EQ_U64(kept + h.aged_records, total);
    for (int t = 0; t < 3; t++) free(rings[t]);
    history_destroy(&h);
}

TEST(history_ages_out_chunks_older_than_max_age_but_never_the_current_one) {
    cv_history h;
    history_init(&h, 16 * 64 * 1024, 1000);
    cv_ring *ring = new_ring(4096);
    cv_hist_cursor c = {0};
    cv_hist_thread d = desc(1, "t");
    uint64_t total = 0;
    for (uint64_t i = 0; i < 20000; i++) {
        cv_record r = rec(10 + i, 4, 0, 2, 0, 0);
        ring_write(ring, &r);
        if (i % 1000 == 999) {
            history_lock(&h);
            total += history_drain_ring(&h, ring, &c, &d);
            history_unlock(&h);
        }
    }
    CHECK(h.chunks > 1);
    history_lock(&h);
    history_age(&h, 10 + 20000 + 1000000);   /* everything is old: only the current chunk stays */
    history_unlock(&h);
    CHECK_EQ_U64(h.chunks, 1);
    ring_content got;
    read_ring(&h, 1, &got);
    CHECK(got.n > 0);
    CHECK_EQ_U64(got.n + h.aged_records, total);
    free(ring);
    history_destroy(&h);
}

TEST(history_pinned_chunks_stay_readable_after_they_age_out_and_a_clear_counts_nothing) {
    cv_history h;
    history_init(&h, 2 * 64 * 1024, 0);
    cv_ring *ring = new_ring(8192);
    cv_hist_cursor c = {0};
    cv_hist_thread d = desc(9, "pinned");
    for (uint64_t i = 0; i < 5000; i++) {
        cv_record r = rec(i + 1, 3, 1, 1, 0, 0);
        ring_write(ring, &r);
    }
    history_lock(&h);
    uint64_t first = history_drain_ring(&h, ring, &c, &d);
    cv_hist_view v;
    CHECK_EQ_INT(history_pin(&h, &v), 0);
    history_unlock(&h);
    uint32_t used0 = v.used[0];
    const cv_chunk *oldest = v.chunks[0];
    /* Enough to age out every chunk pinned. */
    for (uint64_t i = 5000; i < 60000; i++) {
        cv_record r = rec(i + 1, 3, 1, (uint64_t)i, (int64_t)i, 0);
        ring_write(ring, &r);
        if (i % 4000 == 0) {
            history_lock(&h);
            history_drain_ring(&h, ring, &c, &d);
            history_unlock(&h);
        }
    }
    CHECK(h.aged_chunks >= 1);
    CHECK(oldest->aged);
    cv_hist_reader r;
    history_reader(&r, oldest->data, used0);
    uint64_t n = 0;
    int kind;
    while ((kind = history_next(&r)) > 0) {
        cv_record x;
        while (kind == HIST_RUN && history_record(&r, &x) > 0) n++;
    }
    CHECK_EQ_INT(kind, 0);
    CHECK(n > 0 && n <= first);
    history_unpin(&h, &v);                  /* frees the aged ones: ASan would see a leak or a reuse */
    history_lock(&h);
    history_clear(&h, 0);
    CHECK_EQ_U64(h.chunks, 0);
    CHECK_EQ_U64(h.bytes, 0);
    CHECK_EQ_U64(h.aged_records, 0);
    history_unlock(&h);
    free(ring);
    history_destroy(&h);
}

TEST(history_reader_refuses_bytes_that_are_no_entry) {
    uint8_t junk[] = {'X', 1, 2};
    cv_hist_reader r;
    history_reader(&r, junk, sizeof(junk));
    CHECK_EQ_INT(history_next(&r), -1);
    uint8_t cut[] = {HIST_RUN, 1, 5, 0};   /* count cut short */
    history_reader(&r, cut, sizeof(cut));
    CHECK_EQ_INT(history_next(&r), -1);
    uint8_t empty_run[] = {HIST_RUN, 1, 2, 0, 0, 0};   /* claims 2 records, holds none */
    history_reader(&r, empty_run, sizeof(empty_run));
    CHECK_EQ_INT(history_next(&r), HIST_RUN);
    cv_record x;
    CHECK_EQ_INT(history_record(&r, &x), -1);
}

TEST(history_repository_writes_sealed_chunks_in_order_and_a_reset_deletes_their_files) {
    cv_history h;
    history_init(&h, 4 * 64 * 1024, 0);
    history_files(&h, 1);
    cv_ring *ring = new_ring(8192);
    cv_hist_cursor c = {0};
    cv_hist_thread d = desc(1, "t");
    uint64_t ts = 1;
    /* fill until two chunks are sealed */
    while (h.chunks < 3) {
        for (int i = 0; i < 1000; i++) {
            cv_record r = rec(ts++, 3, 1, (uint64_t)i * 7919, i, 0);
            ring_write(ring, &r);
        }
        history_lock(&h);
        history_drain_ring(&h, ring, &c, &d);
        history_unlock(&h);
    }
    uint32_t used = 0;
    history_lock(&h);
    cv_chunk *first = history_next_to_write(&h, &used);
    history_unlock(&h);
    CHECK(first != NULL && first->seq == 1 && first->sealed && used == first->used);
    history_file_done(&h, first, 1);
    history_lock(&h);
    cv_chunk *second = history_next_to_write(&h, &used);
    history_unlock(&h);
    CHECK(second != NULL && second->seq == 2);
    history_file_done(&h, second, 0);           /* a full disk: kept in memory, never retried */
    history_lock(&h);
    CHECK(history_next_to_write(&h, &used) == NULL);   /* the current chunk is not sealed */
    history_seal(&h);                                  /* at exit */
    cv_chunk *last = history_next_to_write(&h, &used);
    history_unlock(&h);
    CHECK(last != NULL && last->seq == h.tail->seq);
    uint64_t last_seq = last ? last->seq : 0;
    history_file_done(&h, last, 1);
    /* Age everything out: the files outlive their chunks (the repository bounds them itself). */
    for (int k = 0; k < 6; k++) {
        for (int i = 0; i < 4000; i++) {
            cv_record r = rec(ts++, 3, 1, (uint64_t)i * 7919, i, 0);
            ring_write(ring, &r);
        }
        history_lock(&h);
        history_drain_ring(&h, ring, &c, &d);
        history_unlock(&h);
    }
    uint64_t doomed[8];
    history_lock(&h);
    CHECK(h.aged_chunks >= 3);
    CHECK_EQ_U64(history_take_doomed(&h, doomed, 8), 0);
    /* A reset drops every chunk: the files of those written are to delete, the others have none. */
    history_seal(&h);
    cv_chunk *kept = history_next_to_write(&h, &used);
    history_unlock(&h);
    CHECK(kept != NULL && kept->seq > last_seq);
    uint64_t kept_seq = kept ? kept->seq : 0;
    history_file_done(&h, kept, 1);
    history_lock(&h);
    history_clear(&h, ts);
    size_t n = history_take_doomed(&h, doomed, 8);
    history_unlock(&h);
    CHECK_EQ_U64(n, 1);
    if (n == 1) CHECK_EQ_U64(doomed[0], kept_seq);
    free(ring);
    history_destroy(&h);
}

TEST(history_totals_count_every_block_and_wait_that_ends_even_after_the_records_aged_out) {
    cv_history h;
    history_init(&h, 2 * 64 * 1024, 0);
    cv_ring *ring = new_ring(8192);
    cv_hist_cursor c = {0};
    cv_hist_thread d = desc(7, "t");
    uint64_t ts = 1000;
    /* 20,000 blocks of 10 ns on monitor 5 from stack 3, and waits of 100 ns on monitor 6 */
    for (int i = 0; i < 20000; i++) {
        cv_record e = rec(ts, EVENT_MONITOR_ENTER, 3, 5, 0, -1);
        cv_record x = rec(ts + 10, EVENT_MONITOR_ENTERED, 0, 5, 0, 0);
        ring_write(ring, &e);
        ring_write(ring, &x);
        if (i % 10 == 0) {
            cv_record w = rec(ts + 20, EVENT_MONITOR_WAIT, 4, 6, 0, 0);
            cv_record y = rec(ts + 120, EVENT_MONITOR_WAITED, 0, 6, 0, 0);
            ring_write(ring, &w);
            ring_write(ring, &y);
        }
        ts += 1000;
        if (i % 1000 == 999) {
            history_lock(&h);
            history_drain_ring(&h, ring, &c, &d);
            history_unlock(&h);
        }
    }
    CHECK(h.aged_records > 0);   /* most records aged out of the 128 KiB history */
    history_lock(&h);
    size_t n = 0;
    cv_total *t = history_totals_copy(&h, &n);
    history_unlock(&h);
    CHECK_EQ_U64(n, 2);
    for (size_t i = 0; t && i < n; i++) {
        CHECK_EQ_U64(t[i].ring_id, 7);
        if (t[i].kind == TOTAL_BLOCKED) {
            CHECK_EQ_U64(t[i].obj, 5);
            CHECK_EQ_U64(t[i].stack, 3);
            CHECK_EQ_U64(t[i].count, 20000);
            CHECK_EQ_U64(t[i].total_ns, 200000);
            CHECK_EQ_U64(t[i].max_ns, 10);
        } else {
            CHECK_EQ_U64(t[i].kind, TOTAL_WAITED);
            CHECK_EQ_U64(t[i].count, 2000);
            CHECK_EQ_U64(t[i].total_ns, 200000);
        }
    }
    free(t);
    /* A loss between a begin and its end: that block's time is unknown, not counted. */
    cv_record e = rec(ts, EVENT_MONITOR_ENTER, 3, 5, 0, -1);
    ring_write(ring, &e);
    history_lock(&h);
    history_drain_ring(&h, ring, &c, &d);
    history_unlock(&h);
    for (int i = 0; i < 9000; i++) {   /* laps the 8192-record ring before the next drain */
        cv_record s = rec(ts + 1 + (uint64_t)i, EVENT_SLEEP, 0, 0, 1, 0);
        ring_write(ring, &s);
    }
    cv_record x = rec(ts + 20000, EVENT_MONITOR_ENTERED, 0, 5, 0, 0);
    ring_write(ring, &x);
    history_lock(&h);
    history_drain_ring(&h, ring, &c, &d);
    t = history_totals_copy(&h, &n);
    history_clear(&h, 42);
    size_t after = 0;
    cv_total *none = history_totals_copy(&h, &after);
    history_unlock(&h);
    for (size_t i = 0; t && i < n; i++) {
        if (t[i].kind == TOTAL_BLOCKED) CHECK_EQ_U64(t[i].count, 20000);
    }
    CHECK(c.lost > 0);
    CHECK_EQ_U64(after, 0);
    CHECK(none == NULL);
    CHECK_EQ_U64(h.totals_from, 42);
    free(t);
    free(ring);
    history_destroy(&h);
}

TEST(history_appends_a_sample_after_the_open_block_only) {
    cv_history h;
    history_init(&h, 1 << 20, 0);
    cv_ring *ring = new_ring(64);
    cv_hist_cursor c = {0};
    cv_hist_thread d = desc(4, "blocked");
    cv_record enter = {100, cv_record_meta(EVENT_MONITOR_ENTER, FLAG_OWNER, 3), 7, 0, 12};
    ring_write(ring, &enter);
    /* a sample: aux bits (the u16 after flags) set, a stack of its own */
    cv_record sample = {150, cv_record_meta(EVENT_OWNER_SAMPLE, FLAG_FRAME_EXACT, 9) | (uint64_t)0x3002 << 16, 7, 12, 8};
    history_lock(&h);
    CHECK_EQ_U64(history_drain_ring(&h, ring, &c, &d), 1);
    CHECK_EQ_INT(history_append(&h, &d, &c, 100, 8, &sample), 0);   /* another monitor */
    CHECK_EQ_INT(history_append(&h, &d, &c, 99, 7, &sample), 0);    /* another block */
    CHECK_EQ_INT(history_append(&h, &d, &c, 100, 7, &sample), 1);
    CHECK_EQ_INT(history_append(&h, &d, &c, 100, 7, &sample), 0);   /* one sample per block */
    history_unlock(&h);
    cv_record entered = {200, cv_record_meta(EVENT_MONITOR_ENTERED, 0, 0), 7, 0, 0};
    ring_write(ring, &entered);
    cv_record enter2 = {300, cv_record_meta(EVENT_MONITOR_ENTER, 0, 3), 7, 0, 0};
    ring_write(ring, &enter2);
    cv_record entered2 = {400, cv_record_meta(EVENT_MONITOR_ENTERED, 0, 0), 7, 0, 0};
    ring_write(ring, &entered2);
    cv_record late = sample;
    late.ts = 350;
    history_lock(&h);
    CHECK_EQ_U64(history_drain_ring(&h, ring, &c, &d), 3);
    CHECK_EQ_INT(history_append(&h, &d, &c, 300, 7, &late), 0);     /* that block has ended */
    history_unlock(&h);
    ring_content got;
    read_ring(&h, 4, &got);
    CHECK_EQ_U64(got.n, 5);
    CHECK(memcmp(&got.records[1], &sample, sizeof(cv_record)) == 0);
    CHECK_EQ_U64(got.records[2].ts, 200);
    /* the block's time still adds up in the totals once it ends */
    size_t n = 0;
    history_lock(&h);
    cv_total *t = history_totals_copy(&h, &n);
    history_unlock(&h);
    uint64_t blocked = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].kind == TOTAL_BLOCKED) blocked += t[i].total_ns;
    }
    CHECK_EQ_U64(blocked, 100 + 100);
    free(t);
    free(ring);
    history_destroy(&h);
}

/* Per chunk of a pinned history, for one ring: the prior of its first 'T' entry there (-1: none)
 * and what the chunk holds of it (records kept and records of loss entries). */
typedef struct {
    int64_t  prior[16];
    uint64_t held[16];
    size_t   chunks;
} ring_priors;

static void read_priors(cv_history *h, uint64_t ring_id, ring_priors *out) {
    memset(out, 0, sizeof(*out));
    cv_hist_view v;
    history_lock(h);
    CHECK_EQ_INT(history_pin(h, &v), 0);
    history_unlock(h);
    for (size_t i = 0; i < v.count && i < 16; i++) {
        out->prior[i] = -1;
        cv_hist_reader r;
        history_reader(&r, v.chunks[i]->data, v.used[i]);
        int kind;
        while ((kind = history_next(&r)) > 0) {
            if (kind == HIST_THREAD && r.thread.ring_id == ring_id && out->prior[i] < 0) {
                out->prior[i] = (int64_t)r.thread.prior;
            } else if (kind == HIST_RUN && r.ring_id == ring_id) {
                cv_record x;
                while (history_record(&r, &x) > 0) out->held[i]++;
            } else if (kind == HIST_LOSS && r.ring_id == ring_id) {
                out->held[i] += r.records;
            }
        }
        CHECK_EQ_INT(kind, 0);
        out->chunks++;
    }
    history_unpin(h, &v);
}

static void write_n(cv_ring *ring, uint64_t *ts, int n) {
    for (int i = 0; i < n; i++) {
        cv_record r = rec((*ts)++, 3, 0, 1, 0, 0);
        ring_write(ring, &r);
    }
}

TEST(history_thread_entries_say_how_many_of_the_threads_records_the_chunks_before_hold) {
    cv_history h;
    history_init(&h, 1 << 20, 0);
    cv_ring *a = new_ring(8), *b = new_ring(64);
    cv_hist_cursor ca = {0}, cb = {0};
    cv_hist_thread da = desc(1, "a"), db = desc(2, "b");
    uint64_t ts = 100;
    /* chunk 1: a 5 kept, b 3 kept */
    write_n(a, &ts, 5);
    write_n(b, &ts, 3);
    history_lock(&h);
    history_drain_ring(&h, a, &ca, &da);
    history_drain_ring(&h, b, &cb, &db);
    history_seal(&h);
    history_unlock(&h);
    /* chunk 2: a 20 written, 12 overwritten (the loss, pending when its 'T' entry is written) */
    write_n(a, &ts, 20);
    history_lock(&h);
    history_drain_ring(&h, a, &ca, &da);
    history_seal(&h);
    history_unlock(&h);
    /* chunk 3: b blocks, and the recorder appends a sample of its own (it counts as written) */
    cv_record enter = {ts++, cv_record_meta(EVENT_MONITOR_ENTER, FLAG_OWNER, 3), 9, 0, 12};
    ring_write(b, &enter);
    cv_record sample = {ts++, cv_record_meta(EVENT_OWNER_SAMPLE, 0, 4), 9, 12, 8};
    history_lock(&h);
    history_drain_ring(&h, b, &cb, &db);
    CHECK_EQ_INT(history_append(&h, &db, &cb, enter.ts, 9, &sample), 1);
    history_seal(&h);
    history_unlock(&h);
    /* chunk 4: a 3 kept, b 1 kept, and a evicted: a 'T' entry of its own */
    write_n(a, &ts, 3);
    write_n(b, &ts, 1);
    history_lock(&h);
    history_drain_ring(&h, a, &ca, &da);
    history_drain_ring(&h, b, &cb, &db);
    history_thread(&h, &da, &ca);
    history_unlock(&h);
    ring_priors pa, pb;
    read_priors(&h, 1, &pa);
    read_priors(&h, 2, &pb);
    CHECK_EQ_U64(pa.chunks, 4);
    int64_t want_a[4] = {0, 5, -1, 25};
    uint64_t held_a[4] = {5, 20, 0, 3};
    int64_t want_b[4] = {0, -1, 3, 5};
    uint64_t held_b[4] = {3, 0, 2, 1};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_U64((uint64_t)pa.prior[i], (uint64_t)want_a[i]);
        CHECK_EQ_U64(pa.held[i], held_a[i]);
        CHECK_EQ_U64((uint64_t)pb.prior[i], (uint64_t)want_b[i]);
        CHECK_EQ_U64(pb.held[i], held_b[i]);
    }
    /* A reset (threads_history_clear): what was written before is neither kept nor lost. */
    history_lock(&h);
    history_clear(&h, ts);
    memset(&ca, 0, sizeof(ca));
    ca.drained = da.base = ring_written(a);
    history_unlock(&h);
    write_n(a, &ts, 4);
    history_lock(&h);
    history_drain_ring(&h, a, &ca, &da);
    history_seal(&h);
    history_unlock(&h);
    write_n(a, &ts, 2);
    history_lock(&h);
    history_drain_ring(&h, a, &ca, &da);
    history_unlock(&h);
    read_priors(&h, 1, &pa);
    CHECK_EQ_U64(pa.chunks, 2);
    CHECK_EQ_U64((uint64_t)pa.prior[0], 0);
    CHECK_EQ_U64(pa.held[0], 4);
    CHECK_EQ_U64((uint64_t)pa.prior[1], 4);
    free(a);
    free(b);
    history_destroy(&h);
}
