/*
 * Bounded copies of names (pure C, unit-tested in test/test_text.c).
 *
 * Thread and thread group names come from JVMTI in modified UTF-8 and can be of any
 * length; the recorder keeps at most CV_NAME_MAX_BYTES bytes of each. A longer name is cut
 * on a character boundary (never inside a multi-byte sequence, nor between the two halves
 * of a surrogate pair) and ends with CV_NAME_CUT_MARK, "…" (U+2026), within the limit.
 */
#ifndef CONVOY_TEXT_H
#define CONVOY_TEXT_H

#include <stddef.h>

#define CV_NAME_MAX_BYTES 1024
#define CV_NAME_CUT_MARK "\xE2\x80\xA6"   /* U+2026, 3 bytes in (modified) UTF-8 */

/* How many bytes of s (length len) to keep so that they, plus the cut mark if cut, fit in
 * max bytes: len itself if len <= max. Sets *cut. max must be at least 3 + 6. */
size_t cv_name_keep(const char *s, size_t len, size_t max, int *cut);

/* A malloc'ed copy of s ("" for NULL) of at most max bytes, cut and marked as above.
 * NULL if memory runs out. */
char *cv_name_dup(const char *s, size_t max);

#endif
