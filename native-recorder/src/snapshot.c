/*
 * The encoder, one function per section of schema/snapshot-format.md, in the
 * specification's order. THREADS comes first: the rings are copied straight into the
 * output while the thread states are pinned (each record is copied once, from its ring
 * into the snapshot), and INFO, which follows, has totals that cover what the snapshot
 * holds. MONITORS' entries are gathered during the copy, in a small buffer of their own.
 */
#include "snapshot.h"
#include "arch.h"
#include "objects.h"
#include "owners.h"
#include "sampler.h"
#include "capture.h"
#include "snapshot_format.h"
#include "text.h"
#include "threads.h"
#include "history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A section whose entries were encoded into `payload` beforehand. */
static void put_section(cv_buf *b, uint32_t tag, const cv_buf *payload, uint32_t count) {
    size_t mark = buf_counted_section_begin(b, tag);
    buf_bytes(b, payload->data, payload->len);
    buf_counted_section_end(b, mark, count);
}

static void put_header(cv_buf *b) {
    buf_bytes(b, CV_MAGIC, 8);
    buf_u16(b, VERSION_MAJOR);
    buf_u16(b, VERSION_MINOR);
    buf_u32(b, 0);
}

/* ---- A set of ids (stack ids, object ids): open addressing, 0 is never stored ---- */

typedef struct {
    uint64_t *v;
    size_t    n, cap;     /* cap a power of two, or 0 */
    uint64_t  last;       /* the id added last (records in a row often name the same one) */
    int       failed;
} id_set;

static size_t id_slot(const id_set *s, uint64_t id) {
    size_t i = (size_t)(id * 0x9E3779B97F4A7C15ull) & (s->cap - 1);
    while (s->v[i] && s->v[i] != id) i = (i + 1) & (s->cap - 1);
    return i;
}

static void id_add(id_set *s, uint64_t id) {
    if (!id || id == s->last || s->failed) return;
    s->last = id;
    if ((s->n + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        uint64_t *v = calloc(cap, sizeof(uint64_t));
        if (!v) { s->failed = 1; return; }
        uint64_t *old = s->v;
        size_t oldcap = s->cap;
        s->v = v;
        s->cap = cap;
        s->n = 0;
        for (size_t i = 0; i < oldcap; i++) {
            if (old[i]) { s->v[id_slot(s, old[i])] = old[i]; s->n++; }
        }
        free(old);
    }
    size_t i = id_slot(s, id);
    if (!s->v[i]) { s->v[i] = id; s->n++; }
}

static int id_has(const id_set *s, uint64_t id) {
    return s->cap && id && s->v[id_slot(s, id)] == id;
}

/* ---- THREADS, LOSSES and MONITORS: from the history, while it and the states are pinned ---- */

/* A run of packed records in a pinned chunk. */
typedef struct packed_run {
    uint64_t       ring_id;
    uint32_t       count;
    const uint8_t *bytes;
    size_t         len;
} packed_run;

typedef struct {
    uint32_t nthreads;
    cv_buf   monitors;       /* SECTION_MONITORS' entries (a few per blocked thread) */
    uint32_t nmonitors;
    cv_buf   losses;         /* SECTION_LOSSES' entries */
    uint32_t nlosses;
    uint64_t torn;           /* records skipped as torn, over all rings */
    uint64_t snap_mono;      /* the snapshot's time: no record in it is later */
    uint64_t snap_epoch;
    cv_history_totals history;
    int      chunk_mode;     /* a repository chunk: one chunk alone, no live thread, no aged front;
                                its records in SECTION_RECORDS as the history packs them */
    struct packed_run *runs; /* chunk mode: the chunk's runs, as pass 1 found them */
    size_t   nruns, capruns;
    id_set   stacks;         /* chunk mode: the stack ids its records name */
    id_set   objects;        /* chunk mode: the object ids its records and threads name */
    uint64_t written, lost;  /* chunk mode: its threads' records written and lost */
    cv_buf   priors;         /* chunk mode: INFO chunk.prior's text, "RING=N," per thread */
    cv_total *totals;        /* the whole run's totals as pinned (not in chunk mode) */
    size_t   ntotals;
} ring_copy;

typedef struct {
    uint32_t kind;
    uint64_t from, to, records;
} loss;

/* One thread's records in the history: a SECTION_THREADS entry. */
typedef struct {
    uint64_t       ring_id;
    long           view;          /* index of its pinned state, -1: only in the history */
    cv_hist_thread desc;          /* its newest 'T' entry (strings in pinned chunks) */
    int            has_desc;
    uint64_t       prior;         /* of its first 'T' entry (chunk mode: the chunk's only one) */
    uint64_t       kept;          /* records in [since, snapshot] */
    uint64_t       outside;       /* records moved but outside it (before a reset, after the snapshot) */
    uint64_t       first_ts;      /* of the first kept */
    cv_record      last;          /* the newest kept */
    loss          *losses;        /* LOSS_OVERWRITTEN entries in the history, in order */
    size_t         nlosses, cap;
    uint64_t       lost_outside;  /* records of losses after the snapshot */
    size_t         records_at;    /* offset of its records in the output */
    uint64_t       placed;
    int            listed;        /* in SECTION_THREADS */
} stream;

typedef struct {
    stream  *s;
    size_t   count, cap;
    size_t  *slots;               /* open addressing by ring id: index + 1, 0 empty */
    size_t   nslots;
    int      failed;
} stream_map;

static size_t slot_of(const stream_map *m, uint64_t ring_id) {
    size_t i = (size_t)(ring_id * 0x9E3779B97F4A7C15ull) & (m->nslots - 1);
    while (m->slots[i] && m->s[m->slots[i] - 1].ring_id != ring_id) i = (i + 1) & (m->nslots - 1);
    return i;
}

static stream *stream_get(stream_map *m, uint64_t ring_id) {
    if (m->failed) return NULL;
    if ((m->count + 1) * 2 > m->nslots) {
        size_t n = m->nslots ? m->nslots * 2 : 1024;
        size_t *slots = calloc(n, sizeof(size_t));
        if (!slots) { m->failed = 1; return NULL; }
        free(m->slots);
        m->slots = slots;
        m->nslots = n;
        for (size_t k = 0; k < m->count; k++) m->slots[slot_of(m, m->s[k].ring_id)] = k + 1;
    }
    size_t i = slot_of(m, ring_id);
    if (m->slots[i]) return &m->s[m->slots[i] - 1];
    if (m->count == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 256;
        stream *bigger = realloc(m->s, cap * sizeof(stream));
        if (!bigger) { m->failed = 1; return NULL; }
        m->s = bigger;
        m->cap = cap;
    }
    stream *st = &m->s[m->count];
    memset(st, 0, sizeof(*st));
    st->ring_id = ring_id;
    st->view = -1;
    m->slots[i] = ++m->count;
    return st;
}

static void stream_map_free(stream_map *m) {
    for (size_t k = 0; k < m->count; k++) free(m->s[k].losses);
    free(m->s);
    free(m->slots);
}

static void add_loss(stream_map *m, stream *st, uint32_t kind, uint64_t from, uint64_t to, uint64_t records) {
    if (st->nlosses == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 4;
        loss *bigger = realloc(st->losses, cap * sizeof(loss));
        if (!bigger) { m->failed = 1; return; }
        st->losses = bigger;
        st->cap = cap;
    }
    st->losses[st->nlosses++] = (loss){kind, from, to, records};
}

/* Pass 1 over the pinned chunks: each thread's identity, counts and losses. */
static int scan_history(stream_map *m, const cv_hist_view *hv, uint64_t since, uint64_t snap, ring_copy *c) {
    for (size_t i = 0; i < hv->count; i++) {
        cv_hist_reader r;
        history_reader(&r, hv->chunks[i]->data, hv->used[i]);
        int kind;
        while ((kind = history_next(&r)) > 0) {
            if (kind == HIST_THREAD) {
                stream *st = stream_get(m, r.thread.ring_id);
                if (!st) return -1;
                if (!st->has_desc) st->prior = r.thread.prior;
                st->desc = r.thread;
                st->has_desc = 1;
                if (c->chunk_mode) id_add(&c->objects, r.thread.thread_obj);
            } else if (kind == HIST_RUN) {
                stream *st = stream_get(m, r.ring_id);
                if (!st) return -1;
                const uint8_t *from = r.p;
                uint32_t count = r.left;
                cv_record x;
                int got;
                while ((got = history_record(&r, &x)) > 0) {
                    if (x.ts < since || x.ts > snap) {
                        st->outside++;
                    } else {
                        if (!st->kept) st->first_ts = x.ts;
                        st->kept++;
                        int sample = (x.meta & 0xFF) == EVENT_OWNER_SAMPLE;
                        if (!sample) st->last = x;   /* the thread's own newest record, for its monitor state */
                        if (c->chunk_mode) {
                            id_add(&c->stacks, x.meta >> 32);
                            id_add(&c->objects, x.obj);
                            if (sample && x.arg2 > 0) id_add(&c->objects, (uint64_t)x.arg2);
                        }
                    }
                }
                if (got < 0) return -1;
                if (c->chunk_mode && count) {
                    if (c->nruns == c->capruns) {
                        size_t cap = c->capruns ? c->capruns * 2 : 64;
                        packed_run *bigger = realloc(c->runs, cap * sizeof(packed_run));
                        if (!bigger) { m->failed = 1; return -1; }
                        c->runs = bigger;
                        c->capruns = cap;
                    }
                    c->runs[c->nruns++] = (packed_run){r.ring_id, count, from, (size_t)(r.p - from)};
                }
            } else if (kind == HIST_LOSS) {
                stream *st = stream_get(m, r.ring_id);
                if (!st) return -1;
                /* A chunk's losses are all its own, whenever they were (its records' times bound
                 * neither the loss's start, a record of an older chunk, nor its end). */
                if (!c->chunk_mode && r.from_ns >= snap && r.from_ns != 0) st->lost_outside += r.records;
                else add_loss(m, st, LOSS_OVERWRITTEN, r.from_ns,
                              !c->chunk_mode && r.to_ns > snap ? snap : r.to_ns, r.records);
            }
        }
        if (kind < 0) return -1;
    }
    return m->failed ? -1 : 0;
}

/* Pass 2: each kept record into its thread's place in the output. */
static int place_records(stream_map *m, const cv_hist_view *hv, cv_buf *b, uint64_t since, uint64_t snap) {
    for (size_t i = 0; i < hv->count; i++) {
        cv_hist_reader r;
        history_reader(&r, hv->chunks[i]->data, hv->used[i]);
        int kind;
        while ((kind = history_next(&r)) > 0) {
            if (kind != HIST_RUN) continue;
            stream *st = &m->s[m->slots[slot_of(m, r.ring_id)] - 1];
            cv_record x;
            int got;
            while ((got = history_record(&r, &x)) > 0) {
                if (x.ts < since || x.ts > snap || !st->records_at || st->placed >= st->kept) continue;
                ring_encode(&x, b->data + st->records_at + st->placed * CV_RECORD_BYTES);
                st->placed++;
            }
            if (got < 0) return -1;
        }
        if (kind < 0) return -1;
    }
    return 0;
}

/* Pass 2, packed (chunk mode: every record of the chunk is kept): SECTION_RECORDS, each run of a
 * listed thread copied as the history packed it. -1 if pass 1 kept a record it did not find here. */
static int put_packed(cv_buf *b, stream_map *m, const ring_copy *c) {
    size_t mark = buf_counted_section_begin(b, SECTION_RECORDS);
    uint32_t n = 0;
    for (size_t i = 0; i < c->nruns; i++) {
        const packed_run *run = &c->runs[i];
        stream *st = &m->s[m->slots[slot_of(m, run->ring_id)] - 1];
        if (!st->listed || run->len > UINT32_MAX) continue;
        buf_u64(b, run->ring_id);
        buf_u32(b, run->count);
        buf_u32(b, (uint32_t)run->len);
        buf_bytes(b, run->bytes, run->len);
        st->placed += run->count;
        n++;
    }
    for (size_t k = 0; k < m->count; k++) {
        if (m->s[k].listed && m->s[k].placed != m->s[k].kept) return -1;
    }
    buf_counted_section_end(b, mark, n);
    return 0;
}

/* One SECTION_LOSSES entry; a time range that would end before it begins ends at its start. */
static void put_loss(ring_copy *c, uint64_t ring_id, uint32_t kind, uint64_t from, uint64_t to, uint64_t records) {
    buf_u64(&c->losses, ring_id);
    buf_u32(&c->losses, kind);
    buf_u64(&c->losses, from);
    buf_u64(&c->losses, to < from ? from : to);
    buf_u64(&c->losses, records);
    c->nlosses++;
}

/* The thread's losses, complete and in order: the explicit ones, the records still pending, and
 * in front the records that aged out (the rest of what was moved and is neither kept nor lost
 * later). A loss that ends before the first record kept joins the front one. Returns the sum. */
static uint64_t complete_losses(ring_copy *c, stream *st, uint64_t moved, const cv_hist_cursor *cur,
                                uint64_t from_start, uint64_t snap) {
    uint64_t explicit = 0;
    for (size_t k = 0; k < st->nlosses; k++) explicit += st->losses[k].records;
    uint64_t pending = cur ? cur->pending_lost : 0;
    uint64_t accounted = st->kept + st->outside + st->lost_outside + explicit + pending;
    uint64_t aged = !c->chunk_mode && moved > accounted ? moved - accounted : 0;
    uint64_t front_to = st->kept ? st->first_ts : snap;
    uint64_t front = aged, sum = 0;
    for (size_t k = 0; k < st->nlosses; k++) {
        if (aged && st->losses[k].to <= front_to) front += st->losses[k].records;
    }
    if (front) {
        put_loss(c, st->ring_id, aged ? LOSS_AGED : LOSS_OVERWRITTEN, from_start, front_to, front);
        sum += front;
    }
    for (size_t k = 0; k < st->nlosses; k++) {
        const loss *l = &st->losses[k];
        if (aged && l->to <= front_to) continue;
        put_loss(c, st->ring_id, l->kind, l->from ? l->from : from_start, l->to, l->records);
        sum += l->records;
    }
    if (pending) {
        put_loss(c, st->ring_id, LOSS_OVERWRITTEN, cur->pending_from ? cur->pending_from : from_start, snap, pending);
        sum += pending;
    }
    return sum;
}

/* One SECTION_THREADS entry, its records' place left for place_records. */
static void put_thread(cv_buf *b, ring_copy *c, stream *st, const cv_hist_thread *id, uint64_t thread_obj,
                       const char *name, uint64_t written, uint64_t dropped, uint32_t capacity,
                       const cv_hist_cursor *cur, uint64_t from_start) {
    uint64_t overwritten = complete_losses(c, st, written, cur, from_start, c->snap_mono);
    if (c->chunk_mode) {
        written = st->kept + overwritten;   /* this chunk's part of the thread */
        char p[48];
        int n = snprintf(p, sizeof(p), "%s%llu=%llu", c->priors.len ? "," : "", (unsigned long long)st->ring_id,
                         (unsigned long long)st->prior);
        buf_bytes(&c->priors, p, (size_t)n);
    }
    c->written += written;
    c->lost += overwritten;
    buf_u64(b, st->ring_id);
    buf_u64(b, (uint64_t)id->java_tid);
    buf_u64(b, thread_obj);
    buf_u32(b, id->flags);
    buf_u64(b, id->start_ns);
    buf_u64(b, id->end_ns);
    buf_u64(b, written);
    buf_u64(b, overwritten);
    buf_u64(b, dropped);
    buf_u64(b, 0);   /* torn: a record torn while drained is overwritten, a loss */
    buf_str(b, name);
    buf_str(b, id->group);
    buf_str(b, id->parent_group);
    buf_u32(b, capacity);
    st->listed = 1;
    c->nthreads++;
    if (c->chunk_mode) {
        buf_u32(b, 0);   /* its records follow in SECTION_RECORDS */
        return;
    }
    buf_u32(b, (uint32_t)st->kept);
    uint8_t *out = buf_claim(b, (size_t)st->kept * CV_RECORD_BYTES);
    if (!out) return;
    st->records_at = (size_t)(out - b->data);
    memset(out, 0, (size_t)st->kept * CV_RECORD_BYTES);
    buf_advance(b, (size_t)st->kept * CV_RECORD_BYTES);
}

/* A string of the history (not NUL-terminated) as a C string, or "" if out of memory. */
static char *hist_str(const char *s, uint32_t len) {
    char *d = malloc((size_t)len + 1);
    if (!d) return NULL;
    if (len) memcpy(d, s, len);
    d[len] = 0;
    return d;
}

/* Current name of a live thread, cut to CV_NAME_MAX_BYTES, or NULL. Caller frees. */
static char *live_thread_name(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof(info));
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE) return NULL;
    if (info.thread_group) (*jni)->DeleteLocalRef(jni, info.thread_group);
    if (info.context_class_loader) (*jni)->DeleteLocalRef(jni, info.context_class_loader);
    char *name = info.name ? cv_name_dup(info.name, CV_NAME_MAX_BYTES) : NULL;
    if (info.name) (*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
    return name;
}

static int cmp_ring(const void *a, const void *b) {
    uint64_t x = (*(stream *const *)a)->ring_id, y = (*(stream *const *)b)->ring_id;
    return x < y ? -1 : x > y;
}

/* SECTION_THREADS: every pinned thread (but threads that ended before a reset), then the threads
 * the history alone still holds (their states were evicted), by ring id, then the GC ring as a
 * pseudo-thread. A thread whose Thread object is still reachable is named by its id now (an id
 * taken before a reset is stale) and, if alive, by its name now. last[i] receives views[i]'s
 * newest record kept. */
static int put_threads(cv_buf *b, JNIEnv *jni, const cv_snapshot_source *src, cv_thread_view *views, size_t nviews,
                       const cv_hist_view *hv, const cv_hist_cursor *gc_cur, uint64_t since, cv_record *last,
                       ring_copy *c, cv_error *err) {
    jvmtiEnv *jvmti = src->jvmti;
    uint64_t snap = c->snap_mono;
    uint64_t rec_start = src->reset_mono ? src->reset_mono : src->start_mono;
    stream_map m;
    memset(&m, 0, sizeof(m));
    int rc = -1;
    stream **order = NULL;
    if (scan_history(&m, hv, since, snap, c)) {
        cv_fail(err, m.failed ? "out of memory reading the history" : "the history holds a malformed entry");
        goto done;
    }
    size_t bound = 64;
    for (size_t i = 0; i < nviews; i++) {
        stream *st = stream_get(&m, views[i].ring_id);
        if (!st) break;
        st->view = (long)i;
    }
    if (!stream_get(&m, 0) || m.failed) {
        cv_fail(err, "out of memory reading the history");
        goto done;
    }
    order = malloc(m.count * sizeof(stream *));
    if (!order) {
        cv_fail(err, "out of memory reading the history");
        goto done;
    }
    size_t norder = 0;
    for (size_t i = 0; i < nviews; i++) {
        const cv_thread_view *v = &views[i];
        if ((v->flags & RING_ENDED) && v->end_ns < since) continue; /* ended before a reset */
        order[norder++] = &m.s[m.slots[slot_of(&m, v->ring_id)] - 1];
    }
    size_t first_only = norder;
    for (size_t k = 0; k < m.count; k++) {
        stream *st = &m.s[k];
        if (st->view < 0 && st->ring_id != 0 && st->has_desc &&
            (st->kept || st->nlosses || (!c->chunk_mode && st->desc.end_ns >= since))) {
            order[norder++] = st;
        }
    }
    qsort(order + first_only, norder - first_only, sizeof(stream *), cmp_ring);
    stream *gc = &m.s[m.slots[slot_of(&m, 0)] - 1];
    if (!c->chunk_mode || gc->kept || gc->nlosses) order[norder++] = gc;
    for (size_t k = 0; k < norder; k++) {
        const stream *st = order[k];
        bound += 128 + 3 * (CV_NAME_MAX_BYTES + 8) + (c->chunk_mode ? 0 : (size_t)st->kept * CV_RECORD_BYTES);
    }
    for (size_t i = 0; c->chunk_mode && i < hv->count; i++) bound += hv->used[i];
    buf_reserve(b, bound);
    size_t mark = buf_counted_section_begin(b, SECTION_THREADS);
    for (size_t k = 0; k < norder; k++) {
        stream *st = order[k];
        if (st == gc) {
            cv_hist_thread id;
            memset(&id, 0, sizeof(id));
            id.java_tid = -1;
            id.flags = RING_SYSTEM;
            id.start_ns = src->start_mono;
            id.group = id.parent_group = "";
            put_thread(b, c, st, &id, 0, "GC",
                       c->chunk_mode ? 0 : gc_cur->drained - (st->has_desc ? st->desc.base : 0), 0,
                       src->gc_ring->capacity, c->chunk_mode ? NULL : gc_cur, rec_start);
        } else if (st->view >= 0) {
            cv_thread_view *v = &views[st->view];
            char *live_name = NULL;
            uint64_t thread_obj = v->thread_obj;
            jobject thread = v->t->thread_ref ? (*jni)->NewLocalRef(jni, v->t->thread_ref) : NULL;
            if (thread) {
                uint64_t id = objects_id(jvmti, jni, thread, OBJ_THREAD);
                if (id) thread_obj = id;
                if (!(v->flags & RING_ENDED)) live_name = live_thread_name(jvmti, jni, thread);
                (*jni)->DeleteLocalRef(jni, thread);
            }
            cv_hist_thread id;
            memset(&id, 0, sizeof(id));
            id.java_tid = v->java_tid;
            id.flags = v->flags;
            id.start_ns = v->start_ns;
            id.end_ns = v->end_ns;
            id.group = v->group;
            id.parent_group = v->parent_group;
            uint64_t from = (v->flags & RING_LATE) || v->start_ns < rec_start ? rec_start : v->start_ns;
            put_thread(b, c, st, &id, thread_obj, live_name ? live_name : v->name,
                       v->hist.drained - v->hist_base + v->hist.added,
                       v->dropped, v->t->ring->capacity, &v->hist, from);
            free(live_name);
        } else {
            const cv_hist_thread *d = &st->desc;
            char *name = hist_str(d->name, d->name_len);
            char *group = hist_str(d->group, d->group_len);
            char *parent = hist_str(d->parent_group, d->parent_len);
            cv_hist_thread id = *d;
            id.group = group ? group : "";
            id.parent_group = parent ? parent : "";
            uint64_t from = (d->flags & RING_LATE) || d->start_ns < rec_start ? rec_start : d->start_ns;
            put_thread(b, c, st, &id, d->thread_obj, name ? name : "",
                       c->chunk_mode ? 0 : d->written - d->base, c->chunk_mode ? 0 : d->dropped,
                       src->buffer_capacity, NULL, from);
            free(name);
            free(group);
            free(parent);
        }
    }
    if (b->failed) {
        rc = 0;   /* reported by the caller */
        goto done;
    }
    if (c->chunk_mode) {
        buf_counted_section_end(b, mark, c->nthreads);
        if (put_packed(b, &m, c)) {
            cv_fail(err, "the history holds a malformed entry");
            goto done;
        }
    } else {
        if (place_records(&m, hv, b, since, snap)) {
            cv_fail(err, "the history holds a malformed entry");
            goto done;
        }
        buf_counted_section_end(b, mark, c->nthreads);   /* its CRC over the records placed */
    }
    for (size_t i = 0; i < nviews; i++) {
        stream *st = &m.s[m.slots[slot_of(&m, views[i].ring_id)] - 1];
        if (st->kept) last[i] = st->last;
    }
    rc = 0;
done:
    free(order);
    stream_map_free(&m);
    return rc;
}

/* SECTION_MONITORS' entries from the caller's thread states (see snapshot.h). The
 * monitor is identified by the thread's newest record when it is the matching enter or
 * wait, otherwise, for a blocked thread, by its identity hash among the described
 * objects. A waiting thread (MSTATE_WAITING: in Object.wait, or parked with a blocker;
 * ThreadInfo does not tell them apart) whose newest record is a PARK on that object is
 * parked (MSTATE_PARKED). */
static void put_monitor_states(ring_copy *c, cv_thread_view *views, size_t nviews, const cv_record *last,
                               const cv_monitor_states *states) {
    cv_buf *mb = &c->monitors;
    for (size_t i = 0; i < states->count; i++) {
        uint32_t mstate = (uint32_t)states->states[i];
        uint32_t hash = (uint32_t)states->hashes[i];
        cv_thread_view *v = threads_find_live(views, nviews, states->thread_ids[i]);
        if (!v || (mstate != MSTATE_BLOCKED && mstate != MSTATE_WAITING && mstate != MSTATE_PARKED)) continue;
        const cv_record *r = &last[v - views];
        uint8_t type = (uint8_t)(r->meta & 0xFF);
        int found = 0;
        uint64_t object = 0;
        int matches = r->obj != 0 && objects_hash(r->obj, &found) == hash && found;
        if (mstate == MSTATE_BLOCKED) {
            object = type == EVENT_MONITOR_ENTER && matches ? r->obj : objects_find_by_hash(hash);
        } else if (type == EVENT_MONITOR_WAIT && matches && mstate == MSTATE_WAITING) {
            object = r->obj;
        } else if (type == EVENT_PARK && matches) {
            object = r->obj;
            mstate = MSTATE_PARKED;
        } else {
            continue; /* a wait or park the recorder did not see: not tied to the recording */
        }
        buf_u64(mb, v->ring_id);
        buf_u32(mb, mstate);
        buf_u64(mb, object);
        buf_u32(mb, hash);
        buf_u64(mb, (uint64_t)states->owners[i]);
        c->nmonitors++;
    }
}

/* Writes SECTION_THREADS into `b` and gathers MONITORS' and LOSSES' entries. The snapshot's time
 * is taken first: the drain that follows moves every record stamped before it (but one whose
 * thread was preempted between its stamp and its write), and records stamped after it stay in the
 * history for the next snapshot. */
static int copy_rings(cv_buf *b, JNIEnv *jni, const cv_snapshot_source *src, const cv_monitor_states *states,
                      ring_copy *c, cv_error *err) {
    memset(c, 0, sizeof(*c));
    buf_init(&c->monitors);
    buf_init(&c->losses);
    c->snap_mono = cv_now_ns();
    c->snap_epoch = cv_epoch_ns();
    threads_drain(jni);
    size_t nviews = 0;
    cv_hist_view hv;
    cv_hist_cursor gc;
    cv_thread_view *views = threads_history_pin(&nviews, &hv, &gc, &c->history, &c->totals, &c->ntotals);
    if (!views) return cv_fail(err, "out of memory pinning thread states");
    cv_record *last = calloc(nviews ? nviews : 1, sizeof(cv_record));
    if (!last) {
        threads_history_unpin(jni, views, nviews, &hv);
        return cv_fail(err, "out of memory reading the rings");
    }
    int rc = put_threads(b, jni, src, views, nviews, &hv, &gc, src->reset_mono, last, c, err);
    if (rc == 0) put_monitor_states(c, views, nviews, last, states);
    free(last);
    threads_history_unpin(jni, views, nviews, &hv);
    return rc;
}

/* ---- INFO ---- */

static void put_kv(cv_buf *b, uint32_t *n, const char *key, const char *value) {
    buf_str(b, key);
    buf_str(b, value);
    (*n)++;
}

static void put_kv_u64(cv_buf *b, uint32_t *n, const char *key, uint64_t value) {
    char s[32];
    snprintf(s, sizeof(s), "%llu", (unsigned long long)value);
    put_kv(b, n, key, s);
}

static void put_kv_property(jvmtiEnv *jvmti, cv_buf *b, uint32_t *n, const char *key, const char *property) {
    char *value = NULL;
    if ((*jvmti)->GetSystemProperty(jvmti, property, &value) == JVMTI_ERROR_NONE) {
        put_kv(b, n, key, value);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)value);
    }
}

/* bench.timing=on (timing.h): timing.clock, then one key per event type, timing.<type>. */
static void put_timing(cv_buf *b, uint32_t *n, const cv_snapshot_source *src) {
    char v[256];
    /* The timing window's start (timing.h) in the monotonic clock: the timing's own start
     * until a restart. */
    uint64_t from = timing_window_start();
    uint64_t from_ns = from > src->timing_ticks0
                           ? src->timing_mono0 + (uint64_t)((double)(from - src->timing_ticks0) * src->timing_ns_per_tick)
                           : src->timing_mono0;
    snprintf(v, sizeof(v), "source=%s ns_per_tick=%.6f seconds=%.3f stamp_ns=%.2f window_from_ns=%llu",
#if defined(__x86_64__) || defined(__i386__)
             "rdtsc",
#else
             "monotonic",
#endif
             src->timing_ns_per_tick, src->timing_seconds, src->timing_stamp_ns, (unsigned long long)from_ns);
    put_kv(b, n, "timing.clock", v);
    cv_timing_total *totals = calloc(CV_TEV_COUNT, sizeof(*totals));
    size_t cap = 16384;
    char *text = malloc(cap);
    if (!totals || !text) {
        free(totals);
        free(text);
        return;
    }
    threads_timing(totals);
    for (int i = 0; i < CV_TEV_COUNT; i++) {
        char name[32], key[48];
        timing_event_name(i, name, sizeof(name));
        snprintf(key, sizeof(key), "timing.%s", name);
        size_t need = timing_format(&totals[i], src->timing_ns_per_tick, text, cap);
        if (need >= cap) {
            char *bigger = realloc(text, need + 1);
            if (!bigger) continue;
            text = bigger;
            cap = need + 1;
            timing_format(&totals[i], src->timing_ns_per_tick, text, cap);
        }
        put_kv(b, n, key, text);
    }
    cv_timing_slow top[CV_TIMING_SLOWEST_REPORTED];
    size_t ntop = threads_timing_slowest(top, CV_TIMING_SLOWEST_REPORTED);
    size_t need = timing_format_slowest(top, ntop, src->timing_ticks0, src->timing_mono0, src->timing_ns_per_tick,
                                        text, cap);
    if (need < cap) put_kv(b, n, "timing.slowest", text);
    free(text);
    free(totals);
}

static void put_info(cv_buf *b, const cv_snapshot_source *src, const ring_copy *c) {
    /* After a reset the recording starts at the reset; a chunk at its first record. */
    uint64_t start_mono = src->reset_mono ? src->reset_mono : src->start_mono;
    if (c->chunk_mode && src->chunk) start_mono = src->chunk->first_ts > start_mono ? src->chunk->first_ts : start_mono;
    uint64_t start_epoch = src->start_epoch + (start_mono - src->start_mono);
    cv_thread_totals tt;
    threads_totals(&tt);
    char pid[32];
    snprintf(pid, sizeof(pid), "%ld", (long)getpid());

    size_t mark = buf_counted_section_begin(b, SECTION_INFO);
    uint32_t n = 0;
    put_kv(b, &n, "agent.version", src->agent_version);
    put_kv(b, &n, "pid", pid);
    put_kv_property(src->jvmti, b, &n, "jvm.name", "java.vm.name");
    put_kv_property(src->jvmti, b, &n, "jvm.version", "java.vm.version");
    put_kv_property(src->jvmti, b, &n, "java.command", "sun.java.command");
    put_kv(b, &n, "options", src->options);
    put_kv(b, &n, "monitor.owners", owners_mode());
    put_kv(b, &n, "monitor.releasers", owners_releasers_mode());
    char samples[256];
    sampler_info(samples, sizeof(samples));
    put_kv(b, &n, "owners.samples", samples);
    put_kv(b, &n, "objects.idcache", src->id_cache);
    put_kv_u64(b, &n, "start.monotonic.ns", start_mono);
    put_kv_u64(b, &n, "start.epoch.ns", start_epoch);
    put_kv_u64(b, &n, "snapshot.monotonic.ns", c->snap_mono);
    put_kv_u64(b, &n, "snapshot.epoch.ns", c->snap_epoch);
    put_kv_u64(b, &n, "stack.depth", src->stack_depth);
    put_kv_u64(b, &n, "buffer.bytes", src->buffer_bytes);
    put_kv_u64(b, &n, "memory.cap.bytes", src->memory_cap);
    put_kv_u64(b, &n, "records.written", c->chunk_mode ? c->written : tt.written + ring_written(src->gc_ring));
    put_kv_u64(b, &n, "records.overwritten", c->chunk_mode ? c->lost : c->history.lost_records);
    put_kv_u64(b, &n, "records.aged", c->chunk_mode ? 0 : c->history.aged_records);
    put_kv_u64(b, &n, "records.dropped", tt.dropped + threads_dropped_no_ring());
    put_kv_u64(b, &n, "records.torn", c->torn);
    char history[1280];
    snprintf(history, sizeof(history), "memory maxsize=%llu maxage=%llu chunks=%llu bytes=%llu drain_nice=%d%s%s%s",
             (unsigned long long)c->history.max_bytes, (unsigned long long)c->history.max_age_ns,
             (unsigned long long)c->history.chunks, (unsigned long long)c->history.bytes, src->drain_nice,
             src->repository ? " repository=" : "", src->repository ? src->repository : "",
             !src->repository ? "" : src->repository_writer ? " writer=thread" : " writer=drain");
    put_kv(b, &n, "history", history);
    if (c->history.from_ns) put_kv_u64(b, &n, "history.from.ns", c->history.from_ns);
    if (!c->chunk_mode) {
        char totals[96];
        snprintf(totals, sizeof(totals), "from=%llu entries=%llu dropped=%llu",
                 (unsigned long long)c->history.totals_from, (unsigned long long)c->ntotals,
                 (unsigned long long)c->history.totals_dropped);
        put_kv(b, &n, "totals", totals);
    }
    if (c->chunk_mode && src->chunk) {
        char chunk[96];
        snprintf(chunk, sizeof(chunk), "seq=%llu first=%llu last=%llu", (unsigned long long)src->chunk->seq,
                 (unsigned long long)src->chunk->first_ts, (unsigned long long)src->chunk->last_ts);
        put_kv(b, &n, "chunk", chunk);
        uint64_t rec_start = src->reset_mono ? src->reset_mono : src->start_mono;
        put_kv_u64(b, &n, "chunk.recording.start.ns", rec_start);
        put_kv_u64(b, &n, "chunk.prior.total", src->chunk->prior_total);
        size_t len = c->priors.failed ? 0 : c->priors.len;
        buf_str(b, "chunk.prior");
        buf_u32(b, (uint32_t)len);
        if (len) buf_bytes(b, c->priors.data, len);
        n++;
    }
    put_kv_u64(b, &n, "threads.evicted", tt.evicted);
    put_kv_u64(b, &n, "threads.retired", tt.retired);
    put_kv_u64(b, &n, "stacks.dropped", stacks_dropped(src->stacks));
    char capture[1024];
    capture_describe(capture, sizeof(capture));
    put_kv(b, &n, "stacks.capture", capture);
    if (capture_oracle_describe(capture, sizeof(capture))) put_kv(b, &n, "stacks.oracle", capture);
    capture_cache_describe(capture, sizeof(capture));
    put_kv(b, &n, "stacks.cache", capture);
    put_kv_u64(b, &n, "objects.dropped", objects_dropped());
    put_kv_u64(b, &n, "objects.swept", objects_swept());
    char held[160];
    if (src->held_off) {
        snprintf(held, sizeof(held), "%s", src->held_off);
    } else {
        uint64_t taken, made, full, now;
        objects_hold_counts(&taken, &made, &full, &now);
        snprintf(held, sizeof(held), "on taken=%llu made=%llu full=%llu now=%llu", (unsigned long long)taken,
                 (unsigned long long)made, (unsigned long long)full, (unsigned long long)now);
    }
    put_kv(b, &n, "objects.held", held);
    if (src->timing) put_timing(b, &n, src);
    buf_counted_section_end(b, mark, n);
}

/* ---- STACKS, collecting the methods they use ---- */

typedef struct {
    uint64_t *ids;
    size_t    count, cap;
    int       failed;
} method_list;

typedef struct {
    cv_buf      *b;
    uint32_t     count;
    method_list *methods;
    const id_set *only;   /* NULL: every stack */
} stack_ctx;

static void add_method(method_list *m, uint64_t id) {
    if (m->count == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 256;
        uint64_t *ids = realloc(m->ids, cap * sizeof(uint64_t));
        if (!ids) {
            m->failed = 1;
            return;
        }
        m->ids = ids;
        m->cap = cap;
    }
    m->ids[m->count++] = id;
}

static void visit_stack(void *p, uint32_t id, uint32_t flags, const cv_frame *frames, uint32_t depth) {
    stack_ctx *c = p;
    if (c->only && !id_has(c->only, id)) return;
    buf_u32(c->b, id);
    buf_u32(c->b, flags);
    buf_u32(c->b, depth);
    for (uint32_t i = 0; i < depth; i++) {
        buf_u64(c->b, frames[i].method);
        buf_u64(c->b, (uint64_t)frames[i].location);
        add_method(c->methods, frames[i].method);
    }
    c->count++;
}

static void put_stacks(cv_buf *b, cv_stacks *stacks, method_list *methods, const id_set *only) {
    stack_ctx c = {b, 0, methods, only};
    size_t mark = buf_counted_section_begin(b, SECTION_STACKS);
    stacks_foreach(stacks, visit_stack, &c);
    buf_counted_section_end(b, mark, c.count);
}

/* ---- METHODS: each method of a stack once ---- */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void put_method(jvmtiEnv *jvmti, JNIEnv *jni, cv_buf *b, jmethodID m) {
    char *name = NULL, *sig = NULL;
    jclass cls = NULL;
    buf_u64(b, (uint64_t)(uintptr_t)m);
    if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &cls) != JVMTI_ERROR_NONE) cls = NULL;
    buf_u64(b, cls ? objects_id(jvmti, jni, cls, OBJ_CLASS) : 0);
    if (cls) (*jni)->DeleteLocalRef(jni, cls);
    if ((*jvmti)->GetMethodName(jvmti, m, &name, &sig, NULL) != JVMTI_ERROR_NONE) {
        name = sig = NULL;
    }
    buf_str(b, name ? name : "<unknown>");
    buf_str(b, sig ? sig : "");
    if (name) (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
    if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    jint entries = 0;
    jvmtiLineNumberEntry *table = NULL;
    if ((*jvmti)->GetLineNumberTable(jvmti, m, &entries, &table) != JVMTI_ERROR_NONE) {
        buf_u32(b, (uint32_t)-1);
        return;
    }
    buf_u32(b, (uint32_t)entries);
    for (jint i = 0; i < entries; i++) {
        buf_u64(b, (uint64_t)table[i].start_location);
        buf_u32(b, (uint32_t)table[i].line_number);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)table);
}

static void put_methods(jvmtiEnv *jvmti, JNIEnv *jni, cv_buf *b, method_list *methods) {
    qsort(methods->ids, methods->count, sizeof(uint64_t), cmp_u64);
    size_t mark = buf_counted_section_begin(b, SECTION_METHODS);
    uint32_t n = 0;
    for (size_t i = 0; i < methods->count; i++) {
        if (i > 0 && methods->ids[i] == methods->ids[i - 1]) continue;
        put_method(jvmti, jni, b, (jmethodID)(uintptr_t)methods->ids[i]);
        n++;
    }
    buf_counted_section_end(b, mark, n);
}

/* ---- CLASSES and OBJECTS: one pass over the object table ---- */

typedef struct {
    jvmtiEnv *jvmti;
    JNIEnv   *jni;
    cv_buf    classes;    /* SECTION_CLASSES' entries */
    cv_buf    objects;    /* SECTION_OBJECTS' entries */
    uint32_t  nclasses, nobjects;
    const id_set *only;   /* NULL: every object; else these, and every class */
} object_copy;

static void put_class(object_copy *c, const cv_object *o) {
    jvmtiEnv *jvmti = c->jvmti;
    JNIEnv *jni = c->jni;
    char *sig = NULL, *source = NULL;
    jobject cls = o->ref ? (*jni)->NewLocalRef(jni, o->ref) : NULL;
    if (cls) {
        if ((*jvmti)->GetClassSignature(jvmti, (jclass)cls, &sig, NULL) != JVMTI_ERROR_NONE) sig = NULL;
        if ((*jvmti)->GetSourceFileName(jvmti, (jclass)cls, &source) != JVMTI_ERROR_NONE) source = NULL;
        (*jni)->DeleteLocalRef(jni, cls);
    }
    buf_u64(&c->classes, o->id);
    buf_str(&c->classes, sig);
    buf_str(&c->classes, source);
    if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    if (source) (*jvmti)->Deallocate(jvmti, (unsigned char *)source);
    c->nclasses++;
}

static void visit_object(void *p, const cv_object *o) {
    object_copy *c = p;
    if (c->only && o->kind != OBJ_CLASS && !id_has(c->only, o->id)) return;
    if (o->kind == OBJ_CLASS) put_class(c, o);
    buf_u64(&c->objects, o->id);
    buf_u32(&c->objects, o->hash);
    buf_u32(&c->objects, o->kind);
    buf_u64(&c->objects, o->class_id);
    c->nobjects++;
}

/* After the rings and the methods (which may tag new classes). An object id is described
 * before any thread can read it, and an object's class before the object (objects.h), so
 * every object a copied record names is in OBJECTS, and every object's class in CLASSES,
 * unless the table was full (objects.dropped). Two passes would miss the class of an
 * object tagged between them. Returns -1 if memory ran out. */
static int put_classes_and_objects(jvmtiEnv *jvmti, JNIEnv *jni, cv_buf *b, const id_set *only) {
    object_copy c;
    memset(&c, 0, sizeof(c));
    c.only = only;
    c.jvmti = jvmti;
    c.jni = jni;
    buf_init(&c.classes);
    buf_init(&c.objects);
    objects_foreach(jni, visit_object, &c);
    put_section(b, SECTION_CLASSES, &c.classes, c.nclasses);
    put_section(b, SECTION_OBJECTS, &c.objects, c.nobjects);
    int failed = c.classes.failed || c.objects.failed;
    buf_free(&c.classes);
    buf_free(&c.objects);
    return failed ? -1 : 0;
}

/* SECTION_TOTALS: the whole run's blocks, waits and parks (history.h, "Whole-run totals"). */
static void put_totals(cv_buf *b, const cv_total *t, size_t n) {
    size_t mark = buf_counted_section_begin(b, SECTION_TOTALS);
    for (size_t i = 0; i < n; i++) {
        buf_u64(b, t[i].ring_id);
        buf_u32(b, t[i].kind);
        buf_u64(b, t[i].obj);
        buf_u32(b, t[i].stack);
        buf_u64(b, t[i].count);
        buf_u64(b, t[i].total_ns);
        buf_u64(b, t[i].max_ns);
    }
    buf_counted_section_end(b, mark, (uint32_t)n);
}

static void put_end(cv_buf *b) {
    size_t mark = buf_section_begin(b, SECTION_END);
    buf_section_end(b, mark);
}

int snapshot_encode(JNIEnv *jni, const cv_snapshot_source *src, const cv_monitor_states *states,
                    cv_buf *b, cv_error *err) {
    ring_copy rings;
    put_header(b);
    if (copy_rings(b, jni, src, states, &rings, err)) {
        buf_free(&rings.monitors);
        buf_free(&rings.losses);
        free(rings.totals);
        return -1;
    }
    put_info(b, src, &rings);
    method_list methods;
    memset(&methods, 0, sizeof(methods));
    put_stacks(b, src->stacks, &methods, NULL);
    put_methods(src->jvmti, jni, b, &methods);
    free(methods.ids);
    int objects_failed = put_classes_and_objects(src->jvmti, jni, b, NULL);
    put_section(b, SECTION_MONITORS, &rings.monitors, rings.nmonitors);
    put_section(b, SECTION_LOSSES, &rings.losses, rings.nlosses);
    put_totals(b, rings.totals, rings.ntotals);
    put_end(b);

    int failed = b->failed || rings.monitors.failed || rings.losses.failed || methods.failed || objects_failed;
    buf_free(&rings.monitors);
    buf_free(&rings.losses);
    free(rings.totals);
    if (b->too_big) {
        return cv_fail(err, "the snapshot would be larger than %llu bytes, the most a Java byte[] holds; "
                       "lower maxsize", (unsigned long long)b->limit);
    }
    return failed ? cv_fail(err, "out of memory while encoding the snapshot") : 0;
}

int snapshot_encode_chunk(JNIEnv *jni, const cv_snapshot_source *src, const cv_chunk *chunk, uint32_t used,
                          cv_buf *b, cv_error *err) {
    ring_copy c;
    memset(&c, 0, sizeof(c));
    buf_init(&c.monitors);
    buf_init(&c.losses);
    buf_init(&c.priors);
    c.chunk_mode = 1;
    cv_history *h = threads_history();
    history_lock(h);
    history_totals(h, &c.history);
    history_unlock(h);
    c.snap_mono = chunk->last_ts;
    c.snap_epoch = src->start_epoch + (chunk->last_ts - src->start_mono);
    cv_chunk *one = (cv_chunk *)chunk;
    cv_hist_view hv = {&one, &used, 1};
    cv_hist_cursor none;
    memset(&none, 0, sizeof(none));
    put_header(b);
    int rc = put_threads(b, jni, src, NULL, 0, &hv, &none, 0, NULL, &c, err);
    if (rc == 0) {
        put_info(b, src, &c);
        method_list methods;
        memset(&methods, 0, sizeof(methods));
        put_stacks(b, src->stacks, &methods, &c.stacks);
        put_methods(src->jvmti, jni, b, &methods);
        free(methods.ids);
        int objects_failed = put_classes_and_objects(src->jvmti, jni, b, &c.objects);
        put_section(b, SECTION_MONITORS, &c.monitors, 0);
        put_section(b, SECTION_LOSSES, &c.losses, c.nlosses);
        put_end(b);
        if (b->failed || c.losses.failed || c.priors.failed || methods.failed || objects_failed || c.stacks.failed || c.objects.failed) {
            rc = cv_fail(err, "out of memory while encoding a chunk");
        }
    }
    buf_free(&c.monitors);
    buf_free(&c.losses);
    buf_free(&c.priors);
    free(c.runs);
    free(c.stacks.v);
    free(c.objects.v);
    return rc;
}
