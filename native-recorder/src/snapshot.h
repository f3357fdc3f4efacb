/*
 * Snapshot encoder: copies every ring and table, concurrently with the application,
 * into the binary format of schema/snapshot-format.md. Runs on the calling Java thread
 * (in native state), stops no thread, takes the registry lock only to pin thread
 * states and the tag mutex only to read the object count.
 */
#ifndef CONVOY_SNAPSHOT_H
#define CONVOY_SNAPSHOT_H

#include <jni.h>

#include "buf.h"
#include "log.h"

/* `states` holds, for threads blocked or waiting on a monitor when the caller looked,
 * quadruples (Java thread id, MSTATE_*, identity hash of the monitor, owner's Java
 * thread id or -1): the Java side reads them from ThreadMXBean.getThreadInfo without
 * stack traces, which HotSpot serves without a safepoint. They fill SECTION_MONITORS. */
#include <stdint.h>
#include <stddef.h>
int snapshot_encode(JNIEnv *jni, const int64_t *states, size_t nstates, cv_buf *out, cv_error *err);

#endif
