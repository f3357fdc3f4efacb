/*
 * The mock JVM of the unit tests (mock_jvm.h): a jvmtiEnv and a JNIEnv whose functions act on
 * fake objects and fake threads. Only the functions the tested sources call are filled in; any
 * other call crashes on a NULL pointer.
 */
#define _GNU_SOURCE
#include "mock_jvm.h"
#include "arch.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static fake_weak weak_pool[MAX_WEAK];
static fake_obj mock_jfr_class;   /* jdk.jfr.internal.JVM (mock_jfr) */
static uint32_t weak_used;             /* atomic */
pthread_mutex_t described_lock = PTHREAD_MUTEX_INITIALIZER;
fake_obj *described[MAX_DESCRIBED];   /* every object given a weak reference while the table is shared */
size_t ndescribed;
int registering = 1;
uint64_t violations;            /* contract violations seen by the mock (atomic) */
uint64_t same_calls;            /* IsSameObject calls (atomic) */
uint64_t weak_refs_deleted;     /* (atomic) */

fake_obj *as_fake(jobject o) {
    return (fake_obj *)(void *)o;
}

jobject as_jobject(fake_obj *o) {
    return (jobject)(void *)o;
}

void violation(const char *what) {
    fprintf(stderr, "  mock: %s\n", what);
    fetch_add_relaxed(&violations, 1);
}

static fake_weak *as_weak(jobject ref) {
    uintptr_t p = (uintptr_t)(void *)ref;
    return (p & 1) ? (fake_weak *)(p & ~(uintptr_t)1) : NULL;
}

/* What a reference names now, as the VM would resolve it. */
fake_obj *resolve(jobject ref) {
    if (!ref) return NULL;
    fake_weak *w = as_weak(ref);
    if (!w) return as_fake(ref);
    if (__atomic_load_n(&w->deleted, __ATOMIC_ACQUIRE)) violation("a deleted weak reference is used");
    return __atomic_load_n(&w->referent, __ATOMIC_ACQUIRE);
}

static jboolean JNICALL mock_is_same_object(JNIEnv *env, jobject a, jobject b) {
    fetch_add_relaxed(&same_calls, 1);
    return resolve(a) == resolve(b) ? JNI_TRUE : JNI_FALSE;
}

static jvmtiError JNICALL mock_get_object_hash_code(jvmtiEnv *env, jobject object, jint *hash_code_ptr) {
    *hash_code_ptr = as_fake(object)->hash;
    sched_yield(); /* widens the windows between a look-up's steps */
    return JVMTI_ERROR_NONE;
}

static jclass JNICALL mock_get_object_class(JNIEnv *env, jobject obj) {
    return (jclass)as_jobject(as_fake(obj)->cls);
}

static void JNICALL mock_delete_local_ref(JNIEnv *env, jobject obj) {
}

/* Run once by the next NewWeakGlobalRef before it makes its reference (then cleared): what
 * other threads do while a caller waits for the VM's lock of its handle storage. */
void (*during_next_weak_ref)(void);

static jweak JNICALL mock_new_weak_global_ref(JNIEnv *env, jobject obj) {
    fake_obj *o = as_fake(obj);
    void (*during)(void) = during_next_weak_ref;
    during_next_weak_ref = NULL;
    if (during) during();
    sched_yield(); /* the VM's handle storage lock: a reset may come meanwhile */
    if (o->fail_weak_ref > 0) {
        o->fail_weak_ref--;
        return NULL;
    }
    uint32_t n = fetch_add_relaxed(&weak_used, 1);
    if (n >= MAX_WEAK) {
        violation("the mock's weak reference pool is exhausted");
        return NULL;
    }
    fake_weak *w = &weak_pool[n];
    w->of = o;
    __atomic_store_n(&w->referent, o, __ATOMIC_RELEASE);
    __atomic_store_n(&o->weak, w, __ATOMIC_RELEASE);
    fetch_add_relaxed(&o->weak_refs, 1);
    pthread_mutex_lock(&described_lock);
    if (registering && !o->registered && ndescribed < MAX_DESCRIBED) {
        o->registered = 1;
        described[ndescribed++] = o;
    }
    pthread_mutex_unlock(&described_lock);
    return (jweak)(void *)((uintptr_t)w | 1);
}

static void JNICALL mock_delete_weak_global_ref(JNIEnv *env, jweak ref) {
    fake_weak *w = as_weak(ref);
    if (!w) {
        violation("DeleteWeakGlobalRef of a reference that is not weak");
        return;
    }
    if (__atomic_exchange_n(&w->deleted, 1, __ATOMIC_ACQ_REL)) violation("a weak reference is deleted twice");
    fetch_add_relaxed(&weak_refs_deleted, 1);
    fetch_add_relaxed(&w->of->refs_deleted, 1);
}

/* The held array (objects_hold_start): one, its elements strong references to fake objects. */
#define MOCK_ARRAY_MAX 8192
static struct {
    jsize length;
    fake_obj *e[MOCK_ARRAY_MAX];   /* atomic */
} mock_array;
static uint64_t array_stores;      /* SetObjectArrayElement calls with an object (atomic) */

static jclass JNICALL mock_find_class(JNIEnv *env, const char *name) {
    static fake_obj object_class = {.hash = 0x0B1EC7};
    if (strcmp(name, "java/lang/Object") == 0) return (jclass)as_jobject(&object_class);
    if (strcmp(name, "java/lang/Thread") == 0) return (jclass)as_jobject(&mock_thread_class);
    if (strcmp(name, "java/lang/BaseVirtualThread") == 0 && mock_virtual_threads) {
        return (jclass)as_jobject(&mock_virtual_class);
    }
    if (strcmp(name, "jdk/jfr/internal/JVM") == 0 && mock_jfr) return (jclass)as_jobject(&mock_jfr_class);
    return NULL;
}

static jobjectArray JNICALL mock_new_object_array(JNIEnv *env, jsize length, jclass cls, jobject init) {
    if (length > MOCK_ARRAY_MAX || init != NULL) {
        violation("an array the mock cannot make");
        return NULL;
    }
    memset(&mock_array, 0, sizeof(mock_array));
    mock_array.length = length;
    return (jobjectArray)(void *)&mock_array;
}

static jobject JNICALL mock_new_global_ref(JNIEnv *env, jobject obj) {
    return obj;
}

static jint JNICALL mock_ensure_local_capacity(JNIEnv *env, jint capacity) {
    return 0;
}

static int array_index_ok(jobjectArray array, jsize index) {
    if ((void *)array != (void *)&mock_array || index < 0 || index >= mock_array.length) {
        violation("an element outside the held array");
        return 0;
    }
    return 1;
}

/* A test's action inside the next SetObjectArrayElement that empties an element (then cleared). */
void (*during_next_array_clear)(void);

static void JNICALL mock_set_object_array_element(JNIEnv *env, jobjectArray array, jsize index, jobject value) {
    if (!array_index_ok(array, index)) return;
    if (value) fetch_add_relaxed(&array_stores, 1);
    __atomic_store_n(&mock_array.e[index], resolve(value), __ATOMIC_RELEASE);
    void (*action)(void) = value ? NULL : during_next_array_clear;
    if (action) {
        during_next_array_clear = NULL;
        action();
    }
}

static jobject JNICALL mock_get_object_array_element(JNIEnv *env, jobjectArray array, jsize index) {
    if (!array_index_ok(array, index)) return NULL;
    return as_jobject(__atomic_load_n(&mock_array.e[index], __ATOMIC_ACQUIRE));
}

/* The held array's elements that are not NULL. */
uint64_t array_held(void) {
    uint64_t n = 0;
    for (jsize i = 0; i < mock_array.length; i++) n += __atomic_load_n(&mock_array.e[i], __ATOMIC_ACQUIRE) != NULL;
    return n;
}

int array_holds(fake_obj *o) {
    for (jsize i = 0; i < mock_array.length; i++) {
        if (__atomic_load_n(&mock_array.e[i], __ATOMIC_ACQUIRE) == o) return 1;
    }
    return 0;
}

static jboolean JNICALL mock_exception_check(JNIEnv *env) {
    return JNI_FALSE;
}

static void JNICALL mock_exception_clear(JNIEnv *env) {
}

/* ---- Threads ---- */
fake_obj mock_thread_class = {.hash = 0x7C1A55};
fake_obj mock_virtual_class = {.hash = 0x7C1A56};
int mock_virtual_threads;
__thread fake_obj *mock_current;
fake_obj *mock_running[MOCK_RUNNING_MAX];
int mock_nrunning;
static int32_t next_thread_hash = 0x7E000000;

void mock_thread(fake_obj *t, const char *name, jlong tid) {
    memset(t, 0, sizeof(*t));
    t->hash = fetch_add_relaxed(&next_thread_hash, 1);
    t->cls = &mock_thread_class;
    t->name = name;
    t->tid = tid;
}

static fake_obj *thread_or_current(jthread thread) {
    return thread ? resolve(thread) : mock_current;
}

static jvmtiError JNICALL mock_get_thread_local_storage(jvmtiEnv *env, jthread thread, void **data) {
    fake_obj *t = thread_or_current(thread);
    if (!t) return JVMTI_ERROR_UNATTACHED_THREAD;
    *data = __atomic_load_n(&t->tls, __ATOMIC_ACQUIRE);
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL mock_set_thread_local_storage(jvmtiEnv *env, jthread thread, const void *data) {
    fake_obj *t = thread_or_current(thread);
    if (!t) return JVMTI_ERROR_UNATTACHED_THREAD;
    if (__atomic_load_n(&t->ended, __ATOMIC_ACQUIRE)) return JVMTI_ERROR_THREAD_NOT_ALIVE;
    __atomic_store_n(&t->tls, (void *)data, __ATOMIC_RELEASE);
    return JVMTI_ERROR_NONE;
}

void (*during_next_thread_info)(void);

static jvmtiError JNICALL mock_get_thread_info(jvmtiEnv *env, jthread thread, jvmtiThreadInfo *info) {
    void (*during)(void) = during_next_thread_info;
    during_next_thread_info = NULL;
    if (during) during();
    fake_obj *t = thread_or_current(thread);
    memset(info, 0, sizeof(*info));
    if (!t) return JVMTI_ERROR_INVALID_THREAD;
    info->name = strdup(t->name ? t->name : "");
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL mock_get_all_threads(jvmtiEnv *env, jint *count, jthread **threads) {
    jthread *all = malloc((size_t)(mock_nrunning ? mock_nrunning : 1) * sizeof(jthread));
    for (int i = 0; i < mock_nrunning; i++) all[i] = as_jobject(mock_running[i]);
    *count = mock_nrunning;
    *threads = all;
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL mock_deallocate(jvmtiEnv *env, unsigned char *mem) {
    free(mem);
    return JVMTI_ERROR_NONE;
}

static int tid_field, eetop_field;

static jfieldID JNICALL mock_get_field_id(JNIEnv *env, jclass cls, const char *name, const char *sig) {
    if (resolve(cls) != &mock_thread_class || strcmp(sig, "J") != 0) return NULL;
    if (strcmp(name, "tid") == 0) return (jfieldID)&tid_field;
    if (strcmp(name, "eetop") == 0) return (jfieldID)&eetop_field;
    return NULL;
}

static jlong JNICALL mock_get_long_field(JNIEnv *env, jobject obj, jfieldID field) {
    return field == (jfieldID)&eetop_field ? resolve(obj)->eetop : resolve(obj)->tid;
}

static jvmtiError JNICALL mock_get_current_thread(jvmtiEnv *env, jthread *thread) {
    if (!mock_current) return JVMTI_ERROR_UNATTACHED_THREAD;
    *thread = as_jobject(mock_current);
    return JVMTI_ERROR_NONE;
}

/* ---- The VM ---- */
const char *mock_vm_feature = "25";
int mock_jfr;
jlong mock_jfr_id_shift;
static fake_obj mock_jfr_class = {.hash = 0x1F1A55};

static jvmtiError JNICALL mock_get_system_property(jvmtiEnv *env, const char *name, char **value) {
    static const char *const props[][2] = {
        {"java.vm.name", "Mock VM"}, {"java.vm.version", "0-mock"}, {"sun.java.command", "mock.Main"}};
    const char *v = strcmp(name, "java.vm.specification.version") == 0 ? mock_vm_feature : NULL;
    for (size_t i = 0; !v && i < sizeof(props) / sizeof(props[0]); i++) {
        if (strcmp(name, props[i][0]) == 0) v = props[i][1];
    }
    if (!v) return JVMTI_ERROR_NOT_AVAILABLE;
    *value = strdup(v);
    return JVMTI_ERROR_NONE;
}

/* A class's signature: "Lmock/C<hash>;" for a fake class; no source file. */
static jvmtiError JNICALL mock_get_class_signature(jvmtiEnv *env, jclass cls, char **sig, char **generic) {
    char s[48];
    snprintf(s, sizeof(s), "Lmock/C%x;", (unsigned)resolve(cls)->hash);
    *sig = strdup(s);
    if (generic) *generic = NULL;
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL mock_get_source_file_name(jvmtiEnv *env, jclass cls, char **name) {
    return JVMTI_ERROR_ABSENT_INFORMATION;
}

/* Methods: the mock knows none (jmethodIDs of the tests are made-up numbers). */
static jvmtiError JNICALL mock_get_method_declaring_class(jvmtiEnv *env, jmethodID m, jclass *cls) {
    return JVMTI_ERROR_INVALID_METHODID;
}

static jvmtiError JNICALL mock_get_method_name(jvmtiEnv *env, jmethodID m, char **name, char **sig, char **generic) {
    return JVMTI_ERROR_INVALID_METHODID;
}

static jvmtiError JNICALL mock_get_line_number_table(jvmtiEnv *env, jmethodID m, jint *n, jvmtiLineNumberEntry **t) {
    return JVMTI_ERROR_INVALID_METHODID;
}

static jint JNICALL mock_get_version(JNIEnv *env) {
    return JNI_VERSION_1_8;
}

static jmethodID JNICALL mock_get_static_method_id(JNIEnv *env, jclass cls, const char *name, const char *sig) {
    static int get_thread_id;
    return resolve(cls) == &mock_jfr_class && strcmp(name, "getThreadId") == 0 &&
                   strcmp(sig, "(Ljava/lang/Thread;)J") == 0
               ? (jmethodID)&get_thread_id
               : NULL;
}

static jlong JNICALL mock_call_static_long_method(JNIEnv *env, jclass cls, jmethodID m, ...) {
    va_list ap;
    va_start(ap, m);
    jobject thread = va_arg(ap, jobject);
    va_end(ap);
    return resolve(thread)->tid + mock_jfr_id_shift;
}

static jboolean JNICALL mock_is_instance_of(JNIEnv *env, jobject obj, jclass cls) {
    fake_obj *o = resolve(obj);
    return o && resolve(cls) == &mock_virtual_class && o->is_virtual ? JNI_TRUE : JNI_FALSE;
}

static jobject JNICALL mock_new_local_ref(JNIEnv *env, jobject ref) {
    return as_jobject(resolve(ref));
}

static struct jvmtiInterface_1_ mock_jvmti_functions = {
    .GetObjectHashCode = mock_get_object_hash_code,
    .GetThreadLocalStorage = mock_get_thread_local_storage,
    .SetThreadLocalStorage = mock_set_thread_local_storage,
    .GetThreadInfo = mock_get_thread_info,
    .GetAllThreads = mock_get_all_threads,
    .Deallocate = mock_deallocate,
    .GetCurrentThread = mock_get_current_thread,
    .GetSystemProperty = mock_get_system_property,
    .GetClassSignature = mock_get_class_signature,
    .GetSourceFileName = mock_get_source_file_name,
    .GetMethodDeclaringClass = mock_get_method_declaring_class,
    .GetMethodName = mock_get_method_name,
    .GetLineNumberTable = mock_get_line_number_table,
};

static struct JNINativeInterface_ mock_jni_functions = {
    .FindClass = mock_find_class,
    .NewObjectArray = mock_new_object_array,
    .NewGlobalRef = mock_new_global_ref,
    .EnsureLocalCapacity = mock_ensure_local_capacity,
    .SetObjectArrayElement = mock_set_object_array_element,
    .GetObjectArrayElement = mock_get_object_array_element,
    .GetObjectClass = mock_get_object_class,
    .DeleteLocalRef = mock_delete_local_ref,
    .NewWeakGlobalRef = mock_new_weak_global_ref,
    .DeleteWeakGlobalRef = mock_delete_weak_global_ref,
    .IsSameObject = mock_is_same_object,
    .ExceptionCheck = mock_exception_check,
    .ExceptionClear = mock_exception_clear,
    .GetFieldID = mock_get_field_id,
    .GetLongField = mock_get_long_field,
    .IsInstanceOf = mock_is_instance_of,
    .NewLocalRef = mock_new_local_ref,
    .GetVersion = mock_get_version,
    .GetStaticMethodID = mock_get_static_method_id,
    .CallStaticLongMethod = mock_call_static_long_method,
};

jvmtiEnv mock_jvmti_env = &mock_jvmti_functions;
JNIEnv mock_jni_env = &mock_jni_functions;
