/*
 * objects.c against a mock jvmtiEnv and JNIEnv: a jobject is a pointer to a fake_obj,
 * whose tag, identity hash and class the mock functions read and write. Only the
 * functions objects.c calls are filled in; any other call crashes on a NULL pointer.
 *
 * The mock's SetTag checks the contract of objects.h at the moment a tag would become
 * visible to GetTag: the entry it names must already be described, and so must the
 * class entry of a non-class object. Violations are counted (atomically: the mock also
 * runs on the threads of the concurrent test) and each test checks the count.
 *
 * The object table is process-wide and initialised once; each test uses objects of its
 * own, and the objects_foreach test checks against every object any test tagged. The tests
 * of freeing and resetting come last (they empty the table).
 */
#include "arch.h"
#include "check.h"
#include "objects.h"
#include "snapshot_format.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct fake_obj {
    jlong tag;               /* atomic: GetTag acquires, SetTag releases */
    jint hash;
    struct fake_obj *cls;    /* NULL for a class */
    int fail_set_tag;        /* SetTag calls still to fail (JVMTI_ERROR_INTERNAL) */
    int set_tag_failed;      /* the mock failed a SetTag on it */
    uint32_t weak_refs;      /* NewWeakGlobalRef calls on it (atomic) */
    int stall_set_tag;       /* SetTag waits while this is set (atomic) */
    int stalled;             /* a SetTag is waiting (atomic) */
    int registered;
} fake_obj;

#define MAX_TAGGED 8192

static pthread_mutex_t tagged_lock = PTHREAD_MUTEX_INITIALIZER;
static fake_obj *tagged[MAX_TAGGED];   /* every object the mock tagged, by any test */
static size_t ntagged;
static uint64_t violations;            /* contract violations seen in SetTag (atomic) */
static uint64_t settag_calls;          /* (atomic) */
static uint64_t gettag_calls;          /* (atomic) */
static jlong last_failed_tag;          /* the tag of the last SetTag the mock failed */

static fake_obj *as_fake(jobject o) {
    return (fake_obj *)(void *)o;
}

static jobject as_jobject(fake_obj *o) {
    return (jobject)(void *)o;
}

static void violation(const char *what, jlong tag) {
    fprintf(stderr, "  mock SetTag(%lld): %s\n", (long long)tag, what);
    fetch_add_relaxed(&violations, 1);
}

static jvmtiError JNICALL mock_get_tag(jvmtiEnv *env, jobject object, jlong *tag_ptr) {
    fetch_add_relaxed(&gettag_calls, 1);
    *tag_ptr = __atomic_load_n(&as_fake(object)->tag, __ATOMIC_ACQUIRE);
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL mock_set_tag(jvmtiEnv *env, jobject object, jlong tag) {
    fake_obj *o = as_fake(object);
    fetch_add_relaxed(&settag_calls, 1);
    /* The contract: before GetTag can return `tag`, its entry (and its class's) is described. */
    int found = 0;
    uint32_t hash = objects_hash((uint64_t)tag, &found);
    if (!found) {
        /* An overflow id (slot bits 0: the table was full) is never described. */
        if (((uint64_t)tag & 0xFFFFFFFFull) != 0) violation("the entry is not described yet", tag);
    } else if (hash != (uint32_t)o->hash) {
        violation("the entry describes another hash", tag);
    }
    if (o->cls && !o->cls->set_tag_failed) {
        jlong ctag = __atomic_load_n(&o->cls->tag, __ATOMIC_ACQUIRE);
        int cfound = 0;
        uint32_t chash = objects_hash((uint64_t)ctag, &cfound);
        if (ctag == 0 || !cfound || chash != (uint32_t)o->cls->hash) {
            violation("the class entry is not described", tag);
        }
    }
    jlong before = __atomic_load_n(&o->tag, __ATOMIC_ACQUIRE);
    int before_found = 0;
    if (before != 0) objects_hash((uint64_t)before, &before_found);
    if (before_found) violation("the object is tagged already with a described id", tag);
    if (__atomic_load_n(&o->stall_set_tag, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&o->stalled, 1, __ATOMIC_RELEASE);
        while (__atomic_load_n(&o->stall_set_tag, __ATOMIC_ACQUIRE)) sched_yield();
    }
    if (o->fail_set_tag > 0) {
        o->fail_set_tag--;
        o->set_tag_failed = 1;
        last_failed_tag = tag;
        return JVMTI_ERROR_INTERNAL;
    }
    __atomic_store_n(&o->tag, tag, __ATOMIC_RELEASE);
    pthread_mutex_lock(&tagged_lock);
    if (!o->registered && ntagged < MAX_TAGGED) {
        o->registered = 1;
        tagged[ntagged++] = o;
    }
    pthread_mutex_unlock(&tagged_lock);
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL mock_get_object_hash_code(jvmtiEnv *env, jobject object, jint *hash_code_ptr) {
    *hash_code_ptr = as_fake(object)->hash;
    sched_yield(); /* widens the window the old objects.c left between SetTag and the description */
    return JVMTI_ERROR_NONE;
}

static jclass JNICALL mock_get_object_class(JNIEnv *env, jobject obj) {
    return (jclass)as_jobject(as_fake(obj)->cls);
}

static void JNICALL mock_delete_local_ref(JNIEnv *env, jobject obj) {
}

static jweak JNICALL mock_new_weak_global_ref(JNIEnv *env, jobject obj) {
    fetch_add_relaxed(&as_fake(obj)->weak_refs, 1);
    return (jweak)obj;
}

static uint64_t weak_refs_deleted;     /* (atomic) */

static void JNICALL mock_delete_weak_global_ref(JNIEnv *env, jweak ref) {
    fetch_add_relaxed(&weak_refs_deleted, 1);
}

static jboolean JNICALL mock_exception_check(JNIEnv *env) {
    return JNI_FALSE;
}

static void JNICALL mock_exception_clear(JNIEnv *env) {
}

static struct jvmtiInterface_1_ mock_jvmti_functions = {
    .GetTag = mock_get_tag,
    .SetTag = mock_set_tag,
    .GetObjectHashCode = mock_get_object_hash_code,
};

static struct JNINativeInterface_ mock_jni_functions = {
    .GetObjectClass = mock_get_object_class,
    .DeleteLocalRef = mock_delete_local_ref,
    .NewWeakGlobalRef = mock_new_weak_global_ref,
    .DeleteWeakGlobalRef = mock_delete_weak_global_ref,
    .ExceptionCheck = mock_exception_check,
    .ExceptionClear = mock_exception_clear,
};

static jvmtiEnv mock_jvmti_env = &mock_jvmti_functions;
static JNIEnv mock_jni_env = &mock_jni_functions;
static jvmtiEnv *const jvmti = &mock_jvmti_env;
static JNIEnv *const jni = &mock_jni_env;

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

TEST(objects_a_new_object_costs_one_set_tag_and_no_get_tag) {
    setup();
    static fake_obj cls = {.hash = 0x0A110001};
    static fake_obj obj = {.hash = 0x0A110002, .cls = &cls};
    uint64_t gets = load_relaxed(&gettag_calls), sets = load_relaxed(&settag_calls);
    uint64_t skips = objects_hash_skips();
    uint64_t id = id_of(&obj, OBJ_PLAIN);
    CHECK(id != 0);
    CHECK_EQ_U64(load_relaxed(&gettag_calls) - gets, 0);      /* neither had a described hash */
    CHECK_EQ_U64(load_relaxed(&settag_calls) - sets, 2);      /* the class, then the object */
    CHECK_EQ_U64(objects_hash_skips() - skips, 2);
    /* Seen again: its hash is described now, so the tag is read, once, and no tag is set. */
    gets = load_relaxed(&gettag_calls);
    sets = load_relaxed(&settag_calls);
    CHECK_EQ_U64(id_of(&obj, OBJ_PLAIN), id);
    CHECK_EQ_U64(load_relaxed(&gettag_calls) - gets, 1);
    CHECK_EQ_U64(load_relaxed(&settag_calls) - sets, 0);
    CHECK_EQ_U64(load_relaxed(&violations), 0);
}

TEST(objects_a_new_object_whose_hash_is_described_is_looked_up_and_kept_apart) {
    setup();
    static fake_obj cls = {.hash = 0x0A120001};
    static fake_obj a = {.hash = 0x0A120002, .cls = &cls};
    static fake_obj b = {.hash = 0x0A120002, .cls = &cls};   /* the same identity hash */
    uint64_t ida = id_of(&a, OBJ_PLAIN);
    uint64_t gets = load_relaxed(&gettag_calls);
    uint64_t idb = id_of(&b, OBJ_PLAIN);
    CHECK(idb != 0 && idb != ida);
    /* Not provably untagged: GetTag before the lock and again under it (and one for the
     * class, described already). */
    CHECK_EQ_U64(load_relaxed(&gettag_calls) - gets, 3);
    CHECK_EQ_U64(load_relaxed(&violations), 0);
}

/* A look-up on its own thread, for the tests that stall SetTag. */
typedef struct {
    fake_obj *obj;
    uint64_t id;
    int done;   /* atomic */
} lookup;

static void *look_up(void *p) {
    lookup *l = p;
    l->id = id_of(l->obj, OBJ_PLAIN);
    __atomic_store_n(&l->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Polls `flag` for up to 10 s: a liveness check, never a timing one. */
static int eventually(const int *flag) {
    for (int i = 0; i < 10000 && !__atomic_load_n(flag, __ATOMIC_ACQUIRE); i++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

TEST(objects_set_tag_runs_outside_the_lock_and_a_racer_of_the_same_object_waits_for_it) {
    setup();
    uint64_t v0 = load_relaxed(&violations);
    static fake_obj cls = {.hash = 0x0A140001};
    static fake_obj obj = {.hash = 0x0A140002, .cls = &cls};
    static fake_obj neighbour = {.hash = 0x0A140042, .cls = &cls};   /* another bucket, obj's shard */
    CHECK(id_of(&cls, OBJ_CLASS) != 0);
    __atomic_store_n(&obj.stall_set_tag, 1, __ATOMIC_RELEASE);
    lookup first = {.obj = &obj}, other = {.obj = &neighbour}, again = {.obj = &obj};
    pthread_t t1, t2, t3;
    CHECK(pthread_create(&t1, NULL, look_up, &first) == 0);
    CHECK(eventually(&obj.stalled));                 /* described, published, inside SetTag */
    CHECK(pthread_create(&t2, NULL, look_up, &other) == 0);
    CHECK(pthread_create(&t3, NULL, look_up, &again) == 0);
    /* A first sight of another object of the shard does not wait for obj's SetTag... */
    CHECK(eventually(&other.done));
    CHECK(other.id != 0);
    /* ...but a second sight of obj, which finds it untagged, does, and then takes its id. */
    CHECK(!__atomic_load_n(&again.done, __ATOMIC_ACQUIRE));
    __atomic_store_n(&obj.stall_set_tag, 0, __ATOMIC_RELEASE);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    pthread_join(t3, NULL);
    CHECK(first.id != 0 && first.id != other.id);
    CHECK_EQ_U64(again.id, first.id);
    CHECK_EQ_U64((uint64_t)obj.tag, first.id);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

/* Hooks that record what objects.c lends them: a published id, and a preset answer to peek. */
typedef struct {
    fake_obj *obj;
    uint64_t  published;
    uint64_t  peek_answer;
    int       published_untagged_described;   /* at publish: described, not tagged yet */
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
    c->published_untagged_described = found && __atomic_load_n(&c->obj->tag, __ATOMIC_ACQUIRE) == 0;
}

TEST(objects_hooks_publish_a_first_sight_before_its_tag_and_peeks_spare_jvmti) {
    setup();
    static fake_obj cls = {.hash = 0x0A130001};
    static fake_obj obj = {.hash = 0x0A130002, .cls = &cls};
    hook_ctx c = {.obj = &obj};
    cv_id_hooks hooks = {hook_class_id, hook_peek, hook_publish, &c};
    uint64_t id = objects_id_with(jvmti, jni, as_jobject(&obj), OBJ_PLAIN, &hooks);
    CHECK(id != 0);
    CHECK_EQ_U64(c.published, id);
    CHECK(c.published_untagged_described);
    CHECK_EQ_U64(c.class_calls, 1);
    CHECK_EQ_U64((uint64_t)obj.tag, id);
    /* Another thread's look-up finds the id published: no GetTag, no SetTag, no class. */
    static fake_obj other = {.hash = 0x0A130002, .cls = &cls};   /* would need GetTag */
    hook_ctx d = {.obj = &other, .peek_answer = id};
    cv_id_hooks peeking = {hook_class_id, hook_peek, hook_publish, &d};
    uint64_t gets = load_relaxed(&gettag_calls), sets = load_relaxed(&settag_calls);
    CHECK_EQ_U64(objects_id_with(jvmti, jni, as_jobject(&other), OBJ_PLAIN, &peeking), id);
    CHECK_EQ_U64(load_relaxed(&gettag_calls) - gets, 0);
    CHECK_EQ_U64(load_relaxed(&settag_calls) - sets, 0);
    CHECK_EQ_U64(d.class_calls, 0);
    CHECK_EQ_U64(load_relaxed(&violations), 0);
}

TEST(objects_describe_an_object_and_its_class_before_tagging_it) {
    setup();
    uint64_t v0 = load_relaxed(&violations);
    static fake_obj cls = {.hash = 0x1111};
    static fake_obj obj = {.hash = 0x2222, .cls = &cls};
    uint64_t id = id_of(&obj, OBJ_PLAIN);
    CHECK(id != 0);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
    CHECK_EQ_U64(obj.tag, id);
    CHECK(cls.tag != 0 && (uint64_t)cls.tag != id);
    int found = 0;
    CHECK_EQ_U64(objects_hash(id, &found), 0x2222);
    CHECK(found);
    int seen = 0;
    cv_object e = entry(id, &seen);
    CHECK_EQ_U64(seen, 1);
    CHECK_EQ_U64(e.kind, OBJ_PLAIN);
    CHECK_EQ_U64(e.hash, 0x2222);
    CHECK_EQ_U64(e.class_id, cls.tag);
    CHECK(e.ref == NULL);
    cv_object c = entry((uint64_t)cls.tag, &seen);
    CHECK_EQ_U64(seen, 1);
    CHECK_EQ_U64(c.kind, OBJ_CLASS);
    CHECK_EQ_U64(c.hash, 0x1111);
    CHECK_EQ_U64(c.class_id, 0);
    CHECK(c.ref == (jweak)as_jobject(&cls));
}

TEST(objects_same_object_same_id_distinct_objects_distinct_ids) {
    setup();
    uint64_t v0 = load_relaxed(&violations);
    static fake_obj cls = {.hash = 0x3333};
    static fake_obj a = {.hash = 0x4444, .cls = &cls};
    static fake_obj b = {.hash = 0x4444, .cls = &cls}; /* identity hashes may collide */
    uint64_t ida = id_of(&a, OBJ_PLAIN);
    uint64_t calls = load_relaxed(&settag_calls);
    CHECK(ida != 0);
    CHECK_EQ_U64(id_of(&a, OBJ_PLAIN), ida);
    CHECK_EQ_U64(id_of(&a, OBJ_THREAD), ida);          /* the first kind stays */
    CHECK_EQ_U64(load_relaxed(&settag_calls), calls);  /* later sights only read the tag */
    uint64_t idb = id_of(&b, OBJ_PLAIN);
    CHECK(idb != 0 && idb != ida);
    int seen = 0;
    CHECK_EQ_U64(entry(idb, &seen).class_id, entry(ida, &seen).class_id);
    CHECK_EQ_U64(entry(ida, &seen).kind, OBJ_PLAIN);
    CHECK_EQ_U64(objects_id(jvmti, jni, NULL, OBJ_PLAIN), 0);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

TEST(objects_class_id_names_a_described_class_with_one_weak_ref) {
    setup();
    uint64_t v0 = load_relaxed(&violations);
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
    CHECK_EQ_U64(load_relaxed(&violations), v0);
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

TEST(objects_set_tag_failure_leaves_no_description_behind) {
    setup();
    uint64_t v0 = load_relaxed(&violations);
    static fake_obj cls = {.hash = 0x7777};
    static fake_obj a = {.hash = 0x7001, .cls = &cls, .fail_set_tag = 1};
    static fake_obj b = {.hash = 0x7002, .cls = &cls};
    CHECK_EQ_U64(id_of(&a, OBJ_PLAIN), 0);
    CHECK_EQ_U64(a.tag, 0);
    uint64_t failed = (uint64_t)last_failed_tag;
    CHECK(failed != 0);
    int found = 1;
    objects_hash(failed, &found);
    CHECK(!found);                                      /* the failed entry does not stay described */
    CHECK_EQ_U64(described_with_hash(0x7001), 0);
    /* ...and its id is not handed out again: a snapshot may have been copying the entry. */
    uint64_t idb = id_of(&b, OBJ_PLAIN);
    CHECK(idb != 0 && idb != failed);
    CHECK_EQ_U64(objects_hash(idb, &found), 0x7002);
    CHECK(found);
    int seen = 0;
    cv_object e = entry(idb, &seen);
    CHECK_EQ_U64(seen, 1);
    CHECK_EQ_U64(e.kind, OBJ_PLAIN);
    CHECK_EQ_U64(e.class_id, cls.tag);
    uint64_t ida = id_of(&a, OBJ_PLAIN);                  /* SetTag works again */
    CHECK(ida != 0 && ida != idb);
    CHECK_EQ_U64(objects_hash(ida, &found), 0x7001);
    CHECK_EQ_U64(described_with_hash(0x7001), 1);
    CHECK_EQ_U64(described_with_hash(0x7002), 1);

    /* A class whose SetTag fails: its object still gets an id, with no class. */
    static fake_obj cls2 = {.hash = 0x7778, .fail_set_tag = 1};
    static fake_obj c = {.hash = 0x7003, .cls = &cls2};
    uint64_t idc = id_of(&c, OBJ_PLAIN);
    CHECK(idc != 0);
    CHECK_EQ_U64(cls2.tag, 0);
    CHECK_EQ_U64(entry(idc, &seen).class_id, 0);
    CHECK_EQ_U64(objects_hash(idc, &found), 0x7003);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

typedef struct {
    size_t n;
    int wrong;
} all_ctx;

static void visit_all(void *p, const cv_object *o) {
    all_ctx *c = p;
    c->n++;
    fake_obj *match = NULL;
    pthread_mutex_lock(&tagged_lock);
    for (size_t i = 0; i < ntagged; i++) {
        if ((uint64_t)tagged[i]->tag == o->id) match = tagged[i];
    }
    pthread_mutex_unlock(&tagged_lock);
    if (!match || o->hash != (uint32_t)match->hash ||
        o->class_id != (match->cls ? (uint64_t)match->cls->tag : 0) ||
        (o->kind == OBJ_CLASS) != (match->cls == NULL)) {
        fprintf(stderr, "  entry %llu describes no tagged object\n", (unsigned long long)o->id);
        c->wrong++;
    }
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
    all_ctx c = {0, 0};
    objects_foreach(jni, visit_all, &c);
    CHECK_EQ_U64(c.n, ntagged);
    CHECK_EQ_U64(c.wrong, 0);
    CHECK(objects_count() >= ntagged); /* ids of failed SetTags are used up, never described */
    CHECK_EQ_U64(objects_dropped(), 0);
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

TEST(objects_id_handed_to_any_thread_is_described) {
    setup();
    uint64_t v0 = load_relaxed(&violations);
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
    for (int r = 0; r < RACE_ROUNDS; r++) CHECK_EQ_U64(load_relaxed(&race_cls[r].weak_refs), 1);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

/* ---- ids of collected objects are reused, generation-tagged; reset empties the table ----
 * Each test starts from a fresh table of the smallest size (1024 slots). */

#define SLOT(id) ((id) & 0xFFFFFFFFull)
#define GEN(id) ((id) >> 32)

static fake_obj filler_cls = {.hash = 0xF000};
static fake_obj fillers[1100];

/* A fresh table, filled up to `leave` free slots with filler objects of one class. */
static void fresh_table_filled(uint64_t leave) {
    CHECK(objects_init(0) == 0);
    uint64_t cap = objects_capacity();
    CHECK(cap <= 1100);
    memset(fillers, 0, sizeof(fillers));
    filler_cls.tag = 0;
    for (uint64_t i = 0; i + 1 + leave < cap; i++) {   /* + 1: the class's slot */
        fillers[i].hash = (jint)(0x3000000 + i);
        fillers[i].cls = &filler_cls;
        CHECK(SLOT(id_of(&fillers[i], OBJ_PLAIN)) != 0);
    }
    CHECK_EQ_U64(objects_count(), cap - leave);
}

TEST(objects_reuse_the_slot_of_a_freed_object_under_a_new_generation) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_table_filled(1);
    static fake_obj cls = {.hash = 0xA000};
    static fake_obj a = {.hash = 0xA001, .cls = &cls};
    static fake_obj b = {.hash = 0xA002, .cls = &cls};
    cls.tag = 0;
    uint64_t ida = id_of(&a, OBJ_PLAIN);                 /* cls takes the last slot, a overflows */
    CHECK_EQ_U64(SLOT(ida), 0);
    objects_free((uint64_t)fillers[0].tag);              /* ObjectFree: a filler was collected */
    ida = id_of(&a, OBJ_PLAIN);                          /* a's overflow id gives way to a slot */
    CHECK_EQ_U64(SLOT(ida), SLOT((uint64_t)fillers[0].tag));
    CHECK(GEN(ida) > GEN((uint64_t)fillers[0].tag));
    int found = 0;
    objects_hash((uint64_t)fillers[0].tag, &found);
    CHECK(!found);                                       /* the filler's old id is stale */

    uint64_t count = objects_count();
    objects_free(ida);                                   /* a is collected */
    CHECK_EQ_U64(objects_count(), count - 1);
    CHECK_EQ_U64(objects_hash(ida, &found), 0xA001);     /* still described until its slot is reused */
    CHECK(found);
    uint64_t idb = id_of(&b, OBJ_PLAIN);
    CHECK_EQ_U64(SLOT(idb), SLOT(ida));                  /* the slot is reused... */
    CHECK(GEN(idb) > GEN(ida));                          /* ...under a new generation */
    /* A record written before still holds ida: it must not find b. */
    CHECK_EQ_U64(objects_hash(ida, &found), 0);
    CHECK(!found);
    int seen = 0;
    entry(ida, &seen);
    CHECK_EQ_U64(seen, 0);
    CHECK_EQ_U64(objects_hash(idb, &found), 0xA002);
    CHECK(found);
    CHECK_EQ_U64(entry(idb, &seen).class_id, cls.tag);
    /* A late or repeated ObjectFree of the old id does not free the new object; nor does a
     * made-up generation of the slot. */
    objects_free(ida);
    objects_free(idb + (1ull << 32));
    CHECK_EQ_U64(objects_count(), count);
    CHECK_EQ_U64(objects_hash(idb, &found), 0xA002);
    CHECK(found);
    objects_hash(idb + (1ull << 32), &found);
    CHECK(!found);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

TEST(objects_freed_slots_are_reused_oldest_first) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_table_filled(0);
    static fake_obj n[3];
    uint64_t freed[3] = {(uint64_t)fillers[5].tag, (uint64_t)fillers[6].tag, (uint64_t)fillers[7].tag};
    for (int i = 0; i < 3; i++) objects_free(freed[i]);
    for (int i = 0; i < 3; i++) {
        n[i].hash = 0xA101 + i;
        n[i].cls = &filler_cls;
        CHECK_EQ_U64(SLOT(id_of(&n[i], OBJ_PLAIN)), SLOT(freed[i]));
    }
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

TEST(objects_a_collected_object_leaves_its_hash_bucket_provably_untagged) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_table_filled(8);
    static fake_obj a = {.hash = 0xA201, .cls = &filler_cls};
    static fake_obj b = {.hash = 0xA201, .cls = &filler_cls};   /* a's hash, after a died */
    uint64_t ida = id_of(&a, OBJ_PLAIN);
    CHECK(SLOT(ida) != 0);
    objects_free(ida);                                   /* ObjectFree: a was collected */
    uint64_t gets = load_relaxed(&gettag_calls), skips = objects_hash_skips();
    uint64_t idb = id_of(&b, OBJ_PLAIN);
    CHECK(idb != 0 && idb != ida);
    /* Only the class's GetTag: a's description stays (records name it) but no live object
     * can hold its tag, so b's bucket proves b untagged. */
    CHECK_EQ_U64(load_relaxed(&gettag_calls) - gets, 1);
    CHECK_EQ_U64(objects_hash_skips() - skips, 1);
    int found = 0;
    CHECK_EQ_U64(objects_hash(ida, &found), 0xA201);
    CHECK(found);
    /* While b lives, a third object of that hash is looked up (GetTag) and kept apart. */
    static fake_obj c = {.hash = 0xA201, .cls = &filler_cls};
    gets = load_relaxed(&gettag_calls);
    uint64_t idc = id_of(&c, OBJ_PLAIN);
    CHECK(idc != 0 && idc != idb);
    CHECK_EQ_U64(load_relaxed(&gettag_calls) - gets, 3);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

TEST(objects_freed_class_keeps_its_slot_until_its_weak_reference_is_deleted) {
    uint64_t v0 = load_relaxed(&violations);
    CHECK(objects_init(0) == 0);
    static fake_obj cls = {.hash = 0xB000};
    static fake_obj a = {.hash = 0xB001, .cls = &cls};
    cls.tag = 0;
    uint64_t ida = id_of(&a, OBJ_PLAIN);
    uint64_t idc = (uint64_t)cls.tag;
    CHECK(ida != 0 && idc != 0);
    objects_free(ida);
    objects_free(idc);                                   /* the class was unloaded */
    CHECK_EQ_U64(objects_count(), 0);
    uint64_t deleted = load_relaxed(&weak_refs_deleted);
    int seen = 0;
    cv_object c = entry(idc, &seen);                     /* a snapshot deletes the references */
    CHECK_EQ_U64(load_relaxed(&weak_refs_deleted), deleted + 1);
    CHECK_EQ_U64(seen, 1);                               /* still described, unnamed */
    CHECK(c.ref == NULL);
    entry(idc, &seen);
    CHECK_EQ_U64(load_relaxed(&weak_refs_deleted), deleted + 1);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

static void visit_count(void *p, const cv_object *o) {
    (void)o;
    (*(uint64_t *)p)++;
}

static uint64_t visited(void) {
    uint64_t n = 0;
    objects_foreach(jni, visit_count, &n);
    return n;
}

TEST(objects_reset_clears_the_table_and_describes_objects_and_classes_again) {
    uint64_t v0 = load_relaxed(&violations);
    CHECK(objects_init(0) == 0);
    static fake_obj cls = {.hash = 0xC000};
    static fake_obj a = {.hash = 0xC001, .cls = &cls};
    static fake_obj dead = {.hash = 0xC002, .cls = &cls};
    cls.tag = 0;
    uint64_t ida = id_of(&a, OBJ_PLAIN);
    uint64_t iddead = id_of(&dead, OBJ_PLAIN);
    objects_free(iddead);                                /* collected: described, not owned */
    uint64_t idc = (uint64_t)cls.tag;
    CHECK_EQ_U64(objects_count(), 2);
    CHECK_EQ_U64(visited(), 3);
    uint64_t deleted = load_relaxed(&weak_refs_deleted);
    objects_reset(jni);
    CHECK_EQ_U64(objects_count(), 0);
    CHECK_EQ_U64(visited(), 0);
    CHECK_EQ_U64(load_relaxed(&weak_refs_deleted), deleted + 1);   /* the class reference is let go */
    int found = 1;
    objects_hash(ida, &found);
    CHECK(!found);
    objects_hash(iddead, &found);
    CHECK(!found);
    /* a keeps its old tag, which no longer validates: its next sight describes it again,
     * and its class too. */
    uint64_t ida2 = id_of(&a, OBJ_PLAIN);
    CHECK(ida2 != 0 && ida2 != ida);
    CHECK_EQ_U64((uint64_t)a.tag, ida2);
    CHECK_EQ_U64(objects_hash(ida2, &found), 0xC001);
    CHECK(found);
    int seen = 0;
    cv_object e = entry(ida2, &seen);
    CHECK_EQ_U64(seen, 1);
    CHECK(e.class_id != 0 && e.class_id != idc);
    CHECK_EQ_U64(e.class_id, (uint64_t)cls.tag);
    cv_object c = entry(e.class_id, &seen);
    CHECK_EQ_U64(seen, 1);
    CHECK_EQ_U64(c.kind, OBJ_CLASS);
    CHECK_EQ_U64(c.hash, 0xC000);
    CHECK(c.ref != NULL);
    CHECK_EQ_U64(visited(), 2);
    /* A late ObjectFree of an id from before the reset frees nothing. */
    objects_free(ida);
    objects_free(idc);
    CHECK_EQ_U64(objects_count(), 2);
    CHECK_EQ_U64(objects_hash(ida2, &found), 0xC001);
    CHECK(found);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

TEST(objects_full_table_gives_overflow_ids_until_a_slot_is_freed) {
    uint64_t v0 = load_relaxed(&violations);
    fresh_table_filled(0);
    uint64_t cap = objects_capacity();
    static fake_obj extra = {.hash = 0xD001};
    extra.cls = &filler_cls;
    uint64_t over = id_of(&extra, OBJ_PLAIN);
    CHECK(over != 0);
    CHECK_EQ_U64(SLOT(over), 0);                         /* an overflow id: unique, undescribed */
    CHECK_EQ_U64(objects_dropped(), 1);
    int found = 1;
    objects_hash(over, &found);
    CHECK(!found);
    CHECK_EQ_U64(id_of(&extra, OBJ_PLAIN), over);        /* stays while the table is full */
    /* Collect every filler: the table takes as many new objects again, none dropped. */
    for (uint64_t i = 0; i + 1 < cap; i++) objects_free((uint64_t)fillers[i].tag);
    uint64_t again = id_of(&extra, OBJ_PLAIN);           /* gets a described id now */
    CHECK(SLOT(again) != 0);
    CHECK_EQ_U64(objects_hash(again, &found), 0xD001);
    CHECK(found);
    for (uint64_t i = 0; i + 2 < cap; i++) {
        fillers[i].tag = 0;                              /* new objects */
        fillers[i].hash = (jint)(0x5000000 + i);
        uint64_t id = id_of(&fillers[i], OBJ_PLAIN);
        CHECK(SLOT(id) != 0);
        if (SLOT(id) == 0) break;
    }
    CHECK_EQ_U64(objects_count(), cap);
    CHECK_EQ_U64(objects_dropped(), 1);
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}

/* Writers tag objects and free them (as ObjectFree would) while a reader looks up ids it
 * saw handed out: an id found must always describe the object it was given to. */
#define CHURN_THREADS 3
#define CHURN_ROUNDS 4000
#define CHURN_POOL 64

static uint64_t churn_ids[CHURN_THREADS][CHURN_POOL];   /* atomic: the ids handed out */
static jint churn_hash[CHURN_THREADS][CHURN_POOL];      /* atomic: hash of churn_ids' object */
static int churn_done;                                  /* atomic */
static uint64_t churn_wrong, churn_checked;             /* atomic */

static void *churn_writer(void *p) {
    int w = (int)(intptr_t)p;
    static fake_obj cls[CHURN_THREADS];
    cls[w].hash = 0xE000 + w;
    fake_obj *pool = calloc(CHURN_POOL, sizeof(fake_obj));
    if (!pool) return NULL;
    for (int r = 0; r < CHURN_ROUNDS; r++) {
        int k = r % CHURN_POOL;
        uint64_t old = load_relaxed(&churn_ids[w][k]);
        if (old) objects_free(old);                      /* the previous object there died */
        memset(&pool[k], 0, sizeof(pool[k]));
        pool[k].cls = &cls[w];
        pool[k].hash = (jint)(0x4000000 + w * 0x100000 + r);
        /* ids unpublished while they change: the reader skips the entry */
        __atomic_store_n(&churn_ids[w][k], 0, __ATOMIC_RELEASE);
        uint64_t id = id_of(&pool[k], OBJ_PLAIN);
        __atomic_store_n(&churn_hash[w][k], pool[k].hash, __ATOMIC_RELEASE);
        __atomic_store_n(&churn_ids[w][k], id, __ATOMIC_RELEASE);
    }
    free(pool);
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
                if (id == 0 || SLOT(id) == 0 || __atomic_load_n(&churn_ids[w][k], __ATOMIC_ACQUIRE) != id) continue;
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
    }
    return NULL;
}

TEST(objects_ids_never_describe_a_later_object_under_concurrent_free_and_reuse) {
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
    /* Only the live objects are owned; nothing was dropped though 12,000 objects passed. */
    CHECK_EQ_U64(objects_count(), CHURN_THREADS * CHURN_POOL + CHURN_THREADS);
    CHECK_EQ_U64(objects_dropped(), 0);
    /* With the last objects collected, the counts of owned objects by hash bucket, which
     * the writers and their frees kept concurrently, are back to 0: a new object with any
     * of the 12,000 hashes is proved untagged (only its class is looked up). */
    for (int w = 0; w < CHURN_THREADS; w++) {
        for (int k = 0; k < CHURN_POOL; k++) objects_free(load_relaxed(&churn_ids[w][k]));
    }
    CHECK_EQ_U64(objects_count(), CHURN_THREADS);
    static fake_obj cls = {.hash = 0xE100};
    static fake_obj probe;
    uint64_t skips = objects_hash_skips();
    int probes = 0;
    for (int w = 0; w < CHURN_THREADS; w++) {
        for (int r = 0; r < CHURN_ROUNDS; r += 7, probes++) {
            memset(&probe, 0, sizeof(probe));
            probe.cls = &cls;
            probe.hash = (jint)(0x4000000 + w * 0x100000 + r);
            uint64_t id = id_of(&probe, OBJ_PLAIN);
            CHECK(SLOT(id) != 0);
            objects_free(id);
        }
    }
    CHECK_EQ_U64(objects_hash_skips() - skips, (uint64_t)probes + 1);   /* + 1: the class's first sight */
    CHECK_EQ_U64(load_relaxed(&violations), v0);
}
