#include "check.h"
#include "victims.h"

#include <string.h>

/* A test state: its victim node and whether its Thread object is "gone". */
typedef struct {
    cv_victim v;
    int id;
    int gone;       /* what the gone test answers */
    int ended;
    int asked;      /* how often the gone test asked about it */
} state;

static state *of(cv_victim *v) {
    return (state *)v;   /* v is the first member */
}

static int gone_test(cv_victim *v, void *ctx) {
    int *calls = ctx;
    if (calls) (*calls)++;
    of(v)->asked++;
    return of(v)->gone;
}

static int pick(cv_victims *q, int *calls) {
    cv_victim *v = victims_pick(q, gone_test, calls);
    return v ? of(v)->id : -1;
}

/* Picks and removes, as threads.c's make_room does. */
static int evict(cv_victims *q) {
    cv_victim *v = victims_pick(q, gone_test, NULL);
    if (!v) return -1;
    victims_remove(q, v);
    return of(v)->id;
}

static void init(state *s, int n) {
    memset(s, 0, sizeof(*s) * (size_t)n);
    for (int i = 0; i < n; i++) s[i].id = i;
}

TEST(victims_nothing_to_evict_among_live_states) {
    cv_victims q;
    memset(&q, 0, sizeof(q));
    state s[3];
    init(s, 3);
    victims_watch(&q, &s[0].v);   /* watched, Thread still reachable */
    /* s[1]: on no queue (a ThreadStart state, live) */
    victims_watch(&q, &s[2].v);
    CHECK(pick(&q, NULL) == -1);
    CHECK_EQ_U64(s[0].asked, 1);
    CHECK_EQ_U64(s[1].asked, 0);
    CHECK_EQ_U64(s[2].asked, 1);
}

TEST(victims_oldest_ended_first_whatever_the_order_they_ended_in) {
    cv_victims q;
    memset(&q, 0, sizeof(q));
    state s[5];
    init(s, 5);
    victims_ended(&q, &s[0].v, 300);
    victims_ended(&q, &s[1].v, 100);
    victims_ended(&q, &s[2].v, 500);
    victims_ended(&q, &s[3].v, 200);
    victims_ended(&q, &s[4].v, 400);
    CHECK(evict(&q) == 1);
    CHECK(evict(&q) == 3);
    CHECK(evict(&q) == 0);
    CHECK(evict(&q) == 4);
    CHECK(evict(&q) == 2);
    CHECK(evict(&q) == -1);
}

TEST(victims_gone_before_ended_even_a_long_ended_one) {
    cv_victims q;
    memset(&q, 0, sizeof(q));
    state s[4];
    init(s, 4);
    victims_ended(&q, &s[0].v, 10);          /* ended long ago */
    victims_watch(&q, &s[1].v);              /* virtual thread, collected */
    victims_watch(&q, &s[2].v);              /* virtual thread, still reachable */
    victims_watch(&q, &s[3].v);              /* virtual thread, collected */
    s[1].gone = s[3].gone = 1;
    CHECK(evict(&q) == 1);
    CHECK(evict(&q) == 3);
    CHECK(evict(&q) == 0);
    CHECK(evict(&q) == -1);
    s[2].gone = 1;
    CHECK(evict(&q) == 2);
    CHECK(evict(&q) == -1);
}

TEST(victims_just_ended_platform_thread_after_long_dead_virtual_threads) {
    /* The case a FIFO of ended states got wrong: virtual threads that died long ago (no
     * ThreadEnd) must go before a platform thread that has just ended. */
    cv_victims q;
    memset(&q, 0, sizeof(q));
    state s[6];
    init(s, 6);
    for (int i = 0; i < 5; i++) victims_watch(&q, &s[i].v);
    for (int i = 0; i < 5; i++) s[i].gone = 1;
    victims_ended(&q, &s[5].v, 1000);
    for (int i = 0; i < 5; i++) CHECK(evict(&q) == i);
    CHECK(evict(&q) == 5);
}

TEST(victims_pinned_is_never_chosen) {
    cv_victims q;
    memset(&q, 0, sizeof(q));
    state s[4];
    init(s, 4);
    victims_watch(&q, &s[0].v);
    s[0].gone = 1;
    victims_ended(&q, &s[1].v, 10);
    victims_ended(&q, &s[2].v, 20);
    s[0].v.pins = s[1].v.pins = s[2].v.pins = 1;
    CHECK(pick(&q, NULL) == -1);
    CHECK_EQ_U64(s[0].asked, 0);           /* a pinned state is not even tested */
    victims_ended(&q, &s[3].v, 30);
    CHECK(evict(&q) == 3);
    s[1].v.pins = 0;
    CHECK(evict(&q) == 1);
    s[0].v.pins = 0;
    CHECK(evict(&q) == 0);                  /* tested now, found gone, first again */
    CHECK(evict(&q) == -1);
    s[2].v.pins = 0;
    CHECK(evict(&q) == 2);
}

TEST(victims_pinned_gone_state_waits_and_then_comes_first) {
    cv_victims q;
    memset(&q, 0, sizeof(q));
    state s[3];
    init(s, 3);
    victims_watch(&q, &s[0].v);
    victims_watch(&q, &s[1].v);
    s[0].gone = s[1].gone = 1;
    victims_ended(&q, &s[2].v, 5);
    CHECK(pick(&q, NULL) == 0);             /* both found gone, both remembered */
    s[0].v.pins = 1;
    CHECK(evict(&q) == 1);
    CHECK(evict(&q) == 2);                  /* the only gone one is pinned */
    CHECK(evict(&q) == -1);
    s[0].v.pins = 0;
    CHECK(evict(&q) == 0);
}

/* Picks among pinned states too and removes, as make_room does when no unpinned state is left. */
static int evict_pinned(cv_victims *q) {
    cv_victim *v = victims_pick_pinned(q, gone_test, NULL);
    if (!v) return -1;
    victims_remove(q, v);
    return of(v)->id;
}

TEST(victims_pick_pinned_takes_pinned_states_in_the_same_order_never_live_ones) {
    cv_victims q;
    memset(&q, 0, sizeof(q));
    state s[5];
    init(s, 5);
    victims_watch(&q, &s[0].v);             /* live: Thread object reachable */
    victims_watch(&q, &s[1].v);
    s[1].gone = 1;
    victims_ended(&q, &s[2].v, 20);
    victims_ended(&q, &s[3].v, 10);
    victims_watch(&q, &s[4].v);
    s[4].gone = 1;
    for (int i = 0; i < 5; i++) s[i].v.pins = 1;   /* a snapshot pins every state */
    CHECK(evict(&q) == -1);
    CHECK_EQ_U64(s[1].asked, 0);
    CHECK(evict_pinned(&q) == 1);           /* gone ones first, in creation order */
    CHECK(evict_pinned(&q) == 4);
    CHECK(evict_pinned(&q) == 3);           /* then the oldest ended */
    s[2].v.pins = 0;
    CHECK(evict(&q) == 2);                  /* an unpinned one is still found by victims_pick */
    CHECK(evict_pinned(&q) == -1);          /* the live one is never taken */
    CHECK(s[0].asked >= 1);
}

TEST(victims_remembers_gone_states_and_tests_only_when_needed) {
    cv_victims q;
    memset(&q, 0, sizeof(q));
    state s[6];
    init(s, 6);
    for (int i = 0; i < 4; i++) victims_watch(&q, &s[i].v);
    s[1].gone = s[3].gone = 1;
    victims_ended(&q, &s[4].v, 7);
    int calls = 0;
    CHECK(pick(&q, &calls) == 1);
    CHECK_EQ_U64(calls, 4);                 /* one pass over the watched states */
    victims_remove(&q, &s[1].v);
    calls = 0;
    CHECK(pick(&q, &calls) == 3);           /* remembered: no test at all */
    CHECK_EQ_U64(calls, 0);
    victims_remove(&q, &s[3].v);
    calls = 0;
    CHECK(pick(&q, &calls) == 4);           /* none gone: one test per watched state left */
    CHECK_EQ_U64(calls, 2);
    /* states with a ThreadStart are on no queue while they live: never tested */
    victims_ended(&q, &s[5].v, 8);
    CHECK_EQ_U64(s[5].asked, 0);
}

TEST(victims_a_watched_state_that_ends_is_ordered_by_its_end) {
    cv_victims q;
    memset(&q, 0, sizeof(q));
    state s[3];
    init(s, 3);
    victims_ended(&q, &s[0].v, 50);
    victims_watch(&q, &s[1].v);             /* a lazily created platform thread... */
    victims_ended(&q, &s[1].v, 20);         /* ...that then ended */
    victims_ended(&q, &s[2].v, 60);
    CHECK(evict(&q) == 1);
    CHECK(evict(&q) == 0);
    CHECK(evict(&q) == 2);
    CHECK_EQ_U64(s[1].asked, 0);
}

/* Random operations against the rule as the old code applied it: a scan of every state,
 * candidates unpinned and (ended, or not ended and gone); gone ones before ended ones;
 * among ended ones the least end_ns. */
static unsigned lcg(unsigned *x) {
    *x = *x * 1103515245u + 12345u;
    return (*x >> 16) & 0x7fff;
}

TEST(victims_agree_with_a_full_scan_on_random_operations) {
    enum { N = 64 };
    for (unsigned seed = 1; seed <= 200; seed++) {
        cv_victims q;
        memset(&q, 0, sizeof(q));
        state s[N];
        init(s, N);
        int present[N] = {0}, watched[N] = {0};
        unsigned x = seed;
        uint64_t clock = 0;
        for (int step = 0; step < 400; step++) {
            int i = (int)(lcg(&x) % N);
            switch (lcg(&x) % 6) {
                case 0:   /* a new state */
                    if (!present[i]) {
                        memset(&s[i], 0, sizeof(s[i]));
                        s[i].id = i;
                        present[i] = 1;
                        watched[i] = (int)(lcg(&x) % 2);
                        if (watched[i]) victims_watch(&q, &s[i].v);
                    }
                    break;
                case 1:   /* its thread ends (end times mostly, not always, in order) */
                    if (present[i] && !s[i].ended && !s[i].gone) {
                        s[i].ended = 1;
                        clock += lcg(&x) % 4 == 0 ? 0 : 1 + lcg(&x) % 5;
                        victims_ended(&q, &s[i].v, lcg(&x) % 8 == 0 && clock > 3 ? clock - 3 : clock);
                    }
                    break;
                case 2:   /* a watched thread's Thread object is collected */
                    if (present[i] && watched[i] && !s[i].ended) s[i].gone = 1;
                    break;
                case 3:
                    if (present[i]) s[i].v.pins += s[i].v.pins < 2 ? 1 : 0;
                    break;
                case 4:
                    if (present[i] && s[i].v.pins) s[i].v.pins--;
                    break;
                default: { /* evict */
                    int best = -1, best_gone = 0;
                    for (int j = 0; j < N; j++) {
                        if (!present[j] || s[j].v.pins) continue;
                        int g = !s[j].ended && s[j].gone;
                        if (!s[j].ended && !g) continue;
                        if (best < 0 || (g && !best_gone) ||
                            (!g && !best_gone && s[j].v.end_ns < s[best].v.end_ns)) {
                            best = j;
                            best_gone = g;
                        }
                    }
                    int got = evict(&q);
                    if (best < 0) {
                        CHECK(got == -1);
                    } else {
                        CHECK(got >= 0);
                        if (got < 0) break;
                        int got_gone = !s[got].ended && s[got].gone;
                        CHECK(!s[got].v.pins);
                        CHECK(got_gone == best_gone);
                        CHECK(got_gone || s[got].ended);
                        if (!best_gone) CHECK_EQ_U64(s[got].v.end_ns, s[best].v.end_ns);
                        present[got] = 0;
                    }
                    break;
                }
            }
        }
    }
}
