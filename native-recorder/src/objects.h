/*
 * Object identity: ids kept in JVMTI tags, with each object's identity hash code, kind and
 * class in a preallocated table of slots. An id is (generation << 32) | (slot + 1): a slot
 * is reused once its object is collected (ObjectFree) or the table is reset, and every reuse
 * gives it a new generation, so an id never names two objects. A collected object stays
 * described until its slot is reused (never-used slots are taken first, then freed ones,
 * oldest freed first); a record holding the id of a slot's earlier object then finds no
 * entry (objects_hash: not found; objects_foreach: absent) and comes out undescribed, never
 * as the slot's later object. Ids whose low 32 bits are 0
 * are overflow ids: unique, never described (the table was full; objects_dropped counts
 * them).
 *
 * CONCURRENCY CONTRACT
 *
 * Threads: objects_id() runs on any thread in native state (JVMTI callbacks, JNI natives);
 * objects_free() on whichever thread JVMTI posts ObjectFree on (it calls no JNI, takes no
 * lock, never blocks); objects_foreach/objects_hash/objects_find_by_hash on snapshot
 * threads; objects_reset() on a JNI native.
 *
 * An id is described before it is visible: by the time any thread can read id N from
 * GetTag, N's slot is published with `id` = N, and so is the slot of its class. A thread
 * that holds an id (from objects_id() or a record) finds the entry with objects_hash() or
 * objects_foreach() as long as the slot still holds N; once the slot is reused or the
 * table reset, the lookup says "not found". So a snapshot that copies the rings first and
 * enumerates the table afterwards describes every object its records name whose slot was
 * not reused meanwhile, and no record ever gets another object's description.
 *
 * Lookup: the identity hash (GetObjectHashCode), then GetTag; a tag is valid if its slot's
 * `id` (acquire load) equals it, or if it is an overflow id taken since the last reset
 * while no slot is free. Any other tag (0, a slot since freed or reset, an overflow id
 * while slots are free) is a first sight: the class's id (objects_id on the class, or the
 * caller's cache of it) is gathered, then under the object's shard lock (Locks, below) the
 * tag is read and validated again and, if still not valid, a slot is taken (the next
 * never-used one, else the oldest freed, else an overflow id), its generation incremented,
 * its `id` set to 0, its fields written, `owner` and `id` release-stored, and only then
 * SetTag(N), after the lock is released. The shard lock makes racing threads agree on an
 * object's id; the VM's tag map lock orders SetTag before the GetTag that returns N, which
 * carries the publication.
 *
 * Locks: a first sight holds one of 64 shard locks, chosen by its identity hash's bucket,
 * while it reads the bucket's count (and, when the count is not 0, GetTag), takes a slot and
 * describes it; first sights of the same object (same hash) exclude each other and those of
 * other objects mostly do not. Before releasing the lock it adds 1 to its bucket's `tagging`
 * count, and subtracts it (release) once SetTag returned: SetTag takes the tag map's lock and
 * may wait for a safepoint, and no other first sight waits for it, except one of the same
 * bucket that finds `tagging` non-zero under the lock. Its object may be the one being
 * tagged, whose tag GetTag cannot show yet, so it releases the lock, waits until `tagging`
 * is 0 (spinning and peeking, then polling) and looks again: the subtraction it then
 * acquires follows the SetTag. Slots are taken under slot_lock, held for a few loads and
 * stores and never across a JVMTI or JNI call; an overflow id's SetTag stays under the
 * shard lock (the table is full: the exception).
 *
 * No tag to look up: GetTag and SetTag take the JVMTI tag map's lock, one per environment,
 * and a thread that finds it held sleeps; on a busy machine it wakes milliseconds later.
 * Most objects a recording meets are new (a program makes its locks as it goes), so a first
 * sight skips GetTag when it can prove the object untagged. A live object holding a valid
 * slot id N owns its slot (`owner` == N: `owner` goes to 0 only when the object is
 * collected, its SetTag failed, or a reset made N invalid), and `owned` counts the owned
 * slots in each bucket of identity hashes: the thread that sets a slot's `owner` adds 1
 * first, under the shard lock of the slot's bucket; the thread that wins the CAS taking it
 * to 0 subtracts 1. So the counts follow the live tagged objects, not every object ever
 * seen, and stay mostly 0 however long a recording runs. An object whose bucket counts 0,
 * while no overflow id taken since the last reset may be valid, holds no valid tag. The
 * count is read once without the lock (a 0 skips the first GetTag) and again under the
 * shard lock, which every addition to that bucket and every overflow id for an object of
 * that shard was made under: only a 0 read under the lock skips the GetTag there. So a new
 * object costs one SetTag, and the tag map's lock is taken once.
 *
 * Racing first sights: the threads that contend for a new monitor meet it together, and all
 * but the first would sleep on the shard lock or on the tag map's lock while the first tags
 * it. A caller with a cache (cv_id_hooks) has the first thread publish the id there as soon
 * as its entry is described, before SetTag, and the others peek at the cache before GetTag,
 * while they spin for the shard lock (a bounded spin, then the mutex) and once they hold it:
 * they take the published id without a JVMTI call. Publishing before SetTag is safe: the entry is
 * described, and the cache is keyed by the object's address, which names the object
 * until the next collection; if the SetTag then fails the id is withdrawn, and a record that
 * took it names no object, like any id whose slot was reused.
 *
 * Freeing: objects_free(T) (ObjectFree, tag T of a collected object) CASes the slot's
 * `owner` from T to 0; only the winner frees it (and uncounts it from `owned`), and a stale
 * T (the slot was reset or reused) loses and does nothing. `id`, the description, stays
 * until the slot is reused. A plain slot goes on the free list, a lock-free stack pushed by
 * any thread; its one consumer, under slot_lock, takes the whole stack over with an
 * exchange and reverses it (oldest freed first). A class slot goes on the dead-class stack instead: its JNI weak
 * reference must be deleted, which needs JNI and must not race a snapshot using it, so it
 * is reclaimed (reference deleted, slot moved to the free list) under ref_lock by
 * snapshots, resets, and a first sight that finds no free slot (with trylock, never
 * waiting).
 *
 * Reset: objects_reset() takes ref_lock and every shard lock (slots are taken only under a
 * shard lock, so no slot is taken meanwhile), stores 0 in every slot's `id`, and for every
 * slot still owned CASes `owner` to 0, uncounts it, deletes its class reference and pushes
 * it on the free list. Objects keep their old tags, which no longer validate: their next
 * sight describes them again, with a new id (and their class too), so records written
 * after the reset name described objects. A reader racing with reset or reuse sees `id`
 * change and skips the slot (below); it never reads a reused slot's fields as the old
 * object's.
 *
 * Readers (seqlock on `id`): acquire-load `id`, skip 0, copy the fields (relaxed), acquire
 * fence, load `id` again and keep the copy only if unchanged. A slot's fields are written
 * only after its `id` was stored 0 and a release fence, and before the release store of its
 * new id; generations only grow, so an unchanged id means the fields read are that id's.
 * Class references are only deleted under ref_lock, which objects_foreach holds while it
 * visits.
 *
 *   method           field      writer                          reader
 *   objects_id       id         relaxed store 0, release fence  -
 *                    fields     relaxed stores (slot taken)     relaxed loads, validated
 *                    owned      atomic add 1 (shard lock)       relaxed load; again under shard lock
 *                    tagging    add 1 (shard lock), release sub acquire load under shard lock
 *                    owner      release store N                 -
 *                    id         release store N                 acquire load, recheck
 *                    tag        SetTag(N) (after id)            GetTag
 *   objects_free     owner      CAS T -> 0 (acq_rel)            -
 *                    owned      atomic sub 1 (CAS winner)       -
 *                    free list  CAS push (acq_rel)              exchange under slot_lock (acquire)
 *   objects_reset    id, owner  store 0, CAS -> 0 (all shards)   -
 *
 * Allocation: none on the event path except one JNI weak reference per described class.
 * Lock order: ref_lock, then shard locks (in index order; only reset takes more than one),
 * then slot_lock; shard lock holders only ever trylock ref_lock, and slot_lock holders
 * call nothing that locks.
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
    jweak    ref;       /* OBJ_CLASS only: weak reference to the class */
} cv_object;

#define CV_OBJECT_SLOT_BITS 32

/* Allocates the table (at least 1024 slots); calling it again starts over (not thread-safe). */
int objects_init(size_t bytes);
size_t objects_memory(void);

/* Id of obj, assigning one if it has none (or a stale one). Returns 0 if JVMTI fails. */
uint64_t objects_id(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind);

/* What a caller with a cache of ids (agent.c's id cache) lends a look-up; any may be NULL.
 * class_id: the id of class `cls` for a first sight's description (else objects_id).
 * peek: the id of the object looked up, if another thread published it meanwhile, else 0.
 * publish: the id a first sight assigned the object, called once its entry is described
 * and before SetTag; peek answers it from then on. See "Racing first sights". */
typedef struct {
    uint64_t (*class_id)(void *ctx, jvmtiEnv *jvmti, JNIEnv *jni, jclass cls);
    uint64_t (*peek)(void *ctx);
    void (*publish)(void *ctx, uint64_t id);
    void *ctx;
} cv_id_hooks;
/* objects_id with the caller's hooks (NULL: none). */
uint64_t objects_id_with(jvmtiEnv *jvmti, JNIEnv *jni, jobject obj, uint32_t kind, const cv_id_hooks *hooks);
/* Look-ups that proved their object untagged and skipped GetTag ("No tag to look up"). */
uint64_t objects_hash_skips(void);
/* Whether `id` (from objects_id) still names its object: its slot was neither reused nor
 * reset since. Overflow ids answer 0. Any thread; no lock. */
int objects_current(uint64_t id);

/* ObjectFree: the object tagged `tag` was collected. Lock-free, no JNI. */
void objects_free(uint64_t tag);

/* Frees every entry (see Reset above). Needs JNI (class references). */
void objects_reset(JNIEnv *jni);

typedef void (*cv_object_visitor)(void *ctx, const cv_object *o);
/* Visits every described entry; holds ref_lock, so a class's `ref` is valid during the
 * visit. First deletes the references of freed classes (needs jni; NULL skips that). */
void objects_foreach(JNIEnv *jni, cv_object_visitor visit, void *ctx);

/* Identity hash of a described object; 0 with *found = 0 if it is not described. */
uint32_t objects_hash(uint64_t id, int *found);
/* The only described non-class object with this identity hash, or 0 (none or several). */
uint64_t objects_find_by_hash(uint32_t hash);

/* Entries of objects alive now (described, neither freed nor reset). */
uint64_t objects_count(void);
uint64_t objects_capacity(void);
/* Overflow ids handed out (first sights that found the table full). */
uint64_t objects_dropped(void);

#endif
