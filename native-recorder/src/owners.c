#define _GNU_SOURCE
#include "owners.h"

#include "addrmap.h"
#include "arch.h"
#include "log.h"
#include "threads.h"
#include "vmstructs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The releaser read (owners.h). */
enum { REL_OFF, REL_IDLE, REL_ARMED };

static struct {
    int state;                    /* REL_*: REL_OFF until the layout is checked */
    int64_t prev_off;             /* ObjectMonitor::_previous_owner_tid */
    int identity;                 /* JFR's thread ids are Java thread ids (checked when armed) */
    int checked;                  /* identity has been decided */
    cv_addrmap *ids;              /* otherwise: JFR id -> Java thread id (id_key), under ow.lock */
    int64_t ended[256];           /* the last threads that ended, still mapped: a thread may let a */
    uint32_t ended_count;         /* monitor go just before it ends; under ow.lock */
    jclass jvm_class;             /* jdk.jfr.internal.JVM, a global reference */
    jobject jvm;                  /* its instance where getThreadId is not static */
    jmethodID thread_id;          /* JVM.getThreadId(Thread) */
    long feature;                 /* the release (java.vm.specification.version) */
    char reason[200];
} rel = {.reason = "inferred: exact owners are off"};

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
    if (field("JavaThread", "_current_pending_monitor", &ow.pending_off, &ts, jt_size, why)) return -1;
    if (!ts || strcmp(ts, "ObjectMonitor*") != 0) {
        *why = "JavaThread::_current_pending_monitor is not an ObjectMonitor*";
        return -1;
    }
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

    rel.prev_off = ow.owner_off + 8;
    if ((uint64_t)rel.prev_off + 8 > om_size) rel.prev_off = 0;

    /* Thread.eetop for other threads' JavaThreads; the current one is checked by vmstructs. */
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
    uintptr_t jt = 0;
    intptr_t env_offset = 0;
    if (vmstructs_current_thread(jvmti, jni, &jt, &env_offset, why) != 0) return -1;
    int ok = 1;
    jthread self = NULL;
    if ((*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE || !self) {
        *why = "GetCurrentThread failed";
        return -1;
    }
    if (tid_mode) {
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

/* The exported fields of ObjectMonitor in the releases 17 to 25 other than _owner: none may lie on
 * the 8 bytes taken for _previous_owner_tid. */
static const char *const monitor_fields[] = {
    "_header", "_metadata", "_object", "_next_om", "_recursions", "_EntryList", "_entry_list",
    "_entry_list_tail", "_cxq", "_succ", "_Responsible", "_contentions", "_waiters", "_WaitSet", "_wait_set",
    "_stack_locker", NULL};

/* 0: _previous_owner_tid is taken; else why not. */
static const char *releaser_layout(jvmtiEnv *jvmti) {
    if (rel.prev_off <= 0) return "ObjectMonitor is too small to hold _previous_owner_tid after _owner";
    for (int i = 0; monitor_fields[i]; i++) {
        int64_t off;
        const char *ts;
        if (vmstructs_field("ObjectMonitor", monitor_fields[i], &off, &ts) == 0 && off < rel.prev_off + 8 &&
            off + 8 > rel.prev_off) {
            return "an exported ObjectMonitor field lies where _previous_owner_tid is expected";
        }
    }
    char *v = NULL;
    long feature = 0;
    if ((*jvmti)->GetSystemProperty(jvmti, "java.vm.specification.version", &v) == JVMTI_ERROR_NONE && v) {
        feature = strtol(v, NULL, 10);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)v);
    }
    rel.feature = feature;
    if (feature < 17 || feature > 25) return "ObjectMonitor::_previous_owner_tid is known on JDK 17 to 25 only";
    return NULL;
}

/* Slots of a thread map: at most a sixteenth of the cap, 2^14 (about 4,000 threads) from 16 MiB up. */
static unsigned map_bits(uint64_t memory_cap) {
    unsigned bits = ADDRMAP_BITS;
    while (bits > 8 && addrmap_bytes(bits) > memory_cap / 16) bits--;
    return bits;
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
        ow.map = addrmap_create(map_bits(memory_cap));
        if (!ow.map) {
            turn_off("out of memory");
            cv_log_warn("monitor owners are inferred, not read from the VM: out of memory");
            return;
        }
    }
    snprintf(ow.reason, sizeof(ow.reason), "%s", ow.mode == MODE_TID ? "vm-thread-id" : "vm-pointer");
    const char *no = releaser_layout(jvmti);
    if (no) {
        snprintf(rel.reason, sizeof(rel.reason), "inferred: %s", no);
    } else {
        /* Before JDK 19, JFR numbers threads itself: a map of its ids, as large as the owners' one. */
        if (rel.feature < 19) rel.ids = addrmap_create(map_bits(memory_cap));
        rel.state = REL_IDLE;
        snprintf(rel.reason, sizeof(rel.reason), "vm");
    }
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
    return (ow.map ? addrmap_memory(ow.map) : 0) + (rel.ids ? addrmap_memory(rel.ids) : 0);
}

int owners_need_threads(void) {
    return ow.map != NULL || (load_acquire(&rel.checked) && !rel.identity);
}

const char *owners_releasers_mode(void) {
    return rel.reason;
}

/* JFR's id of a thread (0: none, or JFR's class did not answer). */
static int64_t jfr_id(JNIEnv *jni, jthread thread) {
    if (!rel.thread_id || !thread) return 0;
    jlong id = rel.jvm ? (*jni)->CallLongMethod(jni, rel.jvm, rel.thread_id, thread)
                       : (*jni)->CallStaticLongMethod(jni, rel.jvm_class, rel.thread_id, thread);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return 0;
    }
    return id;
}

/* jdk.jfr.internal.JVM.getThreadId: static since JDK 22, an instance method before. */
static int find_jfr(JNIEnv *jni) {
    jclass c = (*jni)->FindClass(jni, "jdk/jfr/internal/JVM");
    if (!c) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    rel.jvm_class = (jclass)(*jni)->NewGlobalRef(jni, c);
    (*jni)->DeleteLocalRef(jni, c);
    if (!rel.jvm_class) return -1;
    jmethodID m = (*jni)->GetStaticMethodID(jni, rel.jvm_class, "getThreadId", "(Ljava/lang/Thread;)J");
    if (m) {
        rel.thread_id = m;
        return 0;
    }
    (*jni)->ExceptionClear(jni);
    jmethodID get = (*jni)->GetStaticMethodID(jni, rel.jvm_class, "getJVM", "()Ljdk/jfr/internal/JVM;");
    m = get ? (*jni)->GetMethodID(jni, rel.jvm_class, "getThreadId", "(Ljava/lang/Thread;)J") : NULL;
    jobject jvm = m ? (*jni)->CallStaticObjectMethod(jni, rel.jvm_class, get) : NULL;
    if ((*jni)->ExceptionCheck(jni) || !jvm) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    rel.jvm = (*jni)->NewGlobalRef(jni, jvm);
    (*jni)->DeleteLocalRef(jni, jvm);
    rel.thread_id = rel.jvm ? m : NULL;
    return rel.thread_id ? 0 : -1;
}

/* A JFR id as a key of the address map, which files ranges by 1 MiB granule: one id per granule. */
#define MAX_JFR_ID ((int64_t)1 << 40)

static uint64_t id_key(int64_t id) {
    return (uint64_t)id << 20;
}

static void map_jfr_id(JNIEnv *jni, jthread thread, int64_t tid) {
    int64_t id = jfr_id(jni, thread);
    if (id <= 0 || id >= MAX_JFR_ID || tid <= 0) return;
    pthread_rwlock_wrlock(&ow.lock);
    addrmap_remove(rel.ids, tid);
    addrmap_add(rel.ids, id_key(id), id_key(id) + 1, tid);
    pthread_rwlock_unlock(&ow.lock);
}

/* The first arming decides whether JFR's ids are Java ids: they are if they are for every
 * platform thread running; otherwise every running thread is mapped, and each thread that starts
 * later maps itself (owners_thread_started). */
static int check_ids(jvmtiEnv *jvmti, JNIEnv *jni) {
    if (find_jfr(jni) != 0) {
        snprintf(rel.reason, sizeof(rel.reason), "inferred: JFR's thread ids cannot be read (jdk.jfr.internal.JVM)");
        return -1;
    }
    jint n = 0;
    jthread *all = NULL;
    if ((*jvmti)->GetAllThreads(jvmti, &n, &all) != JVMTI_ERROR_NONE) {
        snprintf(rel.reason, sizeof(rel.reason), "inferred: GetAllThreads failed");
        return -1;
    }
    int same = 1, any = 0, ok = 1;
    for (jint i = 0; i < n; i++) {
        int64_t id = jfr_id(jni, all[i]), tid = threads_tid_field(jni, all[i]);
        if (id > 0 && tid > 0) {
            any = 1;
            if (id != tid) same = 0;
        }
    }
    rel.identity = same && any;
    if (!rel.identity) {
        if (!rel.ids) {   /* not made (JDK 19+, where they should be the same), or out of memory */
            snprintf(rel.reason, sizeof(rel.reason), "%s",
                     rel.feature < 19 ? "inferred: out of memory"
                                      : "inferred: JFR's thread ids are not the Java thread ids on this JVM");
            ok = 0;
        } else {
            store_release(&rel.checked, 1);   /* threads starting from now on map themselves */
            for (jint i = 0; i < n; i++) map_jfr_id(jni, all[i], threads_tid_field(jni, all[i]));
        }
    }
    for (jint i = 0; i < n; i++) (*jni)->DeleteLocalRef(jni, all[i]);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
    if (!ok) return -1;
    store_release(&rel.checked, 1);
    return 0;
}

int owners_releasers_arm(jvmtiEnv *jvmti, JNIEnv *jni, int arm) {
    static pthread_mutex_t arming = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&arming);
    int state = load_relaxed(&rel.state);
    if (arm < 0 && state != REL_OFF) {
        store_relaxed(&rel.state, REL_OFF);
        snprintf(rel.reason, sizeof(rel.reason), "inferred: off by option");
    } else if (arm > 0 && state == REL_IDLE) {
        if (rel.checked || check_ids(jvmti, jni) == 0) {
            store_release(&rel.state, REL_ARMED);
        } else {
            store_relaxed(&rel.state, REL_OFF);
            cv_log_warn("monitor releasers are inferred, not read from the VM: %s", rel.reason + strlen("inferred: "));
        }
    } else if (arm == 0 && state == REL_ARMED) {
        store_relaxed(&rel.state, REL_IDLE);
    }
    state = load_relaxed(&rel.state);
    pthread_mutex_unlock(&arming);
    return state == REL_ARMED ? 1 : state == REL_IDLE ? 0 : -1;
}

void owners_thread_started(JNIEnv *jni, jthread thread, int64_t tid, int current) {
    if (current && load_acquire(&rel.checked) && !rel.identity && tid > 0) map_jfr_id(jni, thread, tid);
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
    if (tid <= 0 || (!ow.map && !rel.ids)) return;
    pthread_rwlock_wrlock(&ow.lock);
    if (ow.map) addrmap_remove(ow.map, tid);
    if (rel.ids) {
        /* Kept until 256 more threads have ended: the last releaser of a monitor may end
         * before the thread it released the monitor to records its MonitorContendedEntered. */
        uint32_t n = sizeof(rel.ended) / sizeof(rel.ended[0]);
        uint32_t slot = rel.ended_count++ % n;
        if (rel.ended_count > n) addrmap_remove(rel.ids, rel.ended[slot]);
        rel.ended[slot] = tid;
    }
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
            if (vmstructs_local_ref(word(jt + at)) == ref) {
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

/* The object `mon` belongs to, if it is the event's object (0 otherwise): the monitor's weak
 * handle and the event's local handle must hold the same reference, each read as the collector
 * stores it there (vmstructs.h: under ZGC the weak handle's is coloured), as a value
 * vmstructs_local_ref gives; a GC moving the object in between, or a weak handle the GC has not
 * updated yet, gives "not this object". `mon` must be a monitor that cannot be freed meanwhile. */
static uintptr_t monitor_of(uintptr_t mon, jobject object) {
    uintptr_t weak = word(mon + (uint64_t)ow.object_off);
    uintptr_t local = (uintptr_t)object & ~(uintptr_t)3;
    if (!aligned(weak) || !aligned(local)) return 0;
    uintptr_t ref = vmstructs_local_ref(word(local));
    return ref != 0 && vmstructs_root_ref(word(weak)) == ref ? ref : 0;
}

int owners_releaser(JNIEnv *jni, jobject object, uintptr_t mon, int64_t self, int64_t *releaser) {
    if (load_acquire(&rel.state) != REL_ARMED || !aligned(mon) || !object || self <= 0) return 0;
    /* The thread blocked on `mon` at its enter and has been counted among its contenders since,
     * until it got it: the monitor is alive, and owned by this thread. */
    if (!monitor_of(mon, object)) return 0;
    int64_t v = (int64_t)word(mon + (uint64_t)ow.owner_off);
    uintptr_t jt = (uintptr_t)jni - (uintptr_t)ow.env_offset;
    if (ow.mode == MODE_TID ? v != self : (uintptr_t)v != jt) return 0;
    int64_t prev = (int64_t)word(mon + (uint64_t)rel.prev_off);
    if (prev <= 0) return 0;
    if (!rel.identity) {
        prev = prev < MAX_JFR_ID ? addrmap_find(rel.ids, id_key(prev)) : 0;
        if (prev <= 0) return 0;
    }
    *releaser = prev;
    return 1;
}

int owners_read(JNIEnv *jni, jobject object, int64_t *owner, uintptr_t *monitor) {
    *monitor = 0;
    if (ow.mode == MODE_OFF || !object) return 0;
    uintptr_t jt = (uintptr_t)jni - (uintptr_t)ow.env_offset;
    uintptr_t mon = word(jt + (uint64_t)ow.pending_off);
    if (!aligned(mon)) return 0;
    uintptr_t ref = monitor_of(mon, object);
    if (!ref) return 0;
    *monitor = mon;
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
