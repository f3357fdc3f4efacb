#include "text.h"

#include <stdlib.h>
#include <string.h>

static int continuation(unsigned char c) {
    return (c & 0xC0) == 0x80;
}

size_t cv_name_keep(const char *s, size_t len, size_t max, int *cut) {
    *cut = 0;
    if (len <= max) return len;
    *cut = 1;
    const unsigned char *u = (const unsigned char *)s;
    size_t keep = max - (sizeof(CV_NAME_CUT_MARK) - 1);
    /* Back to the start of a character: a byte that is not a continuation byte. */
    while (keep > 0 && continuation(u[keep])) keep--;
    /* Modified UTF-8 encodes a supplementary character as two 3-byte surrogates: a high
     * surrogate (ED A0..AF xx) just before the cut would be left without its low half. */
    if (keep >= 3 && u[keep - 3] == 0xED && u[keep - 2] >= 0xA0 && u[keep - 2] <= 0xAF) keep -= 3;
    return keep;
}

char *cv_name_dup(const char *s, size_t max) {
    if (!s) s = "";
    size_t len = strlen(s);
    int cut = 0;
    size_t keep = cv_name_keep(s, len, max, &cut);
    size_t mark = cut ? sizeof(CV_NAME_CUT_MARK) - 1 : 0;
    char *d = malloc(keep + mark + 1);
    if (!d) return NULL;
    memcpy(d, s, keep);
    memcpy(d + keep, CV_NAME_CUT_MARK, mark);
    d[keep + mark] = '\0';
    return d;
}
