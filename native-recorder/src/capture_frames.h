/*
 * AsyncGetCallTrace's frames (HotSpot prims/forte.cpp, an exported C ABI) and their conversion
 * into the recorder's frames, which are GetStackTrace's jvmtiFrameInfo: pure, unit-tested.
 */
#ifndef CONVOY_CAPTURE_FRAMES_H
#define CONVOY_CAPTURE_FRAMES_H

#include <jni.h>

#include "stacks.h"

typedef struct {
    jint lineno;          /* bytecode index; -3 for a native method; -1 unknown */
    jmethodID method_id;  /* NULL when the method has no jmethodID yet */
} agct_frame;

typedef struct {
    JNIEnv *env_id;
    jint num_frames;      /* < 0: not walked, forte.cpp's ticks_* reason */
    agct_frame *frames;
} agct_trace;

#define AGCT_GC_ACTIVE  (-2)
#define AGCT_DEOPT      (-9)
#define AGCT_NATIVE_BCI (-3)

/* capture_convert's refusals: the frames are not certainly GetStackTrace's. */
#define CONVERT_NO_METHOD (-1)   /* a frame without a jmethodID */
#define CONVERT_NO_BCI    (-2)   /* a Java frame without a bytecode index */

/*
 * Converts the `n` AsyncGetCallTrace frames at the start of `buf` in place into cv_frames
 * (a native method's location is -1, as GetStackTrace gives it), dropping the first `skip`.
 * Returns how many cv_frames `buf` then starts with (0 if n <= skip), or a CONVERT_* refusal.
 */
int capture_convert(void *buf, int n, int skip);

#endif
