/*
 * Address ranges to Java thread ids: which thread a raw owner word read from the VM names.
 * On HotSpot releases whose ObjectMonitor::_owner holds a pointer, that pointer is either
 * the owner's JavaThread (registered as a one-byte range) or a lock record on the owner's
 * stack (its stack is registered as a range). owners.c fills the map at thread start and
 * end; the monitor-enter callback looks an address up.
 *
 * Concurrency contract:
 *  - Writers (addrmap_add, addrmap_remove) are serialized by the caller (owners.c's lock);
 *    they never run on the event path.
 *  - Readers (addrmap_find) run on any thread at any time, take no lock, never allocate and
 *    never wait: a sequence counter tells them whether a writer changed the map while they
 *    read it; after a few such collisions they give up and answer "unknown" (0), which the
 *    caller records as an owner it does not know. A reader never returns a thread id that
 *    was not registered for that address at some moment during its call.
 *  - Every shared word is accessed atomically (arch.h), so readers racing writers read
 *    stale or fresh words, never torn ones; the sequence check discards mixed answers.
 *
 * Layout: open addressing over 1 MiB granules. A range is entered once per granule it
 * touches (a stack of 1 MiB touches two); entries of removed ranges become tombstones, and
 * the table is rebuilt from the writer's list of ranges when tombstones pile up.
 */
#ifndef CONVOY_ADDRMAP_H
#define CONVOY_ADDRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct cv_addrmap cv_addrmap;

/* A map of 2^slot_bits slots (at most a quarter of them ranges). NULL: out of memory. */
cv_addrmap *addrmap_create(unsigned slot_bits);
void addrmap_destroy(cv_addrmap *m);
size_t addrmap_memory(const cv_addrmap *m);
/* What a map of 2^slot_bits slots takes. */
size_t addrmap_bytes(unsigned slot_bits);

/* Adds [lo, hi) for `tid` (> 0). 0 done; -1 refused: empty or too large a range (over 64
 * granules), or the map is full. Ranges of different threads never overlap in a process;
 * the map does not check it. */
int addrmap_add(cv_addrmap *m, uint64_t lo, uint64_t hi, int64_t tid);
/* Removes every range of `tid`. */
void addrmap_remove(cv_addrmap *m, int64_t tid);
/* The thread whose range holds `addr`, or 0: none, or the map kept changing. */
int64_t addrmap_find(const cv_addrmap *m, uint64_t addr);
/* Writer side: whether `tid` has a range. */
int addrmap_has(const cv_addrmap *m, int64_t tid);
/* Ranges in the map (writer side), and the i-th of them (i < addrmap_ranges). */
uint32_t addrmap_ranges(const cv_addrmap *m);
void addrmap_range(const cv_addrmap *m, uint32_t i, uint64_t *lo, uint64_t *hi, int64_t *tid);

#endif
