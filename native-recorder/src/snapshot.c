#include "snapshot.h"
#include "arch.h"
#include "convoy.h"
#include "objects.h"
#include "snapshot_format.h"
#include "threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put_record(cv_buf *b, const cv_record *r) {
    buf_u64(b, r->ts);
    buf_u64(b, r->meta);
    buf_u64(b, r->obj);
    buf_u64(b, (uint64_t)r->arg);
    buf_u64(b, (uint64_t)r->arg2);
}

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

static void put_kv_property(cv_buf *b, uint32_t *n, const char *key, const char *property) {
    char *value = NULL;
    jvmtiEnv *jvmti = g_cv.jvmti;
    if ((*jvmti)->GetSystemProperty(jvmti, property, &value) == JVMTI_ERROR_NONE) {
        put_kv(b, n, key, value);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)value);
    }
}

typedef struct {
    uint64_t written, overwritten, dropped, torn;
} totals;

/* One ring as a SECTION_THREADS entry. `live_name` replaces the stored name if set. */
static void put_ring(cv_buf *b, const cv_thread_view *v, const cv_ring *ring, const char *live_name,
                     uint64_t since, cv_record *last, totals *sum) {
    uint32_t cap = ring->capacity;
    cv_record *recs = malloc((size_t)(cap ? cap : 1) * sizeof(cv_record));
    if (!recs) {
        b->failed = 1;
        return;
    }
    uint64_t written = 0, torn = 0;
    uint32_t n = ring_read(ring, recs, cap, &written, &torn);
    uint32_t skip = 0;
    while (skip < n && recs[skip].ts < since) skip++;
    uint64_t overwritten = written > cap ? written - cap : 0;
    uint64_t dropped = ring_dropped(ring);
    if (last && n > skip) *last = recs[n - 1];
    buf_u64(b, v->ring_id);
    buf_u64(b, (uint64_t)v->java_tid);
    buf_u64(b, v->thread_obj);
    buf_u32(b, v->flags);
    buf_u64(b, v->start_ns);
    buf_u64(b, v->end_ns);
    buf_u64(b, written);
    buf_u64(b, overwritten);
    buf_u64(b, dropped);
    buf_u64(b, torn);
    buf_str(b, live_name ? live_name : v->name);
    buf_str(b, v->group);
    buf_str(b, v->parent_group);
    buf_u32(b, cap);
    buf_u32(b, n - skip);
    for (uint32_t i = skip; i < n; i++) put_record(b, &recs[i]);
    free(recs);
    sum->torn += torn;
}

/* Current name of a live thread, or NULL. Caller frees with Deallocate. */
static char *live_thread_name(JNIEnv *jni, jthread thread) {
    jvmtiEnv *jvmti = g_cv.jvmti;
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof(info));
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE) return NULL;
    if (info.thread_group) (*jni)->DeleteLocalRef(jni, info.thread_group);
    if (info.context_class_loader) (*jni)->DeleteLocalRef(jni, info.context_class_loader);
    return info.name;
}

/* SECTION_MONITORS from the caller's thread states (see snapshot.h). The monitor is
 * identified by the thread's newest record when it is the matching enter or wait,
 * otherwise, for a blocked thread, by its identity hash among the described objects. */
static uint32_t put_monitor_states(cv_buf *mb, cv_thread_view *views, size_t nviews, const cv_record *last,
                                   const int64_t *states, size_t nstates) {
    uint32_t n = 0;
    for (size_t i = 0; i + 3 < nstates; i += 4) {
        int64_t tid = states[i];
        uint32_t mstate = (uint32_t)states[i + 1];
        uint32_t hash = (uint32_t)states[i + 2];
        int64_t owner = states[i + 3];
        cv_thread_view *v = threads_find_live(views, nviews, tid);
        if (!v || (mstate != MSTATE_BLOCKED && mstate != MSTATE_WAITING)) continue;
        const cv_record *r = &last[v - views];
        uint8_t type = (uint8_t)(r->meta & 0xFF);
        uint8_t expected = mstate == MSTATE_BLOCKED ? EVENT_MONITOR_ENTER : EVENT_MONITOR_WAIT;
        int found = 0;
        uint64_t object = 0;
        if (type == expected && objects_hash(r->obj, &found) == hash && found) {
            object = r->obj;
        } else if (mstate == MSTATE_BLOCKED) {
            object = objects_find_by_hash(hash);
        } else {
            continue; /* parked, or a wait the recorder did not see: not a monitor state */
        }
        buf_u64(mb, v->ring_id);
        buf_u32(mb, mstate);
        buf_u64(mb, object);
        buf_u32(mb, hash);
        buf_u64(mb, (uint64_t)owner);
        n++;
    }
    return n;
}

typedef struct {
    cv_buf *b;
    uint32_t count;
    uint64_t *methods;
    size_t nmethods, capmethods;
} stack_ctx;

static void visit_stack(void *p, uint32_t id, uint32_t flags, const cv_frame *frames, uint32_t depth) {
    stack_ctx *c = p;
    buf_u32(c->b, id);
    buf_u32(c->b, flags);
    buf_u32(c->b, depth);
    for (uint32_t i = 0; i < depth; i++) {
        buf_u64(c->b, frames[i].method);
        buf_u64(c->b, (uint64_t)frames[i].location);
        if (c->nmethods == c->capmethods) {
            size_t cap = c->capmethods ? c->capmethods * 2 : 256;
            uint64_t *m = realloc(c->methods, cap * sizeof(uint64_t));
            if (!m) {
                c->b->failed = 1;
                return;
            }
            c->methods = m;
            c->capmethods = cap;
        }
        c->methods[c->nmethods++] = frames[i].method;
    }
    c->count++;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void put_method(JNIEnv *jni, cv_buf *b, jmethodID m) {
    jvmtiEnv *jvmti = g_cv.jvmti;
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

typedef struct {
    cv_buf *classes;    /* SECTION_CLASSES, being written */
    cv_buf *objects;    /* SECTION_OBJECTS' payload, copied in after */
    JNIEnv *jni;
    uint32_t nclasses, nobjects;
} obj_ctx;

static void put_class(obj_ctx *c, const cv_object *o) {
    jvmtiEnv *jvmti = g_cv.jvmti;
    JNIEnv *jni = c->jni;
    char *sig = NULL, *source = NULL;
    jobject cls = o->ref ? (*jni)->NewLocalRef(jni, o->ref) : NULL;
    if (cls) {
        if ((*jvmti)->GetClassSignature(jvmti, (jclass)cls, &sig, NULL) != JVMTI_ERROR_NONE) sig = NULL;
        if ((*jvmti)->GetSourceFileName(jvmti, (jclass)cls, &source) != JVMTI_ERROR_NONE) source = NULL;
        (*jni)->DeleteLocalRef(jni, cls);
    }
    buf_u64(c->classes, o->id);
    buf_str(c->classes, sig);
    buf_str(c->classes, source);
    if (sig) (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    if (source) (*jvmti)->Deallocate(jvmti, (unsigned char *)source);
    c->nclasses++;
}

static void visit_object(void *p, const cv_object *o) {
    obj_ctx *c = p;
    if (o->kind == OBJ_CLASS) put_class(c, o);
    buf_u64(c->objects, o->id);
    buf_u32(c->objects, o->hash);
    buf_u32(c->objects, o->kind);
    buf_u64(c->objects, o->class_id);
    c->nobjects++;
}

int snapshot_encode(JNIEnv *jni, const int64_t *states, size_t nstates, cv_buf *b, cv_error *err) {
    if (!g_cv.started || g_cv.config.empty_callbacks) {
        return cv_fail(err, "the recorder is not started (or runs with empty callbacks)");
    }
    jvmtiEnv *jvmti = g_cv.jvmti;
    uint64_t since = load_acquire(&g_cv.reset_mono);
    uint64_t start_mono = since ? since : g_cv.start_mono;
    uint64_t start_epoch = g_cv.start_epoch + (start_mono - g_cv.start_mono);

    buf_bytes(b, CV_MAGIC, 8);
    buf_u16(b, VERSION_MAJOR);
    buf_u16(b, VERSION_MINOR);
    buf_u32(b, 0);

    /* Rings first, so that the totals in INFO cover what this snapshot copied. */
    size_t nthreads = 0;
    cv_thread_view *views = threads_pin_all(&nthreads);
    if (!views) return cv_fail(err, "out of memory pinning thread states");

    cv_buf rings, monitors;
    buf_init(&rings);
    buf_init(&monitors);
    totals sum = {0, 0, 0, 0};
    cv_record *last = calloc(nthreads ? nthreads : 1, sizeof(cv_record));
    if (!last) {
        threads_unpin(views, nthreads);
        return cv_fail(err, "out of memory reading the rings");
    }
    uint32_t nrings = 0;
    for (size_t i = 0; i < nthreads; i++) {
        cv_thread_view *v = &views[i];
        char *live_name = NULL;
        if ((v->flags & RING_ENDED) && v->end_ns < since) continue; /* ended before a reset */
        jobject thread = NULL;
        if (!(v->flags & RING_ENDED) && v->t->thread_ref) {
            thread = (*jni)->NewLocalRef(jni, v->t->thread_ref);
        }
        if (thread) {
            live_name = live_thread_name(jni, thread);
            (*jni)->DeleteLocalRef(jni, thread);
        }
        put_ring(&rings, v, &v->t->ring, live_name, since, &last[i], &sum);
        nrings++;
        if (live_name) (*jvmti)->Deallocate(jvmti, (unsigned char *)live_name);
    }
    /* The GC ring: a pseudo-thread. */
    cv_thread_view gc;
    memset(&gc, 0, sizeof(gc));
    gc.ring_id = 0;
    gc.java_tid = -1;
    gc.flags = RING_SYSTEM;
    gc.start_ns = g_cv.start_mono;
    gc.name = "GC";
    gc.group = gc.parent_group = "";
    put_ring(&rings, &gc, g_cv.gc_ring, NULL, since, NULL, &sum);
    nrings++;
    /* The snapshot's time is read after the last ring was copied: every record it holds was
     * timestamped before it, so an interval still open in a ring never ends before it starts. */
    uint64_t snap_mono = cv_now_ns();
    uint64_t snap_epoch = cv_epoch_ns();
    uint32_t nmon = put_monitor_states(&monitors, views, nthreads, last, states, nstates);
    free(last);
    threads_unpin(views, nthreads);

    cv_thread_totals tt;
    threads_totals(&tt);
    uint64_t no_ring = threads_dropped_no_ring();

    /* INFO */
    size_t mark = buf_counted_section_begin(b, SECTION_INFO);
    uint32_t n = 0;
    char pid[32];
    snprintf(pid, sizeof(pid), "%ld", (long)getpid());
    put_kv(b, &n, "agent.version", CV_VERSION);
    put_kv(b, &n, "pid", pid);
    put_kv_property(b, &n, "jvm.name", "java.vm.name");
    put_kv_property(b, &n, "jvm.version", "java.vm.version");
    put_kv_property(b, &n, "java.command", "sun.java.command");
    put_kv(b, &n, "options", g_cv.config.options);
    put_kv_u64(b, &n, "start.monotonic.ns", start_mono);
    put_kv_u64(b, &n, "start.epoch.ns", start_epoch);
    put_kv_u64(b, &n, "snapshot.monotonic.ns", snap_mono);
    put_kv_u64(b, &n, "snapshot.epoch.ns", snap_epoch);
    put_kv_u64(b, &n, "stack.depth", g_cv.config.stack_depth);
    put_kv_u64(b, &n, "buffer.bytes", g_cv.config.buffer_bytes);
    put_kv_u64(b, &n, "memory.cap.bytes", g_cv.config.memory_cap);
    put_kv_u64(b, &n, "records.written", tt.written + ring_written(g_cv.gc_ring));
    put_kv_u64(b, &n, "records.overwritten", tt.overwritten + ring_overwritten(g_cv.gc_ring));
    put_kv_u64(b, &n, "records.dropped", tt.dropped + no_ring);
    put_kv_u64(b, &n, "records.torn", sum.torn);
    put_kv_u64(b, &n, "threads.evicted", tt.evicted);
    put_kv_u64(b, &n, "stacks.dropped", stacks_dropped(g_cv.stacks));
    put_kv_u64(b, &n, "objects.dropped", objects_dropped());
    buf_counted_section_end(b, mark, n);

    /* THREADS */
    mark = buf_counted_section_begin(b, SECTION_THREADS);
    buf_bytes(b, rings.data, rings.len);
    buf_counted_section_end(b, mark, nrings);
    int rings_failed = rings.failed;
    buf_free(&rings);

    /* STACKS, collecting the methods they use */
    stack_ctx sc;
    memset(&sc, 0, sizeof(sc));
    sc.b = b;
    mark = buf_counted_section_begin(b, SECTION_STACKS);
    stacks_foreach(g_cv.stacks, visit_stack, &sc);
    buf_counted_section_end(b, mark, sc.count);

    /* METHODS */
    qsort(sc.methods, sc.nmethods, sizeof(uint64_t), cmp_u64);
    mark = buf_counted_section_begin(b, SECTION_METHODS);
    uint32_t nm = 0;
    for (size_t i = 0; i < sc.nmethods; i++) {
        if (i > 0 && sc.methods[i] == sc.methods[i - 1]) continue;
        put_method(jni, b, (jmethodID)(uintptr_t)sc.methods[i]);
        nm++;
    }
    free(sc.methods);
    buf_counted_section_end(b, mark, nm);

    /* CLASSES and OBJECTS from one pass over the table, after the rings and the methods
     * (which may tag new classes). An object id is described before any thread can read
     * it, and an object's class before the object (objects.h), so every object a copied
     * record names is in OBJECTS, and every object's class in CLASSES, unless the table
     * was full (objects.dropped). Two passes would miss the class of an object tagged
     * between them. */
    cv_buf objs;
    buf_init(&objs);
    obj_ctx oc = {b, &objs, jni, 0, 0};
    mark = buf_counted_section_begin(b, SECTION_CLASSES);
    objects_foreach(visit_object, &oc);
    buf_counted_section_end(b, mark, oc.nclasses);

    mark = buf_counted_section_begin(b, SECTION_OBJECTS);
    buf_bytes(b, objs.data, objs.len);
    buf_counted_section_end(b, mark, oc.nobjects);
    int objects_failed = objs.failed;
    buf_free(&objs);

    /* MONITORS */
    mark = buf_counted_section_begin(b, SECTION_MONITORS);
    buf_bytes(b, monitors.data, monitors.len);
    buf_counted_section_end(b, mark, nmon);
    int monitors_failed = monitors.failed;
    buf_free(&monitors);

    mark = buf_section_begin(b, SECTION_END);
    buf_section_end(b, mark);

    if (b->failed || rings_failed || objects_failed || monitors_failed) {
        return cv_fail(err, "out of memory while encoding the snapshot");
    }
    return 0;
}
