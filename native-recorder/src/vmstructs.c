#define _GNU_SOURCE
#include "vmstructs.h"

#include <dlfcn.h>
#include <stdio.h>
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

/* ---- references under ZGC ---- */

vmstructs_refs_t vmstructs_refs = {VM_REFS_PLAIN, 0};
static int refs_state;            /* 0: not decided, 1: decided, -1: refused */
static const char *refs_why;

const char *vmstructs_refs_name(void) {
    switch (vmstructs_refs.kind) {
    case VM_REFS_ZCOLORED: return "zgc-colored";
    case VM_REFS_ZMULTI: return "zgc-multimapped";
    default: return "plain";
    }
}

/* The base of the libjvm that holds the JNI function table (0: unknown). */
static uintptr_t jvm_base(JNIEnv *jni) {
    Dl_info info;
    return dladdr((void *)(*jni)->GetVersion, &info) ? (uintptr_t)info.dli_fbase : 0;
}

/* A word-aligned address inside the libjvm image (its data, where the VM's globals are). */
static int in_jvm(uintptr_t base, uintptr_t a) {
    Dl_info info;
    return base != 0 && a != 0 && (a & 7) == 0 && dladdr((void *)a, &info) && (uintptr_t)info.dli_fbase == base;
}

#define ZG_ABSENT (-1)            /* the VM exports no such structure or field */
#define ZG_BAD (-2)               /* it does, and it does not check out */

/*
 * One of ZGC's globals, through the structure it exports for the Serviceability Agent
 * (PFXGlobalsForVMStructs::_instance_p, PFX being Z, or X for JDK 21's ZGC without generations):
 * the value of the global that the field _PFXname of that structure points to. Every step is
 * checked before it is read: the static field and its type, the structure's size, the field's
 * offset and type, and each pointer (the instance, the global) inside the libjvm image, aligned.
 * 0 read; ZG_ABSENT; ZG_BAD.
 */
static int zgc_global(JNIEnv *jni, const char *pfx, const char *name, const char *type, uintptr_t *value) {
    char tname[64], sname[80], fname[80];
    snprintf(tname, sizeof(tname), "%sGlobalsForVMStructs", pfx);
    snprintf(sname, sizeof(sname), "%s*", tname);
    snprintf(fname, sizeof(fname), "_%s%s", pfx, name);
    uintptr_t base = jvm_base(jni), at = 0;
    uint64_t size = 0;
    int64_t off = 0;
    const char *ts = NULL, *fts = NULL;
    if (vmstructs_static_field(tname, "_instance_p", &at, &ts) != 0 || vmstructs_field(tname, fname, &off, &fts) != 0) {
        return ZG_ABSENT;
    }
    if (!ts || strcmp(ts, sname) != 0 || !in_jvm(base, at) || vmstructs_type_size(tname, &size) != 0 || size < 8 ||
        size > 4096 || !fts || strcmp(fts, type) != 0 || off < 0 || (off & 7) != 0 || (uint64_t)off + 8 > size) {
        return ZG_BAD;
    }
    uintptr_t instance = load_relaxed((const uintptr_t *)at);
    if (!in_jvm(base, instance) || !in_jvm(base, (instance + size - 8) & ~(uintptr_t)7)) return ZG_BAD;
    uintptr_t global = load_relaxed((const uintptr_t *)(instance + (uint64_t)off));
    if (!in_jvm(base, global)) return ZG_BAD;
    *value = load_relaxed((const uintptr_t *)global);
    return 0;
}

#define ZG_UNREADABLE "ZGC's globals (ZGlobalsForVMStructs) do not check out"
#define ZG_UNKNOWN "ZGC's coloured pointers have a layout this recorder does not know"

int vmstructs_references_probe(JNIEnv *jni, vmstructs_refs_t *out, const char **why) {
    if (vmstructs_open(jni, why) != 0) return -1;
    out->kind = VM_REFS_PLAIN;
    out->offset_mask = 0;
    uintptr_t shift = 0, good = 0, offsets = 0;
    int r = zgc_global(jni, "Z", "PointerLoadShift", "size_t*", &shift);
    if (r == ZG_BAD) {
        *why = ZG_UNREADABLE;
        return -1;
    }
    if (r == 0 && shift != 0) {
        /* Generational ZGC (JDK 21 to 25), in use: it has set the load shift (another collector
         * leaves it 0). The current good colour must be one remapped bit and the load shift its
         * position plus one, as the decoding takes it (read again if a GC phase changed the
         * colour between the reads). */
        int ok = 0;
        for (int i = 0; i < 3 && !ok; i++) {
            uintptr_t again = 0;
            if (zgc_global(jni, "Z", "PointerLoadGoodMask", "uintptr_t*", &good) != 0 ||
                zgc_global(jni, "Z", "AddressOffsetMask", "uintptr_t*", &offsets) != 0 ||
                zgc_global(jni, "Z", "PointerLoadShift", "size_t*", &again) != 0) {
                *why = ZG_UNREADABLE;
                return -1;
            }
            ok = again == shift && shift >= VM_ZPOINTER_REMAPPED_SHIFT + 1 && shift <= VM_ZPOINTER_REMAPPED_SHIFT + 4 &&
                 ((good >> VM_ZPOINTER_REMAPPED_SHIFT) & 15u) == 1u << (shift - VM_ZPOINTER_REMAPPED_SHIFT - 1) &&
                 offsets != 0;
            shift = again;
        }
        if (!ok) {
            *why = ZG_UNKNOWN;
            return -1;
        }
        out->kind = VM_REFS_ZCOLORED;
        return 0;
    }
    /* ZGC before generations (JDK 17's ZGlobalsForVMStructs, JDK 21's XGlobalsForVMStructs), in
     * use: it has set the offset mask (another collector leaves it 0), which must be a run of
     * low bits with the good colour a single bit above it. */
    const char *pfx = r == 0 ? "X" : "Z";
    r = zgc_global(jni, pfx, "AddressOffsetMask", "uintptr_t*", &offsets);
    if (r == ZG_BAD) {
        *why = ZG_UNREADABLE;
        return -1;
    }
    if (r == 0 && offsets != 0) {
        if (zgc_global(jni, pfx, "AddressGoodMask", "uintptr_t*", &good) != 0 || (offsets & (offsets + 1)) != 0 ||
            offsets < 0xffffffffu || offsets >= ((uintptr_t)1 << 47) || good <= offsets || (good & (good - 1)) != 0) {
            *why = ZG_UNKNOWN;
            return -1;
        }
        out->kind = VM_REFS_ZMULTI;
        out->offset_mask = offsets;
    }
    return 0;
}

int vmstructs_references(JNIEnv *jni, const char **why) {
    if (refs_state > 0) return 0;
    if (refs_state < 0) {
        *why = refs_why;
        return -1;
    }
    vmstructs_refs_t found;
    if (vmstructs_references_probe(jni, &found, why) != 0) {
        refs_state = -1;
        refs_why = *why;
        return -1;
    }
    vmstructs_refs = found;
    refs_state = 1;
    return 0;
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
    if (vmstructs_references(jni, why) != 0) return -1;
    /* Thread.eetop must sit a fixed distance below the JNIEnv and point back to this Thread
     * through _threadObj (an OopHandle or an oop: both resolve through one word), the
     * reference read as the collector stores it. */
    uintptr_t jt = (uintptr_t)(*jni)->GetLongField(jni, self, eetop);
    intptr_t off = (intptr_t)((uintptr_t)jni - jt);
    int ok = jt != 0 && (jt & 7) == 0 && off > 0 && (uint64_t)off < jt_size;
    if (ok) {
        /* The Thread object may move between the two reads: a few tries. */
        uintptr_t handle = (uintptr_t)self & ~(uintptr_t)3;
        ok = 0;
        for (int i = 0; i < 3 && !ok; i++) {
            uintptr_t slot = load_relaxed((const uintptr_t *)(jt + (uint64_t)thread_obj_off));
            if (slot == 0 || (slot & 7) != 0) break;
            uintptr_t ref = vmstructs_root_ref(load_relaxed((const uintptr_t *)slot));
            ok = ref != 0 && ref == vmstructs_local_ref(load_relaxed((const uintptr_t *)handle));
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
