/*
 * vmstructs.c against tables this test exports under HotSpot's symbol names (the test binary
 * is linked with -rdynamic, so that dlsym finds them as it finds libjvm's).
 */
#include "check.h"
#include "vmstructs.h"

#include <stddef.h>
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

static struct_entry structs[] = {
    {"JavaThread", "_threadObj", "OopHandle", 0, 648, NULL},
    {"JavaThread", "_current_pending_monitor", "ObjectMonitor*", 0, 776, NULL},
    {"ObjectMonitor", "_owner", NULL, 0, 64, NULL},
    {"ObjectMonitor", "_static_thing", "int", 1, 0, NULL},
    {NULL, NULL, NULL, 0, 0, NULL},
};
static type_entry types[] = {
    {"JavaThread", "Thread", 0, 0, 0, 1384},
    {"ObjectMonitor", NULL, 0, 0, 0, 208},
    {NULL, NULL, 0, 0, 0, 0},
};
static long_entry longs[] = {
    {"ObjectMonitor::ANONYMOUS_OWNER", 1},
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
    CHECK(vmstructs_long_constant("ObjectMonitor::DEFLATER_MARKER", &v) == -1);
}
