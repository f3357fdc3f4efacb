#define _GNU_SOURCE
#include "owners.h"

#include "addrmap.h"
#include "arch.h"
#include "log.h"
#include "threads.h"
#include "vmstructs.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { MODE_OFF, MODE_POINTER, MODE_TID };

#define ADDRMAP_BITS 14

static struct {
    int mode;
    char reason[200];
    intptr_t env_offset;          /* JNIEnv* - JavaThread* */
    int64_t pending_off;          /* JavaThread::_current_pending_monitor */
    int64_t object_off;           /* ObjectMonitor::_object */
    int64_t owner_off;            /* ObjectMonitor::_owner */
    int64_t no_owner, anonymous, deflater;   /* MODE_TID constants */
    /* MODE_TID, for owners the VM calls anonymous (lightweight locking): the lock stacks of
     * the registered threads. 0: not available. */
    int64_t lock_stack_off;       /* JavaThread::_lock_stack */
    int64_t lock_top_off;         /* LockStack::_top: offset of the top entry from the JavaThread */
    int64_t lock_base_off;        /* LockStack::_base[0] */
    int64_t owner_id_off;         /* JavaThread::_monitor_owner_id */
    uint64_t jt_size;
    cv_addrmap *map;              /* MODE_POINTER */
    pthread_rwlock_t lock;        /* writers of map: write; lock-stack scans: read, without waiting */
} ow = {.lock = PTHREAD_RWLOCK_INITIALIZER};

static void turn_off(const char *why) {
    ow.mode = MODE_OFF;
    snprintf(ow.reason, sizeof(ow.reason), "inferred: %s", why);
}

static int field(const char *type, const char *name, int64_t *off, const char **ts, uint64_t limit,
                 const char **why) {
    static char msg[160];
    if (vmstructs_field(type, name, off, ts) != 0) {
        snprintf(msg, sizeof(msg), "this JVM's VMStructs have no %s::%s", type, name);
        *why = msg;
        return -1;
    }
    if (*off < 0 || (uint64_t)*off + 8 > limit || (*off & 7) != 0) {
        snprintf(msg, sizeof(msg), "%s::%s has an unexpected offset %lld", type, name, (long long)*off);
        *why = msg;
        return -1;
    }
    return 0;
}

static int aligned(uintptr_t p) {
    return p != 0 && (p & 7) == 0;
}

static uintptr_t word(uintptr_t p) {
    return load_relaxed((const uintptr_t *)p);
}

/* The thread's JavaThread, from Thread.eetop (0: none, as for a virtual thread). */
static jfieldID eetop_field;
static jfieldID tid_field;   /* Thread.tid, for the start-up check (owners_init runs before threads_init) */

static uintptr_t java_thread_of(JNIEnv *jni, jthread thread) {
    if (!eetop_field || !thread) return 0;
    return (uintptr_t)(*jni)->GetLongField(jni, thread, eetop_field);
}

/* The lock stack of the current thread, checked: empty or within its JavaThread. */
static void lock_stacks(uintptr_t jt, uint64_t jt_size, int64_t owner_id_off) {
    int64_t ls, top, base;
    const char *ts, *why;
    if (field("JavaThread", "_lock_stack", &ls, &ts, jt_size, &why) ||
        vmstructs_field("LockStack", "_top", &top, &ts) || !ts || strcmp(ts, "uint32_t") != 0 ||
        vmstructs_field("LockStack", "_base[0]", &base, &ts) || !ts || strcmp(ts, "oop") != 0 ||
        top < 0 || base <= 0 || (uint64_t)(ls + base) + 8 > jt_size) {
        return;
    }
    uint32_t t = (uint32_t)load_relaxed((const uint32_t *)(jt + (uint64_t)(ls + top)));
    if (t < (uint64_t)(ls + base) || t > jt_size || (t - (uint64_t)(ls + base)) % 8 != 0) return;
    ow.lock_stack_off = ls;
    ow.lock_top_off = top;
    ow.lock_base_off = base;
    ow.owner_id_off = owner_id_off;
    ow.jt_size = jt_size;
}

static int layout(jvmtiEnv *jvmti, JNIEnv *jni, const char **why) {
    if (vmstructs_open(jni, why) != 0) return -1;
    uint64_t jt_size = 0, om_size = 0;
    if (vmstructs_type_size("JavaThread", &jt_size) || vmstructs_type_size("ObjectMonitor", &om_size) ||
        jt_size < 64 || jt_size > (1u << 20) || om_size < 16 || om_size > 4096) {
        *why = "this JVM's VMStructs do not give the sizes of JavaThread and ObjectMonitor";
        return -1;
    }
    const char *ts = NULL;
    int64_t thread_obj_off;
    if (field("JavaThread", "_current_pending_monitor", &ow.pending_off, &ts, jt_size, why)) return -1;
    if (!ts || strcmp(ts, "ObjectMonitor*") != 0) {
        *why = "JavaThread::_current_pending_monitor is not an ObjectMonitor*";
        return -1;
    }
    if (field("JavaThread", "_threadObj", &thread_obj_off, &ts, jt_size, why)) return -1;
    if (field("ObjectMonitor", "_object", &ow.object_off, &ts, om_size, why)) return -1;
    if (field("ObjectMonitor", "_owner", &ow.owner_off, &ts, om_size, why)) return -1;
    int tid_mode = ts != NULL && strcmp(ts, "int64_t") == 0;
    if (tid_mode) {
        if (vmstructs_long_constant("ObjectMonitor::NO_OWNER", &ow.no_owner) ||
            vmstructs_long_constant("ObjectMonitor::ANONYMOUS_OWNER", &ow.anonymous) ||
            vmstructs_long_constant("ObjectMonitor::DEFLATER_MARKER", &ow.deflater)) {
            *why = "ObjectMonitor::_owner is a thread id but the VM does not export its marker values";
            return -1;
        }
    } else if (ts != NULL && strcmp(ts, "void*") != 0 && strcmp(ts, "address") != 0) {
        *why = "ObjectMonitor::_owner has a type this recorder does not know";
        return -1;
    }

    /* The current JavaThread: Thread.eetop, which must sit a fixed distance below the JNIEnv
     * and point back to this Thread through _threadObj. */
    jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");
    if (tc) eetop_field = (*jni)->GetFieldID(jni, tc, "eetop", "J");
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    if (tc) tid_field = (*jni)->GetFieldID(jni, tc, "tid", "J");
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    if (tc) (*jni)->DeleteLocalRef(jni, tc);
    if (!eetop_field) {
        *why = "java.lang.Thread has no field eetop";
        return -1;
    }
    jthread self = NULL;
    if ((*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE || !self) {
        *why = "GetCurrentThread failed";
        return -1;
    }
    uintptr_t jt = java_thread_of(jni, self);
    intptr_t env_offset = (intptr_t)((uintptr_t)jni - jt);
    int ok = aligned(jt) && env_offset > 0 && (uint64_t)env_offset < jt_size;
    if (ok) {
        /* The Thread object may move between the two reads: a few tries. */
        uintptr_t handle = (uintptr_t)self & ~(uintptr_t)3;
        ok = 0;
        for (int i = 0; i < 3 && !ok; i++) {
            uintptr_t slot = word(jt + (uint64_t)thread_obj_off);
            ok = aligned(slot) && word(slot) != 0 && word(slot) == word(handle);
        }
    }
    if (ok && tid_mode) {
        int64_t owner_id_off;
        if (vmstructs_field("JavaThread", "_monitor_owner_id", &owner_id_off, &ts) == 0) {
            int64_t tid = tid_field ? (int64_t)(*jni)->GetLongField(jni, self, tid_field) : 0;
            ok = owner_id_off > 0 && (uint64_t)owner_id_off + 8 <= jt_size && tid > 0 &&
                 (int64_t)word(jt + (uint64_t)owner_id_off) == tid;
            if (ok) lock_stacks(jt, jt_size, owner_id_off);
        }
    }
    (*jni)->DeleteLocalRef(jni, self);
    if (!ok) {
        *why = "the current JavaThread could not be located and checked (Thread.eetop, _threadObj)";
        return -1;
    }
    ow.env_offset = env_offset;
    ow.mode = tid_mode ? MODE_TID : MODE_POINTER;
    return 0;
}

void owners_init(jvmtiEnv *jvmti, JNIEnv *jni, int enabled, uint64_t memory_cap) {
    if (!enabled) {
        turn_off("off by option");
        return;
    }
    const char *why = NULL;
    if (layout(jvmti, jni, &why) != 0) {
        turn_off(why);
        cv_log_warn("monitor owners are inferred, not read from the VM: %s", why);
        return;
    }
    if (ow.mode == MODE_POINTER || ow.lock_stack_off) {
        /* At most a sixteenth of the cap: 2^14 slots (about 4,000 threads) from 16 MiB up. */
        unsigned bits = ADDRMAP_BITS;
        while (bits > 8 && addrmap_bytes(bits) > memory_cap / 16) bits--;
        ow.map = addrmap_create(bits);
        if (!ow.map) {
            turn_off("out of memory");
            cv_log_warn("monitor owners are inferred, not read from the VM: out of memory");
            return;
        }
    }
    snprintf(ow.reason, sizeof(ow.reason), "%s", ow.mode == MODE_TID ? "vm-thread-id" : "vm-pointer");
}

void owners_register_running(jvmtiEnv *jvmti, JNIEnv *jni) {
    if (!ow.map) return;
    jint n = 0;
    jthread *all = NULL;
    jthread self = NULL;
    if ((*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE) self = NULL;
    jvmtiError e = (*jvmti)->GetAllThreads(jvmti, &n, &all);
    if (e != JVMTI_ERROR_NONE) {
        cv_log_warn("GetAllThreads failed: %s; owners among running threads are known from their first event",
                    cv_jvmti_error_name(e));
        n = 0;
    }
    for (jint i = 0; i < n; i++) {
        int current = self && (*jni)->IsSameObject(jni, all[i], self);
        owners_thread_started(jni, all[i], threads_tid_field(jni, all[i]), current);
        (*jni)->DeleteLocalRef(jni, all[i]);
    }
    if (all) (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
    if (self) (*jni)->DeleteLocalRef(jni, self);
}

const char *owners_mode(void) {
    return ow.reason[0] ? ow.reason : "inferred: not started";
}

size_t owners_memory(void) {
    return ow.map ? addrmap_memory(ow.map) : 0;
}

int owners_need_threads(void) {
    return ow.map != NULL;
}

void owners_thread_started(JNIEnv *jni, jthread thread, int64_t tid, int current) {
    if (!ow.map || tid <= 0) return;
    /* Lock stacks are read only from threads that registered themselves: such a thread's
     * ThreadEnd is still to come, and waits for ow.lock to unregister it. */
    if (ow.mode == MODE_TID && !current) return;
    uintptr_t jt = java_thread_of(jni, thread);
    if (!aligned(jt)) return;   /* a virtual thread, or not started */
    uint64_t lo = 0, hi = 0;
    if (current) {
        pthread_attr_t attr;
        void *addr = NULL;
        size_t size = 0;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
                lo = (uint64_t)(uintptr_t)addr;
                hi = lo + size;
            }
            pthread_attr_destroy(&attr);
        }
    }
    pthread_rwlock_wrlock(&ow.lock);
    /* Another thread's call (start-up enumeration) knows no stack: it never replaces what
     * the thread registered itself. */
    if (current || !addrmap_has(ow.map, tid)) {
        addrmap_remove(ow.map, tid);
        addrmap_add(ow.map, jt, jt + 1, tid);
        if (hi > lo) addrmap_add(ow.map, lo, hi, tid);
    }
    pthread_rwlock_unlock(&ow.lock);
}

void owners_thread_ended(int64_t tid) {
    if (!ow.map || tid <= 0) return;
    pthread_rwlock_wrlock(&ow.lock);
    addrmap_remove(ow.map, tid);
    pthread_rwlock_unlock(&ow.lock);
}

#define MAX_SCANNED 1024

/*
 * An anonymous owner holds the object on its lock stack: the registered thread whose lock
 * stack holds `ref` is the owner (an inflated object is never fast-locked by another
 * thread). Only under ow.lock's read side, taken without waiting: while a thread registers
 * or unregisters, the owner stays unknown. The JavaThreads read are those of registered threads, which cannot
 * be freed while ow.lock is held (owners_thread_started).
 */
static int anonymous_owner(uintptr_t ref, int64_t *owner) {
    if (!ow.lock_stack_off || pthread_rwlock_tryrdlock(&ow.lock) != 0) return 0;
    int64_t found = 0;
    int many = 0;
    uint32_t n = addrmap_ranges(ow.map);
    if (n > MAX_SCANNED) n = 0;
    uint64_t base = (uint64_t)(ow.lock_stack_off + ow.lock_base_off);
    for (uint32_t i = 0; i < n && !many; i++) {
        uint64_t lo, hi;
        addrmap_range(ow.map, i, &lo, &hi, NULL);
        if (hi != lo + 1) continue;
        uintptr_t jt = (uintptr_t)lo;
        uint32_t top = (uint32_t)load_relaxed((const uint32_t *)(jt + (uint64_t)(ow.lock_stack_off + ow.lock_top_off)));
        if (top < base || top > ow.jt_size) continue;
        for (uint64_t at = base; at < top; at += 8) {
            if (word(jt + at) == ref) {
                int64_t id = (int64_t)word(jt + (uint64_t)ow.owner_id_off);
                if (found && found != id) many = 1;
                found = id;
                break;
            }
        }
    }
    pthread_rwlock_unlock(&ow.lock);
    if (many || found <= 0) return 0;
    *owner = found;
    return 1;
}

int owners_read(JNIEnv *jni, jobject object, int64_t *owner) {
    if (ow.mode == MODE_OFF || !object) return 0;
    uintptr_t jt = (uintptr_t)jni - (uintptr_t)ow.env_offset;
    uintptr_t mon = word(jt + (uint64_t)ow.pending_off);
    if (!aligned(mon)) return 0;
    /* The monitor must be this object's: its weak handle and the event's local handle
     * must hold the same reference (a GC moving the object in between gives "unknown"). */
    uintptr_t weak = word(mon + (uint64_t)ow.object_off);
    uintptr_t local = (uintptr_t)object & ~(uintptr_t)3;
    if (!aligned(weak) || !aligned(local)) return 0;
    uintptr_t ref = word(weak);
    if (ref == 0 || ref != word(local)) return 0;
    int64_t v = (int64_t)word(mon + (uint64_t)ow.owner_off);
    if (ow.mode == MODE_TID) {
        if (v == ow.no_owner) {
            *owner = -1;
            return 1;
        }
        if (v == ow.anonymous) return anonymous_owner(ref, owner);
        if (v == ow.deflater || v <= 0) return 0;
        *owner = v;
        return 1;
    }
    if (v == 0) {
        *owner = -1;
        return 1;
    }
    int64_t tid = addrmap_find(ow.map, (uint64_t)v);
    if (tid <= 0) return 0;
    *owner = tid;
    return 1;
}
