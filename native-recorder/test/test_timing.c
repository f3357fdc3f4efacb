#include "check.h"
#include "arch.h"
#include "timing.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Whether `out` holds `key` followed by exactly two buckets: the one of `a` ticks counted `na`
 * times, then the one of `b` ticks counted `nb` times. */
static int has_two_buckets(const char *out, const char *key, uint64_t a, uint64_t na, uint64_t b, uint64_t nb) {
    char want[192];
    snprintf(want, sizeof(want), "%s%llu-%llu:%llu,%llu-%llu:%llu", key,
             (unsigned long long)timing_bucket_low(timing_bucket(a)),
             (unsigned long long)timing_bucket_high(timing_bucket(a)), (unsigned long long)na,
             (unsigned long long)timing_bucket_low(timing_bucket(b)),
             (unsigned long long)timing_bucket_high(timing_bucket(b)), (unsigned long long)nb);
    return strstr(out, want) != NULL;
}

TEST(timing_small_values_have_a_bucket_each) {
    for (uint64_t v = 0; v < CV_HIST_SUB; v++) {
        CHECK_EQ_U64(timing_bucket(v), v);
        CHECK_EQ_U64(timing_bucket_low((uint32_t)v), v);
        CHECK_EQ_U64(timing_bucket_high((uint32_t)v), v);
    }
}

TEST(timing_buckets_are_contiguous_and_at_most_an_eighth_of_their_low_wide) {
    CHECK_EQ_U64(timing_bucket_low(0), 0);
    for (uint32_t b = 0; b + 1 < CV_HIST_BUCKETS; b++) {
        uint64_t low = timing_bucket_low(b), high = timing_bucket_high(b);
        CHECK(low <= high);
        CHECK_EQ_U64(timing_bucket_low(b + 1), high + 1);
        CHECK_EQ_U64(timing_bucket(low), b);
        CHECK_EQ_U64(timing_bucket(high), b);
        if (low >= CV_HIST_SUB) CHECK((high - low + 1) * CV_HIST_SUB <= low);
    }
    /* the last bucket takes everything from its low on */
    uint32_t last = CV_HIST_BUCKETS - 1;
    CHECK_EQ_U64(timing_bucket_high(last), UINT64_MAX);
    CHECK_EQ_U64(timing_bucket(timing_bucket_low(last)), last);
    CHECK_EQ_U64(timing_bucket(1ull << CV_HIST_MAX_BITS), last);
    CHECK_EQ_U64(timing_bucket(UINT64_MAX), last);
    CHECK_EQ_U64(timing_bucket_low(last), (1ull << CV_HIST_MAX_BITS) - (1ull << (CV_HIST_MAX_BITS - 1 - CV_HIST_SUB_BITS)));
}

TEST(timing_buckets_are_monotonic_over_a_sweep) {
    uint32_t prev = 0;
    for (uint64_t v = 1; v < (1ull << 42); v += v / 7 + 1) {
        uint32_t b = timing_bucket(v);
        CHECK(b >= prev);
        CHECK(b < CV_HIST_BUCKETS);
        CHECK(v >= timing_bucket_low(b) && v <= timing_bucket_high(b));
        prev = b;
    }
}

/* A callback stamped at the given times: stages in order, `stamps[i]` after stage `stages[i]`. */
static void lap_of(cv_lap *l, uint64_t start, const int *stages, const uint64_t *stamps, int n) {
    timing_begin(l, start);
    for (int i = 0; i < n; i++) timing_lap(l, stages[i], stamps[i]);
}

TEST(timing_stages_add_up_to_the_whole_callback) {
    cv_lap l;
    /* MonitorWait: clock, thread, object, walk, intern, clock again, ring */
    int stages[] = {CV_STAGE_CLOCK, CV_STAGE_THREAD, CV_STAGE_OBJECT, CV_STAGE_WALK, CV_STAGE_INTERN,
                    CV_STAGE_CLOCK, CV_STAGE_RING};
    uint64_t stamps[] = {1020, 1030, 1100, 2100, 2150, 2170, 2200};
    lap_of(&l, 1000, stages, stamps, 7);
    CHECK_EQ_U64(l.stage[CV_STAGE_CLOCK], 20 + 20);
    CHECK_EQ_U64(l.stage[CV_STAGE_THREAD], 10);
    CHECK_EQ_U64(l.stage[CV_STAGE_OBJECT], 70);
    CHECK_EQ_U64(l.stage[CV_STAGE_WALK], 1000);
    CHECK_EQ_U64(l.stage[CV_STAGE_INTERN], 50);
    CHECK_EQ_U64(l.stage[CV_STAGE_RING], 30);
    CHECK_EQ_U64(l.stage[CV_STAGE_OWNER], 0);

    cv_timing *th = calloc(1, sizeof(*th));
    cv_timing_event *e = &th->ev[CV_TEV_MONITOR_WAIT];
    timing_commit(th, CV_TEV_MONITOR_WAIT, &l, 0);
    CHECK_EQ_U64(e->events, 1);
    CHECK_EQ_U64(e->ticks, 1200);
    CHECK_EQ_U64(e->max, 1200);
    CHECK_EQ_U64(e->gc, 0);
    uint64_t sum = 0;
    for (int s = 0; s < CV_STAGE_COUNT; s++) sum += e->stage_ticks[s];
    CHECK_EQ_U64(sum, e->ticks);
    /* a stage run twice counts once; a stage not run is not counted */
    CHECK_EQ_U64(e->stage_count[CV_STAGE_CLOCK], 1);
    CHECK_EQ_U64(e->stage_count[CV_STAGE_WALK], 1);
    CHECK_EQ_U64(e->stage_count[CV_STAGE_OWNER], 0);
    CHECK_EQ_U64(e->stage_max[CV_STAGE_WALK], 1000);
    CHECK_EQ_U64(e->hist[timing_bucket(1200)], 1);
    CHECK_EQ_U64(th->ev[CV_TEV_MONITOR_ENTER].events, 0);
    free(th);
}

TEST(timing_a_clock_that_goes_back_counts_nothing) {
    cv_lap l;
    timing_begin(&l, 1000);
    timing_lap(&l, CV_STAGE_CLOCK, 990);    /* another core's counter, a little behind */
    timing_lap(&l, CV_STAGE_THREAD, 1010);
    CHECK_EQ_U64(l.stage[CV_STAGE_CLOCK], 0);
    CHECK_EQ_U64(l.stage[CV_STAGE_THREAD], 10);
    CHECK_EQ_U64(l.last - l.start, 10);
    CHECK(l.done & (1u << CV_STAGE_CLOCK));
}

TEST(timing_counts_callbacks_that_met_a_gc_and_keeps_maxima) {
    cv_timing *th = calloc(1, sizeof(*th));
    cv_timing_event *e = &th->ev[CV_TEV_PARK];
    cv_lap l;
    int st[] = {CV_STAGE_CLOCK, CV_STAGE_WALK};
    uint64_t a[] = {10, 110};
    lap_of(&l, 0, st, a, 2);
    timing_commit(th, CV_TEV_PARK, &l, 0);
    uint64_t b[] = {10, 5000010};
    lap_of(&l, 0, st, b, 2);
    timing_commit(th, CV_TEV_PARK, &l, 1);
    uint64_t c[] = {20, 300};
    lap_of(&l, 0, st, c, 2);
    timing_commit(th, CV_TEV_PARK, &l, 0);
    CHECK_EQ_U64(e->events, 3);
    CHECK_EQ_U64(e->gc, 1);
    CHECK_EQ_U64(e->gc_max, 5000010);
    CHECK_EQ_U64(e->max, 5000010);
    CHECK_EQ_U64(e->stage_max[CV_STAGE_WALK], 5000000);
    CHECK_EQ_U64(e->stage_max[CV_STAGE_CLOCK], 20);
    CHECK_EQ_U64(e->stage_ticks[CV_STAGE_CLOCK], 40);
    free(th);
}

TEST(timing_histogram_counts_saturate) {
    cv_timing *th = calloc(1, sizeof(*th));
    cv_timing_event *e = &th->ev[CV_TEV_UNPARK];
    cv_lap l;
    int st[] = {CV_STAGE_RING};
    uint64_t t[] = {100};
    lap_of(&l, 0, st, t, 1);
    e->hist[timing_bucket(100)] = UINT32_MAX - 1;
    timing_commit(th, CV_TEV_UNPARK, &l, 0);
    timing_commit(th, CV_TEV_UNPARK, &l, 0);
    CHECK_EQ_U64(e->hist[timing_bucket(100)], UINT32_MAX);
    CHECK_EQ_U64(e->events, 2);
    free(th);
}

TEST(timing_sums_over_threads) {
    cv_timing *ta = calloc(1, sizeof(*ta)), *tb = calloc(1, sizeof(*tb));
    cv_timing_event *a = &ta->ev[CV_TEV_PARKED], *b = &tb->ev[CV_TEV_PARKED];
    cv_timing_total *sum = calloc(1, sizeof(*sum)), *sum2 = calloc(1, sizeof(*sum2));
    cv_lap l;
    int st[] = {CV_STAGE_THREAD, CV_STAGE_OBJECT};
    uint64_t x[] = {5, 50}, y[] = {7, 700};
    lap_of(&l, 0, st, x, 2);
    timing_commit(ta, CV_TEV_PARKED, &l, 0);
    timing_commit(ta, CV_TEV_PARKED, &l, 1);
    lap_of(&l, 0, st, y, 2);
    timing_commit(tb, CV_TEV_PARKED, &l, 0);
    timing_add(sum, a);
    timing_add(sum, b);
    CHECK_EQ_U64(sum->events, 3);
    CHECK_EQ_U64(sum->ticks, 50 + 50 + 700);
    CHECK_EQ_U64(sum->max, 700);
    CHECK_EQ_U64(sum->gc, 1);
    CHECK_EQ_U64(sum->gc_max, 50);
    CHECK_EQ_U64(sum->stage_count[CV_STAGE_OBJECT], 3);
    CHECK_EQ_U64(sum->stage_ticks[CV_STAGE_OBJECT], 45 + 45 + 693);
    CHECK_EQ_U64(sum->stage_max[CV_STAGE_OBJECT], 693);
    CHECK_EQ_U64(sum->hist[timing_bucket(50)], 2);
    CHECK_EQ_U64(sum->hist[timing_bucket(700)], 1);
    timing_add_total(sum2, sum);
    timing_add_total(sum2, sum);
    CHECK_EQ_U64(sum2->events, 6);
    CHECK_EQ_U64(sum2->max, 700);
    CHECK_EQ_U64(sum2->stage_count[CV_STAGE_THREAD], 6);
    CHECK_EQ_U64(sum2->hist[timing_bucket(700)], 2);
    free(ta); free(tb); free(sum); free(sum2);
}

TEST(timing_quantiles_are_bucket_highs_capped_by_the_maximum) {
    cv_timing_total *t = calloc(1, sizeof(*t));
    CHECK_EQ_U64(timing_quantile(t, 0.5), 0);
    /* 999 callbacks of 1000 ticks and one of 100000 */
    t->hist[timing_bucket(1000)] = 999;
    t->hist[timing_bucket(100000)] = 1;
    t->events = 1000;
    t->max = 100000;
    uint64_t p50 = timing_quantile(t, 0.5);
    CHECK_EQ_U64(p50, timing_bucket_high(timing_bucket(1000)));
    CHECK(p50 >= 1000 && p50 < 1000 + 1000 / CV_HIST_SUB);
    CHECK_EQ_U64(timing_quantile(t, 0.999), p50);      /* the 999th */
    CHECK_EQ_U64(timing_quantile(t, 1.0), 100000);     /* the longest: its exact value */
    CHECK_EQ_U64(timing_quantile(t, 0.9991), 100000);
    /* a single value: every quantile is it */
    cv_timing_total *one = calloc(1, sizeof(*one));
    one->hist[timing_bucket(123456)] = 1;
    one->max = 123456;
    CHECK_EQ_U64(timing_quantile(one, 0.5), 123456);
    CHECK_EQ_U64(timing_quantile(one, 0.001), 123456);
    free(t);
    free(one);
}

TEST(timing_names_are_the_lists_in_lower_case) {
    char n[32];
    CHECK_EQ_INT(timing_event_name(CV_TEV_MONITOR_ENTER, n, sizeof(n)), 0);
    CHECK(strcmp(n, "monitor_enter") == 0);
    CHECK_EQ_INT(timing_event_name(CV_TEV_UNPARK, n, sizeof(n)), 0);
    CHECK(strcmp(n, "unpark") == 0);
    CHECK_EQ_INT(timing_stage_name(CV_STAGE_WALK, n, sizeof(n)), 0);
    CHECK(strcmp(n, "walk") == 0);
    CHECK_EQ_INT(timing_event_name(CV_TEV_COUNT, n, sizeof(n)), -1);
    CHECK(n[0] == 0);
    CHECK_EQ_INT(timing_stage_name(-1, n, sizeof(n)), -1);
    char small[4];
    CHECK_EQ_INT(timing_event_name(CV_TEV_MONITOR_WAIT, small, sizeof(small)), -1);
    CHECK(strcmp(small, "mon") == 0);
}

TEST(timing_format_gives_every_field_and_stage_and_the_nonempty_buckets) {
    cv_timing_total *t = calloc(1, sizeof(*t));
    t->events = 3;
    t->ticks = 3000;
    t->max = 2000;
    t->gc = 1;
    t->gc_max = 2000;
    t->stage_count[CV_STAGE_WALK] = 3;
    t->stage_ticks[CV_STAGE_WALK] = 2500;
    t->stage_max[CV_STAGE_WALK] = 1900;
    t->hist[timing_bucket(500)] = 2;
    t->hist[timing_bucket(2000)] = 1;
    char out[4096];
    size_t n = timing_format(t, 0.5, out, sizeof(out));
    CHECK_EQ_U64(n, strlen(out));
    CHECK(strncmp(out, "events=3 ns=1500 max_ns=1000 gc=1 gc_max_ns=1000 p50_ns=", 56) == 0);
    CHECK(strstr(out, " stages=clock:0:0:0,thread:0:0:0,owner:0:0:0,object:0:0:0,walk:3:1250:950,intern:0:0:0,"
                      "ring:0:0:0 ") != NULL);
    CHECK(has_two_buckets(out, " hist_ticks=", 500, 2, 2000, 1));
    CHECK(out[n - 1] != ' ');
    /* too small: cut, NUL-terminated, the length it needed */
    char cut[16];
    memset(cut, 'x', sizeof(cut));
    CHECK_EQ_U64(timing_format(t, 0.5, cut, sizeof(cut)), n);
    CHECK_EQ_U64(strlen(cut), sizeof(cut) - 1);
    CHECK(strncmp(cut, out, sizeof(cut) - 1) == 0);
    /* the last bucket is written up to the maximum, not to infinity */
    cv_timing_total *huge = calloc(1, sizeof(*huge));
    huge->events = 1;
    huge->max = 1ull << 41;
    huge->hist[CV_HIST_BUCKETS - 1] = 1;
    timing_format(huge, 1.0, out, sizeof(out));
    char hist[128];
    snprintf(hist, sizeof(hist), "hist_ticks=%llu-%llu:1", (unsigned long long)timing_bucket_low(CV_HIST_BUCKETS - 1),
             1ull << 41);
    CHECK(strstr(out, hist) != NULL);
    free(t);
    free(huge);
}

/* A callback of `d` ticks starting at `start`, its walk taking all but 10. */
static void commit_one(cv_timing *th, int tev, uint64_t start, uint64_t d, int gc) {
    cv_lap l;
    timing_begin(&l, start);
    timing_lap(&l, CV_STAGE_CLOCK, start + 10);
    timing_lap(&l, CV_STAGE_WALK, start + d);
    timing_commit(th, tev, &l, gc);
}

TEST(timing_each_thread_keeps_its_slowest_callbacks) {
    cv_timing *th = calloc(1, sizeof(*th));
    for (uint64_t i = 1; i <= 100; i++) commit_one(th, CV_TEV_MONITOR_WAIT, i * 1000, 100 + (i * 37) % 100, 0);
    commit_one(th, CV_TEV_PARK, 500000, 9000, 1);
    cv_timing_slow top[CV_TIMING_SLOWEST_REPORTED];
    size_t n = 0;
    timing_slowest_merge(top, &n, CV_TIMING_SLOWEST_REPORTED, th->slowest, CV_TIMING_SLOWEST);
    CHECK_EQ_U64(n, CV_TIMING_SLOWEST);
    CHECK_EQ_U64(top[0].ticks, 9000);
    CHECK_EQ_U64(top[0].tev, CV_TEV_PARK);
    CHECK_EQ_U64(top[0].stage, CV_STAGE_WALK);
    CHECK_EQ_U64(top[0].stage_ticks, 8990);
    CHECK_EQ_U64(top[0].start, 500000);
    CHECK_EQ_U64(top[0].gc, 1);
    /* then the 7 slowest waits, 199 down to 193, slowest first */
    for (size_t i = 1; i < n; i++) {
        CHECK_EQ_U64(top[i].ticks, 200 - i);
        CHECK_EQ_U64(top[i].tev, CV_TEV_MONITOR_WAIT);
    }
    free(th);
}

TEST(timing_slowest_merge_over_threads_keeps_the_cap_and_skips_torn_entries) {
    cv_timing *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
    for (uint64_t i = 0; i < 8; i++) commit_one(a, CV_TEV_MONITOR_ENTER, i, 1000 + i, 0);
    for (uint64_t i = 0; i < 8; i++) commit_one(b, CV_TEV_UNPARK, i, 1004 + i * 2, 0);
    cv_timing_slow top[5];
    size_t n = 0;
    timing_slowest_merge(top, &n, 5, a->slowest, CV_TIMING_SLOWEST);
    timing_slowest_merge(top, &n, 5, b->slowest, CV_TIMING_SLOWEST);
    CHECK_EQ_U64(n, 5);
    uint64_t want[] = {1018, 1016, 1014, 1012, 1010};
    for (int i = 0; i < 5; i++) CHECK_EQ_U64(top[i].ticks, want[i]);
    /* an entry being rewritten (odd seq) is skipped */
    cv_timing *c = calloc(1, sizeof(*c));
    commit_one(c, CV_TEV_PARKED, 0, 5000, 0);
    for (int i = 0; i < CV_TIMING_SLOWEST; i++) {
        if (c->slowest[i].ticks == 5000) c->slowest[i].seq++;
    }
    timing_slowest_merge(top, &n, 5, c->slowest, CV_TIMING_SLOWEST);
    CHECK_EQ_U64(top[0].ticks, 1018);
    /* merging copies again (the evicted threads' list) keeps them */
    cv_timing_slow again[5];
    size_t m = 0;
    timing_slowest_merge(again, &m, 5, top, n);
    CHECK_EQ_U64(m, 5);
    CHECK_EQ_U64(again[4].ticks, 1010);
    free(a); free(b); free(c);
}

TEST(timing_slowest_are_written_with_monotonic_start_times) {
    cv_timing_slow top[2];
    memset(top, 0, sizeof(top));
    top[0].start = 3000; top[0].ticks = 4000; top[0].stage_ticks = 3800;
    top[0].tev = CV_TEV_MONITOR_WAIT; top[0].stage = CV_STAGE_WALK; top[0].gc = 1;
    top[0].slept = 2; top[0].preempted = 1;
    top[1].start = 1000; top[1].ticks = 20; top[1].stage_ticks = 8;
    top[1].tev = CV_TEV_UNPARK; top[1].stage = CV_STAGE_OBJECT; top[1].gc = 0;
    char out[256];
    size_t n = timing_format_slowest(top, 2, 1000, 5000000, 0.5, out, sizeof(out));
    CHECK_EQ_U64(n, strlen(out));
    CHECK(strcmp(out, "monitor_wait:5001000:2000:walk:1900:1:2:1,unpark:5000000:10:object:4:0:0:0") == 0);
    CHECK_EQ_U64(timing_format_slowest(top, 0, 0, 0, 1.0, out, sizeof(out)), 0);
    CHECK(out[0] == 0);
}

TEST(timing_switches_count_a_sleep_of_the_calling_thread) {
    uint64_t v0 = 0, i0 = 0, v1 = 0, i1 = 0;
    timing_switches(&v0, &i0);
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);   /* a sleep is a voluntary switch */
    timing_switches(&v1, &i1);
    CHECK(v1 > v0);
    CHECK(i1 >= i0);
}

TEST(timing_keeps_preempted_callbacks_out_of_the_steady_figures) {
    cv_timing *th = calloc(1, sizeof(*th));
    for (uint64_t i = 0; i < 10; i++) commit_one(th, CV_TEV_MONITOR_ENTER, i * 100000, 100, 0);
    cv_lap l;
    timing_begin(&l, 5000000);                /* preempted: 90000 ticks */
    timing_lap(&l, CV_STAGE_OBJECT, 5090000);
    l.preempted = 1;
    timing_commit(th, CV_TEV_MONITOR_ENTER, &l, 0);
    timing_begin(&l, 6000000);                /* slept, not preempted: 3000 ticks */
    timing_lap(&l, CV_STAGE_OBJECT, 6003000);
    l.slept = 2;
    timing_commit(th, CV_TEV_MONITOR_ENTER, &l, 0);
    cv_timing_total *t = calloc(1, sizeof(*t));
    timing_add(t, &th->ev[CV_TEV_MONITOR_ENTER]);
    CHECK_EQ_U64(t->events, 12);
    CHECK_EQ_U64(t->preempted, 1);
    CHECK_EQ_U64(t->slept, 1);
    CHECK_EQ_U64(t->max, 90000);
    CHECK_EQ_U64(t->steady_max, 3000);        /* the sleep counts, the preemption does not */
    CHECK_EQ_U64(timing_quantile(t, 1.0), 90000);
    CHECK_EQ_U64(timing_steady_quantile(t, 1.0), 3000);
    CHECK(timing_steady_quantile(t, 0.5) <= 112);
    char out[4096];
    timing_format(t, 1.0, out, sizeof(out));
    CHECK(strstr(out, " slept=1 preempted=1 steady_p999_ns=3000 steady_max_ns=3000 hist_ticks=") != NULL);
    CHECK(has_two_buckets(out, " steady_hist_ticks=", 100, 10, 3000, 1));
    cv_timing_slow top[CV_TIMING_SLOWEST_REPORTED];
    size_t n = 0;
    timing_slowest_merge(top, &n, CV_TIMING_SLOWEST_REPORTED, th->slowest, CV_TIMING_SLOWEST);
    CHECK_EQ_U64(top[0].ticks, 90000);
    CHECK_EQ_U64(top[0].preempted, 1);
    CHECK_EQ_U64(top[1].ticks, 3000);
    CHECK_EQ_U64(top[1].slept, 2);
    CHECK_EQ_U64(top[1].preempted, 0);
    free(th);
    free(t);
}

TEST(timing_restart_counts_only_callbacks_that_began_in_the_new_window) {
    cv_timing *th = calloc(1, sizeof(*th));
    uint32_t w0 = timing_window();
    for (uint64_t i = 1; i <= 5; i++) commit_one(th, CV_TEV_MONITOR_WAIT, i * 1000, 90000, 0);
    CHECK_EQ_U64(load_acquire(&th->window), w0);
    /* begun before the restart, committed after it: not counted */
    cv_lap early;
    timing_begin(&early, 9000);
    timing_lap(&early, CV_STAGE_CLOCK, 9100);
    timing_restart(10000);
    CHECK_EQ_U64(timing_window(), w0 + 1);
    CHECK_EQ_U64(timing_window_start(), 10000);
    timing_commit(th, CV_TEV_MONITOR_WAIT, &early, 0);
    CHECK_EQ_U64(load_acquire(&th->window), w0);   /* still the old window's: readers skip it */
    CHECK_EQ_U64(th->ev[CV_TEV_MONITOR_WAIT].events, 5);
    /* the first callback of the new window empties the old figures, slowest included */
    commit_one(th, CV_TEV_MONITOR_ENTER, 20000, 300, 0);
    commit_one(th, CV_TEV_MONITOR_ENTER, 30000, 200, 0);
    CHECK_EQ_U64(load_acquire(&th->window), w0 + 1);
    CHECK_EQ_U64(th->ev[CV_TEV_MONITOR_WAIT].events, 0);
    CHECK_EQ_U64(th->ev[CV_TEV_MONITOR_WAIT].max, 0);
    CHECK_EQ_U64(th->ev[CV_TEV_MONITOR_ENTER].events, 2);
    CHECK_EQ_U64(th->ev[CV_TEV_MONITOR_ENTER].max, 300);
    cv_timing_slow top[CV_TIMING_SLOWEST_REPORTED];
    size_t n = 0;
    timing_slowest_merge(top, &n, CV_TIMING_SLOWEST_REPORTED, th->slowest, CV_TIMING_SLOWEST);
    CHECK_EQ_U64(n, 2);
    CHECK_EQ_U64(top[0].ticks, 300);
    CHECK_EQ_U64(top[0].tev, CV_TEV_MONITOR_ENTER);
    timing_restart(0);   /* later tests time from the start again */
    free(th);
}
