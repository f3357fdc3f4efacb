/*
 * The owner's side of a long block (option ownerstacks): a thread of the recorder's own, the
 * JVMTI agent thread "Convoy owner stacks", sleeps until the history's drain, at one of its passes,
 * finds a thread whose newest record kept is a block older than the threshold and not yet sampled
 * (threads_owner_watch: the drain's cursor says so, at no cost but a comparison per thread), or
 * for a second (the drain may not run), at most once a millisecond. Then it reads every
 * live thread's newest record (threads_blocks, under registry_lock: no VM call). A thread whose newest
 * record is a contended MONITOR_ENTER, or a PARK that acquires a lock (FLAG_LOCK), older than the
 * threshold, gets one sample per block, oldest blocks first, at most CV_OWNER_RATE a second (a
 * token bucket; a due block left without a token is tried again at the next look). A sample:
 *
 *  - the owner: of a monitor, the newest exact owner the recording has for it (ownerside.h); of a
 *    java.util.concurrent lock, its AbstractOwnableSynchronizer.exclusiveOwnerThread read now
 *    (JNI GetObjectField on the lock, through objects_local_ref);
 *  - the owner's state: GetThreadState (reads the thread's status, no handshake), and what it is
 *    itself blocked on, waiting on or parked on: the object of its own newest record when that
 *    record agrees with the state;
 *  - the owner's stack: GetStackTrace of the owner, a handshake with the owner alone (HotSpot 17
 *    and 25: JvmtiEnv::GetStackTrace runs a GetStackTraceClosure through Handshake::execute, or
 *    JvmtiHandshake::execute, on the target thread only);
 *  - of a monitor, the frame of that stack that holds it (ownerside.h, "Holding frame"): per
 *    frame GetMethodModifiers, GetMethodDeclaringClass and GetBytecodes (cached per method), none
 *    of them a handshake or a safepoint. A monitor whose supposed owner has no frame that can
 *    hold it is not sampled (`notheld`): that thread let it go. A java.util.concurrent lock has
 *    no holding frame: an AbstractQueuedSynchronizer keeps its owner and a count, never where it
 *    was acquired.
 *
 * The sample becomes an OWNER_SAMPLE record in the blocked thread's stream of the history,
 * appended right after the block's begin record by threads_append_sample (under the drain's
 * lock, after draining the ring: the history is written by one thread at a time and the ring,
 * single-writer, is never touched) if the block is still the thread's newest record. Nothing of
 * this runs on the event path: the callbacks and probes are unchanged, and the blocked thread is
 * not asked anything (its state is read from its ring).
 *
 * Every JVMTI and JNI return is checked: a failure skips the sample and is counted (INFO
 * owners.samples). The sampler allocates (its buffers once, the method cache as it goes: at most
 * CV_SAMPLER_CACHE methods), never on the event path.
 */
#ifndef CONVOY_SAMPLER_H
#define CONVOY_SAMPLER_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#include "stacks.h"

#define CV_SAMPLER_CACHE 512

/* Before the thread starts (agent_start): 0, or -1 with the reason set (sampler_off). */
int sampler_init(jvmtiEnv *jvmti, JNIEnv *jni, uint64_t threshold_ns, uint32_t stack_depth, cv_stacks *stacks,
                 int have_bytecodes);
/* The agent thread's body; until VMDeath. */
void JNICALL sampler_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg);
/* The sampler is off, and why (a static string); the INFO key says so. */
void sampler_off(const char *reason);
/* The drain's signal that a block is due (threads_owner_watch); VMDeath's too. */
void sampler_wake(void);
/* INFO owners.samples: "threshold=... rate=.../s taken=N ..." or "off: REASON". */
void sampler_info(char *buf, size_t cap);

#endif
