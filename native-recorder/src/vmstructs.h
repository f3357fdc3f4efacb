/*
 * Read-only access to HotSpot's exported description of its own structures
 * (gHotSpotVMStructs, gHotSpotVMTypes, gHotSpotVMLongConstants: the tables the
 * Serviceability Agent reads). Nothing here reads VM memory beyond those tables, ZGC's globals
 * (each pointer checked to lie in the libjvm image first) and the current thread's JavaThread:
 * the callers validate what they find before they use an offset (owners.c, frames.c).
 *
 * vmstructs_open() locates the tables once (in libjvm, through the JNI function table's
 * address when the symbols are not global); every lookup after that is a bounded scan of
 * immutable data, for start-up only.
 */
#ifndef CONVOY_VMSTRUCTS_H
#define CONVOY_VMSTRUCTS_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

/* A symbol of the libjvm that holds the JNI function table (found through one of its
 * functions' address), else a global symbol of that name; NULL when neither exists. */
void *vmstructs_jvm_symbol(JNIEnv *jni, const char *name);

/* 0 when the tables were found and are well formed; -1 otherwise (why: `reason`). */
int vmstructs_open(JNIEnv *jni, const char **reason);

/* A non-static field: its offset and the type string the VM gives (NULL: an "unchecked"
 * field, declared without a type). 0 found, -1 absent. */
int vmstructs_field(const char *type, const char *field, int64_t *offset, const char **type_string);
/* sizeof(type) as the VM declares it. 0 found, -1 absent. */
int vmstructs_type_size(const char *type, uint64_t *size);
/* A long constant (for example "ObjectMonitor::ANONYMOUS_OWNER"). 0 found, -1 absent. */
int vmstructs_long_constant(const char *name, int64_t *value);

/*
 * References as the collector stores them. A reference in the VM's own storage (OopStorage:
 * an OopHandle such as JavaThread::_threadObj, a WeakHandle such as ObjectMonitor::_object) and
 * one in a thread's own roots (a JNI local handle, a lock-stack entry) hold the same object's
 * address in different forms under ZGC:
 *  - VM_REFS_PLAIN: both are the address (Serial, Parallel, G1, Shenandoah, Epsilon);
 *  - VM_REFS_ZMULTI: ZGC before generations (JDK 17; JDK 21 without ZGenerational): both are
 *    coloured, the address (the heap offset, ZAddressOffsetMask) with one metadata bit above it
 *    that says in which phase it was last seen; the offsets are compared;
 *  - VM_REFS_ZCOLORED: generational ZGC (JDK 21 with ZGenerational, the only ZGC from 23): a
 *    thread's roots hold the plain address, the VM's storage a zpointer, the address shifted
 *    left past 16 metadata bits of which bits 12 to 15 (the "remapped" bits) hold one set bit
 *    that says how far: the address is the zpointer shifted right by that bit's position plus
 *    one (13 to 16). Each zpointer carries its own shift, so the decoding needs no global state
 *    that a GC phase could change under it.
 * vmstructs_current_thread() decides the form (from ZGC's exported globals, each checked) and
 * validates it on the current thread's _threadObj. The two functions below give, for a word
 * read from either place, the value compared: the same for the same object, 0 for none.
 */
enum { VM_REFS_PLAIN, VM_REFS_ZMULTI, VM_REFS_ZCOLORED };
typedef struct {
    int kind;
    uintptr_t offset_mask;        /* VM_REFS_ZMULTI */
} vmstructs_refs_t;
extern vmstructs_refs_t vmstructs_refs;

/* The remapped bits of a zpointer and the first of them (HotSpot's ZPointerRemappedShift). */
#define VM_ZPOINTER_REMAPPED_SHIFT 12

/* A zpointer's address: shifted right by its one set remapped bit's position plus one; 0 when
 * no single remapped bit is set (a null, or not a zpointer). Pure, for the unit tests too. */
static inline uintptr_t vmstructs_zpointer_address(uintptr_t w) {
    unsigned r = (unsigned)(w >> VM_ZPOINTER_REMAPPED_SHIFT) & 15u;
    if (r == 0 || (r & (r - 1)) != 0) return 0;
    return w >> (VM_ZPOINTER_REMAPPED_SHIFT + 1 + (unsigned)__builtin_ctz(r));
}

/* A word of the VM's storage (OopHandle, WeakHandle slot), as compared. */
static inline uintptr_t vmstructs_root_ref(uintptr_t w) {
    switch (vmstructs_refs.kind) {
    case VM_REFS_ZCOLORED: return vmstructs_zpointer_address(w);
    case VM_REFS_ZMULTI: return w & vmstructs_refs.offset_mask;
    default: return w;
    }
}

/* A word of a thread's own roots (JNI local handle, lock-stack entry), as compared. */
static inline uintptr_t vmstructs_local_ref(uintptr_t w) {
    return vmstructs_refs.kind == VM_REFS_ZMULTI ? w & vmstructs_refs.offset_mask : w;
}

/* "plain", "zgc-multimapped" or "zgc-colored": the form decided (after vmstructs_current_thread). */
const char *vmstructs_refs_name(void);

/* Decides the form of references (above) from the VM's exported ZGC globals, once, into
 * vmstructs_refs: 0 decided, -1 refused (why: `why`): the VM exports ZGC's globals but they do
 * not check out, or ZGC is in use with a layout of coloured pointers this recorder does not
 * know. A VM that exports no ZGC globals, or where another collector runs, has plain ones. */
int vmstructs_references(JNIEnv *jni, const char **why);
/* The same decision into *out, every time (for the unit tests). */
int vmstructs_references_probe(JNIEnv *jni, vmstructs_refs_t *out, const char **why);

/* The current thread's JavaThread and its distance to the JNIEnv (JNIEnv* - JavaThread*, the
 * same for every thread of the VM), found through Thread.eetop and checked through
 * JavaThread::_threadObj (its reference decoded as vmstructs_references decided). 0 found, -1
 * not (why: `why`). */
int vmstructs_current_thread(jvmtiEnv *jvmti, JNIEnv *jni, uintptr_t *jt, intptr_t *env_offset, const char **why);
/* A static field's address and type string. 0 found, -1 absent. */
int vmstructs_static_field(const char *type, const char *field, uintptr_t *address, const char **type_string);
/* An int constant (for example "frame::entry_frame_call_wrapper_offset"). 0 found, -1 absent. */
int vmstructs_int_constant(const char *name, int32_t *value);

#endif
