#include "buf.h"
#include "check.h"

#include <string.h>

TEST(crc32_matches_the_standard_check_value) {
    const char *s = "123456789";
    CHECK_EQ_U64(cv_crc32((const uint8_t *)s, strlen(s)), 0xCBF43926u);
    CHECK_EQ_U64(cv_crc32(NULL, 0), 0);
}

/* The CRC one bit at a time, as the polynomial defines it. */
static uint32_t crc32_bitwise(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
}

TEST(crc32_equals_the_bitwise_crc_at_every_length_and_alignment) {
    uint8_t data[300];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof(data); i++) {
        x = x * 1103515245u + 12345u;
        data[i] = (uint8_t)(x >> 16);
    }
    for (size_t off = 0; off < 8; off++) {
        for (size_t n = 0; n + off <= sizeof(data); n += 1 + n / 16) {
            CHECK_EQ_U64(cv_crc32(data + off, n), crc32_bitwise(data + off, n));
        }
    }
}

TEST(buf_writes_little_endian_and_sections) {
    cv_buf b;
    buf_init(&b);
    buf_u16(&b, 0x0102);
    size_t mark = buf_section_begin(&b, 7);
    buf_u32(&b, 0xA1B2C3D4u);
    buf_str(&b, "hi");
    buf_section_end(&b, mark);
    CHECK(!b.failed);
    CHECK_EQ_U64(b.len, 2 + 16 + 4 + 4 + 2);
    CHECK(b.data[0] == 0x02 && b.data[1] == 0x01);
    CHECK(b.data[2] == 7);                            /* tag */
    CHECK_EQ_U64(b.data[10], 10);                     /* payload length, low byte */
    uint32_t crc = (uint32_t)b.data[6] | (uint32_t)b.data[7] << 8 | (uint32_t)b.data[8] << 16 |
                   (uint32_t)b.data[9] << 24;
    CHECK_EQ_U64(crc, cv_crc32(b.data + 18, 10));
    CHECK(b.data[18] == 0xD4 && b.data[21] == 0xA1);
    CHECK(b.data[22] == 2 && memcmp(b.data + 26, "hi", 2) == 0);
    buf_free(&b);
}

TEST(buf_grows_past_its_first_block) {
    cv_buf b;
    buf_init(&b);
    for (uint32_t i = 0; i < 100000; i++) buf_u32(&b, i);
    CHECK(!b.failed);
    CHECK_EQ_U64(b.len, 400000);
    CHECK(b.data[399996] == (99999 & 0xFF));
    buf_free(&b);
}

TEST(counted_section_fills_in_its_count) {
    cv_buf b;
    buf_init(&b);
    size_t mark = buf_counted_section_begin(&b, 3);
    buf_u64(&b, 7);
    buf_u64(&b, 8);
    buf_counted_section_end(&b, mark, 2);
    CHECK(!b.failed);
    CHECK_EQ_U64(b.len, 16 + 4 + 16);
    CHECK_EQ_U64(b.data[8], 20);                      /* payload: count + two u64 */
    CHECK_EQ_U64(b.data[16], 2);                      /* the count */
    uint32_t crc = (uint32_t)b.data[4] | (uint32_t)b.data[5] << 8 | (uint32_t)b.data[6] << 16 |
                   (uint32_t)b.data[7] << 24;
    CHECK_EQ_U64(crc, cv_crc32(b.data + 16, 20));
    buf_free(&b);
}

TEST(buf_limit_refuses_growth_past_it_while_building) {
    cv_buf b;
    buf_init(&b);
    b.limit = 10000;
    for (int i = 0; i < 1250; i++) buf_u64(&b, (uint64_t)i);
    CHECK(!b.failed);
    CHECK_EQ_U64(b.len, 10000);
    CHECK(b.cap <= 10000);
    buf_u8(&b, 1);
    CHECK(b.failed);
    CHECK(b.too_big);
    buf_free(&b);
    CHECK_EQ_U64(b.limit, 10000);           /* a freed buffer keeps its limit */
    CHECK(!b.failed);
}

TEST(buf_claim_and_advance_write_in_place) {
    cv_buf b;
    buf_init(&b);
    buf_u8(&b, 9);
    uint8_t *p = buf_claim(&b, 100);
    CHECK(p != NULL);
    if (!p) return;
    p[0] = 1;
    p[1] = 2;
    buf_advance(&b, 2);
    CHECK_EQ_U64(b.len, 3);
    CHECK_EQ_U64(b.data[2], 2);
    buf_free(&b);
}
