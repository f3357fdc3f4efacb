/*
 * Test oracles, off the production path: each runs only behind a flag that an environment
 * variable of the tests sets at start (never a user option), checked with CV_UNLIKELY on the
 * event path, and each is compiled in its own file so that nothing of it is inlined into a
 * callback.
 *
 * Owner oracle (CONVOY_TEST_OWNER_ORACLE=1): with every other thread suspended, the owner read
 * from the VM (owners.h) again and the owner by GetObjectMonitorUsage, a VM operation, are taken
 * at one instant. Stack oracle (CONVOY_TEST_STACK_ORACLE=1, capture.h): the stack a cache hit
 * gave against GetStackTrace's.
 */
#ifndef CONVOY_ORACLES_H
#define CONVOY_ORACLES_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

#include "threads.h"

/* The enter's arg: the oracle's owner (Java thread id, -1 none, 0 no answer) when the second
 * read of the owner equals the recorded one (`flags`' FLAG_OWNER and `owner`), else -2: the owner
 * changed between the event and the check, so the recorded owner and the oracle's are not of
 * one instant. One oracle at a time: two threads suspending each other would never resume. */
int64_t oracle_owner(jvmtiEnv *jvmti, JNIEnv *jni, jobject object, uint8_t flags, int64_t owner);

/* The stack a cache hit gave (id `hit`) against GetStackTrace's, interned: same id, same frames
 * (capture_oracle_cached_result counts and reports a difference). */
void oracle_cached(jvmtiEnv *jvmti, JNIEnv *jni, cv_thread *t, jint skip, uint32_t depth, uint32_t hit);

#endif
