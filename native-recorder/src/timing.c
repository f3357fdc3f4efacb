#define _GNU_SOURCE   /* RUSAGE_THREAD */
#include "timing.h"
#include "arch.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

static const char *const event_names[CV_TEV_COUNT] = {
#define CV_TEV_NAME(name) #name,
    CV_TIMING_EVENTS(CV_TEV_NAME)
#undef CV_TEV_NAME
};

static const char *const stage_names[CV_STAGE_COUNT] = {
#define CV_STAGE_NAME(name) #name,
    CV_TIMING_STAGES(CV_STAGE_NAME)
#undef CV_STAGE_NAME
};

_Static_assert(CV_STAGE_COUNT <= 32, "cv_lap.done has a bit per stage");

static int lower(const char *src, char *out, size_t cap) {
    size_t i = 0;
    if (cap == 0) return -1;
    out[0] = 0;
    if (!src) return -1;
    for (; src[i] && i + 1 < cap; i++) out[i] = (char)(src[i] >= 'A' && src[i] <= 'Z' ? src[i] - 'A' + 'a' : src[i]);
    out[i] = 0;
    return src[i] ? -1 : 0;
}

int timing_event_name(int tev, char *out, size_t cap) {
    return lower(tev >= 0 && tev < CV_TEV_COUNT ? event_names[tev] : NULL, out, cap);
}

int timing_stage_name(int stage, char *out, size_t cap) {
    return lower(stage >= 0 && stage < CV_STAGE_COUNT ? stage_names[stage] : NULL, out, cap);
}

/* Owner-written fields: a relaxed load and store, never a locked add (one writer). */
#define OWNER_ADD(p, v) store_relaxed((p), load_relaxed(p) + (v))
#define OWNER_MAX(p, v) do { if ((v) > load_relaxed(p)) store_relaxed((p), (v)); } while (0)

/* The thread's slowest: replace the fastest of them if this one is slower (owner only). */
static void keep_if_slow(cv_timing *t, int tev, const cv_lap *l, uint64_t d, int met_gc) {
    cv_timing_slow *min = &t->slowest[0];
    for (int i = 1; i < CV_TIMING_SLOWEST; i++) {
        if (load_relaxed(&t->slowest[i].ticks) < load_relaxed(&min->ticks)) min = &t->slowest[i];
    }
    if (d <= load_relaxed(&min->ticks)) return;
    int longest = 0;
    for (int s = 1; s < CV_STAGE_COUNT; s++) {
        if (l->stage[s] > l->stage[longest]) longest = s;
    }
    uint64_t seq = load_relaxed(&min->seq);
    store_relaxed(&min->seq, seq + 1);     /* odd: being written */
    fence_release();
    store_relaxed(&min->start, l->start);
    store_relaxed(&min->ticks, d);
    store_relaxed(&min->stage_ticks, l->stage[longest]);
    store_relaxed(&min->tev, (uint32_t)tev);
    store_relaxed(&min->stage, (uint16_t)longest);
    store_relaxed(&min->gc, (uint16_t)(met_gc ? 1 : 0));
    store_relaxed(&min->slept, (uint16_t)(l->slept > UINT16_MAX ? UINT16_MAX : l->slept));
    store_relaxed(&min->preempted, (uint16_t)(l->preempted > UINT16_MAX ? UINT16_MAX : l->preempted));
    store_release(&min->seq, seq + 2);
}

void timing_switches(uint64_t *voluntary, uint64_t *involuntary) {
#ifdef RUSAGE_THREAD
    struct rusage u;
    if (getrusage(RUSAGE_THREAD, &u) == 0) {
        *voluntary = (uint64_t)u.ru_nvcsw;
        *involuntary = (uint64_t)u.ru_nivcsw;
        return;
    }
#endif
    *voluntary = *involuntary = 0;
}

static void hist_add(uint32_t *h) {
    uint32_t c = load_relaxed(h);
    if (c != UINT32_MAX) store_relaxed(h, c + 1);
}

static uint32_t window;         /* atomic: the current timing window's number */
static uint64_t window_start;   /* atomic: its first tick */

void timing_restart(uint64_t now_ticks) {
    store_relaxed(&window_start, now_ticks);
    store_release(&window, load_relaxed(&window) + 1);
}

uint32_t timing_window(void) {
    return load_acquire(&window);
}

uint64_t timing_window_start(void) {
    return load_relaxed(&window_start);
}

void timing_commit(cv_timing *t, int tev, const cv_lap *l, int met_gc) {
    uint32_t w = load_acquire(&window);
    if (l->start < load_relaxed(&window_start)) return;
    if (load_relaxed(&t->window) != w) {
        /* The first commit of this thread in a new window: what it had belongs to an older one.
         * Readers skip it until the release store below says it is this window's. */
        memset(t->ev, 0, sizeof(t->ev));
        memset(t->slowest, 0, sizeof(t->slowest));
        store_release(&t->window, w);
    }
    cv_timing_event *e = &t->ev[tev];
    uint64_t d = l->last - l->start;
    OWNER_ADD(&e->events, 1);
    OWNER_ADD(&e->ticks, d);
    OWNER_MAX(&e->max, d);
    if (met_gc) {
        OWNER_ADD(&e->gc, 1);
        OWNER_MAX(&e->gc_max, d);
    }
    for (int s = 0; s < CV_STAGE_COUNT; s++) {
        if (!(l->done & (1u << s))) continue;
        OWNER_ADD(&e->stage_count[s], 1);
        OWNER_ADD(&e->stage_ticks[s], l->stage[s]);
        OWNER_MAX(&e->stage_max[s], l->stage[s]);
    }
    hist_add(&e->hist[timing_bucket(d)]);
    if (l->slept) OWNER_ADD(&e->slept, 1);
    if (l->preempted) {
        OWNER_ADD(&e->preempted, 1);
    } else {
        OWNER_MAX(&e->steady_max, d);
        hist_add(&e->steady_hist[timing_bucket(d)]);
    }
    keep_if_slow(t, tev, l, d, met_gc);
}

void timing_slowest_merge(cv_timing_slow *top, size_t *n, size_t cap, const cv_timing_slow *entries, size_t count) {
    for (size_t i = 0; i < count; i++) {
        const cv_timing_slow *e = &entries[i];
        uint64_t before = load_acquire(&e->seq);
        cv_timing_slow c;
        c.start = load_relaxed(&e->start);
        c.ticks = load_relaxed(&e->ticks);
        c.stage_ticks = load_relaxed(&e->stage_ticks);
        c.tev = load_relaxed(&e->tev);
        c.stage = load_relaxed(&e->stage);
        c.gc = load_relaxed(&e->gc);
        c.slept = load_relaxed(&e->slept);
        c.preempted = load_relaxed(&e->preempted);
        fence_acquire();
        uint64_t after = load_relaxed(&e->seq);
        if (before != after || (before & 1) || c.ticks == 0 || c.tev >= CV_TEV_COUNT || c.stage >= CV_STAGE_COUNT) {
            continue;   /* unused, or caught while rewritten */
        }
        c.seq = 0;
        size_t at = *n;
        while (at > 0 && top[at - 1].ticks < c.ticks) at--;
        if (at >= cap) continue;
        size_t last = *n < cap ? *n : cap - 1;
        memmove(&top[at + 1], &top[at], (last - at) * sizeof(*top));
        top[at] = c;
        if (*n < cap) (*n)++;
    }
}

static void max_into(uint64_t *dst, uint64_t v) {
    if (v > *dst) *dst = v;
}

void timing_add(cv_timing_total *sum, const cv_timing_event *e) {
    sum->events += load_relaxed(&e->events);
    sum->ticks += load_relaxed(&e->ticks);
    max_into(&sum->max, load_relaxed(&e->max));
    sum->gc += load_relaxed(&e->gc);
    max_into(&sum->gc_max, load_relaxed(&e->gc_max));
    for (int s = 0; s < CV_STAGE_COUNT; s++) {
        sum->stage_count[s] += load_relaxed(&e->stage_count[s]);
        sum->stage_ticks[s] += load_relaxed(&e->stage_ticks[s]);
        max_into(&sum->stage_max[s], load_relaxed(&e->stage_max[s]));
    }
    sum->slept += load_relaxed(&e->slept);
    sum->preempted += load_relaxed(&e->preempted);
    max_into(&sum->steady_max, load_relaxed(&e->steady_max));
    for (uint32_t b = 0; b < CV_HIST_BUCKETS; b++) {
        sum->hist[b] += load_relaxed(&e->hist[b]);
        sum->steady_hist[b] += load_relaxed(&e->steady_hist[b]);
    }
}

void timing_add_total(cv_timing_total *sum, const cv_timing_total *t) {
    sum->events += t->events;
    sum->ticks += t->ticks;
    max_into(&sum->max, t->max);
    sum->gc += t->gc;
    max_into(&sum->gc_max, t->gc_max);
    for (int s = 0; s < CV_STAGE_COUNT; s++) {
        sum->stage_count[s] += t->stage_count[s];
        sum->stage_ticks[s] += t->stage_ticks[s];
        max_into(&sum->stage_max[s], t->stage_max[s]);
    }
    sum->slept += t->slept;
    sum->preempted += t->preempted;
    max_into(&sum->steady_max, t->steady_max);
    for (uint32_t b = 0; b < CV_HIST_BUCKETS; b++) {
        sum->hist[b] += t->hist[b];
        sum->steady_hist[b] += t->steady_hist[b];
    }
}

uint32_t timing_bucket(uint64_t v) {
    if (v < CV_HIST_SUB) return (uint32_t)v;
    uint32_t k = 63u - (uint32_t)__builtin_clzll(v);        /* 2^k <= v < 2^(k+1), k >= SUB_BITS */
    if (k >= CV_HIST_MAX_BITS) return CV_HIST_BUCKETS - 1;
    uint32_t sub = (uint32_t)(v >> (k - CV_HIST_SUB_BITS)) & (CV_HIST_SUB - 1);
    return (k - CV_HIST_SUB_BITS + 1) * CV_HIST_SUB + sub;
}

uint64_t timing_bucket_low(uint32_t b) {
    if (b < CV_HIST_SUB) return b;
    uint32_t k = b / CV_HIST_SUB + CV_HIST_SUB_BITS - 1;
    uint64_t sub = b % CV_HIST_SUB;
    return (1ull << k) + (sub << (k - CV_HIST_SUB_BITS));
}

uint64_t timing_bucket_high(uint32_t b) {
    if (b + 1 >= CV_HIST_BUCKETS) return UINT64_MAX;
    return timing_bucket_low(b + 1) - 1;
}

static uint64_t hist_quantile(const uint64_t *hist, uint64_t max, double q) {
    uint64_t n = 0;
    for (uint32_t b = 0; b < CV_HIST_BUCKETS; b++) n += hist[b];
    if (n == 0) return 0;
    if (q > 1) q = 1;
    double want = q * (double)n;
    uint64_t rank = (uint64_t)want;
    if ((double)rank < want) rank++;                         /* ceil */
    if (rank == 0) rank = 1;
    uint64_t seen = 0;
    for (uint32_t b = 0; b < CV_HIST_BUCKETS; b++) {
        seen += hist[b];
        if (seen >= rank) {
            uint64_t high = timing_bucket_high(b);
            return high < max ? high : max;
        }
    }
    return max;
}

uint64_t timing_quantile(const cv_timing_total *t, double q) {
    return hist_quantile(t->hist, t->max, q);
}

uint64_t timing_steady_quantile(const cv_timing_total *t, double q) {
    return hist_quantile(t->steady_hist, t->steady_max, q);
}

typedef struct {
    char *out;
    size_t cap, len;
} sink;


static void put(sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sink *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *at = s->len < s->cap ? s->out + s->len : NULL;
    size_t room = s->len < s->cap ? s->cap - s->len : 0;
    int n = vsnprintf(at, room, fmt, ap);
    va_end(ap);
    if (n > 0) s->len += (size_t)n;
}

static unsigned long long ns(uint64_t ticks, double ns_per_tick) {
    return (unsigned long long)((double)ticks * ns_per_tick + 0.5);
}

/* The non-empty buckets as low-high:count, comma-separated; the last bucket up to `max`. */
static void put_hist(sink *s, const uint64_t *hist, uint64_t max) {
    int first = 1;
    for (uint32_t b = 0; b < CV_HIST_BUCKETS; b++) {
        if (!hist[b]) continue;
        uint64_t high = timing_bucket_high(b);
        if (high == UINT64_MAX) high = max > timing_bucket_low(b) ? max : timing_bucket_low(b);
        put(s, "%s%llu-%llu:%llu", first ? "" : ",", (unsigned long long)timing_bucket_low(b),
            (unsigned long long)high, (unsigned long long)hist[b]);
        first = 0;
    }
}

size_t timing_format(const cv_timing_total *t, double ns_per_tick, char *out, size_t cap) {
    sink s = {out, cap, 0};
    if (cap) out[0] = 0;
    put(&s, "events=%llu ns=%llu max_ns=%llu gc=%llu gc_max_ns=%llu p50_ns=%llu p99_ns=%llu p999_ns=%llu stages=",
        (unsigned long long)t->events, ns(t->ticks, ns_per_tick), ns(t->max, ns_per_tick),
        (unsigned long long)t->gc, ns(t->gc_max, ns_per_tick), ns(timing_quantile(t, 0.50), ns_per_tick),
        ns(timing_quantile(t, 0.99), ns_per_tick), ns(timing_quantile(t, 0.999), ns_per_tick));
    for (int st = 0; st < CV_STAGE_COUNT; st++) {
        char name[32];
        timing_stage_name(st, name, sizeof(name));
        put(&s, "%s%s:%llu:%llu:%llu", st ? "," : "", name, (unsigned long long)t->stage_count[st],
            ns(t->stage_ticks[st], ns_per_tick), ns(t->stage_max[st], ns_per_tick));
    }
    put(&s, " slept=%llu preempted=%llu steady_p999_ns=%llu steady_max_ns=%llu hist_ticks=",
        (unsigned long long)t->slept, (unsigned long long)t->preempted,
        ns(timing_steady_quantile(t, 0.999), ns_per_tick), ns(t->steady_max, ns_per_tick));
    put_hist(&s, t->hist, t->max);
    put(&s, " steady_hist_ticks=");
    put_hist(&s, t->steady_hist, t->steady_max);
    return s.len;
}

size_t timing_format_slowest(const cv_timing_slow *top, size_t n, uint64_t ticks0, uint64_t mono0,
                             double ns_per_tick, char *out, size_t cap) {
    sink s = {out, cap, 0};
    if (cap) out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        char ev[32], st[32];
        timing_event_name((int)top[i].tev, ev, sizeof(ev));
        timing_stage_name(top[i].stage, st, sizeof(st));
        double since = ((double)top[i].start - (double)ticks0) * ns_per_tick;
        long long start = (long long)mono0 + (long long)(since < 0 ? since - 0.5 : since + 0.5);
        put(&s, "%s%s:%lld:%llu:%s:%llu:%u:%u:%u", i ? "," : "", ev, start, ns(top[i].ticks, ns_per_tick), st,
            ns(top[i].stage_ticks, ns_per_tick), (unsigned)top[i].gc, (unsigned)top[i].slept,
            (unsigned)top[i].preempted);
    }
    return s.len;
}
