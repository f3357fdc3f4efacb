/*
 * Read-only access to HotSpot's exported description of its own structures
 * (gHotSpotVMStructs, gHotSpotVMTypes, gHotSpotVMLongConstants: the tables the
 * Serviceability Agent reads). Nothing here reads VM memory beyond those tables: the
 * callers validate what they find before they use an offset (owners.c, frames.c).
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

/* The current thread's JavaThread and its distance to the JNIEnv (JNIEnv* - JavaThread*, the
 * same for every thread of the VM), found through Thread.eetop and checked through
 * JavaThread::_threadObj. 0 found, -1 not (why: `why`). */
int vmstructs_current_thread(jvmtiEnv *jvmti, JNIEnv *jni, uintptr_t *jt, intptr_t *env_offset, const char **why);
/* A static field's address and type string. 0 found, -1 absent. */
int vmstructs_static_field(const char *type, const char *field, uintptr_t *address, const char **type_string);
/* An int constant (for example "frame::entry_frame_call_wrapper_offset"). 0 found, -1 absent. */
int vmstructs_int_constant(const char *name, int32_t *value);

#endif
