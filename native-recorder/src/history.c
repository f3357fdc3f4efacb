#include "history.h"
#include "arch.h"
#include "snapshot_format.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Bytes an entry can take at most, names aside: 13 varints of 10 bytes and a tag. */
#define ENTRY_FIXED_MAX 144
/* A record: 6 varints and two bytes. */
#define RECORD_MAX 64

static uint32_t name_len(const char *s, uint32_t len) {
    return s ? (len ? len : (uint32_t)strlen(s)) : 0;
}

void history_init(cv_history *h, uint64_t max_bytes, uint64_t max_age_ns) {
    memset(h, 0, sizeof(*h));
    pthread_mutex_init(&h->lock, NULL);
    h->max_bytes = max_bytes;
    h->max_age_ns = max_age_ns;
    uint64_t chunk = max_bytes / 16;
    if (chunk < 64 * 1024) chunk = 64 * 1024;
    if (chunk > 4u << 20) chunk = 4u << 20;
    if (chunk > max_bytes) chunk = max_bytes;
    h->chunk_bytes = (uint32_t)chunk;
    h->next_seq = 1;
    h->max_totals = (size_t)(max_bytes / 16 / sizeof(cv_total));
}

void history_destroy(cv_history *h) {
    free(h->doomed);
    free(h->totals);
    cv_chunk *c = h->head;
    while (c) {
        cv_chunk *next = c->next;
        free(c);
        c = next;
    }
    h->head = h->tail = NULL;
    pthread_mutex_destroy(&h->lock);
}

void history_totals(const cv_history *h, cv_history_totals *out) {
    out->bytes = h->bytes;
    out->max_bytes = h->max_bytes;
    out->max_age_ns = h->max_age_ns;
    out->chunks = h->chunks;
    out->aged_records = h->aged_records;
    out->lost_records = h->lost_records;
    out->from_ns = h->from_ns;
    out->totals_from = h->totals_from;
    out->totals_dropped = h->totals_dropped;
    out->totals_entries = h->ntotals;
    out->added_records = h->added_records;
}

void history_lock(cv_history *h) {
    pthread_mutex_lock(&h->lock);
}

void history_unlock(cv_history *h) {
    pthread_mutex_unlock(&h->lock);
}

/* ---- encoding ---- */

static inline uint8_t *put_varint(uint8_t *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline uint64_t zz(int64_t v) {
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzz(uint64_t v) {
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint32_t room(const cv_chunk *c) {
    return c ? c->cap - c->used : 0;
}

/* Closes the open run: its count is patched in. */
static void close_run(cv_history *h) {
    if (!h->run_count_at) return;
    uint8_t *p = h->tail->data + h->run_count_at;
    for (int k = 0; k < 4; k++) p[k] = (uint8_t)(h->run_count >> (8 * k));
    h->run_count_at = 0;
    h->run_count = 0;
    h->run_desc = NULL;
    h->run_desc_seq = NULL;
}

/* Counts an aged-out chunk's records. */
static void count_aged(cv_history *h, const cv_chunk *c) {
    cv_hist_reader r;
    history_reader(&r, c->data, c->used);
    int kind;
    while ((kind = history_next(&r)) > 0) {
        if (kind == HIST_RUN) h->aged_records += r.left;
    }
    h->aged_chunks++;
    if (c->last_ts > h->from_ns) h->from_ns = c->last_ts;
}

static void doom(cv_history *h, uint64_t seq) {
    if (h->ndoomed == h->capdoomed) {
        size_t cap = h->capdoomed ? h->capdoomed * 2 : 16;
        uint64_t *bigger = realloc(h->doomed, cap * sizeof(uint64_t));
        if (!bigger) return;   /* the file stays: found and deleted by no one, it is still whole */
        h->doomed = bigger;
        h->capdoomed = cap;
    }
    h->doomed[h->ndoomed++] = seq;
}

/* Takes the oldest chunk off the list (it must not be the open run's). */
static void drop_oldest(cv_history *h, int aged) {
    cv_chunk *c = h->head;
    if (!c) return;
    if (c->file == HIST_FILE_WRITTEN && !aged) doom(h, c->seq);   /* a reset; aged, the file outlives it */
    if (c->file == HIST_FILE_PENDING) c->file = HIST_FILE_NONE;   /* gone before it was written */
    h->head = c->next;
    if (h->tail == c) h->tail = NULL;
    h->bytes -= c->cap;
    h->chunks--;
    if (aged) count_aged(h, c);
    if (c->pins) {
        c->aged = 1;
        c->next = NULL;
    } else {
        free(c);
    }
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14 */
#endif

/* Maps the pages of a new chunk at once, in one call, rather than one page fault at a time as the
 * drain fills it (the chunk counts against maxsize whole anyway). A kernel without
 * MADV_POPULATE_WRITE refuses: the pages then come as they are touched. */
static void populate(void *p, size_t n) {
    uintptr_t from = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
    uintptr_t to = ((uintptr_t)p + n) & ~(uintptr_t)4095;
    if (to > from) madvise((void *)from, to - from, MADV_POPULATE_WRITE);
}

/* Seals the current chunk and starts a new one, making room under max_bytes by aging the
 * oldest. 0 if no memory. */
static int new_chunk(cv_history *h) {
    close_run(h);
    if (h->tail && !h->tail->sealed) {
        h->tail->sealed = 1;
        if (h->files) h->tail->file = HIST_FILE_PENDING;
    }
    while (h->head && h->bytes + h->chunk_bytes > h->max_bytes) drop_oldest(h, 1);
    cv_chunk *c = malloc(sizeof(cv_chunk) + h->chunk_bytes);
    if (!c) {
        h->alloc_failures++;
        return 0;
    }
    populate(c, sizeof(cv_chunk) + h->chunk_bytes);
    memset(c, 0, sizeof(*c));
    c->cap = h->chunk_bytes;
    c->seq = h->next_seq++;
    c->prior_total = h->accounted;
    if (h->tail) h->tail->next = c; else h->head = c;
    h->tail = c;
    h->bytes += c->cap;
    h->chunks++;
    return 1;
}

/* Room for `need` bytes in the current chunk, after closing the open run. */
static int reserve(cv_history *h, uint32_t need) {
    close_run(h);
    if (h->tail && !h->tail->sealed && room(h->tail) >= need) return 1;
    return new_chunk(h);
}

/* The thread's records accounted for in the chunks so far (the 'T' entry's prior). */
static uint64_t prior_of(const cv_hist_thread *d, const cv_hist_cursor *c) {
    uint64_t n = c->drained >= d->base ? c->drained - d->base : 0;
    n += c->added;
    return n >= c->pending_lost ? n - c->pending_lost : 0;
}

static void write_thread(cv_history *h, const cv_hist_thread *d, uint64_t prior) {
    cv_chunk *c = h->tail;
    uint8_t *p = c->data + c->used;
    *p++ = HIST_THREAD;
    p = put_varint(p, d->ring_id);
    p = put_varint(p, zz(d->java_tid));
    p = put_varint(p, d->thread_obj);
    p = put_varint(p, d->flags);
    p = put_varint(p, d->start_ns);
    p = put_varint(p, d->end_ns);
    p = put_varint(p, d->written);
    p = put_varint(p, d->dropped);
    p = put_varint(p, d->base);
    p = put_varint(p, prior);
    const char *s[3] = {d->name, d->group, d->parent_group};
    uint32_t n[3] = {name_len(d->name, d->name_len), name_len(d->group, d->group_len),
                     name_len(d->parent_group, d->parent_len)};
    for (int i = 0; i < 3; i++) {
        p = put_varint(p, n[i]);
        if (n[i]) memcpy(p, s[i], n[i]);
        p += n[i];
    }
    c->used = (uint32_t)(p - c->data);
}

static uint32_t thread_bytes(const cv_hist_thread *d) {
    return ENTRY_FIXED_MAX + name_len(d->name, d->name_len) + name_len(d->group, d->group_len) +
           name_len(d->parent_group, d->parent_len);
}

/* The current chunk has room for `need` bytes after the thread's 'T' entry, which is written
 * there if it is not yet. 0 if no memory. */
static int described(cv_history *h, const cv_hist_thread *d, cv_hist_cursor *c, uint32_t need) {
    uint64_t *desc_seq = &c->desc_seq;
    uint32_t tb = thread_bytes(d);
    if (!h->tail || h->tail->sealed || room(h->tail) < need + (*desc_seq == h->tail->seq ? 0 : tb)) {
        if (!reserve(h, need + tb)) return 0;
    }
    if (*desc_seq != h->tail->seq) {
        close_run(h);
        write_thread(h, d, prior_of(d, c));
        *desc_seq = h->tail->seq;
    }
    return 1;
}

void history_thread(cv_history *h, const cv_hist_thread *desc, cv_hist_cursor *c) {
    c->desc_seq = 0;
    described(h, desc, c, 0);
}

static void write_loss(cv_history *h, const cv_hist_thread *d, cv_hist_cursor *c, uint64_t to_ns) {
    if (!described(h, d, c, ENTRY_FIXED_MAX)) return;   /* stays pending */
    close_run(h);
    cv_chunk *k = h->tail;
    uint8_t *p = k->data + k->used;
    *p++ = HIST_LOSS;
    p = put_varint(p, d->ring_id);
    p = put_varint(p, c->pending_from);
    p = put_varint(p, to_ns);
    p = put_varint(p, c->pending_lost);
    k->used = (uint32_t)(p - k->data);
    h->accounted += c->pending_lost;
    c->pending_lost = 0;
    c->pending_from = 0;
}

void history_flush_loss(cv_history *h, const cv_hist_thread *desc, cv_hist_cursor *c, uint64_t to_ns) {
    if (c->pending_lost) write_loss(h, desc, c, to_ns);
}

/* Appends one record to the thread's open run (opening one). 0 if no memory. */
static int append(cv_history *h, const cv_hist_thread *d, cv_hist_cursor *c, const cv_record *r) {
    if (!(h->run_count_at && h->run_ring == d->ring_id && !h->tail->sealed && room(h->tail) >= RECORD_MAX)) {
        if (!described(h, d, c, 16 + RECORD_MAX)) return 0;
        close_run(h);
        cv_chunk *k = h->tail;
        uint8_t *p = k->data + k->used;
        *p++ = HIST_RUN;
        p = put_varint(p, d->ring_id);
        h->run_count_at = (size_t)(p - k->data);
        memset(p, 0, 4);
        p += 4;
        k->used = (uint32_t)(p - k->data);
        h->run_ring = d->ring_id;
        h->run_count = 0;
        h->run_prev_ts = 0;
        h->run_prev_obj = 0;
    }
    cv_chunk *k = h->tail;
    uint8_t *p = k->data + k->used;
    p = put_varint(p, zz((int64_t)(r->ts - h->run_prev_ts)));
    *p++ = (uint8_t)(r->meta & 0xFF);
    *p++ = (uint8_t)((r->meta >> 8) & 0xFF);
    p = put_varint(p, r->meta >> 16);
    p = put_varint(p, zz((int64_t)(r->obj - h->run_prev_obj)));
    p = put_varint(p, zz(r->arg));
    p = put_varint(p, zz(r->arg2));
    k->used = (uint32_t)(p - k->data);
    h->run_prev_ts = r->ts;
    h->run_prev_obj = r->obj;
    h->run_count++;
    h->accounted++;
    if (!k->first_ts || r->ts < k->first_ts) k->first_ts = r->ts;
    if (r->ts > k->last_ts) k->last_ts = r->ts;
    return 1;
}

/* ---- totals ---- */

static size_t total_slot(const cv_history *h, uint64_t ring, uint64_t obj, uint32_t stack, uint32_t kind) {
    uint64_t k = ring * 0x9E3779B97F4A7C15ull ^ obj * 0xC2B2AE3D27D4EB4Full ^ ((uint64_t)stack << 3 | kind);
    size_t i = (size_t)(k ^ (k >> 29)) & (h->cap_totals - 1);
    for (;;) {
        const cv_total *e = &h->totals[i];
        if (!e->kind || (e->ring_id == ring && e->obj == obj && e->stack == stack && e->kind == kind)) return i;
        i = (i + 1) & (h->cap_totals - 1);
    }
}

/* The entry of (ring, obj, stack, kind), made if missing; NULL if the table is full. */
static cv_total *total_entry(cv_history *h, uint64_t ring, uint64_t obj, uint32_t stack, uint32_t kind) {
    if (h->cap_totals) {
        cv_total *e = &h->totals[total_slot(h, ring, obj, stack, kind)];
        if (e->kind) return e;
    }
    if ((h->ntotals + 1) * 2 > h->cap_totals) {
        size_t cap = h->cap_totals ? h->cap_totals * 2 : 256;
        if (cap / 2 > h->max_totals) return NULL;
        cv_total *bigger = calloc(cap, sizeof(cv_total));
        if (!bigger) return NULL;
        cv_total *old = h->totals;
        size_t oldcap = h->cap_totals;
        h->totals = bigger;
        h->cap_totals = cap;
        for (size_t i = 0; i < oldcap; i++) {
            if (old[i].kind) h->totals[total_slot(h, old[i].ring_id, old[i].obj, old[i].stack, old[i].kind)] = old[i];
        }
        free(old);
    }
    cv_total *e = &h->totals[total_slot(h, ring, obj, stack, kind)];
    e->ring_id = ring;
    e->obj = obj;
    e->stack = stack;
    e->kind = kind;
    h->ntotals++;
    return e;
}

/* A record kept: a begin opens, its end adds the time between them to the totals. */
static void total_note(cv_history *h, cv_hist_cursor *c, uint64_t ring, const cv_record *r) {
    uint8_t type = (uint8_t)(r->meta & 0xFF);
    uint8_t flags = (uint8_t)((r->meta >> 8) & 0xFF);
    uint32_t begin = type == EVENT_MONITOR_ENTER ? TOTAL_BLOCKED : type == EVENT_MONITOR_WAIT ? TOTAL_WAITED
                   : type == EVENT_PARK ? ((flags & FLAG_LOCK) ? TOTAL_PARKED_LOCK : TOTAL_PARKED) : 0;
    uint32_t ends = type == EVENT_MONITOR_ENTERED ? TOTAL_BLOCKED : type == EVENT_MONITOR_WAITED ? TOTAL_WAITED
                  : type == EVENT_PARKED ? TOTAL_PARKED : 0;
    if (ends && c->open_kind && (c->open_kind == ends || (ends == TOTAL_PARKED && c->open_kind == TOTAL_PARKED_LOCK))
        && r->ts >= c->open_ts) {
        /* A stream's blocks and waits mostly repeat one monitor and call site: the slot it used last first. */
        cv_total *e = c->total_at < h->cap_totals ? &h->totals[c->total_at] : NULL;
        if (!e || e->kind != c->open_kind || e->ring_id != ring || e->obj != c->open_obj || e->stack != c->open_stack) {
            e = total_entry(h, ring, c->open_obj, c->open_stack, c->open_kind);
            if (e) c->total_at = (uint32_t)(e - h->totals);
        }
        uint64_t d = r->ts - c->open_ts;
        if (e) {
            e->count++;
            e->total_ns += d;
            if (d > e->max_ns) e->max_ns = d;
        } else {
            h->totals_dropped++;
        }
    }
    if (begin) {
        if (begin == TOTAL_BLOCKED || begin == TOTAL_PARKED_LOCK) h->blocks_kept++;
        c->open_kind = begin;
        c->open_ts = r->ts;
        c->open_obj = r->obj;
        c->open_stack = (uint32_t)(r->meta >> 32);
    } else if (ends || type == EVENT_THREAD_END) {
        c->open_kind = 0;   /* ended, or the thread ended */
    }
}

cv_total *history_totals_copy(const cv_history *h, size_t *n) {
    *n = 0;
    if (!h->ntotals) return NULL;
    cv_total *out = malloc(h->ntotals * sizeof(cv_total));
    if (!out) return NULL;
    for (size_t i = 0; i < h->cap_totals; i++) {
        if (h->totals[i].kind) out[(*n)++] = h->totals[i];
    }
    return out;
}

static void note_lost(cv_history *h, cv_hist_cursor *c, uint64_t n) {
    if (!n) return;
    c->open_kind = 0;   /* its end may be among the lost: the time is unknown */
    if (!c->pending_lost) c->pending_from = c->last_ts;
    c->pending_lost += n;
    c->lost += n;
    h->lost_records += n;
}

uint64_t history_drain_ring(cv_history *h, const cv_ring *ring, cv_hist_cursor *c, const cv_hist_thread *desc) {
    uint64_t head = ring_written(ring);
    uint64_t first = ring_lost(ring, head);
    CV_ASSERT(c->drained <= head);   /* the drain's cursor never passes the ring's write index */
    if (c->drained < first) {
        note_lost(h, c, first - c->drained);
        c->drained = first;
    }
    uint64_t moved = 0;
    for (uint64_t i = c->drained; i < head; i++) {
        cv_record r;
        if (!ring_read_at(ring, i, &r)) {
            note_lost(h, c, 1);          /* overwritten while read: the writer lapped the drain */
            c->drained = i + 1;
            continue;
        }
        if (c->pending_lost) {
            write_loss(h, desc, c, r.ts);
            if (c->pending_lost) return moved;   /* no memory: the record stays in the ring */
        }
        if (!append(h, desc, c, &r)) return moved;
        total_note(h, c, desc->ring_id, &r);
        c->last_ts = r.ts;
        c->drained = i + 1;
        moved++;
    }
    return moved;
}

int history_append(cv_history *h, const cv_hist_thread *desc, cv_hist_cursor *c, uint64_t begin_ts,
                   uint64_t begin_obj, const cv_record *r) {
    int open_block = c->open_kind == TOTAL_BLOCKED || c->open_kind == TOTAL_PARKED_LOCK;
    if (!open_block || c->open_ts != begin_ts || c->open_obj != begin_obj || c->last_ts != begin_ts ||
        c->pending_lost) {
        return 0;
    }
    if (!append(h, desc, c, r)) return 0;
    c->added++;
    h->added_records++;
    /* The block stays open (open_kind untouched): its end still adds up in the totals. */
    if (r->ts > c->last_ts) c->last_ts = r->ts;
    return 1;
}

void history_age(cv_history *h, uint64_t now_ns) {
    if (!h->max_age_ns || now_ns < h->max_age_ns) return;
    uint64_t limit = now_ns - h->max_age_ns;
    while (h->head && h->head != h->tail && h->head->last_ts < limit) drop_oldest(h, 1);
}

void history_clear(cv_history *h, uint64_t now_ns) {
    close_run(h);
    while (h->head) drop_oldest(h, 0);
    h->tail = NULL;
    h->aged_records = h->aged_chunks = h->lost_records = h->from_ns = 0;
    h->accounted = 0;
    if (h->cap_totals) memset(h->totals, 0, h->cap_totals * sizeof(cv_total));
    h->ntotals = 0;
    h->totals_dropped = 0;
    h->totals_from = now_ns;
}

void history_files(cv_history *h, int on) {
    h->files = on;
}

void history_seal(cv_history *h) {
    close_run(h);
    if (h->tail && !h->tail->sealed && h->tail->used > 0) {
        h->tail->sealed = 1;
        if (h->files) h->tail->file = HIST_FILE_PENDING;
    }
}

cv_chunk *history_next_to_write(cv_history *h, uint32_t *used) {
    for (cv_chunk *c = h->head; c; c = c->next) {
        if (c->sealed && c->file == HIST_FILE_PENDING) {
            c->pins++;
            *used = c->used;
            return c;
        }
    }
    return NULL;
}

void history_file_done(cv_history *h, cv_chunk *c, int ok) {
    pthread_mutex_lock(&h->lock);
    if (c->aged) {
        if (ok) doom(h, c->seq);   /* aged out while it was written */
    } else {
        c->file = ok ? HIST_FILE_WRITTEN : HIST_FILE_FAILED;
    }
    if (--c->pins == 0 && c->aged) free(c);
    pthread_mutex_unlock(&h->lock);
}

size_t history_take_doomed(cv_history *h, uint64_t *out, size_t cap) {
    size_t n = h->ndoomed < cap ? h->ndoomed : cap;
    if (!n) return 0;
    memcpy(out, h->doomed, n * sizeof(uint64_t));
    memmove(h->doomed, h->doomed + n, (h->ndoomed - n) * sizeof(uint64_t));
    h->ndoomed -= n;
    return n;
}

int history_pin(cv_history *h, cv_hist_view *v) {
    close_run(h);
    memset(v, 0, sizeof(*v));
    size_t n = (size_t)h->chunks;
    v->chunks = calloc(n ? n : 1, sizeof(cv_chunk *));
    v->used = calloc(n ? n : 1, sizeof(uint32_t));
    if (!v->chunks || !v->used) {
        free(v->chunks);
        free(v->used);
        memset(v, 0, sizeof(*v));
        return -1;
    }
    for (cv_chunk *c = h->head; c; c = c->next) {
        c->pins++;
        v->chunks[v->count] = c;
        v->used[v->count] = c->used;
        v->count++;
    }
    return 0;
}

void history_unpin(cv_history *h, cv_hist_view *v) {
    pthread_mutex_lock(&h->lock);
    for (size_t i = 0; i < v->count; i++) {
        cv_chunk *c = v->chunks[i];
        if (--c->pins == 0 && c->aged) free(c);
    }
    pthread_mutex_unlock(&h->lock);
    free(v->chunks);
    free(v->used);
    memset(v, 0, sizeof(*v));
}

/* ---- decoding ---- */

void history_reader(cv_hist_reader *r, const uint8_t *data, uint32_t used) {
    memset(r, 0, sizeof(*r));
    r->p = data;
    r->end = data + used;
}

static int get_varint(cv_hist_reader *r, uint64_t *out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (r->p >= r->end) return 0;
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 1;
        }
    }
    return 0;
}

static int get_str(cv_hist_reader *r, const char **s, uint32_t *len) {
    uint64_t n;
    if (!get_varint(r, &n) || n > (uint64_t)(r->end - r->p)) return 0;
    *s = (const char *)r->p;
    *len = (uint32_t)n;
    r->p += n;
    return 1;
}

int history_record(cv_hist_reader *r, cv_record *out) {
    if (r->kind != HIST_RUN || r->left == 0) return 0;
    uint64_t dts, stack, dobj, arg, arg2;
    if (!get_varint(r, &dts) || r->end - r->p < 2) return -1;
    uint8_t type = r->p[0], flags = r->p[1];
    r->p += 2;
    if (!get_varint(r, &stack) || !get_varint(r, &dobj) || !get_varint(r, &arg) || !get_varint(r, &arg2)) return -1;
    r->prev_ts += (uint64_t)unzz(dts);
    r->prev_obj += (uint64_t)unzz(dobj);
    out->ts = r->prev_ts;
    out->meta = (uint64_t)type | ((uint64_t)flags << 8) | (stack << 16);
    out->obj = r->prev_obj;
    out->arg = unzz(arg);
    out->arg2 = unzz(arg2);
    r->left--;
    return 1;
}

int history_next(cv_hist_reader *r) {
    cv_record skip;
    while (r->kind == HIST_RUN && r->left > 0) {
        if (history_record(r, &skip) < 0) return -1;
    }
    r->kind = 0;
    if (r->p >= r->end) return 0;
    uint8_t tag = *r->p++;
    uint64_t v;
    switch (tag) {
    case HIST_THREAD: {
        cv_hist_thread *d = &r->thread;
        uint64_t tid, flags;
        if (!get_varint(r, &d->ring_id) || !get_varint(r, &tid) || !get_varint(r, &d->thread_obj) ||
            !get_varint(r, &flags) || !get_varint(r, &d->start_ns) || !get_varint(r, &d->end_ns) ||
            !get_varint(r, &d->written) || !get_varint(r, &d->dropped) || !get_varint(r, &d->base) ||
            !get_varint(r, &d->prior) ||
            !get_str(r, &d->name, &d->name_len) || !get_str(r, &d->group, &d->group_len) ||
            !get_str(r, &d->parent_group, &d->parent_len)) {
            return -1;
        }
        d->java_tid = unzz(tid);
        d->flags = (uint32_t)flags;
        break;
    }
    case HIST_RUN:
        if (!get_varint(r, &r->ring_id) || r->end - r->p < 4) return -1;
        r->left = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 | (uint32_t)r->p[3] << 24;
        r->p += 4;
        r->prev_ts = r->prev_obj = 0;
        break;
    case HIST_LOSS:
        if (!get_varint(r, &r->ring_id) || !get_varint(r, &r->from_ns) || !get_varint(r, &r->to_ns) ||
            !get_varint(r, &v)) {
            return -1;
        }
        r->records = v;
        break;
    default:
        return -1;
    }
    r->kind = tag;
    return tag;
}
