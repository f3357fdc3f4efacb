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
 * The releaser at MonitorContendedEntered: the VM's ObjectMonitor::_previous_owner_tid, the
 * thread that last left the monitor through ObjectMonitor::exit, which JFR's JavaMonitorEnter
 * reports as previousOwner. HotSpot writes it only while a JFR recording enables that event, and
 * does not export it: it is the 8 bytes right after _owner in every release from 17 to 25, and
 * owners_init() takes it only on those releases, within the VM's size of ObjectMonitor, where no
 * exported field of ObjectMonitor lies. It is read only while armed (owners_releasers_arm: the
 * agent's Java side arms it while a JFR recording enables jdk.JavaMonitorEnter), only from the
 * monitor the thread blocked on at its recorded MonitorContendedEnter, after checking that the
 * monitor is still this object's and is owned by the current thread (which keeps it from being
 * deflated). The value is JFR's id of the thread: its Java thread id since JDK 19, a counter of
 * JFR's own on 17 and 18, mapped through JFR's jdk.jfr.internal.JVM.getThreadId at thread start.
 * The word goes stale whenever a release does not write it (compiled code's fast exit, an exit
 * while JFR has the event off, around a recording's start or stop): it is taken as the releaser
 * only when it changed since the monitor was last seen held (an owner read at some thread's
 * MonitorContendedEnter, or a thread's MonitorContendedEntered, all while armed), names the
 * thread seen holding it then, the read was armed throughout since this thread's own enter, and
 * no thread was taking the monitor back after Object.wait meanwhile (ObjectMonitor::_waiters at
 * the enter, MonitorWaited since; owners.c, "Sightings").
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
 * owner's Java thread id, or -1 when the monitor had no owner at the read. 0: not known.
 * *monitor: the ObjectMonitor the thread is blocked on, checked to be this object's (else 0),
 * for owners_releaser at the MonitorContendedEntered that ends this enter. */
int owners_read(JNIEnv *jni, jobject object, int64_t *owner, uintptr_t *monitor);

/* Event path, in MonitorContendedEntered of a thread (Java id `self`), with the monitor
 * owners_read gave at the MonitorContendedEnter this ends; records the acquisition as a sighting.
 * 1 (platform threads only): *releaser is the Java thread id of the thread the VM recorded as the
 * last to leave the monitor, checked to be current (owners.h, above). 0: not known (not armed, no
 * value, a value that may be stale, a thread JFR's id does not map to, or a failed check). */
int owners_releaser(JNIEnv *jni, jobject object, uintptr_t monitor, int64_t self, int is_virtual, int64_t *releaser);
/* Event path, in a MonitorContendedEntered whose monitor is not known (its enter was not
 * recorded, or its monitor not found): while armed, every releaser being read is inferred. */
void owners_untracked_acquisition(void);
/* Event path, in MonitorWaited: the thread is about to take the monitor back, which the VM
 * reports with no event; while armed, the releasers of that monitor being read are inferred (of
 * every monitor, when it cannot be found: a virtual thread). */
void owners_waited(JNIEnv *jni, jobject object);

/* From the agent's Java side: 1 arms the releaser read (a JFR recording enables
 * jdk.JavaMonitorEnter), 0 disarms it, -1 turns it off for good (option releasers=inferred).
 * Returns 1 armed, 0 not armed, -1 not available (see owners_releasers_mode). */
int owners_releasers_arm(jvmtiEnv *jvmti, JNIEnv *jni, int arm);
/* For the snapshot's INFO monitor.releasers: "vm" or "inferred: " and the reason. */
const char *owners_releasers_mode(void);

/* Registration of platform threads, needed where the owner word is a pointer (no-ops
 * otherwise). `current`: `thread` is the calling thread (its stack is registered too). */
int owners_need_threads(void);   /* also while releasers map JFR ids */
void owners_thread_started(JNIEnv *jni, jthread thread, int64_t tid, int current);
void owners_thread_ended(int64_t tid);

#endif
