/*
 * The exact owner of a monitor at MonitorContendedEnter, read from the VM.
 *
 * JVMTI says nothing cheap about a monitor's owner (GetObjectMonitorUsage is a VM
 * operation). HotSpot describes its structures in its VMStructs tables (vmstructs.h); from
 * them owners_init() takes, and checks:
 *  - JavaThread::_current_pending_monitor: the ObjectMonitor the current thread is about to
 *    block on. HotSpot sets it, and counts the thread among the monitor's contenders (which
 *    keeps the monitor from being deflated and freed), before it posts the event;
 *  - ObjectMonitor::_object: the monitor's weak handle to its object, compared with the
 *    event's object before anything is believed;
 *  - ObjectMonitor::_owner: on JDK 24 and later (JEP 491) the owner's Java thread id, with
 *    the VM's constants for "no owner", "anonymous" (a lightweight-locked object inflated by
 *    a contender: the VM does not know the owner either until it exits) and "deflating";
 *    before, a pointer: the owner's JavaThread, or a lock record on the owner's stack
 *    (stack locking), which addrmap.h turns into a thread id.
 * The current JavaThread is the event's JNIEnv less a fixed offset, measured at start-up
 * from Thread.eetop and checked against JavaThread::_threadObj (and, where the VM has it,
 * JavaThread::_monitor_owner_id against Thread.tid).
 *
 * Any missing field, unexpected type or size, or failed check turns exact owners off with
 * one line on stderr; the recorder then records enters without an owner and the analysis
 * infers them. On the event path nothing is dereferenced but the current thread's own
 * JavaThread, the monitor it is blocked on and that monitor's handle slot; an object is
 * never dereferenced (it may be moving), only its handle slots are compared.
 */
#ifndef CONVOY_OWNERS_H
#define CONVOY_OWNERS_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

/* Start-up, on the thread that starts the agent. `enabled` 0: exact
 * owners off by option. The thread map takes at most memory_cap / 16. Never fails the agent: without a validated layout, exact owners
 * are off. */
void owners_init(jvmtiEnv *jvmti, JNIEnv *jni, int enabled, uint64_t memory_cap);
/* Start-up, once ThreadStart is enabled: registers the threads already running. */
void owners_register_running(jvmtiEnv *jvmti, JNIEnv *jni);
/* How owners are known, for the snapshot's INFO: "vm-thread-id", "vm-pointer", or
 * "inferred" followed by the reason. */
const char *owners_mode(void);
size_t owners_memory(void);

/* Event path, in MonitorContendedEnter on the entering thread. 1: exact, *owner is the
 * owner's Java thread id, or -1 when the monitor had no owner at the read. 0: not known. */
int owners_read(JNIEnv *jni, jobject object, int64_t *owner);

/* Registration of platform threads, needed where the owner word is a pointer (no-ops
 * otherwise). `current`: `thread` is the calling thread (its stack is registered too). */
int owners_need_threads(void);
void owners_thread_started(JNIEnv *jni, jthread thread, int64_t tid, int current);
void owners_thread_ended(int64_t tid);

#endif
