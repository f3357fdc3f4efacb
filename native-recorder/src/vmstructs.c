#define _GNU_SOURCE
#include "vmstructs.h"

#include <dlfcn.h>
#include <string.h>

#include "arch.h"

/* No table of any HotSpot release comes near this; a longer one is not a table. */
#define MAX_ENTRIES 20000

static struct {
    int ok;
    const char *structs;
    uint64_t s_stride, s_type, s_field, s_type_string, s_is_static, s_offset;
    const char *types;
    uint64_t t_stride, t_name, t_size;
    const char *longs;
    uint64_t l_stride, l_name, l_value;
    uint64_t s_address;           /* a static field's address (0: not exported) */
    const char *ints;             /* int constants (NULL: not exported) */
    uint64_t i_stride, i_name, i_value;
} vs;

static void *symbol(void *lib, const char *name) {
    void *p = dlsym(RTLD_DEFAULT, name);
    if (!p && lib) p = dlsym(lib, name);
    return p;
}

/* The exported offsets are uint64_t variables describing the entry layout. */
static int layout(void *lib, const char *name, uint64_t *out) {
    uint64_t *p = symbol(lib, name);
    if (!p) return -1;
    *out = *p;
    return 0;
}

/* libjvm holds the JNI function table: find the library from one of its functions. The
 * handle (RTLD_NOLOAD) only adds a reference to the loaded library; dlclose drops it. */
static void *jvm_library(JNIEnv *jni) {
    Dl_info info;
    if (dladdr((void *)(*jni)->GetVersion, &info) && info.dli_fname) {
        return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    }
    return NULL;
}

void *vmstructs_jvm_symbol(JNIEnv *jni, const char *name) {
    void *lib = jvm_library(jni);
    void *p = symbol(lib, name);
    if (lib) dlclose(lib);
    return p;
}

int vmstructs_open(JNIEnv *jni, const char **reason) {
    if (vs.ok) return 0;
    void *lib = jvm_library(jni);
    const char **structs = symbol(lib, "gHotSpotVMStructs");
    const char **types = symbol(lib, "gHotSpotVMTypes");
    const char **longs = symbol(lib, "gHotSpotVMLongConstants");
    int missing = !structs || !types || !longs ||
        layout(lib, "gHotSpotVMStructEntryArrayStride", &vs.s_stride) ||
        layout(lib, "gHotSpotVMStructEntryTypeNameOffset", &vs.s_type) ||
        layout(lib, "gHotSpotVMStructEntryFieldNameOffset", &vs.s_field) ||
        layout(lib, "gHotSpotVMStructEntryTypeStringOffset", &vs.s_type_string) ||
        layout(lib, "gHotSpotVMStructEntryIsStaticOffset", &vs.s_is_static) ||
        layout(lib, "gHotSpotVMStructEntryOffsetOffset", &vs.s_offset) ||
        layout(lib, "gHotSpotVMTypeEntryArrayStride", &vs.t_stride) ||
        layout(lib, "gHotSpotVMTypeEntryTypeNameOffset", &vs.t_name) ||
        layout(lib, "gHotSpotVMTypeEntrySizeOffset", &vs.t_size) ||
        layout(lib, "gHotSpotVMLongConstantEntryArrayStride", &vs.l_stride) ||
        layout(lib, "gHotSpotVMLongConstantEntryNameOffset", &vs.l_name) ||
        layout(lib, "gHotSpotVMLongConstantEntryValueOffset", &vs.l_value);
    /* Static fields' addresses and the int constants: used where present (frames.c). */
    const char **ints = symbol(lib, "gHotSpotVMIntConstants");
    if (ints && *ints && layout(lib, "gHotSpotVMIntConstantEntryArrayStride", &vs.i_stride) == 0 &&
        layout(lib, "gHotSpotVMIntConstantEntryNameOffset", &vs.i_name) == 0 &&
        layout(lib, "gHotSpotVMIntConstantEntryValueOffset", &vs.i_value) == 0 && vs.i_stride >= 12 &&
        vs.i_stride <= 256 && vs.i_name + 8 <= vs.i_stride && vs.i_value + 4 <= vs.i_stride) {
        vs.ints = *ints;
    }
    if (layout(lib, "gHotSpotVMStructEntryAddressOffset", &vs.s_address) != 0) vs.s_address = 0;
    if (lib) dlclose(lib); /* RTLD_NOLOAD: only drops the reference just taken */
    if (vs.s_address + 8 > vs.s_stride) vs.s_address = 0;
    if (missing) {
        *reason = "this JVM exports no VMStructs tables (not HotSpot, or a stripped libjvm)";
        return -1;
    }
    vs.structs = *structs;
    vs.types = *types;
    vs.longs = *longs;
    /* Each entry must hold its fields within the stride; pointers and offsets are 8 bytes. */
    if (!vs.structs || !vs.types || !vs.longs ||
        vs.s_stride < 16 || vs.s_stride > 256 || vs.t_stride < 16 || vs.t_stride > 256 ||
        vs.l_stride < 16 || vs.l_stride > 256 ||
        vs.s_type + 8 > vs.s_stride || vs.s_field + 8 > vs.s_stride ||
        vs.s_type_string + 8 > vs.s_stride || vs.s_is_static + 4 > vs.s_stride ||
        vs.s_offset + 8 > vs.s_stride || vs.t_name + 8 > vs.t_stride || vs.t_size + 8 > vs.t_stride ||
        vs.l_name + 8 > vs.l_stride || vs.l_value + 8 > vs.l_stride) {
        *reason = "the VMStructs tables have an unexpected layout";
        return -1;
    }
    vs.ok = 1;
    return 0;
}

static const char *str_at(const char *entry, uint64_t off) {
    const char *s;
    memcpy(&s, entry + off, sizeof(s));
    return s;
}

/* The entry of a field (static or not) of `type`, or NULL. */
static const char *field_entry(const char *type, const char *field, int want_static) {
    if (!vs.ok) return NULL;
    const char *e = vs.structs;
    for (int i = 0; i < MAX_ENTRIES; i++, e += vs.s_stride) {
        const char *t = str_at(e, vs.s_type);
        if (!t) return NULL;
        const char *f = str_at(e, vs.s_field);
        int32_t is_static;
        memcpy(&is_static, e + vs.s_is_static, sizeof(is_static));
        if ((is_static != 0) == want_static && f && strcmp(t, type) == 0 && strcmp(f, field) == 0) return e;
    }
    return NULL;
}

int vmstructs_field(const char *type, const char *field, int64_t *offset, const char **type_string) {
    const char *e = field_entry(type, field, 0);
    if (!e) return -1;
    memcpy(offset, e + vs.s_offset, sizeof(*offset));
    *type_string = str_at(e, vs.s_type_string);
    return 0;
}

int vmstructs_type_size(const char *type, uint64_t *size) {
    if (!vs.ok) return -1;
    const char *e = vs.types;
    for (int i = 0; i < MAX_ENTRIES; i++, e += vs.t_stride) {
        const char *t = str_at(e, vs.t_name);
        if (!t) return -1;
        if (strcmp(t, type) == 0) {
            memcpy(size, e + vs.t_size, sizeof(*size));
            return 0;
        }
    }
    return -1;
}

int vmstructs_long_constant(const char *name, int64_t *value) {
    if (!vs.ok) return -1;
    const char *e = vs.longs;
    for (int i = 0; i < MAX_ENTRIES; i++, e += vs.l_stride) {
        const char *n = str_at(e, vs.l_name);
        if (!n) return -1;
        if (strcmp(n, name) == 0) {
            memcpy(value, e + vs.l_value, sizeof(*value));
            return 0;
        }
    }
    return -1;
}

int vmstructs_static_field(const char *type, const char *field, uintptr_t *address, const char **type_string) {
    const char *e = vs.s_address ? field_entry(type, field, 1) : NULL;
    void *p = NULL;
    if (e) memcpy(&p, e + vs.s_address, sizeof(p));
    if (!p) return -1;
    *address = (uintptr_t)p;
    *type_string = str_at(e, vs.s_type_string);
    return 0;
}

int vmstructs_int_constant(const char *name, int32_t *value) {
    if (!vs.ok || !vs.ints) return -1;
    const char *e = vs.ints;
    for (int i = 0; i < MAX_ENTRIES; i++, e += vs.i_stride) {
        const char *n = str_at(e, vs.i_name);
        if (!n) return -1;
        if (strcmp(n, name) == 0) {
            memcpy(value, e + vs.i_value, sizeof(*value));
            return 0;
        }
    }
    return -1;
}

int vmstructs_current_thread(jvmtiEnv *jvmti, JNIEnv *jni, uintptr_t *jt_out, intptr_t *env_offset,
                             const char **why) {
    uint64_t jt_size = 0;
    int64_t thread_obj_off = 0;
    const char *ts = NULL;
    if (vmstructs_open(jni, why) != 0) return -1;
    if (vmstructs_type_size("JavaThread", &jt_size) || jt_size < 64 || jt_size > (1u << 20) ||
        vmstructs_field("JavaThread", "_threadObj", &thread_obj_off, &ts) || thread_obj_off <= 0 ||
        (uint64_t)thread_obj_off + 8 > jt_size) {
        *why = "this JVM's VMStructs do not describe JavaThread (its size, _threadObj)";
        return -1;
    }
    jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");
    jfieldID eetop = tc ? (*jni)->GetFieldID(jni, tc, "eetop", "J") : NULL;
    if ((*jni)->ExceptionCheck(jni)) (*jni)->ExceptionClear(jni);
    if (tc) (*jni)->DeleteLocalRef(jni, tc);
    jthread self = NULL;
    if (!eetop || (*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE || !self) {
        *why = "java.lang.Thread has no field eetop, or GetCurrentThread failed";
        return -1;
    }
    /* Thread.eetop must sit a fixed distance below the JNIEnv and point back to this Thread
     * through _threadObj (an OopHandle or an oop: both resolve through one word). */
    uintptr_t jt = (uintptr_t)(*jni)->GetLongField(jni, self, eetop);
    intptr_t off = (intptr_t)((uintptr_t)jni - jt);
    int ok = jt != 0 && (jt & 7) == 0 && off > 0 && (uint64_t)off < jt_size;
    if (ok) {
        /* The Thread object may move between the two reads: a few tries. */
        uintptr_t handle = (uintptr_t)self & ~(uintptr_t)3;
        ok = 0;
        for (int i = 0; i < 3 && !ok; i++) {
            uintptr_t slot = load_relaxed((const uintptr_t *)(jt + (uint64_t)thread_obj_off));
            ok = slot != 0 && (slot & 7) == 0 && load_relaxed((const uintptr_t *)slot) != 0 &&
                 load_relaxed((const uintptr_t *)slot) == load_relaxed((const uintptr_t *)handle);
        }
    }
    (*jni)->DeleteLocalRef(jni, self);
    if (!ok) {
        *why = "the current JavaThread could not be located and checked (Thread.eetop, _threadObj)";
        return -1;
    }
    *jt_out = jt;
    *env_offset = off;
    return 0;
}
