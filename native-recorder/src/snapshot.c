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
#include "capture.h"
#include "snapshot_format.h"
#include "text.h"
#include "threads.h"

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

/* ---- THREADS and MONITORS: copied from the rings while the states are pinned ---- */

typedef struct {
    uint32_t nthreads;
    cv_buf   monitors;       /* SECTION_MONITORS' entries (a few per blocked thread) */
    uint32_t nmonitors;
    uint64_t torn;           /* records skipped as torn, over all rings */
    uint64_t snap_mono;      /* the snapshot's time, read after the last ring was copied */
    uint64_t snap_epoch;
} ring_copy;

/* One ring as a SECTION_THREADS entry, straight into the output: the records are copied
 * once, from the ring into `b`, leaving out those older than `since`. `name` is the name
 * to write, `thread_obj` the Thread object's id; *last (if given) receives the newest
 * record kept. */
static void put_ring(cv_buf *b, ring_copy *c, const cv_thread_view *v, const cv_ring *ring, const char *name,
                     uint64_t thread_obj, uint64_t since, cv_record *last) {
    uint32_t cap = ring->capacity;
    buf_u64(b, v->ring_id);
    buf_u64(b, (uint64_t)v->java_tid);
    buf_u64(b, thread_obj);
    buf_u32(b, v->flags);
    buf_u64(b, v->start_ns);
    buf_u64(b, v->end_ns);
    size_t counters = b->len;     /* written, overwritten, dropped, torn: patched below */
    buf_u64(b, 0);
    buf_u64(b, 0);
    buf_u64(b, ring_dropped(ring));
    buf_u64(b, 0);
    buf_str(b, name);
    buf_str(b, v->group);
    buf_str(b, v->parent_group);
    buf_u32(b, cap);
    size_t count_at = b->len;
    buf_u32(b, 0);
    uint8_t *out = buf_claim(b, (size_t)cap * CV_RECORD_BYTES);
    if (!out) return;             /* failed: reported by the caller */
    uint64_t written = 0, torn = 0;
    uint32_t n = ring_read_encoded(ring, out, cap, since, &written, &torn, last);
    buf_advance(b, (size_t)n * CV_RECORD_BYTES);
    buf_patch_u64(b, counters, written);
    buf_patch_u64(b, counters + 8, ring_lost(ring, written));   /* overwritten */
    buf_patch_u64(b, counters + 24, torn);
    buf_patch_u32(b, count_at, n);
    c->nthreads++;
    c->torn += torn;
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

/* Bytes of SECTION_THREADS at most: reserved at once, so that the largest section does not
 * grow the buffer step by step. */
static size_t threads_bound(const cv_thread_view *views, size_t nviews, const cv_ring *gc_ring) {
    size_t fixed = 8 * 9 + 4 + 3 * 4 + 8;
    size_t n = fixed + 16 + (size_t)gc_ring->capacity * CV_RECORD_BYTES;
    for (size_t i = 0; i < nviews; i++) {
        n += fixed + CV_NAME_MAX_BYTES + strlen(views[i].group) + strlen(views[i].parent_group) +
             (size_t)views[i].t->ring->capacity * CV_RECORD_BYTES;
    }
    return n;
}

/* SECTION_THREADS: every pinned thread's ring (but threads that ended before a reset),
 * then the GC ring as a pseudo-thread. last[i] receives views[i]'s newest record. A
 * thread whose Thread object is still reachable is named by its id now (an id taken
 * before a reset is stale) and, if alive, by its name now. */
static void put_rings(cv_buf *b, JNIEnv *jni, const cv_snapshot_source *src, const cv_thread_view *views,
                      size_t nviews, uint64_t since, cv_record *last, ring_copy *c) {
    jvmtiEnv *jvmti = src->jvmti;
    buf_reserve(b, threads_bound(views, nviews, src->gc_ring));
    size_t mark = buf_counted_section_begin(b, SECTION_THREADS);
    for (size_t i = 0; i < nviews; i++) {
        const cv_thread_view *v = &views[i];
        if ((v->flags & RING_ENDED) && v->end_ns < since) continue; /* ended before a reset */
        char *live_name = NULL;
        uint64_t thread_obj = v->thread_obj;
        jobject thread = v->t->thread_ref ? (*jni)->NewLocalRef(jni, v->t->thread_ref) : NULL;
        if (thread) {
            uint64_t id = objects_id(jvmti, jni, thread, OBJ_THREAD);
            if (id) thread_obj = id;
            if (!(v->flags & RING_ENDED)) live_name = live_thread_name(jvmti, jni, thread);
            (*jni)->DeleteLocalRef(jni, thread);
        }
        put_ring(b, c, v, v->t->ring, live_name ? live_name : v->name, thread_obj, since, &last[i]);
        free(live_name);
    }
    cv_thread_view gc;
    memset(&gc, 0, sizeof(gc));
    gc.java_tid = -1;
    gc.flags = RING_SYSTEM;
    gc.start_ns = src->start_mono;
    gc.name = "GC";
    gc.group = gc.parent_group = "";
    put_ring(b, c, &gc, src->gc_ring, gc.name, 0, since, NULL);
    buf_counted_section_end(b, mark, c->nthreads);
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

/* Writes SECTION_THREADS into `b` and gathers MONITORS' entries. */
static int copy_rings(cv_buf *b, JNIEnv *jni, const cv_snapshot_source *src, const cv_monitor_states *states,
                      ring_copy *c, cv_error *err) {
    memset(c, 0, sizeof(*c));
    buf_init(&c->monitors);
    size_t nviews = 0;
    cv_thread_view *views = threads_pin_all(&nviews);
    if (!views) return cv_fail(err, "out of memory pinning thread states");
    cv_record *last = calloc(nviews ? nviews : 1, sizeof(cv_record));
    if (!last) {
        threads_unpin(jni, views, nviews);
        return cv_fail(err, "out of memory reading the rings");
    }
    put_rings(b, jni, src, views, nviews, src->reset_mono, last, c);
    /* Every record copied was timestamped before this: an interval still open in a ring
     * never ends before it starts. */
    c->snap_mono = cv_now_ns();
    c->snap_epoch = cv_epoch_ns();
    put_monitor_states(c, views, nviews, last, states);
    free(last);
    threads_unpin(jni, views, nviews);
    return 0;
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

/* timing=on (timing.h): timing.clock, then one key per event type, timing.<type>. */
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
    /* After a reset the recording starts at the reset. */
    uint64_t start_mono = src->reset_mono ? src->reset_mono : src->start_mono;
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
    put_kv(b, &n, "objects.idcache", src->id_cache);
    put_kv_u64(b, &n, "start.monotonic.ns", start_mono);
    put_kv_u64(b, &n, "start.epoch.ns", start_epoch);
    put_kv_u64(b, &n, "snapshot.monotonic.ns", c->snap_mono);
    put_kv_u64(b, &n, "snapshot.epoch.ns", c->snap_epoch);
    put_kv_u64(b, &n, "stack.depth", src->stack_depth);
    put_kv_u64(b, &n, "buffer.bytes", src->buffer_bytes);
    put_kv_u64(b, &n, "memory.cap.bytes", src->memory_cap);
    put_kv_u64(b, &n, "records.written", tt.written + ring_written(src->gc_ring));
    put_kv_u64(b, &n, "records.overwritten", tt.overwritten + ring_overwritten(src->gc_ring));
    put_kv_u64(b, &n, "records.dropped", tt.dropped + threads_dropped_no_ring());
    put_kv_u64(b, &n, "records.torn", c->torn);
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

static void put_stacks(cv_buf *b, cv_stacks *stacks, method_list *methods) {
    stack_ctx c = {b, 0, methods};
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
static int put_classes_and_objects(jvmtiEnv *jvmti, JNIEnv *jni, cv_buf *b) {
    object_copy c;
    memset(&c, 0, sizeof(c));
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
        return -1;
    }
    put_info(b, src, &rings);
    method_list methods;
    memset(&methods, 0, sizeof(methods));
    put_stacks(b, src->stacks, &methods);
    put_methods(src->jvmti, jni, b, &methods);
    free(methods.ids);
    int objects_failed = put_classes_and_objects(src->jvmti, jni, b);
    put_section(b, SECTION_MONITORS, &rings.monitors, rings.nmonitors);
    put_end(b);

    int failed = b->failed || rings.monitors.failed || methods.failed || objects_failed;
    buf_free(&rings.monitors);
    if (b->too_big) {
        return cv_fail(err, "the snapshot would be larger than %llu bytes, the most a Java byte[] holds; "
                       "lower the memory cap", (unsigned long long)b->limit);
    }
    return failed ? cv_fail(err, "out of memory while encoding the snapshot") : 0;
}
