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

/*
 * Sightings of monitors while armed: whoever was seen to hold a monitor (its owner read at a
 * thread's MonitorContendedEnter, or the thread itself at its MonitorContendedEntered) and the
 * VM's _previous_owner_tid word at that moment, latest per monitor, in a small table by
 * monitor address. A releaser is exact only when the word has changed since the latest sighting
 * and names the holder of that sighting (owners_releaser). Every sighting bumps its slot's
 * version, lock-free; its details are written under the slot's flag, taken without waiting, and
 * read as the latest only when their version is the slot's. A slot shared by two monitors, a
 * sighting whose details could not be written, or a reader that finds the flag held gives
 * "unknown": an inferred releaser, never a wrong exact one.
 */
#define SIGHT_SLOTS 1024

typedef struct {
    uint64_t version;             /* sightings in this slot, all monitors */
    uint64_t tag;                 /* the version the details below are of */
    uintptr_t monitor;
    int64_t holder;               /* Java thread id (0: not known, -1: no owner) */
    int64_t word;                 /* _previous_owner_tid at the sighting */
    uint64_t waited;              /* MonitorWaited in this slot, all monitors: a waiter that takes */
    int busy;                     /* the monitor back is seen by nobody; the details are being */
    int pad;                      /* written or read */
} sight_slot;

static sight_slot *sights;        /* SIGHT_SLOTS, once the releaser layout is checked */
static uint64_t untracked;        /* acquisitions of monitors not known: each makes every open read inferred */

/* The entering thread's own sighting, from its MonitorContendedEnter to its MonitorContendedEntered
 * (the same OS thread: platform threads only read a releaser). */
static __thread struct {
    uintptr_t monitor;            /* 0: none (not armed, or not read) */
    uint64_t version;             /* the slot's version its sighting made */
    int64_t holder, word;
    uint32_t epoch;               /* rel.epoch at the sighting */
    uint64_t untracked;           /* the untracked count then */
    uint64_t waited;              /* the slot's MonitorWaited count then */
    int32_t waiters;              /* ObjectMonitor::_waiters then */
} mine;

static struct {
    int state;                    /* REL_*: REL_OFF until the layout is checked */
    uint32_t epoch;               /* bumped at every arming and disarming */
    int64_t waiters_off;          /* ObjectMonitor::_waiters: threads waiting or taking the monitor back */
    int64_t waiting_off;          /* JavaThread::_current_waiting_monitor (0: not exported) */
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
    int64_t off;
    const char *ts = NULL;
    uint64_t om_size = 0, jt_size = 0;
    if (vmstructs_type_size("ObjectMonitor", &om_size) || vmstructs_field("ObjectMonitor", "_waiters", &off, &ts) ||
        !ts || (strcmp(ts, "int") != 0 && strcmp(ts, "jint") != 0) || off < 0 || (off & 3) != 0 ||
        (uint64_t)off + 4 > om_size) {
        return "this JVM's VMStructs have no ObjectMonitor::_waiters";
    }
    rel.waiters_off = off;
    if (vmstructs_type_size("JavaThread", &jt_size) == 0 &&
        vmstructs_field("JavaThread", "_current_waiting_monitor", &off, &ts) == 0 && ts &&
        strcmp(ts, "ObjectMonitor*") == 0 && off > 0 && (off & 7) == 0 && (uint64_t)off + 8 <= jt_size) {
        rel.waiting_off = off;
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
        sights = calloc(SIGHT_SLOTS, sizeof(sight_slot));
        if (sights) {
            cv_commit(sights, SIGHT_SLOTS * sizeof(sight_slot));
            rel.state = REL_IDLE;
            snprintf(rel.reason, sizeof(rel.reason), "vm");
        } else {
            snprintf(rel.reason, sizeof(rel.reason), "inferred: out of memory");
        }
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
    return (ow.map ? addrmap_memory(ow.map) : 0) + (rel.ids ? addrmap_memory(rel.ids) : 0) +
           (sights ? SIGHT_SLOTS * sizeof(sight_slot) : 0);
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
            fetch_add_relaxed(&rel.epoch, 1);
            store_release(&rel.state, REL_ARMED);
        } else {
            store_relaxed(&rel.state, REL_OFF);
            cv_log_warn("monitor releasers are inferred, not read from the VM: %s", rel.reason + strlen("inferred: "));
        }
    } else if (arm == 0 && state == REL_ARMED) {
        store_relaxed(&rel.state, REL_IDLE);
        fetch_add_relaxed(&rel.epoch, 1);
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

static sight_slot *slot_of(uintptr_t mon) {
    uint64_t h = (uint64_t)mon * 0x9e3779b97f4a7c15ull;
    return &sights[h >> 54];   /* the top 10 bits: SIGHT_SLOTS */
}

/* A sighting of `mon`: held by `holder` while the word was `w`. The slot's version it made. */
static uint64_t sight(uintptr_t mon, int64_t holder, int64_t w) {
    sight_slot *s = slot_of(mon);
    uint64_t v = fetch_add_relaxed(&s->version, 1) + 1;
    int expected = 0;
    if (cas_acq_rel(&s->busy, &expected, 1)) {
        store_relaxed(&s->monitor, mon);
        store_relaxed(&s->holder, holder);
        store_relaxed(&s->word, w);
        store_relaxed(&s->tag, v);
        store_release(&s->busy, 0);
    }
    return v;
}

/* The latest sighting of `mon` when the slot's version is `v` and its details are of that version. */
static int latest(uintptr_t mon, uint64_t v, int64_t *holder, int64_t *w) {
    sight_slot *s = slot_of(mon);
    int expected = 0;
    if (!cas_acq_rel(&s->busy, &expected, 1)) return 0;
    int ok = load_relaxed(&s->tag) == v && load_relaxed(&s->monitor) == mon;
    *holder = load_relaxed(&s->holder);
    *w = load_relaxed(&s->word);
    store_release(&s->busy, 0);
    return ok && load_acquire(&s->version) == v;
}

static int64_t prev_word(uintptr_t mon) {
    return (int64_t)word(mon + (uint64_t)rel.prev_off);
}

/* MonitorContendedEnter, armed: the owner `owner` (0 not known) seen holding `mon`. */
static void sight_at_enter(uintptr_t mon, int64_t owner) {
    uint32_t epoch = load_relaxed(&rel.epoch);
    if (load_acquire(&rel.state) != REL_ARMED) {
        mine.monitor = 0;
        return;
    }
    mine.untracked = load_acquire(&untracked);
    mine.waited = load_acquire(&slot_of(mon)->waited);
    mine.waiters = load_relaxed((const int32_t *)(mon + (uint64_t)rel.waiters_off));
    mine.holder = owner;
    mine.word = prev_word(mon);
    mine.version = sight(mon, owner, mine.word);
    mine.epoch = epoch;
    mine.monitor = mon;
}

void owners_untracked_acquisition(void) {
    if (load_relaxed(&rel.state) == REL_ARMED) fetch_add_relaxed(&untracked, 1);
}

void owners_waited(JNIEnv *jni, jobject object) {
    if (!sights || load_acquire(&rel.state) != REL_ARMED) return;
    /* A platform thread's ObjectMonitor::wait keeps the monitor in _current_waiting_monitor until
     * it has taken it back; a virtual thread's does not. */
    uintptr_t jt = (uintptr_t)jni - (uintptr_t)ow.env_offset;
    uintptr_t mon = rel.waiting_off ? word(jt + (uint64_t)rel.waiting_off) : 0;
    if (aligned(mon) && object && monitor_of(mon, object)) {
        fetch_add_relaxed(&slot_of(mon)->waited, 1);
    } else {
        fetch_add_relaxed(&untracked, 1);
    }
}

/* JFR's id as a Java thread id (0: none). */
static int64_t java_id(int64_t jfr) {
    if (jfr <= 0) return 0;
    if (rel.identity) return jfr;
    return jfr < MAX_JFR_ID ? addrmap_find(rel.ids, id_key(jfr)) : 0;
}

int owners_releaser(JNIEnv *jni, jobject object, uintptr_t mon, int64_t self, int is_virtual, int64_t *releaser) {
    if (load_acquire(&rel.state) != REL_ARMED || !aligned(mon) || !object || self <= 0) return 0;
    /* The thread blocked on `mon` at its enter and has been counted among its contenders since,
     * until it got it: the monitor is alive, and owned by this thread. */
    int64_t v = monitor_of(mon, object) ? (int64_t)word(mon + (uint64_t)ow.owner_off) : 0;
    uintptr_t jt = (uintptr_t)jni - (uintptr_t)ow.env_offset;
    if (v == 0 || (ow.mode == MODE_TID ? v != self : (uintptr_t)v != jt)) {
        owners_untracked_acquisition();
        return 0;
    }
    int64_t w1 = prev_word(mon);
    /* The latest sighting before this acquisition: this thread's own at its enter when the slot
     * has seen none since, else the slot's. */
    uint64_t version = load_acquire(&slot_of(mon)->version);
    int64_t holder = 0, w0 = 0;
    int known = 0;
    if (!is_virtual && mine.monitor == mon) {
        if (version == mine.version) {
            holder = mine.holder;
            w0 = mine.word;
            known = 1;
        } else {
            known = latest(mon, version, &holder, &w0);
        }
    }
    /* No waiter of this monitor between wait and taking it back, at the enter or since: such a
     * thread takes the monitor back with no event, and may leave it through the fast exit. */
    int no_waiter = mine.waiters == 0 && load_acquire(&slot_of(mon)->waited) == mine.waited;
    uint32_t epoch = load_relaxed(&rel.epoch);
    int armed_throughout = known && no_waiter && load_acquire(&rel.state) == REL_ARMED && epoch == mine.epoch &&
                           load_acquire(&untracked) == mine.untracked;
    mine.monitor = 0;
    /* This acquisition is the next sighting: this thread holds it now. */
    sight(mon, self, w1);
    if (!armed_throughout) return 0;
    /* Exact only when a release through the VM's exit wrote the word after the latest sighting
     * (the word changed), by the thread seen holding the monitor then (only an exiting thread
     * writes its own id), and that is not this thread. */
    int64_t id = java_id(w1);
    if (w1 == w0 || holder <= 0 || id != holder || id == self) return 0;
    *releaser = id;
    return 1;
}

/* The owner of `mon` (whose object is `ref`): 1 known, 0 not. */
static int read_owner(uintptr_t mon, uintptr_t ref, int64_t *owner) {
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

int owners_read(JNIEnv *jni, jobject object, int64_t *owner, uintptr_t *monitor) {
    *monitor = 0;
    if (ow.mode == MODE_OFF || !object) return 0;
    if (sights) mine.monitor = 0;
    uintptr_t jt = (uintptr_t)jni - (uintptr_t)ow.env_offset;
    uintptr_t mon = word(jt + (uint64_t)ow.pending_off);
    if (!aligned(mon)) return 0;
    uintptr_t ref = monitor_of(mon, object);
    if (!ref) return 0;
    *monitor = mon;
    int known = read_owner(mon, ref, owner);
    if (sights) sight_at_enter(mon, known ? *owner : 0);
    return known;
}
