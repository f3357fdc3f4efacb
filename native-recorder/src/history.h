/*
 * The history: where records live once they leave the rings.
 *
 * A ring is where a record is born; before the ring wraps, the recorder's drain thread moves
 * its records, in order, into the history: a list of chunks, oldest first, each a byte block
 * of entries (below) that the drain appends to until it is full, then seals. The history is
 * bounded by `max_bytes` (the chunks' capacity, summed) and `max_age_ns` (a sealed chunk whose
 * newest record is older goes): the oldest chunk goes first, and what it held is counted as
 * aged out. A ring that wraps before the drain reached its records loses them; the drain
 * counts them exactly and writes, in the thread's stream, a loss entry with the times of the
 * records kept on either side (LOSS_OVERWRITTEN of schema/snapshot-format.md).
 *
 * Entries (all integers LEB128 varints; zz = zigzag-encoded signed):
 *   'T' thread   ring_id, zz java_tid, thread_obj, flags, start_ns, end_ns, written, dropped,
 *                base, prior, then name, group, parent_group as (length, bytes). The thread's
 *                identity and counters as of when it was written. A chunk holds one for every
 *                thread whose records or losses it holds, before the first of them, and another
 *                whenever the thread's identity changed (it ended) or it was evicted. `prior`:
 *                the thread's records (since the last reset) the history had accounted for in
 *                the chunks before this entry's, kept in a run or counted in a loss entry: the
 *                drain's cursor net of `base`, plus the records appended (history_append), less
 *                the loss still pending. So the records of the thread that a chunk k lacks are
 *                exact from the first 'T' entries alone: prior(k) less what the thread's kept
 *                chunks before k hold (its records and losses), whichever chunks went.
 *   'R' run      ring_id, u32 count (little-endian, patched when the run closes), then count
 *                records: zz ts delta (from the previous record of the run; the first from
 *                0), type byte, flags byte, meta >> 16 (stack id << 16), zz obj delta (from
 *                the previous record's obj), zz arg, zz arg2. The records are the packed
 *                records of a chunk file's SECTION_RECORDS (schema/snapshot-format.md), which
 *                copies them as they are.
 *   'L' loss     ring_id, from_ns (0: from the thread's start), to_ns, records.
 *
 * CONCURRENCY CONTRACT
 * One mutex, `lock`, guards every field and every chunk's contents. Appending (history_run_*,
 * history_loss, history_thread, history_drain_ring) and aging happen under it, called by the
 * drain thread and by threads.c's eviction of a state (which drains the state first). A
 * snapshot pins the chunks under it (history_pin): a sealed chunk is immutable; the current
 * chunk is only appended to, never moved or rewritten but for its open run's count, so the
 * first `used` bytes it had when pinned (every entry complete: history_pin closes the open
 * run) may be read without the lock. A chunk that ages out while pinned leaves the list and
 * the byte count at once and is freed by the last unpin: pinned chunks are the snapshot's
 * memory, as retired thread states are.
 * Lock order: threads.c's registry_lock before `lock`, never the reverse.
 * Nothing here runs on the event path; appends allocate (a new chunk) and may free.
 */
#ifndef CONVOY_HISTORY_H
#define CONVOY_HISTORY_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "ring.h"
#include "snapshot_format.h"

/* A chunk's file in the repository (history_files). */
#define HIST_FILE_NONE    0
#define HIST_FILE_PENDING 1   /* sealed, not yet written */
#define HIST_FILE_WRITTEN 2
#define HIST_FILE_FAILED  3   /* could not be written (a full disk): kept in memory only */

#define HIST_THREAD 'T'
#define HIST_RUN    'R'
#define HIST_LOSS   'L'

/* A thread as the history describes it. Strings need not be NUL-terminated when read back
 * (history_next): their lengths are given. */
typedef struct {
    uint64_t    ring_id;
    int64_t     java_tid;
    uint64_t    thread_obj;
    uint32_t    flags;
    uint64_t    start_ns, end_ns;
    uint64_t    written;     /* records ever written into the thread's rings */
    uint64_t    dropped;     /* events not recorded at all (ring_dropped) */
    uint64_t    base;        /* records written before the history was last cleared (a reset) */
    uint64_t    prior;       /* read back: the 'T' entry's prior (set by the history when written) */
    const char *name, *group, *parent_group;
    uint32_t    name_len, group_len, parent_len;
} cv_hist_thread;

typedef struct cv_chunk {
    struct cv_chunk *next;    /* list, oldest first; under lock */
    uint64_t seq;             /* chunk number, from 1 */
    uint64_t prior_total;     /* records (of every thread, since the last reset) the chunks before it hold,
                                 kept in a run or counted in a loss: the sum of every thread's prior */
    uint64_t first_ts, last_ts; /* oldest and newest record time in it (0: none yet) */
    uint32_t cap, used;
    uint32_t pins;            /* snapshots (and the repository's writer) reading it; under lock */
    uint32_t aged;            /* off the list, freed by the last unpin */
    uint8_t  sealed;          /* full, or sealed at exit: no more appends */
    uint8_t  file;            /* repository: HIST_FILE_* */
    uint8_t  data[];
} cv_chunk;

/* Whole-run totals (history_total): per thread, monitor or blocker, stack and kind, the blocks,
 * waits and parks the drain saw end, and their time, kept as records are drained, so they cover
 * the whole run after the records themselves aged out. */
/* kinds: TOTAL_* of snapshot_format.h */

typedef struct {
    uint64_t ring_id;
    uint64_t obj;
    uint32_t stack;
    uint32_t kind;
    uint64_t count, total_ns, max_ns;
} cv_total;

/* A drain's position in one ring, kept by the ring's owner state (threads.c) or by the agent
 * (the GC ring); read and written under the history's lock. */
typedef struct {
    uint64_t drained;        /* next record number to move */
    uint64_t last_ts;        /* time of the newest record kept, 0: none */
    uint64_t desc_seq;       /* chunk whose 'T' entry is this thread's current one; 0: write one */
    uint64_t pending_lost;   /* records lost since the newest record kept, not yet written */
    uint64_t pending_from;   /* from_ns of that loss (0: from the thread's start) */
    uint64_t lost;           /* records lost to overwriting, in all */
    uint64_t added;          /* records the recorder appended to the stream itself (history_append):
                                they count as written, with the ring's */
    uint32_t total_at;       /* the totals' slot this stream added to last (checked before use: the
                                table may have moved) */
    uint32_t open_kind;      /* TOTAL_*: a begin record kept whose end is still to come, 0: none */
    uint32_t open_stack;
    uint64_t open_ts, open_obj;
} cv_hist_cursor;

typedef struct {
    pthread_mutex_t lock;
    cv_chunk *head, *tail;    /* tail: the current chunk */
    uint64_t  bytes;          /* capacity of the chunks on the list */
    uint64_t  max_bytes, max_age_ns;
    uint32_t  chunk_bytes;
    uint64_t  next_seq;
    uint64_t  chunks;         /* on the list */
    uint64_t  aged_records;   /* records of runs that aged out */
    uint64_t  aged_chunks;
    uint64_t  lost_records;   /* records lost to overwriting, over every ring */
    uint64_t  from_ns;        /* newest record time of the chunks aged out (0: none) */
    uint64_t  alloc_failures; /* appends refused: no memory for a chunk */
    uint64_t  added_records;  /* records appended by history_append, ever (a reset keeps the count) */
    uint64_t  accounted;      /* records in runs or loss entries since the last reset, over every chunk */
    uint64_t  blocks_kept;    /* begin records of blocks (MONITOR_ENTER, PARK with FLAG_LOCK) kept, ever */
    int       files;          /* a repository mirrors the chunks: sealed ones are written there */
    cv_total *totals;         /* open addressing by (ring, obj, stack, kind); ring_id 0 and kind 0: empty */
    size_t    ntotals, cap_totals, max_totals;
    uint64_t  totals_dropped; /* ends not counted: the table was full */
    uint64_t  totals_from;    /* when the totals start (the recording's start, or the last clear) */
    uint64_t *doomed;         /* seqs of written chunks a reset dropped: their files to delete */
    size_t    ndoomed, capdoomed;
    /* the open run */
    uint64_t  run_ring;
    size_t    run_count_at;   /* offset of its count in tail (0: no run open) */
    uint32_t  run_count;
    uint64_t  run_prev_ts, run_prev_obj;
    const cv_hist_thread *run_desc;
    uint64_t *run_desc_seq;
} cv_history;

/* The history's totals, as history_totals reads them under the lock. */
typedef struct {
    uint64_t bytes, max_bytes, max_age_ns, chunks;
    uint64_t aged_records, lost_records, from_ns;
    uint64_t totals_from, totals_dropped, totals_entries;
    uint64_t added_records;
} cv_history_totals;

/* Under the lock. */
void history_totals(const cv_history *h, cv_history_totals *out);

/* Chunks of `max_bytes / 16`, within [64 KiB, 4 MiB] and at most max_bytes. The totals table holds
 * at most max_bytes / 16 bytes of entries; the totals start at 0 (history_clear moves them). */
void history_init(cv_history *h, uint64_t max_bytes, uint64_t max_age_ns);
/* Frees every chunk (none may be pinned). */
void history_destroy(cv_history *h);

void history_lock(cv_history *h);
void history_unlock(cv_history *h);

/* Under the lock. Moves the records of `ring` from c->drained to its head into the history as
 * the thread `desc` describes (desc->ring_id names the stream); counts records the ring
 * overwrote first (or that tore while read) as lost, and writes the loss before the next record
 * kept. Returns the number of records moved. */
uint64_t history_drain_ring(cv_history *h, const cv_ring *ring, cv_hist_cursor *c, const cv_hist_thread *desc);
/* Under the lock: appends a record the recorder made itself (not one of the ring's: an
 * OWNER_SAMPLE) to the thread's stream, right after the newest record drained from its ring, if
 * that is the begin record `begin_ts`/`begin_obj` (the block the record is about, still the
 * newest: no later record of the ring was drained) and no loss is pending. Returns 1 if
 * appended, 0 if not (the block ended, a loss, no memory). The ring's own records keep their
 * place: the caller drains the ring first, under the same lock. */
int history_append(cv_history *h, const cv_hist_thread *desc, cv_hist_cursor *c, uint64_t begin_ts,
                   uint64_t begin_obj, const cv_record *r);
/* Under the lock: writes the thread's 'T' entry into the current chunk now (its identity
 * changed: it ended, or its state is evicted), and sets c->desc_seq. */
void history_thread(cv_history *h, const cv_hist_thread *desc, cv_hist_cursor *c);
/* Under the lock: writes the records lost since the newest one kept as a loss ending at to_ns
 * (the thread's end: no record will follow them). */
void history_flush_loss(cv_history *h, const cv_hist_thread *desc, cv_hist_cursor *c, uint64_t to_ns);
/* Under the lock: sealed chunks whose newest record is older than now - max_age_ns go. */
void history_age(cv_history *h, uint64_t now_ns);
/* Under the lock: every chunk goes, and nothing is counted as aged (a reset). Pinned ones are
 * freed by their last unpin. The totals start again at now_ns. */
void history_clear(cv_history *h, uint64_t now_ns);

/* Under the lock: a copy of the totals (malloc'ed, *n entries; NULL if none or no memory). */
cv_total *history_totals_copy(const cv_history *h, size_t *n);

/* ---- The repository: each sealed chunk also as a file (history_files on) ----
 * Chunks are sealed when full (an append starts the next) or by history_seal (at exit). The
 * repository's writer, outside the lock, takes the next sealed chunk to write (pinned), writes its
 * file and reports the outcome. A written chunk's file outlives its aging out of memory (the
 * repository bounds its files itself, repository.c); a reset leaves the seqs of the written chunks
 * it drops in `doomed`, whose files the writer deletes. */
void history_files(cv_history *h, int on);
/* Under the lock: closes the current chunk to appends (the next append starts a new one). */
void history_seal(cv_history *h);
/* Under the lock: the oldest sealed chunk whose file is pending, pinned, with its bytes in *used;
 * NULL if none. */
cv_chunk *history_next_to_write(cv_history *h, uint32_t *used);
/* Takes the lock itself: the file of `c` was written (ok) or not; unpins it. */
void history_file_done(cv_history *h, cv_chunk *c, int ok);
/* Under the lock: moves up to cap seqs of files to delete into out; returns how many. */
size_t history_take_doomed(cv_history *h, uint64_t *out, size_t cap);

/* A snapshot's view: the chunks as they were, oldest first, each with its bytes. */
typedef struct {
    cv_chunk **chunks;
    uint32_t  *used;
    size_t     count;
} cv_hist_view;

/* Under the lock: closes the open run and pins every chunk. -1 if out of memory. */
int history_pin(cv_history *h, cv_hist_view *v);
/* Takes the lock itself. */
void history_unpin(cv_history *h, cv_hist_view *v);

/* Reading a chunk's entries. */
typedef struct {
    const uint8_t *p, *end;
    int            kind;      /* of the entry history_next returned */
    cv_hist_thread thread;    /* HIST_THREAD */
    uint64_t       ring_id;   /* HIST_RUN, HIST_LOSS */
    uint32_t       left;      /* HIST_RUN: records not yet read by history_record */
    uint64_t       prev_ts, prev_obj;
    uint64_t       from_ns, to_ns, records;  /* HIST_LOSS */
} cv_hist_reader;

void history_reader(cv_hist_reader *r, const uint8_t *data, uint32_t used);
/* The next entry's kind, 0 at the end, -1 if the bytes are not an entry (never happens with
 * bytes the history wrote). The records of a run are skipped if not read. */
int history_next(cv_hist_reader *r);
/* HIST_RUN: the next record; 0 when the run has none left, -1 if malformed. */
int history_record(cv_hist_reader *r, cv_record *out);

#endif
