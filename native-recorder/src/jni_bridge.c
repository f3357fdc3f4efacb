/*
 * JNI natives of dev.convoy.agent.NativeRecorder, the one Java class that talks to this
 * library. A native failure becomes a Java exception here and nowhere else.
 */
#include <jni.h>
#include <string.h>

#include "arch.h"
#include "buf.h"
#include "convoy.h"
#include "objects.h"
#include "snapshot.h"
#include "threads.h"

static void throw_error(JNIEnv *jni, const cv_error *err) {
    jclass ex = (*jni)->FindClass(jni, "java/lang/IllegalStateException");
    if (ex) (*jni)->ThrowNew(jni, ex, err->message);
}

JNIEXPORT void JNICALL
Java_dev_convoy_agent_NativeRecorder_start0(JNIEnv *jni, jclass cls, jint buffer_bytes,
                                            jlong memory_cap, jint stack_depth, jboolean recording,
                                            jboolean empty_callbacks, jstring options) {
    (void)cls;
    cv_config c;
    memset(&c, 0, sizeof(c));
    c.buffer_bytes = (uint32_t)buffer_bytes;
    c.memory_cap = (uint64_t)memory_cap;
    c.stack_depth = (uint32_t)stack_depth;
    c.recording = recording == JNI_TRUE;
    c.empty_callbacks = empty_callbacks == JNI_TRUE;
    if (options) {
        const char *s = (*jni)->GetStringUTFChars(jni, options, NULL);
        if (!s) return; /* OutOfMemoryError pending */
        strncpy(c.options, s, sizeof(c.options) - 1);
        (*jni)->ReleaseStringUTFChars(jni, options, s);
    }
    cv_error err;
    memset(&err, 0, sizeof(err));
    if (agent_start(jni, &c, &err)) throw_error(jni, &err);
}

JNIEXPORT void JNICALL
Java_dev_convoy_agent_NativeRecorder_setRecording0(JNIEnv *jni, jclass cls, jboolean on) {
    (void)cls;
    cv_error err;
    memset(&err, 0, sizeof(err));
    if (agent_set_recording(on == JNI_TRUE, &err)) throw_error(jni, &err);
}

JNIEXPORT void JNICALL
Java_dev_convoy_agent_NativeRecorder_reset0(JNIEnv *jni, jclass cls) {
    (void)cls;
    cv_error err;
    memset(&err, 0, sizeof(err));
    if (agent_reset(&err)) throw_error(jni, &err);
}

JNIEXPORT void JNICALL
Java_dev_convoy_agent_NativeRecorder_bindProbes0(JNIEnv *jni, jclass cls, jclass probes) {
    (void)cls;
    cv_error err;
    memset(&err, 0, sizeof(err));
    if (agent_bind_probes(jni, probes, &err)) throw_error(jni, &err);
}

/* Defines a class in the bootstrap class loader (JNI DefineClass with a NULL loader): the
 * instrumentation's Probes class becomes visible to every class loader that delegates to
 * the boot loader, without appending to the boot class path (which disables class data
 * sharing for application classes and makes the JVM print a warning). */
JNIEXPORT jclass JNICALL
Java_dev_convoy_agent_NativeRecorder_defineBootClass0(JNIEnv *jni, jclass cls, jstring name, jbyteArray bytes) {
    (void)cls;
    const char *n = (*jni)->GetStringUTFChars(jni, name, NULL);
    if (!n) return NULL;
    jsize len = (*jni)->GetArrayLength(jni, bytes);
    jbyte *b = (*jni)->GetByteArrayElements(jni, bytes, NULL);
    jclass defined = NULL;
    if (b) {
        defined = (*jni)->DefineClass(jni, n, NULL, b, len);
        (*jni)->ReleaseByteArrayElements(jni, bytes, b, JNI_ABORT);
    }
    (*jni)->ReleaseStringUTFChars(jni, name, n);
    return defined; /* NULL with the JVM's exception pending (e.g. LinkageError) */
}

JNIEXPORT jboolean JNICALL
Java_dev_convoy_agent_NativeRecorder_isRecording0(JNIEnv *jni, jclass cls) {
    (void)jni; (void)cls;
    return load_acquire(&g_cv.recording) ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jbyteArray JNICALL
Java_dev_convoy_agent_NativeRecorder_snapshot0(JNIEnv *jni, jclass cls, jlongArray monitor_states) {
    (void)cls;
    jsize nstates = monitor_states ? (*jni)->GetArrayLength(jni, monitor_states) : 0;
    jlong *states = nstates ? (*jni)->GetLongArrayElements(jni, monitor_states, NULL) : NULL;
    if (nstates && !states) return NULL; /* OutOfMemoryError pending */
    cv_buf b;
    buf_init(&b);
    cv_error err;
    memset(&err, 0, sizeof(err));
    jbyteArray result = NULL;
    int rc = snapshot_encode(jni, (const int64_t *)states, (size_t)(states ? nstates : 0), &b, &err);
    if (states) (*jni)->ReleaseLongArrayElements(jni, monitor_states, states, JNI_ABORT);
    if (rc) {
        throw_error(jni, &err);
    } else if (b.len > 0x7FFFFFF0u) {
        cv_error big = {1, "snapshot larger than 2 GiB; lower the memory cap"};
        throw_error(jni, &big);
    } else {
        result = (*jni)->NewByteArray(jni, (jsize)b.len);
        if (result) (*jni)->SetByteArrayRegion(jni, result, 0, (jsize)b.len, (const jbyte *)b.data);
    }
    buf_free(&b);
    return result;
}

/* Order must match NativeRecorder.Counter. */
JNIEXPORT jlongArray JNICALL
Java_dev_convoy_agent_NativeRecorder_counters0(JNIEnv *jni, jclass cls) {
    (void)cls;
    jlong v[10];
    memset(v, 0, sizeof(v));
    if (g_cv.started && !g_cv.config.empty_callbacks) {
        cv_thread_totals t;
        threads_totals(&t);
        v[0] = (jlong)(t.written + ring_written(g_cv.gc_ring));
        v[1] = (jlong)(t.overwritten + ring_overwritten(g_cv.gc_ring));
        v[2] = (jlong)(t.dropped + threads_dropped_no_ring());
        v[3] = (jlong)t.threads;
        v[4] = (jlong)t.threads_seen;
        v[5] = (jlong)t.evicted;
        v[6] = (jlong)(t.memory + stacks_memory(g_cv.stacks) + objects_memory() +
                       ring_bytes(g_cv.gc_capacity));
        v[7] = (jlong)g_cv.start_epoch;
        v[8] = (jlong)stacks_dropped(g_cv.stacks);
        v[9] = (jlong)objects_dropped();
    }
    jlongArray arr = (*jni)->NewLongArray(jni, 10);
    if (arr) (*jni)->SetLongArrayRegion(jni, arr, 0, 10, v);
    return arr;
}

/* Binds the natives explicitly when the library is loaded. JDK 24 and later warn when a
 * native method of a class without native access is bound by name lookup; explicit
 * registration is how the agent avoids that (see NativeLibraryLoader). */
int jni_register_natives(JNIEnv *jni) {
    static const JNINativeMethod methods[] = {
        {"start0", "(IJIZZLjava/lang/String;)V", (void *)Java_dev_convoy_agent_NativeRecorder_start0},
        {"setRecording0", "(Z)V", (void *)Java_dev_convoy_agent_NativeRecorder_setRecording0},
        {"isRecording0", "()Z", (void *)Java_dev_convoy_agent_NativeRecorder_isRecording0},
        {"reset0", "()V", (void *)Java_dev_convoy_agent_NativeRecorder_reset0},
        {"bindProbes0", "(Ljava/lang/Class;)V", (void *)Java_dev_convoy_agent_NativeRecorder_bindProbes0},
        {"defineBootClass0", "(Ljava/lang/String;[B)Ljava/lang/Class;",
         (void *)Java_dev_convoy_agent_NativeRecorder_defineBootClass0},
        {"snapshot0", "([J)[B", (void *)Java_dev_convoy_agent_NativeRecorder_snapshot0},
        {"counters0", "()[J", (void *)Java_dev_convoy_agent_NativeRecorder_counters0},
    };
    jclass cls = (*jni)->FindClass(jni, "dev/convoy/agent/NativeRecorder");
    if (!cls) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    jint rc = (*jni)->RegisterNatives(jni, cls, methods, (jint)(sizeof(methods) / sizeof(methods[0])));
    (*jni)->DeleteLocalRef(jni, cls);
    if (rc != JNI_OK) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    return 0;
}
