/*
 * Growable little-endian byte buffer used to encode snapshots (never on the event
 * path). An allocation failure sets `failed`; later writes are ignored and the caller
 * checks `failed` once at the end. It grows by half its size (capacity at most 1.5 times
 * the length, plus what buf_reserve asked for), and never past `limit` if set: a write
 * that would pass it sets `failed` and `too_big`, so an oversized snapshot is refused while
 * it is built, not after.
 */
#ifndef CONVOY_BUF_H
#define CONVOY_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *data;
    size_t   len;
    size_t   cap;
    size_t   limit;   /* largest length allowed; 0 = no limit */
    int      failed;
    int      too_big; /* failed because of `limit` */
} cv_buf;

void buf_init(cv_buf *b);
void buf_free(cv_buf *b);
void buf_bytes(cv_buf *b, const void *p, size_t n);
/* Makes room for n more bytes in one allocation; 0 if it failed (then `failed` is set). */
int buf_reserve(cv_buf *b, size_t n);
/* The address where the next n bytes go (room made), or NULL (failed). Write them, then
 * buf_advance by the number written (at most n). */
uint8_t *buf_claim(cv_buf *b, size_t n);
void buf_advance(cv_buf *b, size_t n);
void buf_u8(cv_buf *b, uint8_t v);
void buf_u16(cv_buf *b, uint16_t v);
void buf_u32(cv_buf *b, uint32_t v);
void buf_u64(cv_buf *b, uint64_t v);
/* u32 length, then the bytes of s (NULL writes an empty string). */
void buf_str(cv_buf *b, const char *s);
/* Overwrites 4 bytes at `at` (already written). */
void buf_patch_u32(cv_buf *b, size_t at, uint32_t v);
void buf_patch_u64(cv_buf *b, size_t at, uint64_t v);

/* Sections: begin returns a mark; end fills in length and CRC-32 of the payload. */
size_t buf_section_begin(cv_buf *b, uint32_t tag);
void buf_section_end(cv_buf *b, size_t mark);
/* A section whose payload starts with a u32 entry count, filled in at the end. */
size_t buf_counted_section_begin(cv_buf *b, uint32_t tag);
void buf_counted_section_end(cv_buf *b, size_t mark, uint32_t count);

/* CRC-32 (ISO-HDLC), as zlib and java.util.zip.CRC32. */
uint32_t cv_crc32(const uint8_t *p, size_t n);

#endif
