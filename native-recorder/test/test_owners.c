/*
 * The owners reader (owners.c) against a fake VM: the VMStructs tables test_vmstructs.c exports
 * (the fields owners.h names, at the offsets below), fake JavaThreads whose JNIEnv lies inside
 * them (Thread.eetop and JavaThread::_threadObj as the mock JVM answers them) and fake
 * ObjectMonitors whose words a test sets as the VM would. What owners.h promises is checked:
 * every layout that does not check out turns exact owners off with its reason and then reads
 * nothing (the monitor a refused reader is handed has been freed: AddressSanitizer fails a
 * read); the owner from the monitor's word in both forms (a JavaThread or lock record, JDK 17
 * to 23; a thread id with the VM's markers, JDK 24+), only for the event's own object, also
 * under generational ZGC's coloured pointers; the releaser only where the word is known
 * current (owners.h's stale rules, one case each).
 *
 * owners.c and vmstructs.c decide once per process (the layout, the form of references), so
 * each test runs in a child process of its own (cv_alone), on the tables as the parent has them.
 */
#define _GNU_SOURCE
#include "check.h"
#include "mock_jvm.h"
#include "owners.h"
#include "threads.h"
#include "vmstructs.h"

#include <stdlib.h>
#include <string.h>

/* The fake layout: test_vmstructs.c's tables give these offsets and sizes. */
#define JT_SIZE 1384
#define JT_THREAD_OBJ 648
#define JT_PENDING 776
#define JT_WAITING 784
#define JT_OWNER_ID 800
#define JT_LOCK_STACK 816       /* LockStack::_top at +0 (an offset from the JavaThread), _base at +8 */
#define JT_ENV 512              /* where the fake JNIEnv lies: JNIEnv* - JavaThread* */
#define OM_SIZE 208
#define OM_OBJECT 16
#define OM_OWNER 64
#define OM_PREV 72              /* _previous_owner_tid: right after _owner (owners.h) */
#define OM_WAITERS 96
#define NO_OWNER 0              /* the markers test_vmstructs.c exports */
#define ANONYMOUS 1
#define DEFLATER 2

static jvmtiEnv *const jvmti = &mock_jvmti_env;

/* ---- The tables, reached through what they export, as vmstructs.c reaches them ---- */

extern void *gHotSpotVMStructs, *gHotSpotVMLongConstants;
extern uint64_t gHotSpotVMStructEntryArrayStride, gHotSpotVMStructEntryTypeNameOffset,
    gHotSpotVMStructEntryFieldNameOffset, gHotSpotVMStructEntryTypeStringOffset, gHotSpotVMStructEntryOffsetOffset,
    gHotSpotVMStructEntryAddressOffset, gHotSpotVMLongConstantEntryArrayStride, gHotSpotVMLongConstantEntryNameOffset;

static const char **str_field(char *entry, uint64_t off) {
    return (const char **)(void *)(entry + off);
}

/* The entry of a (non-static or static) field. */
static char *entry_of(const char *type, const char *field) {
    for (char *e = gHotSpotVMStructs; *str_field(e, gHotSpotVMStructEntryTypeNameOffset);
         e += gHotSpotVMStructEntryArrayStride) {
        const char *f = *str_field(e, gHotSpotVMStructEntryFieldNameOffset);
        if (strcmp(*str_field(e, gHotSpotVMStructEntryTypeNameOffset), type) == 0 && f && strcmp(f, field) == 0) {
            return e;
        }
    }
    fprintf(stderr, "  no %s::%s in the tables\n", type, field);
    abort();
}

static void set_type(const char *type, const char *field, const char *type_string) {
    *str_field(entry_of(type, field), gHotSpotVMStructEntryTypeStringOffset) = type_string;
}

static void set_offset(const char *type, const char *field, uint64_t offset) {
    memcpy(entry_of(type, field) + gHotSpotVMStructEntryOffsetOffset, &offset, sizeof(offset));
}

/* The field exported under another name (a name owners.c does not know: no longer exported). */
static void rename_field(const char *type, const char *field, const char *to) {
    *str_field(entry_of(type, field), gHotSpotVMStructEntryFieldNameOffset) = to;
}

static void hide_constant(const char *name) {
    for (char *e = gHotSpotVMLongConstants; *str_field(e, gHotSpotVMLongConstantEntryNameOffset);
         e += gHotSpotVMLongConstantEntryArrayStride) {
        if (strcmp(*str_field(e, gHotSpotVMLongConstantEntryNameOffset), name) == 0) {
            *str_field(e, gHotSpotVMLongConstantEntryNameOffset) = "hidden";
        }
    }
}

/* ---- Fake threads and monitors ---- */

typedef struct {
    fake_obj obj;                 /* its java.lang.Thread */
    uintptr_t thread_obj;         /* the slot of its _threadObj OopHandle */
    uint8_t *jt;                  /* its JavaThread, JT_SIZE bytes */
    JNIEnv *jni;                  /* inside it, at JT_ENV */
} vm_thread;

static uintptr_t *at(void *base, size_t off) {
    return (uintptr_t *)(void *)((uint8_t *)base + off);
}

/* The reference a handle to the fake object holds: its first word, as vmstructs.c reads it. */
static uintptr_t oop_of(fake_obj *o) {
    uintptr_t w;
    memcpy(&w, o, sizeof(w));
    return w;
}

static void vm_thread_make(vm_thread *t, const char *name, jlong tid) {
    mock_thread(&t->obj, name, tid);
    t->jt = aligned_alloc(8, JT_SIZE);
    memset(t->jt, 0, JT_SIZE);
    t->obj.eetop = (jlong)(uintptr_t)t->jt;
    t->thread_obj = oop_of(&t->obj);
    *at(t->jt, JT_THREAD_OBJ) = (uintptr_t)&t->thread_obj;
    *at(t->jt, JT_OWNER_ID) = (uintptr_t)tid;
    *(uint32_t *)(void *)(t->jt + JT_LOCK_STACK) = JT_LOCK_STACK + 8;   /* empty */
    memcpy(t->jt + JT_ENV, &mock_jni_env, sizeof(mock_jni_env));
    t->jni = (JNIEnv *)(void *)(t->jt + JT_ENV);
}

/* A monitor, its object's reference `oop` in its weak handle's slot; the event's object: a local
 * handle to the same reference. */
typedef struct {
    uint64_t *om;                 /* OM_SIZE bytes */
    uintptr_t weak_slot, local_slot;
} vm_monitor;

static void vm_monitor_make(vm_monitor *m, uintptr_t oop) {
    m->om = aligned_alloc(8, OM_SIZE);
    memset(m->om, 0, OM_SIZE);
    m->weak_slot = m->local_slot = oop;
    *at(m->om, OM_OBJECT) = (uintptr_t)&m->weak_slot;
}

static jobject object_of(vm_monitor *m) {
    return (jobject)(void *)&m->local_slot;
}

static void set_word(vm_monitor *m, size_t off, uintptr_t v) {
    *at(m->om, off) = v;
}

static vm_thread self, other, third;

static void (*body)(void);

static void with_threads(void) {
    /* Whichever test runs first: a struct entry ends with its address. */
    if (!gHotSpotVMStructEntryArrayStride) gHotSpotVMStructEntryArrayStride = gHotSpotVMStructEntryAddressOffset + 8;
    vm_thread_make(&self, "self", 11);
    vm_thread_make(&other, "other", 12);
    vm_thread_make(&third, "third", 13);
    mock_current = &self.obj;
    threads_init(self.jni, 1 << 20, 512, 0, 0, 0);   /* Thread.tid, read when releasers are armed */
    body();
}

/* Runs fn in a child process (cv_alone) with the current thread `self` (Java id 11) and two
 * others (12, 13): Java ids from 3 up are never one of the VM's owner markers (0 to 2). None of
 * them is registered yet. 1 if every check in it passed. */
static int alone(void (*fn)(void)) {
    body = fn;
    return cv_alone(with_threads);
}

static int starts_with(const char *s, const char *prefix) {
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- Refusals ---- */

/* The address of `n` bytes of freed memory (AddressSanitizer keeps it poisoned a while). */
static __attribute__((noinline)) uintptr_t freed(size_t n) {
    void *p = calloc(1, n);
    uintptr_t a = (uintptr_t)p;
    free(p);
    return a;
}

static void refused(const char *reason) {
    /* The pending monitor and the object handed to the reader are freed memory: a refused
     * reader that reads them fails under AddressSanitizer. */
    uintptr_t handle = freed(sizeof(uintptr_t));
    *at(self.jt, JT_PENDING) = freed(OM_SIZE);

    owners_init(jvmti, self.jni, 1, 1 << 24);
    const char *mode = owners_mode();
    CHECK(starts_with(mode, "inferred: "));
    if (!strstr(mode, reason)) fprintf(stderr, "  owners_mode: '%s', expected '%s'\n", mode, reason);
    CHECK(strstr(mode, reason) != NULL);
    int64_t owner = 99;
    uintptr_t monitor = 1;
    CHECK_EQ_INT(owners_read(self.jni, (jobject)(void *)handle, &owner, &monitor), 0);
    CHECK_EQ_U64(monitor, 0);
    CHECK_EQ_INT(owner, 99);
    CHECK_EQ_INT(owners_need_threads(), 0);
    *at(self.jt, JT_PENDING) = 0;
}

static void refusals(void) {
    owners_init(jvmti, self.jni, 0, 1 << 24);
    CHECK(strcmp(owners_mode(), "inferred: off by option") == 0);

    rename_field("JavaThread", "_current_pending_monitor", "_hidden");
    refused("this JVM's VMStructs have no JavaThread::_current_pending_monitor");
    rename_field("JavaThread", "_hidden", "_current_pending_monitor");

    set_type("JavaThread", "_current_pending_monitor", "JavaThread*");
    refused("JavaThread::_current_pending_monitor is not an ObjectMonitor*");
    set_type("JavaThread", "_current_pending_monitor", "ObjectMonitor*");

    set_offset("ObjectMonitor", "_object", 20);   /* not a word */
    refused("ObjectMonitor::_object has an unexpected offset 20");
    set_offset("ObjectMonitor", "_object", OM_SIZE);   /* past ObjectMonitor's size */
    refused("ObjectMonitor::_object has an unexpected offset 208");
    set_offset("ObjectMonitor", "_object", OM_OBJECT);

    set_type("ObjectMonitor", "_owner", "jlong");
    refused("ObjectMonitor::_owner has a type this recorder does not know");
    set_type("ObjectMonitor", "_owner", "int64_t");   /* JDK 24+: a thread id, with markers */
    hide_constant("ObjectMonitor::DEFLATER_MARKER");
    refused("the VM does not export its marker values");
    set_type("ObjectMonitor", "_owner", NULL);

    /* The JavaThread's _threadObj is another Thread's; Thread.eetop names another JavaThread. */
    self.thread_obj = oop_of(&other.obj);
    refused("the current JavaThread could not be located and checked");
    self.thread_obj = oop_of(&self.obj);
    self.obj.eetop = (jlong)(uintptr_t)other.jt;
    refused("the current JavaThread could not be located and checked");
    self.obj.eetop = (jlong)(uintptr_t)self.jt;

    /* Each refusal above was of its own cause: the layout restored checks out. */
    owners_init(jvmti, self.jni, 1, 1 << 24);
    CHECK(strcmp(owners_mode(), "vm-pointer") == 0);
}

TEST(owners_refuse_every_layout_that_does_not_check_out_and_read_nothing) {
    CHECK(alone(refusals));
}

static void owner_id_checked(void) {
    set_type("ObjectMonitor", "_owner", "int64_t");
    *at(self.jt, JT_OWNER_ID) = 7;   /* not Thread.tid 11 */
    refused("the current JavaThread could not be located and checked");
    *at(self.jt, JT_OWNER_ID) = 11;
    owners_init(jvmti, self.jni, 1, 1 << 24);
    CHECK(strcmp(owners_mode(), "vm-thread-id") == 0);
}

TEST(owners_check_the_monitor_owner_id_of_the_current_thread) {
    CHECK(alone(owner_id_checked));
}

/* ---- The owner, JDK 17 to 23: a pointer ---- */

static int read_owner(vm_monitor *m, jobject object, int64_t *owner, uintptr_t *monitor) {
    *at(self.jt, JT_PENDING) = m ? (uintptr_t)m->om : 0;
    *owner = 99;
    return owners_read(self.jni, object, owner, monitor);
}

static void pointer_owners(void) {
    owners_init(jvmti, self.jni, 1, 1 << 24);
    CHECK(strcmp(owners_mode(), "vm-pointer") == 0);
    CHECK_EQ_INT(owners_need_threads(), 1);
    owners_thread_started(self.jni, as_jobject(&self.obj), 11, 1);    /* its JavaThread and its stack */
    owners_thread_started(self.jni, as_jobject(&other.obj), 12, 0);   /* its JavaThread */
    vm_monitor m;
    vm_monitor_make(&m, 0x7f0000100000u);
    int64_t owner;
    uintptr_t mon;

    set_word(&m, OM_OWNER, (uintptr_t)other.jt);
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 1);
    CHECK_EQ_INT(owner, 12);
    CHECK_EQ_U64(mon, (uintptr_t)m.om);

    uintptr_t lock_record = 0;   /* stack locking: a lock record on the owner's stack */
    set_word(&m, OM_OWNER, (uintptr_t)&lock_record);
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 1);
    CHECK_EQ_INT(owner, 11);

    set_word(&m, OM_OWNER, 0);
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 1);
    CHECK_EQ_INT(owner, -1);

    /* A JavaThread not registered, then one whose thread ended: not known, the monitor is. */
    set_word(&m, OM_OWNER, (uintptr_t)third.jt);
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 0);
    CHECK_EQ_U64(mon, (uintptr_t)m.om);
    owners_thread_ended(12);
    set_word(&m, OM_OWNER, (uintptr_t)other.jt);
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 0);

    /* Not the event's object (another one, or the weak handle not yet updated by a GC that
     * moved it): nothing believed, no monitor. */
    owners_thread_started(self.jni, as_jobject(&other.obj), 12, 0);
    uintptr_t elsewhere = 0x7f0000200000u;
    CHECK_EQ_INT(read_owner(&m, (jobject)(void *)&elsewhere, &owner, &mon), 0);
    CHECK_EQ_U64(mon, 0);
    CHECK_EQ_INT(owner, 99);
    m.weak_slot = 0x7f0000300000u;
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 0);
    CHECK_EQ_U64(mon, 0);
    m.weak_slot = m.local_slot;
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 1);
    CHECK_EQ_INT(owner, 12);

    /* No pending monitor, a misaligned one, no object: nothing read. */
    CHECK_EQ_INT(read_owner(NULL, object_of(&m), &owner, &mon), 0);
    *at(self.jt, JT_PENDING) = (uintptr_t)m.om + 4;
    CHECK_EQ_INT(owners_read(self.jni, object_of(&m), &owner, &mon), 0);
    CHECK_EQ_INT(read_owner(&m, NULL, &owner, &mon), 0);
    free(m.om);
}

TEST(owners_read_a_pointer_owner_of_the_events_own_object) {
    CHECK(alone(pointer_owners));
}

/* ---- The owner, JDK 24+: a thread id ---- */

static void push_lock(vm_thread *t, uintptr_t ref) {
    uint32_t *top = (uint32_t *)(void *)(t->jt + JT_LOCK_STACK);
    *at(t->jt, *top) = ref;
    *top += 8;
}

static void tid_owners(void) {
    set_type("ObjectMonitor", "_owner", "int64_t");
    owners_init(jvmti, self.jni, 1, 1 << 24);
    CHECK(strcmp(owners_mode(), "vm-thread-id") == 0);
    vm_monitor m;
    vm_monitor_make(&m, 0x7f0000100000u);
    int64_t owner;
    uintptr_t mon;

    set_word(&m, OM_OWNER, 42);
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 1);
    CHECK_EQ_INT(owner, 42);
    CHECK_EQ_U64(mon, (uintptr_t)m.om);
    set_word(&m, OM_OWNER, NO_OWNER);
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 1);
    CHECK_EQ_INT(owner, -1);
    set_word(&m, OM_OWNER, DEFLATER);
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 0);
    set_word(&m, OM_OWNER, (uintptr_t)-5);
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 0);

    /* Anonymous (lightweight locking): the owner is the registered thread whose lock stack holds
     * the object. A thread registered by another (start-up enumeration) is never scanned. */
    set_word(&m, OM_OWNER, ANONYMOUS);
    owners_thread_started(self.jni, as_jobject(&other.obj), 12, 0);
    push_lock(&other, m.local_slot);
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 0);
    owners_thread_started(self.jni, as_jobject(&self.obj), 11, 1);
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 0);   /* not on its lock stack */
    push_lock(&self, 0x7f0000900000u);
    push_lock(&self, m.local_slot);
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 1);
    CHECK_EQ_INT(owner, 11);
    /* A lock stack's top past the JavaThread: not read. */
    uint32_t *top = (uint32_t *)(void *)(self.jt + JT_LOCK_STACK);
    uint32_t was = *top;
    *top = JT_SIZE + 8;
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 0);
    *top = was;
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 1);
    owners_thread_ended(11);
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 0);
    free(m.om);
}

TEST(owners_read_a_thread_id_owner_and_its_markers) {
    CHECK(alone(tid_owners));
}

/* ---- Generational ZGC: the VM's storage holds coloured pointers ---- */

/* Sets ZGC's global `name` (through ZGlobalsForVMStructs, as vmstructs.c reads it). */
static void set_zgc_global(const char *name, uintptr_t value) {
    uintptr_t instance_p = 0;
    const char *ts;
    int64_t off = 0;
    CHECK(vmstructs_static_field("ZGlobalsForVMStructs", "_instance_p", &instance_p, &ts) == 0);
    CHECK(vmstructs_field("ZGlobalsForVMStructs", name, &off, &ts) == 0);
    uintptr_t instance = *(uintptr_t *)instance_p;
    **(uintptr_t **)(instance + (uintptr_t)off) = value;
}

/* A zpointer to `address`, remapped bit `r`, other metadata bits set. */
static uintptr_t zcolor(uintptr_t address, unsigned r) {
    return address << (VM_ZPOINTER_REMAPPED_SHIFT + 1 + r) | (uintptr_t)1 << (VM_ZPOINTER_REMAPPED_SHIFT + r) | 0x0ff0u;
}

static void zgc_owners(void) {
    const char *why = NULL;
    CHECK(vmstructs_open(self.jni, &why) == 0);
    set_zgc_global("_ZAddressOffsetMask", ((uintptr_t)1 << 42) - 1);
    set_zgc_global("_ZPointerLoadShift", VM_ZPOINTER_REMAPPED_SHIFT + 2);
    set_zgc_global("_ZPointerLoadGoodMask", (uintptr_t)1 << (VM_ZPOINTER_REMAPPED_SHIFT + 1));
    /* The Thread's OopHandle uncoloured: under ZGC it is no reference to the Thread. */
    refused("the current JavaThread could not be located and checked");
    self.thread_obj = zcolor(oop_of(&self.obj), 1);
    owners_init(jvmti, self.jni, 1, 1 << 24);
    CHECK(strcmp(owners_mode(), "vm-pointer") == 0);
    CHECK(strcmp(vmstructs_refs_name(), "zgc-colored") == 0);
    owners_thread_started(self.jni, as_jobject(&other.obj), 12, 0);

    uintptr_t address = 0x7f0000100000u;
    vm_monitor m;
    vm_monitor_make(&m, address);
    set_word(&m, OM_OWNER, (uintptr_t)other.jt);
    int64_t owner;
    uintptr_t mon;
    for (unsigned r = 0; r < 4; r++) {   /* whichever remapped bit the zpointer has */
        m.weak_slot = zcolor(address, r);
        CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 1);
        CHECK_EQ_INT(owner, 12);
    }
    m.weak_slot = address;                      /* not a zpointer */
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 0);
    m.weak_slot = zcolor(address + 8, 2);       /* another object's */
    CHECK_EQ_INT(read_owner(&m, object_of(&m), &owner, &mon), 0);
    free(m.om);
}

TEST(owners_compare_zgc_coloured_references_with_the_events_object) {
    CHECK(alone(zgc_owners));
}

/* ---- The releaser (owners.h: read only where the word is known current) ---- */

static vm_monitor rm;
static uintptr_t self_word = 11;   /* the owner word of a monitor the current thread holds */

/* The current thread's MonitorContendedEnter on rm, held by the thread whose owner word is
 * `holder` (Java id `holder_id`), the VM's _previous_owner_tid `prev` and `waiters` waiting. */
static uintptr_t enter_as(uintptr_t holder, int64_t holder_id, int64_t prev, int waiters) {
    set_word(&rm, OM_OWNER, holder);
    set_word(&rm, OM_PREV, (uintptr_t)prev);
    *(int32_t *)(void *)((uint8_t *)rm.om + OM_WAITERS) = waiters;
    int64_t owner;
    uintptr_t mon;
    CHECK_EQ_INT(read_owner(&rm, object_of(&rm), &owner, &mon), 1);
    CHECK_EQ_INT(owner, holder_id);
    return mon;
}

static uintptr_t enter(int64_t holder, int64_t prev, int waiters) {
    return enter_as((uintptr_t)holder, holder, prev, waiters);
}

/* Its MonitorContendedEntered after the holder's release wrote `prev`: the releaser, 0 none. */
static int64_t entered(uintptr_t mon, int64_t prev) {
    set_word(&rm, OM_OWNER, self_word);   /* the current thread owns it now */
    set_word(&rm, OM_PREV, (uintptr_t)prev);
    int64_t releaser = 0;
    int r = owners_releaser(self.jni, object_of(&rm), mon, 11, 0, &releaser);
    CHECK(r == 0 || r == 1);
    return r ? releaser : 0;
}

static void running(int n) {
    mock_running[0] = &self.obj;
    mock_running[1] = &other.obj;
    mock_nrunning = n;
    mock_jfr = 1;
}

static void releasers(void) {
    set_type("ObjectMonitor", "_owner", "int64_t");
    running(2);
    owners_init(jvmti, self.jni, 1, 1 << 24);
    CHECK(strcmp(owners_releasers_mode(), "vm") == 0);
    vm_monitor_make(&rm, 0x7f0000100000u);
    uintptr_t mon;

    /* Not armed: never read. */
    mon = enter(12, 0, 0);
    CHECK_EQ_INT(entered(mon, 12), 0);

    CHECK_EQ_INT(owners_releasers_arm(jvmti, self.jni, 1), 1);
    /* The holder seen at the enter released it through the VM's exit: it wrote its id. */
    mon = enter(12, 0, 0);
    CHECK_EQ_INT(entered(mon, 12), 12);
    /* Held by 2 again, its release did not write the word (a compiled fast exit): the word still
     * names 2 as at the enter, unchanged: stale. */
    mon = enter(12, 12, 0);
    CHECK_EQ_INT(entered(mon, 12), 0);
    /* The word changed but names a thread not seen holding it. */
    mon = enter(12, 0, 0);
    CHECK_EQ_INT(entered(mon, 13), 0);
    /* No holder known at the enter (the monitor was free). */
    mon = enter_as(NO_OWNER, -1, 0, 0);
    CHECK_EQ_INT(entered(mon, 12), 0);
    /* A waiter at the enter, or one taking the monitor back since (MonitorWaited). */
    mon = enter(12, 0, 1);
    CHECK_EQ_INT(entered(mon, 12), 0);
    mon = enter(12, 0, 0);
    *at(other.jt, JT_WAITING) = (uintptr_t)rm.om;
    owners_waited(other.jni, object_of(&rm));
    CHECK_EQ_INT(entered(mon, 12), 0);
    /* An acquisition of a monitor not tracked meanwhile. */
    mon = enter(12, 0, 0);
    owners_untracked_acquisition();
    CHECK_EQ_INT(entered(mon, 12), 0);
    /* Disarmed and armed again meanwhile: not armed throughout. */
    mon = enter(12, 0, 0);
    CHECK_EQ_INT(owners_releasers_arm(jvmti, self.jni, 0), 0);
    CHECK_EQ_INT(owners_releasers_arm(jvmti, self.jni, 1), 1);
    CHECK_EQ_INT(entered(mon, 12), 0);
    /* The monitor not owned by this thread at its entered. */
    mon = enter(12, 0, 0);
    set_word(&rm, OM_PREV, 12);
    int64_t releaser = 0;
    CHECK_EQ_INT(owners_releaser(self.jni, object_of(&rm), mon, 11, 0, &releaser), 0);
    /* A virtual thread: its enter and entered need not run on one OS thread. */
    mon = enter(12, 0, 0);
    set_word(&rm, OM_OWNER, 11);
    set_word(&rm, OM_PREV, 12);
    CHECK_EQ_INT(owners_releaser(self.jni, object_of(&rm), mon, 11, 1, &releaser), 0);
    /* The object's monitor is not this one any more (deflated and reused). */
    mon = enter(12, 0, 0);
    rm.weak_slot = 0x7f0000200000u;
    CHECK_EQ_INT(entered(mon, 12), 0);
    rm.weak_slot = rm.local_slot;
    /* And the plain case after all of these. */
    mon = enter(12, 0, 0);
    CHECK_EQ_INT(entered(mon, 12), 12);

    /* Off by option: for good. */
    CHECK_EQ_INT(owners_releasers_arm(jvmti, self.jni, -1), -1);
    CHECK_EQ_INT(owners_releasers_arm(jvmti, self.jni, 1), -1);
    mon = enter(12, 0, 0);
    CHECK_EQ_INT(entered(mon, 12), 0);
    free(rm.om);
}

TEST(owners_take_a_releaser_only_where_the_word_is_current) {
    CHECK(alone(releasers));
}

/* JDK 18 (pointer owners): JFR numbers threads itself; its ids are mapped to Java ids, for the
 * threads running at the first arming and each thread that starts later. */
static void releasers_jfr_ids(void) {
    mock_vm_feature = "18";
    mock_jfr_id_shift = 100;
    running(2);
    owners_init(jvmti, self.jni, 1, 1 << 24);
    owners_thread_started(self.jni, as_jobject(&self.obj), 11, 1);
    owners_thread_started(self.jni, as_jobject(&other.obj), 12, 0);
    CHECK_EQ_INT(owners_releasers_arm(jvmti, self.jni, 1), 1);
    self_word = (uintptr_t)self.jt;
    vm_monitor_make(&rm, 0x7f0000100000u);
    uintptr_t mon = enter_as((uintptr_t)other.jt, 12, 0, 0);
    CHECK_EQ_INT(entered(mon, 112), 12);
    mon = enter_as((uintptr_t)other.jt, 12, 0, 0);
    CHECK_EQ_INT(entered(mon, 12), 0);   /* a Java id is no JFR id here */
    free(rm.om);
}

TEST(owners_map_jfr_thread_ids_before_jdk_19) {
    CHECK(alone(releasers_jfr_ids));
}

/* JDK 25 whose JFR ids are not the Java ids: refused. */
static void releasers_other_ids(void) {
    set_type("ObjectMonitor", "_owner", "int64_t");
    mock_jfr_id_shift = 100;
    running(1);
    owners_init(jvmti, self.jni, 1, 1 << 24);
    CHECK_EQ_INT(owners_releasers_arm(jvmti, self.jni, 1), -1);
    CHECK(strcmp(owners_releasers_mode(), "inferred: JFR's thread ids are not the Java thread ids on this JVM") == 0);
}

/* A release whose ObjectMonitor is not known, or an exported field where the word would be. */
static void releasers_unknown_layout(void) {
    mock_vm_feature = "26";
    owners_init(jvmti, self.jni, 1, 1 << 24);
    CHECK(strcmp(owners_mode(), "vm-pointer") == 0);   /* owners still exact */
    CHECK(strstr(owners_releasers_mode(), "JDK 17 to 25 only") != NULL);
    CHECK_EQ_INT(owners_releasers_arm(jvmti, self.jni, 1), -1);
}

static void releasers_field_in_the_way(void) {
    set_offset("ObjectMonitor", "_waiters", OM_PREV);
    owners_init(jvmti, self.jni, 1, 1 << 24);
    CHECK(strstr(owners_releasers_mode(), "an exported ObjectMonitor field lies where") != NULL);
    CHECK_EQ_INT(owners_releasers_arm(jvmti, self.jni, 1), -1);
}

TEST(owners_refuse_releasers_they_cannot_name) {
    CHECK(alone(releasers_other_ids));
    CHECK(alone(releasers_unknown_layout));
    CHECK(alone(releasers_field_in_the_way));
}
