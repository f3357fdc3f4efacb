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

int snapshot_encode(JNIEnv *jni, cv_buf *out, cv_error *err);

#endif
