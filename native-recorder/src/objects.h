/*
 * Object identity: an id per object, kept by the recorder itself in a preallocated table of
 * slots, each holding the object's identity hash code, kind, class and a JNI weak global
 * reference to it. An id is (generation << 32) | (slot + 1): a slot is reused once its
 * object is collected or the table is reset, and every reuse gives it a new generation, so
 * an id never names two objects. A collected object stays described until its slot is
 * reused (never-used slots are taken first, then freed ones, oldest freed first); a record
 * holding the id of a slot's earlier object then finds no entry (objects_hash: not found;
 * objects_foreach: absent) and comes out undescribed, never as the slot's later object.
 *
 * No JVMTI tags. GetTag and SetTag take the JVMTI tag map's lock, one per environment, and
 * the first of them after a collection rehashes the whole tag map under it (the table is
 * keyed by address); every other thread that needs it meanwhile sleeps, and on a busy
 * machine wakes milliseconds later. The recorder's own table is found by identity hash
 * instead, which no collection changes, and an object is told from others of the same hash
 * by JNI IsSameObject on the slot's weak reference: a VM transition, no lock of the VM's.
 *
 * CONCURRENCY CONTRACT
 *
 * Threads: objects_id() runs on any thread in native state (JVMTI callbacks, JNI natives)
 * with its JNIEnv; objects_foreach/objects_hash/objects_find_by_hash on snapshot threads;
 * objects_reset() on a JNI native; objects_hold_make on the maker thread (one at a time). None runs in the VM thread or inside a safepoint.
 *
 * Chains: the slots of live-or-unchecked objects are linked, by identity hash bucket (as
 * many buckets as slots, up to 65,536), in chains whose heads are in `heads`. A bucket belongs to one of 64 shards,
 * and a chain is read and changed only under its shard's lock: first sights of one object
 * (one hash, one bucket) exclude each other, those of other objects mostly do not.
 *
 * Lookup: the identity hash (GetObjectHashCode), then, under the shard lock, the chain: a
 * slot of the same hash whose reference IsSameObject as the object holds its id. None: a
 * first sight, which takes a slot (the next never-used one, else the oldest freed), gives it
 * a reference (below), describes it (fields, then `id` release-stored) and links it, all
 * under the lock, so that the next look-up of the object, which needs the lock, finds it.
 *
 * A class first described as a plain object (a static synchronized method's monitor) is
 * described as a class from its first look-up as one on (kind OBJ_CLASS, same id), once it has
 * its weak reference: the methods it declares then name a described class.
 *
 * Held references: a plain object's first sight does not make its weak reference itself.
 * NewWeakGlobalRef takes the lock of the VM's JNI weak handle storage, which other threads
 * (the compiler's among them) hold at times for tens of microseconds, and the callback making
 * it may hold a monitor. Once objects_hold_start has made the held array (a Java Object[] of
 * 64 entries per shard, behind a global reference), the first sight stores the object in a
 * free entry of its shard instead (SetObjectArrayElement: a VM transition, no lock) and
 * the slot holds that entry (`held`) until the maker, a thread of the recorder's own, calls
 * objects_hold_make: for each held entry it notes the take (`held_seq`) under the shard
 * lock, reads the referent and makes the weak reference without it, and under the lock
 * again, if the entry still holds the same take, sets the slot's reference and detaches the
 * slot from the entry. The entry stays marked in use while the maker empties it without the
 * lock (SetObjectArrayElement may wait out a safepoint: the maker makes no VM transition under
 * a shard lock, which a callback may be waiting for), then is marked free under the lock.
 * Meanwhile a look-up compares the object with the entry's referent, and no sweep drops the
 * slot (the array keeps its object alive: a first-seen object lives at most until the maker's
 * next round). A first sight whose shard has every entry in use (counted) wakes the maker and
 * makes its weak reference itself, under the lock; classes always do (snapshots read a
 * class's reference). The held entries of a shard are taken and emptied only under its lock.
 * The class's id (objects_id on the class, or the caller's cache of it) is gathered before
 * the lock: at once when the chain is empty (most likely a first sight), else after a
 * look-up under the lock found nothing (the lock is released for it and the look-up
 * repeated).
 *
 * Racing first sights: the threads that contend for a new monitor meet it together, and all
 * but the first would wait for the shard lock while the first describes it. A caller with
 * a cache (cv_id_hooks) has the first thread publish the id there once its entry is
 * described, and the others peek at the cache while they spin for the shard lock (a
 * bounded spin, then the mutex) and once they hold it: they take the published id without
 * a look-up. The cache is keyed by the object's address, which names the object until the
 * next collection.
 *
 * Collected objects: a collection clears the weak reference (IsSameObject(ref, NULL)). A
 * look-up drops the collected slots it meets in its chain; a first sight that finds no free
 * slot sweeps the buckets of the next 64 slots (by index, round the table: those of its own
 * shard, and others whose lock it gets with trylock, never waiting) and tries again;
 * objects_foreach (snapshots) and objects_sweep (reads of the counters) sweep every bucket,
 * taking one shard lock at a time for 16 buckets. A dropped slot leaves its chain and is uncounted from `live`; a
 * plain object's reference is deleted at once (only chain walks, under the same lock, use
 * it) and its slot goes on the free list, a lock-free stack pushed by any thread whose one
 * consumer, under slot_lock, takes the whole stack over with an exchange and reverses it
 * (oldest freed first). A class's reference is also read by snapshots (objects_foreach,
 * under ref_lock), so its slot goes on the dead-class stack and is reclaimed (reference
 * deleted, slot freed) under ref_lock by snapshots, resets, and a first sight that finds no
 * free slot (with trylock, never waiting).
 *
 * Full table: when a sweep frees nothing, the first sight gets id 0 (objects_dropped counts
 * it) and its record names no object.
 *
 * Reset: objects_reset() takes ref_lock and every shard lock, stores 0 in every slot's `id`,
 * deletes every linked slot's reference, empties the chains and frees the slots. Objects
 * seen again are described again, with new ids (and their classes too), so records written
 * after the reset name described objects. A reader racing with reset or reuse sees `id`
 * change and skips the slot (below); it never reads a reused slot's fields as the old
 * object's.
 *
 * Readers (seqlock on `id`): acquire-load `id`, skip 0, copy the fields (relaxed), acquire
 * fence, load `id` again and keep the copy only if unchanged. A slot's fields are written
 * only after its `id` was stored 0 and a release fence, and before the release store of its
 * new id; generations only grow, so an unchanged id means the fields read are that id's.
 * Readers see a class's reference (`ref`), never a plain object's.
 *
 *   method           field      writer                          reader
 *   objects_id       id         relaxed store 0, release fence  -
 *                    fields     relaxed stores (slot taken)     relaxed loads, validated
 *                    id         release store N                 acquire load, recheck
 *                    chain      store under the shard lock      loads under the shard lock
 *   sweeps           chain      unlink under the shard lock     -
 *                    free list  CAS push (acq_rel)              exchange under slot_lock (acquire)
 *   objects_reset    id, chain  store 0 (all shards)            -
 *
 * Allocation: none on the event path except one held entry (or one JNI weak reference) per
 * described object.
 * Lock order: ref_lock, then shard locks (in index order; only reset takes more than one),
 * then slot_lock or the maker's lock (which the maker holds only to wait, and a first sight
 * only to wake it); shard lock holders only ever trylock ref_lock and other shards, and
 * slot_lock holders call nothing that locks. A shard lock holder may enter the VM
 * (IsSameObject, NewWeakGlobalRef, DeleteWeakGlobalRef) and wait there for a safepoint;
 * that is safe because every thread that waits for a shard lock is in native state, which
 * does not hold up the safepoint.
 */
#ifndef CONVOY_OBJECTS_H
#define CONVOY_OBJECTS_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t id;        /* generation << 32 | slot + 1 */
    uint64_t class_id;
    uint32_t hash;
    uint32_t kind;      /* OBJ_* */
    jweak    ref;       /* OBJ_CLASS only: weak reference to the class (else NULL) */
} cv_object;

#define CV_OBJECT_SLOT_BITS 32

/* Allocates the table (at least 1024 slots); calling it again starts over (not thread-safe). */
int objects_init(size_t bytes);
size_t objects_memory(void);

/* Id of obj, assigning one if it has none. Returns 0 if JVMTI or JNI fails or the table is
 * full. */
uint64_t objects_id(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind);

/* What a caller with a cache of ids (agent.c's id cache) lends a look-up; any may be NULL.
 * class_id: the id of class `cls` for a first sight's description (else objects_id).
 * peek: the id of the object looked up, if another thread published it meanwhile, else 0.
 * publish: the id a first sight assigned the object, called once its entry is described
 * (under the shard lock); peek answers it from then on. See "Racing first sights". */
typedef struct {
    uint64_t (*class_id)(void *ctx, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls);
    uint64_t (*peek)(void *ctx);
    void (*publish)(void *ctx, uint64_t id);
    void *ctx;
} cv_id_hooks;
/* objects_id with the caller's hooks (NULL: none). */
uint64_t objects_id_with(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind, const cv_id_hooks *hooks);
/* A JNI local reference to the object of `id` while it is described and alive (its slot still
 * linked in its chain, under its shard lock), else NULL. Any thread in native state with its
 * JNIEnv; the caller deletes the reference. */
jobject objects_local_ref(JNIEnv *jni, uint64_t id);
/* Slots of collected objects dropped by sweeps ("Collected objects"). */
uint64_t objects_swept(void);
/* Whether `id` (from objects_id) is still described: its slot was neither reused nor reset
 * since. Any thread; no lock. */
int objects_current(uint64_t id);

/* Drops the collected objects of every bucket (and frees the slots of collected classes
 * unless a snapshot holds ref_lock), so that objects_count() counts live objects. Takes each
 * shard lock in turn, briefly; never holds two. */
void objects_sweep(JNIEnv *jni);

/* Frees every entry (see Reset above), held ones included. Needs JNI (class references, the
 * held array). */
void objects_reset(JNIEnv *jni);

typedef void (*cv_object_visitor)(void *ctx, const cv_object *o);
/* Visits every described entry; holds ref_lock, so a class's `ref` is valid during the
 * visit. First sweeps every bucket and deletes the references of freed classes (needs jni;
 * NULL skips both). */
void objects_foreach(JNIEnv *jni, cv_object_visitor visit, void *ctx);

/* Identity hash of a described object; 0 with *found = 0 if it is not described. */
uint32_t objects_hash(uint64_t id, int *found);
/* The only described non-class object with this identity hash, or 0 (none or several). */
uint64_t objects_find_by_hash(uint32_t hash);

/* Entries linked in a chain: objects alive when last looked at (neither swept nor reset). */
uint64_t objects_count(void);
uint64_t objects_capacity(void);
/* First sights that found the table full and got no id. */
uint64_t objects_dropped(void);

/* Held references ("Held references" above). objects_hold_start makes the held array (JNI,
 * live phase); from then on plain objects' first sights hold their object there. -1 if it
 * cannot (they keep making their weak reference). objects_holding: whether it did. */
int objects_hold_start(JNIEnv *jni);
int objects_holding(void);
/* The maker's round: weak references for every held entry. Returns how many it made. One
 * thread at a time (the maker; tests). */
uint64_t objects_hold_make(JNIEnv *jni);
/* The maker's pause between rounds: `ms` milliseconds, or until a first sight finds its
 * shard's entries half or all in use, or objects_hold_wake. */
void objects_hold_wait(uint32_t ms);
void objects_hold_wake(void);
/* First sights held, weak references the maker made for them, first sights that found their
 * shard's entries all in use (and made their own), entries held now. */
void objects_hold_counts(uint64_t *taken, uint64_t *made, uint64_t *full, uint64_t *held);

#endif
