/*
 * The mock JVM of the unit tests: one jvmtiEnv and one JNIEnv (mock_jvmti_env, mock_jni_env)
 * shared by the tests of the sources that call JVMTI and JNI (objects.c, threads.c).
 *
 * Objects: a jobject is a pointer to a fake_obj, whose identity hash and class the mock
 * functions read; a jweak is a pointer to a fake_weak (low bit set, as HotSpot tags its weak
 * handles), whose referent a test clears to collect the object. The mock checks the contract
 * of objects.h where a breach would show: IsSameObject or DeleteWeakGlobalRef on a reference
 * already deleted (a read of freed VM memory), a reference deleted twice, and an id published
 * to the caller's cache before its entry is described. Violations are counted (atomically: the
 * mock also runs on the threads of the concurrent tests) and each test checks the count.
 *
 * Threads: a jthread is a fake_obj too (class mock_thread_class), with its thread-local storage,
 * name, Thread.tid and whether it is virtual. The current thread is mock_current (per OS
 * thread: concurrent tests run each fake thread on an OS thread of its own); GetAllThreads
 * answers mock_running. Only the functions the tested sources call are filled in; any other
 * call crashes on a NULL pointer.
 */
#ifndef CONVOY_MOCK_JVM_H
#define CONVOY_MOCK_JVM_H

#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct fake_weak;

typedef struct fake_obj {
    jint hash;
    struct fake_obj *cls;     /* NULL for a class */
    struct fake_weak *weak;   /* atomic: the last weak reference made to it */
    uint32_t weak_refs;       /* NewWeakGlobalRef calls on it (atomic) */
    uint32_t refs_deleted;    /* DeleteWeakGlobalRef calls on those (atomic) */
    int fail_weak_ref;        /* NewWeakGlobalRef calls still to fail (out of memory) */
    int registered;
    /* A fake Thread (mock_thread): */
    void *tls;                /* atomic: its JVMTI thread-local storage */
    const char *name;         /* GetThreadInfo's name */
    jlong tid;                /* the field Thread.tid */
    jlong eetop;              /* the field Thread.eetop: its JavaThread (owners.c, vmstructs.c) */
    int is_virtual;           /* an instance of BaseVirtualThread */
    int ended;                /* atomic: SetThreadLocalStorage fails (JVMTI_ERROR_THREAD_NOT_ALIVE) */
} __attribute__((aligned(8))) fake_obj;

typedef struct fake_weak {
    fake_obj *referent;       /* atomic: NULL once the object is collected */
    fake_obj *of;             /* the object it was made for */
    int deleted;              /* atomic */
} __attribute__((aligned(8))) fake_weak;

#define MAX_WEAK (1 << 17)
#define MAX_DESCRIBED 8192

extern pthread_mutex_t described_lock;
extern fake_obj *described[MAX_DESCRIBED];   /* every object given a weak reference while registering */
extern size_t ndescribed;
extern int registering;
extern uint64_t violations;            /* contract violations seen by the mock (atomic) */
extern uint64_t same_calls;            /* IsSameObject calls (atomic) */
extern uint64_t weak_refs_deleted;     /* (atomic) */
/* Run once by the next NewWeakGlobalRef before it makes its reference (then cleared). */
extern void (*during_next_weak_ref)(void);
/* A test's action inside the next SetObjectArrayElement that empties an element (then cleared). */
extern void (*during_next_array_clear)(void);

fake_obj *as_fake(jobject o);
jobject as_jobject(fake_obj *o);
void violation(const char *what);
/* What a reference names now, as the VM would resolve it. */
fake_obj *resolve(jobject ref);
/* The held array's elements that are not NULL; whether it holds o. */
uint64_t array_held(void);
int array_holds(fake_obj *o);

extern jvmtiEnv mock_jvmti_env;
extern JNIEnv mock_jni_env;

/* ---- Threads ---- */
extern fake_obj mock_thread_class, mock_virtual_class;
extern int mock_virtual_threads;             /* FindClass finds BaseVirtualThread */
extern __thread fake_obj *mock_current;      /* the calling OS thread's fake thread */
#define MOCK_RUNNING_MAX 64
extern fake_obj *mock_running[MOCK_RUNNING_MAX];   /* GetAllThreads' answer */
extern int mock_nrunning;
/* Run once by the next GetThreadInfo before it answers (then cleared): what the thread does
 * meanwhile, e.g. post its first event while another thread enumerates it. */
extern void (*during_next_thread_info)(void);
/* A fake thread named `name` with Thread.tid `tid` (a fresh identity hash, class Thread). */
void mock_thread(fake_obj *t, const char *name, jlong tid);

/* ---- The VM ---- */
/* GetSystemProperty's java.vm.specification.version (the JDK's feature release), "25" unless set. */
extern const char *mock_vm_feature;
/* FindClass finds jdk.jfr.internal.JVM, whose static getThreadId(Thread) answers the thread's
 * Thread.tid (JFR's thread ids are the Java ids from JDK 19) plus mock_jfr_id_shift. */
extern int mock_jfr;
extern jlong mock_jfr_id_shift;

#endif
