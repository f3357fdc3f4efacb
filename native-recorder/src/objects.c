#include "objects.h"
#include "arch.h"
#include "snapshot_format.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* One slot of the table; see objects.h for who writes which field when. */
typedef struct {
    uint64_t id;         /* atomic: generation << 32 | index + 1 while described, else 0 */
    uint64_t owner;      /* atomic: == id while its object is alive (not freed, not reset), else 0 */
    uint64_t class_id;   /* atomic (relaxed), written while id == 0 */
    uint32_t hash;       /* idem */
    uint32_t kind;       /* idem */
    jweak    ref;        /* idem; deleted only under ref_lock */
    uint32_t gen;        /* generation of the slot's last id; under tag_lock */
    uint32_t next;       /* free or dead-class stack link: index + 1 of the next, 0 = end */
    uint32_t counted;    /* its description is counted in `described`; under tag_lock */
} slot;

#define SLOT_MASK 0xFFFFFFFFull

static slot *table;
static uint64_t capacity;
static uint64_t used;            /* slots ever handed out (high-water); written under tag_lock */
static uint32_t free_head;       /* atomic: free stack, index + 1, 0 = empty */
static uint32_t reuse_head;      /* the free stack taken over, oldest first; written under tag_lock */
static uint32_t dead_head;       /* atomic: freed class slots whose reference is not deleted yet */
static uint64_t live;            /* atomic: entries whose owner != 0 */
static uint64_t overflow_next;   /* last overflow id's high word; under tag_lock */
static uint64_t overflow_floor;  /* atomic: overflow ids at or below this are stale (reset) */
static uint64_t dropped;         /* atomic: overflow ids handed out */
static pthread_mutex_t tag_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ref_lock = PTHREAD_MUTEX_INITIALIZER;

/* Descriptions by identity hash bucket (objects.h, "No tag to look up"): written under
 * tag_lock, read with relaxed loads. */
#define HASH_BUCKETS (1u << 16)
static uint32_t described[HASH_BUCKETS];
static uint64_t hash_skips;      /* atomic: look-ups that skipped GetTag */

static uint32_t *bucket(uint32_t hash) {
    return &described[(hash ^ (hash >> 16)) & (HASH_BUCKETS - 1)];
}

/* Under tag_lock: the slot's description (its hash written) is counted in its bucket, or
 * withdrawn (its id was just stored 0). */
static void count(slot *s, uint32_t on) {
    if (s->counted == on) return;
    s->counted = on;
    uint32_t *b = bucket(s->hash);
    store_relaxed(b, on ? load_relaxed(b) + 1 : load_relaxed(b) - 1);
}

/* Whether obj, whose identity hash is `hash`, may hold a valid tag: some description has a
 * hash in its bucket, or overflow ids (never described) may be valid. 0 is no hash. */
static int maybe_tagged(uint32_t hash) {
    return hash == 0 || load_relaxed(&overflow_next) > load_relaxed(&overflow_floor) ||
           load_relaxed(bucket(hash)) != 0;
}

int objects_init(size_t bytes) {
    free(table);   /* not thread-safe: at start-up (and between unit tests) only */
    used = 0;
    free_head = reuse_head = dead_head = 0;
    live = overflow_next = overflow_floor = dropped = hash_skips = 0;
    memset(described, 0, sizeof(described));
    capacity = bytes / sizeof(slot);
    if (capacity < 1024) capacity = 1024;
    if (capacity > SLOT_MASK - 1) capacity = SLOT_MASK - 1;
    table = calloc(capacity, sizeof(slot));
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

/* Under tag_lock, the only consumer: takes the next free slot, oldest freed first (batch
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

/* A slot whose owner was just taken back to 0 by its caller goes to the free list, or, for
 * a class, to the dead-class list until its reference is deleted under ref_lock. Its
 * description stays until the slot is reused: records may still name it. */
static void release_slot(uint64_t index) {
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

/*
 * Under tag_lock, obj untagged or stale: takes a slot, describes and publishes it, and
 * only then tags obj, so that no thread can read the id from GetTag before its entry. If
 * SetTag fails the slot is taken back (its next use has another generation).
 *
 * NewWeakGlobalRef and SetTag may block for a safepoint while tag_lock is held. That is
 * safe because every caller of objects_id runs in a JVMTI callback or a JNI native, in
 * native state, so a thread waiting for tag_lock does not hold up the safepoint (and no
 * caller runs in the VM thread or inside a safepoint).
 */
static uint64_t assign(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind, uint32_t hash,
                       uint64_t class_id, const cv_id_hooks *hooks) {
    uint64_t index = 0;
    int have = 0;
    if (used < capacity) {          /* never-used slots first: freed descriptions last longer */
        index = used;
        store_release(&used, used + 1);
        have = 1;
    } else {
        have = pop_free(&index);
    }
    if (!have && load_relaxed(&dead_head) != 0 && pthread_mutex_trylock(&ref_lock) == 0) {
        reclaim(jni);
        pthread_mutex_unlock(&ref_lock);
        have = pop_free(&index);
    }
    if (!have) {
        uint64_t high = load_relaxed(&overflow_next) + 1;
        store_relaxed(&overflow_next, high);
        uint64_t fresh = high << 32;
        if ((*jvmti)->SetTag(jvmti, obj, (jlong)fresh) != JVMTI_ERROR_NONE) return 0;
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
    count(s, 0);
    fence_release();
    store_relaxed(&s->class_id, class_id);
    store_relaxed(&s->hash, hash);
    store_relaxed(&s->kind, kind);
    store_relaxed(&s->ref, ref);
    count(s, 1);
    fetch_add_relaxed(&live, 1);
    store_release(&s->owner, fresh);
    store_release(&s->id, fresh);
    if (hooks && hooks->publish) hooks->publish(hooks->ctx, fresh);
    if ((*jvmti)->SetTag(jvmti, obj, (jlong)fresh) != JVMTI_ERROR_NONE) {
        /* Never tagged: no record can name it, so it is withdrawn at once. */
        store_relaxed(&s->id, 0);
        count(s, 0);
        uint64_t expect = fresh;
        if (cas_acq_rel(&s->owner, &expect, 0)) release_slot(index);
        return 0;
    }
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

/* Spins this many rounds for tag_lock, peeking, before it sleeps on it. */
#define TAG_LOCK_SPINS 256

/* tag_lock, or 0 with *id the id another thread published while this one waited. */
static int lock_or_peek(const cv_id_hooks *hooks, uint64_t *id) {
    if (pthread_mutex_trylock(&tag_lock) == 0) return 1;
    if (hooks && hooks->peek) {
        for (int i = 0; i < TAG_LOCK_SPINS; i++) {
            if ((*id = peek(hooks)) != 0) return 0;
            cpu_relax();
            if (pthread_mutex_trylock(&tag_lock) == 0) return 1;
        }
    }
    pthread_mutex_lock(&tag_lock);
    return 1;
}

uint64_t objects_id_with(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind, const cv_id_hooks *hooks) {
    if (obj == NULL) return 0;
    jint hash = 0;
    if ((*jvmti)->GetObjectHashCode(jvmti, obj, &hash) != JVMTI_ERROR_NONE) hash = 0;
    jlong tag = 0;
    uint64_t id = 0;
    if (maybe_tagged((uint32_t)hash)) {
        if ((id = peek(hooks)) != 0) return id;
        if ((*jvmti)->GetTag(jvmti, obj, &tag) != JVMTI_ERROR_NONE) return 0;
        if (CV_LIKELY(tag != 0 && valid((uint64_t)tag))) return (uint64_t)tag;
    } else {
        fetch_add_relaxed(&hash_skips, 1);
    }
    /* First sight, or the id is stale. What describes obj is gathered before tag_lock: the
     * class's own objects_id takes the lock, and a thread that loses the race only wasted
     * the look-up. */
    uint64_t class_id = 0;
    if (kind != OBJ_CLASS) {
        jclass cls = (*jni)->GetObjectClass(jni, obj);
        if (cls) {
            class_id = hooks && hooks->class_id ? hooks->class_id(hooks->ctx, jvmti, jni, cls)
                                                : objects_id(jvmti, jni, cls, OBJ_CLASS);
            (*jni)->DeleteLocalRef(jni, cls);
        }
    }
    if (!lock_or_peek(hooks, &id)) return id;
    /* Under the lock, an id another thread published meanwhile is the object's. */
    if ((id = peek(hooks)) == 0) {
        if (!maybe_tagged((uint32_t)hash)) {
            id = assign(jvmti, jni, obj, kind, (uint32_t)hash, class_id, hooks);
        } else if ((*jvmti)->GetTag(jvmti, obj, &tag) == JVMTI_ERROR_NONE) {
            id = tag != 0 && valid((uint64_t)tag) ? (uint64_t)tag
                                                   : assign(jvmti, jni, obj, kind, (uint32_t)hash, class_id, hooks);
        }
    }
    pthread_mutex_unlock(&tag_lock);
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
    pthread_mutex_lock(&tag_lock);
    reclaim(jni);
    for (uint64_t i = 0; i < used; i++) {
        slot *s = &table[i];
        store_relaxed(&s->id, 0);                    /* no description survives a reset */
        s->counted = 0;
        uint64_t owner = load_acquire(&s->owner);
        if (owner == 0 || !cas_acq_rel(&s->owner, &owner, 0)) continue;   /* free already */
        fetch_add_relaxed(&live, (uint64_t)-1);
        jweak ref = load_relaxed(&s->ref);
        store_relaxed(&s->ref, NULL);
        if (ref && jni) (*jni)->DeleteWeakGlobalRef(jni, ref);
        push(&free_head, (uint32_t)i);
    }
    store_relaxed(&overflow_floor, overflow_next);
    for (uint32_t i = 0; i < HASH_BUCKETS; i++) store_relaxed(&described[i], 0);
    pthread_mutex_unlock(&tag_lock);
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
