#include "check.h"
#include "frames.h"
#include "stackcache.h"

#include <stdlib.h>
#include <string.h>

/* A "stack": words the checks point at, changed between look-ups as a thread's stack would be. */
static uintptr_t stack_words[8];
static int32_t compile_id;

/* The chain a capture reads: a WORD check per stack word and an INT check (a compile id). */
static int read_words(void *ctx, frames_check *out, int cap) {
    int n = *(int *)ctx;
    if (n < 0) return n;   /* a refusal */
    if (n + 1 > cap) return FRAMES_DEEP;
    for (int i = 0; i < n; i++) {
        out[i].addr = (uintptr_t)&stack_words[i] | FRAMES_WORD;
        out[i].value = stack_words[i];
    }
    out[n].addr = (uintptr_t)&compile_id | FRAMES_INT;
    out[n].value = (uint32_t)compile_id;
    return n + 1;
}

static cv_stack_cache *new_cache(void) {
    cv_stack_cache *c = malloc(sizeof(*c));
    memset(c, 0xA5, sizeof(*c));   /* as a reused block: only what stackcache_clear resets is read */
    stackcache_clear(c);
    for (int i = 0; i < 8; i++) stack_words[i] = 0x7f0000001000u + 16u * (uintptr_t)i;
    compile_id = 1234;
    return c;
}

TEST(stackcache_the_same_chain_hits_and_counts) {
    cv_stack_cache *c = new_cache();
    int n = 4;
    CHECK_EQ_U64(stackcache_find(c, 0), 0);
    CHECK_EQ_U64(stackcache_put(c, 0, 17, read_words, &n), 5);
    CHECK_EQ_U64(stackcache_find(c, 0), 17);
    CHECK_EQ_U64(stackcache_find(c, 0), 17);
    CHECK_EQ_U64(c->hits, 2);
    free(c);
}

TEST(stackcache_any_changed_word_misses) {
    cv_stack_cache *c = new_cache();
    int n = 4;
    stackcache_put(c, 0, 17, read_words, &n);
    stack_words[3] += 8;   /* a return address further down differs */
    CHECK_EQ_U64(stackcache_find(c, 0), 0);
    stack_words[3] -= 8;
    CHECK_EQ_U64(stackcache_find(c, 0), 17);
    compile_id = 1235;     /* another nmethod at the same address */
    CHECK_EQ_U64(stackcache_find(c, 0), 0);
    CHECK_EQ_U64(c->hits, 1);
    free(c);
}

TEST(stackcache_a_stack_taken_with_another_skip_is_another_stack) {
    cv_stack_cache *c = new_cache();
    int n = 4;
    stackcache_put(c, 1, 17, read_words, &n);
    CHECK_EQ_U64(stackcache_find(c, 0), 0);
    CHECK_EQ_U64(stackcache_find(c, 1), 17);
    free(c);
}

TEST(stackcache_refused_chains_and_unknown_stacks_are_not_kept) {
    cv_stack_cache *c = new_cache();
    int n = FRAMES_STUB;
    CHECK_EQ_U64(stackcache_put(c, 0, 17, read_words, &n), (uint64_t)(int64_t)FRAMES_STUB);
    CHECK_EQ_U64(stackcache_find(c, 0), 0);
    n = 4;
    CHECK_EQ_U64(stackcache_put(c, 0, 0, read_words, &n), 0);   /* the stack table was full */
    CHECK_EQ_U64(stackcache_find(c, 0), 0);
    n = CV_STACK_CACHE_CHECKS;                                     /* one check too many */
    CHECK_EQ_U64(stackcache_put(c, 0, 17, read_words, &n), (uint64_t)(int64_t)FRAMES_DEEP);
    CHECK_EQ_U64(stackcache_find(c, 0), 0);
    free(c);
}

TEST(stackcache_a_miss_replaces_the_entries_in_turn) {
    cv_stack_cache *c = new_cache();
    int n = 2;
    for (uint32_t id = 1; id <= CV_STACK_CACHE; id++) {
        stack_words[0] = id;   /* a different stack each time */
        stackcache_put(c, 0, id, read_words, &n);
    }
    for (uint32_t id = 1; id <= CV_STACK_CACHE; id++) {
        stack_words[0] = id;
        CHECK_EQ_U64(stackcache_find(c, 0), id);
    }
    stack_words[0] = 99;
    stackcache_put(c, 0, 99, read_words, &n);   /* replaces the oldest: id 1 */
    CHECK_EQ_U64(stackcache_find(c, 0), 99);
    stack_words[0] = 1;
    CHECK_EQ_U64(stackcache_find(c, 0), 0);
    stack_words[0] = 2;
    CHECK_EQ_U64(stackcache_find(c, 0), 2);
    free(c);
}

TEST(frames_refusals_have_names) {
    CHECK(strcmp(frames_refusal_name(FRAMES_NO_JAVA), "nojava") == 0);
    CHECK(strcmp(frames_refusal_name(FRAMES_INTERPRETED), "interpreted") == 0);
    CHECK(strcmp(frames_refusal_name(0), "?") == 0);
    CHECK(strcmp(frames_refusal_name(-FRAMES_REFUSALS - 1), "?") == 0);
}
