#include "ring.h"
#include "arch.h"

size_t ring_bytes(uint32_t capacity) {
    return sizeof(cv_ring) + (size_t)capacity * sizeof(cv_slot);
}

uint32_t ring_capacity_for(size_t bytes) {
    if (bytes <= sizeof(cv_ring)) return 0;
    size_t n = (bytes - sizeof(cv_ring)) / sizeof(cv_slot);
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

void ring_init(cv_ring *ring, uint32_t capacity) {
    ring->capacity = capacity;
    ring->pad = 0;
    store_relaxed(&ring->head, 0);
    store_relaxed(&ring->dropped, 0);
    ring->base = 0;
    /* The slots are left as they are: see "Never-written slots" in ring.h. */
}

void ring_write(cv_ring *ring, const cv_record *rec) {
    uint64_t i = load_relaxed(&ring->head);
    CV_ASSERT(ring->capacity > 0 && ring->base <= i);
    cv_slot *slot = &ring->slots[i % ring->capacity];
    store_relaxed(&slot->seq, 2 * i + 1);
    fence_release();
    store_relaxed(&slot->w[0], rec->ts);
    store_relaxed(&slot->w[1], rec->meta);
    store_relaxed(&slot->w[2], rec->obj);
    store_relaxed(&slot->w[3], (uint64_t)rec->arg);
    store_relaxed(&slot->w[4], (uint64_t)rec->arg2);
    store_release(&slot->seq, 2 * i + 2);
    store_release(&ring->head, i + 1);
}

uint64_t ring_lost(const cv_ring *ring, uint64_t written) {
    uint64_t lapped = written > ring->capacity ? written - ring->capacity : 0;
    return lapped > ring->base ? lapped : ring->base;
}

void ring_grow_into(const cv_ring *from, cv_ring *to, uint32_t capacity) {
    uint64_t head = load_relaxed(&from->head);
    uint64_t first = ring_lost(from, head);
    CV_ASSERT(capacity >= from->capacity && first <= head);
    if (head - first > capacity) first = head - capacity;
    to->capacity = capacity;
    to->pad = 0;
    to->base = first;
    for (uint64_t i = first; i < head; i++) {
        const cv_slot *a = &from->slots[i % from->capacity];
        cv_slot *b = &to->slots[i % capacity];
        for (int k = 0; k < CV_RECORD_WORDS; k++) store_relaxed(&b->w[k], load_relaxed(&a->w[k]));
        store_relaxed(&b->seq, 2 * i + 2);
    }
    store_relaxed(&to->dropped, load_relaxed(&from->dropped));
    store_relaxed(&to->head, head);
}

void ring_drop(cv_ring *ring) {
    store_relaxed(&ring->dropped, load_relaxed(&ring->dropped) + 1);
}

/* Copies record i if it is still committed (ring.h's reader protocol). */
static inline int read_record(const cv_ring *ring, uint64_t i, cv_record *r) {
    const cv_slot *slot = &ring->slots[i % ring->capacity];
    uint64_t expect = 2 * i + 2;
    uint64_t before = load_acquire(&slot->seq);
    if (before != expect) return 0;
    r->ts   = load_relaxed(&slot->w[0]);
    r->meta = load_relaxed(&slot->w[1]);
    r->obj  = load_relaxed(&slot->w[2]);
    r->arg  = (int64_t)load_relaxed(&slot->w[3]);
    r->arg2 = (int64_t)load_relaxed(&slot->w[4]);
    fence_acquire();
    return load_relaxed(&slot->seq) == before;
}

int ring_read_at(const cv_ring *ring, uint64_t i, cv_record *r) {
    /* Only records below a head the caller loaded, and not lost (ring.h). */
    CV_ASSERT(i < load_acquire(&ring->head) && i >= ring->base);
    return read_record(ring, i, r);
}

static inline void put_le64(uint8_t *p, uint64_t v) {
    for (int k = 0; k < 8; k++) p[k] = (uint8_t)(v >> (8 * k));
}

_Static_assert(sizeof(cv_record) == CV_RECORD_BYTES && CV_RECORD_BYTES == 8 * CV_RECORD_WORDS, "record size");
_Static_assert(sizeof(cv_slot) == 8 * (CV_RECORD_WORDS + 1), "slot size");

void ring_encode(const cv_record *r, uint8_t *p) {
    put_le64(p, r->ts);
    put_le64(p + 8, r->meta);
    put_le64(p + 16, r->obj);
    put_le64(p + 24, (uint64_t)r->arg);
    put_le64(p + 32, (uint64_t)r->arg2);
}

uint32_t ring_read_encoded(const cv_ring *ring, uint8_t *out, uint32_t max, uint64_t since,
                           uint64_t *written, uint64_t *torn, cv_record *last) {
    uint64_t head = load_acquire(&ring->head);
    uint64_t start = ring_lost(ring, head);
    uint32_t n = 0;
    uint64_t skipped = 0;
    CV_ASSERT(start <= head);
    for (uint64_t i = start; i < head && n < max; i++) {
        cv_record r;
        if (!read_record(ring, i, &r)) { skipped++; continue; }
        if (r.ts < since) continue;
        ring_encode(&r, out + (size_t)n * CV_RECORD_BYTES);
        if (last) *last = r;
        n++;
    }
    if (written) *written = head;
    if (torn) *torn = skipped;
    return n;
}

uint64_t ring_written(const cv_ring *ring) {
    return load_acquire(&ring->head);
}

uint64_t ring_overwritten(const cv_ring *ring) {
    return ring_lost(ring, load_acquire(&ring->head));
}

uint64_t ring_dropped(const cv_ring *ring) {
    return load_relaxed(&ring->dropped);
}
