/*
 * The current thread's chain of HotSpot frames, read from its own stack with the layout the
 * VM exports in VMStructs, as the proof that a stack has not changed (stackcache.h).
 *
 * A chain is a list of checks: memory words and the values they held when it was read. It
 * starts at the thread's frame anchor (JavaThread::_anchor: last Java sp, pc, fp) and steps from
 * each frame to its caller the way HotSpot's frame::sender does on x86_64:
 *  - a compiled frame or stub (a code blob with a frame size): the caller's sp is sp + frame
 *    size, its pc the word below that, its fp the word below the pc;
 *  - an interpreted frame (pc in the interpreter): the caller's pc at fp[1], its fp at fp[0],
 *    its sp at fp[-1] (frame::interpreter_frame_sender_sp_offset);
 *  - an entry frame (pc is the call stub's return address): the JavaCallWrapper at
 *    fp[frame::entry_frame_call_wrapper_offset] holds the anchor of the Java frames below, or
 *    none: the chain ends.
 * The checks hold everything HotSpot's own stack walk (GetStackTrace, AsyncGetCallTrace) reads
 * to name a frame's method and bytecode index:
 *  - the anchor's sp and pc (and fp when the top frame is interpreted);
 *  - each return pc, each saved fp that an interpreted or entry frame uses;
 *  - of a compiled frame, its nmethod's compile id (unique for the VM's life: the nmethod
 *    at that address is the one whose scopes were decoded);
 *  - of an interpreted frame, the method and bytecode pointer slots, the method's ConstMethod,
 *    and the jmethodID the VM gives that method (InstanceKlass::_methods_jmethod_ids, the
 *    read AsyncGetCallTrace makes);
 *  - of an entry frame, its JavaCallWrapper and that wrapper's anchor.
 * So when every check of a chain holds again, the thread's stack is frame for frame the one
 * the chain was read from, and any walk of it gives the same frames. Two checks read memory
 * other than the thread's own stack and JavaThread: the compile id (in the code heap, which
 * stays mapped) and the jmethodID (through a Method of a frame whose earlier checks held, so
 * live).
 *
 * Only what is certain is read: a pc that is not in the interpreter, in an nmethod, in the
 * monitor-enter stubs of C1 and C2 (top frame only) or the call stub's return refuses the
 * chain, as does a stack address outside the thread's stack or a chain longer than the
 * caller's room. frames_init validates every field and constant it uses, and the interpreter
 * frame layout against GetStackTrace on the calling thread's own frames.
 *
 * CONCURRENCY: frames_chain and frames_hold read the calling thread's own stack and state, the
 * code heap and metadata of its live frames; they write nothing shared. frames_init runs once,
 * before any other call.
 */
#ifndef CONVOY_FRAMES_H
#define CONVOY_FRAMES_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

/* A check: the word (kind in the address's low 2 bits) and the value it must hold. */
typedef struct {
    uintptr_t addr;
    uint64_t  value;
} frames_check;

enum { FRAMES_WORD = 0, FRAMES_INT = 1, FRAMES_JMID = 2 };

/* Why frames_chain refused (negative returns), also INFO names (frames_refusal_name). */
enum {
    FRAMES_NO_JAVA = -1,    /* no walkable last Java frame */
    FRAMES_BOUNDS = -2,     /* a stack address outside the thread's stack */
    FRAMES_UNKNOWN = -3,    /* a pc in no code this reader knows */
    FRAMES_STUB = -4,       /* a code blob other than an nmethod (or a monitor stub on top) */
    FRAMES_DEEP = -5,       /* more checks than the room given */
    FRAMES_NO_METHOD = -6,  /* an interpreted frame's method has no jmethodID */
    FRAMES_INTERPRETED = -7, /* an interpreted frame, and the interpreter layout was not validated */
    FRAMES_REFUSALS = 7
};

/* Once, from a Java thread in native (the recorder's start): 0 when chains can be read, else
 * -1 and why. With `interpreted` 0 the interpreter layout was not validated: chains through
 * interpreted frames are refused. */
int frames_init(jvmtiEnv *jvmti, JNIEnv *jni, const char **why, int *interpreted);

/* The calling thread's chain, into out[0..cap): the number of checks, or a FRAMES_* refusal.
 * The thread is in native with a walkable anchor (a JVMTI callback, a JNI native method). */
int frames_chain(JNIEnv *jni, frames_check *out, int cap);

/* 1 when every check holds on the calling thread (the one that read them), in order. */
int frames_hold(const frames_check *checks, int n);

const char *frames_refusal_name(int refusal);

#endif
