#include "capture_frames.h"
#include "check.h"

#include <stdint.h>
#include <string.h>

static jmethodID method(uintptr_t n) {
    return (jmethodID)(0x1000 + n * 16);
}

static void put(agct_frame *f, int i, jint lineno, jmethodID m) {
    f[i].lineno = lineno;
    f[i].method_id = m;
}

TEST(capture_convert_maps_bci_and_native_frames) {
    agct_frame f[3];
    memset(f, 0xAB, sizeof(f));   /* the padding after lineno must not leak into a frame */
    put(f, 0, AGCT_NATIVE_BCI, method(1));   /* Object.wait: native */
    put(f, 1, 7, method(2));
    put(f, 2, 0, method(3));
    CHECK(capture_convert(f, 3, 0) == 3);
    const cv_frame *c = (const cv_frame *)(void *)f;
    CHECK_EQ_U64(c[0].method, (uintptr_t)method(1));
    CHECK(c[0].location == -1);             /* GetStackTrace's location of a native frame */
    CHECK_EQ_U64(c[1].method, (uintptr_t)method(2));
    CHECK(c[1].location == 7);
    CHECK_EQ_U64(c[2].method, (uintptr_t)method(3));
    CHECK(c[2].location == 0);
}

TEST(capture_convert_drops_the_skipped_frames) {
    agct_frame f[4];
    put(f, 0, AGCT_NATIVE_BCI, method(1));   /* park0 */
    put(f, 1, 3, method(2));                 /* the Probes method */
    put(f, 2, 11, method(3));
    put(f, 3, 22, method(4));
    CHECK(capture_convert(f, 4, 2) == 2);
    const cv_frame *c = (const cv_frame *)(void *)f;
    CHECK_EQ_U64(c[0].method, (uintptr_t)method(3));
    CHECK(c[0].location == 11);
    CHECK_EQ_U64(c[1].method, (uintptr_t)method(4));
    CHECK(c[1].location == 22);
    CHECK(capture_convert(f, 2, 2) == 0);
    CHECK(capture_convert(f, 1, 2) == 0);
}

TEST(capture_convert_refuses_what_getstacktrace_would_give_otherwise) {
    agct_frame f[3];
    put(f, 0, 5, method(1));
    put(f, 1, 9, NULL);                      /* no jmethodID yet */
    put(f, 2, 1, method(3));
    CHECK(capture_convert(f, 3, 0) == CONVERT_NO_METHOD);
    put(f, 0, 5, method(1));
    put(f, 1, -1, method(2));                /* a Java frame without a bci */
    put(f, 2, 1, method(3));
    CHECK(capture_convert(f, 3, 0) == CONVERT_NO_BCI);
    /* A refused frame among the skipped ones does not matter. */
    put(f, 0, -1, NULL);
    put(f, 1, 4, method(2));
    CHECK(capture_convert(f, 2, 1) == 1);
}
