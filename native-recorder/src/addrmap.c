#include "addrmap.h"

#include "arch.h"

#include <stdlib.h>

#define GRANULE_SHIFT 20
#define MAX_GRANULES  64
#define KEY_EMPTY     0
#define KEY_TOMB      UINT64_MAX
#define READ_TRIES    4

typedef struct {
    uint64_t key;   /* granule + 1, KEY_EMPTY or KEY_TOMB */
    uint64_t lo, hi;
    int64_t  tid;
} slot;

typedef struct {
    uint64_t lo, hi;
    int64_t  tid;
} range;

struct cv_addrmap {
    uint64_t seq;          /* odd while a writer changes the slots */
    uint32_t mask;
    uint32_t used, tombs;  /* writer only */
    uint32_t nranges, max_ranges;
    range   *ranges;       /* writer only: the authoritative list */
    slot    *slots;
};

static inline uint32_t hash_granule(uint64_t g) {
    g ^= g >> 33;
    g *= 0xff51afd7ed558ccdull;
    g ^= g >> 33;
    return (uint32_t)g;
}

cv_addrmap *addrmap_create(unsigned slot_bits) {
    if (slot_bits < 4 || slot_bits > 24) return NULL;
    cv_addrmap *m = calloc(1, sizeof(*m));
    if (!m) return NULL;
    uint32_t n = 1u << slot_bits;
    m->mask = n - 1;
    m->max_ranges = n / 4;
    m->slots = calloc(n, sizeof(slot));
    m->ranges = calloc(m->max_ranges, sizeof(range));
    if (!m->slots || !m->ranges) {
        addrmap_destroy(m);
        return NULL;
    }
    cv_commit(m->slots, n * sizeof(slot));
    cv_commit(m->ranges, m->max_ranges * sizeof(range));
    return m;
}

void addrmap_destroy(cv_addrmap *m) {
    if (!m) return;
    free(m->slots);
    free(m->ranges);
    free(m);
}

size_t addrmap_bytes(unsigned slot_bits) {
    size_t n = (size_t)1 << slot_bits;
    return sizeof(cv_addrmap) + n * sizeof(slot) + n / 4 * sizeof(range);
}

size_t addrmap_memory(const cv_addrmap *m) {
    return addrmap_bytes((unsigned)__builtin_ctz(m->mask + 1));
}

int addrmap_has(const cv_addrmap *m, int64_t tid) {
    for (uint32_t i = 0; i < m->nranges; i++) {
        if (m->ranges[i].tid == tid) return 1;
    }
    return 0;
}

uint32_t addrmap_ranges(const cv_addrmap *m) {
    return m->nranges;
}

void addrmap_range(const cv_addrmap *m, uint32_t i, uint64_t *lo, uint64_t *hi, int64_t *tid) {
    if (lo) *lo = m->ranges[i].lo;
    if (hi) *hi = m->ranges[i].hi;
    if (tid) *tid = m->ranges[i].tid;
}

static void write_begin(cv_addrmap *m) {
    store_relaxed(&m->seq, m->seq + 1);
    fence_release();
}

static void write_end(cv_addrmap *m) {
    store_release(&m->seq, m->seq + 1);
}

static uint32_t granules(const range *r) {
    return (uint32_t)(((r->hi - 1) >> GRANULE_SHIFT) - (r->lo >> GRANULE_SHIFT) + 1);
}

/* Inside a write: enters r once per granule. The caller made sure the slots suffice. */
static void insert(cv_addrmap *m, const range *r) {
    for (uint64_t g = r->lo >> GRANULE_SHIFT; g <= (r->hi - 1) >> GRANULE_SHIFT; g++) {
        uint32_t i = hash_granule(g) & m->mask;
        for (;;) {
            slot *s = &m->slots[i];
            uint64_t k = s->key;
            if (k == KEY_EMPTY || k == KEY_TOMB) {
                if (k == KEY_TOMB) m->tombs--;
                store_relaxed(&s->lo, r->lo);
                store_relaxed(&s->hi, r->hi);
                store_relaxed(&s->tid, r->tid);
                store_relaxed(&s->key, g + 1);
                m->used++;
                break;
            }
            i = (i + 1) & m->mask;
        }
    }
}

/* Inside a write: empties every slot and enters the list again. */
static void rebuild(cv_addrmap *m) {
    for (uint32_t i = 0; i <= m->mask; i++) store_relaxed(&m->slots[i].key, (uint64_t)KEY_EMPTY);
    m->used = m->tombs = 0;
    for (uint32_t i = 0; i < m->nranges; i++) insert(m, &m->ranges[i]);
}

int addrmap_add(cv_addrmap *m, uint64_t lo, uint64_t hi, int64_t tid) {
    if (hi <= lo || tid <= 0) return -1;
    range r = {lo, hi, tid};
    uint32_t need = granules(&r);
    uint32_t limit = (m->mask + 1) / 4 * 3;   /* keeps probe chains short and ends them */
    if (need > MAX_GRANULES || m->nranges == m->max_ranges || m->used + need > limit) return -1;
    write_begin(m);
    if (m->used + m->tombs + need > limit) rebuild(m);
    m->ranges[m->nranges++] = r;
    insert(m, &r);
    write_end(m);
    return 0;
}

void addrmap_remove(cv_addrmap *m, int64_t tid) {
    int changed = 0;
    for (uint32_t i = 0; i < m->nranges;) {
        range *r = &m->ranges[i];
        if (r->tid != tid) {
            i++;
            continue;
        }
        if (!changed) write_begin(m);
        changed = 1;
        for (uint64_t g = r->lo >> GRANULE_SHIFT; g <= (r->hi - 1) >> GRANULE_SHIFT; g++) {
            uint32_t j = hash_granule(g) & m->mask;
            for (;;) {
                slot *s = &m->slots[j];
                if (s->key == KEY_EMPTY) break;
                if (s->key == g + 1 && s->tid == tid && s->lo == r->lo) {
                    store_relaxed(&s->key, (uint64_t)KEY_TOMB);
                    m->used--;
                    m->tombs++;
                    break;
                }
                j = (j + 1) & m->mask;
            }
        }
        *r = m->ranges[--m->nranges];
    }
    if (changed) write_end(m);
}

int64_t addrmap_find(const cv_addrmap *m, uint64_t addr) {
    uint64_t g = addr >> GRANULE_SHIFT;
    for (int attempt = 0; attempt < READ_TRIES; attempt++) {
        uint64_t s1 = load_acquire(&m->seq);
        if (s1 & 1) continue;
        int64_t found = 0;
        uint32_t i = hash_granule(g) & m->mask;
        for (uint32_t n = 0; n <= m->mask; n++) {
            const slot *s = &m->slots[i];
            uint64_t k = load_relaxed(&s->key);
            if (k == KEY_EMPTY) break;
            if (k == g + 1 && addr >= load_relaxed(&s->lo) && addr < load_relaxed(&s->hi)) {
                found = load_relaxed(&s->tid);
                break;
            }
            i = (i + 1) & m->mask;
        }
        fence_acquire();
        if (load_relaxed(&m->seq) == s1) return found;
    }
    return 0;
}
