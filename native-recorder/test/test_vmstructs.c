/*
 * vmstructs.c against tables this test exports under HotSpot's symbol names (the test binary
 * is linked with -rdynamic, so that dlsym finds them as it finds libjvm's). The tables also hold
 * the fields owners.c reads: test_owners.c runs owners.c against them.
 */
#include "check.h"
#include "vmstructs.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *type_name;
    const char *field_name;
    const char *type_string;
    int32_t is_static;
    uint64_t offset;
    void *address;
} struct_entry;

typedef struct {
    const char *type_name;
    const char *superclass;
    int32_t is_oop, is_integer, is_unsigned;
    uint64_t size;
} type_entry;

typedef struct {
    const char *name;
    int64_t value;
} long_entry;

/* ZGC's globals as generational ZGC (ZGlobalsForVMStructs) and JDK 21's ZGC without generations
 * (XGlobalsForVMStructs) export them for the Serviceability Agent: a structure of pointers to the
 * globals, reached through a static pointer to its one instance. */
typedef struct {
    uintptr_t *offset_mask;
    uintptr_t *load_good_mask;
    size_t *load_shift;
} zglobals;
typedef struct {
    uint32_t *phase;
    uintptr_t *offset_mask;
    uintptr_t *good_mask;
} xglobals;
static uintptr_t z_offset_mask, z_load_good_mask, x_offset_mask, x_good_mask;
static size_t z_load_shift;
static zglobals z_instance = {&z_offset_mask, &z_load_good_mask, &z_load_shift};
static xglobals x_instance = {NULL, &x_offset_mask, &x_good_mask};
static zglobals *z_instance_p = &z_instance;
static xglobals *x_instance_p = &x_instance;

static struct_entry structs[] = {
    {"JavaThread", "_threadObj", "OopHandle", 0, 648, NULL},
    {"JavaThread", "_current_pending_monitor", "ObjectMonitor*", 0, 776, NULL},
    {"JavaThread", "_current_waiting_monitor", "ObjectMonitor*", 0, 784, NULL},
    {"JavaThread", "_monitor_owner_id", "int64_t", 0, 800, NULL},
    {"JavaThread", "_lock_stack", "LockStack", 0, 816, NULL},
    {"LockStack", "_top", "uint32_t", 0, 0, NULL},
    {"LockStack", "_base[0]", "oop", 0, 8, NULL},
    {"ObjectMonitor", "_object", "WeakHandle", 0, 16, NULL},
    {"ObjectMonitor", "_owner", NULL, 0, 64, NULL},
    {"ObjectMonitor", "_waiters", "int", 0, 96, NULL},
    {"ObjectMonitor", "_static_thing", "int", 1, 0, NULL},
    {"ZGlobalsForVMStructs", "_instance_p", "ZGlobalsForVMStructs*", 1, 0, &z_instance_p},
    {"ZGlobalsForVMStructs", "_ZAddressOffsetMask", "uintptr_t*", 0, offsetof(zglobals, offset_mask), NULL},
    {"ZGlobalsForVMStructs", "_ZPointerLoadGoodMask", "uintptr_t*", 0, offsetof(zglobals, load_good_mask), NULL},
    {"ZGlobalsForVMStructs", "_ZPointerLoadShift", "size_t*", 0, offsetof(zglobals, load_shift), NULL},
    {"XGlobalsForVMStructs", "_instance_p", "XGlobalsForVMStructs*", 1, 0, &x_instance_p},
    {"XGlobalsForVMStructs", "_XAddressOffsetMask", "uintptr_t*", 0, offsetof(xglobals, offset_mask), NULL},
    {"XGlobalsForVMStructs", "_XAddressGoodMask", "uintptr_t*", 0, offsetof(xglobals, good_mask), NULL},
    {NULL, NULL, NULL, 0, 0, NULL},
};
static type_entry types[] = {
    {"JavaThread", "Thread", 0, 0, 0, 1384},
    {"ObjectMonitor", NULL, 0, 0, 0, 208},
    {"ZGlobalsForVMStructs", NULL, 0, 0, 0, sizeof(zglobals)},
    {"XGlobalsForVMStructs", NULL, 0, 0, 0, sizeof(xglobals)},
    {NULL, NULL, 0, 0, 0, 0},
};
static long_entry longs[] = {
    {"ObjectMonitor::NO_OWNER", 0},
    {"ObjectMonitor::ANONYMOUS_OWNER", 1},
    {"ObjectMonitor::DEFLATER_MARKER", 2},
    {NULL, 0},
};

#define EXPORT __attribute__((visibility("default"), used))
EXPORT void *gHotSpotVMStructs = structs;
EXPORT uint64_t gHotSpotVMStructEntryArrayStride = 0;   /* set by the test: first malformed */
EXPORT uint64_t gHotSpotVMStructEntryTypeNameOffset = offsetof(struct_entry, type_name);
EXPORT uint64_t gHotSpotVMStructEntryFieldNameOffset = offsetof(struct_entry, field_name);
EXPORT uint64_t gHotSpotVMStructEntryTypeStringOffset = offsetof(struct_entry, type_string);
EXPORT uint64_t gHotSpotVMStructEntryIsStaticOffset = offsetof(struct_entry, is_static);
EXPORT uint64_t gHotSpotVMStructEntryOffsetOffset = offsetof(struct_entry, offset);
EXPORT uint64_t gHotSpotVMStructEntryAddressOffset = offsetof(struct_entry, address);
EXPORT void *gHotSpotVMTypes = types;
EXPORT uint64_t gHotSpotVMTypeEntryArrayStride = sizeof(type_entry);
EXPORT uint64_t gHotSpotVMTypeEntryTypeNameOffset = offsetof(type_entry, type_name);
EXPORT uint64_t gHotSpotVMTypeEntrySizeOffset = offsetof(type_entry, size);
EXPORT void *gHotSpotVMLongConstants = longs;
EXPORT uint64_t gHotSpotVMLongConstantEntryArrayStride = sizeof(long_entry);
EXPORT uint64_t gHotSpotVMLongConstantEntryNameOffset = offsetof(long_entry, name);
EXPORT uint64_t gHotSpotVMLongConstantEntryValueOffset = offsetof(long_entry, value);

static jint JNICALL version(JNIEnv *env) {
    (void)env;
    return JNI_VERSION_1_8;
}

TEST(vmstructs_refuses_a_malformed_table_then_reads_a_good_one) {
    struct JNINativeInterface_ fns;
    memset(&fns, 0, sizeof(fns));
    fns.GetVersion = version;
    const struct JNINativeInterface_ *env_fns = &fns;
    JNIEnv *jni = (JNIEnv *)&env_fns;
    const char *why = NULL;

    /* A stride of 0 is no table: refused, and no look-up answers. */
    CHECK(vmstructs_open(jni, &why) == -1);
    CHECK(why != NULL && strstr(why, "layout") != NULL);
    int64_t off = -1;
    const char *ts = NULL;
    CHECK(vmstructs_field("ObjectMonitor", "_owner", &off, &ts) == -1);

    gHotSpotVMStructEntryArrayStride = sizeof(struct_entry);
    CHECK(vmstructs_open(jni, &why) == 0);
    CHECK(vmstructs_field("JavaThread", "_current_pending_monitor", &off, &ts) == 0);
    CHECK_EQ_U64(off, 776);
    CHECK(ts != NULL && strcmp(ts, "ObjectMonitor*") == 0);
    CHECK(vmstructs_field("ObjectMonitor", "_owner", &off, &ts) == 0);
    CHECK_EQ_U64(off, 64);
    CHECK(ts == NULL);                                   /* an unchecked field has no type */
    CHECK(vmstructs_field("ObjectMonitor", "_static_thing", &off, &ts) == -1);   /* static: not a field */
    CHECK(vmstructs_field("ObjectMonitor", "_no_such", &off, &ts) == -1);
    uint64_t size = 0;
    CHECK(vmstructs_type_size("ObjectMonitor", &size) == 0);
    CHECK_EQ_U64(size, 208);
    CHECK(vmstructs_type_size("NoSuchType", &size) == -1);
    int64_t v = 0;
    CHECK(vmstructs_long_constant("ObjectMonitor::ANONYMOUS_OWNER", &v) == 0);
    CHECK_EQ_U64(v, 1);
    CHECK(vmstructs_long_constant("ObjectMonitor::NO_SUCH_MARKER", &v) == -1);
}

static JNIEnv *test_env(struct JNINativeInterface_ *fns, const struct JNINativeInterface_ **env_fns) {
    memset(fns, 0, sizeof(*fns));
    fns->GetVersion = version;
    *env_fns = fns;
    return (JNIEnv *)env_fns;
}

/* A zaddress coloured as generational ZGC stores it with remapped bit `r` (0 to 3) set. */
static uintptr_t zcolor(uintptr_t address, unsigned r) {
    return address << (VM_ZPOINTER_REMAPPED_SHIFT + 1 + r) | (uintptr_t)1 << (VM_ZPOINTER_REMAPPED_SHIFT + r) |
           0x0ff0u;   /* marked, finalizable and remembered bits: ignored */
}

TEST(vmstructs_zpointer_gives_the_address_whichever_remapped_bit_is_set) {
    uintptr_t a = ((uintptr_t)1 << 42) | 0x12345678;   /* heap base bit and an offset, 8-aligned */
    a &= ~(uintptr_t)7;
    for (unsigned r = 0; r < 4; r++) CHECK_EQ_U64(vmstructs_zpointer_address(zcolor(a, r)), a);
    /* a coloured null: metadata bits, no address */
    CHECK_EQ_U64(vmstructs_zpointer_address((uintptr_t)1 << (VM_ZPOINTER_REMAPPED_SHIFT + 2) | 0x0ff0u), 0);
    CHECK_EQ_U64(vmstructs_zpointer_address(0), 0);
    /* no remapped bit, or two of them: not a zpointer of an 8-aligned address */
    CHECK_EQ_U64(vmstructs_zpointer_address(a), 0);
    CHECK_EQ_U64(vmstructs_zpointer_address(zcolor(a, 0) | (uintptr_t)1 << (VM_ZPOINTER_REMAPPED_SHIFT + 2)), 0);
}

TEST(vmstructs_root_and_local_references_compare_in_every_form) {
    vmstructs_refs_t saved = vmstructs_refs;
    uintptr_t a = ((uintptr_t)1 << 43) | 0xabcdef0;
    vmstructs_refs.kind = VM_REFS_PLAIN;
    CHECK_EQ_U64(vmstructs_root_ref(a), vmstructs_local_ref(a));
    vmstructs_refs.kind = VM_REFS_ZCOLORED;
    for (unsigned r = 0; r < 4; r++) CHECK_EQ_U64(vmstructs_root_ref(zcolor(a, r)), vmstructs_local_ref(a));
    CHECK(vmstructs_root_ref(a) != vmstructs_local_ref(a));   /* an uncoloured word is no zpointer of it */
    /* JDK 17's ZGC: both sides coloured, the colour may differ: the offsets compare */
    vmstructs_refs.kind = VM_REFS_ZMULTI;
    vmstructs_refs.offset_mask = ((uintptr_t)1 << 42) - 1;
    uintptr_t off = 0x1234560;
    CHECK_EQ_U64(vmstructs_root_ref(off | (uintptr_t)1 << 42), vmstructs_local_ref(off | (uintptr_t)1 << 44));
    CHECK(vmstructs_root_ref((off + 8) | (uintptr_t)1 << 42) != vmstructs_local_ref(off | (uintptr_t)1 << 42));
    vmstructs_refs = saved;
}

TEST(vmstructs_references_are_decided_from_checked_zgc_globals) {
    struct JNINativeInterface_ fns;
    const struct JNINativeInterface_ *env_fns;
    JNIEnv *jni = test_env(&fns, &env_fns);
    const char *why = NULL;
    gHotSpotVMStructEntryArrayStride = sizeof(struct_entry);
    CHECK(vmstructs_open(jni, &why) == 0);
    vmstructs_refs_t r;

    /* Another collector: ZGC left its globals 0. */
    z_load_shift = 0;
    x_offset_mask = 0;
    CHECK(vmstructs_references_probe(jni, &r, &why) == 0);
    CHECK_EQ_INT(r.kind, VM_REFS_PLAIN);

    /* Generational ZGC: the good colour is remapped bit 1, the load shift 14. */
    z_offset_mask = ((uintptr_t)1 << 42) - 1;
    z_load_shift = VM_ZPOINTER_REMAPPED_SHIFT + 2;
    z_load_good_mask = (uintptr_t)1 << (VM_ZPOINTER_REMAPPED_SHIFT + 1) | 0x0150u;
    CHECK(vmstructs_references_probe(jni, &r, &why) == 0);
    CHECK_EQ_INT(r.kind, VM_REFS_ZCOLORED);

    /* A load shift that does not match the good colour's remapped bit: a layout not known. */
    z_load_good_mask = (uintptr_t)1 << VM_ZPOINTER_REMAPPED_SHIFT;
    why = NULL;
    CHECK(vmstructs_references_probe(jni, &r, &why) == -1);
    CHECK(why != NULL && strstr(why, "layout") != NULL);
    z_load_shift = 20;
    z_load_good_mask = (uintptr_t)1 << 19;
    CHECK(vmstructs_references_probe(jni, &r, &why) == -1);
    z_load_shift = VM_ZPOINTER_REMAPPED_SHIFT + 2;
    z_load_good_mask = (uintptr_t)1 << (VM_ZPOINTER_REMAPPED_SHIFT + 1);

    /* The instance outside the VM's image (here: the C heap) is never read through. */
    zglobals *elsewhere = malloc(sizeof(*elsewhere));
    *elsewhere = z_instance;
    z_instance_p = elsewhere;
    why = NULL;
    CHECK(vmstructs_references_probe(jni, &r, &why) == -1);
    CHECK(why != NULL && strstr(why, "do not check out") != NULL);
    z_instance_p = &z_instance;
    free(elsewhere);

    /* A field of another type than the pointer expected: refused. */
    structs[14].type_string = "uint32_t*";
    CHECK(vmstructs_references_probe(jni, &r, &why) == -1);
    structs[14].type_string = "size_t*";
    CHECK(vmstructs_references_probe(jni, &r, &why) == 0);
    CHECK_EQ_INT(r.kind, VM_REFS_ZCOLORED);

    /* JDK 21's ZGC without generations (the generational globals left 0): the offsets compare. */
    z_load_shift = 0;
    x_offset_mask = ((uintptr_t)1 << 42) - 1;
    x_good_mask = (uintptr_t)1 << 44;
    CHECK(vmstructs_references_probe(jni, &r, &why) == 0);
    CHECK_EQ_INT(r.kind, VM_REFS_ZMULTI);
    CHECK_EQ_U64(r.offset_mask, x_offset_mask);
    x_good_mask = (uintptr_t)3 << 43;   /* two colours at once: not known */
    CHECK(vmstructs_references_probe(jni, &r, &why) == -1);
    x_good_mask = (uintptr_t)1 << 44;
    x_offset_mask = 0xff00ffffffffu;    /* not a run of low bits */
    CHECK(vmstructs_references_probe(jni, &r, &why) == -1);
    x_offset_mask = 0;
    CHECK(vmstructs_references_probe(jni, &r, &why) == 0);
    CHECK_EQ_INT(r.kind, VM_REFS_PLAIN);
}
