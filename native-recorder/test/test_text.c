#include "check.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

TEST(name_short_is_kept_whole) {
    char *d = cv_name_dup("worker-1", CV_NAME_MAX_BYTES);
    CHECK(d && strcmp(d, "worker-1") == 0);
    free(d);
    d = cv_name_dup(NULL, CV_NAME_MAX_BYTES);
    CHECK(d && strcmp(d, "") == 0);
    free(d);
}

TEST(name_of_64k_is_cut_to_1k_with_a_mark) {
    size_t len = 64 * 1024;
    char *s = malloc(len + 1);
    CHECK(s != NULL);
    if (!s) return;
    memset(s, 'x', len);
    s[len] = '\0';
    char *d = cv_name_dup(s, CV_NAME_MAX_BYTES);
    CHECK(d != NULL);
    if (d) {
        CHECK_EQ_U64(strlen(d), CV_NAME_MAX_BYTES);
        CHECK(strcmp(d + CV_NAME_MAX_BYTES - 3, CV_NAME_CUT_MARK) == 0);
        CHECK(d[CV_NAME_MAX_BYTES - 4] == 'x');
    }
    free(d);
    /* Exactly at the limit: kept whole, no mark. */
    s[CV_NAME_MAX_BYTES] = '\0';
    d = cv_name_dup(s, CV_NAME_MAX_BYTES);
    CHECK(d && strlen(d) == CV_NAME_MAX_BYTES && d[CV_NAME_MAX_BYTES - 1] == 'x');
    free(d);
    free(s);
}

/* 'é' is C3 A9; a cut that would fall between its bytes keeps the character out. */
TEST(name_is_cut_on_a_character_boundary) {
    const char *s = "ab\xC3\xA9\xC3\xA9\xC3\xA9";   /* 8 bytes */
    int cut = 0;
    CHECK_EQ_U64(cv_name_keep(s, 8, 8, &cut), 8);
    CHECK(!cut);
    CHECK_EQ_U64(cv_name_keep(s, 8, 7, &cut), 4);   /* "abé" */
    CHECK(cut);
    CHECK_EQ_U64(cv_name_keep(s, 8, 6, &cut), 2);   /* "ab": 3 would split the first é */
    char *d = cv_name_dup(s, 6);
    CHECK(d && strcmp(d, "ab" CV_NAME_CUT_MARK) == 0);
    free(d);
}

/* A supplementary character is two 3-byte surrogates in modified UTF-8 (ED A0..AF xx, then
 * ED B0..BF xx): the cut never keeps the high half without the low one. */
TEST(name_cut_never_splits_a_surrogate_pair) {
    const char *s = "a\xED\xA0\xBD\xED\xB8\x80zzzz";   /* 'a', U+1F600 as a surrogate pair, "zzzz" */
    int cut = 0;
    size_t len = strlen(s);
    CHECK_EQ_U64(cv_name_keep(s, len, 7, &cut), 1);   /* 4 bytes before the mark: "a" + high half */
    CHECK(cut);
    CHECK_EQ_U64(cv_name_keep(s, len, 10, &cut), 7);  /* 7 before the mark: the whole pair */
    CHECK(cut);
}
