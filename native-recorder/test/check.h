/* A minimal unit test harness: TEST(name) registers a test; CHECK records failures. */
#ifndef CONVOY_CHECK_H
#define CONVOY_CHECK_H

#include <stdio.h>

typedef void (*cv_test_fn)(void);
void cv_register_test(const char *name, cv_test_fn fn);
extern int cv_check_failures;

#define TEST(name) \
    static void name(void); \
    __attribute__((constructor)) static void register_##name(void) { cv_register_test(#name, name); } \
    static void name(void)

/* Runs fn(ctx) in a child process: 1 if it died of SIGABRT (a failed CV_ASSERT), else 0. The
 * child's stderr is kept, so the assertion's line shows in the test log. */
int cv_aborts(void (*fn)(void *), void *ctx);

/* Runs fn in a child process: 1 if it exited and every CHECK in it passed. For tests of sources
 * whose process-wide state is decided once (owners.c, vmstructs.c) or shared with other tests
 * (the thread registry and its history): what fn changes stays in the child. */
int cv_alone(void (*fn)(void));

#define CHECK(cond) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            cv_check_failures++; \
        } \
    } while (0)

#define CHECK_EQ_U64(a, b) \
    do { \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b); \
        if (a_ != b_) { \
            fprintf(stderr, "  %s:%d: CHECK failed: %s == %s (%llu != %llu)\n", __FILE__, __LINE__, \
                    #a, #b, a_, b_); \
            cv_check_failures++; \
        } \
    } while (0)

#define CHECK_EQ_INT(a, b) \
    do { \
        long long a_ = (long long)(a), b_ = (long long)(b); \
        if (a_ != b_) { \
            fprintf(stderr, "  %s:%d: CHECK failed: %s == %s (%lld != %lld)\n", __FILE__, __LINE__, \
                    #a, #b, a_, b_); \
            cv_check_failures++; \
        } \
    } while (0)

#endif
