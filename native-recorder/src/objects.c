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
    uint64_t owner;      /* atomic: == id while its object is alive (not freed, not reset), else 0 */
    uint64_t class_id;   /* atomic (relaxed), written while id == 0 */
    uint32_t hash;       /* idem */
    uint32_t kind;       /* idem */
    jweak    ref;        /* idem; deleted only under ref_lock */
    uint32_t gen;        /* generation of the slot's last id; by the thread that took the slot */
    uint32_t next;       /* free or dead-class stack link: index + 1 of the next, 0 = end */
} slot;

#define SLOT_MASK 0xFFFFFFFFull

static slot *table;
static uint64_t capacity;
static uint64_t used;            /* slots ever handed out (high-water); written under slot_lock */
static uint32_t free_head;       /* atomic: free stack, index + 1, 0 = empty */
static uint32_t reuse_head;      /* the free stack taken over, oldest first; written under slot_lock */
static uint32_t dead_head;       /* atomic: freed class slots whose reference is not deleted yet */
static uint64_t live;            /* atomic: entries whose owner != 0 */
static uint64_t overflow_next;   /* last overflow id's high word; written under slot_lock */
static uint64_t overflow_floor;  /* atomic: overflow ids at or below this are stale (reset) */
static uint64_t dropped;         /* atomic: overflow ids handed out */
static pthread_mutex_t ref_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;

/* Owned objects by identity hash bucket (objects.h, "No tag to look up"), and the first-sight
 * locks, one per group of buckets ("Locks"). */
#define HASH_BUCKETS (1u << 16)
#define TAG_SHARDS   64
static uint32_t owned[HASH_BUCKETS];   /* atomic */
static uint32_t tagging[HASH_BUCKETS]; /* atomic: first sights between their shard lock and SetTag's end */
static uint64_t hash_skips;            /* atomic: look-ups that skipped GetTag */
typedef struct {
    pthread_mutex_t lock;
} __attribute__((aligned(64))) tag_shard;
static tag_shard shards[TAG_SHARDS] = {[0 ... TAG_SHARDS - 1] = {PTHREAD_MUTEX_INITIALIZER}};

static uint32_t bucket_of(uint32_t hash) {
    return (hash ^ (hash >> 16)) & (HASH_BUCKETS - 1);
}

static pthread_mutex_t *shard_lock(uint32_t hash) {
    return &shards[bucket_of(hash) & (TAG_SHARDS - 1)].lock;
}

/* The thread that sets a slot's owner counts it in its bucket first; the one that takes the
 * owner back to 0 (the winner of that CAS) uncounts it. */
static void count_owned(uint32_t hash, uint32_t delta) {
    fetch_add_relaxed(&owned[bucket_of(hash)], delta);
}

/* Whether obj, whose identity hash is `hash`, may hold a valid tag: some owned object has a
 * hash in its bucket, or overflow ids (never described) may be valid. 0 is no hash. */
static int maybe_tagged(uint32_t hash) {
    return hash == 0 || load_relaxed(&overflow_next) > load_relaxed(&overflow_floor) ||
           load_relaxed(&owned[bucket_of(hash)]) != 0;
}

int objects_init(size_t bytes) {
    free(table);   /* not thread-safe: at start-up (and between unit tests) only */
    used = 0;
    free_head = reuse_head = dead_head = 0;
    live = overflow_next = overflow_floor = dropped = hash_skips = 0;
    memset(owned, 0, sizeof(owned));
    memset(tagging, 0, sizeof(tagging));
    capacity = bytes / sizeof(slot);
    if (capacity < 1024) capacity = 1024;
    if (capacity > SLOT_MASK - 1) capacity = SLOT_MASK - 1;
    table = calloc(capacity, sizeof(slot));
    cv_commit(table, capacity * sizeof(slot));
    return table ? 0 : -1;
}

size_t objects_memory(void) {
    return capacity * sizeof(slot);
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

/* A slot whose owner was just taken back to 0 by its caller is uncounted and goes to the free
 * list, or, for a class, to the dead-class list until its reference is deleted under
 * ref_lock. Its description stays until the slot is reused: records may still name it. */
static void release_slot(uint64_t index) {
    count_owned(load_relaxed(&table[index].hash), (uint32_t)-1);
    fetch_add_relaxed(&live, (uint64_t)-1);
    if (load_relaxed(&table[index].kind) == OBJ_CLASS) {
        push(&dead_head, (uint32_t)index);
    } else {
        push(&free_head, (uint32_t)index);
    }
}

static int room(void) {
    return load_relaxed(&free_head) != 0 || load_relaxed(&reuse_head) != 0 || load_acquire(&used) < capacity;
}

static int valid(uint64_t tag) {
    uint64_t index = tag & SLOT_MASK;
    if (index == 0) return (tag >> 32) > load_relaxed(&overflow_floor) && !room();
    return index <= capacity && load_acquire(&table[index - 1].id) == tag;
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

/* Under obj's shard lock: a slot for a first sight (1), else an overflow id in *overflow
 * (0). A full table first reclaims freed classes, if ref_lock is free (never waiting). */
static int take_slot(JNIEnv *jni, uint64_t *index, uint64_t *overflow) {
    pthread_mutex_lock(&slot_lock);
    int have = take_locked(index);
    pthread_mutex_unlock(&slot_lock);
    if (have) return 1;
    if (load_relaxed(&dead_head) != 0 && pthread_mutex_trylock(&ref_lock) == 0) {
        reclaim(jni);
        pthread_mutex_unlock(&ref_lock);
    }
    pthread_mutex_lock(&slot_lock);
    have = take_locked(index);
    if (!have) {
        *overflow = load_relaxed(&overflow_next) + 1;
        store_relaxed(&overflow_next, *overflow);
    }
    pthread_mutex_unlock(&slot_lock);
    return have;
}

/*
 * Holding obj's shard lock `lock`, obj untagged or stale: takes a slot, describes and
 * publishes it, counts obj in `tagging`, releases the lock, and only then tags obj, so that
 * no thread can read the id from GetTag before its entry (objects.h, Locks). If SetTag
 * fails the slot is taken back (its next use has another generation). An overflow id is
 * set under the lock (a full table is the exception).
 *
 * NewWeakGlobalRef (and an overflow id's SetTag) may block for a safepoint while the shard
 * lock is held. That is safe because every caller of objects_id runs in a JVMTI callback or
 * a JNI native, in native state, so a thread waiting for a shard lock does not hold up the
 * safepoint (and no caller runs in the VM thread or inside a safepoint).
 */
static uint64_t assign(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind, uint32_t hash,
                       uint64_t class_id, const cv_id_hooks *hooks, pthread_mutex_t *lock) {
    uint64_t index = 0, high = 0;
    if (!take_slot(jni, &index, &high)) {
        uint64_t fresh = high << 32;
        jvmtiError err = (*jvmti)->SetTag(jvmti, obj, (jlong)fresh);
        pthread_mutex_unlock(lock);
        if (err != JVMTI_ERROR_NONE) return 0;
        fetch_add_relaxed(&dropped, 1);
        return fresh;
    }
    slot *s = &table[index];
    uint32_t gen = s->gen + 1;
    if (gen == 0) gen = 1;
    s->gen = gen;
    uint64_t fresh = ((uint64_t)gen << 32) | (index + 1);
    jweak ref = NULL;
    if (kind == OBJ_CLASS) {
        ref = (*jni)->NewWeakGlobalRef(jni, obj);
        /* Out of memory: the class stays described, unnamed. No exception is pending when
         * a callback or native calls objects_id, so the OutOfMemoryError is ours to clear. */
        if (!ref && (*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    }
    /* The old description is withdrawn before the fields change: a reader that copies a
     * field written below and then re-reads `id` sees 0 or the new id, never the old one
     * (objects.h, Readers: release fence here, acquire fence there). */
    store_relaxed(&s->id, 0);
    fence_release();
    store_relaxed(&s->class_id, class_id);
    store_relaxed(&s->hash, hash);
    store_relaxed(&s->kind, kind);
    store_relaxed(&s->ref, ref);
    count_owned(hash, 1);
    fetch_add_relaxed(&live, 1);
    store_release(&s->owner, fresh);
    store_release(&s->id, fresh);
    if (hooks && hooks->publish) hooks->publish(hooks->ctx, fresh);
    uint32_t *busy = &tagging[bucket_of(hash)];
    fetch_add_relaxed(busy, 1);   /* the unlock below releases it to the lock's next holder */
    pthread_mutex_unlock(lock);
    if ((*jvmti)->SetTag(jvmti, obj, (jlong)fresh) != JVMTI_ERROR_NONE) {
        /* Never tagged: no record can name it, so it is withdrawn at once. */
        store_relaxed(&s->id, 0);
        uint64_t expect = fresh;
        if (cas_acq_rel(&s->owner, &expect, 0)) release_slot(index);
        fresh = 0;
    }
    __atomic_fetch_sub(busy, 1, __ATOMIC_RELEASE);   /* after SetTag (or the withdrawal) */
    return fresh;
}

int objects_current(uint64_t id) {
    return (id & SLOT_MASK) != 0 && valid(id);
}

uint64_t objects_id(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind) {
    return objects_id_with(jvmti, jni, obj, kind, NULL);
}

static uint64_t peek(const cv_id_hooks *hooks) {
    return hooks && hooks->peek ? hooks->peek(hooks->ctx) : 0;
}

/* Spins this many rounds for a shard lock, peeking, before it sleeps on it. */
#define TAG_LOCK_SPINS 256

/* `lock`, or 0 with *id the id another thread published while this one waited. The spin
 * matters on a busy machine: a thread that sleeps on a futex, however briefly, may wait a
 * whole scheduler time slice for a CPU once woken. */
static int lock_or_peek(pthread_mutex_t *lock, const cv_id_hooks *hooks, uint64_t *id) {
    if (pthread_mutex_trylock(lock) == 0) return 1;
    if (hooks && hooks->peek) {
        for (int i = 0; i < TAG_LOCK_SPINS; i++) {
            if ((*id = peek(hooks)) != 0) return 0;
            cpu_relax();
            if (pthread_mutex_trylock(lock) == 0) return 1;
        }
    }
    pthread_mutex_lock(lock);
    return 1;
}

/* Until no first sight of this bucket is setting a tag (0), or another thread published
 * the id looked up. Rare (a first sight whose cache look-up missed, meeting another of the
 * same hash bucket, or of the same object across a collection): spins, then polls. */
static uint64_t wait_tagging(const uint32_t *busy, const cv_id_hooks *hooks) {
    for (uint32_t i = 0; load_acquire(busy) != 0; i++) {
        uint64_t id = peek(hooks);
        if (id != 0) return id;
        if (i < TAG_LOCK_SPINS) {
            cpu_relax();
        } else {
            struct timespec pause = {0, 20000};
            nanosleep(&pause, NULL);
        }
    }
    return 0;
}

uint64_t objects_id_with(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind, const cv_id_hooks *hooks) {
    if (obj == NULL) return 0;
    jint hash = 0;
    if ((*jvmti)->GetObjectHashCode(jvmti, obj, &hash) != JVMTI_ERROR_NONE) return 0;
    jlong tag = 0;
    uint64_t id = 0;
    if (maybe_tagged((uint32_t)hash)) {
        if ((id = peek(hooks)) != 0) return id;
        if ((*jvmti)->GetTag(jvmti, obj, &tag) != JVMTI_ERROR_NONE) return 0;
        if (CV_LIKELY(tag != 0 && valid((uint64_t)tag))) return (uint64_t)tag;
    } else {
        fetch_add_relaxed(&hash_skips, 1);
    }
    /* First sight, or the id is stale. What describes obj is gathered before the shard lock:
     * the class's own objects_id takes a lock, and a thread that loses the race only wasted the
     * look-up. */
    uint64_t class_id = 0;
    if (kind != OBJ_CLASS) {
        jclass cls = (*jni)->GetObjectClass(jni, obj);
        if (cls) {
            class_id = hooks && hooks->class_id ? hooks->class_id(hooks->ctx, jvmti, jni, cls)
                                                : objects_id(jvmti, jni, cls, OBJ_CLASS);
            (*jni)->DeleteLocalRef(jni, cls);
        }
    }
    pthread_mutex_t *lock = shard_lock((uint32_t)hash);
    uint32_t *busy = &tagging[bucket_of((uint32_t)hash)];
    for (;;) {
        if (!lock_or_peek(lock, hooks, &id)) return id;
        /* Under the lock, an id another thread published meanwhile is the object's. */
        if ((id = peek(hooks)) != 0) break;
        if (load_acquire(busy) == 0) {
            if (!maybe_tagged((uint32_t)hash)) return assign(jvmti, jni, obj, kind, (uint32_t)hash, class_id, hooks, lock);
            if ((*jvmti)->GetTag(jvmti, obj, &tag) != JVMTI_ERROR_NONE) break;
            if (tag != 0 && valid((uint64_t)tag)) {
                id = (uint64_t)tag;
                break;
            }
            return assign(jvmti, jni, obj, kind, (uint32_t)hash, class_id, hooks, lock);
        }
        /* A first sight of this bucket, maybe of obj, is setting its tag: wait for it
         * outside the lock, then look again. */
        pthread_mutex_unlock(lock);
        if ((id = wait_tagging(busy, hooks)) != 0) return id;
    }
    pthread_mutex_unlock(lock);
    return id;
}

void objects_free(uint64_t tag) {
    uint64_t index = tag & SLOT_MASK;
    if (index == 0 || index > capacity) return;   /* an overflow id, or not ours */
    uint64_t expect = tag;
    if (cas_acq_rel(&table[index - 1].owner, &expect, 0)) release_slot(index - 1);
}

void objects_reset(JNIEnv *jni) {
    pthread_mutex_lock(&ref_lock);
    /* Every shard lock: slots are only taken (slot_lock) under one, so none is taken now. */
    for (int i = 0; i < TAG_SHARDS; i++) pthread_mutex_lock(&shards[i].lock);
    reclaim(jni);
    for (uint64_t i = 0; i < used; i++) {
        slot *s = &table[i];
        store_relaxed(&s->id, 0);                    /* no description survives a reset */
        uint64_t owner = load_acquire(&s->owner);
        if (owner == 0 || !cas_acq_rel(&s->owner, &owner, 0)) continue;   /* free already */
        count_owned(load_relaxed(&s->hash), (uint32_t)-1);
        fetch_add_relaxed(&live, (uint64_t)-1);
        jweak ref = load_relaxed(&s->ref);
        store_relaxed(&s->ref, NULL);
        if (ref && jni) (*jni)->DeleteWeakGlobalRef(jni, ref);
        push(&free_head, (uint32_t)i);
    }
    store_relaxed(&overflow_floor, overflow_next);
    for (int i = TAG_SHARDS - 1; i >= 0; i--) pthread_mutex_unlock(&shards[i].lock);
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
    out->id = id;
    return 1;
}

void objects_foreach(JNIEnv *jni, cv_object_visitor visit, void *ctx) {
    pthread_mutex_lock(&ref_lock);
    if (jni) reclaim(jni);
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

uint64_t objects_hash_skips(void) {
    return load_relaxed(&hash_skips);
}

uint64_t objects_dropped(void) {
    return load_relaxed(&dropped);
}
