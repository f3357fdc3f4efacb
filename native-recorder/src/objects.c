#include "objects.h"
#include "arch.h"
#include "snapshot_format.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* One slot of the table; see objects.h for who writes which field when. */
typedef struct {
    uint64_t id;         /* atomic: generation << 32 | index + 1 while described, else 0 */
    uint64_t class_id;   /* atomic (relaxed), written while id == 0 */
    uint32_t hash;       /* idem */
    uint32_t kind;       /* idem */
    jweak    ref;        /* idem; a plain object's deleted under its shard lock, a class's under ref_lock */
    uint32_t gen;        /* generation of the slot's last id; by the thread that took the slot */
    uint32_t next;       /* free or dead-class stack link: index + 1 of the next, 0 = end */
    uint32_t chain;      /* atomic: the next slot of its bucket's chain, index + 1; under the shard lock */
} slot;

#define SLOT_MASK 0xFFFFFFFFull

static slot *table;
static uint64_t capacity;
static uint64_t used;            /* slots ever handed out (high-water); written under slot_lock */
static uint32_t free_head;       /* atomic: free stack, index + 1, 0 = empty */
static uint32_t reuse_head;      /* the free stack taken over, oldest first; written under slot_lock */
static uint32_t dead_head;       /* atomic: freed class slots whose reference is not deleted yet */
static uint64_t live;            /* atomic: slots linked in a chain */
static uint64_t dropped;         /* atomic: first sights that found the table full */
static uint64_t swept;           /* atomic: slots of collected objects dropped from their chain */
static uint32_t sweep_cursor;    /* atomic: the slot a full table's next sweep starts at */
static pthread_mutex_t ref_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

/* The chains by identity hash bucket, and the locks that guard them, one per group of
 * buckets (objects.h, "Chains"). As many buckets as slots (a power of two, 64 to 65,536). */
#define MAX_BUCKETS (1u << 16)
#define SHARDS       64
#define SWEEP_SLOTS  64
static uint32_t *heads;                /* atomic: first slot of each chain, index + 1 */
static uint32_t buckets;               /* set by objects_init */
typedef struct {
    pthread_mutex_t lock;
} __attribute__((aligned(64))) shard_lock_t;
static shard_lock_t shards[SHARDS] = {[0 ... SHARDS - 1] = {PTHREAD_MUTEX_INITIALIZER}};

static uint32_t bucket_of(uint32_t hash) {
    return (hash ^ (hash >> 16)) & (buckets - 1);
}

static pthread_mutex_t *bucket_lock(uint32_t bucket) {
    return &shards[bucket & (SHARDS - 1)].lock;
}

int objects_init(size_t bytes) {
    free(table);   /* not thread-safe: at start-up (and between unit tests) only */
    free(heads);
    used = 0;
    free_head = reuse_head = dead_head = sweep_cursor = 0;
    live = dropped = swept = 0;
    capacity = bytes / sizeof(slot);
    if (capacity < 1024) capacity = 1024;
    if (capacity > SLOT_MASK - 1) capacity = SLOT_MASK - 1;
    for (buckets = SHARDS; buckets < capacity && buckets < MAX_BUCKETS;) buckets <<= 1;
    table = calloc(capacity, sizeof(slot));
    heads = calloc(buckets, sizeof(heads[0]));
    cv_commit(table, capacity * sizeof(slot));
    cv_commit(heads, buckets * sizeof(heads[0]));
    return table && heads ? 0 : -1;
}

size_t objects_memory(void) {
    return capacity * sizeof(slot) + buckets * sizeof(heads[0]);
}

uint64_t objects_capacity(void) {
    return capacity;
}

static void push(uint32_t *head, uint32_t index) {
    uint32_t old = load_relaxed(head);
    do {
        store_relaxed(&table[index].next, old);
    } while (!cas_acq_rel(head, &old, index + 1));
}

/* Under slot_lock, the only consumer: takes the next free slot, oldest freed first (batch
 * by batch: the whole stack is taken over and reversed), so that the descriptions of freed
 * objects, which records may still name, last as long as the table allows. */
static int pop_free(uint64_t *index) {
    uint32_t head = load_relaxed(&reuse_head);
    if (head == 0) {
        uint32_t top = __atomic_exchange_n(&free_head, 0, __ATOMIC_ACQUIRE);
        while (top != 0) {
            uint32_t next = load_relaxed(&table[top - 1].next);
            store_relaxed(&table[top - 1].next, head);
            head = top;
            top = next;
        }
    }
    if (head == 0) return 0;
    *index = head - 1;
    store_relaxed(&reuse_head, load_relaxed(&table[head - 1].next));
    return 1;
}

/* Under ref_lock: deletes the references of freed class slots and frees the slots (their
 * description stays, unnamed, until the slot is reused). */
static void reclaim(JNIEnv *jni) {
    uint32_t top = __atomic_exchange_n(&dead_head, 0, __ATOMIC_ACQ_REL);
    while (top != 0) {
        uint32_t index = top - 1;
        top = load_relaxed(&table[index].next);
        jweak ref = load_relaxed(&table[index].ref);
        store_relaxed(&table[index].ref, NULL);
        if (ref && jni) (*jni)->DeleteWeakGlobalRef(jni, ref);
        push(&free_head, index);
    }
}

/* Under the shard lock of its bucket: whether the object of linked slot s was collected. */
static int collected(JNIEnv *jni, slot *s) {
    return (*jni)->IsSameObject(jni, load_relaxed(&s->ref), NULL) == JNI_TRUE;
}

/* Under the shard lock of its bucket: slot `index`, whose object was collected, leaves the
 * chain through `link` (the word that points at it) and is freed (objects.h, "Collected
 * objects"). Its description stays until the slot is reused: records may still name it. */
static void drop(JNIEnv *jni, uint32_t *link, uint32_t index) {
    slot *s = &table[index];
    store_relaxed(link, load_relaxed(&s->chain));
    fetch_add_relaxed(&live, (uint64_t)-1);
    fetch_add_relaxed(&swept, 1);
    if (load_relaxed(&s->kind) == OBJ_CLASS) {
        push(&dead_head, index);
        return;
    }
    jweak ref = load_relaxed(&s->ref);
    store_relaxed(&s->ref, NULL);
    (*jni)->DeleteWeakGlobalRef(jni, ref);
    push(&free_head, index);
}

/* Under the shard lock of `bucket`: drops the collected objects of its chain. */
static void sweep_bucket(JNIEnv *jni, uint32_t bucket) {
    uint32_t *link = &heads[bucket];
    uint32_t i;
    while ((i = load_relaxed(link)) != 0) {
        if (collected(jni, &table[i - 1])) {
            drop(jni, link, i - 1);
        } else {
            link = &table[i - 1].chain;
        }
    }
}

/* Holding shard lock `held`: sweeps the buckets of the next SWEEP_SLOTS slots (by index, so
 * that the buckets swept are those that hold slots), skipping those whose shard lock another
 * thread holds (trylock: never waits, so the lock order holds). A slot's hash may change
 * meanwhile; the bucket swept is then another, which is harmless. */
static void sweep_some(JNIEnv *jni, pthread_mutex_t *held) {
    uint64_t n = load_acquire(&used);
    if (n == 0) return;
    uint32_t start = __atomic_fetch_add(&sweep_cursor, SWEEP_SLOTS, __ATOMIC_RELAXED);
    for (uint32_t k = 0; k < SWEEP_SLOTS; k++) {
        uint32_t bucket = bucket_of(load_relaxed(&table[(start + k) % n].hash));
        pthread_mutex_t *lock = bucket_lock(bucket);
        if (lock == held) {
            sweep_bucket(jni, bucket);
        } else if (pthread_mutex_trylock(lock) == 0) {
            sweep_bucket(jni, bucket);
            pthread_mutex_unlock(lock);
        }
    }
}

/* Every bucket, one shard lock at a time, held for 16 buckets: a look-up waits for a sweep
 * no longer than for a few chain walks. */
static void sweep_all(JNIEnv *jni) {
    for (uint32_t shard = 0; shard < SHARDS; shard++) {
        for (uint32_t bucket = shard; bucket < buckets;) {
            pthread_mutex_lock(&shards[shard].lock);
            for (int k = 0; k < 16 && bucket < buckets; k++, bucket += SHARDS) sweep_bucket(jni, bucket);
            pthread_mutex_unlock(&shards[shard].lock);
        }
    }
}

void objects_sweep(JNIEnv *jni) {
    sweep_all(jni);
    if (pthread_mutex_trylock(&ref_lock) == 0) {
        reclaim(jni);
        pthread_mutex_unlock(&ref_lock);
    }
}

/* Under slot_lock: the next never-used slot (freed descriptions last longer), else the
 * oldest freed one. */
static int take_locked(uint64_t *index) {
    if (used < capacity) {
        *index = used;
        store_release(&used, used + 1);
        return 1;
    }
    return pop_free(index);
}

/* Under shard lock `held`: a slot for a first sight. A full table first sweeps some buckets
 * and reclaims freed classes, if ref_lock is free (never waiting). */
static int take_slot(JNIEnv *jni, uint64_t *index, pthread_mutex_t *held) {
    pthread_mutex_lock(&slot_lock);
    int have = take_locked(index);
    pthread_mutex_unlock(&slot_lock);
    if (have) return 1;
    sweep_some(jni, held);
    if (load_relaxed(&dead_head) != 0 && pthread_mutex_trylock(&ref_lock) == 0) {
        reclaim(jni);
        pthread_mutex_unlock(&ref_lock);
    }
    pthread_mutex_lock(&slot_lock);
    have = take_locked(index);
    pthread_mutex_unlock(&slot_lock);
    return have;
}

/* Under obj's shard lock: obj's id if its chain holds it, else 0. The collected objects met
 * on the way leave the chain. */
static uint64_t find_locked(JNIEnv *jni, jobject obj, uint32_t hash) {
    uint32_t *link = &heads[bucket_of(hash)];
    uint32_t i;
    while ((i = load_relaxed(link)) != 0) {
        slot *s = &table[i - 1];
        if (load_relaxed(&s->hash) == hash && (*jni)->IsSameObject(jni, load_relaxed(&s->ref), obj) == JNI_TRUE) {
            return load_relaxed(&s->id);
        }
        if (collected(jni, s)) {
            drop(jni, link, i - 1);
        } else {
            link = &s->chain;
        }
    }
    return 0;
}

/* A new weak reference to obj, or NULL (out of memory). No exception is pending when a
 * callback or native calls objects_id, so the OutOfMemoryError is ours to clear. */
static jweak new_ref(JNIEnv *jni, jobject obj) {
    jweak ref = (*jni)->NewWeakGlobalRef(jni, obj);
    if (!ref && (*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    return ref;
}

/*
 * Under obj's shard lock `lock`, obj in no chain: takes a slot, describes it with obj's weak
 * reference (*spare, made before the lock, which this takes over, else one made now), links
 * it and publishes its id (objects.h, Lookup). 0 if the table is full (counted) or the
 * reference cannot be made.
 */
static uint64_t assign(JNIEnv *jni, jobject obj, uint32_t kind, uint32_t hash, uint64_t class_id,
                       const cv_id_hooks *hooks, pthread_mutex_t *lock, jweak *spare) {
    uint64_t index = 0;
    if (!take_slot(jni, &index, lock)) {
        fetch_add_relaxed(&dropped, 1);
        return 0;
    }
    jweak ref = *spare ? *spare : new_ref(jni, obj);
    *spare = NULL;
    if (!ref) {
        push(&free_head, (uint32_t)index);   /* untouched: free again */
        return 0;
    }
    slot *s = &table[index];
    uint32_t gen = s->gen + 1;
    if (gen == 0) gen = 1;
    s->gen = gen;
    uint64_t fresh = ((uint64_t)gen << 32) | (index + 1);
    /* The old description is withdrawn before the fields change: a reader that copies a
     * field written below and then re-reads `id` sees 0 or the new id, never the old one
     * (objects.h, Readers: release fence here, acquire fence there). */
    store_relaxed(&s->id, 0);
    fence_release();
    store_relaxed(&s->class_id, class_id);
    store_relaxed(&s->hash, hash);
    store_relaxed(&s->kind, kind);
    store_relaxed(&s->ref, ref);
    uint32_t *head = &heads[bucket_of(hash)];
    store_relaxed(&s->chain, load_relaxed(head));
    store_release(&s->id, fresh);
    store_relaxed(head, (uint32_t)index + 1);
    fetch_add_relaxed(&live, 1);
    if (hooks && hooks->publish) hooks->publish(hooks->ctx, fresh);
    return fresh;
}

int objects_current(uint64_t id) {
    uint64_t index = id & SLOT_MASK;
    return index != 0 && index <= capacity && load_acquire(&table[index - 1].id) == id;
}

uint64_t objects_id(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind) {
    return objects_id_with(jvmti, jni, obj, kind, NULL);
}

static uint64_t peek(const cv_id_hooks *hooks) {
    return hooks && hooks->peek ? hooks->peek(hooks->ctx) : 0;
}

/* Spins this many rounds for a shard lock, peeking, before it sleeps on it. */
#define LOCK_SPINS 256

/* `lock`, or 0 with *id the id another thread published while this one waited. The spin
 * matters on a busy machine: a thread that sleeps on a futex, however briefly, may wait a
 * whole scheduler time slice for a CPU once woken. */
static int lock_or_peek(pthread_mutex_t *lock, const cv_id_hooks *hooks, uint64_t *id) {
    if (pthread_mutex_trylock(lock) == 0) return 1;
    if (hooks && hooks->peek) {
        for (int i = 0; i < LOCK_SPINS; i++) {
            if ((*id = peek(hooks)) != 0) return 0;
            cpu_relax();
            if (pthread_mutex_trylock(lock) == 0) return 1;
        }
    }
    pthread_mutex_lock(lock);
    return 1;
}

/* The id of obj's class, for its first sight's description (0 if none). */
static uint64_t class_of(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, const cv_id_hooks *hooks) {
    jclass cls = (*jni)->GetObjectClass(jni, obj);
    if (!cls) return 0;
    uint64_t id = hooks && hooks->class_id ? hooks->class_id(hooks->ctx, jvmti, jni, cls)
                                           : objects_id(jvmti, jni, cls, OBJ_CLASS);
    (*jni)->DeleteLocalRef(jni, cls);
    return id;
}

uint64_t objects_id_with(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind, const cv_id_hooks *hooks) {
    if (obj == NULL) return 0;
    jint hash = 0;
    if ((*jvmti)->GetObjectHashCode(jvmti, obj, &hash) != JVMTI_ERROR_NONE) return 0;
    uint32_t bucket = bucket_of((uint32_t)hash);
    pthread_mutex_t *lock = bucket_lock(bucket);
    /* What a first sight needs beyond the lock is gathered before it: the class's id (its
     * own look-up takes a shard lock) and the weak reference (NewWeakGlobalRef may wait for
     * the VM's lock of its handle storage, and nobody should wait for that behind this
     * shard lock). At once if the chain is empty (most likely a first sight), else once a
     * look-up under the lock found nothing. */
    int described = kind == OBJ_CLASS;
    uint64_t class_id = 0, id = 0;
    jweak spare = NULL;
    if (load_relaxed(&heads[bucket]) == 0 && (id = peek(hooks)) == 0) {
        if (!described) class_id = class_of(jvmti, jni, obj, hooks);
        described = 1;
        spare = new_ref(jni, obj);
    }
    while (id == 0) {
        if (!lock_or_peek(lock, hooks, &id)) break;
        /* Under the lock, an id another thread published meanwhile is the object's. */
        if ((id = peek(hooks)) == 0) id = find_locked(jni, obj, (uint32_t)hash);
        if (id == 0 && described) id = assign(jni, obj, kind, (uint32_t)hash, class_id, hooks, lock, &spare);
        pthread_mutex_unlock(lock);
        if (id != 0 || described) break;
        class_id = class_of(jvmti, jni, obj, hooks);
        described = 1;
        spare = new_ref(jni, obj);
    }
    if (spare) (*jni)->DeleteWeakGlobalRef(jni, spare);   /* another thread described obj first */
    return id;
}

void objects_reset(JNIEnv *jni) {
    pthread_mutex_lock(&ref_lock);
    /* Every shard lock: slots are only taken (slot_lock) under one, so none is taken now. */
    for (int i = 0; i < SHARDS; i++) pthread_mutex_lock(&shards[i].lock);
    reclaim(jni);
    for (uint64_t i = 0; i < used; i++) store_relaxed(&table[i].id, 0);   /* no description survives */
    for (uint32_t bucket = 0; bucket < buckets; bucket++) {
        uint32_t i = load_relaxed(&heads[bucket]);
        store_relaxed(&heads[bucket], 0);
        while (i != 0) {
            slot *s = &table[i - 1];
            uint32_t next = load_relaxed(&s->chain);
            jweak ref = load_relaxed(&s->ref);
            store_relaxed(&s->ref, NULL);
            if (ref && jni) (*jni)->DeleteWeakGlobalRef(jni, ref);
            fetch_add_relaxed(&live, (uint64_t)-1);
            push(&free_head, i - 1);
            i = next;
        }
    }
    for (int i = SHARDS - 1; i >= 0; i--) pthread_mutex_unlock(&shards[i].lock);
    pthread_mutex_unlock(&ref_lock);
}

/* Copies slot i if it is described, validated as objects.h's Readers say. */
static int read_slot(uint64_t i, cv_object *out) {
    slot *s = &table[i];
    uint64_t id = load_acquire(&s->id);
    if (id == 0) return 0;
    out->class_id = load_relaxed(&s->class_id);
    out->hash = load_relaxed(&s->hash);
    out->kind = load_relaxed(&s->kind);
    out->ref = load_relaxed(&s->ref);
    fence_acquire();
    if (load_relaxed(&s->id) != id) return 0;
    if (out->kind != OBJ_CLASS) out->ref = NULL;
    out->id = id;
    return 1;
}

void objects_foreach(JNIEnv *jni, cv_object_visitor visit, void *ctx) {
    pthread_mutex_lock(&ref_lock);
    if (jni) {
        sweep_all(jni);
        reclaim(jni);
    }
    uint64_t n = load_acquire(&used);
    for (uint64_t i = 0; i < n; i++) {
        cv_object copy;
        if (read_slot(i, &copy)) visit(ctx, &copy);
    }
    pthread_mutex_unlock(&ref_lock);
}

uint32_t objects_hash(uint64_t id, int *found) {
    *found = 0;
    uint64_t index = id & SLOT_MASK;
    if (index == 0 || index > capacity) return 0;
    cv_object o;
    if (!read_slot(index - 1, &o) || o.id != id) return 0;
    *found = 1;
    return o.hash;
}

uint64_t objects_find_by_hash(uint32_t hash) {
    uint64_t n = load_acquire(&used);
    uint64_t match = 0;
    for (uint64_t i = 0; i < n; i++) {
        cv_object o;
        if (!read_slot(i, &o) || o.kind == OBJ_CLASS || o.hash != hash) continue;
        if (match) return 0;
        match = o.id;
    }
    return match;
}

uint64_t objects_count(void) {
    return load_relaxed(&live);
}

uint64_t objects_swept(void) {
    return load_relaxed(&swept);
}

uint64_t objects_dropped(void) {
    return load_relaxed(&dropped);
}
