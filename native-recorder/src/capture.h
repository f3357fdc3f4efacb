/*
 * Stack capture on the current thread, inside a JVMTI callback or a park probe's native.
 *
 * Two ways (option stacks=async|jvmti):
 *  - async: HotSpot's AsyncGetCallTrace (exported by libjvm, found with dlsym), called with a
 *    NULL ucontext. The thread is in native state with a walkable last Java frame (a JVMTI
 *    callback runs after the VM's transition to native; a JNI native method is in native), so
 *    AsyncGetCallTrace starts at the frame anchor and walks the thread's own stack without a
 *    transition into the VM: it never waits for a safepoint to end. It reports frames only for
 *    methods whose jmethodID exists: ClassPrepare makes them for every class (GetClassMethods),
 *    capture_start for the classes loaded before, and the fallback for any left (GetStackTrace
 *    makes the ids of the frames it returns). ClassLoad is enabled too: AsyncGetCallTrace
 *    refuses to walk without it.
 *  - jvmti: GetStackTrace, which transitions into the VM (and so waits out a safepoint).
 *
 * async falls back to GetStackTrace whenever it cannot be sure the frames are GetStackTrace's:
 * a negative num_frames (GC under way, deoptimization handler, frame not walkable), no frame at
 * all, a frame without a jmethodID, a Java frame without a bytecode index, a stack that ends
 * above the thread's bottom frame (capture_walk), and every virtual
 * thread (AsyncGetCallTrace walks the carrier's physical stack past the continuation). Each
 * kind of fallback is counted (INFO stacks.capture). One exception: a callback that holds the
 * monitor (MonitorWait) meeting a GC pause records no stack (counted as skipped.gc) rather
 * than keep every thread that waits for the monitor waiting for the pause too.
 *
 * Test oracle (CONVOY_TEST_STACK_ORACLE in the environment, never a user option): "1" makes
 * every async capture also call GetStackTrace and count equal and different captures; "force"
 * makes every capture take the fallback path (counted as forced). INFO stacks.oracle.
 */
#ifndef CONVOY_CAPTURE_H
#define CONVOY_CAPTURE_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "stackcache.h"
#include "stacks.h"

enum { CAPTURE_JVMTI = 0, CAPTURE_ASYNC = 1 };

/* Frames a capture buffer must hold beyond the stack depth: the one that tells a truncated
 * stack, and the probes' skipped frames (async walks them before dropping them). */
#define CAPTURE_SLACK 3

/* Before the events are enabled (live phase): resolves AsyncGetCallTrace for mode async.
 * Where it is absent, one line on stderr and GetStackTrace is used. Returns the mode used. */
int capture_init(JNIEnv *jni, jvmtiEnv *jvmti, int mode);
/* Mode async: whether ClassLoad and ClassPrepare must be enabled (capture_on_class_* set). */
int capture_async(void);
/* Mode async, after ClassPrepare is enabled: jmethodIDs for every class already loaded. */
void capture_preload(jvmtiEnv *jvmti, JNIEnv *jni);

void JNICALL capture_on_class_load(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass);
void JNICALL capture_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass);

/*
 * The current thread's stack, skipping `skip` (at most CAPTURE_SLACK - 1) frames at the top,
 * into `frames` (room for depth + CAPTURE_SLACK). Returns the frames captured, up to depth + 1
 * (more than depth: the stack is deeper), or 0 for none. `is_virtual`: the thread is virtual.
 * `holds_monitor` (MonitorWait, whose thread holds the monitor until the callback returns): a
 * GC pause under way skips the stack (counted) instead of waiting for it in GetStackTrace.
 * `bottom` (the thread's own, owner only; 0 at first, NULL for no check): the method of the
 * thread's bottom frame. An async stack of no more than `depth` frames claims to be the whole
 * stack; if its last frame is not the bottom, AsyncGetCallTrace stopped early and the capture
 * takes GetStackTrace (fallback.truncated). The bottom is read (GetStackTrace from the bottom)
 * at the thread's first such capture and taken again from every GetStackTrace capture that got
 * the whole stack: a thread attached through JNI may call into Java from different bottoms.
 */
int capture_walk(jvmtiEnv *jvmti, JNIEnv *jni, int is_virtual, int holds_monitor, jint skip, uint32_t depth,
                 cv_frame *frames, uint64_t *bottom);

/* Captures that took GetStackTrace (every reason) or were skipped, since start. */
uint64_t capture_fallbacks(void);

/*
 * The stack cache (stackcache.h, frames.h): on when `wanted` and this VM's frames can be read
 * (else off, the reason kept for INFO stacks.cache). A hit is a capture whose chain still holds;
 * after a miss, the stack interned is stored with the chain read then.
 */
int capture_cache_init(jvmtiEnv *jvmti, JNIEnv *jni, int wanted);
uint32_t capture_cache_find(cv_stack_cache *c, uint32_t skip);
void capture_cache_store(cv_stack_cache *c, JNIEnv *jni, uint32_t skip, uint32_t id);
/* Test oracle (CONVOY_TEST_STACK_ORACLE=1): whether captures are compared with GetStackTrace. On
 * a hit: GetStackTrace's frames into `frames` (their count; 0 for none or when the oracle is not
 * comparing); then the result of comparing their interned id with the hit's. */
int capture_oracle_compares(void);
int capture_oracle_cached(jvmtiEnv *jvmti, jint skip, uint32_t depth, cv_frame *frames);
void capture_oracle_cached_result(jvmtiEnv *jvmti, int equal, const cv_frame *frames, int n);
/* INFO stacks.cache: "on hits=... stored=... interpreted=read|refused refused.<why>=..." or "off: why". */
void capture_cache_describe(char *out, size_t cap);

/* INFO values: "mode=async walks=... fallback=..." and the oracle's tally (NULL when off). */
void capture_describe(char *out, size_t cap);
int capture_oracle_describe(char *out, size_t cap);

#endif
