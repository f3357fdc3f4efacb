#include "stacks.h"
#include "arch.h"

#include <stdlib.h>
#include <string.h>

/* Entry layout in 64-bit words: [hash][depth | flags << 32][method, location]*depth */
#define ENTRY_HEADER_WORDS 2
#define MAX_PROBES 128

struct cv_stacks {
    uint64_t *arena;
    uint64_t  arena_words;
    uint64_t  top;          /* next free word; relaxed fetch-add */
    uint32_t *buckets;      /* entry offset + 1, 0 = empty */
    uint32_t  mask;
    uint64_t  dropped;
    uint64_t  wasted;
    size_t    bytes;
};

cv_stacks *stacks_create(size_t bytes) {
    if (bytes < 4096) bytes = 4096;
    cv_stacks *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    /* One bucket (4 bytes) per 16 arena words (128 bytes), rounded to a power of two. */
    uint64_t nb = 1;
    while (nb * 4 + nb * 128 < bytes) nb <<= 1;
    nb >>= 1;
    if (nb < 64) nb = 64;
    uint64_t words = (bytes - nb * 4) / 8;
    if (words > UINT32_MAX - 1) words = UINT32_MAX - 1;
    t->buckets = calloc(nb, sizeof(uint32_t));
    t->arena = malloc(words * sizeof(uint64_t));
    if (!t->buckets || !t->arena) {
        free(t->buckets);
        free(t->arena);
        free(t);
        return NULL;
    }
    cv_commit(t->buckets, nb * sizeof(uint32_t));
    cv_commit(t->arena, words * sizeof(uint64_t));
    t->arena_words = words;
    t->mask = (uint32_t)(nb - 1);
    t->bytes = nb * 4 + words * 8;
    return t;
}

void stacks_destroy(cv_stacks *t) {
    if (!t) return;
    free(t->buckets);
    free(t->arena);
    free(t);
}

static uint64_t hash_frames(const cv_frame *f, uint32_t depth, uint32_t flags) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ depth ^ ((uint64_t)flags << 40);
    for (uint32_t i = 0; i < depth; i++) {
        h ^= f[i].method;
        h *= 0xFF51AFD7ED558CCDull;
        h ^= (uint64_t)f[i].location + (h >> 29);
        h *= 0xC4CEB9FE1A85EC53ull;
    }
    h ^= h >> 33;
    return h;
}

static int entry_equals(const uint64_t *e, uint64_t hash, const cv_frame *f,
                        uint32_t depth, uint32_t flags) {
    if (e[0] != hash) return 0;
    if (e[1] != ((uint64_t)depth | ((uint64_t)flags << 32))) return 0;
    return memcmp(e + ENTRY_HEADER_WORDS, f, (size_t)depth * sizeof(cv_frame)) == 0;
}

uint32_t stacks_intern(cv_stacks *t, const cv_frame *frames, uint32_t depth, uint32_t flags) {
    uint64_t hash = hash_frames(frames, depth, flags);
    uint64_t need = ENTRY_HEADER_WORDS + 2ull * depth;
    uint32_t mine = 0; /* our written-but-unpublished entry, offset + 1 */
    uint32_t idx = (uint32_t)hash & t->mask;
    for (int probe = 0; probe < MAX_PROBES; probe++, idx = (idx + 1) & t->mask) {
        uint32_t v = load_acquire(&t->buckets[idx]);
        if (v == 0) {
            if (mine == 0) {
                uint64_t off = fetch_add_relaxed(&t->top, need);
                if (off + need > t->arena_words) {
                    fetch_add_relaxed(&t->dropped, 1);
                    return 0;
                }
                uint64_t *e = t->arena + off;
                e[0] = hash;
                e[1] = (uint64_t)depth | ((uint64_t)flags << 32);
                memcpy(e + ENTRY_HEADER_WORDS, frames, (size_t)depth * sizeof(cv_frame));
                mine = (uint32_t)(off + 1);
            }
            uint32_t expected = 0;
            if (cas_acq_rel(&t->buckets[idx], &expected, mine)) return mine;
            v = expected;
        }
        if (entry_equals(t->arena + (v - 1), hash, frames, depth, flags)) {
            if (mine) fetch_add_relaxed(&t->wasted, need);
            return v;
        }
    }
    if (mine) fetch_add_relaxed(&t->wasted, need);
    fetch_add_relaxed(&t->dropped, 1);
    return 0;
}

void stacks_foreach(cv_stacks *t, cv_stack_visitor visit, void *ctx) {
    for (uint64_t i = 0; i <= t->mask; i++) {
        uint32_t v = load_acquire(&t->buckets[i]);
        if (v == 0) continue;
        const uint64_t *e = t->arena + (v - 1);
        visit(ctx, v, (uint32_t)(e[1] >> 32), (const cv_frame *)(e + ENTRY_HEADER_WORDS),
              (uint32_t)e[1]);
    }
}

uint64_t stacks_dropped(const cv_stacks *t) { return load_relaxed(&t->dropped); }
uint64_t stacks_wasted_words(const cv_stacks *t) { return load_relaxed(&t->wasted); }
size_t stacks_memory(const cv_stacks *t) { return t->bytes; }
