/*
 * Per-thread circular record buffer.
 *
 * CONCURRENCY CONTRACT
 *
 * Ownership: a ring has exactly one writer, the thread that owns it (a Java thread, or
 * the VM thread for the GC ring). Any number of readers (snapshots) may copy it at any
 * time, concurrently with the writer. Writers never wait for readers and never take a
 * lock; readers never block writers. Nothing here allocates.
 *
 * Cursors: `head` counts the records ever written (the next sequence number). Record i
 * lives in slot i % capacity. `head` is published only after record i is complete
 * (transactional store): a reader that sees head == n may read records n-capacity..n-1.
 *
 * Torn records: every slot carries `seq`, a seqlock word. While the writer fills record
 * i the slot holds 2i+1; once complete it holds 2i+2. A reader accepts a slot only if
 * `seq` reads 2i+2 both before and after it copied the payload; otherwise the record
 * was overwritten (the writer lapped the reader) or is half written, and it is counted
 * as torn and skipped, never returned.
 *
 * Never-written slots: ring_init sets the header only and leaves the slots as the memory
 * holds them (uninitialised, or the records of an earlier ring in a reused block, valid-
 * looking sequence words included). That is safe because a reader looks only at slots of
 * records below the `head` it loaded: record i < head was completely written, seq = 2i+2,
 * before head passed it (release/acquire on head), and a later record in the same slot
 * only changes seq to something other than 2i+2. A slot whose record has not been written
 * since ring_init is never read, so what it holds never matters.
 *
 * Overwrite-oldest: a full ring overwrites its oldest record. The number of records
 * lost that way is derived, never counted on the hot path: max(base, head - capacity).
 *
 * Growth (ring_grow_into): the owner may move its records into a new, larger ring, which
 * then replaces the old one (threads.h says when and how the swap is published). The new
 * ring continues the sequence numbers: same head, each record i copied to slot
 * i % new capacity with seq 2i+2, and `base` set to the first record it holds, so that a
 * reader never looks at a slot below `base` (those slots were never written in this ring:
 * see Never-written slots). Records before `base` are counted as overwritten. `base` is set
 * before the new ring is published and never changes after.
 * `dropped` counts events of the owner that were not recorded at all (owner-written,
 * relaxed): the recorder calls ring_drop when a monitor or instrumentation event's object
 * cannot be identified (a JVMTI tag call failed), as a record naming no object is no fact.
 *
 * Memory ordering, owner (writer) vs other threads (readers):
 *
 *   method        field    writer                   reader
 *   ring_write    seq      relaxed store 2i+1,      -
 *                          release fence,
 *                 payload  relaxed stores,          -
 *                 seq      release store 2i+2,      -
 *                 head     release store i+1        -
 *   ring_read_encoded
 *                 head     -                        acquire load
 *                 seq      -                        acquire load (before)
 *                 payload  -                        relaxed loads, acquire fence
 *                 seq      -                        relaxed load (after), compare
 *   ring_dropped  dropped  relaxed load/add (owner) relaxed load
 *
 * The payload is stored and loaded word by word with relaxed atomics, so a torn read
 * is a detected race, not undefined behaviour.
 */
#ifndef CONVOY_RING_H
#define CONVOY_RING_H

#include <stddef.h>
#include <stdint.h>

#define CV_RECORD_WORDS 5
#define CV_RECORD_BYTES 40

/* One record as it is written and as it appears in a snapshot (40 bytes). */
typedef struct {
    uint64_t ts;     /* monotonic ns */
    uint64_t meta;   /* type | flags << 8 | stack id << 32 */
    uint64_t obj;
    int64_t  arg;
    int64_t  arg2;
} cv_record;

typedef struct {
    uint64_t seq;
    uint64_t w[CV_RECORD_WORDS];
} cv_slot;

typedef struct {
    uint32_t capacity;
    uint32_t pad;
    uint64_t head;
    uint64_t dropped;
    uint64_t base;      /* first record this ring holds (> 0 only in a ring grown from a wrapped one) */
    cv_slot  slots[];
} cv_ring;

static inline uint64_t cv_record_meta(uint8_t type, uint8_t flags, uint32_t stack) {
    return (uint64_t)type | ((uint64_t)flags << 8) | ((uint64_t)stack << 32);
}

/* Bytes needed for a ring of `capacity` records. */
size_t ring_bytes(uint32_t capacity);
/* Largest capacity that fits in `bytes` (at least 1 if bytes allows it, else 0). */
uint32_t ring_capacity_for(size_t bytes);
/* Sets the header (empty ring); does not touch the slots (see Never-written slots). */
void ring_init(cv_ring *ring, uint32_t capacity);

/* Owner thread only: makes `to` (ring_bytes(capacity) bytes, capacity >= from's) a copy of
 * `from` - head, dropped, and the newest min(head - base, capacity) records - with base at its
 * oldest record. `to` is not yet visible to readers; `from` is left as it is. */
void ring_grow_into(const cv_ring *from, cv_ring *to, uint32_t capacity);
/* Records lost from a ring whose head is `written`: max(base, written - capacity). */
uint64_t ring_lost(const cv_ring *ring, uint64_t written);

/* Owner thread only. Never blocks, never allocates. */
void ring_write(cv_ring *ring, const cv_record *rec);
/* Owner thread only: count an event that could not be recorded. */
void ring_drop(cv_ring *ring);

/* A record in the snapshot's encoding: CV_RECORD_BYTES little-endian bytes at `out` (no
 * alignment needed). */
void ring_encode(const cv_record *rec, uint8_t *out);

/* Any thread. Copies up to `max` committed records with ts >= since, oldest first, into
 * `out`, each as CV_RECORD_BYTES little-endian bytes (the snapshot's record encoding; no
 * alignment needed): a snapshot copies a ring once, into its output. Returns how many were
 * copied; *written receives head as seen at the start, *torn the number of records skipped
 * because they were overwritten or half written meanwhile, *last the newest record kept
 * (untouched if none). */
uint32_t ring_read_encoded(const cv_ring *ring, uint8_t *out, uint32_t max, uint64_t since,
                           uint64_t *written, uint64_t *torn, cv_record *last);

/* Any thread: copies record i into *r if the slot still holds it, committed (1); 0 if it was
 * overwritten or is being written (the seqlock check of read_encoded). i must be below a head
 * the caller loaded (ring_written) and at least ring_lost of it. */
int ring_read_at(const cv_ring *ring, uint64_t i, cv_record *r);

uint64_t ring_written(const cv_ring *ring);
uint64_t ring_overwritten(const cv_ring *ring);
uint64_t ring_dropped(const cv_ring *ring);

#endif
