#include "capture_frames.h"

#include <stdint.h>
#include <string.h>

_Static_assert(sizeof(agct_frame) == sizeof(cv_frame), "AsyncGetCallTrace frames convert in place");

int capture_convert(void *buf, int n, int skip) {
    if (n <= skip) return 0;
    /* Frame i moves to i - skip: each is read before its slot or a later one is written. */
    unsigned char *raw = buf;
    for (int i = skip; i < n; i++) {
        agct_frame a;
        memcpy(&a, raw + (size_t)i * sizeof(agct_frame), sizeof(a));
        if (a.method_id == NULL) return CONVERT_NO_METHOD;
        if (a.lineno < 0 && a.lineno != AGCT_NATIVE_BCI) return CONVERT_NO_BCI;
        cv_frame c;
        c.method = (uint64_t)(uintptr_t)a.method_id;
        c.location = a.lineno == AGCT_NATIVE_BCI ? -1 : (int64_t)a.lineno;
        memcpy(raw + (size_t)(i - skip) * sizeof(cv_frame), &c, sizeof(c));
    }
    return n - skip;
}
