#include "objects.h"
#include "arch.h"
#include "snapshot_format.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One slot of the table; see objects.h for who writes which field when. */
typedef struct {
    uint64_t id;         /* atomic: generation << 32 | index + 1 while described, else 0 */
    uint64_t class_id;   /* atomic (relaxed), written while id == 0 */
    uint32_t hash;       /* idem */
    uint32_t kind;       /* idem */
    jweak    ref;        /* idem, or NULL while held (then set by the maker under the shard lock); a
                            plain object's deleted under its shard lock, a class's under ref_lock */
    uint32_t gen;        /* generation of the slot's last id; by the thread that took the slot */
    uint32_t next;       /* free or dead-class stack link: index + 1 of the next, 0 = end */
    uint32_t chain;      /* atomic: the next slot of its bucket's chain, index + 1; under the shard lock */
    uint16_t held;       /* the held entry + 1 while the object is held, else 0; under the shard lock */
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
    uint64_t held;                     /* the shard's held entries in use (bit b: entry shard * 64 + b);
                                          written under the lock, read without it only to skip */
} __attribute__((aligned(64))) shard_lock_t;
static shard_lock_t shards[SHARDS] = {[0 ... SHARDS - 1] = {PTHREAD_MUTEX_INITIALIZER}};

/* Held references (objects.h, "Held references"): entries of one Java Object[] array, 64 per
 * shard, each belonging to the shard of the slot that holds it. */
#define HELD_PER_SHARD 64
#define HELD           (SHARDS * HELD_PER_SHARD)
#define HELD_KICK      (HELD_PER_SHARD / 2)   /* a shard this full wakes the maker early */
static jobjectArray held_array;        /* atomic: global reference, set once by objects_hold_start */
static uint32_t held_slot[HELD];       /* the slot holding the entry, index + 1; under its shard lock */
static uint32_t held_seq[HELD];        /* takes of the entry; under its shard lock */
static uint64_t held_taken;            /* atomic: first sights held */
static uint64_t held_made;             /* atomic: references the maker made for them */
static uint64_t held_full;             /* atomic: first sights that found their shard's entries in use */
static pthread_mutex_t maker_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t maker_cond = PTHREAD_COND_INITIALIZER;
static int maker_kicked;               /* atomic: the maker is woken (or will not sleep) */

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
    store_release(&held_array, NULL);   /* a test's table starts without held references */
    held_taken = held_made = held_full = 0;
    for (int i = 0; i < SHARDS; i++) shards[i].held = 0;
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
    if (load_relaxed(&s->held) != 0) return 0;   /* the held array keeps it alive */
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

/* Under the shard lock of linked slot s: whether its object is obj. */
static int same_object(JNIEnv *jni, slot *s, jobject obj) {
    uint32_t held = load_relaxed(&s->held);
    if (held == 0) return (*jni)->IsSameObject(jni, load_relaxed(&s->ref), obj) == JNI_TRUE;
    jobject referent = (*jni)->GetObjectArrayElement(jni, load_acquire(&held_array), (jsize)(held - 1));
    int same = (*jni)->IsSameObject(jni, referent, obj) == JNI_TRUE;
    (*jni)->DeleteLocalRef(jni, referent);
    return same;
}

/* Under obj's shard lock: obj's id if its chain holds it, else 0. The collected objects met
 * on the way leave the chain. */
static uint64_t find_locked(JNIEnv *jni, jobject obj, uint32_t hash) {
    uint32_t *link = &heads[bucket_of(hash)];
    uint32_t i;
    while ((i = load_relaxed(link)) != 0) {
        slot *s = &table[i - 1];
        if (load_relaxed(&s->hash) == hash && same_object(jni, s, obj)) {
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

static void kick_maker(void) {
    if (__atomic_exchange_n(&maker_kicked, 1, __ATOMIC_ACQ_REL)) return;
    pthread_mutex_lock(&maker_lock);
    pthread_cond_signal(&maker_cond);
    pthread_mutex_unlock(&maker_lock);
}

/* Under the lock of `shard`: a held entry of the shard with obj stored in it, or -1 (held
 * references off, every entry of the shard in use, or the store failed). */
static int hold(JNIEnv *jni, jobject obj, uint32_t shard) {
    jobjectArray array = load_acquire(&held_array);
    if (!array) return -1;
    uint64_t bits = shards[shard].held;
    if (bits == ~0ull) {
        fetch_add_relaxed(&held_full, 1);
        kick_maker();
        return -1;
    }
    int bit = __builtin_ctzll(~bits);
    int entry = (int)shard * HELD_PER_SHARD + bit;
    (*jni)->SetObjectArrayElement(jni, array, entry, obj);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    store_relaxed(&shards[shard].held, bits | (1ull << bit));
    held_seq[entry]++;
    fetch_add_relaxed(&held_taken, 1);
    if (__builtin_popcountll(bits) + 1 == HELD_KICK) kick_maker();
    return entry;
}

/* Under the shard lock of linked slot s, held: empties its entry. */
static void unhold(JNIEnv *jni, slot *s) {
    uint32_t entry = load_relaxed(&s->held) - 1;
    store_relaxed(&s->held, 0);
    if (jni) (*jni)->SetObjectArrayElement(jni, load_acquire(&held_array), (jsize)entry, NULL);
    shard_lock_t *shard = &shards[entry / HELD_PER_SHARD];
    store_relaxed(&shard->held, shard->held & ~(1ull << (entry % HELD_PER_SHARD)));
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
    jweak ref = *spare;
    *spare = NULL;
    int entry = ref || kind == OBJ_CLASS ? -1 : hold(jni, obj, bucket_of(hash) & (SHARDS - 1));
    if (entry < 0 && !ref) ref = new_ref(jni, obj);
    if (entry < 0 && !ref) {
        push(&free_head, (uint32_t)index);   /* untouched: free again */
        return 0;
    }
    slot *s = &table[index];
    if (entry >= 0) held_slot[entry] = (uint32_t)index + 1;
    store_relaxed(&s->held, (uint16_t)(entry + 1));
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

/* The weak reference a first sight makes before the shard lock: none for a plain object while
 * references are held (assign holds it under the lock instead). */
static jweak spare_ref(JNIEnv *jni, jobject obj, uint32_t kind) {
    return kind != OBJ_CLASS && load_acquire(&held_array) ? NULL : new_ref(jni, obj);
}

/* Under the slot's shard lock: a class first seen as a plain object (a monitor: a static
 * synchronized method's) is described as the class it is from the look-up as a class on, so that
 * the methods declared by it name a described class. Its id and its class id stay; its weak
 * reference becomes visible to readers (objects.h, Readers), so it must have one: a held entry
 * waits for the maker and is described again at the next look-up as a class. */
static void become_class(uint64_t id) {
    slot *s = &table[(id & SLOT_MASK) - 1];
    if (load_relaxed(&s->id) != id || load_relaxed(&s->kind) == OBJ_CLASS || load_relaxed(&s->held) != 0 ||
        !load_relaxed(&s->ref)) {
        return;
    }
    store_relaxed(&s->id, 0);
    fence_release();
    store_relaxed(&s->kind, OBJ_CLASS);
    store_release(&s->id, id);
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
        spare = spare_ref(jni, obj, kind);
    }
    while (id == 0) {
        if (!lock_or_peek(lock, hooks, &id)) break;
        /* Under the lock, an id another thread published meanwhile is the object's. */
        if ((id = peek(hooks)) == 0) id = find_locked(jni, obj, (uint32_t)hash);
        if (id != 0 && kind == OBJ_CLASS) become_class(id);
        if (id == 0 && described) id = assign(jni, obj, kind, (uint32_t)hash, class_id, hooks, lock, &spare);
        pthread_mutex_unlock(lock);
        if (id != 0 || described) break;
        class_id = class_of(jvmti, jni, obj, hooks);
        described = 1;
        spare = spare_ref(jni, obj, kind);
    }
    if (spare) (*jni)->DeleteWeakGlobalRef(jni, spare);   /* another thread described obj first */
    return id;
}

jobject objects_local_ref(JNIEnv *jni, uint64_t id) {
    int found = 0;
    uint32_t hash = objects_hash(id, &found);
    if (!found) return NULL;
    uint32_t bucket = bucket_of(hash);
    pthread_mutex_t *lock = bucket_lock(bucket);
    jobject ref = NULL;
    pthread_mutex_lock(lock);
    /* Only a slot linked in the chain has a live reference (a dropped one's is deleted). */
    for (uint32_t i = load_relaxed(&heads[bucket]); i != 0; i = load_relaxed(&table[i - 1].chain)) {
        slot *s = &table[i - 1];
        if (load_relaxed(&s->id) != id) continue;
        uint32_t held = load_relaxed(&s->held);
        if (held != 0) {
            ref = (*jni)->GetObjectArrayElement(jni, load_acquire(&held_array), (jsize)(held - 1));
        } else if (load_relaxed(&s->ref)) {
            /* A linked slot's reference is not deleted yet, a class's neither (reclaim deletes
             * it only once a sweep has unlinked the slot). NULL if collected. */
            ref = (*jni)->NewLocalRef(jni, load_relaxed(&s->ref));
        }
        break;
    }
    pthread_mutex_unlock(lock);
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    return ref;
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
            if (load_relaxed(&s->held) != 0) unhold(jni, s);
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

int objects_hold_start(JNIEnv *jni) {
    if (load_acquire(&held_array)) return 0;
    jclass object = (*jni)->FindClass(jni, "java/lang/Object");
    jobjectArray local = object ? (*jni)->NewObjectArray(jni, HELD, object, NULL) : NULL;
    jobjectArray array = local ? (jobjectArray)(*jni)->NewGlobalRef(jni, local) : NULL;
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    if (object) (*jni)->DeleteLocalRef(jni, object);
    if (local) (*jni)->DeleteLocalRef(jni, local);
    if (!array) return -1;
    store_release(&held_array, array);
    return 0;
}

int objects_holding(void) {
    return load_acquire(&held_array) != NULL;
}

/* One held entry on its way to a weak reference (objects_hold_make). */
typedef struct {
    int      entry;
    uint32_t seq;
    int      installed;  /* its slot took the reference: the entry is to be emptied and freed */
    jobject  referent;   /* local reference */
    jweak    ref;
} held_todo;

/* The held entries of `shard`: which entries hold which take, noted under the lock; their
 * referents read and weak references made without it (NewWeakGlobalRef may wait for the VM's
 * lock of its handle storage); each installed under the lock again in its slot if the entry
 * still holds the same take. An entry emptied or taken again meanwhile gave a referent that is
 * NULL or another object, and fails that check (every take counts in held_seq). An installed
 * entry stays marked in use, so that no first sight takes it, while it is emptied without the
 * lock (SetObjectArrayElement, a VM transition that may wait out a safepoint: never under a
 * shard lock that callbacks wait for), and is marked free under the lock at the end. */
static uint64_t make_shard(JNIEnv *jni, jobjectArray array, uint32_t shard) {
    held_todo todo[HELD_PER_SHARD];
    int n = 0;
    pthread_mutex_t *lock = &shards[shard].lock;
    pthread_mutex_lock(lock);
    for (uint64_t bits = shards[shard].held; bits != 0; bits &= bits - 1) {
        int entry = (int)shard * HELD_PER_SHARD + __builtin_ctzll(bits);
        todo[n].entry = entry;
        todo[n].seq = held_seq[entry];
        todo[n].installed = 0;
        n++;
    }
    pthread_mutex_unlock(lock);
    for (int i = 0; i < n; i++) {
        todo[i].referent = (*jni)->GetObjectArrayElement(jni, array, todo[i].entry);
        todo[i].ref = todo[i].referent ? new_ref(jni, todo[i].referent) : NULL;
    }
    uint64_t made = 0;
    pthread_mutex_lock(lock);
    for (int i = 0; i < n; i++) {
        int entry = todo[i].entry;
        if (!todo[i].ref || !(shards[shard].held >> (entry % HELD_PER_SHARD) & 1) || held_seq[entry] != todo[i].seq) {
            continue;   /* no reference (out of memory: held until the next round), or a reset emptied it */
        }
        slot *s = &table[held_slot[entry] - 1];
        store_relaxed(&s->ref, todo[i].ref);
        store_relaxed(&s->held, 0);   /* the slot compares through its reference from now on */
        todo[i].ref = NULL;
        todo[i].installed = 1;
        made++;
    }
    pthread_mutex_unlock(lock);
    for (int i = 0; i < n; i++) {
        if (todo[i].installed) (*jni)->SetObjectArrayElement(jni, array, todo[i].entry, NULL);
    }
    if (made) {
        pthread_mutex_lock(lock);
        for (int i = 0; i < n; i++) {
            if (todo[i].installed) {
                store_relaxed(&shards[shard].held, shards[shard].held & ~(1ull << (todo[i].entry % HELD_PER_SHARD)));
            }
        }
        pthread_mutex_unlock(lock);
    }
    for (int i = 0; i < n; i++) {
        if (todo[i].ref) (*jni)->DeleteWeakGlobalRef(jni, todo[i].ref);
        if (todo[i].referent) (*jni)->DeleteLocalRef(jni, todo[i].referent);
    }
    return made;
}

uint64_t objects_hold_make(JNIEnv *jni) {
    jobjectArray array = load_acquire(&held_array);
    if (!array) return 0;
    if ((*jni)->EnsureLocalCapacity(jni, HELD_PER_SHARD + 1) != 0) {
        (*jni)->ExceptionClear(jni);
        return 0;
    }
    uint64_t made = 0;
    for (uint32_t shard = 0; shard < SHARDS; shard++) {
        if (load_relaxed(&shards[shard].held) != 0) made += make_shard(jni, array, shard);
    }
    fetch_add_relaxed(&held_made, made);
    return made;
}

void objects_hold_wait(uint32_t ms) {
    struct timespec until = cv_deadline_after_ms(ms);
    pthread_mutex_lock(&maker_lock);
    while (!load_acquire(&maker_kicked)) {
        if (pthread_cond_timedwait(&maker_cond, &maker_lock, &until) != 0) break;
    }
    store_release(&maker_kicked, 0);
    pthread_mutex_unlock(&maker_lock);
}

void objects_hold_wake(void) {
    kick_maker();
}

void objects_hold_counts(uint64_t *taken, uint64_t *made, uint64_t *full, uint64_t *held) {
    *taken = load_relaxed(&held_taken);
    *made = load_relaxed(&held_made);
    *full = load_relaxed(&held_full);
    uint64_t n = 0;
    for (int i = 0; i < SHARDS; i++) n += (uint64_t)__builtin_popcountll(load_relaxed(&shards[i].held));
    *held = n;
}
