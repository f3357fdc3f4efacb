#include "buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void buf_init(cv_buf *b) {
    b->data = NULL;
    b->len = b->cap = 0;
    b->limit = 0;
    b->failed = 0;
    b->too_big = 0;
}

void buf_free(cv_buf *b) {
    size_t limit = b->limit;
    free(b->data);
    buf_init(b);
    b->limit = limit;
}

static int reserve(cv_buf *b, size_t n) {
    if (b->failed) return 0;
    if (b->len + n <= b->cap) return 1;
    if (n > SIZE_MAX / 2 - b->len || (b->limit && b->len + n > b->limit)) {
        b->failed = 1;
        b->too_big = 1;
        return 0;
    }
    size_t cap = b->cap ? b->cap + b->cap / 2 : 4096;
    if (cap < b->len + n) cap = b->len + n;
    if (b->limit && cap > b->limit) cap = b->limit;
    uint8_t *d = realloc(b->data, cap);
    if (!d) {
        b->failed = 1;
        return 0;
    }
    b->data = d;
    b->cap = cap;
    return 1;
}

void buf_bytes(cv_buf *b, const void *p, size_t n) {
    if (n == 0 || !reserve(b, n)) return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

int buf_reserve(cv_buf *b, size_t n) {
    return reserve(b, n);
}

uint8_t *buf_claim(cv_buf *b, size_t n) {
    return reserve(b, n) ? b->data + b->len : NULL;
}

void buf_advance(cv_buf *b, size_t n) {
    if (!b->failed) b->len += n;
}

static void put_le(cv_buf *b, uint64_t v, int n) {
    if (!reserve(b, (size_t)n)) return;
    for (int i = 0; i < n; i++) b->data[b->len++] = (uint8_t)(v >> (8 * i));
}

void buf_u8(cv_buf *b, uint8_t v)   { put_le(b, v, 1); }
void buf_u16(cv_buf *b, uint16_t v) { put_le(b, v, 2); }
void buf_u32(cv_buf *b, uint32_t v) { put_le(b, v, 4); }
void buf_u64(cv_buf *b, uint64_t v) { put_le(b, v, 8); }

void buf_str(cv_buf *b, const char *s) {
    size_t n = s ? strlen(s) : 0;
    buf_u32(b, (uint32_t)n);
    buf_bytes(b, s, n);
}

static void patch_le(cv_buf *b, size_t at, uint64_t v, int n) {
    if (b->failed) return;
    for (int i = 0; i < n; i++) b->data[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

void buf_patch_u32(cv_buf *b, size_t at, uint32_t v) { patch_le(b, at, v, 4); }
void buf_patch_u64(cv_buf *b, size_t at, uint64_t v) { patch_le(b, at, v, 8); }

size_t buf_section_begin(cv_buf *b, uint32_t tag) {
    size_t mark = b->len;
    buf_u32(b, tag);
    buf_u32(b, 0);   /* crc32, patched */
    buf_u64(b, 0);   /* length, patched */
    return mark;
}

void buf_section_end(cv_buf *b, size_t mark) {
    if (b->failed) return;
    size_t payload = mark + 16;
    size_t n = b->len - payload;
    buf_patch_u32(b, mark + 4, cv_crc32(b->data + payload, n));
    buf_patch_u64(b, mark + 8, n);
}

size_t buf_counted_section_begin(cv_buf *b, uint32_t tag) {
    size_t mark = buf_section_begin(b, tag);
    buf_u32(b, 0);
    return mark;
}

void buf_counted_section_end(cv_buf *b, size_t mark, uint32_t count) {
    buf_patch_u32(b, mark + 16, count);
    buf_section_end(b, mark);
}

/* Slicing by 8: table[k][b] is the CRC of byte b followed by k zero bytes, so eight bytes fold in
 * with eight look-ups instead of eight dependent steps. */
uint32_t cv_crc32(const uint8_t *p, size_t n) {
    static uint32_t table[8][256];
    static int ready;
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
        /* Idempotent: racing initialisers compute identical tables. */
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            __atomic_store_n(&table[0][i], c, __ATOMIC_RELAXED);
        }
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = __atomic_load_n(&table[0][i], __ATOMIC_RELAXED);
            for (int k = 1; k < 8; k++) {
                c = __atomic_load_n(&table[0][c & 0xFF], __ATOMIC_RELAXED) ^ (c >> 8);
                __atomic_store_n(&table[k][i], c, __ATOMIC_RELAXED);
            }
        }
        __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    }
    uint32_t c = 0xFFFFFFFFu;
    for (; n >= 8; p += 8, n -= 8) {
        uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^ table[4][lo >> 24] ^
            table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^ table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
    }
    for (; n > 0; p++, n--) c = table[0][(c ^ *p) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}
