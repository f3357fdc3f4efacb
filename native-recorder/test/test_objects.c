/*
 * objects.c against a mock jvmtiEnv and JNIEnv: a jobject is a pointer to a fake_obj, whose
 * identity hash and class the mock functions read; a jweak is a pointer to a fake_weak (low
 * bit set, as HotSpot tags its weak handles), whose referent a test clears to collect the
 * object. Only the functions objects.c calls are filled in; any other call (GetTag, SetTag:
 * objects.c uses no tags) crashes on a NULL pointer.
 *
 * The mock checks the contract of objects.h where a breach would show: IsSameObject or
 * DeleteWeakGlobalRef on a reference already deleted (a read of freed VM memory), a
 * reference deleted twice, and an id published to the caller's cache before its entry is
 * described. Violations are counted (atomically: the mock also runs on the threads of the
 * concurrent tests) and each test checks the count.
 *
 * The object table is process-wide; the first tests share one, and each uses objects of its
 * own; the objects_foreach test checks against every object any of them described. The tests
 * of collecting and resetting come last, each from a fresh table.
 */
#define _GNU_SOURCE   /* pthread_timedjoin_np */
#include "arch.h"
#include "check.h"
#include "mock_jvm.h"
#include "objects.h"
#include "snapshot_format.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static jvmtiEnv *const jvmti = &mock_jvmti_env;
static JNIEnv *const jni = &mock_jni_env;

/* Weak references to o made and not deleted. */
static uint32_t live_refs(fake_obj *o) {
    return load_relaxed(&o->weak_refs) - load_relaxed(&o->refs_deleted);
}

/* The collector: every weak reference to o is cleared. */
static void collect(fake_obj *o) {
    fake_weak *w = __atomic_load_n(&o->weak, __ATOMIC_ACQUIRE);
    if (w) __atomic_store_n(&w->referent, NULL, __ATOMIC_RELEASE);
}

static void setup(void) {
    static int done;
    if (!done) {
        done = 1;
        CHECK(objects_init(1 << 20) == 0);
    }
}

static uint64_t id_of(fake_obj *o, uint32_t kind) {
    return objects_id(jvmti, jni, as_jobject(o), kind);
}

/* A copy of the described entry with this id (e.id = 0 if none). */
typedef struct {
    uint64_t id;
    cv_object e;
    int seen;
} find_ctx;

static void visit_find(void *p, const cv_object *o) {
    find_ctx *c = p;
    if (o->id == c->id) {
        c->e = *o;
        c->seen++;
    }
}

static cv_object entry(uint64_t id, int *seen) {
    find_ctx c;
    memset(&c, 0, sizeof(c));
    c.id = id;
    objects_foreach(jni, visit_find, &c);
    *seen = c.seen;
    return c.e;
}

static uint64_t class_id_of(uint64_t id) {
    int seen = 0;
    return entry(id, &seen).class_id;
}

TEST(objects_a_new_object_gets_one_weak_reference_and_is_found_again_by_it) {
    setup();
    static fake_obj cls = {.hash = 0x0A110001};
    static fake_obj obj = {.hash = 0x0A110002, .cls = &cls};
    uint64_t same = load_relaxed(&same_calls);
    uint64_t id = id_of(&obj, OBJ_PLAIN);
    CHECK(id != 0);
    CHECK_EQ_U64(load_relaxed(&same_calls) - same, 0);   /* both chains were empty: nothing to compare */
    CHECK_EQ_U64(load_relaxed(&obj.weak_refs), 1);
    CHECK_EQ_U64(load_relaxed(&cls.weak_refs), 1);
    /* Seen again: its chain holds it, and one comparison finds it; no new reference. */
    same = load_relaxed(&same_calls);
    CHECK_EQ_U64(id_of(&obj, OBJ_PLAIN), id);
    CHECK_EQ_U64(load_relaxed(&same_calls) - same, 1);
    CHECK_EQ_U64(load_relaxed(&obj.weak_refs), 1);
    CHECK_EQ_U64(objects_dropped(), 0);
    CHECK_EQ_U64(load_relaxed(&violations), 0);
}

TEST(objects_objects_of_one_identity_hash_are_told_apart) {
    setup();
    static fake_obj cls = {.hash = 0x0A120001};
    static fake_obj a = {.hash = 0x0A120002, .cls = &cls};
    static fake_obj b = {.hash = 0x0A120002, .cls = &cls};   /* the same identity hash */
    static fake_obj c = {.hash = 0x0A130003, .cls = &cls};   /* another hash, a's bucket */
    uint64_t ida = id_of(&a, OBJ_PLAIN);
    uint64_t idb = id_of(&b, OBJ_PLAIN);
    uint64_t idc = id_of(&c, OBJ_PLAIN);
    CHECK(ida != 0 && idb != 0 && idc != 0);
    CHECK(ida != idb && idb != idc && ida != idc);
    CHECK_EQ_U64(id_of(&a, OBJ_PLAIN), ida);
    CHECK_EQ_U64(id_of(&b, OBJ_PLAIN), idb);
    CHECK_EQ_U64(id_of(&c, OBJ_PLAIN), idc);
    /* c, at the head of the chain, is found by one comparison. */
    uint64_t same = load_relaxed(&same_calls);
    CHECK_EQ_U64(id_of(&c, OBJ_PLAIN), idc);
    CHECK_EQ_U64(load_relaxed(&same_calls) - same, 1);
    CHECK_EQ_U64(load_relaxed(&violations), 0);
}

/* Hooks that record what objects.c lends them: a published id, and a preset answer to peek. */
typedef struct {
    uint64_t  published;
    uint64_t  peek_answer;
    int       published_described;   /* at publish: the entry is described */
    int       class_calls;
} hook_ctx;

static uint64_t hook_class_id(void *p, jvmtiEnv *env, JNIEnv *jenv, jclass cls) {
    ((hook_ctx *)p)->class_calls++;
    return objects_id(env, jenv, cls, OBJ_CLASS);
}

static uint64_t hook_peek(void *p) {
    hook_ctx *c = p;
    return c->peek_answer ? c->peek_answer : c->published;
}

static void hook_publish(void *p, uint64_t id) {
    hook_ctx *c = p;
    c->published = id;
    int found = 0;
    objects_hash(id, &found);
    c->published_described = found;
    if (!found) violation("an id is published before its entry is described");
}

TEST(objects_hooks_publish_a_described_first_sight_and_peeks_spare_the_look_up) {
    setup();
    static fake_obj cls = {.hash = 0x0A130001};
    static fake_obj obj = {.hash = 0x0A130002, .cls = &cls};
    hook_ctx c = {0};
    cv_id_hooks hooks = {hook_class_id, hook_peek, hook_publish, &c};
    uint64_t id = objects_id_with(jvmti, jni, as_jobject(&obj), OBJ_PLAIN, &hooks);
    CHECK(id != 0);
    CHECK_EQ_U64(c.published, id);
    CHECK(c.published_described);
    CHECK_EQ_U64(c.class_calls, 1);
    /* Another thread's look-up finds the id published: no comparison, no reference, no class. */
    static fake_obj other = {.hash = 0x0A130002, .cls = &cls};   /* would be compared */
    hook_ctx d = {.peek_answer = id};
    cv_id_hooks peeking = {hook_class_id, hook_peek, hook_publish, &d};
    uint64_t same = load_relaxed(&same_calls);
    CHECK_EQ_U64(objects_id_with(jvmti, jni, as_jobject(&other), OBJ_PLAIN, &peeking), id);
    CHECK_EQ_U64(load_relaxed(&same_calls) - same, 0);
    CHECK_EQ_U64(load_relaxed(&other.weak_refs), 0);
    CHECK_EQ_U64(d.class_calls, 0);
    CHECK_EQ_U64(load_relaxed(&violations), 0);
}

TEST(objects_describe_an_object_and_its_class) {
    setup();
    static fake_obj cls = {.hash = 0x1111};
    static fake_obj obj = {.hash = 0x2222, .cls = &cls};
    uint64_t id = id_of(&obj, OBJ_PLAIN);
    CHECK(id != 0);
    uint64_t idcls = id_of(&cls, OBJ_CLASS);
    CHECK(idcls != 0 && idcls != id);
    int found = 0;
    CHECK_EQ_U64(objects_hash(id, &found), 0x2222);
    CHECK(found);
    int seen = 0;
    cv_object e = entry(id, &seen);
    CHECK_EQ_U64(seen, 1);
    CHECK_EQ_U64(e.kind, OBJ_PLAIN);
    CHECK_EQ_U64(e.hash, 0x2222);
    CHECK_EQ_U64(e.class_id, idcls);
    CHECK(e.ref == NULL);                                /* a plain object's reference is not shown */
    cv_object c = entry(idcls, &seen);
    CHECK_EQ_U64(seen, 1);
    CHECK_EQ_U64(c.kind, OBJ_CLASS);
    CHECK_EQ_U64(c.hash, 0x1111);
    CHECK_EQ_U64(c.class_id, 0);
    CHECK(resolve(c.ref) == &cls);                       /* a class's is, for its name */
    CHECK_EQ_U64(load_relaxed(&violations), 0);
}

TEST(objects_same_object_same_id_distinct_objects_distinct_ids) {
    setup();
    static fake_obj cls = {.hash = 0x3333};
    static fake_obj a = {.hash = 0x4444, .cls = &cls};
    static fake_obj b = {.hash = 0x4444, .cls = &cls}; /* identity hashes may collide */
    uint64_t ida = id_of(&a, OBJ_PLAIN);
    CHECK(ida != 0);
    CHECK_EQ_U64(id_of(&a, OBJ_PLAIN), ida);
    CHECK_EQ_U64(id_of(&a, OBJ_THREAD), ida);          /* the first kind stays */
    CHECK_EQ_U64(load_relaxed(&a.weak_refs), 1);       /* later sights make no reference */
    uint64_t idb = id_of(&b, OBJ_PLAIN);
    CHECK(idb != 0 && idb != ida);
    CHECK_EQ_U64(class_id_of(idb), class_id_of(ida));
    int seen = 0;
    CHECK_EQ_U64(entry(ida, &seen).kind, OBJ_PLAIN);
    CHECK_EQ_U64(objects_id(jvmti, jni, NULL, OBJ_PLAIN), 0);
    CHECK_EQ_U64(load_relaxed(&violations), 0);
}

TEST(objects_a_class_seen_first_as_a_monitor_is_described_as_a_class_when_asked_as_one) {
    setup();
    static fake_obj k = {.hash = 0x5A5A};   /* a class object, first met as a monitor */
    uint64_t id = id_of(&k, OBJ_PLAIN);
    CHECK(id != 0);
    int seen = 0;
    CHECK_EQ_U64(entry(id, &seen).kind, OBJ_PLAIN);
    CHECK(entry(id, &seen).ref == NULL);
    CHECK_EQ_U64(id_of(&k, OBJ_CLASS), id);   /* the same id */
    cv_object c = entry(id, &seen);
    CHECK_EQ_U64(seen, 1);
    CHECK_EQ_U64(c.kind, OBJ_CLASS);
    CHECK(resolve(c.ref) == &k);             /* its reference shown now, for its name */
    CHECK_EQ_U64(load_relaxed(&k.weak_refs), 1);
    CHECK_EQ_U64(id_of(&k, OBJ_PLAIN), id);
    CHECK_EQ_U64(entry(id, &seen).kind, OBJ_CLASS);   /* and stays a class */
    CHECK_EQ_U64(load_relaxed(&violations), 0);
}

TEST(objects_class_id_names_a_described_class_with_one_weak_ref) {
    setup();
    static fake_obj cls = {.hash = 0x5555};
    static fake_obj objs[8];
    for (int i = 0; i < 8; i++) {
        objs[i].hash = 0x5600 + i;
        objs[i].cls = &cls;
        uint64_t id = id_of(&objs[i], OBJ_PLAIN);
        int seen = 0;
        cv_object e = entry(id, &seen);
        CHECK_EQ_U64(seen, 1);
        cv_object c = entry(e.class_id, &seen);
        CHECK_EQ_U64(seen, 1);
        CHECK_EQ_U64(c.kind, OBJ_CLASS);
        CHECK_EQ_U64(c.hash, 0x5555);
    }
    CHECK_EQ_U64(load_relaxed(&cls.weak_refs), 1);
    CHECK_EQ_U64(load_relaxed(&violations), 0);
}

static void visit_hash(void *p, const cv_object *o) {
    uint64_t *ctx = p; /* [0] hash wanted, [1] count */
    if (o->kind != OBJ_CLASS && o->hash == (uint32_t)ctx[0]) ctx[1]++;
}

static uint64_t described_with_hash(uint32_t hash) {
    uint64_t ctx[2] = {hash, 0};
    objects_foreach(jni, visit_hash, ctx);
    return ctx[1];
}

TEST(objects_a_weak_reference_refused_leaves_no_description_behind) {
    setup();
    static fake_obj cls = {.hash = 0x7777};
    static fake_obj a = {.hash = 0x7001, .cls = &cls, .fail_weak_ref = 2};   /* before the lock and under it */
    static fake_obj b = {.hash = 0x7002, .cls = &cls};
    uint64_t used_before = objects_count();
    CHECK_EQ_U64(id_of(&a, OBJ_PLAIN), 0);              /* out of memory: no id */
    CHECK_EQ_U64(described_with_hash(0x7001), 0);
    CHECK_EQ_U64(objects_count(), used_before + 1);     /* only the class */
    uint64_t idb = id_of(&b, OBJ_PLAIN);
    CHECK(idb != 0);
    int found = 0;
    CHECK_EQ_U64(objects_hash(idb, &found), 0x7002);
    CHECK(found);
    uint64_t ida = id_of(&a, OBJ_PLAIN);                /* the reference is made now */
    CHECK(ida != 0 && ida != idb);
    CHECK_EQ_U64(objects_hash(ida, &found), 0x7001);
    CHECK_EQ_U64(described_with_hash(0x7001), 1);
    CHECK_EQ_U64(class_id_of(ida), class_id_of(idb));

    /* A class whose reference is refused: its object still gets an id, with no class. */
    static fake_obj cls2 = {.hash = 0x7778, .fail_weak_ref = 2};
    static fake_obj c = {.hash = 0x7003, .cls = &cls2};
    uint64_t idc = id_of(&c, OBJ_PLAIN);
    CHECK(idc != 0);
    CHECK_EQ_U64(class_id_of(idc), 0);
    CHECK_EQ_U64(objects_hash(idc, &found), 0x7003);
    CHECK_EQ_U64(objects_dropped(), 0);
    CHECK_EQ_U64(load_relaxed(&violations), 0);
}

typedef struct {
    size_t n;
    int wrong;
    cv_object all[MAX_DESCRIBED];
} all_ctx;

static void visit_all(void *p, const cv_object *o) {
    all_ctx *c = p;
    if (c->n < MAX_DESCRIBED) c->all[c->n] = *o;
    c->n++;
}

/* The entry of a class with this hash among those visited, or NULL. */
static const cv_object *visited_class(const all_ctx *c, uint64_t id) {
    for (size_t i = 0; i < c->n && i < MAX_DESCRIBED; i++) {
        if (c->all[i].id == id && c->all[i].kind == OBJ_CLASS) return &c->all[i];
    }
    return NULL;
}

TEST(objects_foreach_visits_exactly_the_described_entries) {
    setup();
    static fake_obj cls = {.hash = 0x9999};
    static fake_obj objs[16];
    for (int i = 0; i < 16; i++) {
        objs[i].hash = 0x9900 + i;
        objs[i].cls = &cls;
        CHECK(id_of(&objs[i], i % 2 ? OBJ_THREAD : OBJ_PLAIN) != 0);
    }
    static all_ctx c;
    objects_foreach(jni, visit_all, &c);
    CHECK_EQ_U64(c.n, ndescribed);
    CHECK_EQ_U64(objects_count(), ndescribed);
    /* Each entry is the one of a described object: its own id, hash, kind and class. */
    for (size_t i = 0; i < ndescribed; i++) {
        fake_obj *o = described[i];
        uint64_t id = id_of(o, o->cls ? OBJ_PLAIN : OBJ_CLASS);
        int found = 0;
        for (size_t k = 0; k < c.n && k < MAX_DESCRIBED; k++) {
            const cv_object *e = &c.all[k];
            if (e->id != id) continue;
            found++;
            if (e->hash != (uint32_t)o->hash || (e->kind == OBJ_CLASS) != (o->cls == NULL)) c.wrong++;
            if (o->cls) {
                const cv_object *ce = visited_class(&c, e->class_id);
                if (o->cls->fail_weak_ref == 0 && o->cls->weak_refs > 0 &&
                    (!ce || ce->hash != (uint32_t)o->cls->hash)) {
                    c.wrong++;
                }
            }
        }
        CHECK_EQ_U64(found, 1);
    }
    CHECK_EQ_U64(c.wrong, 0);
    CHECK_EQ_U64(objects_dropped(), 0);
    CHECK_EQ_U64(load_relaxed(&violations), 0);
}

#define RACE_ROUNDS 500
#define RACE_OBJECTS 4
#define RACE_THREADS 4

static fake_obj race_cls[RACE_ROUNDS];
static fake_obj race_objs[RACE_ROUNDS][RACE_OBJECTS];
static pthread_barrier_t race_barrier;

typedef struct {
    int index;
    uint64_t ids[RACE_ROUNDS][RACE_OBJECTS];
    int undescribed;
} race_thread;

static void *race(void *p) {
    race_thread *t = p;
    for (int r = 0; r < RACE_ROUNDS; r++) {
        pthread_barrier_wait(&race_barrier);
        for (int k = 0; k < RACE_OBJECTS; k++) {
            fake_obj *o = &race_objs[r][(k + t->index) % RACE_OBJECTS];
            uint64_t id = id_of(o, OBJ_PLAIN);
            int found = 0;
            if (id == 0 || objects_hash(id, &found) != (uint32_t)o->hash || !found) t->undescribed++;
            t->ids[r][(k + t->index) % RACE_OBJECTS] = id;
        }
    }
    return NULL;
}

TEST(objects_racing_first_sights_agree_on_one_described_id) {
    setup();
    registering = 0;   /* the foreach test is done: the described list is closed */
    for (int r = 0; r < RACE_ROUNDS; r++) {
        race_cls[r].hash = 0x100000 + r;
        for (int k = 0; k < RACE_OBJECTS; k++) {
            race_objs[r][k].hash = 0x200000 + r * RACE_OBJECTS + k;
            race_objs[r][k].cls = &race_cls[r];
        }
    }
    static race_thread ts[RACE_THREADS];
    pthread_t th[RACE_THREADS];
    CHECK(pthread_barrier_init(&race_barrier, NULL, RACE_THREADS) == 0);
    for (int i = 0; i < RACE_THREADS; i++) {
        ts[i].index = i;
        CHECK(pthread_create(&th[i], NULL, race, &ts[i]) == 0);
    }
    for (int i = 0; i < RACE_THREADS; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&race_barrier);
    int disagree = 0;
    for (int i = 0; i < RACE_THREADS; i++) {
        CHECK_EQ_U64(ts[i].undescribed, 0);
        for (int r = 0; r < RACE_ROUNDS; r++) {
            for (int k = 0; k < RACE_OBJECTS; k++) disagree += ts[i].ids[r][k] != ts[0].ids[r][k];
        }
    }
    CHECK_EQ_U64(disagree, 0);
    /* Racers may each make a reference before the lock; only the winner's stays. */
    for (int r = 0; r < RACE_ROUNDS; r++) {
        CHECK_EQ_U64(live_refs(&race_cls[r]), 1);
        for (int k = 0; k < RACE_OBJECTS; k++) CHECK_EQ_U64(live_refs(&race_objs[r][k]), 1);
    }
    CHECK_EQ_U64(load_relaxed(&violations), 0);
}

/* ---- collected objects' slots are reused, generation-tagged; reset empties the table ----
 * Each test starts from a fresh table of the smallest size (1024 slots). */

#define SLOT(id) ((id) & 0xFFFFFFFFull)
#define GEN(id) ((id) >> 32)

static fake_obj filler_cls;
static fake_obj fillers[1100];
static uint64_t filler_ids[1100];

/* A fresh table, filled up to `leave` free slots with filler objects of one class. */
static void fresh_table_filled(uint64_t leave) {
    CHECK(objects_init(0) == 0);
    uint64_t cap = objects_capacity();
    CHECK(cap <= 1100);
    memset(fillers, 0, sizeof(fillers));
    memset(&filler_cls, 0, sizeof(filler_cls));
    filler_cls.hash = 0xF000;
    for (uint64_t i = 0; i + 1 + leave < cap; i++) {   /* + 1: the class's slot */
        fillers[i].hash = (jint)(0x3000000 + i);
        fillers[i].cls = &filler_cls;
        filler_ids[i] = id_of(&fillers[i], OBJ_PLAIN);
        CHECK(SLOT(filler_ids[i]) != 0);
    }
    CHECK_EQ_U64(objects_count(), cap - leave);
}

static void visit_count(void *p, const cv_object *o) {
    (void)o;
    (*(uint64_t *)p)++;
}

/* A snapshot's enumeration: sweeps every bucket first. */
static uint64_t visited(void) {
    uint64_t n = 0;
    objects_foreach(jni, visit_count, &n);
    return n;
}

TEST(objects_reuse_the_slot_of_a_collected_object_under_a_new_generation) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_table_filled(1);
    static fake_obj cls = {.hash = 0xA000};
    static fake_obj a = {.hash = 0xA001, .cls = &cls};
    static fake_obj b = {.hash = 0xA002, .cls = &cls};
    uint64_t dropped = objects_dropped();
    CHECK_EQ_U64(id_of(&a, OBJ_PLAIN), 0);               /* cls takes the last slot; a finds none */
    CHECK_EQ_U64(objects_dropped(), dropped + 1);
    collect(&fillers[0]);
    uint64_t deleted = load_relaxed(&weak_refs_deleted);
    visited();                                           /* a snapshot sweeps the filler away */
    CHECK_EQ_U64(load_relaxed(&weak_refs_deleted), deleted + 1);
    CHECK_EQ_U64(objects_swept(), 1);
    uint64_t ida = id_of(&a, OBJ_PLAIN);
    CHECK_EQ_U64(SLOT(ida), SLOT(filler_ids[0]));
    CHECK(GEN(ida) > GEN(filler_ids[0]));
    int found = 0;
    objects_hash(filler_ids[0], &found);
    CHECK(!found);                                       /* the filler's old id is stale */

    uint64_t count = objects_count();
    collect(&a);
    visited();
    CHECK_EQ_U64(objects_count(), count - 1);
    CHECK_EQ_U64(objects_hash(ida, &found), 0xA001);     /* still described until its slot is reused */
    CHECK(found);
    uint64_t idb = id_of(&b, OBJ_PLAIN);
    CHECK_EQ_U64(SLOT(idb), SLOT(ida));                  /* the slot is reused... */
    CHECK(GEN(idb) > GEN(ida));                          /* ...under a new generation */
    /* A record written before still holds ida: it must not find b. */
    CHECK_EQ_U64(objects_hash(ida, &found), 0);
    CHECK(!found);
    CHECK(!objects_current(ida));
    CHECK(objects_current(idb));
    int seen = 0;
    entry(ida, &seen);
    CHECK_EQ_U64(seen, 0);
    CHECK_EQ_U64(objects_hash(idb, &found), 0xA002);
    CHECK(found);
    CHECK_EQ_U64(class_id_of(idb), id_of(&cls, OBJ_CLASS));
    objects_hash(idb + (1ull << 32), &found);            /* a made-up generation of the slot */
    CHECK(!found);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

TEST(objects_freed_slots_are_reused_oldest_first) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_table_filled(0);
    static fake_obj n[3];
    for (int i = 5; i < 8; i++) collect(&fillers[i]);
    visited();                                           /* swept in bucket order: 5, 6, 7 */
    for (int i = 0; i < 3; i++) {
        n[i].hash = 0xA101 + i;
        n[i].cls = &filler_cls;
        CHECK_EQ_U64(SLOT(id_of(&n[i], OBJ_PLAIN)), SLOT(filler_ids[5 + i]));
    }
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

TEST(objects_a_look_up_drops_the_collected_objects_of_its_chain) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_table_filled(8);
    static fake_obj a = {.hash = 0xA201, .cls = &filler_cls};
    static fake_obj b = {.hash = 0xA201, .cls = &filler_cls};   /* a's hash, met after a died */
    uint64_t ida = id_of(&a, OBJ_PLAIN);
    CHECK(SLOT(ida) != 0);
    uint64_t count = objects_count(), swept = objects_swept(), deleted = load_relaxed(&weak_refs_deleted);
    collect(&a);
    uint64_t idb = id_of(&b, OBJ_PLAIN);
    CHECK(idb != 0 && idb != ida);
    CHECK_EQ_U64(objects_swept(), swept + 1);            /* b's look-up met a, collected, and dropped it */
    CHECK_EQ_U64(load_relaxed(&weak_refs_deleted), deleted + 1);
    CHECK_EQ_U64(objects_count(), count);                /* a out, b in */
    int found = 0;
    CHECK_EQ_U64(objects_hash(ida, &found), 0xA201);     /* a's description stays: records name it */
    CHECK(found);
    CHECK_EQ_U64(id_of(&b, OBJ_PLAIN), idb);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

TEST(objects_sweep_leaves_the_live_objects_counted) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_table_filled(16);
    uint64_t cap = objects_capacity();
    for (int i = 0; i < 100; i++) collect(&fillers[i * 3]);
    CHECK_EQ_U64(objects_count(), cap - 16);              /* not looked at yet */
    uint64_t deleted = load_relaxed(&weak_refs_deleted);
    objects_sweep(jni);                                  /* a read of the counters */
    CHECK_EQ_U64(objects_count(), cap - 16 - 100);
    CHECK_EQ_U64(objects_swept(), 100);
    CHECK_EQ_U64(load_relaxed(&weak_refs_deleted), deleted + 100);
    int found = 0;
    CHECK_EQ_U64(objects_hash(filler_ids[3], &found), (uint32_t)fillers[3].hash);   /* described until reused */
    CHECK(found);
    CHECK_EQ_U64(id_of(&fillers[4], OBJ_PLAIN), filler_ids[4]);                     /* the live keep their ids */
    objects_sweep(jni);
    CHECK_EQ_U64(objects_swept(), 100);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

TEST(objects_a_collected_class_keeps_its_slot_until_its_weak_reference_is_deleted) {
    uint64_t v0 = load_relaxed(&violations);
    CHECK(objects_init(0) == 0);
    static fake_obj cls = {.hash = 0xB000};
    static fake_obj a = {.hash = 0xB001, .cls = &cls};
    uint64_t ida = id_of(&a, OBJ_PLAIN);
    uint64_t idc = id_of(&cls, OBJ_CLASS);
    CHECK(ida != 0 && idc != 0);
    collect(&a);
    collect(&cls);                                       /* the class was unloaded */
    uint64_t deleted = load_relaxed(&weak_refs_deleted);
    int seen = 0;
    cv_object c = entry(idc, &seen);                     /* a snapshot sweeps and deletes both references */
    CHECK_EQ_U64(load_relaxed(&weak_refs_deleted), deleted + 2);
    CHECK_EQ_U64(objects_count(), 0);
    CHECK_EQ_U64(seen, 1);                               /* still described, unnamed */
    CHECK(c.ref == NULL);
    entry(idc, &seen);
    CHECK_EQ_U64(load_relaxed(&weak_refs_deleted), deleted + 2);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

TEST(objects_reset_clears_the_table_and_describes_objects_and_classes_again) {
    uint64_t v0 = load_relaxed(&violations);
    CHECK(objects_init(0) == 0);
    static fake_obj cls = {.hash = 0xC000};
    static fake_obj a = {.hash = 0xC001, .cls = &cls};
    static fake_obj dead = {.hash = 0xC002, .cls = &cls};
    uint64_t ida = id_of(&a, OBJ_PLAIN);
    uint64_t iddead = id_of(&dead, OBJ_PLAIN);
    uint64_t idc = id_of(&cls, OBJ_CLASS);
    collect(&dead);
    CHECK_EQ_U64(visited(), 3);                          /* swept: described, not linked */
    CHECK_EQ_U64(objects_count(), 2);
    uint64_t deleted = load_relaxed(&weak_refs_deleted);
    objects_reset(jni);
    CHECK_EQ_U64(objects_count(), 0);
    CHECK_EQ_U64(visited(), 0);
    CHECK_EQ_U64(load_relaxed(&weak_refs_deleted), deleted + 2);   /* a's and the class's */
    int found = 1;
    objects_hash(ida, &found);
    CHECK(!found);
    objects_hash(iddead, &found);
    CHECK(!found);
    /* a's next sight describes it again, with a new id, and its class too. */
    uint64_t ida2 = id_of(&a, OBJ_PLAIN);
    CHECK(ida2 != 0 && ida2 != ida);
    CHECK_EQ_U64(id_of(&a, OBJ_PLAIN), ida2);
    CHECK_EQ_U64(objects_hash(ida2, &found), 0xC001);
    CHECK(found);
    int seen = 0;
    cv_object e = entry(ida2, &seen);
    CHECK_EQ_U64(seen, 1);
    CHECK(e.class_id != 0 && e.class_id != idc);
    CHECK_EQ_U64(e.class_id, id_of(&cls, OBJ_CLASS));
    cv_object c = entry(e.class_id, &seen);
    CHECK_EQ_U64(seen, 1);
    CHECK_EQ_U64(c.kind, OBJ_CLASS);
    CHECK_EQ_U64(c.hash, 0xC000);
    CHECK(resolve(c.ref) == &cls);
    CHECK_EQ_U64(visited(), 2);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

TEST(objects_full_table_gives_no_id_until_a_sweep_frees_a_slot) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_table_filled(0);
    uint64_t cap = objects_capacity();
    static fake_obj extra = {.hash = 0xD001};
    extra.cls = &filler_cls;
    uint64_t dropped = objects_dropped();
    CHECK_EQ_U64(id_of(&extra, OBJ_PLAIN), 0);
    CHECK_EQ_U64(objects_dropped(), dropped + 1);
    CHECK_EQ_U64(live_refs(&extra), 0);                   /* the reference made before the lock is let go */
    /* Every filler collected: a first sight that finds the table full sweeps the buckets of
     * 64 slots a time, so within one turn of the 1,024 slots it finds the room. */
    for (uint64_t i = 0; i + 1 < cap; i++) collect(&fillers[i]);
    uint64_t again = 0;
    int tries = 0;
    while (again == 0 && tries < 17) {
        again = id_of(&extra, OBJ_PLAIN);
        tries++;
    }
    CHECK(SLOT(again) != 0);
    int found = 0;
    CHECK_EQ_U64(objects_hash(again, &found), 0xD001);
    CHECK(found);
    /* The table takes as many new objects again, none dropped once swept. */
    visited();
    dropped = objects_dropped();
    for (uint64_t i = 0; i + 2 < cap; i++) {
        memset(&fillers[i], 0, sizeof(fillers[i]));      /* new objects */
        fillers[i].cls = &filler_cls;
        fillers[i].hash = (jint)(0x5000000 + i);
        if (SLOT(id_of(&fillers[i], OBJ_PLAIN)) == 0) {
            CHECK(0);
            break;
        }
    }
    CHECK_EQ_U64(objects_count(), cap);
    CHECK_EQ_U64(objects_dropped(), dropped);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

/* Writers describe objects and have them collected while a reader looks up ids it saw
 * handed out: an id found must always describe the object it was given to, and no
 * reference is ever used after its deletion (the mock counts that). */
#define CHURN_THREADS 3
#define CHURN_ROUNDS 4000
#define CHURN_POOL 64

static uint64_t churn_ids[CHURN_THREADS][CHURN_POOL];   /* atomic: the ids handed out */
static jint churn_hash[CHURN_THREADS][CHURN_POOL];      /* atomic: hash of churn_ids' object */
static int churn_done;                                  /* atomic */
static uint64_t churn_wrong, churn_checked, churn_none; /* atomic */
static fake_obj churn_cls[CHURN_THREADS];
static fake_obj churn_pool[CHURN_THREADS][CHURN_POOL];   /* never freed: the mock's references point into it */

static void *churn_writer(void *p) {
    int w = (int)(intptr_t)p;
    churn_cls[w].hash = 0xE000 + w;
    fake_obj *pool = churn_pool[w];
    for (int r = 0; r < CHURN_ROUNDS; r++) {
        int k = r % CHURN_POOL;
        collect(&pool[k]);                               /* the previous object there died */
        /* ids unpublished while they change: the reader skips the entry */
        __atomic_store_n(&churn_ids[w][k], 0, __ATOMIC_RELEASE);
        memset(&pool[k], 0, sizeof(pool[k]));
        pool[k].cls = &churn_cls[w];
        pool[k].hash = (jint)(0x4000000 + w * 0x100000 + r);
        uint64_t id = id_of(&pool[k], OBJ_PLAIN);
        if (id == 0) fetch_add_relaxed(&churn_none, 1);
        __atomic_store_n(&churn_hash[w][k], pool[k].hash, __ATOMIC_RELEASE);
        __atomic_store_n(&churn_ids[w][k], id, __ATOMIC_RELEASE);
    }
    for (int k = 0; k < CHURN_POOL; k++) collect(&pool[k]);
    return NULL;
}

static void *churn_reader(void *p) {
    (void)p;
    /* ids seen with their object's hash, looked up again long after: the object may be long
     * dead and its slot reused, the lookup must then say "not found". */
    static uint64_t old_ids[4096];
    static jint old_hash[4096];
    size_t nold = 0;
    while (!__atomic_load_n(&churn_done, __ATOMIC_ACQUIRE)) {
        for (int w = 0; w < CHURN_THREADS; w++) {
            for (int k = 0; k < CHURN_POOL; k++) {
                uint64_t id = __atomic_load_n(&churn_ids[w][k], __ATOMIC_ACQUIRE);
                jint hash = __atomic_load_n(&churn_hash[w][k], __ATOMIC_ACQUIRE);
                if (id == 0 || __atomic_load_n(&churn_ids[w][k], __ATOMIC_ACQUIRE) != id) continue;
                old_ids[nold % 4096] = id;
                old_hash[nold % 4096] = hash;
                nold++;
            }
        }
        size_t n = nold < 4096 ? nold : 4096;
        for (size_t i = 0; i < n; i++) {
            int found = 0;
            uint32_t h = objects_hash(old_ids[i], &found);
            fetch_add_relaxed(&churn_checked, 1);
            if (found && h != (uint32_t)old_hash[i]) fetch_add_relaxed(&churn_wrong, 1);
        }
        visited();   /* snapshots sweep concurrently with the writers' look-ups */
    }
    return NULL;
}

TEST(objects_ids_never_describe_a_later_object_under_concurrent_collection_and_reuse) {
    uint64_t v0 = load_relaxed(&violations);
    CHECK(objects_init(0) == 0);   /* 1024 slots: the writers' 12,000 objects reuse them over and over */
    pthread_t writers[CHURN_THREADS], reader;
    CHECK(pthread_create(&reader, NULL, churn_reader, NULL) == 0);
    for (int w = 0; w < CHURN_THREADS; w++) CHECK(pthread_create(&writers[w], NULL, churn_writer, (void *)(intptr_t)w) == 0);
    for (int w = 0; w < CHURN_THREADS; w++) pthread_join(writers[w], NULL);
    __atomic_store_n(&churn_done, 1, __ATOMIC_RELEASE);
    pthread_join(reader, NULL);
    CHECK_EQ_U64(load_relaxed(&churn_wrong), 0);
    CHECK(load_relaxed(&churn_checked) > 0);
    /* At most 3 x 64 objects and 3 classes were alive at once, in 1,024 slots: the sweeps keep
     * room for nearly every one of the 12,000. A first sight can still meet a full table while
     * the other writers' collected objects wait for a sweep (seen once in seven runs on a loaded
     * machine): such an object gets no id, and is counted as dropped, never lost silently. */
    CHECK_EQ_U64(load_relaxed(&churn_none), objects_dropped());
    CHECK(load_relaxed(&churn_none) * 100 < 12000);
    /* Every object collected at the end: a snapshot leaves only the classes linked. */
    visited();
    CHECK_EQ_U64(objects_count(), CHURN_THREADS);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

/* ---- Held references (objects.h, "Held references") ---- */

static uint64_t held_now(void) {
    uint64_t taken, made, full, held;
    objects_hold_counts(&taken, &made, &full, &held);
    return held;
}

/* A fresh table holding first sights; every test of held references starts from one. */
static void fresh_holding_table(void) {
    CHECK(objects_init(0) == 0);   /* 1,024 slots and buckets */
    CHECK(!objects_holding());
    CHECK(objects_hold_start(jni) == 0);
    CHECK(objects_holding());
    CHECK_EQ_U64(array_held(), 0);
}

TEST(objects_held_a_first_sight_holds_its_object_until_the_maker_makes_its_weak_reference) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_holding_table();
    static fake_obj cls = {.hash = 0xF000};
    static fake_obj a = {.hash = 0xF001, .cls = &cls};
    static fake_obj twin = {.hash = 0xF001, .cls = &cls};   /* a's identity hash, another object */
    uint64_t id = id_of(&a, OBJ_PLAIN);
    CHECK(id != 0);
    CHECK_EQ_U64(load_relaxed(&a.weak_refs), 0);          /* no weak reference in the callback... */
    CHECK(array_holds(&a));                               /* ...the held array has it */
    CHECK_EQ_U64(load_relaxed(&cls.weak_refs), 1);        /* a class makes its own: snapshots read it */
    CHECK(!array_holds(&cls));
    CHECK_EQ_U64(held_now(), 1);
    /* Held, it is found again, and told from another object of its hash, through the array. */
    CHECK_EQ_U64(id_of(&a, OBJ_PLAIN), id);
    uint64_t idt = id_of(&twin, OBJ_PLAIN);
    CHECK(idt != 0 && idt != id);
    CHECK_EQ_U64(id_of(&a, OBJ_PLAIN), id);
    CHECK_EQ_U64(held_now(), 2);
    /* The maker's round: one weak reference each, the entries emptied. */
    CHECK_EQ_U64(objects_hold_make(jni), 2);
    CHECK_EQ_U64(load_relaxed(&a.weak_refs), 1);
    CHECK_EQ_U64(load_relaxed(&twin.weak_refs), 1);
    CHECK_EQ_U64(array_held(), 0);
    CHECK_EQ_U64(held_now(), 0);
    CHECK_EQ_U64(objects_hold_make(jni), 0);
    CHECK_EQ_U64(id_of(&a, OBJ_PLAIN), id);               /* now found by its weak reference */
    CHECK_EQ_U64(id_of(&twin, OBJ_PLAIN), idt);
    uint64_t taken, made, full, held;
    objects_hold_counts(&taken, &made, &full, &held);
    CHECK_EQ_U64(taken, 2);
    CHECK_EQ_U64(made, 2);
    CHECK_EQ_U64(full, 0);
    /* Once it has its reference, a collection is seen as before. */
    collect(&a);
    visited();
    CHECK_EQ_U64(objects_swept(), 1);
    CHECK_EQ_U64(objects_count(), 2);                     /* twin and the class */
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

TEST(objects_held_no_sweep_drops_a_held_object) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_holding_table();
    static fake_obj cls = {.hash = 0xF100};
    static fake_obj a = {.hash = 0xF101, .cls = &cls};
    static fake_obj b = {.hash = 0xF101, .cls = &cls};
    uint64_t ida = id_of(&a, OBJ_PLAIN);
    collect(&a);                                          /* no weak reference to clear: the array holds it */
    objects_sweep(jni);
    CHECK_EQ_U64(visited(), 2);
    CHECK_EQ_U64(objects_swept(), 0);
    uint64_t idb = id_of(&b, OBJ_PLAIN);                  /* a look-up through a's chain keeps it too */
    CHECK(idb != 0 && idb != ida);
    CHECK_EQ_U64(objects_swept(), 0);
    CHECK_EQ_U64(id_of(&a, OBJ_PLAIN), ida);
    CHECK_EQ_U64(objects_count(), 3);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

TEST(objects_held_a_shard_with_every_entry_in_use_makes_the_reference_in_the_look_up) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_holding_table();
    static fake_obj cls = {.hash = 0xF201};               /* bucket 0x201: shard 1 */
    static fake_obj o[65];
    /* Hashes 64 * k (k < 1,024) fall in buckets 0, 64, ..., 960 of 1,024: all in shard 0. */
    for (int k = 0; k < 65; k++) {
        o[k].hash = (jint)(64 * (k + 1));
        o[k].cls = &cls;
        CHECK(id_of(&o[k], OBJ_PLAIN) != 0);
    }
    uint64_t taken, made, full, held;
    objects_hold_counts(&taken, &made, &full, &held);
    CHECK_EQ_U64(taken, 64);
    CHECK_EQ_U64(held, 64);
    CHECK_EQ_U64(full, 1);
    CHECK_EQ_U64(load_relaxed(&o[64].weak_refs), 1);      /* the 65th made its own */
    CHECK(!array_holds(&o[64]));
    CHECK_EQ_U64(objects_hold_make(jni), 64);
    for (int k = 0; k < 65; k++) CHECK_EQ_U64(load_relaxed(&o[k].weak_refs), 1);
    static fake_obj next = {.hash = 64 * 66};              /* shard 0 has room again */
    next.cls = &cls;
    CHECK(id_of(&next, OBJ_PLAIN) != 0);
    CHECK(array_holds(&next));
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

TEST(objects_held_reset_empties_the_held_entries) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_holding_table();
    static fake_obj cls = {.hash = 0xF300};
    static fake_obj a = {.hash = 0xF301, .cls = &cls};
    static fake_obj b = {.hash = 0xF302, .cls = &cls};
    uint64_t ida = id_of(&a, OBJ_PLAIN);
    id_of(&b, OBJ_PLAIN);
    CHECK_EQ_U64(held_now(), 2);
    objects_reset(jni);
    CHECK_EQ_U64(array_held(), 0);                        /* the array lets them go */
    CHECK_EQ_U64(held_now(), 0);
    CHECK_EQ_U64(objects_hold_make(jni), 0);
    CHECK_EQ_U64(load_relaxed(&a.weak_refs), 0);
    uint64_t ida2 = id_of(&a, OBJ_PLAIN);                 /* seen again: described and held again */
    CHECK(ida2 != 0 && ida2 != ida);
    CHECK(array_holds(&a));
    CHECK_EQ_U64(objects_hold_make(jni), 1);
    CHECK_EQ_U64(id_of(&a, OBJ_PLAIN), ida2);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

/* While the maker makes a's reference, a reset empties a's entry and b's first sight takes it
 * again: the maker must see that the entry holds another take and let a's reference go. */
static fake_obj retake_cls = {.hash = 0xF401};
static fake_obj retake_a = {.hash = 64, .cls = &retake_cls};    /* shard 0, its first entry */
static fake_obj retake_b = {.hash = 128, .cls = &retake_cls};   /* shard 0: the same entry once a's is emptied */
static uint64_t retake_idb;

static void reset_and_take_again(void) {
    objects_reset(jni);
    retake_idb = id_of(&retake_b, OBJ_PLAIN);
}

TEST(objects_held_the_maker_lets_go_of_an_entry_taken_again_while_it_made_the_reference) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_holding_table();
    uint64_t ida = id_of(&retake_a, OBJ_PLAIN);
    CHECK(ida != 0);
    CHECK(array_holds(&retake_a));
    during_next_weak_ref = reset_and_take_again;
    CHECK_EQ_U64(objects_hold_make(jni), 0);
    CHECK(retake_idb != 0);
    CHECK(array_holds(&retake_b));                        /* b holds the entry a had */
    CHECK_EQ_U64(live_refs(&retake_a), 0);                /* a's reference, made too late, let go */
    CHECK_EQ_U64(id_of(&retake_b, OBJ_PLAIN), retake_idb);
    CHECK_EQ_U64(objects_hold_make(jni), 1);              /* b's own take, in the next round */
    CHECK_EQ_U64(live_refs(&retake_b), 1);
    CHECK_EQ_U64(id_of(&retake_b, OBJ_PLAIN), retake_idb);
    uint64_t ida2 = id_of(&retake_a, OBJ_PLAIN);          /* a, reset, is described anew */
    CHECK(ida2 != 0 && ida2 != ida);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

/* While the maker empties an entry whose slot took its reference, another thread's first sight
 * of an object of the same shard must not wait for it: the maker holds no shard lock across the
 * VM transition (a wait there, for a safepoint or a CPU, would stall that callback). The other
 * thread gets 10 s; holding the lock, the maker would keep it waiting until the hook returns. */
static fake_obj nolock_cls = {.hash = 0xF501};
static fake_obj nolock_a = {.hash = 64, .cls = &nolock_cls};     /* shard 0 */
static fake_obj nolock_c = {.hash = 192, .cls = &nolock_cls};    /* shard 0 too */
static uint64_t nolock_idc;
static int nolock_in_time;

static void *first_sight_of_c(void *p) {
    (void)p;
    __atomic_store_n(&nolock_idc, id_of(&nolock_c, OBJ_PLAIN), __ATOMIC_RELEASE);
    return NULL;
}

static void first_sight_meanwhile(void) {
    pthread_t t;
    if (pthread_create(&t, NULL, first_sight_of_c, NULL) != 0) return;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    nolock_in_time = pthread_timedjoin_np(t, NULL, &until) == 0;
    /* Still waiting: the maker (this thread) holds its lock. Left to finish once it lets go;
     * the test fails instead of hanging. */
    if (!nolock_in_time) pthread_detach(t);
}

TEST(objects_held_the_maker_empties_entries_without_a_shard_lock) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_holding_table();
    uint64_t ida = id_of(&nolock_a, OBJ_PLAIN);
    CHECK(ida != 0);
    during_next_array_clear = first_sight_meanwhile;
    nolock_in_time = 0;
    CHECK_EQ_U64(objects_hold_make(jni), 1);
    CHECK(during_next_array_clear == NULL);               /* the maker emptied a's entry */
    CHECK(nolock_in_time);
    CHECK(__atomic_load_n(&nolock_idc, __ATOMIC_ACQUIRE) != 0);
    CHECK(array_holds(&nolock_c));                        /* c took another entry: a's was still taken */
    CHECK(!array_holds(&nolock_a));
    CHECK_EQ_U64(live_refs(&nolock_a), 1);
    CHECK_EQ_U64(id_of(&nolock_a, OBJ_PLAIN), ida);       /* through its reference now */
    CHECK_EQ_U64(objects_hold_make(jni), 1);              /* c's, in the next round */
    uint64_t taken, made, full, held;
    objects_hold_counts(&taken, &made, &full, &held);
    CHECK_EQ_U64(held, 0);                                /* every entry free again */
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

/* Writers describe new objects and look them up again while the maker makes their weak
 * references and, now and then, the table is reset: an object keeps its id until a reset, no
 * reference is deleted twice or used after its deletion (the mock counts that), and once the
 * writers are done and the maker has had its round, nothing is held and every described
 * object has exactly one weak reference. */
#define HELD_WRITERS 3
#define HELD_OBJECTS 1500

static fake_obj held_pool[HELD_WRITERS][HELD_OBJECTS];
static fake_obj held_cls[HELD_WRITERS];
static uint32_t held_resets;               /* atomic: resets done */
static int held_done;                      /* atomic */
static uint64_t held_wrong, held_none;     /* atomic */

/* Whether an object described when the reset count was `at` may have lost its id since: a
 * reset was under way then (odd count) or came after. */
static int reset_since(uint32_t at) {
    return (at & 1) || __atomic_load_n(&held_resets, __ATOMIC_ACQUIRE) != at;
}

static void *held_writer(void *p) {
    int w = (int)(intptr_t)p;
    static uint64_t ids[HELD_WRITERS][HELD_OBJECTS];
    static uint32_t at[HELD_WRITERS][HELD_OBJECTS];
    held_cls[w].hash = 0x7E000 + w;
    for (int i = 0; i < HELD_OBJECTS; i++) {
        fake_obj *o = &held_pool[w][i];
        o->cls = &held_cls[w];
        o->hash = (jint)(0x6000000 + w * 0x100000 + i);
        at[w][i] = __atomic_load_n(&held_resets, __ATOMIC_ACQUIRE);
        ids[w][i] = id_of(o, OBJ_PLAIN);
        if (ids[w][i] == 0) fetch_add_relaxed(&held_none, 1);
        if (i % 64 != 63) continue;
        /* Every object so far again: the same id, unless a reset came since it got it. */
        for (int j = 0; j <= i; j++) {
            uint32_t now = __atomic_load_n(&held_resets, __ATOMIC_ACQUIRE);
            uint64_t id = id_of(&held_pool[w][j], OBJ_PLAIN);
            if (id == ids[w][j]) continue;
            if (!reset_since(at[w][j])) fetch_add_relaxed(&held_wrong, 1);
            ids[w][j] = id;
            at[w][j] = now;
        }
    }
    return NULL;
}

static void *held_maker(void *p) {
    (void)p;
    while (!__atomic_load_n(&held_done, __ATOMIC_ACQUIRE)) objects_hold_make(jni);
    return NULL;
}

/* Resets from a thread of its own, so that they fall between the maker's two passes. */
static void *held_resetter(void *p) {
    (void)p;
    for (int r = 0; r < 300 && !__atomic_load_n(&held_done, __ATOMIC_ACQUIRE); r++) {
        for (int i = 0; i < 100; i++) sched_yield();
        __atomic_fetch_add(&held_resets, 1, __ATOMIC_ACQ_REL);   /* odd while it resets */
        objects_reset(jni);
        __atomic_fetch_add(&held_resets, 1, __ATOMIC_ACQ_REL);
    }
    return NULL;
}

TEST(objects_held_ids_hold_while_the_maker_runs_and_resets_come) {
    uint64_t v0 = load_relaxed(&violations);
    CHECK(objects_init(1 << 20) == 0);   /* room for every object: none is collected */
    CHECK(objects_hold_start(jni) == 0);
    pthread_t writers[HELD_WRITERS], maker, resetter;
    CHECK(pthread_create(&maker, NULL, held_maker, NULL) == 0);
    CHECK(pthread_create(&resetter, NULL, held_resetter, NULL) == 0);
    for (int w = 0; w < HELD_WRITERS; w++) CHECK(pthread_create(&writers[w], NULL, held_writer, (void *)(intptr_t)w) == 0);
    for (int w = 0; w < HELD_WRITERS; w++) pthread_join(writers[w], NULL);
    __atomic_store_n(&held_done, 1, __ATOMIC_RELEASE);
    pthread_join(maker, NULL);
    pthread_join(resetter, NULL);
    objects_hold_make(jni);
    CHECK(__atomic_load_n(&held_resets, __ATOMIC_ACQUIRE) > 0);
    CHECK_EQ_U64(load_relaxed(&held_wrong), 0);
    CHECK_EQ_U64(load_relaxed(&held_none), 0);
    CHECK_EQ_U64(held_now(), 0);
    CHECK_EQ_U64(array_held(), 0);
    uint64_t taken, made, full, held;
    objects_hold_counts(&taken, &made, &full, &held);
    CHECK(made > 0 && made <= taken);
    /* Each object looked up once more (those a reset emptied are described again) and the
     * maker's round: every object is linked, with exactly one live weak reference. */
    for (int w = 0; w < HELD_WRITERS; w++) {
        for (int i = 0; i < HELD_OBJECTS; i++) CHECK(id_of(&held_pool[w][i], OBJ_PLAIN) != 0);
    }
    objects_hold_make(jni);
    CHECK_EQ_U64(held_now(), 0);
    uint64_t linked = 0, with_ref = 0;
    for (int w = 0; w < HELD_WRITERS; w++) {
        for (int i = 0; i < HELD_OBJECTS; i++) {
            uint32_t refs = live_refs(&held_pool[w][i]);
            CHECK_EQ_U64(refs, 1);
            with_ref += refs;
        }
        with_ref += live_refs(&held_cls[w]);
    }
    linked = objects_count();
    CHECK_EQ_U64(linked, HELD_WRITERS * (HELD_OBJECTS + 1));
    CHECK_EQ_U64(with_ref, linked);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}
